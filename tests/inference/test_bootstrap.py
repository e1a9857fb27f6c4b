"""Paired bootstrap: agreement with scipy, oracles, p-value inversion, custom statistics."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference import bootstrap, resampling


def _data(seed: int, n: int = 300, shift: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    return x, np.clip(x + rng.normal(shift, 0.15, n), 0, 1)


@pytest.mark.parametrize("kind", ["percentile", "basic", "bca"])
def test_interval_agrees_with_scipy(kind: str) -> None:
    x, y = _data(1)
    ours = bootstrap(x, y, method=kind, n_resamples=40_000, rng=2)  # type: ignore[arg-type]
    theirs = stats.bootstrap(
        (x, y),
        lambda a, b, axis: np.mean(b - a, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=40_000,
        method=kind,
        rng=np.random.default_rng(3),
    )
    # different random draws: agree within a fraction of the bootstrap standard error
    tol = 0.08 * theirs.standard_error
    assert ours.ci.low == pytest.approx(theirs.confidence_interval.low, abs=tol)
    assert ours.ci.high == pytest.approx(theirs.confidence_interval.high, abs=tol)
    assert ours.se == pytest.approx(theirs.standard_error, rel=0.03)


def test_acceleration_matches_jackknife_loop() -> None:
    x, y = _data(4, n=60)
    d = y - x
    r = bootstrap(x, y, n_resamples=1000, rng=5)
    loo = np.array([np.delete(d, i).mean() for i in range(len(d))])
    u = loo.mean() - loo
    expected_a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    from evalsig.inference._bootstrap import BootstrapDistribution, _acceleration
    from evalsig.inference.resampling import atoms, jackknife_totals

    totals, weights = jackknife_totals(atoms(d))
    assert _acceleration(totals / (len(d) - 1), weights) == pytest.approx(expected_a, rel=1e-10)
    assert isinstance(r, object)
    assert BootstrapDistribution is not None


@pytest.mark.parametrize("kind", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pvalue_is_the_level_where_the_interval_touches_zero(kind: str, alternative: str) -> None:
    x, y = _data(6, n=400, shift=0.012 if alternative != "less" else -0.012)
    r = bootstrap(baseline=x, candidate=y, method=kind, alternative=alternative, rng=7)  # type: ignore[arg-type]
    assert 0.005 < r.pvalue < 0.6  # replicates are dense near 0 here
    ci = r.confidence_interval(1 - r.pvalue)
    bound = ci.high if alternative == "less" else ci.low
    # exact up to the Monte Carlo resolution: one order statistic of 10,000 replicates
    assert bound == pytest.approx(0.0, abs=0.01 * r.se)


def test_custom_statistic_oracle_same_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Macro-style ratio statistic: the engine equals a plain loop over the same indices."""
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 10**9)
    rng = np.random.default_rng(8)
    a = rng.integers(0, 5, size=(50, 2)).astype(float) + 1
    b = rng.integers(0, 5, size=(50, 2)).astype(float) + 1

    def stat(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
        return cand[..., 0] / cand[..., 1] - base[..., 0] / base[..., 1]

    r = bootstrap(a, b, statistic=stat, method="percentile", n_resamples=200, rng=9)
    idx = np.random.default_rng(9).integers(0, 50, size=(200, 50), dtype=np.int32)
    loop = np.array([float(stat(a[row].sum(0), b[row].sum(0))) for row in idx])
    assert r.se == pytest.approx(np.std(loop, ddof=1), rel=1e-10)
    assert r.ci.low == pytest.approx(np.quantile(loop, 0.025), rel=1e-10)
    assert r.estimate == pytest.approx(float(stat(a.sum(0), b.sum(0))))


def test_binary_compressed_bootstrap_matches_normal_theory() -> None:
    rng = np.random.default_rng(10)
    x = rng.integers(0, 2, 4000)
    y = np.where(rng.random(4000) < 0.12, 1 - x, x)
    r = bootstrap(x, y, rng=11)
    d = y - x
    assert r.se == pytest.approx(d.std() / np.sqrt(len(d)), rel=0.03)


def test_degenerate_bca_falls_back_to_percentile() -> None:
    r = bootstrap([0] * 50, [1] * 50, rng=0, n_resamples=500)
    assert r.method == "bootstrap-percentile"
    assert "BCa is undefined" in r.notes[1]
    assert (r.ci.low, r.ci.high) == (1.0, 1.0)


def test_bad_input() -> None:
    with pytest.raises(DataError, match="bootstrap `method` must be one of"):
        bootstrap([0, 1], [1, 1], method="studentized")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="statistic returned NaN or infinite values"):
        bootstrap(
            [[0.0, 1.0]] * 49 + [[1.0, 0.0]],  # column 0 sums to 0 without the last row
            [[1.0, 1.0]] * 50,
            statistic=lambda a, b: b[..., 0] / a[..., 0],
            n_resamples=200,
            rng=0,
        )
    with pytest.raises(DataError, match=r"must have shape \(n, k\)"):
        bootstrap([0, 1], [1, 1], statistic=lambda a, b: b - a)


@pytest.mark.parametrize("kind", ["percentile", "basic"])
def test_monte_carlo_pvalues_are_exact_fractions(kind: str) -> None:
    """24 of 999 replicates at or above zero: p = 2 * 25 / 1000 exactly, not 0.05 + 4e-17."""
    from evalsig.inference._bootstrap import BootstrapDistribution

    replicates = np.concatenate([np.full(24, 0.5), np.full(975, -0.5)])
    # percentile: P(theta* >= 0); basic: P(theta* >= 2 theta_hat), the same set at theta_hat = 0
    theta = -0.25 if kind == "percentile" else 0.0
    dist = BootstrapDistribution.build(theta, replicates, kind)  # type: ignore[arg-type]
    side = "less" if kind == "percentile" else "greater"
    assert dist.pvalue(side) == 25 / 1000  # type: ignore[arg-type]
    assert dist.pvalue("two-sided") == 0.05
