"""Golden values of the power formulas, from R (MESS) and statsmodels, and their algebra."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from evalsig.errors import DataError
from evalsig.power import (
    cohens_h,
    design_effect_from_icc,
    mcnemar_detectable_effect,
    mcnemar_power,
    mcnemar_sample_size,
    minimum_detectable_effect,
    paired_t_detectable_effect,
    paired_t_power,
    paired_t_sample_size,
    runs_tradeoff,
    unpaired_shortcut_sample_size,
)

# --- McNemar (Connor 1987) -----------------------------------------------------------------
# R: MESS::power_mcnemar_test(n = NULL, paid = .5, psi = 9, power = .8) (its test file:
# round(n) = 22); p10 = .05, p01 = .45 in evalsig's convention (psi = p01 / p10 = 9).


def test_connor_two_sided_golden() -> None:
    assert mcnemar_sample_size(0.45, 0.05).n == pytest.approx(22.011324, rel=1e-7)


def test_connor_one_sided_golden() -> None:
    one = mcnemar_sample_size(0.45, 0.05, alternative="greater")
    assert one.n == pytest.approx(17.094761, rel=1e-7)
    ninety = mcnemar_sample_size(0.45, 0.05, alternative="greater", power=0.9)
    assert ninety.n == pytest.approx(22.809071, rel=1e-7)


def test_mess_normal_power_golden() -> None:
    # MESS::power_mcnemar_test(n = 22, paid = .5, psi = 9): 0.799768; n = 23: 0.819407
    assert mcnemar_power(22, 0.45, 0.05) == pytest.approx(0.799768, abs=5e-7)
    assert mcnemar_power(23, 0.45, 0.05) == pytest.approx(0.819407, abs=5e-7)


def test_sample_size_rounds_up_and_reaches_power() -> None:
    s = mcnemar_sample_size(0.075, 0.065)
    assert s.n_items == math.ceil(s.n) == 10987
    assert s.achieved_power is not None
    assert s.achieved_power >= 0.8
    assert mcnemar_power(s.n_items - 1, 0.075, 0.065) < 0.8


def test_direction_matters_for_one_sided_designs() -> None:
    worse = mcnemar_sample_size(0.05, 0.45, alternative="greater")
    assert math.isinf(worse.n)
    assert worse.n_items is None
    assert "other way" in worse.notes[0]
    assert mcnemar_sample_size(0.05, 0.45, alternative="less").n == pytest.approx(17.094761)
    none = mcnemar_sample_size(0.1, 0.1)
    assert math.isinf(none.n)
    assert "no difference" in none.notes[0]
    assert none.to_dict()["n"] is None
    assert "n" in none.to_dict()["nulls"]


def test_exact_power_matches_a_plain_loop() -> None:
    """Oracle: enumerate (D, N01) with the exact two-sided binomial test's decision."""
    n, p01, p10, alpha = 30, 0.3, 0.08, 0.05
    disc, share = p01 + p10, p01 / (p01 + p10)
    total = 0.0
    for d in range(n + 1):
        for k in range(d + 1):
            p = min(1.0, 2 * min(stats.binom.cdf(k, d, 0.5), stats.binom.sf(k - 1, d, 0.5)))
            if d and p <= alpha:
                total += stats.binom.pmf(d, n, disc) * stats.binom.pmf(k, d, share)
    assert mcnemar_power(n, p01, p10, method="exact") == pytest.approx(total, rel=1e-10)
    greater = sum(
        stats.binom.pmf(d, n, disc) * stats.binom.pmf(k, d, share)
        for d in range(1, n + 1)
        for k in range(d + 1)
        if stats.binom.sf(k - 1, d, 0.5) <= alpha
    )
    got = mcnemar_power(n, p01, p10, method="exact", alternative="greater")
    assert got == pytest.approx(greater, rel=1e-10)


def test_exact_sample_size_is_the_first_n_reaching_power() -> None:
    s = mcnemar_sample_size(0.45, 0.05, method="exact")
    assert s.n_items == 25
    assert mcnemar_power(25, 0.45, 0.05, method="exact") >= 0.8
    assert all(mcnemar_power(k, 0.45, 0.05, method="exact") < 0.8 for k in range(5, 25))


def test_exact_and_normal_agree_at_large_n() -> None:
    """The exact conditional test is slightly conservative: ~1.7% more items at D ~ 1,500.

    Simulated (20,000 multinomial draws, seed 1): exact-test power 0.7914 at 10,987 items
    and 0.8041 at 11,176, against 0.7932 and 0.8000 computed.
    """
    normal = mcnemar_sample_size(0.075, 0.065).n
    exact = mcnemar_sample_size(0.075, 0.065, method="exact").n
    assert exact == 11176
    assert normal < exact < 1.03 * normal


def test_detectable_effect_inverts_the_sample_size() -> None:
    mde = mcnemar_detectable_effect(4000, 0.14)
    assert mde is not None
    p01, p10 = (0.14 + mde) / 2, (0.14 - mde) / 2
    assert mcnemar_sample_size(p01, p10).n == pytest.approx(4000, rel=1e-9)
    assert mcnemar_detectable_effect(3, 0.01) is None  # too few items for any effect
    assert minimum_detectable_effect(4000, discordance=0.14) == mde


@given(
    p01=st.floats(0.001, 0.4),
    p10=st.floats(0.001, 0.4),
    alpha=st.sampled_from([0.01, 0.05, 0.1]),
    power=st.floats(0.5, 0.95),
)
def test_power_at_n_star_is_the_target(p01: float, p10: float, alpha: float, power: float) -> None:
    if abs(p01 - p10) < 1e-3:
        return
    s = mcnemar_sample_size(p01, p10, alpha=alpha, power=power)
    assert mcnemar_power(s.n, p01, p10, alpha=alpha) == pytest.approx(power, abs=1e-9)
    # swapping the models mirrors the design
    assert mcnemar_sample_size(p10, p01, alpha=alpha, power=power).n == pytest.approx(s.n)


# --- paired t (statsmodels TTestPower) -----------------------------------------------------


def test_ttest_power_golden() -> None:
    # statsmodels: TTestPower().solve_power(0.5, alpha=0.05, power=0.8) = 33.36713118 (its
    # brentq stops at power 0.80000003; ours solves to 1e-10) and .power(0.5, 34, 0.05)
    assert paired_t_sample_size(0.5, 1.0).n == pytest.approx(33.36713118, rel=1e-6)
    assert paired_t_power(34, 0.5, 1.0) == pytest.approx(0.8077775013, abs=1e-9)


def test_ttest_scale_invariance_and_mde() -> None:
    assert paired_t_sample_size(0.02, 0.04).n == pytest.approx(33.36713118, rel=1e-6)
    mde = paired_t_detectable_effect(paired_t_sample_size(0.01, 0.3).n, 0.3)
    assert mde == pytest.approx(0.01, rel=1e-6)
    assert minimum_detectable_effect(4000, sd=0.3) == pytest.approx(
        paired_t_detectable_effect(4000, 0.3)
    )


def test_ttest_large_n_uses_a_stable_tail() -> None:
    # scipy's noncentral t returns NaN far in the tail at large noncentrality
    assert paired_t_power(4000, 0.3, 1.0) == pytest.approx(1.0)
    assert paired_t_detectable_effect(4000, 0.3) == pytest.approx(
        (stats.norm.isf(0.025) + stats.norm.ppf(0.8)) * 0.3 / math.sqrt(4000), rel=2e-3
    )


def test_runs_tradeoff_falls_to_the_between_item_limit() -> None:
    t = runs_tradeoff(0.01, 0.2, 0.4, runs=(1, 2, 4, 8, 64))
    n = list(t.n_required)
    assert n == sorted(n, reverse=True)
    assert n[-1] > t.n_limit
    assert t.n_limit == pytest.approx(paired_t_sample_size(0.01, 0.2).n)
    assert n[0] == pytest.approx(paired_t_sample_size(0.01, math.hypot(0.2, 0.4)).n)
    assert t.evaluations[1] == pytest.approx(2 * n[1])


# --- clustered designs and the unpaired shortcut --------------------------------------------


def test_design_effect_from_icc() -> None:
    assert design_effect_from_icc(0.0, 50) == 1.0
    assert design_effect_from_icc(0.05, 21) == pytest.approx(2.0)
    with pytest.raises(DataError, match="icc"):
        design_effect_from_icc(1.5, 10)


def test_cohens_h_and_normal_ind_power_golden() -> None:
    # statsmodels: proportion_effectsize(0.75, 0.70) = 0.1120819295;
    # NormalIndPower().solve_power(h, alpha=0.05, power=0.8) = 1249.5838647, d = 0.2: 392.44302
    assert cohens_h(0.70, 0.75) == pytest.approx(0.1120819295, rel=1e-9)
    s = unpaired_shortcut_sample_size(0.70, 0.75)
    assert s.per_arm == pytest.approx(1249.5838647, rel=1e-8)
    h02 = unpaired_shortcut_sample_size(0.5, math.sin(math.asin(math.sqrt(0.5)) + 0.1) ** 2)
    assert h02.h == pytest.approx(0.2)
    assert h02.per_arm == pytest.approx(392.4430232578, rel=1e-8)
    assert s.rho is None
    assert s.shortcut == pytest.approx(2 * s.per_arm)


def test_unpaired_shortcut_on_the_seed_design() -> None:
    """57% vs 58% with ~14% discordance (a 1-point fine-tune): the shortcut is off by ~2x."""
    s = unpaired_shortcut_sample_size(0.57, 0.58, p01=0.075, p10=0.065)
    assert s.paired == pytest.approx(mcnemar_sample_size(0.075, 0.065).n)
    assert s.rho == pytest.approx(0.7137, abs=1e-4)  # phi of the two models' outcomes
    assert s.ratio == pytest.approx(2.0, abs=0.01)  # both arms x (1 - rho): twice N*
    assert s.per_arm / s.paired == pytest.approx(3.49, abs=0.01)  # per arm, no correction
    assert s.per_arm_ratio == pytest.approx(1.0, abs=0.001)  # first-order agreement
    assert s.to_dict()["ratio"] == pytest.approx(s.ratio)


def test_unpaired_shortcut_rejects_inconsistent_inputs() -> None:
    with pytest.raises(DataError, match="must agree"):
        unpaired_shortcut_sample_size(0.57, 0.60, p01=0.075, p10=0.065)
    with pytest.raises(DataError, match="both"):
        unpaired_shortcut_sample_size(0.57, 0.58, p01=0.075)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mcnemar_sample_size(1.2, 0.1), "p01"),
        (lambda: mcnemar_sample_size(0.6, 0.6), "exceeds 1"),
        (lambda: mcnemar_sample_size(0.1, 0.05, alpha=0.7), "alpha"),
        (lambda: mcnemar_sample_size(0.1, 0.05, power=1.0), "power"),
        (lambda: mcnemar_sample_size(0.1, 0.05, method="fast"), "method"),
        (lambda: mcnemar_power(0, 0.1, 0.05), "`n`"),
        (lambda: mcnemar_power(np.nan, 0.1, 0.05), "`n`"),
        (lambda: paired_t_sample_size(0.1, -1.0), "sd"),
        (lambda: paired_t_sample_size(np.inf, 0.3), "`effect` must be a finite"),
        (lambda: paired_t_sample_size(np.nan, 0.3), "`effect` must be a finite"),
        (lambda: paired_t_power(100, np.inf, 0.3), "`effect` must be a finite"),
        (lambda: runs_tradeoff(-math.inf, 0.3, 0.3), "`effect` must be a finite"),
        (lambda: runs_tradeoff(0.1, 0.1, 0.1, runs=(0,)), "runs"),
        (lambda: minimum_detectable_effect(100), "exactly one"),
        (lambda: mcnemar_sample_size(0.1, 0.05, alternative="bigger"), "alternative"),
    ],
)
def test_bad_arguments_name_themselves(call: object, match: str) -> None:
    with pytest.raises(DataError, match=match):
        call()  # type: ignore[operator]
