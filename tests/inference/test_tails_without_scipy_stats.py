"""Tails without scipy.stats (0.4 s to import): the numbers scipy.stats gives, bit for bit.

Oracle: ``scipy.stats`` itself. Binomial: every k of small n (the support's edges and one
step outside included) and a spread of k for large n, at p = 0.5 (McNemar's exact test,
the sign test) and at other p. Normal quantiles of the power calculations: a fine grid.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.inference import _binomial
from evalsig.inference._binomial import binomial_cdf, binomial_pmf, binomial_sf
from evalsig.power._common import z_alpha, z_power


def _grid() -> list[tuple[int, int]]:
    small = [(k, n) for n in range(41) for k in range(-2, n + 3)]
    large = [
        (k, n)
        for n in (99, 1000, 12_345, 10**6)
        for k in {0, 1, n // 3, n // 2 - 1, n // 2, n // 2 + 1, n - 1, n, n + 1}
    ]
    return small + large


def _bits(values: list[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("p", [0.5, 0.03, 0.7])
def test_same_bits_as_scipy_stats(p: float) -> None:
    k, n = map(np.array, zip(*_grid(), strict=True))
    for ours, theirs in (
        (binomial_cdf, stats.binom.cdf),
        (binomial_sf, stats.binom.sf),
        (binomial_pmf, stats.binom.pmf),
    ):
        got = [ours(int(a), int(b), p) for a, b in zip(k, n, strict=True)]
        np.testing.assert_array_equal(_bits(got), _bits(theirs(k, n, p)), err_msg=ours.__name__)


def test_edges_of_the_support() -> None:
    assert (binomial_cdf(-1, 5, 0.5), binomial_cdf(5, 5, 0.5), binomial_cdf(9, 5, 0.5)) == (
        0.0,
        1.0,
        1.0,
    )
    assert (binomial_sf(-1, 5, 0.5), binomial_sf(5, 5, 0.5)) == (1.0, 0.0)
    assert (binomial_pmf(-1, 5, 0.5), binomial_pmf(6, 5, 0.5)) == (0.0, 0.0)
    assert binomial_pmf(0, 5, 0.5) == pytest.approx(1 / 32, rel=1e-14)
    # P(X <= 5) for n = 17: 9402 / 2**17 (sum of C(17, i), i <= 5), to the last bit here
    assert binomial_cdf(5, 17, 0.5) == pytest.approx(9402 / 2**17, rel=1e-15)


def test_without_the_special_ufuncs_it_asks_scipy_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scipy that keeps Boost's binomial elsewhere (before 1.15): scipy.stats answers."""
    monkeypatch.setitem(_binomial.UFUNCS, "cdf", "_no_such_ufunc")
    _binomial._boost.cache_clear()
    try:
        assert _binomial._boost()["cdf"] == stats.binom.cdf
        assert binomial_cdf(7, 20, 0.5) == float(stats.binom.cdf(7, 20, 0.5))
    finally:
        monkeypatch.undo()
        _binomial._boost.cache_clear()
    assert _binomial._boost()["cdf"].__name__ == "_binom_cdf"


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_normal_quantiles_of_the_power_calculations(alternative: str) -> None:
    alphas = np.concatenate([np.linspace(1e-6, 0.4999, 2001), [0.05, 0.01, 0.25, 0.5, 1e-300]])
    tails = alphas / 2 if alternative == "two-sided" else alphas
    ours = [z_alpha(float(a), alternative) for a in alphas]  # type: ignore[arg-type]
    np.testing.assert_array_equal(_bits(ours), _bits(stats.norm.isf(tails)))
    powers = np.concatenate([np.linspace(1e-9, 1 - 1e-9, 2001), [0.5, 0.8, 0.9]])
    ours = [z_power(float(p)) for p in powers]
    np.testing.assert_array_equal(_bits(ours), _bits(stats.norm.ppf(powers)))
