"""Sign-flip permutation test: golden value, brute-force oracles, inversion, statistics."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference import permutation_test
from evalsig.inference._mcnemar import mcnemar

D = [3, -1, 4, 6, 5, 12, -2, 7, 8, 9]


def _brute_force(d: np.ndarray, alternative: str) -> float:
    """Enumerate all 2^n sign vectors: the textbook exact test."""
    observed = d.mean()
    means = np.array([np.mean(d * np.array(s)) for s in itertools.product([1, -1], repeat=len(d))])
    tol = 1e-12
    greater = np.mean(means >= observed - tol)
    less = np.mean(means <= observed + tol)
    return {"greater": greater, "less": less}.get(alternative, min(1, 2 * min(greater, less)))


def test_golden_exact_pvalue() -> None:
    # 2^10 sign flips of the mean of D: p = 10 / 1024 = 0.009765625 (REFERENCE.md)
    r = permutation_test(np.zeros(10), D)
    assert r.pvalue == 0.009765625
    assert r.method == "permutation-exact"


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(6))
def test_exact_matches_brute_force(alternative: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], size=12)  # ties and zeros
    r = permutation_test(baseline=np.zeros(12), candidate=d, alternative=alternative)  # type: ignore[arg-type]
    assert r.pvalue == pytest.approx(_brute_force(d, alternative), abs=1e-12)


def test_binary_exact_equals_exact_mcnemar() -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2, 40)
    y = np.where(rng.random(40) < 0.3, 1 - x, x)
    perm = permutation_test(baseline=x, candidate=y, alternative="greater", exact=True)
    exact = mcnemar(baseline=x, candidate=y, method="exact", alternative="greater")
    assert perm.pvalue == pytest.approx(exact.pvalue, rel=1e-12)


def test_monte_carlo_agrees_with_exact() -> None:
    d = np.random.default_rng(12).normal(0.3, 1, 14)
    exact = permutation_test(np.zeros(14), d, exact=True).pvalue
    mc = permutation_test(np.zeros(14), d, exact=False, n_resamples=20_000, rng=13)
    assert mc.n_resamples == 20_000
    # seeded Monte Carlo: within 4 binomial standard errors of the exact p-value
    assert abs(mc.pvalue - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)


def test_monte_carlo_pvalue_is_never_zero() -> None:
    r = permutation_test(np.zeros(200), np.ones(200) * 0.5, exact=False, n_resamples=999, rng=0)
    assert r.pvalue == 2 / 1000  # two-sided: twice (0 + 1) / (999 + 1)


@pytest.mark.parametrize("exact", [True, False])
def test_interval_inverts_the_test(exact: bool) -> None:
    rng = np.random.default_rng(14)
    d = rng.normal(0.4, 1.0, 16 if exact else 300)
    r = permutation_test(np.zeros(len(d)), d, exact=exact, rng=15, n_resamples=4000)
    for bound, side in ((r.ci.low, "greater"), (r.ci.high, "less")):
        inside = bound + (1e-6 if side == "greater" else -1e-6)
        outside = bound - (1e-6 if side == "greater" else -1e-6)
        p_in = permutation_test(
            baseline=np.zeros(len(d)),
            candidate=d - inside,
            exact=exact,
            alternative=side,
            rng=15,
            n_resamples=4000,
        ).pvalue
        p_out = permutation_test(
            baseline=np.zeros(len(d)),
            candidate=d - outside,
            exact=exact,
            alternative=side,
            rng=15,
            n_resamples=4000,
        ).pvalue
        assert p_out <= 0.025 < p_in
    assert r.ci.low < r.estimate < r.ci.high


def test_too_few_items_give_an_unbounded_interval() -> None:
    r = permutation_test([0, 0, 0], [1, 2, 3])
    assert r.pvalue == 0.25  # the smallest exact two-sided p-value with 3 items
    assert (r.ci.low, r.ci.high) == (-math.inf, math.inf)


def _f1(totals: np.ndarray) -> np.ndarray:
    tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
    return 2 * tp / (2 * tp + fp + fn)


def test_custom_statistic_matches_brute_force_swaps() -> None:
    rng = np.random.default_rng(16)
    a = rng.integers(0, 3, size=(10, 3)).astype(float)
    b = rng.integers(0, 3, size=(10, 3)).astype(float)
    b[:, 0] += 1

    def stat(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
        return _f1(cand) - _f1(base)

    r = permutation_test(baseline=a, candidate=b, statistic=stat, alternative="greater")
    observed = float(stat(a.sum(0), b.sum(0)))
    hits = 0
    for swap in itertools.product([0, 1], repeat=10):
        s = np.array(swap, dtype=bool)[:, None]
        hits += stat(np.where(s, b, a).sum(0), np.where(s, a, b).sum(0)) >= observed - 1e-10
    assert r.pvalue == pytest.approx(hits / 2**10, abs=1e-12)
    assert math.isnan(r.ci.low)
    assert "no interval" in r.notes[0]


def test_monte_carlo_distribution_is_symmetric() -> None:
    d = np.random.default_rng(17).normal(0, 1, 500)
    g = permutation_test(baseline=np.zeros(500), candidate=d, alternative="greater", rng=18).pvalue
    ls = permutation_test(baseline=np.zeros(500), candidate=d, alternative="less", rng=18).pvalue
    assert g + ls == pytest.approx(1.0, abs=2e-3)  # P(T* >= t) + P(T* <= t) = 1 + P(T* = t)
    z = stats.ttest_1samp(d, 0).pvalue
    two = permutation_test(np.zeros(500), d, rng=18).pvalue
    assert two == pytest.approx(z, abs=0.03)


def test_bad_input() -> None:
    with pytest.raises(DataError, match="`exact=True`, but the permutation distribution has more"):
        permutation_test(np.zeros(40), np.arange(40.0), exact=True)
    with pytest.raises(DataError, match="`n_resamples` must be at least 100; got 10"):
        permutation_test([0, 1], [1, 1], n_resamples=10)
    with pytest.raises(DataError, match="`statistic` must be a callable"):
        permutation_test([[0, 1]], [[1, 1]], statistic="f1")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`rng` must be a numpy\.random\.Generator"):
        permutation_test([0, 1], [1, 1], rng="seed")  # type: ignore[arg-type]
