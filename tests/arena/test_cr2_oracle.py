"""CR2 (bias-reduced linearisation) and its Bell-McCaffrey degrees of freedom against a
dense battle-level implementation, and CR1 against statsmodels' GLM cluster covariance.

Oracle for CR2: every battle a row, the hat matrix ``H = Z (Z'Z)^{-1} Z'`` of the
IRLS-standardised design built in full, ``A_g = (I - H_gg)^{-1/2}`` by an eigen
decomposition, and the degrees of freedom by the double loop over clusters of
Pustejovsky & Tipton (2018), eq. 11 with ``Phi = I``:
``nu = (sum_g p_g' p_g)^2 / sum_g sum_h (p_g' p_h)^2``, ``p_g = (I - H)_{.g} A_g Z_g B c``.
"""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from evalsig.arena import battles, compress
from evalsig.arena.fit import fit

M = 4
STRENGTHS = np.array([0.7, 0.2, 0.0, -0.5])


def _design(a: np.ndarray, b: np.ndarray, anchor: int = 0) -> np.ndarray:
    x = np.zeros((len(a), M))
    x[np.arange(len(a)), a] += 1.0
    x[np.arange(len(a)), b] -= 1.0
    return np.delete(x, anchor, axis=1)


def _inverse_root(s: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh(s)
    keep = values > 1e-10
    root = np.zeros_like(values)
    root[keep] = 1.0 / np.sqrt(values[keep])
    return (vectors * root) @ vectors.T


def _dense_cr2(x, y, w, clusters, beta, contrasts):
    """Battle by battle: CR2 covariance and the BM degrees of freedom of each contrast."""
    p = 1.0 / (1.0 + np.exp(-x @ beta))
    z = np.sqrt(w * p * (1 - p))[:, None] * x
    e = np.sqrt(w) * (y - p) / np.sqrt(p * (1 - p))
    bread = np.linalg.inv(z.T @ z)
    hat = z @ bread @ z.T
    labels = np.unique(clusters)
    index = [np.flatnonzero(clusters == g) for g in labels]
    adjust = [_inverse_root(np.eye(len(i)) - hat[np.ix_(i, i)]) for i in index]
    meat = np.zeros((x.shape[1], x.shape[1]))
    for i, a in zip(index, adjust, strict=True):
        s = z[i].T @ a @ e[i]
        meat += np.outer(s, s)
    residual_maker = np.eye(len(y)) - hat
    df = []
    for c in contrasts.T:
        vectors = [
            residual_maker[:, i] @ (a @ z[i] @ bread @ c)
            for i, a in zip(index, adjust, strict=True)
        ]
        num = sum(float(v @ v) for v in vectors) ** 2
        den = sum(float(u @ v) ** 2 for u in vectors for v in vectors)
        df.append(num / den)
    return bread @ meat @ bread, np.array(df)


@pytest.fixture(params=["dense", "low-rank"])
def branch(request, monkeypatch):
    """Both ways of building ``A_g``: an eigen-decomposition of ``I - H_gg``, or the
    low-rank form from the ``k x k`` eigenproblem (the default when ``r_g > k``)."""
    import evalsig.arena.cr2 as module

    monkeypatch.setattr(module, "_low_rank", lambda rows, k: request.param == "low-rank")
    return request.param


@pytest.mark.parametrize("weighted", [False, True])
def test_cr2_and_its_degrees_of_freedom_match_a_dense_battle_level_loop(
    simulate, names, weighted, branch
):
    a, b, y = simulate(STRENGTHS, 300, seed=21, tie_share=0.1)
    rng = np.random.default_rng(21)
    clusters = rng.integers(0, 8, len(y))
    w = np.where(rng.random(len(y)) < 0.3, 3.0, 1.0) if weighted else np.ones(len(y))
    data = battles(names(M)[a], names(M)[b], y, clusters=clusters,
                   weights=w if weighted else None)  # fmt: skip
    rows = compress(data)
    assert len(rows.count) < len(y)  # the compressed path is exercised
    contrasts = np.column_stack([np.eye(M - 1), [1.0, -1.0, 0.0], [0.5, 0.5, 1.0]])
    ours = fit(rows, ties="half", anchor=0, correction="CR2", contrasts=contrasts)
    assert ours.correction == "CR2"
    cov, df = _dense_cr2(_design(a, b), y, w, clusters, ours.params[1:], contrasts)
    np.testing.assert_allclose(ours.cov_sandwich[1:, 1:], cov, rtol=1e-9, atol=1e-12)
    assert ours.df is not None
    np.testing.assert_allclose(ours.df, df, rtol=1e-8)
    assert np.all(df < 8)  # fewer than the clusters: the correction has bite


def test_cr2_exceeds_the_uncorrected_cluster_covariance(simulate, names, branch):
    """With 6 clusters CR2's meat is larger than the raw (uncorrected) cluster meat: the
    leverage adjustment inflates the residuals."""
    a, b, y = simulate(STRENGTHS, 600, seed=22)
    clusters = np.random.default_rng(22).integers(0, 6, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, clusters=clusters))
    two = fit(rows, ties="half", anchor=0, correction="CR2")
    one = fit(rows, ties="half", anchor=0, correction="CR1")
    raw = np.diag(one.cov_sandwich)[1:] * 5 / 6
    assert np.all(np.diag(two.cov_sandwich)[1:] > raw)


def test_cr1_matches_statsmodels_glm_cluster_covariance(simulate, names):
    """``sm.GLM(y, X, family=Binomial()).fit(cov_type='cluster', cov_kwds={'groups': g,
    'use_correction': False})`` times G / (G - 1), to 1e-6 relative (fractional ties)."""
    a, b, y = simulate(STRENGTHS, 2000, seed=23, tie_share=0.2)
    clusters = np.random.default_rng(23).integers(0, 30, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, clusters=clusters))
    ours = fit(rows, ties="half", anchor=0, correction="CR1")
    assert ours.correction == "CR1"
    ref = sm.GLM(y, _design(a, b), family=sm.families.Binomial()).fit(
        tol=1e-13, cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False}
    )
    np.testing.assert_allclose(ours.params[1:], ref.params, atol=1e-8)
    np.testing.assert_allclose(ours.cov_sandwich[1:, 1:], ref.cov_params() * 30 / 29, rtol=1e-6)


def test_davidson_ties_fall_back_to_cr1_with_a_note(simulate, names):
    a, b, y = simulate(STRENGTHS, 600, seed=24, tie_share=0.2)
    clusters = np.random.default_rng(24).integers(0, 10, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, clusters=clusters))
    out = fit(rows, ties="davidson", anchor=0, correction="CR2")
    assert out.correction == "CR1"
    assert out.df is None
    assert "Davidson" in out.notes[0]


def test_studentised_maxima_match_a_dense_loop_on_the_same_draws(simulate, names, branch):
    """Each draw: ``beta* = B Z' e``, residuals ``(I - H) e``, the CR2 covariance of those
    residuals, and the largest |t| over the pairs of centred scores, battle by battle."""
    from evalsig.arena.cr2 import studentized_maxima

    a, b, _y = simulate(STRENGTHS, 120, seed=25)
    rng = np.random.default_rng(25)
    y = rng.uniform(0.05, 0.95, len(a))  # fractional: no two battles alike
    clusters = rng.integers(0, 5, len(a))
    rows = compress(battles(names(M)[a], names(M)[b], y, clusters=clusters))
    assert np.all(rows.count == 1)
    center = np.delete(np.eye(M) - 1.0 / M, 0, axis=1).T  # free parameters -> centred scores
    ours_fit = fit(rows, ties="half", anchor=0, correction="CR2", contrasts=center)
    use = ~np.eye(M, dtype=bool)
    seed = np.random.SeedSequence(7)
    ours = studentized_maxima(ours_fit.cr2, center, use, n_draws=40, seed=seed, chunk=40)
    order = np.argsort(rows.cluster, kind="stable")
    x = _design(rows.a[order], rows.b[order])
    g = rows.cluster[order]
    p = 1.0 / (1.0 + np.exp(-x @ ours_fit.params[1:]))
    z = np.sqrt(p * (1 - p))[:, None] * x
    bread = np.linalg.inv(z.T @ z)
    hat = z @ bread @ z.T
    index = [np.flatnonzero(g == label) for label in np.unique(g)]
    adjust = [_inverse_root(np.eye(len(i)) - hat[np.ix_(i, i)]) for i in index]
    draws = np.random.default_rng(seed).standard_normal((len(g), 40))
    expected = []
    for e in draws.T:
        beta = bread @ z.T @ e
        r = e - hat @ e
        meat = sum(
            np.outer(z[i].T @ a_g @ r[i], z[i].T @ a_g @ r[i])
            for i, a_g in zip(index, adjust, strict=True)
        )
        cov = center.T @ bread @ meat @ bread @ center
        d = center.T @ beta
        expected.append(
            max(
                abs(d[i] - d[j]) / np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
                for i in range(M)
                for j in range(i + 1, M)
            )
        )
    np.testing.assert_allclose(ours, expected, rtol=1e-9)


def test_a_model_seen_on_one_prompt_only_is_noted(simulate, names, branch):
    """Its score rests on one cluster (leverage 1): the pseudo-inverse keeps the fit
    finite, and the result says why its interval cannot be trusted."""
    a, b, y = simulate(STRENGTHS, 400, seed=26)
    clusters = np.random.default_rng(26).integers(0, 6, len(y))
    clusters[(a == 3) | (b == 3)] = 0
    rows = compress(battles(names(M)[a], names(M)[b], y, clusters=clusters))
    out = fit(rows, ties="half", anchor=0, correction="CR2")
    assert out.correction == "CR2"
    assert np.all(np.isfinite(out.cov_sandwich))
    assert any("leverage 1" in note for note in out.notes)


def test_too_costly_cr2_falls_back_with_notes(simulate, names, monkeypatch):
    import evalsig.arena.cr2 as module
    from evalsig.arena import bradley_terry

    a, b, y = simulate(STRENGTHS, 400, seed=27)
    clusters = np.random.default_rng(27).integers(0, 10, len(y))
    data = battles(names(M)[a], names(M)[b], y, clusters=clusters)
    full = bradley_terry(data, rng=0)
    assert (full.cluster_correction, full.rank_null) == ("CR2", "cr2-studentized")
    monkeypatch.setattr(module, "maxima_cost", lambda *args, **kwargs: float("inf"))
    t_ranks = bradley_terry(data, rng=0)
    assert (t_ranks.cluster_correction, t_ranks.rank_null) == ("CR2", "multivariate-t")
    assert t_ranks.rank_df == pytest.approx(float(np.min(t_ranks.df)))
    assert any("multivariate t" in note for note in t_ranks.notes)
    np.testing.assert_array_equal(t_ranks.ci_low, full.ci_low)  # the scores' intervals agree
    monkeypatch.setattr(module, "CR2_BUDGET", 0.0)
    cr1 = bradley_terry(data, rng=0)
    assert (cr1.cluster_correction, cr1.rank_null, cr1.df) == ("CR1", "normal", None)
    assert any("CR1 is used instead" in note for note in cr1.notes)
