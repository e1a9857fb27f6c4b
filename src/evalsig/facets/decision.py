r"""The decision study: a score's standard error, and the smallest paired difference it
resolves, projected to other numbers of items, prompts, runs or judges.

A term's variance is averaged over its levels, so with :math:`n'_f` levels of each facet
:math:`f` in place of :math:`n_f`, a term over the facets :math:`F_t` with :math:`L_t`
levels today has :math:`L'_t = L_t \prod_{f \in F_t} n'_f / n_f` (the residual runs over
every facet), and

.. math:: \operatorname{SE}' = \sqrt{\sum_t \hat\sigma_t^2 / L'_t}, \qquad
          \operatorname{MDE}' = (z_{1 - \alpha/2} + z_{\text{power}})\, \operatorname{SE}'

for a paired difference (Brennan 2001, *Generalizability Theory*, ch. 4; Cronbach et al.
1972). Components from 3 runs or 5 prompts rest on few degrees of freedom: each projection
is made again from every bootstrap resample of the components, and its percentile interval
is reported beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError
from evalsig.facets.sources import VarianceSourcesResult
from evalsig.power._common import check_alpha, check_power, z_upper
from evalsig.result import Result

__all__ = ["DecisionStudyResult", "ProjectedDesign", "decision_study"]

SCALES = (0.5, 1.0, 2.0, 4.0)
"""The default designs: each facet at these multiples of its levels, the others as they
are."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectedDesign:
    """One design: its levels of each facet, and the SE and MDE it would give."""

    levels: tuple[int, ...]
    """Levels of each facet, in the study's ``facets`` order."""
    scores: int
    """Scores a model needs: the product of the levels (a crossed design)."""
    se: float
    se_low: float | None
    se_high: float | None
    """The SE's percentile interval over the components' bootstrap resamples."""
    mde: float | None
    """Smallest paired difference detected (two-sided, normal); None for one model's score."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionStudyResult(Result):
    """SE and MDE of a score or a paired difference under other designs."""

    kind: ClassVar[str] = "decision-study"

    estimand: str
    facets: tuple[str, ...]
    current: tuple[int, ...]
    """Levels of each facet in the data."""
    designs: tuple[ProjectedDesign, ...]
    alpha: float
    power: float
    confidence_level: float
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        if self.designs and self.designs[0].se_low is None:
            nulls["designs[].se_low"] = nulls["designs[].se_high"] = (
                "no bootstrap resamples of the components (n_resamples=0)"
            )
        if self.estimand == "score":
            nulls["designs[].mde"] = (
                "one model's score: the MDE is of a paired difference; decompose the "
                "difference (variance_sources with baseline=)"
            )
        return {
            "kind": "decision-study",
            "schema_version": SCHEMA_VERSION,
            "estimand": self.estimand,
            "facets": list(self.facets),
            "current": list(self.current),
            "alpha": self.alpha,
            "power": self.power,
            "confidence_level": self.confidence_level,
            "designs": [
                {
                    "levels": list(d.levels),
                    "scores": d.scores,
                    "se": d.se,
                    "se_low": d.se_low,
                    "se_high": d.se_high,
                    "mde": d.mde,
                }
                for d in self.designs
            ],
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row a design: each facet's levels, scores a model, SE (with its interval)
        and MDE."""
        from evalsig._frame import data_frame, floats, ints

        columns: dict[str, Any] = {
            facet: ints(d.levels[i] for d in self.designs) for i, facet in enumerate(self.facets)
        }
        columns |= {
            "scores": ints(d.scores for d in self.designs),
            "se": floats(d.se for d in self.designs),
            "se_low": floats(d.se_low for d in self.designs),
            "se_high": floats(d.se_high for d in self.designs),
            "mde": floats(d.mde for d in self.designs),
        }
        return data_frame(columns)


def decision_study(
    sources: VarianceSourcesResult,
    /,
    *,
    designs: Sequence[Mapping[str, int]] | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> DecisionStudyResult:
    """Project a score's SE (and a paired difference's MDE) to other designs.

    Parameters
    ----------
    sources : VarianceSourcesResult
        The components, from :func:`evalsig.facets.variance_sources` (with bootstrap
        resamples, for the intervals).
    designs : sequence of mappings of facet to levels, optional
        Each a design (``{"prompt": 10, "run": 1}``); a facet not named keeps its levels.
        Default: each facet at 0.5, 1, 2 and 4 times its levels, the others as they are.
    alpha, power : float
        Of the MDE (two-sided).

    Returns
    -------
    DecisionStudyResult

    Notes
    -----
    See the module's docstring. The projection assumes a complete design (every
    combination of the facets' levels scored): on data with missing cells, its SE at the
    current levels is a little below the one :func:`variance_sources` reports.
    """
    alpha, power = check_alpha(alpha), check_power(power)
    current = tuple(_levels(sources, facet) for facet in sources.facets)
    wanted = _designs(designs, sources.facets, current)
    variances = np.array([row.variance for row in sources.terms])
    draws = sources.draws
    spans = [_facets_of(row.term, sources.facets) for row in sources.terms]
    multiplier = z_upper(alpha / 2) + z_upper(1 - power)
    tail = (1 - sources.confidence_level) / 2
    out = []
    for levels in wanted:
        scale = np.array(
            [
                row.levels * math.prod(levels[i] / current[i] for i in span)
                for row, span in zip(sources.terms, spans, strict=True)
            ]
        )
        se = math.sqrt(float(variances @ (1 / scale)))
        low = high = None
        if draws is not None:
            resampled = np.sqrt(draws @ (1 / scale))
            low, high = (float(v) for v in np.quantile(resampled, [tail, 1 - tail]))
        out.append(
            ProjectedDesign(
                levels=levels,
                scores=math.prod(levels),
                se=se,
                se_low=low,
                se_high=high,
                mde=multiplier * se if sources.estimand == "difference" else None,
            )
        )
    notes = []
    if draws is None:
        notes.append("no bootstrap resamples of the components: the SEs have no interval")
    return DecisionStudyResult(
        estimand=sources.estimand,
        facets=sources.facets,
        current=current,
        designs=tuple(out),
        alpha=alpha,
        power=power,
        confidence_level=sources.confidence_level,
        notes=tuple(notes),
    )


def _levels(sources: VarianceSourcesResult, facet: str) -> int:
    return next(row.levels for row in sources.terms if row.term == facet)


def _facets_of(term: str, facets: tuple[str, ...]) -> list[int]:
    """The facets a term runs over (all of them for the residual)."""
    if term == "residual":
        return list(range(len(facets)))
    return [facets.index(name) for name in term.split(":")]


def _designs(
    designs: Sequence[Mapping[str, int]] | None,
    facets: tuple[str, ...],
    current: tuple[int, ...],
) -> list[tuple[int, ...]]:
    if designs is None:
        found: list[tuple[int, ...]] = []
        for i in range(len(facets)):
            for scale in SCALES:
                changed = list(current)
                changed[i] = max(1, round(current[i] * scale))
                if tuple(changed) not in found:
                    found.append(tuple(changed))
        return found
    out: list[tuple[int, ...]] = []
    for design in designs:
        unknown = sorted(set(design) - set(facets))
        if unknown:
            raise DataError(
                f"design {dict(design)!r} names {unknown[0]!r}, not a facet of the study; "
                f"the facets are {list(facets)}."
            )
        levels = tuple(int(design.get(facet, n)) for facet, n in zip(facets, current, strict=True))
        if min(levels) < 1:
            raise DataError(f"design {dict(design)!r} has a facet with fewer than 1 level.")
        out.append(levels)
    return out
