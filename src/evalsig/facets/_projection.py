r"""A decomposition's terms as arrays, and the error variance of other designs.

A term over the facets :math:`F_t` with :math:`L_t` levels today has
:math:`L'_t = L_t \prod_{f \in F_t} n'_f / n_f` levels under a design :math:`n'`, and
contributes :math:`g_t \hat\sigma_t^2 / L'_t` to the error variance, with weights
:math:`g_t` that say which error: every term's (the SE of the score), or, where one facet
is the object of measurement (models on a leaderboard), the relative error of one object's
score (the terms that cross the object, :math:`g_t = n_o`) or its absolute error (those
and the terms that do not involve the object; Brennan 2001, *Generalizability Theory*,
ch. 4-5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsig.facets.sources import VarianceSourcesResult

__all__ = ["Terms"]


@dataclass(frozen=True, slots=True)
class Terms:
    """The terms of a decomposition (the residual last) and their spans over the facets."""

    names: tuple[str, ...]
    variances: np.ndarray
    """``(T,)`` the components."""
    levels: np.ndarray
    """``(T,)`` levels of each term in the data (rows, for the residual)."""
    span: np.ndarray
    """``(T, F)`` whether a term runs over a facet (the residual over all)."""
    current: np.ndarray
    """``(F,)`` levels of each facet in the data."""
    draws: np.ndarray | None
    """``(R, T)`` the components' bootstrap resamples, or None."""

    @classmethod
    def of(cls, sources: VarianceSourcesResult) -> Terms:
        facets = sources.facets
        span = np.zeros((len(sources.terms), len(facets)), dtype=bool)
        for t, row in enumerate(sources.terms):
            names = facets if row.term == "residual" else row.term.split(":")
            span[t, [facets.index(name) for name in names]] = True
        single = {row.term: row.levels for row in sources.terms}
        return cls(
            names=tuple(row.term for row in sources.terms),
            variances=np.array([row.variance for row in sources.terms]),
            levels=np.array([float(row.levels) for row in sources.terms]),
            span=span,
            current=np.array([float(single[f]) for f in facets]),
            draws=sources.draws,
        )

    def divisors(self, designs: np.ndarray) -> np.ndarray:
        """``(D, T)``: each term's levels under each design (``(D, F)`` levels)."""
        ratio = np.asarray(designs, dtype=np.float64)[:, None, :] / self.current
        return np.asarray(self.levels * np.prod(np.where(self.span, ratio, 1.0), axis=2))

    def weights(self, object_facet: int | None, *, relative: bool) -> np.ndarray:
        """``(T,)`` :math:`g_t`: ones without an object of measurement; with one, the
        relative (or absolute) error of one object's score."""
        if object_facet is None:
            return np.ones(len(self.names))
        crosses = self.span[:, object_facet].copy()
        alone = crosses & (self.span.sum(axis=1) == 1)  # the object's own term
        alone[-1] = False  # the residual runs over every facet
        crosses &= ~alone
        g = np.where(crosses, self.current[object_facet], 0.0)
        if not relative:
            g = np.where(crosses | alone, g, 1.0)
        return g

    def object_variance(self, object_facet: int) -> tuple[float, np.ndarray | None]:
        """The object's own component, and its resamples."""
        t = next(
            t
            for t in range(len(self.names) - 1)  # not the residual
            if self.span[t, object_facet] and self.span[t].sum() == 1
        )
        return float(self.variances[t]), None if self.draws is None else self.draws[:, t]
