"""The resampling engine draws from exactly the distribution of the naive B x n resample."""

from __future__ import annotations

import itertools
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from evalsig.inference import resampling
from evalsig.inference.resampling import (
    Atoms,
    atoms,
    bootstrap_totals,
    flip_totals,
    flip_totals_exact,
    jackknife_totals,
)

SMALL = np.array([1.0, 0.0, 0.0, -1.0, 1.0])  # paired binary differences, 3 atoms


def _exact_bootstrap_pmf(x: np.ndarray) -> dict[float, float]:
    """Distribution of the resampled total by enumerating all n^n index tuples."""
    n = len(x)
    counts = Counter(float(x[list(idx)].sum()) for idx in itertools.product(range(n), repeat=n))
    return {k: v / n**n for k, v in counts.items()}


def _gof_pvalue(draws: np.ndarray, pmf: dict[float, float]) -> float:
    keys = sorted(pmf)
    observed = np.array([np.count_nonzero(np.isclose(draws, k)) for k in keys])
    assert observed.sum() == len(draws)  # no draw outside the exact support
    expected = np.array([pmf[k] for k in keys]) * len(draws)
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("gain", [0, 10**9], ids=["multinomial-atoms", "item-indices"])
def test_bootstrap_matches_exact_enumeration(monkeypatch: pytest.MonkeyPatch, gain: int) -> None:
    # gain 0 forces the compressed path, a huge gain forces per-item index draws
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", gain)
    draws = bootstrap_totals(SMALL, 100_000, np.random.default_rng(1))
    p = _gof_pvalue(draws, _exact_bootstrap_pmf(SMALL))
    assert p > 1e-3, p  # seeded: a fixed number, plausible under the exact distribution


def test_sign_flips_match_exact_enumeration() -> None:
    x = np.array([2.0, -1.0, 2.0, 0.5, 0.0, 3.0])
    brute = Counter(
        float(sum(v for v, f in zip(x, flips, strict=True) if f))
        for flips in itertools.product([0, 1], repeat=len(x))
    )
    pmf = {k: v / 2 ** len(x) for k, v in brute.items()}
    totals, probs = flip_totals_exact(atoms(x))  # type: ignore[misc]
    exact: dict[float, float] = {}
    for t, p in zip(totals, probs, strict=True):
        exact[round(float(t), 12)] = exact.get(round(float(t), 12), 0.0) + float(p)
    assert exact == pytest.approx({round(k, 12): v for k, v in pmf.items()}, abs=1e-15)
    drawn = flip_totals(x, 100_000, np.random.default_rng(2), compressed=atoms(x))
    assert _gof_pvalue(drawn, pmf) > 1e-3


def test_exact_flips_refuse_large_support() -> None:
    assert flip_totals_exact(atoms(np.arange(30.0)), limit=2**20) is None


def test_bootstrap_oracle_same_index_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain loop over the same index draws gives the same totals."""
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 10**9)
    x = np.random.default_rng(3).normal(size=(40, 2))
    ours = bootstrap_totals(x, 50, np.random.default_rng(4))
    idx = np.random.default_rng(4).integers(0, 40, size=(50, 40), dtype=np.int32)
    loop = np.array([[sum(x[i, c] for i in row) for c in range(2)] for row in idx])
    np.testing.assert_allclose(ours, loop, rtol=1e-12)


def test_bootstrap_oracle_same_atom_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Expanding the same multinomial atom counts into explicit resamples gives the same totals."""
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 0)
    x = np.array([0.0, 0.125, 0.125, 1.0, -0.5, 0.0, 0.125])
    a = atoms(x)
    ours = bootstrap_totals(x, 30, np.random.default_rng(5), compressed=a)
    weights = np.random.default_rng(5).multinomial(len(x), a.counts / len(x), size=30)
    loop = [sum(np.repeat(a.values, w).tolist()) for w in weights]
    np.testing.assert_allclose(ours, loop, rtol=1e-12)


def test_paths_agree_in_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compressed and naive draws of a 1,000-item binary comparison: same law."""
    rng = np.random.default_rng(6)
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.07, 0.85, 0.08], size=1000)
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 0)
    compressed = bootstrap_totals(d, 20_000, np.random.default_rng(7))
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 10**9)
    naive = bootstrap_totals(d, 20_000, np.random.default_rng(8))
    assert stats.ks_2samp(compressed, naive).pvalue > 1e-3
    # the exact mean and variance of a bootstrap total: n * mean, n * population variance
    for draws in (compressed, naive):
        assert draws.mean() == pytest.approx(d.sum(), abs=4 * np.sqrt(1000 * d.var() / 20_000))
        assert draws.var() == pytest.approx(1000 * d.var(), rel=0.05)


def test_jackknife_totals_match_leave_one_out_loop() -> None:
    x = np.array([0.0, 1.0, 1.0, 0.5, 1.0])
    loo, weights = jackknife_totals(atoms(x))
    expected = Counter(float(x.sum() - v) for v in x)
    got = {float(t): int(w) for t, w in zip(loo, weights, strict=True)}
    assert got == dict(expected)


def test_atoms_are_exact() -> None:
    x = np.array([0.1, np.nextafter(0.1, 1.0), 0.2, 0.1])  # two values one ulp apart
    a = atoms(x)
    assert isinstance(a, Atoms)
    assert len(a.values) == 3  # nothing merged by rounding
    np.testing.assert_array_equal(np.sort(a.expand()), np.sort(x))


def test_continuous_bootstrap_memory_is_bounded() -> None:
    """100,000 continuous items x 2,000 resamples never build the 1.6 GB B x n matrix."""
    d = np.random.default_rng(9).normal(size=100_000)
    tracemalloc.start()
    bootstrap_totals(d, 2_000, np.random.default_rng(10))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * resampling.CHUNK_BYTES, peak
