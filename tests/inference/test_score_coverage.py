"""Coverage of the interval ``evalsig.score`` chooses by default, at every shape it routes.

One standard for every check: the 99% binomial band of a 2,000-replication simulation
around 95%, ``0.95 +/- z_0.995 sqrt(0.95 * 0.05 / 2000)`` = [93.74%, 96.26%]. Coverage
within the band or above it (a conservative interval, which the exact Clopper-Pearson
interval is by construction) passes; below it fails.

* One run of 0/1 scores: the interval is a function of the number right, ``k``, so its
  coverage at a true accuracy ``p`` is exact, ``sum_k P(k | n, p) 1[low_k <= p <= high_k]``
  over all ``k`` in 0..n, with no simulation and no Monte Carlo error; it must not fall
  below the band's lower edge at N = 10, 30, 100, 1000 (and around the switch from
  Clopper-Pearson to Wilson, :data:`evalsig.score.WILSON_FROM`) for p in {0.02, 0.05, 0.1,
  0.3, 0.5, 0.7, 0.9, 0.95, 0.98}. The same check fails the Wald interval at small N, and
  fails the Wilson and Bayesian Beta(1, 1) intervals below the switch (why the default is
  Clopper-Pearson there).
* Several runs per item and clustered items: seeded simulations of 2,000 data sets through
  ``evalsig.score`` itself, whose coverage count must lie in the band (the exact seeded
  count is asserted too); the same simulations fail the intervals that treat runs, or
  clustered items, as independent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from evalsig.inference.proportion import ProportionMethod, proportion_bounds
from evalsig.score import WILSON_FROM, score

LEVEL = 0.95
REPLICATIONS = 2000
HALF_BAND = float(special.ndtri(0.995)) * math.sqrt(LEVEL * (1 - LEVEL) / REPLICATIONS)
BAND = (LEVEL - HALF_BAND, LEVEL + HALF_BAND)
"""The 99% band of a 2,000-replication coverage estimate around 95%: [0.93745, 0.96255]."""

ACCURACIES = np.array([0.02, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.98])
SIZES = (10, 30, 100, 1000)


def exact_coverage(method: ProportionMethod, n: int, p: np.ndarray) -> np.ndarray:
    """P(low_k <= p <= high_k) summed over every outcome k, at each true accuracy p."""
    k = np.arange(n + 1)
    low, high = proportion_bounds(k, n, method=method, confidence_level=LEVEL)
    weights = stats.binom.pmf(k[None, :], n, p[:, None])
    inside = (low[None, :] <= p[:, None]) & (p[:, None] <= high[None, :])
    coverage: np.ndarray = (weights * inside).sum(axis=1)
    return coverage


def default_method(n: int) -> ProportionMethod:
    """The interval ``score`` picks for one run of 0/1 scores on n items, checked to be the
    very bounds :func:`exact_coverage` sums over (at a few outcomes k)."""
    method = score(np.zeros(n, dtype=np.int8)).method
    for k in sorted({0, 1, n // 3, n - 1, n}):
        data = np.zeros(n, dtype=np.int8)
        data[:k] = 1
        result = score(data)
        assert result.method == method
        low, high = proportion_bounds(np.array([k]), n, method=method)  # type: ignore[arg-type]
        assert (result.ci.low, result.ci.high) == (low[0], high[0])
    return method  # type: ignore[return-value]


@pytest.mark.parametrize("n", [*SIZES, WILSON_FROM - 1, WILSON_FROM, 2 * WILSON_FROM])
def test_default_interval_of_one_run_covers(n: int) -> None:
    method = default_method(n)
    assert method == ("wilson" if n >= WILSON_FROM else "clopper-pearson")
    coverage = exact_coverage(method, n, ACCURACIES)
    shown = dict(zip(ACCURACIES.tolist(), coverage.round(4).tolist(), strict=True))
    assert coverage.min() >= BAND[0], shown
    if method == "clopper-pearson":
        assert coverage.min() >= LEVEL  # exact: never below its level


def test_wilson_stays_in_the_band_from_the_switch_on() -> None:
    """The claim behind WILSON_FROM, on a finer grid of accuracies (2% to 98% in steps of
    0.1 point) and sizes from the switch to 3,000 items."""
    fine = np.linspace(0.02, 0.98, 961)
    worst = min(
        float(exact_coverage("wilson", n, fine).min()) for n in range(WILSON_FROM, 3001, 100)
    )
    assert worst >= BAND[0]


@pytest.mark.parametrize("n", [10, 30])
def test_wald_fails_at_small_n(n: int) -> None:
    """The check can fail: Wald's p +/- z sqrt(p (1 - p) / n) covers 18% at 10 items and
    45% at 30 when the accuracy is 2% (k = 0 gives the single point 0)."""
    coverage = exact_coverage("wald", n, ACCURACIES)
    assert coverage.min() < BAND[0]
    assert coverage[0] < 0.5


def test_wilson_and_bayes_fail_below_the_switch() -> None:
    """Why the default below WILSON_FROM is Clopper-Pearson: at 100 items Wilson covers
    93.6% at an accuracy of 10%, 92.6% at 121 items (accuracy 95.45%) and 89.5% at 11
    (accuracy 5.1%), the figures of the reason ``score`` gives; the Beta(1, 1) posterior
    interval covers 81.7% at 10 items and 87.9% at 30 at an accuracy of 2%."""
    wilson = exact_coverage("wilson", 100, ACCURACIES)
    assert wilson.min() < BAND[0]
    assert round(float(wilson[2]), 4) == 0.9364
    assert exact_coverage("wilson", 121, np.array([0.9545])).round(3).tolist() == [0.926]
    assert exact_coverage("wilson", 11, np.array([0.051])).round(3).tolist() == [0.895]
    bayes = [exact_coverage("bayes", n, np.array([0.02]))[0] for n in (10, 30)]
    assert [round(float(c), 3) for c in bayes] == [0.817, 0.879]
    assert max(bayes) < BAND[0]


# --- simulations: several runs, clusters ---------------------------------------------------


def _covered(results: list[tuple[float, float]], truth: float) -> int:
    return sum(low <= truth <= high for low, high in results)


def _in_band(count: int) -> bool:
    return BAND[0] <= count / REPLICATIONS <= BAND[1]


def test_several_runs_cover_in_the_band() -> None:
    """Items with true accuracies p_i ~ Beta(1.2, 0.8) (mean 0.6), 4 runs of each item
    (Bernoulli(p_i)), 60 items; the truth is the mean accuracy over items, 0.6. The t
    interval on per-item means covers in the band; Wald over all N x R scores as if
    independent (the "runs as samples" error) does not."""
    rng = np.random.default_rng(20260101)
    truth, n_items, n_runs = 0.6, 60, 4
    ours, naive = [], []
    for _ in range(REPLICATIONS):
        p = rng.beta(1.2, 0.8, n_items)
        runs = (rng.random((n_runs, n_items)) < p).astype(np.int8)
        result = score(runs)
        assert result.method == "t"
        ours.append((result.ci.low, result.ci.high))
        mean = runs.mean()
        half = 1.959964 * math.sqrt(mean * (1 - mean) / runs.size)
        naive.append((mean - half, mean + half))
    covered = _covered(ours, truth)
    assert covered == 1896
    assert _in_band(covered)
    assert _covered(naive, truth) / REPLICATIONS < BAND[0]


def test_clustered_items_cover_in_the_band() -> None:
    """30 clusters of 2 to 20 items; each cluster's mean accuracy m_g ~ Beta(3, 2) (mean
    0.6), each item's p_i ~ Beta(5 m_g, 5 (1 - m_g)) (so E[p_i] = 0.6), one 0/1 run. The
    default (CR2, Bell-McCaffrey df) covers in the band; an interval that takes the items
    as independent (method="t", clusters ignored) does not."""
    rng = np.random.default_rng(20260102)
    truth = 0.6
    sizes = np.resize(np.arange(2, 21), 30)
    labels = np.repeat(np.arange(30), sizes)
    ours, naive = [], []
    for _ in range(REPLICATIONS):
        m = rng.beta(3.0, 2.0, 30)[labels]
        p = rng.beta(5.0 * m, 5.0 * (1.0 - m))
        correct = (rng.random(len(p)) < p).astype(np.int8)
        result = score(correct, cluster=labels)
        assert result.method == "cluster-cr2"
        ours.append((result.ci.low, result.ci.high))
        independent = score(correct, method="t")
        naive.append((independent.ci.low, independent.ci.high))
    covered = _covered(ours, truth)
    assert covered == 1890
    assert _in_band(covered)
    assert _covered(naive, truth) / REPLICATIONS < BAND[0]
