"""Intervals for a binomial proportion (:mod:`evalsig.inference.proportion`).

Golden values come from the reference implementations themselves, called beside ours:

* scipy: ``scipy.stats.binomtest(k, n).proportion_ci(method=...)`` with ``"exact"``
  (Clopper-Pearson), ``"wilson"`` and ``"wilsoncc"``;
* statsmodels: ``statsmodels.stats.proportion.proportion_confint(k, n, alpha, method=...)``
  with every method it has that we implement: ``"beta"`` (Clopper-Pearson), ``"wilson"``,
  ``"jeffreys"``, ``"agresti_coull"`` and ``"normal"`` (Wald). Its ``"binom_test"``
  (inverting the two-sided binomial test) is not one of ours.

At k = 0, 1, n - 1, n and middle values, n = 1..1000 (scipy's root-finding Clopper-Pearson at
every 7th n past 60), to 1e-10. Where we differ on purpose it
is tested as such: Jeffreys' bound at an edge is the edge (Brown, Cai & DasGupta 2001;
statsmodels keeps the equal-tailed one), and the Bayesian interval is checked against the
Beta posterior's quantiles (``scipy.stats.beta``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats
from scipy.stats import binomtest
from scipy.stats._result_classes import BinomTestResult
from statsmodels.stats.proportion import proportion_confint

from evalsig.errors import DataError
from evalsig.inference import ConfidenceInterval
from evalsig.inference.proportion import (
    ProportionMethod,
    proportion_bounds,
    proportion_interval,
)

TOLERANCE = 1e-10
METHODS: tuple[ProportionMethod, ...] = (
    "wilson",
    "wilson-cc",
    "clopper-pearson",
    "jeffreys",
    "agresti-coull",
    "bayes",
    "wald",
)
SCIPY = {"clopper-pearson": "exact", "wilson": "wilson", "wilson-cc": "wilsoncc"}
STATSMODELS = {
    "clopper-pearson": "beta",
    "wilson": "wilson",
    "jeffreys": "jeffreys",
    "agresti-coull": "agresti_coull",
    "wald": "normal",
}


def counts(n: int) -> np.ndarray:
    """k = 0, 1, n - 1, n and middle values (n/3, n/2, 2n/3), each once."""
    return np.array(sorted({0, 1, n - 1, n, n // 3, n // 2, (2 * n) // 3} & set(range(n + 1))))


def sizes(full: bool) -> list[int]:
    """Every n to 60 and a few large ones; ``full``: also every 7th n to 1000 (every n to
    1000 is checked against statsmodels' Clopper-Pearson, the Beta quantiles, below)."""
    small = [*range(1, 61), 99, 100, 250, 999, 1000]
    return sorted({*small, *range(61, 1001, 7)}) if full else small


def _scipy_bounds(k: np.ndarray, n: int, method: str, level: float) -> np.ndarray:
    """scipy's ``binomtest(k, n).proportion_ci(level, method)``, from the result class
    that ``binomtest`` returns: ``binomtest`` itself first searches the pmf for its
    two-sided p-value, which the interval does not use and which costs most of the time."""
    return np.array(
        [tuple(_scipy_result(int(x), n).proportion_ci(level, method=method)) for x in k],
        dtype=np.float64,
    )


def _scipy_result(k: int, n: int) -> Any:
    return BinomTestResult(k=k, n=n, alternative="two-sided", statistic=k / n, pvalue=1.0)


def test_the_result_class_gives_binomtests_interval() -> None:
    for k, n in ((0, 1), (3, 20), (20, 20), (333, 1000)):
        for method in sorted(set(SCIPY.values())):
            assert _scipy_result(k, n).proportion_ci(0.9, method=method) == binomtest(
                k, n
            ).proportion_ci(0.9, method=method)


@pytest.mark.parametrize(
    "full",
    [
        pytest.param(False, id="n-1..60-and-large"),
        pytest.param(True, id="n-to-1000", marks=pytest.mark.slow),
    ],
)
def test_clopper_pearson_against_scipy_exact(full: bool) -> None:
    """scipy finds each bound by root-finding on the binomial tails (``brentq``)."""
    for n in sizes(full):
        k = counts(n)
        low, high = proportion_bounds(k, n, method="clopper-pearson")
        expected = _scipy_bounds(k, n, "exact", 0.95)
        np.testing.assert_allclose(low, expected[:, 0], rtol=0, atol=TOLERANCE, err_msg=f"n={n}")
        np.testing.assert_allclose(high, expected[:, 1], rtol=0, atol=TOLERANCE, err_msg=f"n={n}")


@pytest.mark.parametrize("ours", ["wilson", "wilson-cc"])
def test_closed_forms_against_scipy_at_every_n(ours: ProportionMethod) -> None:
    for n in range(1, 1001):
        k = counts(n)
        low, high = proportion_bounds(k, n, method=ours)
        expected = _scipy_bounds(k, n, SCIPY[ours], 0.95)
        np.testing.assert_allclose(low, expected[:, 0], rtol=0, atol=TOLERANCE, err_msg=f"n={n}")
        np.testing.assert_allclose(high, expected[:, 1], rtol=0, atol=TOLERANCE, err_msg=f"n={n}")


@pytest.mark.parametrize("level", [0.5, 0.9, 0.99, 0.999])
@pytest.mark.parametrize("ours", sorted(SCIPY))
def test_other_levels_against_scipy(ours: ProportionMethod, level: float) -> None:
    for n in (1, 2, 7, 40, 333):
        k = np.arange(n + 1)
        low, high = proportion_bounds(k, n, method=ours, confidence_level=level)
        expected = _scipy_bounds(k, n, SCIPY[ours], level)
        np.testing.assert_allclose(low, expected[:, 0], rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(high, expected[:, 1], rtol=0, atol=TOLERANCE)


def _statsmodels_bounds(k: np.ndarray, n: int, method: str, level: float) -> np.ndarray:
    low, high = proportion_confint(k, n, alpha=1 - level, method=method)
    return np.column_stack([np.asarray(low, dtype=np.float64), np.asarray(high, np.float64)])


@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
@pytest.mark.parametrize("ours", sorted(STATSMODELS))
def test_golden_against_statsmodels(ours: ProportionMethod, level: float) -> None:
    """Every n from 1 to 1000; Jeffreys and Wald only off the edges (tested below)."""
    for n in range(1, 1001):
        k = counts(n)
        low, high = proportion_bounds(k, n, method=ours, confidence_level=level)
        expected = _statsmodels_bounds(k, n, STATSMODELS[ours], level)
        inner = (k > 0) & (k < n) if ours in ("jeffreys", "wald") else np.ones(len(k), bool)
        np.testing.assert_allclose(low[inner], expected[inner, 0], rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(high[inner], expected[inner, 1], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("ours", ["jeffreys", "wald"])
def test_edges_keep_the_other_bound_of_statsmodels(ours: ProportionMethod) -> None:
    """At k = 0 the lower bound is 0 (statsmodels' Jeffreys bound is B(0.025; 0.5, n + 0.5)
    > 0, excluding the likeliest values) and the upper bound is statsmodels'; mirrored at n."""
    for n in (1, 2, 5, 30, 1000):
        k = np.array([0, n])
        low, high = proportion_bounds(k, n, method=ours)
        expected = _statsmodels_bounds(k, n, STATSMODELS[ours], 0.95)
        assert (low[0], high[1]) == (0.0, 1.0)
        assert abs(high[0] - expected[0, 1]) < TOLERANCE
        assert abs(low[1] - expected[1, 0]) < TOLERANCE
    assert stats.beta.ppf(0.025, 0.5, 30.5) > 0  # what statsmodels gives at k = 0, n = 30


def test_bayes_is_the_posterior_interval() -> None:
    """Equal-tailed quantiles of Beta(k + a, n - k + b) (scipy.stats.beta.ppf / isf)."""
    for a, b in [(1.0, 1.0), (0.5, 0.5), (2.0, 3.0), (0.3, 7.5)]:
        for n in (1, 3, 20, 500):
            k = np.arange(n + 1)
            low, high = proportion_bounds(k, n, method="bayes", prior=(a, b))
            shape = (k + a, n - k + b)
            expected_low = stats.beta.ppf(0.025, *shape)
            expected_high = stats.beta.isf(0.025, *shape)
            inner = (k > 0) & (k < n)
            np.testing.assert_allclose(low[inner], expected_low[inner], rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(high[inner], expected_high[inner], rtol=0, atol=TOLERANCE)
            mass = stats.beta.cdf(high, *shape) - stats.beta.cdf(low, *shape)
            np.testing.assert_allclose(mass, 0.95, rtol=0, atol=1e-9)  # the level, every k
            equal_tailed = ((k > 0) | (a > 1)) & ((k < n) | (b > 1))
            np.testing.assert_allclose(low[equal_tailed], expected_low[equal_tailed], atol=1e-10)


def test_bayes_from_the_edge_where_the_posterior_falls_from_it() -> None:
    """k = 0 with a <= 1: [0, B(0.95; a, n + b)], the highest-density interval; with a > 1
    the posterior has its mode inside and the interval stays equal-tailed."""
    n = 20
    low, high = proportion_bounds(np.array([0, n]), n, method="bayes")
    assert low[0] == 0.0
    assert abs(high[0] - stats.beta.ppf(0.95, 1, n + 1)) < TOLERANCE  # 1 - 0.05**(1/21)
    assert abs(high[0] - (1 - 0.05 ** (1 / 21))) < TOLERANCE
    assert high[1] == 1.0
    assert abs(low[1] - stats.beta.ppf(0.05, n + 1, 1)) < TOLERANCE
    low, high = proportion_bounds(np.array([0]), n, method="bayes", prior=(2.0, 2.0))
    assert abs(low[0] - stats.beta.ppf(0.025, 2, n + 2)) < TOLERANCE
    assert low[0] > 0


def test_jeffreys_equals_bayes_with_the_jeffreys_prior_off_the_edges() -> None:
    k = np.arange(1, 50)
    jeffreys = proportion_bounds(k, 50, method="jeffreys")
    bayes = proportion_bounds(k, 50, method="bayes", prior=(0.5, 0.5))
    np.testing.assert_allclose(jeffreys, bayes, rtol=0, atol=1e-15)


@pytest.mark.parametrize("method", METHODS)
def test_edges_are_exact_and_bounds_in_order(method: ProportionMethod) -> None:
    """k = 0 gives a lower bound of exactly 0, k = n an upper bound of exactly 1; every
    bound lies in [0, 1], low <= k / n <= high, and both bounds rise with k."""
    for n in (1, 2, 3, 10, 57, 1000):
        k = np.arange(n + 1)
        low, high = proportion_bounds(k, n, method=method)
        assert low[0] == 0.0
        assert high[-1] == 1.0
        assert np.all((low >= 0) & (high <= 1))
        assert np.all(low <= k / n)
        assert np.all(k / n <= high)
        assert np.all(np.diff(low) >= 0)
        assert np.all(np.diff(high) >= 0)
        if method != "wald":  # Wald's interval at k = 0 or n is a single point
            assert np.all(high > low)


@pytest.mark.parametrize("method", METHODS)
def test_symmetric_in_successes_and_failures(method: ProportionMethod) -> None:
    for n in (1, 6, 41):
        k = np.arange(n + 1)
        low, high = proportion_bounds(k, n, method=method)
        np.testing.assert_allclose(low, 1 - high[::-1], rtol=0, atol=1e-12)


def test_wider_at_a_higher_level() -> None:
    for method in METHODS:
        narrow = proportion_interval(7, 40, method=method, confidence_level=0.9)
        wide = proportion_interval(7, 40, method=method, confidence_level=0.99)
        assert wide.low < narrow.low, method
        assert narrow.high < wide.high, method


def test_proportion_interval_returns_a_confidence_interval() -> None:
    ci = proportion_interval(3, 20, method="clopper-pearson", confidence_level=0.9)
    assert isinstance(ci, ConfidenceInterval)
    assert ci.confidence_level == 0.9
    expected = binomtest(3, 20).proportion_ci(0.9, method="exact")
    assert abs(ci.low - expected.low) < TOLERANCE
    assert abs(ci.high - expected.high) < TOLERANCE
    assert proportion_interval(np.int64(5), np.int64(5)).high == 1.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"successes": 0, "n": 0}, r"`n` is 0: an interval for a proportion needs at least one"),
        ({"successes": 4, "n": 3}, r"`successes` is 4 but `n` is 3"),
        ({"successes": -1, "n": 3}, r"`successes` must be 0 or more; got -1"),
        ({"successes": 1.5, "n": 3}, r"`successes` must be a whole number; got 1.5"),
        ({"successes": True, "n": 3}, r"`successes` must be a whole number; got True"),
        ({"successes": 1, "n": "10"}, r"`n` must be a whole number; got '10'"),
        ({"successes": 1, "n": 3, "method": "exact"}, r"`method` must be one of .*got 'exact'"),
        ({"successes": 1, "n": 3, "confidence_level": 95}, r"`confidence_level` .* got 95"),
        (
            {"successes": 1, "n": 3, "prior": (1, 1)},
            r"`prior` is used only by method='bayes'.*not by method='wilson'",
        ),
        (
            {"successes": 1, "n": 3, "method": "bayes", "prior": (0, 1)},
            r"`prior` must be two positive numbers .*got \(0, 1\)",
        ),
        (
            {"successes": 1, "n": 3, "method": "bayes", "prior": (1, float("nan"))},
            r"`prior` must be two positive numbers",
        ),
        (
            {"successes": 1, "n": 3, "method": "bayes", "prior": (1, 2, 3)},
            r"`prior` must be two positive numbers .*got \(1, 2, 3\)",
        ),
        (
            {"successes": 1, "n": 3, "method": "bayes", "prior": "1 1"},
            r"`prior` must be two positive numbers .*got '1 1'",
        ),
    ],
)
def test_errors_name_the_argument_and_the_value(call: dict[str, Any], message: str) -> None:
    k, n = call.pop("successes"), call.pop("n")
    with pytest.raises(DataError, match=message):
        proportion_interval(k, n, **call)


def test_vectorised_errors_show_the_bad_counts() -> None:
    with pytest.raises(DataError, match=r"integers from 0 to n = 5; got \[ 7, -1\]"):
        proportion_bounds(np.array([0, 7, 3, -1]), 5)
    with pytest.raises(DataError, match=r"got \[0\.5, 1\. \] \(dtype float64\)"):
        proportion_bounds(np.array([0.5, 1.0]), 5)
