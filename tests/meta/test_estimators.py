"""Hand-computed checks of every tau^2 estimator (metafor's definitions) and their relations."""

from __future__ import annotations

import numpy as np
import pytest

from evalsig.meta import MetaConvergenceWarning, estimate_tau2, random_effects
from evalsig.meta.estimators import tau2_batch, tau2_design

Y = np.array([0.42, -0.10, 0.91, 0.35, 1.40, 0.05, 0.66])
V = np.array([0.04, 0.09, 0.16, 0.05, 0.30, 0.12, 0.08])
K = Y.size


def _q(tau2: float) -> tuple[np.ndarray, float, float]:
    w = 1 / (V + tau2)
    mu = (w * Y).sum() / w.sum()
    return w, mu, float((w * (Y - mu) ** 2).sum())


def test_hedges() -> None:
    # Hedges (1983): unweighted variance of y minus the mean sampling variance
    expected = Y.var(ddof=1) - V.mean()
    assert estimate_tau2(Y, V, method="he").tau2 == pytest.approx(expected, rel=1e-13)


def test_hunter_schmidt() -> None:
    w, _, q = _q(0.0)
    expected = max(0.0, (q - K) / w.sum())
    assert estimate_tau2(Y, V, method="hs").tau2 == pytest.approx(expected, rel=1e-13)


def test_dersimonian_laird() -> None:
    w, _, q = _q(0.0)
    expected = (q - (K - 1)) / (w.sum() - (w**2).sum() / w.sum())
    assert estimate_tau2(Y, V, method="dl").tau2 == pytest.approx(expected, rel=1e-13)


def test_sidik_jonkman() -> None:
    start = Y.var(ddof=0)  # metafor: var(yi) * (k - 1) / k
    _, _, q = _q(start)
    expected = start * q / (K - 1)
    assert estimate_tau2(Y, V, method="sj").tau2 == pytest.approx(expected, rel=1e-13)


def test_paule_mandel_solves_its_equation() -> None:
    tau2 = estimate_tau2(Y, V, method="pm").tau2
    assert tau2 > 0
    assert _q(tau2)[2] == pytest.approx(K - 1, rel=1e-10)


def test_empirical_bayes_equals_paule_mandel() -> None:
    # EB's Fisher-scoring fixed point is Q(tau^2) = k - 1 (Morris 1983), the PM equation; metafor
    # gives the same value for both (up to its tolerances) in the intercept-only model.
    eb, pm = estimate_tau2(Y, V, method="eb"), estimate_tau2(Y, V, method="pm")
    assert eb.tau2 == pytest.approx(pm.tau2, rel=1e-8)
    assert eb.iterations > 0


def test_ml_and_reml_score_equations() -> None:
    y = 2.0 * Y
    reml = estimate_tau2(y, V, method="reml").tau2
    ml = estimate_tau2(y, V, method="ml").tau2
    assert 0 < ml < reml  # ML ignores the loss of a df for mu and is smaller
    w = 1 / (V + ml)
    r = y - (w * y).sum() / w.sum()
    assert ((w * r) ** 2).sum() == pytest.approx(w.sum(), rel=1e-8)  # ML score = 0
    w = 1 / (V + reml)
    r = y - (w * y).sum() / w.sum()
    tr_p = w.sum() - (w**2).sum() / w.sum()
    assert ((w * r) ** 2).sum() == pytest.approx(tr_p, rel=1e-8)  # REML score = 0


def test_boundary_optimum_is_exactly_zero() -> None:
    # ML's likelihood decreases from tau^2 = 0 for these data: halved steps approach 0 and
    # the estimate is reported as exactly 0 (metafor stops at a small positive number).
    res = estimate_tau2(Y, V, method="ml")
    assert res.tau2 == 0.0
    w = 1 / V
    r = Y - (w * Y).sum() / w.sum()
    assert ((w * r) ** 2).sum() < w.sum()  # the score at 0 is negative


def test_ml_reml_relation_for_equal_variances() -> None:
    # With equal v_i: tau2_ML = s2 (k-1)/k - v and tau2_REML = s2 - v (s2 with divisor k - 1)
    y = np.array([1.0, 2.5, 0.3, 4.1, 2.2, 3.3])
    v = np.full(6, 0.2)
    s2 = y.var(ddof=1)
    assert estimate_tau2(y, v, method="reml").tau2 == pytest.approx(s2 - 0.2, rel=1e-9)
    assert estimate_tau2(y, v, method="ml").tau2 == pytest.approx(s2 * 5 / 6 - 0.2, rel=1e-9)


@pytest.mark.parametrize("method", ["dl", "he", "hs", "pm", "eb", "ml", "reml"])
def test_truncation_at_zero_for_homogeneous_reports(method: str) -> None:
    y = np.array([0.50, 0.51, 0.49, 0.50, 0.505])
    v = np.full(5, 0.04)
    res = estimate_tau2(y, v, method=method)
    assert res.tau2 == 0.0
    assert res.converged


def test_sidik_jonkman_is_positive_unless_all_equal() -> None:
    # SJ = tau0^2 Q(tau0^2) / (k - 1) >= 0 needs no truncation; 0 only for identical estimates
    y = np.array([0.50, 0.51, 0.49, 0.50, 0.505])
    v = np.full(5, 0.04)
    assert estimate_tau2(y, v, method="sj").tau2 > 0
    assert estimate_tau2(np.full(5, 0.5), v, method="sj").tau2 == 0.0


@pytest.mark.parametrize("method", ["fe", "dl", "he", "hs", "sj", "pm", "eb", "ml", "reml"])
def test_intercept_engine_matches_design_engine(method: str) -> None:
    # the closed forms of P = W - w w'/sum(w) against the matrix form metafor uses
    batch = tau2_batch(Y[None, :], V, method, tol=1e-12, max_iter=1000)  # type: ignore[arg-type]
    design = tau2_design(Y, V, np.ones((K, 1)), method, tol=1e-12, max_iter=1000)  # type: ignore[arg-type]
    assert batch.tau2[0] == pytest.approx(design.tau2, rel=1e-9, abs=1e-14)


def test_batch_rows_are_independent() -> None:
    rng = np.random.default_rng(3)
    rows = rng.normal(0, 1, (50, K))
    batch = tau2_batch(rows, V, "reml", tol=1e-10, max_iter=1000)
    for i in (0, 17, 49):
        assert batch.tau2[i] == pytest.approx(estimate_tau2(rows[i], V).tau2, rel=1e-12)


def test_non_convergence_is_flagged_not_returned() -> None:
    res = estimate_tau2(Y, V, method="reml", max_iter=1)
    assert not res.converged
    assert np.isnan(res.tau2)
    with pytest.warns(MetaConvergenceWarning, match="did not converge"):
        meta = random_effects(Y, V, method="reml", max_iter=1)
    assert not meta.converged
    assert np.isnan(meta.mu)
    d = meta.to_dict()
    assert d["mu"] is None
    assert "did not converge" in d["nulls"]["mu"]
    assert any("did not converge" in n for n in d["notes"])


def test_moderators_give_residual_heterogeneity() -> None:
    flag = np.array([0, 1, 0, 1, 0, 1, 0], dtype=float)
    alone = estimate_tau2(Y, V, method="dl").tau2
    residual = estimate_tau2(Y, V, method="dl", moderators=flag).tau2
    w = 1 / V
    x = np.column_stack([np.ones(K), flag])
    p = np.diag(w) - (x * w[:, None]) @ np.linalg.solve(x.T @ (x * w[:, None]), (x * w[:, None]).T)
    expected = max(0.0, (Y @ p @ Y - (K - 2)) / np.trace(p))
    assert residual == pytest.approx(expected, rel=1e-12)
    assert residual != alone


@pytest.mark.parametrize(
    ("y", "v"),
    [
        ([0.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.125]),
        (
            [2.0, 2.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            [1.0, 2.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 2.0, 0.0625],
        ),
    ],
)
def test_oscillating_fisher_scoring_is_finished_by_bracketing(
    y: list[float], v: list[float]
) -> None:
    # Found by hypothesis: plain Fisher scoring (metafor's) oscillates around the REML
    # optimum here and does not converge in 1000 iterations; the bracket finishes it.
    ya, va = np.array(y), np.array(v)
    res = estimate_tau2(ya, va, method="reml")
    assert res.converged
    w = 1 / (va + res.tau2)
    r = ya - (w * ya).sum() / w.sum()
    tr_p = w.sum() - (w**2).sum() / w.sum()
    assert ((w * r) ** 2).sum() == pytest.approx(tr_p, rel=1e-7)
    x = np.ones((ya.size, 1))
    design = tau2_design(ya, va, x, "reml", tol=1e-10, max_iter=1000)
    assert design.tau2 == pytest.approx(res.tau2, rel=1e-7)
    batch = tau2_batch(np.stack([ya, ya]), va, "reml", tol=1e-10, max_iter=1000)
    assert batch.converged.all()
    assert batch.tau2 == pytest.approx([res.tau2, res.tau2], rel=1e-7)  # vectorised engine
