r"""Simultaneous intervals of all pairwise score differences (max-T), and from them rank
intervals and tie groups (the machinery of :mod:`evalsig.inference.ranking`).

For estimated scores ``s`` with covariance ``V``, the difference ``s_i - s_j`` has standard
error ``se_ij = sqrt(V_ii + V_jj - 2 V_ij)``. The critical value ``c`` is the
``confidence_level`` quantile of ``max_{i<j} |Z_i - Z_j| / se_ij`` with ``Z ~ N(0, V)``
(Hothorn, Bretz & Westfall 2008), estimated from seeded normal draws shared by every
pair (multivariate t draws when a degrees-of-freedom correction is given); then all
intervals ``s_i - s_j +/- c se_ij`` hold at once with the stated level, and
``a`` is significantly better than ``b`` when its interval lies above 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsig._deprecation import renamed
from evalsig.inference.ranking import rank_intervals, tie_groups

__all__ = ["Ranks", "simultaneous_ranks"]


@dataclass(frozen=True, slots=True)
class Ranks:
    rank: np.ndarray
    """1 = best; equal scores share the best rank."""
    low: np.ndarray
    high: np.ndarray
    group: np.ndarray
    """Tie group of each model, 1 = the leaders' group."""
    critical_value: float
    better: np.ndarray
    """``better[i, j]``: model i significantly above model j (simultaneously)."""


@renamed(seed="rng")
def simultaneous_ranks(
    scores: np.ndarray,
    cov: np.ndarray,
    /,
    *,
    confidence_level: float,
    n_draws: int,
    rng: np.random.Generator | np.random.SeedSequence | int,
    df: float | None = None,
    critical_value: float | None = None,
    chunk: int = 1024,
) -> Ranks:
    """Rank intervals and tie groups from max-T simultaneous pairwise intervals.

    With ``df`` (small-sample cluster-robust covariance) the draws are multivariate t,
    ``Z / sqrt(chi2_df / df)`` with one chi-square per draw shared by every pair; a given
    ``critical_value`` replaces the draws.

    >>> ranks = simultaneous_ranks(np.array([2.0, 0.0, -0.1]), np.eye(3) * 0.01,
    ...     confidence_level=0.95, n_draws=2000, rng=np.random.SeedSequence(1))
    >>> ranks.low.tolist(), ranks.high.tolist(), ranks.group.tolist()
    ([1, 2, 2], [1, 3, 3], [1, 2, 2])
    """
    m = len(scores)
    var = np.diag(cov)
    se = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2.0 * cov, 0.0))
    np.fill_diagonal(se, np.inf)
    # a difference with no variance (two models with identical battles, clustered) is
    # left out of the maximum; it is significant only if it is not zero
    tiny = 1e-10 * max(float(np.sqrt(np.max(var, initial=0.0))), 1e-300)
    se = np.where(se > tiny, se, np.inf)
    tol = 1e-9 * max(1.0, float(np.max(np.abs(scores), initial=0.0)))
    if m < 2:
        c = 0.0
    elif critical_value is not None:
        c = critical_value
    else:
        values, vectors = np.linalg.eigh((cov + cov.T) / 2.0)
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        rng = np.random.default_rng(rng)
        weight = np.where(np.isinf(se), 0.0, 1.0 / se).astype(np.float32)  # 0: left out
        maxima = np.empty(n_draws)
        for start in range(0, n_draws, chunk):
            size = min(chunk, n_draws - start)
            normal = rng.standard_normal((size, m)) @ root.T
            if df is not None and np.isfinite(df):
                normal /= np.sqrt(rng.chisquare(df, size) / df)[:, None]
            z = np.ascontiguousarray(normal.T, np.float32)
            best = np.zeros(size, dtype=np.float32)
            for i in range(m - 1):  # row i against every later model, all draws at once
                t = np.abs(z[i + 1 :] - z[i])
                t *= weight[i, i + 1 :, None]
                np.maximum(best, t.max(axis=0), out=best)
            maxima[start : start + size] = best
        c = float(np.quantile(maxima, confidence_level))
    diff = scores[:, None] - scores[None, :]
    better = (diff > c * np.where(np.isinf(se), 0.0, se)) & (diff > tol)
    np.fill_diagonal(better, False)
    low, high = rank_intervals(better)
    order = np.argsort(-scores, kind="stable")
    groups = tie_groups(order.tolist(), better | better.T)
    group = np.empty(m, dtype=np.int64)
    for g, members in enumerate(groups, start=1):
        group[members] = g
    rank = 1 + (scores[None, :] > scores[:, None] + tol).sum(axis=1)
    return Ranks(rank.astype(np.int64), low, high, group, c, better)
