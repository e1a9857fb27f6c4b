"""CR2 (bias-reduced linearisation) and its Bell-McCaffrey degrees of freedom against a
dense battle-level implementation, and CR1 against statsmodels' GLM cluster covariance.

Oracle for CR2, written as clubSandwich's ``vcov_CR`` with ``inverse_var = TRUE`` computes
it for a ``glm``: every battle a row, ``Xd = p (1 - p) X`` (its ``model_matrix.glm``),
working weights ``W = w / (p (1 - p))``, target ``Theta = W^{-1}``, raw residuals
``y - p``, ``M = (Xd' W Xd)^{-1}``; per cluster ``IH_g = I - Xd_g M Xd_g' W_g``,
``D_g = chol(Theta_g)``, ``A_g = D_g' (D_g IH_g Theta_g D_g')^{-1/2} D_g`` and the meat
``sum_g Xd_g' W_g A_g r_g r_g' A_g W_g Xd_g``. The degrees of freedom by the double loop
over clusters of Pustejovsky & Tipton (2018), eq. 11 with the working model
``Phi = Theta``: ``nu = (sum_g p_g' p_g)^2 / sum_g sum_h (p_g' p_h)^2``, with the
standardised ``p_g = (I - H)_{.g} Theta_g^{1/2} A_g W_g Xd_g M c`` (``H`` the hat
matrix of ``W^{1/2} Xd``).
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


def _power(s: np.ndarray, power: float) -> np.ndarray:
    """clubSandwich's ``matrix_power``: eigenvalues at or below 1e-12 set to 0."""
    values, vectors = np.linalg.eigh((s + s.T) / 2.0)
    keep = values > 1e-12
    root = np.zeros_like(values)
    root[keep] = values[keep] ** power
    return (vectors * root) @ vectors.T


def _adjustments(x, y, w, beta, index, symmetric=False):
    """clubSandwich's CR2 adjustments ``A_g`` (raw scale) and the pieces around them; with
    ``symmetric``, ``W_g^{-1/2} (I - H_gg)^{-1/2} W_g^{1/2}`` instead."""
    p = 1.0 / (1.0 + np.exp(-x @ beta))
    v = p * (1 - p)
    xd, weight = v[:, None] * x, w / v
    m = np.linalg.inv(xd.T @ (weight[:, None] * xd))
    adjust = []
    for i in index:
        theta = np.diag(1.0 / weight[i])
        ih = np.eye(len(i)) - xd[i] @ m @ xd[i].T @ np.diag(weight[i])
        if symmetric:
            root = np.sqrt(weight[i])
            z = root[:, None] * xd[i]
            inner = _power(np.eye(len(i)) - z @ m @ z.T, -0.5)
            adjust.append(inner * root[None, :] / root[:, None])
        else:
            d = np.sqrt(theta)  # chol of a diagonal matrix
            adjust.append(d.T @ _power(d @ ih @ theta @ d.T, -0.5) @ d)
    return p, xd, weight, m, adjust


def _dense_cr2(x, y, w, clusters, beta, contrasts, symmetric=False):
    """Battle by battle: CR2 covariance and the BM degrees of freedom of each contrast."""
    index = [np.flatnonzero(clusters == g) for g in np.unique(clusters)]
    p, xd, weight, m, adjust = _adjustments(x, y, w, beta, index, symmetric)
    meat = np.zeros((x.shape[1], x.shape[1]))
    for i, a in zip(index, adjust, strict=True):
        s = xd[i].T @ (weight[i] * (a @ (y[i] - p[i])))
        meat += np.outer(s, s)
    z = np.sqrt(weight)[:, None] * xd  # standardised design
    residual_maker = np.eye(len(y)) - z @ m @ z.T
    df = []
    for c in contrasts.T:
        vectors = [
            residual_maker[:, i] @ ((a.T @ (weight[i] * (xd[i] @ m @ c))) / np.sqrt(weight[i]))
            for i, a in zip(index, adjust, strict=True)
        ]
        num = sum(float(v @ v) for v in vectors) ** 2
        den = sum(float(u @ v) ** 2 for u in vectors for v in vectors)
        df.append(num / den)
    return m @ meat @ m, np.array(df)


@pytest.mark.parametrize("adjustment", ["clubSandwich", "symmetric"])
@pytest.mark.parametrize("case", ["plain", "weighted", "balanced", "many clusters"])
def test_cr2_and_its_degrees_of_freedom_match_a_dense_battle_level_loop(
    simulate, names, monkeypatch, case, adjustment
):
    """``balanced``: every pair's wins and losses are equal, so all scores are 0 and the
    working variances constant (the low-rank shortcut); ``many clusters``: clusters with
    fewer collapsed rows than parameters beside larger ones. ``symmetric``: the
    adjustment used when clubSandwich's would cost too much (forced here)."""
    import evalsig.arena.cr2 as module

    a, b, y = simulate(STRENGTHS, 300, seed=21, tie_share=0.1)
    rng = np.random.default_rng(121)
    clusters = rng.integers(0, 60 if case == "many clusters" else 8, len(y))
    if case == "balanced":
        a, b, clusters = np.tile(a, 2), np.tile(b, 2), np.tile(clusters, 2)
        y = np.concatenate([y, 1.0 - y])
    w = np.where(rng.random(len(y)) < 0.3, 3.0, 1.0) if case == "weighted" else np.ones(len(y))
    data = battles(names(M)[a], names(M)[b], y, cluster=clusters,
                   weights=w if case == "weighted" else None)  # fmt: skip
    rows = compress(data)
    assert len(rows.count) < len(y)  # the compressed path is exercised
    if adjustment == "symmetric":
        real = module.cr2_cost
        monkeypatch.setattr(module, "cr2_cost", lambda *args: (float("inf"), real(*args)[1]))
    contrasts = np.column_stack([np.eye(M - 1), [1.0, -1.0, 0.0], [0.5, 0.5, 1.0]])
    ours = fit(rows, ties="half", anchor=0, correction="CR2", contrasts=contrasts)
    assert ours.correction == "CR2"
    assert any("symmetric adjustment" in n for n in ours.notes) == (adjustment == "symmetric")
    cov, df = _dense_cr2(_design(a, b), y, w, clusters, ours.params[1:], contrasts,
                         symmetric=adjustment == "symmetric")  # fmt: skip
    np.testing.assert_allclose(ours.cov_sandwich[1:, 1:], cov, rtol=1e-9, atol=1e-12)
    assert ours.df is not None
    np.testing.assert_allclose(ours.df, df, rtol=1e-8)
    if case != "many clusters":
        assert np.all(df < 8)  # fewer than the clusters: the correction has bite


def test_the_two_adjustments_differ_when_the_working_variances_do(simulate, names):
    """With unequal working variances within clusters clubSandwich's adjustment and the
    symmetric one give different standard errors (by ~1e-3 here); with equal ones
    (``balanced``, all scores 0) the same."""
    a, b, y = simulate(STRENGTHS, 300, seed=21, tie_share=0.1)
    clusters = np.random.default_rng(121).integers(0, 8, len(y))
    beta = fit(compress(battles(names(M)[a], names(M)[b], y, cluster=clusters)),
               ties="half", anchor=0).params[1:]  # fmt: skip
    x = _design(a, b)
    cs, _ = _dense_cr2(x, y, np.ones(len(y)), clusters, beta, np.eye(M - 1))
    sym, _ = _dense_cr2(x, y, np.ones(len(y)), clusters, beta, np.eye(M - 1), symmetric=True)
    gap = np.abs(np.sqrt(np.diag(cs) / np.diag(sym)) - 1.0)
    assert 1e-4 < gap.max() < 1e-2
    cs0, _ = _dense_cr2(x, y, np.ones(len(y)), clusters, np.zeros(M - 1), np.eye(M - 1))
    sym0, _ = _dense_cr2(x, y, np.ones(len(y)), clusters, np.zeros(M - 1), np.eye(M - 1),
                         symmetric=True)  # fmt: skip
    np.testing.assert_allclose(cs0, sym0, rtol=1e-12)


def test_cr2_exceeds_the_uncorrected_cluster_covariance(simulate, names):
    """With 6 clusters CR2's meat is larger than the raw (uncorrected) cluster meat: the
    leverage adjustment inflates the residuals."""
    a, b, y = simulate(STRENGTHS, 600, seed=22)
    clusters = np.random.default_rng(22).integers(0, 6, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
    two = fit(rows, ties="half", anchor=0, correction="CR2")
    one = fit(rows, ties="half", anchor=0, correction="CR1")
    raw = np.diag(one.cov_sandwich)[1:] * 5 / 6
    assert np.all(np.diag(two.cov_sandwich)[1:] > raw)


def test_cr1_matches_statsmodels_glm_cluster_covariance(simulate, names):
    """``sm.GLM(y, X, family=Binomial()).fit(cov_type='cluster', cov_kwds={'groups': g,
    'use_correction': False})`` times G / (G - 1), to 1e-6 relative (fractional ties)."""
    a, b, y = simulate(STRENGTHS, 2000, seed=23, tie_share=0.2)
    clusters = np.random.default_rng(23).integers(0, 30, len(y))
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
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
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
    out = fit(rows, ties="davidson", anchor=0, correction="CR2")
    assert out.correction == "CR1"
    assert out.df is None
    assert "Davidson" in out.notes[0]


def test_studentised_maxima_match_a_dense_loop_on_the_same_draws(simulate, names):
    """Each draw: ``beta* = B Z' e``, residuals ``(I - H) e``, the CR2 covariance of those
    residuals, and the largest |t| over the pairs of centred scores, battle by battle."""
    from evalsig.arena.cr2 import collapse, studentized_maxima

    a, b, _y = simulate(STRENGTHS, 120, seed=25)
    rng = np.random.default_rng(125)
    y = rng.uniform(0.05, 0.95, len(a))  # fractional: no two battles alike
    clusters = rng.integers(0, 5, len(a))
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
    assert np.all(rows.count == 1)
    center = np.delete(np.eye(M) - 1.0 / M, 0, axis=1).T  # free parameters -> centred scores
    ours_fit = fit(rows, ties="half", anchor=0, correction="CR2", contrasts=center)
    use = ~np.eye(M, dtype=bool)
    seed = np.random.SeedSequence(7)
    ours = studentized_maxima(ours_fit.cr2, center, use, n_draws=40, rng=seed, chunk=40)
    order = np.argsort(rows.cluster, kind="stable")
    x = _design(rows.a[order], rows.b[order])
    g = rows.cluster[order]
    index = [np.flatnonzero(g == label) for label in np.unique(g)]
    _p, xd, weight, bread, raw = _adjustments(x, y, np.ones(len(g)), ours_fit.params[1:], index)
    z = np.sqrt(weight)[:, None] * xd
    hat = z @ bread @ z.T
    # the adjustment of the standardised residuals: W^{1/2} A_g W^{-1/2}
    adjust = [
        np.sqrt(weight[i])[:, None] * a_g / np.sqrt(weight[i])[None, :]
        for i, a_g in zip(index, raw, strict=True)
    ]
    # the draws are those of the collapsed rows; battle by battle, ``e = Q e_collapsed``
    # (each battle its row's draw times +-sqrt(n_i / N_j)) has the same ``Q' e``
    merged = collapse(rows)
    collapsed = np.random.default_rng(seed).standard_normal((len(merged.rows.count), 40))
    assert len(merged.rows.count) < len(g)  # rows were merged
    draws = merged.scale[order, None] * collapsed[merged.group[order]]
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


def test_a_model_seen_on_one_prompt_only_is_noted(simulate, names):
    """Its score rests on one cluster (leverage 1): the pseudo-inverse keeps the fit
    finite, and the result says why its interval cannot be trusted."""
    a, b, y = simulate(STRENGTHS, 400, seed=26)
    clusters = np.random.default_rng(26).integers(0, 6, len(y))
    clusters[(a == 3) | (b == 3)] = 0
    rows = compress(battles(names(M)[a], names(M)[b], y, cluster=clusters))
    out = fit(rows, ties="half", anchor=0, correction="CR2")
    assert out.correction == "CR2"
    assert np.all(np.isfinite(out.cov_sandwich))
    assert any("leverage 1" in note for note in out.notes)


def test_too_costly_cr2_falls_back_with_notes(simulate, names, monkeypatch):
    import evalsig.arena.cr2 as module
    from evalsig.arena import bradley_terry

    a, b, y = simulate(STRENGTHS, 400, seed=27)
    clusters = np.random.default_rng(27).integers(0, 10, len(y))
    data = battles(names(M)[a], names(M)[b], y, cluster=clusters)
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
