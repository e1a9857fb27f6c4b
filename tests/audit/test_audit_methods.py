"""The built-in methods: plain-loop oracles, exact moments of the compressed resampling,
and the registry of methods of your own."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from evalsig import compare
from evalsig.audit import (
    AuditMethod,
    MethodInput,
    MethodSettings,
    audit,
    available_methods,
    builtin_methods,
    get_method,
    register_method,
    unregister_method,
)
from evalsig.errors import DataError
from evalsig.simulate import MixtureDesign, PairBatch, simulate_batch

Z = 1.959963984540054
SETTINGS = MethodSettings()


@pytest.fixture(scope="module")
def batch_design() -> MixtureDesign:
    return MixtureDesign(n_items=600, n_runs=4, uplift=0.02)


def _repeat(pair: PairBatch, index: int, times: int) -> PairBatch:
    """One simulated pair repeated ``times`` times (to study a method's randomness)."""

    def rep(a: np.ndarray) -> np.ndarray:
        return np.repeat(a[index : index + 1], times, axis=0)

    return replace(
        pair,
        fixed=rep(pair.fixed),
        p_baseline=rep(pair.p_baseline),
        p_candidate=rep(pair.p_candidate),
        valid=rep(pair.valid),
        baseline=rep(pair.baseline),
        candidate=rep(pair.candidate),
        k_baseline=rep(pair.k_baseline),
        k_candidate=rep(pair.k_candidate),
    )


def _loop_mcnemar(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    n10 = int(((x[0] == 1) & (y[0] == 0)).sum())
    n01 = int(((x[0] == 0) & (y[0] == 1)).sum())
    return float(y[0].mean() - x[0].mean()), math.sqrt(n10 + n01) / x.shape[1]


def _loop_paired_t(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    d = y.mean(axis=0) - x.mean(axis=0)
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))


@pytest.mark.parametrize("which", ["finetune", "clone"])
def test_deterministic_methods_equal_the_plain_loop(
    batch_design: MixtureDesign, which: str
) -> None:
    batch = simulate_batch(batch_design, 12, np.random.default_rng(4))
    pair = batch.pair(which)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for name, loop in (("mcnemar", _loop_mcnemar), ("paired-t", _loop_paired_t)):
        method = get_method(name)
        assert method.batch is not None
        out = method.batch(pair, SETTINGS, rng)
        for s in range(12):
            x, y, _, _ = batch.expand(s, which)  # type: ignore[arg-type]
            estimate, se = loop(x, y)
            assert out[s, 0] == pytest.approx(estimate, abs=1e-14)
            assert out[s, 2] - out[s, 0] == pytest.approx(Z * se, rel=1e-12, abs=1e-15)


def test_honest_methods_agree_with_compare(batch_design: MixtureDesign) -> None:
    batch = simulate_batch(batch_design, 3, np.random.default_rng(8))
    pair = batch.pair("finetune")
    mcnemar = get_method("mcnemar").batch(pair, SETTINGS, np.random.default_rng(0))  # type: ignore[misc]
    paired_t = get_method("paired-t").batch(pair, SETTINGS, np.random.default_rng(0))  # type: ignore[misc]
    for s in range(3):
        x, y, _, _ = batch.expand(s, "finetune")
        test = compare(x[0], y[0], method="mcnemar", variant="asymptotic")
        z = mcnemar[s, 0] / ((mcnemar[s, 2] - mcnemar[s, 0]) / Z)
        assert z == pytest.approx(test.statistic, rel=1e-12)
        t = compare(x, y, method="paired-t")
        assert paired_t[s, 0] == pytest.approx(t.estimate, abs=1e-15)
        assert (paired_t[s, 2] - paired_t[s, 0]) / Z == pytest.approx(t.se, rel=1e-12)


def _exact_variances(pair: PairBatch, index: int) -> dict[str, float]:
    """Variance of one replicate of each resampling method, from the per-item data."""
    n, r = pair.n_items, pair.n_runs
    keep = pair.valid[index]
    kx, ky = pair.k_baseline[index][keep], pair.k_candidate[index][keep]
    fixed = pair.fixed[index]
    mx = np.concatenate([kx / r, np.ones(fixed[0] + fixed[3]), np.zeros(fixed[1] + fixed[2])])
    my = np.concatenate([ky / r, np.ones(fixed[0] + fixed[2]), np.zeros(fixed[1] + fixed[3])])
    d = np.concatenate(
        [(ky - kx) / r, np.zeros(fixed[0] + fixed[1]), np.ones(fixed[2]), -np.ones(fixed[3])]
    )
    px, py = pair.p_baseline[index][keep], pair.p_candidate[index][keep]
    return {
        # one pick per item from its R runs: Bernoulli(k / R)
        "run-bootstrap": float(((kx / r) * (1 - kx / r)).sum() + ((ky / r) * (1 - ky / r)).sum())
        / n**2,
        "unpaired-bootstrap": float(np.var(mx) + np.var(my)) / n,
        "paired-bootstrap": float(np.var(d)) / n,
        "independent-runs": float((px * (1 - px)).sum() + (py * (1 - py)).sum()) / n**2,
    }


@pytest.mark.parametrize(
    "name", ["run-bootstrap", "unpaired-bootstrap", "paired-bootstrap", "independent-runs"]
)
def test_compressed_resampling_has_the_exact_variance(
    batch_design: MixtureDesign, name: str
) -> None:
    """E[SE^2] of B replicates (ddof 1) is the exact variance of one replicate."""
    batch = simulate_batch(batch_design, 2, np.random.default_rng(6))
    pair = _repeat(batch.pair("finetune"), 1, 4000)
    method = get_method(name)
    assert method.batch is not None
    out = method.batch(pair, SETTINGS, np.random.default_rng(9))
    se = (out[:, 2] - out[:, 0]) / Z
    scale = math.sqrt(SETTINGS.independent_runs) if name == "independent-runs" else 1.0
    variance = (se * scale) ** 2
    exact = _exact_variances(pair, 0)[name]
    mc_error = variance.std(ddof=1) / math.sqrt(len(variance))
    assert abs(variance.mean() - exact) < 4 * mc_error


def _naive_run_bootstrap(x: np.ndarray, y: np.ndarray, b: int, rng: np.random.Generator) -> float:
    """The article's per-item index resampling of runs."""
    r, n = x.shape
    ix = rng.integers(0, r, size=(b, n))
    iy = rng.integers(0, r, size=(b, n))
    d = y[iy, np.arange(n)].mean(axis=1) - x[ix, np.arange(n)].mean(axis=1)
    return float(d.std(ddof=1))


def _naive_unpaired(x: np.ndarray, y: np.ndarray, b: int, rng: np.random.Generator) -> float:
    mx, my = x.mean(axis=0), y.mean(axis=0)
    n = len(mx)
    ix = rng.integers(0, n, size=(b, n))
    iy = rng.integers(0, n, size=(b, n))
    return float((my[iy].mean(axis=1) - mx[ix].mean(axis=1)).std(ddof=1))


@pytest.mark.parametrize(
    ("name", "naive"),
    [("run-bootstrap", _naive_run_bootstrap), ("unpaired-bootstrap", _naive_unpaired)],
)
def test_compressed_and_naive_resampling_agree_in_distribution(
    batch_design: MixtureDesign, name: str, naive: object
) -> None:
    batch = simulate_batch(batch_design, 1, np.random.default_rng(12))
    x, y, _, _ = batch.expand(0, "finetune")
    rng = np.random.default_rng(13)
    reference = np.array([naive(x, y, 30, rng) for _ in range(1500)])  # type: ignore[operator]
    method = get_method(name)
    assert method.batch is not None
    out = method.batch(_repeat(batch.pair("finetune"), 0, 1500), SETTINGS, rng)
    compressed = (out[:, 2] - out[:, 0]) / Z
    assert stats.ks_2samp(reference, compressed).pvalue > 0.001


def test_independent_runs_with_different_probabilities(batch_design: MixtureDesign) -> None:
    """The general path (fresh runs of both models) when the probabilities differ."""
    batch = simulate_batch(batch_design, 1, np.random.default_rng(6))
    pair = _repeat(batch.pair("finetune"), 0, 4000)
    pair = replace(pair, p_candidate=np.where(pair.valid, 0.9 * pair.p_candidate, 0.0))
    method = get_method("independent-runs")
    assert method.batch is not None
    out = method.batch(pair, SETTINGS, np.random.default_rng(10))
    keep = pair.valid[0]
    px, py = pair.p_baseline[0][keep], pair.p_candidate[0][keep]
    n = pair.n_items
    mean = (pair.ones_candidate[0] - pair.ones_baseline[0] + py.sum() - px.sum()) / n
    variance = ((px * (1 - px)).sum() + (py * (1 - py)).sum()) / n**2
    estimates = out[:, 0]
    assert abs(estimates.mean() - mean) < 4 * estimates.std(ddof=1) / math.sqrt(4000)
    se2 = ((out[:, 2] - out[:, 0]) / Z) ** 2 * SETTINGS.independent_runs
    assert abs(se2.mean() - variance) < 4 * se2.std(ddof=1) / math.sqrt(4000)


def test_sqrt_b_divides_the_honest_run_bootstrap(batch_design: MixtureDesign) -> None:
    batch = simulate_batch(batch_design, 5, np.random.default_rng(1))
    pair = batch.pair("clone")
    honest = get_method("run-bootstrap").batch(pair, SETTINGS, np.random.default_rng(3))  # type: ignore[misc]
    shrunk = get_method("run-bootstrap-sqrt-b").batch(pair, SETTINGS, np.random.default_rng(3))  # type: ignore[misc]
    assert np.allclose(shrunk[:, 0], honest[:, 0])
    assert np.allclose((shrunk[:, 2] - shrunk[:, 0]) * math.sqrt(30), honest[:, 2] - honest[:, 0])


def test_registry() -> None:
    names = [m.name for m in builtin_methods()]
    assert names == [
        "mcnemar",
        "paired-t",
        "independent-runs",
        "paired-bootstrap",
        "unpaired-bootstrap",
        "run-bootstrap",
        "run-bootstrap-sqrt-b",
    ]
    categories = {m.name: m.category for m in builtin_methods()}
    assert {n for n, c in categories.items() if c == "anti-pattern"} == {
        "unpaired-bootstrap",
        "run-bootstrap",
        "run-bootstrap-sqrt-b",
    }
    assert all(m.definition for m in builtin_methods())
    with pytest.raises(DataError, match="unknown audit method 'nope'"):
        get_method("nope")
    with pytest.raises(DataError, match="built-in"):
        register_method("paired-t", lambda data, rng: (0.0, 0.0, 0.0))
    with pytest.raises(DataError, match="exactly one"):
        AuditMethod(name="x", label="x", category="custom", definition="")
    with pytest.raises(TypeError):
        available_methods()["x"] = builtin_methods()[0]  # type: ignore[index]


def _user_paired_t(data: MethodInput, rng: np.random.Generator) -> tuple[float, float, float]:
    """Paired t on run means, written plainly."""
    d = data.candidate.mean(axis=0) - data.baseline.mean(axis=0)
    se = d.std(ddof=1) / math.sqrt(d.size)
    return d.mean(), d.mean() - data.settings.z * se, d.mean() + data.settings.z * se


def _user_fresh_runs(data: MethodInput, rng: np.random.Generator) -> tuple[float, float, float]:
    """Two fresh runs drawn from the true probabilities; NaN when they agree everywhere."""
    x = rng.random(data.p_baseline.size) < data.p_baseline
    y = rng.random(data.p_candidate.size) < data.p_candidate
    if np.array_equal(x, y):
        return math.nan, math.nan, math.nan
    return float(y.mean() - x.mean()), -1.0, 1.0


def test_user_methods_see_the_same_benchmarks() -> None:
    design = MixtureDesign(n_items=800, n_runs=3)
    register_method("user-paired-t", _user_paired_t, category="honest")
    try:
        result = audit(
            design,
            methods=["paired-t", "user-paired-t", _user_fresh_runs],
            n_simulations=30,
            rng=5,
        )
    finally:
        unregister_method("user-paired-t")
    built_in, user = result.method("paired-t"), result.method("user-paired-t")
    assert np.allclose(built_in.intervals, user.intervals, rtol=0, atol=1e-14)
    assert built_in.power_hits == user.power_hits
    assert user.definition == "Paired t on run means, written plainly."
    assert result.method("_user_fresh_runs").category == "custom"
    with pytest.raises(DataError, match="no method"):
        unregister_method("user-paired-t")


def test_user_method_output_is_checked() -> None:
    with pytest.raises(DataError, match="returns \\(estimate, low, high\\)"):
        audit(
            MixtureDesign(n_items=200, n_runs=2),
            methods=[lambda data, rng: 0.5],
            n_simulations=1,
            rng=0,
        )
    with pytest.raises(DataError, match="low > high"):
        audit(
            MixtureDesign(n_items=200, n_runs=2),
            methods=[lambda data, rng: (0.0, 1.0, -1.0)],
            n_simulations=1,
            rng=0,
        )


def test_nan_intervals_are_counted_not_dropped() -> None:
    def undecided(data: MethodInput, rng: np.random.Generator) -> tuple[float, float, float]:
        return math.nan, math.nan, math.nan

    result = audit(
        MixtureDesign(n_items=200, n_runs=2), methods=[undecided], n_simulations=3, rng=0
    )
    row = result.method("undecided")
    assert row.power_hits == 0
    assert row.n_simulations == 3
    assert any("3 fine-tune comparisons gave no finite interval" in n for n in row.notes)
    data = result.to_dict()
    assert data["methods"][0]["median_half_width"] is None
    assert data["nulls"]["methods[0].median_half_width"] == "no interval"


def test_settings_validation() -> None:
    assert MethodSettings().z == pytest.approx(Z, abs=1e-12)
    with pytest.raises(DataError, match="confidence_level"):
        MethodSettings(confidence_level=1.0)
    with pytest.raises(DataError, match="n_resamples"):
        MethodSettings(n_resamples=1)
