"""McNemar's test: golden values, oracles, Tango's interval, degenerate and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from evalsig.errors import DataError
from evalsig.inference import mcnemar, mcnemar_from_table
from evalsig.inference._mcnemar import tango_interval

TABLE = [[50, 12], [5, 33]]  # [[n00, n01], [n10, n11]]


class TestGolden:
    # statsmodels.stats.contingency_tables.mcnemar(TABLE, exact=True) -> p 0.1434631348
    # (= scipy.stats.binomtest(5, 17).pvalue)
    def test_exact(self) -> None:
        r = mcnemar_from_table(TABLE, method="exact")
        assert r.pvalue == pytest.approx(0.1434631348, rel=1e-9)
        assert r.statistic == 12  # n01, the candidate-better discordant count
        assert r.method == "mcnemar-exact"

    # mcnemar(TABLE, exact=False, correction=False) -> statistic 2.882352941, p 0.08955507441
    def test_asymptotic(self) -> None:
        r = mcnemar_from_table(TABLE, method="asymptotic")
        assert r.statistic**2 == pytest.approx(2.882352941, rel=1e-9)
        assert r.pvalue == pytest.approx(0.08955507441, rel=1e-9)

    # mcnemar(TABLE, exact=False, correction=True) -> statistic 2.117647059, p 0.1456100954
    def test_corrected(self) -> None:
        r = mcnemar_from_table(TABLE, method="corrected")
        assert r.statistic**2 == pytest.approx(2.117647059, rel=1e-9)
        assert r.pvalue == pytest.approx(0.1456100954, rel=1e-9)

    # mid-p = exact p - binom.pmf(5, 17, 0.5) = 0.0962524414
    def test_mid_p(self) -> None:
        r = mcnemar_from_table(TABLE, method="mid-p")
        assert r.pvalue == pytest.approx(0.0962524414, rel=1e-9)

    def test_estimate_is_difference_in_accuracy(self) -> None:
        r = mcnemar_from_table(TABLE)
        assert r.estimate == pytest.approx((12 - 5) / 100)
        assert r.estimand == "difference in accuracy"


@pytest.mark.parametrize("seed", range(20))
def test_matches_statsmodels_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 40, size=(2, 2))
    table[0, 1] += 1  # at least one discordant item
    if table[0, 1] == table[1, 0]:
        table[0, 1] += 1  # see test_corrected_statistic_is_zero_for_balanced_discordance
    exact = mcnemar_from_table(table, method="exact").pvalue
    assert exact == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-10)
    for variant, correction in (("asymptotic", False), ("corrected", True)):
        ours = mcnemar_from_table(table, method=variant)
        theirs = sm_mcnemar(table, exact=False, correction=correction)
        assert ours.statistic**2 == pytest.approx(theirs.statistic, rel=1e-10, abs=1e-12)
        assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-10)


@pytest.mark.parametrize(("n01", "n10"), [(12, 5), (3, 9), (0, 4), (30, 30)])
def test_one_sided_exact_matches_binomtest(n01: int, n10: int) -> None:
    table = [[40, n01], [n10, 20]]
    for alternative, scipy_alt in (("greater", "greater"), ("less", "less")):
        ours = mcnemar_from_table(table, method="exact", alternative=alternative).pvalue
        theirs = stats.binomtest(n01, n01 + n10, 0.5, alternative=scipy_alt).pvalue
        assert ours == pytest.approx(theirs, rel=1e-12)


def test_corrected_statistic_is_zero_for_balanced_discordance() -> None:
    # statsmodels computes (|b - c| - 1)^2 / (b + c) = 1/(b + c) > 0 when b = c; the
    # correction must not overshoot: equal discordant counts are no evidence at all.
    r = mcnemar_from_table([[20, 28], [28, 20]], method="corrected")
    assert r.statistic == 0.0
    assert r.pvalue == 1.0


def test_one_sided_mid_p() -> None:
    r = mcnemar_from_table(TABLE, method="mid-p", alternative="greater")
    expected = stats.binom.sf(12, 17, 0.5) + 0.5 * stats.binom.pmf(12, 17, 0.5)
    assert r.pvalue == pytest.approx(expected, rel=1e-12)


def _tango_oracle(n01: int, n10: int, n: int, level: float) -> tuple[float, float]:
    """Invert the score test with the constrained MLE found by numerical optimisation."""
    z = stats.norm.ppf(1 - (1 - level) / 2)
    n_same = n - n01 - n10

    def score(delta: float) -> float:
        # maximise the likelihood over q = P(baseline right, candidate wrong) given delta
        def nll(q: float) -> float:
            p01, p10 = q + delta, q
            rest = 1 - p01 - p10
            return -(n01 * np.log(p01) + n10 * np.log(p10) + n_same * np.log(rest))

        lo = max(0.0, -delta) + 1e-12
        hi = (1 - delta) / 2 - 1e-12
        q = optimize.minimize_scalar(
            nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}
        ).x
        return (n01 - n10 - n * delta) / math.sqrt(n * (2 * q + delta - delta**2))

    est = (n01 - n10) / n
    low = optimize.brentq(lambda d: score(d) - z, -0.999, est)
    high = optimize.brentq(lambda d: score(d) + z, est, 0.999)
    return low, high


@pytest.mark.parametrize(("n01", "n10", "n"), [(12, 5, 100), (7, 1, 21), (40, 25, 500), (3, 3, 50)])
def test_tango_interval_matches_numerical_oracle(n01: int, n10: int, n: int) -> None:
    low, high = tango_interval(n01, n10, n, 0.95, "two-sided")
    o_low, o_high = _tango_oracle(n01, n10, n, 0.95)
    assert low == pytest.approx(o_low, abs=1e-6)
    assert high == pytest.approx(o_high, abs=1e-6)


def test_tango_interval_is_dual_to_asymptotic_test() -> None:
    r = mcnemar_from_table(TABLE, method="asymptotic")
    # the two-sided p-value is the level at which the interval just touches 0
    ci = r.confidence_interval(1 - r.pvalue)
    assert min(abs(ci.low), abs(ci.high)) == pytest.approx(0.0, abs=1e-9)


def test_one_sided_interval_has_natural_bound() -> None:
    r = mcnemar_from_table(TABLE, alternative="greater")
    assert r.ci.high == 1.0
    assert -1.0 < r.ci.low < r.estimate


def test_all_discordant_one_way_reaches_the_boundary() -> None:
    r = mcnemar_from_table([[0, 10], [0, 0]], method="exact")
    assert r.estimate == 1.0
    assert r.ci.high == 1.0
    assert 0 < r.ci.low < 1


def test_no_discordant_items_gives_p_one_with_a_note() -> None:
    r = mcnemar_from_table([[30, 0], [0, 70]])
    assert r.pvalue == 1.0
    assert r.estimate == 0.0
    assert any("no discordant items" in note for note in r.notes)
    assert r.ci.low < 0 < r.ci.high


def test_auto_variant_switches_on_discordant_count() -> None:
    assert mcnemar_from_table([[50, 12], [5, 33]]).method == "mcnemar-score-cc"
    assert mcnemar_from_table([[50, 20], [10, 33]]).method == "mcnemar-asymptotic"
    assert mcnemar_from_table([[50, 13], [12, 33]]).method == "mcnemar-asymptotic"  # 25
    assert mcnemar_from_table([[50, 12], [11, 33]]).method == "mcnemar-score-cc"


def test_score_cc_statistic_and_pvalue() -> None:
    """z = (|n01 - n10| - 1/2) / sqrt(n01 + n10), here (7 - 0.5) / sqrt(17); the normal
    p-value of it (two-sided 0.1264, one-sided half of it)."""
    r = mcnemar_from_table(TABLE, method="score-cc")
    assert r.statistic == pytest.approx(6.5 / math.sqrt(17), rel=1e-12)
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(6.5 / math.sqrt(17)), rel=1e-12)
    greater = mcnemar_from_table(TABLE, method="score-cc", alternative="greater")
    assert greater.pvalue == pytest.approx(stats.norm.sf(6.5 / math.sqrt(17)), rel=1e-12)
    balanced = mcnemar_from_table([[20, 3], [3, 20]], method="score-cc")
    assert (balanced.statistic, balanced.pvalue) == (0.0, 1.0)


@pytest.mark.parametrize(("n01", "n10", "n"), [(12, 5, 100), (7, 1, 21), (5, 0, 10), (3, 3, 50)])
def test_corrected_interval_matches_numerical_oracle(n01: int, n10: int, n: int) -> None:
    """The corrected interval solves Z_cc(delta) = -/+ z with the same constrained MLE as
    Tango's: the oracle's bounds at numerator n01 - n10 -/+ 1/2 (off the plateau around the
    estimate where the corrected numerator is 0)."""
    low, high = tango_interval(n01, n10, n, 0.95, "two-sided", correction=0.5)
    # Z_cc(delta) = Z(delta) computed with counts whose difference is shifted by 1/2:
    # solve with the oracle's score on (n01 - 0.5 - n delta) for the low bound.
    z = stats.norm.ppf(0.975)
    n_same = n - n01 - n10

    def score(delta: float, shift: float) -> float:
        def nll(q: float) -> float:
            p01, p10 = q + delta, q
            return -(n01 * np.log(p01) + n10 * np.log(p10) + n_same * np.log(1 - p01 - p10))

        lo = max(0.0, -delta) + 1e-12
        hi = (1 - delta) / 2 - 1e-12
        q = optimize.minimize_scalar(
            nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}
        ).x
        return (n01 - n10 - shift - n * delta) / math.sqrt(n * (2 * q + delta - delta**2))

    est = (n01 - n10) / n
    o_low = optimize.brentq(lambda d: score(d, 0.5) - z, -0.999, est)
    assert low == pytest.approx(o_low, abs=1e-6)
    if n01 + n10 < n:
        o_high = optimize.brentq(lambda d: score(d, -0.5) + z, est, 0.999)
        assert high == pytest.approx(o_high, abs=1e-6)
    plain = tango_interval(n01, n10, n, 0.95, "two-sided")
    assert low < plain[0]  # the correction widens the interval
    assert high > plain[1]


def test_requested_variants_other_than_auto_say_the_interval_is_another_statistics() -> None:
    for variant in ("exact", "mid-p", "corrected"):
        r = mcnemar_from_table(TABLE, method=variant)  # type: ignore[arg-type]
        assert any("comes from another statistic" in note for note in r.notes)
    for variant in ("auto", "score-cc", "asymptotic"):
        r = mcnemar_from_table(TABLE, method=variant)  # type: ignore[arg-type]
        assert not any("another statistic" in note for note in r.notes)


def test_from_arrays_counts_discordant_items() -> None:
    x = np.array([0, 0, 1, 1, 1, 0, 1, 0])
    y = np.array([1, 1, 1, 0, 1, 0, 1, 1])
    r = mcnemar(x, y, method="exact")
    assert r.statistic == 3  # items 0, 1, 7
    assert r.estimate == pytest.approx(2 / 8)


class TestBadInput:
    def test_non_binary_scores(self) -> None:
        with pytest.raises(DataError, match=r"needs 0/1 scores.*method='paired-t'"):
            mcnemar([0.5, 1, 0], [1, 1, 0])

    def test_bad_table(self) -> None:
        with pytest.raises(DataError, match=r"`table` must be a 2x2 table"):
            mcnemar_from_table([[1, 2, 3], [4, 5, 6]])
        with pytest.raises(DataError, match="non-negative counts"):
            mcnemar_from_table([[1, -2], [3, 4]])

    def test_bad_variant(self) -> None:
        with pytest.raises(DataError, match=r"McNemar `method` must be one of .*got 'fast'"):
            mcnemar([0, 1], [1, 1], method="fast")  # type: ignore[arg-type]


@pytest.mark.parametrize(("n01", "n10", "n"), [(0, 0, 3000), (7, 3, 11), (150, 149, 3000)])
def test_tango_interval_at_level_one_half(n01: int, n10: int, n: int) -> None:
    """At level 1/2 a one-sided bound is the estimate itself (no root-finding failure)."""
    estimate = (n01 - n10) / n
    assert tango_interval(n01, n10, n, 0.5, "greater")[0] == pytest.approx(estimate, abs=1e-12)
    assert tango_interval(n01, n10, n, 0.5, "less")[1] == pytest.approx(estimate, abs=1e-12)
