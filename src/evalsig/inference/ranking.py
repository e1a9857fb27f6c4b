"""Honest ranks from pairwise tests: tie groups, simultaneous rank intervals, bootstrap ranks.

With all pairwise differences tested under family-wise error control, a model's rank can be
pinned to ``[1 + #models significantly better, M - #models significantly worse]``; when no
test in the family errs, which happens with probability at least 1 - alpha, every model's
true rank lies in its interval at once (Holm et al.; Al Mohamad, Goeman & van Zwet 2022).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evalsig._deprecation import renamed
from evalsig.inference._exact import times_counts

__all__ = ["bootstrap_ranks", "rank_intervals", "tie_groups"]


def rank_intervals(better: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]:
    """Rank sets from a significance matrix: ``better[a, b]`` = a significantly beats b.

    Returns ``(low, high)``: 1-based best and worst possible ranks of each model.

    >>> better = np.array([[False, True, True], [False, False, False], [False, False, False]])
    >>> low, high = rank_intervals(better)
    >>> low.tolist(), high.tolist()
    ([1, 2, 2], [1, 3, 3])
    """
    m = len(better)
    low = 1 + better.sum(axis=0)
    high = m - better.sum(axis=1)
    return low.astype(np.int64), high.astype(np.int64)


def tie_groups(order: Sequence[int], separated: np.ndarray, /) -> list[list[int]]:
    """Consecutive groups of the ranking that the tests cannot separate.

    Walking down the ranking, a model joins the current group unless it is significantly
    worse than the group's leader (``separated[a, b]``: a and b differ significantly);
    then it opens a new group. Every member of a group is thus inseparable from its leader.

    >>> sep = np.zeros((4, 4), dtype=bool); sep[0, 2] = sep[2, 0] = True
    >>> tie_groups([0, 1, 2, 3], sep)
    [[0, 1], [2, 3]]
    """
    groups: list[list[int]] = []
    for model in order:
        if groups and not separated[groups[-1][0], model]:
            groups[-1].append(int(model))
        else:
            groups.append([int(model)])
    return groups


@renamed(seed="rng")
def bootstrap_ranks(
    sums: np.ndarray,
    counts: np.ndarray,
    /,
    *,
    n_resamples: int,
    rng: np.random.SeedSequence | np.random.Generator | int,
    chunk: int = 200,
    strata: np.ndarray | None = None,
) -> np.ndarray:
    """``(M, n_resamples)`` ranks of each model's mean in unit bootstraps (items or clusters).

    ``sums[m, u]`` and ``counts[m, u]`` are model m's score total and item count in unit u
    (an item, or a cluster for a cluster bootstrap). Each resample draws units with
    replacement (multinomial counts), so a model's mean is ``(sums @ w) / (counts @ w)``:
    a matrix product per chunk of resamples, never a copy of the data. Chunks draw from
    children of one SeedSequence (``rng``, or one built from it: :func:`seed_sequence`), so
    results do not depend on how chunks are scheduled. ``strata`` (a code ``0 .. H - 1``
    a unit) draws each stratum's units within it, keeping its size: the stratified
    bootstrap, whose variance leaves out the variance between strata.
    """
    units = sums.shape[1]
    n_chunks = -(-n_resamples // chunk)
    out = np.empty((sums.shape[0], n_resamples), dtype=np.int64)
    for k, child in enumerate(seed_sequence(rng).spawn(n_chunks)):
        size = min(chunk, n_resamples - k * chunk)
        out[:, k * chunk : k * chunk + size] = ranks_of_chunk(
            sums, counts, units, size, child, strata
        )
    return out


def seed_sequence(
    rng: np.random.SeedSequence | np.random.Generator | int,
) -> np.random.SeedSequence:
    """The SeedSequence whose children the chunks draw from: ``rng`` itself, one seeded by
    an int, or one seeded by 256 bits drawn from a Generator.

    >>> seed_sequence(7).entropy
    7
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, 4).tolist())
    return np.random.SeedSequence(rng)


def ranks_of_chunk(
    sums: np.ndarray,
    counts: np.ndarray,
    units: int,
    size: int,
    seed: np.random.SeedSequence,
    strata: np.ndarray | None = None,
) -> np.ndarray:
    """Ranks (1 = best, ties share the best rank) in ``size`` resamples of one chunk.

    The weighted totals are exact (integer scores and counts directly, other scores by
    error-free products), so a chunk ranks the same in any process.
    """
    w = unit_weights(np.random.default_rng(seed), units, size, strata)
    whole = bool(np.all(sums == np.rint(sums))) and float(np.abs(sums).max(initial=0)) < 2**26
    totals = sums @ w if whole and units < 2**26 else times_counts(sums, w, units)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = totals / (counts @ w)
    means = np.where(np.isnan(means), -np.inf, means)  # a model with no drawn items ranks last
    return min_ranks(-means)


def unit_weights(
    rng: np.random.Generator, units: int, size: int, strata: np.ndarray | None = None
) -> np.ndarray:
    """``(units, size)`` bootstrap counts: each column a multinomial draw of ``units`` units
    with replacement, or, with ``strata``, of each stratum's units within it (the stratum's
    size kept). One stratum draws exactly as none."""
    if strata is None:
        drawn = rng.multinomial(units, np.full(units, 1.0 / units), size=size)
        return np.asarray(drawn.T, dtype=np.float64)
    w = np.empty((units, size))
    for members in np.split(np.argsort(strata, kind="stable"), np.cumsum(np.bincount(strata))[:-1]):
        n = members.size
        w[members] = rng.multinomial(n, np.full(n, 1.0 / n), size=size).T
    return w


def min_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks down each column (1 = smallest), ties sharing the smallest of their ranks:
    ``scipy.stats.rankdata(values, method="min", axis=0)`` as integers, for values without
    NaN, without importing scipy.stats (0.3-0.4 s of a leaderboard's start-up)."""
    order = np.argsort(values, axis=0, kind="stable")
    ordered = np.take_along_axis(values, order, axis=0)
    position = np.broadcast_to(
        np.arange(1, len(values) + 1).reshape(-1, *([1] * (values.ndim - 1))), values.shape
    )
    starts = np.ones(values.shape, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    ranks = np.empty(values.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, first, axis=0)
    return ranks
