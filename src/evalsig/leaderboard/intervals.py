"""Every model's score interval at once, by the interval :func:`evalsig.score` would choose.

From the ``(G, 4, M, M)`` pairwise sums a leaderboard has already (per cluster ``g``: items
``n_g``, score totals ``T_g`` and sums of squares ``Q_g`` of each model on the diagonal), so
no model's items are read again:

* one run of 0/1 scores: Clopper-Pearson below :data:`evalsig.score.WILSON_FROM` items,
  Wilson from there, from the number right ``T``, vectorised over models;
* several runs or continuous scores: the t interval on per-item means,
  ``T/N +/- t(N-1) s / sqrt(N)`` with ``s^2 = (Q - T^2/N) / (N - 1)``;
* clustered items: CR2 with Bell-McCaffrey degrees of freedom, from the cluster totals
  ``E_g = T_g - n_g T/N``: ``se^2 = sum_g E_g^2 / (1 - n_g/N) / N^2``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from evalsig.inference._cr2 import cr2
from evalsig.inference.proportion import ProportionMethod, proportion_bounds
from evalsig.inference.stratified import stratified_from_sums

__all__ = ["ScoreIntervals", "aggregate_intervals", "score_intervals"]

ZERO_SPREAD = 1e-12
"""A standard error at most this times the largest |score| is 0 (as :func:`evalsig.score`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreIntervals:
    """Each model's score interval, in the models' order, and how it was computed."""

    low: np.ndarray
    high: np.ndarray
    method: str
    """The interval, named as :attr:`evalsig.ScoreResult.method` names it."""
    reason: str
    """The interval and why, one sentence for the leaderboard's notes."""
    se: np.ndarray
    """Standard error of each score (binomial for a proportion)."""

    def ordered(self, order: np.ndarray) -> ScoreIntervals:
        """The same intervals in another order of the models."""
        return ScoreIntervals(
            low=self.low[order],
            high=self.high[order],
            method=self.method,
            reason=self.reason,
            se=self.se[order],
        )


def score_intervals(
    sums: np.ndarray,
    /,
    *,
    binary: bool,
    clustered: bool,
    confidence_level: float,
    stratified: bool = False,
) -> ScoreIntervals:
    """The interval of each model's score from the ``(G, 4, M, M)`` pairwise sums.

    ``binary``: every model has one run of 0/1 scores; ``clustered``: the G groups are
    clusters of items; ``stratified``: they are strata (else G blocks of independent
    items, summed).
    """
    from evalsig.score import WILSON_FROM

    diagonal = np.diagonal(sums, axis1=2, axis2=3)  # (G, 4, M)
    per_cluster_n, per_cluster_t = diagonal[:, 0, :], diagonal[:, 1, :]
    total = diagonal.sum(axis=0)  # (4, M)
    n, t, q = total[0], total[1], total[2]
    level = confidence_level
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = t / n
    level_text = f"{100 * level:g}%"
    if stratified:
        estimate, se, df = stratified_from_sums(
            per_cluster_n, per_cluster_t, diagonal[:, 2, :], weights="proportional"
        )
        reason = (
            f"score intervals: {level_text} stratified t intervals on per-item means "
            "(proportional weights, Satterthwaite df; as evalsig.score with strata)"
        )
        return _t_intervals(estimate, se, df, level, "stratified", reason)
    if clustered:
        return _cluster_intervals(per_cluster_n, per_cluster_t, mean, level)
    if binary:
        n_items = np.rint(n).astype(np.int64)
        right = np.rint(t).astype(np.int64)
        small = int(n_items.min()) < WILSON_FROM if len(n_items) else False
        method: ProportionMethod = "clopper-pearson" if small else "wilson"
        low, high = np.full(len(n), np.nan), np.full(len(n), np.nan)
        for size in np.unique(n_items):  # one size per task, as a rule
            if size < 1:
                continue
            at = n_items == size
            low[at], high[at] = proportion_bounds(
                right[at], int(size), method=method, confidence_level=level
            )
        with np.errstate(invalid="ignore"):
            se = np.sqrt(mean * (1.0 - mean) / n)
        reason = (
            f"score intervals: {level_text} Clopper-Pearson exact intervals (one run of 0/1 "
            f"scores on fewer than {WILSON_FROM:,} items, as evalsig.score)"
            if small
            else f"score intervals: {level_text} Wilson score intervals (one run of 0/1 "
            "scores, as evalsig.score)"
        )
        return ScoreIntervals(low=low, high=high, method=method, reason=reason, se=se)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.maximum(q - t * mean, 0.0) / (n - 1.0)
        se = np.sqrt(variance / n)
    reason = (
        f"score intervals: {level_text} t intervals on per-item means, items as the "
        "independent units (as evalsig.score)"
    )
    return _t_intervals(mean, se, n - 1.0, level, "t", reason)


def aggregate_intervals(
    means: np.ndarray, se: np.ndarray, /, *, n_tasks: int, confidence_level: float
) -> ScoreIntervals:
    """Intervals of the mean score over tasks: ``mean +/- z se``, ``se = sqrt(sum se_t^2) / T``
    from the tasks' standard errors (tasks hold different items, so they are independent)."""
    z = float(special.ndtri(0.5 + confidence_level / 2))
    return ScoreIntervals(
        low=means - z * se,
        high=means + z * se,
        method="aggregate-normal",
        reason=(
            f"score intervals: {100 * confidence_level:g}% normal intervals of the mean over "
            f"{n_tasks} tasks, standard error sqrt(sum of the tasks' squared standard "
            f"errors) / {n_tasks}"
        ),
        se=se,
    )


def _cluster_intervals(
    sizes: np.ndarray, totals: np.ndarray, mean: np.ndarray, level: float
) -> ScoreIntervals:
    """CR2 of each model's mean from its cluster sizes and totals ``(G, M)``, on
    Bell-McCaffrey degrees of freedom (:func:`evalsig.inference._cr2.cr2`)."""
    residual = totals - sizes * mean[None, :]
    se, df = cr2(sizes.T, residual.T)  # a model absent from a cluster: size 0, adds nothing
    reason = (
        f"score intervals: {100 * level:g}% cluster-robust intervals (CR2, Bell-McCaffrey "
        "degrees of freedom) on per-item means (as evalsig.score)"
    )
    return _t_intervals(mean, se, df, level, "cluster-cr2", reason)


def _t_intervals(
    mean: np.ndarray, se: np.ndarray, df: np.ndarray, level: float, method: str, reason: str
) -> ScoreIntervals:
    """``mean -/+ t(df) se``; a point at the mean when ``se`` is 0 up to rounding (the
    returned ``se`` is the one given)."""
    scale = np.abs(mean)
    zeroed = np.where(se <= ZERO_SPREAD * scale, 0.0, se)
    with np.errstate(invalid="ignore"):
        half = special.stdtrit(df, 0.5 + level / 2) * zeroed
    half = np.where(zeroed == 0.0, 0.0, half)
    return ScoreIntervals(low=mean - half, high=mean + half, method=method, reason=reason, se=se)
