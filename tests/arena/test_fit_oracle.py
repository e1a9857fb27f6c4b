"""Bradley-Terry fits against statsmodels on the expanded (uncompressed) battles, and the
batched bootstrap against a loop of single fits.

Oracle: ``statsmodels.api.Logit(y, X)`` (``GLM(y, X, family=Binomial())`` for fractional
outcomes) with ``X[i] = e_{a_i} - e_{b_i}`` (the anchor's column dropped) plus the
features, fitted to every battle; evalsig fits the compressed rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize

from evalsig.arena import battles, bootstrap, bradley_terry, compress
from evalsig.arena.design import Design
from evalsig.arena.fit import fit, newton
from evalsig.errors import DataError

M = 6
STRENGTHS = np.array([0.9, 0.5, 0.2, 0.0, -0.4, -1.1])


def _design(a: np.ndarray, b: np.ndarray, anchor: int = 0) -> np.ndarray:
    x = np.zeros((len(a), M))
    x[np.arange(len(a)), a] += 1.0
    x[np.arange(len(a)), b] -= 1.0
    return np.delete(x, anchor, axis=1)


def test_scores_and_model_based_se_match_statsmodels_logit(simulate, names):
    a, b, y = simulate(STRENGTHS, 4000, seed=1)
    rows = compress(battles(names(M)[a], names(M)[b], y))
    assert len(rows.count) <= 2 * M * (M - 1)  # compressed: two outcomes per ordered pair
    ours = fit(rows, ties="half", anchor=0)
    ref = sm.Logit(y, _design(a, b)).fit(disp=0, tol=1e-12)
    np.testing.assert_allclose(ours.params[1:], ref.params, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(ours.cov_model))[1:], ref.bse, atol=1e-6)
    np.testing.assert_allclose(np.linalg.inv(ours.information), ref.cov_params(), atol=1e-8)
    np.testing.assert_allclose(ours.loglik, ref.llf, atol=1e-6)


def test_sandwich_without_clusters_is_statsmodels_hc0(simulate, names):
    a, b, y = simulate(STRENGTHS, 3000, seed=2)
    ours = fit(compress(battles(names(M)[a], names(M)[b], y)), ties="half", anchor=0)
    ref = sm.Logit(y, _design(a, b)).fit(disp=0, tol=1e-12, cov_type="HC0")
    np.testing.assert_allclose(ours.cov_sandwich[1:, 1:], ref.cov_params(), atol=1e-8)


def test_cluster_robust_sandwich_matches_statsmodels_times_g_over_g_minus_1(simulate, names):
    a, b, y = simulate(STRENGTHS, 3000, seed=3)
    clusters = np.random.default_rng(3).integers(0, 40, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
    ours = fit(rows, ties="half", anchor=0)
    # statsmodels' cluster covariance without its small-sample factor; ours has G / (G - 1)
    ref = sm.Logit(y, _design(a, b)).fit(
        disp=0, tol=1e-12, cov_type="cluster",
        cov_kwds={"groups": clusters, "use_correction": False},
    )  # fmt: skip
    np.testing.assert_allclose(ours.cov_sandwich[1:, 1:], ref.cov_params() * 40 / 39, atol=1e-8)


def test_half_ties_match_fractional_glm(simulate, names):
    a, b, y = simulate(STRENGTHS, 3000, seed=4, tie_share=0.25)
    ours = fit(compress(battles(names(M)[a], names(M)[b], y)), ties="half", anchor=2)
    ref = sm.GLM(y, _design(a, b, anchor=2), family=sm.families.Binomial()).fit(tol=1e-13)
    np.testing.assert_allclose(np.delete(ours.params, 2), ref.params, atol=1e-6)
    np.testing.assert_allclose(
        np.sqrt(np.diag(ours.cov_model))[np.arange(M) != 2], ref.bse, atol=1e-6
    )


def test_weights_match_frequency_weighted_glm(simulate, names):
    a, b, y = simulate(STRENGTHS, 2000, seed=5)
    w = np.where(np.random.default_rng(5).random(len(y)) < 0.3, 3.0, 1.0)
    ours = fit(compress(battles(names(M)[a], names(M)[b], y, weights=w)), ties="half", anchor=0)
    ref = sm.GLM(y, _design(a, b), family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-13)
    np.testing.assert_allclose(ours.params[1:], ref.params, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(ours.cov_model))[1:], ref.bse, atol=1e-6)


def test_style_covariates_match_logit_with_feature_columns(simulate, names):
    a, b, y = simulate(STRENGTHS, 4000, seed=6)
    rng = np.random.default_rng(6)
    length = rng.normal(size=len(y))
    y = np.where(rng.random(len(y)) < 0.2, (length > 0).astype(float), y)  # length matters
    data = battles(names(M)[a], names(M)[b], y)
    result = bradley_terry(data, anchor="model-0", scale="logit", covariates={"length": length})
    x = np.column_stack([_design(a, b), length])
    ref = sm.Logit(y, x).fit(disp=0, tol=1e-12, cov_type="HC0")
    (cov,) = result.covariates
    assert cov.name == "length"
    np.testing.assert_allclose(cov.estimate, ref.params[-1], atol=1e-6)
    np.testing.assert_allclose(cov.se, ref.bse[-1], atol=1e-6)
    order = [result.models.index(f"model-{i}") for i in range(1, M)]
    np.testing.assert_allclose(result.score[order], ref.params[:-1], atol=1e-6)
    np.testing.assert_allclose(result.se[order], ref.bse[:-1], atol=1e-6)


def test_elo_scale_and_sum_to_zero_are_linear_maps_of_the_anchored_fit(simulate, names):
    a, b, y = simulate(STRENGTHS, 3000, seed=7)
    data = battles(names(M)[a], names(M)[b], y)
    logit = bradley_terry(data, anchor="model-0", scale="logit", rng=0)
    elo = bradley_terry(data, scale="elo", rng=0)
    s = np.array([logit["model-" + str(i)]["score"] for i in range(M)])
    centred = 400 / np.log(10) * (s - s.mean()) + 1000
    np.testing.assert_allclose([elo[f"model-{i}"]["score"] for i in range(M)], centred, atol=1e-6)
    assert abs(np.mean(elo.score) - 1000) < 1e-9
    assert logit["model-0"]["se"] == 0.0


def _davidson_negloglik(params: np.ndarray, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> float:
    s = np.concatenate([[0.0], params[:-1]])
    u = (s[a] - s[b]) / 2
    log_d = np.log(np.exp(u) + np.exp(-u) + np.exp(params[-1]))
    ll = np.where(y == 1, u, np.where(y == 0, -u, params[-1])) - log_d
    return -float(ll.sum())


def test_davidson_ties_match_a_direct_maximisation_and_its_numerical_hessian(simulate, names):
    a, b, y = simulate(STRENGTHS, 3000, seed=8, tie_share=0.2)
    ours = fit(compress(battles(names(M)[a], names(M)[b], y)), ties="davidson", anchor=0)
    ref = optimize.minimize(
        _davidson_negloglik, np.zeros(M), args=(a, b, y), method="BFGS",
        options={"gtol": 1e-10},
    )  # fmt: skip
    np.testing.assert_allclose(ours.params[1:], ref.x, atol=1e-5)
    # the information is the numerical Hessian of the negative log-likelihood
    h = 1e-4
    hess = np.empty((M, M))
    for i in range(M):
        e = np.zeros(M)
        e[i] = h
        up = optimize.approx_fprime(ref.x + e, _davidson_negloglik, 1e-6, a, b, y)
        down = optimize.approx_fprime(ref.x - e, _davidson_negloglik, 1e-6, a, b, y)
        hess[i] = (up - down) / (2 * h)
    np.testing.assert_allclose(ours.information, (hess + hess.T) / 2, rtol=2e-3, atol=0.5)


def test_compression_is_exact_and_order_free(simulate, names):
    a, b, y = simulate(STRENGTHS, 5000, seed=9, tie_share=0.1)
    data = battles(names(M)[a], names(M)[b], y)
    rows = compress(data)
    assert rows.count.sum() == 5000
    assert len(rows.count) <= 3 * M * (M - 1)
    perm = np.random.default_rng(0).permutation(5000)
    again = compress(battles(names(M)[a][perm], names(M)[b][perm], y[perm]))
    for field in ("a", "b", "outcome", "count"):
        np.testing.assert_array_equal(getattr(rows, field), getattr(again, field))
    # a plain count of each (a, b, outcome) triple
    for i in range(len(rows.count)):
        hits = (a == rows.a[i]) & (b == rows.b[i]) & (y == rows.outcome[i])
        assert hits.sum() == rows.count[i]


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_compressed_general_path_equals_the_fast_path(simulate, names, ties):
    a, b, y = simulate(STRENGTHS, 2000, seed=10, tie_share=0.2)
    plain = battles(names(M)[a], names(M)[b], y)
    weighted = battles(names(M)[a], names(M)[b], y, weights=np.ones(len(y)))  # general path
    one = fit(compress(plain), ties=ties, anchor=0)
    two = fit(compress(weighted), ties=ties, anchor=0)
    np.testing.assert_allclose(one.params, two.params, atol=1e-10)
    np.testing.assert_allclose(one.cov_sandwich, two.cov_sandwich, atol=1e-12)


def _bootstrap_loop(rows, start, ties, n_resamples, seed):
    """The plain loop: one draw, then one Newton fit of it, after another."""
    design = Design(rows, 0)
    rng = np.random.default_rng(seed)
    out = np.full((n_resamples, len(start)), np.nan)
    labels, g = np.unique(rows.cluster, return_inverse=True)
    for i in range(n_resamples):
        count = rows.count * rng.multinomial(len(labels), np.full(len(labels), 1 / len(labels)))[g]
        try:
            params, _, _ = newton(
                design, replace(rows, count=count), ties, start, max_iter=60, tol=1e-8
            )
        except (DataError, np.linalg.LinAlgError):
            continue
        if np.all(np.isfinite(params)) and np.max(np.abs(params - start)) < 50:
            out[i] = params
    return out


@pytest.mark.parametrize("ties", ["half", "davidson"])
@pytest.mark.parametrize("batch", [1, 7, 1 << 22])
def test_the_batched_bootstrap_is_a_loop_of_single_fits(simulate, names, ties, batch, monkeypatch):
    """All resamples fitted at once, or a few at a time, give each resample's own fit; a
    small cluster count makes some resamples separate a model (no finite fit: NaN)."""
    a, b, y = simulate(STRENGTHS, 60, seed=7)
    y = np.where(np.random.default_rng(7).random(len(y)) < 0.15, 0.5, y)
    clusters = np.random.default_rng(8).integers(0, 4, len(y))
    features = np.random.default_rng(9).normal(size=(len(y), 1))
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters, features=features))
    start = np.delete(fit(rows, ties=ties, anchor=0).params, 0)
    monkeypatch.setattr(bootstrap, "BATCH_CELLS", batch)
    seed = np.random.SeedSequence(11)
    ours, failed = bootstrap.bootstrap_params(
        rows, start, ties=ties, anchor=0, n_resamples=60, rng=seed
    )
    loop = _bootstrap_loop(rows, start, ties, 60, np.random.SeedSequence(11))
    assert failed == np.isnan(loop[:, 0]).sum()
    assert 0 < failed < 60
    np.testing.assert_allclose(ours, loop, rtol=0, atol=1e-12)
