"""Properties every paired method must have: symmetry, invariance, interval sanity, duality."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evalsig import compare

DETERMINISTIC = [
    ("mcnemar", "exact"),
    ("mcnemar", "asymptotic"),
    ("mcnemar", "corrected"),
    ("mcnemar", "mid-p"),
    ("paired-t", None),
    ("wilcoxon", None),
    ("permutation", "exact"),
]

binary_pairs = st.integers(4, 14).flatmap(
    lambda n: st.tuples(
        arrays(np.int8, n, elements=st.integers(0, 1)),
        arrays(np.int8, n, elements=st.integers(0, 1)),
    )
)


def _continuous(max_items: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    return st.integers(3, max_items).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, n, elements=st.floats(0, 1, allow_subnormal=False)),
            arrays(np.float64, n, elements=st.floats(0, 1, allow_subnormal=False)),
        )
    )


continuous_pairs = _continuous(40)
small_continuous_pairs = _continuous(16)  # exact permutation enumerates 2^n sign patterns


def _same(a: float, b: float) -> bool:
    return bool(np.isclose(a, b, rtol=1e-9, atol=1e-12) or (np.isnan(a) and np.isnan(b)))


@pytest.mark.parametrize(("method", "variant"), DETERMINISTIC)
@given(data=binary_pairs)
def test_swapping_models_flips_the_sign_and_keeps_p(
    method: str, variant: str | None, data: tuple[np.ndarray, np.ndarray]
) -> None:
    x, y = data
    ab = compare(x, y, method=method, variant=variant)  # type: ignore[arg-type]
    ba = compare(y, x, method=method, variant=variant)  # type: ignore[arg-type]
    assert _same(ab.estimate, -ba.estimate)
    assert _same(ab.pvalue, ba.pvalue)
    assert _same(ab.ci.low, -ba.ci.high)
    assert _same(ab.ci.high, -ba.ci.low)


@pytest.mark.parametrize(("method", "variant"), [*DETERMINISTIC[4:], ("bootstrap", "percentile")])
@given(data=continuous_pairs, small=small_continuous_pairs, seed=st.integers(0, 2**32 - 1))
def test_reordering_items_jointly_changes_nothing(
    method: str,
    variant: str | None,
    data: tuple[np.ndarray, np.ndarray],
    small: tuple[np.ndarray, np.ndarray],
    seed: int,
) -> None:
    x, y = small if method == "permutation" else data
    order = np.random.default_rng(seed).permutation(len(x))
    kw = {"method": method, "variant": variant, "rng": 0, "n_resamples": 200}
    if method == "bootstrap":
        # resampling distinct values is order-free; continuous values are all distinct,
        # so use a lattice of values where the engine compresses
        x, y = np.round(x * 2) / 2, np.round(y * 2) / 2
        x, y = np.tile(x, 8), np.tile(y, 8)
        order = np.random.default_rng(seed).permutation(len(x))
    a = compare(x, y, **kw)  # type: ignore[arg-type]
    b = compare(x[order], y[order], **kw)  # type: ignore[arg-type]
    assert _same(a.estimate, b.estimate)
    assert _same(a.pvalue, b.pvalue)
    assert _same(a.ci.low, b.ci.low)
    assert _same(a.ci.high, b.ci.high)


@pytest.mark.parametrize(
    ("method", "variant"),
    [*DETERMINISTIC, ("bootstrap", "bca"), ("bootstrap", "basic"), ("permutation", "monte-carlo")],
)
@given(data=continuous_pairs, small=small_continuous_pairs)
def test_interval_contains_the_estimate(
    method: str,
    variant: str | None,
    data: tuple[np.ndarray, np.ndarray],
    small: tuple[np.ndarray, np.ndarray],
) -> None:
    x, y = small if variant == "exact" else data
    if method == "mcnemar":
        x, y = (x > 0.5).astype(int), (y > 0.5).astype(int)
    r = compare(x, y, method=method, variant=variant, rng=1, n_resamples=500)  # type: ignore[arg-type]
    assert r.ci.low <= r.estimate + 1e-12
    assert r.estimate <= r.ci.high + 1e-12


@given(data=continuous_pairs, alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_pvalue_and_interval_agree_for_t_based_methods(
    data: tuple[np.ndarray, np.ndarray], alpha: float
) -> None:
    x, y = data
    for alternative in ("two-sided", "greater", "less"):
        r = compare(
            x,
            y,
            method="paired-t",
            alternative=alternative,  # type: ignore[arg-type]
            confidence_level=1 - alpha,
        )
        if np.isnan(r.pvalue) or r.se == 0:
            continue
        if abs(r.pvalue - alpha) < 1e-9:
            continue  # on the boundary either answer is right
        assert (r.pvalue < alpha) == (not r.ci.contains(0.0))
