"""All-pairs sufficient statistics against a plain loop over pairs and items."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalsig.inference.allpairs import pair_statistics, pair_sums


@settings(max_examples=40)
@given(
    m=st.integers(2, 6),
    n=st.integers(3, 40),
    binary=st.booleans(),
    missing=st.floats(0.0, 0.3),
    clusters=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_pair_statistics_match_a_plain_loop(
    m: int, n: int, binary: bool, missing: float, clusters: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, (m, n)).astype(float) if binary else rng.random((m, n))
    x[rng.random((m, n)) < missing] = np.nan
    codes = rng.integers(0, clusters, n) if clusters > 1 else None
    if codes is not None:
        codes = np.unique(codes, return_inverse=True)[1]
    sums = pair_sums(x, codes)
    b, c = np.triu_indices(m, 1)
    got = pair_statistics(sums.sum(axis=0), b, c)
    for k, (i, j) in enumerate(zip(b, c, strict=True)):
        both = ~np.isnan(x[i]) & ~np.isnan(x[j])
        d = x[j, both] - x[i, both]
        assert got["n"][k] == both.sum()
        if both.sum() == 0:
            continue
        assert np.isclose(got["mean"][k], d.mean(), atol=1e-12)
        if both.sum() > 1:
            assert np.isclose(got["sd"][k], d.std(ddof=1), atol=1e-9)
        if binary:
            assert got["n01"][k] == np.sum(d > 0)
            assert got["n10"][k] == np.sum(d < 0)
    # per-cluster sums add up to the whole
    assert np.allclose(sums.sum(axis=0), pair_sums(x, None)[0])
