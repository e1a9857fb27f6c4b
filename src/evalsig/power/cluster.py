"""Design effect of clustered items: the variance inflation that shrinks the effective N.

Items that share a subject, passage or source are not independent: a model that is good at
one law question tends to be good at the next. The variance of the mean difference grows
by the design effect, and an N-item benchmark carries the information of ``N / deff``
independent items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evalsig.errors import DataError

__all__ = ["DesignEffect", "design_effect", "design_effect_from_icc"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignEffect:
    """The intra-cluster correlation of per-item differences and the variance inflation."""

    icc: float
    """ANOVA estimate of the intra-cluster correlation (may be negative by chance)."""
    design_effect: float
    """``1 + (m_eff - 1) icc``, at least 1 (a negative estimate is not credited)."""
    mean_cluster_size: float
    """``m_eff = sum_g m_g^2 / N``: the size-weighted mean cluster size."""
    n_items: int
    n_clusters: int
    notes: tuple[str, ...] = ()

    @property
    def effective_n(self) -> float:
        """``N / deff``: the number of independent items with the same information."""
        return self.n_items / self.design_effect


def design_effect_from_icc(icc: float, mean_cluster_size: float) -> float:
    """``1 + (m - 1) icc`` (Kish 1965) for clusters of (size-weighted) mean size ``m``.

    >>> design_effect_from_icc(0.02, 860)
    18.18
    """
    if not -1.0 <= float(icc) <= 1.0:
        raise DataError(f"`icc` must be a correlation in [-1, 1]; got {icc!r}.")
    if not float(mean_cluster_size) >= 1.0:
        raise DataError(f"`mean_cluster_size` must be at least 1; got {mean_cluster_size!r}.")
    return 1.0 + (float(mean_cluster_size) - 1.0) * float(icc)


def design_effect(differences: np.ndarray, cluster: np.ndarray, /) -> DesignEffect:
    """Estimate the design effect of per-item differences grouped by integer cluster codes.

    Parameters
    ----------
    differences : (N,) array
        Per-item (mean) differences, candidate minus baseline.
    cluster : (N,) integer array
        Cluster code of each item, 0 .. G - 1.

    Notes
    -----
    One-way ANOVA estimator (unequal sizes): ``icc = (MSB - MSW) / (MSB + (m0 - 1) MSW)``
    with ``m0 = (N - sum m_g^2 / N) / (G - 1)``. Under exchangeable correlation within
    clusters, ``Var(mean) = sigma^2 / N [1 + (m_eff - 1) icc]`` exactly, with
    ``m_eff = sum m_g^2 / N``; that factor is the design effect.

    References
    ----------
    Kish, L. (1965). Survey Sampling. Wiley. Donner, A. & Klar, N. (2000). Design and
    Analysis of Cluster Randomization Trials in Health Research. Arnold.

    Examples
    --------
    >>> d = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0], dtype=float)
    >>> g = np.array([0, 0, 0, 1, 1, 1, 2, 2, 3, 3])
    >>> round(design_effect(d, g).icc, 4)
    0.4478
    """
    d = np.asarray(differences, dtype=float)
    codes = np.asarray(cluster)
    if d.ndim != 1 or codes.shape != d.shape:
        raise DataError(
            f"`differences` and `cluster` must be 1-D of one length; got shapes {d.shape} "
            f"and {codes.shape}."
        )
    n = len(d)
    sizes = np.bincount(codes).astype(float)
    sizes = sizes[sizes > 0]
    g = len(sizes)
    m_eff = float((sizes**2).sum() / n) if n else 1.0
    notes: list[str] = []
    if g < 2 or g == n:
        why = "one cluster" if g < 2 else "every item is its own cluster"
        notes.append(f"{why}: no within-cluster correlation to estimate (deff = 1)")
        return DesignEffect(
            icc=0.0,
            design_effect=1.0,
            mean_cluster_size=m_eff,
            n_items=n,
            n_clusters=g,
            notes=tuple(notes),
        )
    icc = _anova_icc(d, np.asarray(codes, dtype=np.intp), n, g)
    deff = 1.0 + (m_eff - 1.0) * icc
    if deff < 1.0:
        notes.append(f"estimated icc {icc:.4g} < 0 would shrink the variance: deff held at 1")
        deff = 1.0
    if g < 20:
        notes.append(f"only {g} clusters: the icc estimate is rough")
    return DesignEffect(
        icc=icc,
        design_effect=deff,
        mean_cluster_size=m_eff,
        n_items=n,
        n_clusters=g,
        notes=tuple(notes),
    )


def _anova_icc(d: np.ndarray, codes: np.ndarray, n: int, g: int) -> float:
    sizes = np.bincount(codes).astype(float)
    totals = np.bincount(codes, weights=d)
    present = sizes > 0
    sizes, totals = sizes[present], totals[present]
    grand = d.sum() / n
    ss_between = float((totals**2 / sizes).sum() - n * grand**2)
    ss_within = float((d**2).sum() - (totals**2 / sizes).sum())
    msb = ss_between / (g - 1)
    msw = max(ss_within, 0.0) / (n - g)
    m0 = (n - float((sizes**2).sum()) / n) / (g - 1)
    denominator = msb + (m0 - 1.0) * msw
    if denominator <= 0 or not math.isfinite(denominator):
        return 0.0
    return (msb - msw) / denominator
