"""Oracles: statsmodels' combine_effects, OLS/WLS, scipy's Kendall tau and optimizer, and a
plain-loop transcription of metafor's trimfill, on the same data as evalsig."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize, stats
from statsmodels.stats.meta_analysis import combine_effects

from evalsig.meta import egger_test, meta_regression, random_effects, rank_test, trim_and_fill


def _datasets() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(20240601)
    out = []
    for k in (3, 5, 8, 20):
        v = rng.uniform(0.05, 2.0, k)
        y = rng.normal(0.0, np.sqrt(v + 0.8))
        out.append((y, v))
    return out


@pytest.mark.parametrize(("y", "v"), _datasets())
def test_statsmodels_dersimonian_laird(y: np.ndarray, v: np.ndarray) -> None:
    sm_res = combine_effects(y, v, method_re="dl")
    ours = random_effects(y, v, method="dl")
    # statsmodels does not truncate DL at 0; compare only where the estimate is positive.
    if sm_res.tau2 > 0:
        assert ours.tau2 == pytest.approx(sm_res.tau2, rel=1e-12)
        assert ours.mu == pytest.approx(sm_res.mean_effect_re, rel=1e-12)
        assert ours.se == pytest.approx(sm_res.sd_eff_w_re, rel=1e-12)
        _, ci_re, _, _ = sm_res.conf_int(alpha=0.05, use_t=False)
        assert tuple(ours.ci) == pytest.approx(tuple(ci_re), rel=1e-12)
        hk = random_effects(y, v, method="dl", test="hksj")
        _, _, _, ci_hk_t = sm_res.conf_int(alpha=0.05, use_t=True)
        assert tuple(hk.ci) == pytest.approx(tuple(ci_hk_t), rel=1e-10)
        assert hk.se**2 == pytest.approx(sm_res.var_hksj_re, rel=1e-10)
    else:
        assert ours.tau2 == 0.0
    assert ours.q == pytest.approx(sm_res.q, rel=1e-12)


@pytest.mark.parametrize(("y", "v"), _datasets())
def test_statsmodels_paule_mandel(y: np.ndarray, v: np.ndarray) -> None:
    sm_res = combine_effects(y, v, method_re="iterated", atol=1e-13, maxiter=1000)
    ours = random_effects(y, v, method="pm")
    assert ours.tau2 == pytest.approx(max(sm_res.tau2, 0.0), rel=1e-9, abs=1e-12)
    assert ours.mu == pytest.approx(sm_res.mean_effect_re, rel=1e-9)
    hk = random_effects(y, v, method="pm", test="hksj")
    _, _, _, ci_hk = sm_res.conf_int(alpha=0.05, use_t=True)
    assert tuple(hk.ci) == pytest.approx(tuple(ci_hk), rel=1e-8)


@pytest.mark.parametrize(("y", "v"), _datasets())
def test_statsmodels_fixed_effect(y: np.ndarray, v: np.ndarray) -> None:
    sm_res = combine_effects(y, v, method_re="dl")
    ours = random_effects(y, v, method="fe")
    assert ours.mu == pytest.approx(sm_res.mean_effect_fe, rel=1e-12)
    assert ours.se == pytest.approx(sm_res.sd_eff_w_fe, rel=1e-12)
    ci_fe, _, _, _ = sm_res.conf_int(alpha=0.05, use_t=False)
    assert tuple(ours.ci) == pytest.approx(tuple(ci_fe), rel=1e-12)
    hk = random_effects(y, v, method="fe", test="hksj")
    _, _, ci_fe_t, _ = sm_res.conf_int(alpha=0.05, use_t=True)
    assert tuple(hk.ci) == pytest.approx(tuple(ci_fe_t), rel=1e-10)


def test_egger_classical_is_ols_of_standardized_effects() -> None:
    # Egger et al. (1997): OLS of y/se on 1/se; the intercept is the bias.
    y, v = _datasets()[3]
    se = np.sqrt(v)
    ols = sm.OLS(y / se, sm.add_constant(1 / se)).fit()
    ours = egger_test(y, v, model="lm")
    assert ours.bias == pytest.approx(ols.params[0], rel=1e-10)
    assert ours.bias_se == pytest.approx(ols.bse[0], rel=1e-10)
    assert ours.statistic == pytest.approx(ols.tvalues[0], rel=1e-10)
    assert ours.pvalue == pytest.approx(ols.pvalues[0], rel=1e-9)
    assert ours.df == ols.df_resid
    assert ours.limit_estimate == pytest.approx(ols.params[1], rel=1e-10)
    assert tuple(ours.limit_ci) == pytest.approx(tuple(ols.conf_int()[1]), rel=1e-10)


def _reml_oracle(y: np.ndarray, v: np.ndarray, x: np.ndarray) -> float:
    """tau^2 maximizing the restricted likelihood, by a bounded scalar optimizer."""

    def negative(t: float) -> float:
        w = 1 / (v + t)
        xtwx = x.T @ (x * w[:, None])
        beta = np.linalg.solve(xtwx, x.T @ (w * y))
        r = y - x @ beta
        return 0.5 * (np.log(v + t).sum() + np.linalg.slogdet(xtwx)[1] + (w * r * r).sum())

    res = optimize.minimize_scalar(
        negative, bounds=(0, 50), method="bounded", options={"xatol": 1e-12}
    )
    return float(res.x)


def test_meta_regression_reml_against_likelihood_optimizer() -> None:
    rng = np.random.default_rng(7)
    k = 14
    flag = np.array([0, 1] * 7, dtype=float)
    v = rng.uniform(0.2, 1.5, k)
    y = 70 + 2.0 * flag + rng.normal(0, np.sqrt(v + 1.0))
    x = np.column_stack([np.ones(k), flag])
    tau2 = _reml_oracle(y, v, x)
    res = meta_regression(y, v, flag)
    assert res.tau2 == pytest.approx(tau2, abs=1e-6)
    # given tau^2, the coefficients are weighted least squares (statsmodels WLS, scale 1):
    wls = sm.WLS(y, x, weights=1 / (v + res.tau2)).fit(cov_type="fixed scale")
    assert res.slope == pytest.approx(wls.params[1], rel=1e-10)
    assert res.slope_se == pytest.approx(wls.bse[1], rel=1e-10)
    assert res.intercept == pytest.approx(wls.params[0], rel=1e-10)
    # with two groups and a flag the model is saturated in the means:
    hk = meta_regression(y, v, flag, test="hksj")
    assert hk.df == k - 2


def test_egger_rma_is_meta_regression_on_se() -> None:
    y, v = _datasets()[3]
    ours = egger_test(y, v, model="rma", method="reml")
    reg = meta_regression(y, v, np.sqrt(v), method="reml")
    assert ours.bias == pytest.approx(reg.slope, rel=1e-12)
    assert ours.statistic == pytest.approx(reg.statistic, rel=1e-12)
    assert ours.limit_estimate == pytest.approx(reg.intercept, rel=1e-12)


def test_rank_test_against_scipy_kendall() -> None:
    y, v = _datasets()[3]
    w = 1 / v
    theta = (w * y).sum() / w.sum()
    ystar = (y - theta) / np.sqrt(v - 1 / w.sum())
    ref = stats.kendalltau(ystar, v, method="exact")
    ours = rank_test(y, v)
    assert ours.method == "exact"
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    # with tied variances: tau-b and the normal approximation
    v2 = np.round(v, 1)
    ours_tied = rank_test(y, v2)
    assert ours_tied.method == "asymptotic"


def _trimfill_loop(y: list[float], v: list[float], side: str) -> tuple[int, list[float]]:
    """metafor's trimfill.rma.uni (estimator L0, FE fits) written as a plain loop."""
    sign = -1.0 if side == "right" else 1.0
    pairs = sorted(((sign * a, b) for a, b in zip(y, v, strict=True)), key=lambda p: p[0])
    ys = [p[0] for p in pairs]
    vs = [p[1] for p in pairs]
    k = len(ys)
    k0, previous, beta = 0, -1, 0.0
    while k0 != previous:
        previous = k0
        w = [1 / b for b in vs[: k - k0]]
        beta = sum(wi * yi for wi, yi in zip(w, ys[: k - k0], strict=True)) / sum(w)
        centred = [a - beta for a in ys]
        order = sorted(range(k), key=lambda i: (abs(centred[i]), i))
        rank = {i: r + 1 for r, i in enumerate(order)}
        s_r = sum(rank[i] for i in range(k) if centred[i] > 0)
        k0 = max(0, round((4 * s_r - k * (k + 1)) / (2 * k - 1)))
    filled = [sign * (2 * beta - a) for a in ys[k - k0 :]]
    return k0, filled


@pytest.mark.parametrize("side", ["left", "right"])
def test_trim_and_fill_against_loop(side: str) -> None:
    rng = np.random.default_rng(11)
    v = rng.uniform(0.01, 0.3, 15)
    y = 0.5 + rng.normal(0, np.sqrt(v))
    y = y + (1.5 if side == "left" else -1.5) * np.sqrt(v)  # small, imprecise reports shifted
    k0, filled = _trimfill_loop(list(y), list(v), side)
    ours = trim_and_fill(y, v, method="fe", side=side)
    assert ours.k0 == k0 > 0
    assert sorted(ours.filled_estimates) == pytest.approx(sorted(filled), rel=1e-12)
    auto = trim_and_fill(y, v, method="fe")
    assert auto.side == side  # chosen from the sign of the Egger slope, as metafor does
