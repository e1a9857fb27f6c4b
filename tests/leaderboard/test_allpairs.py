"""All-pairs sufficient statistics against a plain loop over pairs and items, and the single
float32 product of complete 0/1 scores against the tiles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalsig.data.models import ModelScores, align_models
from evalsig.data.provenance import without_time
from evalsig.distributed import Executor, local
from evalsig.inference._pair_sums import zero_one_sums
from evalsig.inference.allpairs import ITEM_BLOCK, pair_statistics, pair_sums
from evalsig.leaderboard import leaderboard


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


@settings(max_examples=40)
@given(
    m=st.integers(1, 7),
    n=st.integers(2, 50),
    order=st.sampled_from(["C", "F"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_zero_one_sums_match_the_tiles_and_a_plain_loop(
    m: int, n: int, order: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = np.asarray(rng.integers(0, 2, (m, n)).astype(float), order=order)
    x[rng.random((m, n)) < 0.1] = -0.0  # a zero all the same
    got = zero_one_sums(x)
    assert got is not None
    assert np.array_equal(got, pair_sums(x, None, item_block=7, model_block=2))
    assert np.array_equal(local().pair_sums(x, None), got)
    for a in range(m):
        for b in range(m):
            assert got[0, 0, a, b] == n
            assert got[0, 1, a, b] == sum(x[a, i] for i in range(n))
            assert got[0, 2, a, b] == sum(x[a, i] * x[b, i] for i in range(n))
            assert got[0, 3, a, b] == sum(x[a, i] ** 2 for i in range(n))


def test_zero_one_sums_over_many_items_and_steps() -> None:
    """More items than one default item block, more rows than one checking step."""
    rng = np.random.default_rng(3)
    x = (rng.random((9, ITEM_BLOCK + 4000)) < 0.3).astype(float)
    got = zero_one_sums(x)
    assert got is not None
    counts = x.astype(np.int64) @ x.T.astype(np.int64)
    assert np.array_equal(got[0, 2], counts)
    assert np.array_equal(got, pair_sums(x, None))
    assert np.array_equal(zero_one_sums(np.asfortranarray(x)), got)


def test_other_scores_take_the_tiles() -> None:
    rng = np.random.default_rng(5)
    base = (rng.random((9, 70_000)) < 0.5).astype(float)
    for value in (np.nan, 0.5, 1 + 2.0**-30, 2.0, -1.0):  # 1 + 2^-30 is 1.0 in float32
        x = base.copy()
        x[-1, -1] = value
        assert zero_one_sums(x) is None
        assert np.array_equal(local().pair_sums(x, None), pair_sums(x, None), equal_nan=True)
    assert zero_one_sums(base.astype(np.float32)) is None
    assert zero_one_sums(np.broadcast_to(0.0, (2, 1 << 24))) is None  # float32 counts end


class _Tiled(Executor):
    """The tiled sums, never the single product."""

    single_product = False


@pytest.mark.parametrize("order", ["C", "F"])
def test_the_single_product_ranks_as_the_tiles(order: str) -> None:
    rng = np.random.default_rng(8)
    x = (rng.random((40, 3000)) < np.linspace(0.45, 0.55, 40)[:, None]).astype(float)
    x[7] = x[6]  # a pair with no discordant item
    x[9, :20] = 1 - x[8, :20]
    x[9, 20:] = x[8, 20:]  # one with an exact McNemar test
    x = np.asarray(x, order=order)
    scores = ModelScores(
        names=tuple(f"m{k}" for k in range(40)),
        item_ids=np.arange(3000).astype(str),
        scores=x,
        binary=True,
        n_runs=(1,) * 40,
        n_input=None if order == "F" else np.full(40, 3000),  # aligned: kept as it is
    )
    scores = align_models(scores)  # keeping every item keeps the layout (a view)
    assert scores.scores.flags[f"{order}_CONTIGUOUS"]
    fast, tiled = leaderboard(scores), leaderboard(scores, executor=_Tiled())
    assert without_time(fast.to_dict()) == without_time(tiled.to_dict())
    for name in ("means", "n_items", "difference", "pvalue", "p_adjusted", "adjacent_q"):
        a, b = getattr(fast, name), getattr(tiled, name)
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b, equal_nan=True), name
