"""Seeded Monte Carlo: small samples, skewed differences and ignored clusters.

Each scenario has no true difference; counts of rejections at alpha = 0.05 must lie in the
99% binomial band around 5% (or, for an exact test too coarse to reach 5%, below its top),
and the exact seeded counts are asserted so that any change in behaviour shows. Scenarios
that show a method failing assert the count lies above the band: those are the reasons
for the guards in evalsig, and the tests fail if the guard's premise stops holding.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig import compare
from evalsig.inference._bootstrap import MIN_ITEMS, bootstrap_core
from evalsig.simulate import MixtureDesign, simulate_runs

ALPHA = 0.05


def band(n_sims: int, rate: float = ALPHA) -> tuple[int, int]:
    """The central 99% range of a Binomial(n_sims, rate) count."""
    return int(stats.binom.ppf(0.005, n_sims, rate)), int(stats.binom.ppf(0.995, n_sims, rate))


def _multi_run_clones(n_items: int, n_sims: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """4 runs of 0/1 scores per item for two identical models (differences on a lattice)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_sims):
        p = rng.beta(0.8, 0.8, n_items)
        out.append(
            (
                (rng.random((4, n_items)) < p).astype(np.int8),
                (rng.random((4, n_items)) < p).astype(np.int8),
            )
        )
    return out


@pytest.mark.parametrize(("n_items", "expected"), [(5, 0), (10, 10), (20, 10)])
def test_requested_bootstrap_is_calibrated_at_small_n(n_items: int, expected: int) -> None:
    """Below MIN_ITEMS, method='bootstrap' runs the exact sign-flip test: never above alpha."""
    data = _multi_run_clones(n_items, 400, seed=n_items)
    results = [compare(x, y, method="bootstrap", rng=1) for x, y in data]
    assert {r.method for r in results} == {"permutation-exact"}
    hits = sum(r.pvalue <= ALPHA for r in results)
    covered = sum(r.ci.low <= 0.0 <= r.ci.high for r in results)
    _, high = band(len(data))
    assert hits <= high, (hits, high)
    assert covered >= len(data) - high
    assert hits == expected


@pytest.mark.parametrize(("n_items", "expected"), [(5, 48), (10, 49), (20, 58)])
def test_default_path_is_calibrated_at_small_n(n_items: int, expected: int) -> None:
    """method='auto' on continuous scores is the paired t-test: exact on normal differences."""
    rng = np.random.default_rng(100 + n_items)
    data = [(rng.normal(size=n_items), rng.normal(size=n_items)) for _ in range(1000)]
    results = [compare(x, y) for x, y in data]
    assert {r.method for r in results} == {"paired-t"}
    hits = sum(r.pvalue <= ALPHA for r in results)
    covered = sum(r.ci.low <= 0.0 <= r.ci.high for r in results)
    low, high = band(len(data))
    assert low <= hits <= high, (hits, low, high)
    assert len(data) - high <= covered <= len(data) - low
    assert hits == expected


def test_the_bootstrap_below_its_minimum_rejects_too_often() -> None:
    """The premise of MIN_ITEMS: at 20 items the BCa bootstrap's 5% test rejects above 5%."""
    rng = np.random.default_rng(7)
    n_sims = 1000
    hits = 0
    for _ in range(n_sims):
        d = rng.normal(size=20)
        r = bootstrap_core(
            d,
            kind="bca",
            n_resamples=999,
            alternative="two-sided",
            confidence_level=0.95,
            rng=rng,
        )
        hits += r.pvalue <= ALPHA
    _, high = band(n_sims)
    assert hits > high, (hits, high)
    assert hits == 82  # 79 before the BCa fix for replicates all on one side of 0
    assert MIN_ITEMS == 50


def test_paired_t_on_skewed_differences_over_rejects_and_is_flagged() -> None:
    """Exponential differences (mean 0, skewness 2) at N = 30: t over-rejects one-sided."""
    rng = np.random.default_rng(31)
    n_sims = 1000
    hits = flagged = 0
    for _ in range(n_sims):
        d = rng.exponential(1.0, 30) - 1.0
        r = compare(np.zeros(30), d, alternative="less")
        hits += r.pvalue <= ALPHA
        flagged += any("strongly skewed" in note for note in r.notes)
    _, high = band(n_sims)
    assert hits > high, (hits, high)
    assert flagged >= 0.7 * n_sims
    assert (hits, flagged) == (106, 822)


def test_symmetric_differences_are_rarely_flagged_as_skewed() -> None:
    rng = np.random.default_rng(32)
    flagged = sum(
        any("strongly skewed" in n for n in compare(np.zeros(30), rng.normal(size=30)).notes)
        for _ in range(1000)
    )
    assert flagged <= 50
    assert flagged == 21


def test_ignoring_clusters_inflates_false_positives_and_passing_them_fixes_it() -> None:
    """10 clusters of 20 items at ICC 0.2: the figure quoted by the missing-cluster note."""
    design = MixtureDesign(n_items=200, n_runs=1, uplift=0.0, n_clusters=10, icc=0.2)
    rng = np.random.default_rng(20260504)
    labels = design.clusters.tolist()
    ignored = clustered = 0
    n_sims = 1000
    for _ in range(n_sims):
        p = design.latent_batch(2, rng)
        b, c = simulate_runs(p[0], 1, rng), simulate_runs(p[1], 1, rng)
        ignored += compare(b, c).pvalue <= ALPHA
        clustered += compare(b, c, cluster=labels).pvalue <= ALPHA
    low, high = band(n_sims)
    assert ignored > 5 * high
    assert low <= clustered <= high, (clustered, low, high)
    assert (ignored, clustered) == (357, 40)
    assert stats.binomtest(ignored, n_sims, 0.36).pvalue > 0.01
