"""A benchmark generator: per-item difficulty from a mixture, repeated stochastic runs.

Each item has a latent probability of being answered correctly: a share of items is
always right (p = 1), a share always wrong (p = 0), the rest uniform on an interval.
Every run is an independent Bernoulli draw per item. The candidate shares the baseline's
difficulty profile; a fine-tune with uplift u turns round(u * n) always-wrong items into
always-right ones, a true gain of u in accuracy (u = 0: a clone). With ``n_clusters``
the items form clusters whose scores have the intra-cluster correlation ``icc``
(:mod:`evalsig.simulate.clusters`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import as_generator, seeded
from evalsig.simulate.design import MixtureDesign

__all__ = ["SimulatedBenchmark", "simulate_benchmark", "simulate_runs"]


@dataclass(frozen=True, slots=True, eq=False)
class SimulatedBenchmark:
    """Simulated scores of a baseline and a candidate, with the truth that generated them."""

    p_baseline: np.ndarray
    """``(n,)`` true per-item success probability of the baseline."""
    p_candidate: np.ndarray
    """``(n,)`` true per-item success probability of the candidate."""
    baseline: np.ndarray
    """``(R, n)`` 0/1 scores of the baseline, runs x items."""
    candidate: np.ndarray
    """``(R, n)`` 0/1 scores of the candidate."""
    clusters: np.ndarray | None = None
    """``(n,)`` cluster code of each item, or None (unclustered items)."""
    seed: int | None = None
    """``simulate_benchmark(..., rng=seed)`` regenerates exactly this benchmark (None: ``rng``
    was a Generator, or the pair came from :func:`simulate_models`, whose result has the seed)."""

    @property
    def true_difference(self) -> float:
        """The true difference in accuracy, candidate minus baseline."""
        return float(self.p_candidate.mean() - self.p_baseline.mean())


def simulate_benchmark(
    *,
    n_items: int = 4000,
    n_runs: int = 8,
    share_easy: float = 0.42,
    share_hard: float = 0.28,
    middle: tuple[float, float] = (0.2, 0.8),
    uplift: float = 0.0,
    rng: np.random.Generator | int | None = None,
    n_clusters: int | None = None,
    icc: float = 0.0,
) -> SimulatedBenchmark:
    """Simulate a baseline and a candidate on the same items.

    Parameters
    ----------
    n_items, n_runs : int
        Items, and independent runs per model.
    share_easy, share_hard : float
        Shares of always-right (p = 1) and always-wrong (p = 0) items; the rest have p
        uniform on ``middle``.
    uplift : float
        True gain of the candidate: this share of all items moves from always-wrong to
        always-right (at most ``share_hard``); 0 gives a clone of the baseline.
    rng : numpy.random.Generator, int or None
    n_clusters : int, optional
        Put the items in this many contiguous clusters of near-equal size.
    icc : float, default 0.0
        Intra-cluster correlation of one run's scores (needs ``n_clusters``); the mixture
        of each item's difficulty is unchanged.

    Returns
    -------
    SimulatedBenchmark

    Examples
    --------
    >>> bench = simulate_benchmark(n_items=1000, n_runs=2, uplift=0.02, rng=0)
    >>> bench.baseline.shape, round(bench.true_difference, 3)
    ((2, 1000), 0.02)
    """
    if n_items < 2 or n_runs < 1:
        raise DataError(f"need n_items >= 2 and n_runs >= 1; got {n_items} and {n_runs}.")
    if not (share_easy >= 0 and share_hard >= 0 and share_easy + share_hard <= 1):
        raise DataError(
            f"`share_easy` ({share_easy}) and `share_hard` ({share_hard}) must be shares "
            "summing to at most 1."
        )
    low, high = middle
    if not 0 <= low <= high <= 1:
        raise DataError(f"`middle` must be an interval inside [0, 1]; got {middle!r}.")
    generator, seed = seeded(rng)
    clusters = None
    if n_clusters is not None or icc != 0.0:
        design = MixtureDesign(
            n_items=n_items,
            n_runs=n_runs,
            share_easy=share_easy,
            share_hard=share_hard,
            middle=middle,
            uplift=0.0,
            n_clusters=n_clusters,
            icc=icc,
        )
        p = design.latent(generator)
        clusters = design.clusters
    else:
        u = generator.random(n_items)
        p = np.where(
            u < share_easy,
            1.0,
            np.where(u < share_easy + share_hard, 0.0, generator.uniform(low, high, n_items)),
        )
    p_candidate = p.copy()
    hard = np.flatnonzero(p == 0.0)
    n_promote = round(uplift * n_items)
    if not 0 <= n_promote <= len(hard):
        raise DataError(
            f"`uplift`={uplift} needs {n_promote} always-wrong items to promote, but there "
            f"are {len(hard)}; lower the uplift or raise share_hard."
        )
    p_candidate[generator.choice(hard, size=n_promote, replace=False)] = 1.0
    baseline = simulate_runs(p, n_runs, generator)
    candidate = simulate_runs(p_candidate, n_runs, generator)
    return SimulatedBenchmark(p, p_candidate, baseline, candidate, clusters, seed)


def simulate_runs(
    p: np.ndarray, n_runs: int, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """``n_runs x n`` independent 0/1 scores, item i correct with probability ``p[i]``."""
    generator = as_generator(rng)
    return (generator.random((n_runs, len(p))) < p).astype(np.int8)
