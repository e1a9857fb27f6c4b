"""Error-free products: every slice product is exact, so no BLAS, thread count or item
order changes a bit of the pairwise sums (the guarantee behind a Dask run matching a
local one)."""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalsig.errors import DataError
from evalsig.inference import allpairs
from evalsig.inference._exact import gram, row_sums, split, times_counts


def _matrix(seed: int, rows: int, cols: int) -> np.ndarray:
    """Signed values over 60 binades, and some zeros: a hard case for rounding."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 1, (rows, cols)) * np.exp2(rng.integers(-30, 30, (rows, cols)))
    x *= rng.choice([-1.0, 1.0], (rows, cols))
    x[rng.random((rows, cols)) < 0.1] = 0.0
    return x


def _exact_dot(a: np.ndarray, b: np.ndarray) -> float:
    """The correctly rounded sum of products, by exact (rational) arithmetic."""
    from fractions import Fraction

    return float(
        sum(
            (Fraction(float(u)) * Fraction(float(v)) for u, v in zip(a, b, strict=True)),
            Fraction(0),
        )
    )


shapes = st.tuples(
    st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 5), st.integers(1, 300)
)


@settings(max_examples=40)
@given(shapes)
def test_every_slice_product_is_exact(case: tuple[int, int, int, int]) -> None:
    seed, m, n, k = case
    a, b = _matrix(seed, m, k), _matrix(seed + 1, n, k)
    width = (53 - (k - 1).bit_length()) // 2
    for part_a in split(a, width):
        for part_b in split(b, width):
            product = part_a @ part_b.T
            for i in range(m):
                for j in range(n):
                    # math.fsum is exact for exactly representable products and sums
                    assert product[i, j] == math.fsum(part_a[i] * part_b[j])
                    assert product[i, j] == _exact_dot(part_a[i], part_b[j])


@settings(max_examples=40)
@given(shapes)
def test_slices_add_up_to_the_matrix(case: tuple[int, int, int, int]) -> None:
    from fractions import Fraction

    seed, m, _, k = case
    x = _matrix(seed, m, k)
    top = np.max(np.abs(x), axis=1)
    for width in (12, 18, 26, 40):
        parts = split(x, width)
        assert len(parts) == math.ceil(54 / width)
        rest = x.copy()
        for part in parts:  # at most `width` bits on the grid of what is left of the row
            _, e = np.frexp(np.max(np.abs(rest), axis=1, keepdims=True))
            units = part / np.exp2((e - width).astype(float))
            assert np.array_equal(units, np.rint(units))
            assert np.all(np.abs(units) <= 2.0**width)
            rest = rest - part
        for i in range(m):  # exactly: x = sum of slices + a remainder below 2^-54 max|x|
            for j in range(k):
                remainder = Fraction(float(x[i, j])) - sum(Fraction(float(p[i, j])) for p in parts)
                assert abs(remainder) <= Fraction(float(top[i])) * Fraction(1, 2**54)


@settings(max_examples=40)
@given(shapes)
def test_products_do_not_depend_on_the_item_order(case: tuple[int, int, int, int]) -> None:
    seed, m, n, k = case
    a, b = _matrix(seed, m, k), _matrix(seed + 7, n, k)
    order = np.random.default_rng(seed).permutation(k)
    assert np.array_equal(gram(a, b), gram(a[:, order], b[:, order]))
    assert np.array_equal(gram(a, a, same=True), gram(a[:, order], a[:, order], same=True))
    assert np.array_equal(row_sums(a), row_sums(a[:, order]))
    counts = np.random.default_rng(seed).multinomial(k, np.full(k, 1 / k), size=3).T
    assert np.array_equal(times_counts(a, counts, k), times_counts(a[:, order], counts[order], k))
    # and accurate: within a few units of 2^-53 k max|a_i| max|b_j| of the exact product
    exact = np.array([[_exact_dot(a[i], b[j]) for j in range(n)] for i in range(m)])
    tops = np.max(np.abs(a), axis=1)[:, None] * np.max(np.abs(b), axis=1)[None, :]
    scale = np.abs(a) @ np.abs(b).T
    assert np.all(np.abs(gram(a, b) - exact) <= 2.0**-50 * (k * tops + scale))


def test_pair_sums_are_exact_for_integer_scores_and_close_for_others() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, (6, 700))
    x[2, :40] = np.nan
    sums = allpairs.pair_sums(x, None, item_block=100, model_block=4)
    z = np.nan_to_num(x)
    p = (~np.isnan(x)).astype(float)
    # the plain products, n exactly
    assert np.array_equal(sums[0, 0], p @ p.T)
    np.testing.assert_allclose(sums[0, 1], z @ p.T, rtol=1e-13)
    np.testing.assert_allclose(sums[0, 2], z @ z.T, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(sums[0, 3], (z * z) @ p.T, rtol=1e-13)


def test_blocking_must_be_sensible() -> None:
    x = np.zeros((2, 3))
    with pytest.raises(
        DataError, match="`item_block` must be an integer of at least 1 and at most"
    ):
        allpairs.pair_sums(x, None, item_block=0)
    with pytest.raises(DataError, match="`model_block` must be an integer of at least 1"):
        allpairs.pair_sums(x, None, model_block=1.5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="scores reach 1e\\+200 in magnitude"):
        allpairs.pair_sums(np.array([[1e200, 0.0], [1.0, 0.0]]), None)


_SCRIPT = """
import hashlib, sys
import numpy as np
from evalsig.inference import allpairs
from evalsig.leaderboard import leaderboard
from evalsig.data.models import ModelScores
rng = np.random.default_rng(0)
x = rng.random((50, 5000))
x[3, rng.choice(5000, 300, replace=False)] = np.nan
digest = hashlib.sha256(allpairs.pair_sums(x, None).tobytes())
y = x[:, ~np.isnan(x).any(axis=0)]
names = tuple(f"m{k}" for k in range(50))
ids = np.arange(y.shape[1]).astype(str)
scores = ModelScores(names=names, item_ids=ids, scores=y, binary=False, n_runs=(1,) * 50)
board = leaderboard(scores, n_resamples=200, rng=1)
for part in (board.difference, board.pvalue, board.bootstrap_low, board.bootstrap_high):
    digest.update(np.ascontiguousarray(part).tobytes())
print(digest.hexdigest())
"""


def test_results_do_not_depend_on_the_number_of_blas_threads() -> None:
    """OpenBLAS adds in another order with one thread (a Dask worker) than with several
    (the main process); plain products of this shape differ in their last bits between
    the two. The leaderboard's sums and bootstrap must not."""
    root = Path(__file__).resolve().parents[2]
    digests = set()
    for threads in ("1", "2", "3"):
        env = {
            **os.environ,
            "OPENBLAS_NUM_THREADS": threads,
            "OMP_NUM_THREADS": threads,
            "MKL_NUM_THREADS": threads,
            "PYTHONPATH": str(root / "src"),
        }
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        digests.add(done.stdout.strip())
    assert len(digests) == 1
    (digest,) = digests
    assert len(digest) == len(hashlib.sha256().hexdigest())
