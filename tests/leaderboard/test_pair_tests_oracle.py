"""pair_tests and align_models against their plain, unmasked forms, bit for bit.

pair_tests computes McNemar's continuity-corrected z only for pairs below 25 discordant
items, the uncorrected z-form only above, and the sd only for the paired t-test;
align_models makes no copy when it keeps every item. The references here compute every
formula on every pair and take the columns by indexing, as the code did before; the
results must have the same bits.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.data.models import ModelScores, align_models
from evalsig.data.provenance import without_time
from evalsig.inference.allpairs import CORRECTED_BELOW, pair_statistics, pair_sums, pair_tests
from evalsig.leaderboard import leaderboard


def _near_copies(seed: int, m: int = 40, n: int = 300, missing: float = 0.0) -> np.ndarray:
    """0/1 scores of models that flip 0-59 items of one answer sheet: pairs with 0 to
    ~100 discordant items, so some take the corrected z and some the uncorrected one;
    models 0 and 1 are identical."""
    rng = np.random.default_rng(seed)
    x = np.tile((rng.random(n) < 0.6).astype(float), (m, 1))
    for k in range(m):
        flip = rng.choice(n, size=int(rng.integers(0, 60)), replace=False)
        x[k, flip] = 1 - x[k, flip]
    x[1] = x[0]  # a pair with no discordant item
    x[rng.random((m, n)) < missing] = np.nan
    return x


def _reference(sums: np.ndarray, b: np.ndarray, c: np.ndarray, binary: bool) -> dict:
    """Every test on every pair, then chosen with np.where (the unmasked form)."""
    s = pair_statistics(sums.sum(axis=0), b, c)
    n, mean = s["n"], s["mean"]
    with np.errstate(invalid="ignore", divide="ignore"):
        if binary:
            n01, n10 = s["n01"], s["n10"]
            disc = n01 + n10
            se = np.sqrt(np.maximum(disc / n - ((n01 - n10) / n) ** 2, 0.0) / n)  # as mcnemar
            asymptotic = 2 * stats.norm.sf(np.abs(n01 - n10) / np.sqrt(disc))
            z_cc = np.maximum(np.abs(n01 - n10) - 0.5, 0.0) / np.sqrt(disc)
            corrected = np.minimum(1.0, 2 * stats.norm.sf(z_cc))
            small = disc < CORRECTED_BELOW
            p = np.where(disc == 0, 1.0, np.where(small, corrected, asymptotic))
            df = np.full(np.shape(p), np.inf)
        else:
            se = s["sd"] / np.sqrt(n)
            df = n - 1
            p = 2 * stats.t.sf(np.abs(mean / se), df)
            p = np.where(se > 0, p, np.where(np.abs(mean) > 0, 0.0, 1.0))
    return {"n": n, "estimate": mean, "se": se, "df": df, "pvalue": p, "n01": s["n01"]}


@pytest.mark.parametrize("missing", [0.0, 0.05])
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_pair_tests_have_the_bits_of_the_unmasked_tests(
    seed: int, binary: bool, missing: float
) -> None:
    x = _near_copies(seed, missing=missing)
    if not binary:
        x = x + np.random.default_rng(seed).normal(0.0, 0.1, x.shape)
    sums = pair_sums(x)
    b, c = np.triu_indices(x.shape[0], 1)
    got = pair_tests(sums, b, c, binary=binary, clustered=False)
    want = _reference(sums, b, c, binary)
    if binary:  # both branches and the no-discordance case are exercised
        disc = got.n01 + got.n10
        assert (disc == 0).any()
        assert (disc < CORRECTED_BELOW).any()
        assert (disc >= 2 * CORRECTED_BELOW).any()
    for field, value in want.items():
        assert np.asarray(getattr(got, field)).tobytes() == np.asarray(value).tobytes(), field


def _unaligned(x: np.ndarray) -> ModelScores:
    m = x.shape[0]
    return ModelScores(
        names=tuple(f"m{k}" for k in range(m)),
        item_ids=np.arange(x.shape[1]).astype(str),
        scores=x,
        binary=True,
        n_runs=(1,) * m,
    )


def test_keeping_every_item_shares_the_matrix_read_only() -> None:
    x = _near_copies(0)
    raw = _unaligned(x)
    aligned = align_models(raw)
    assert np.shares_memory(aligned.scores, x)
    assert aligned.scores.tobytes() == x.tobytes()
    assert aligned.item_ids.tolist() == raw.item_ids.tolist()
    assert aligned.n_input.tolist() == [x.shape[1]] * x.shape[0]
    with pytest.raises(ValueError, match="read-only"):
        aligned.scores[0, 0] = 0.5
    with pytest.raises(ValueError, match="read-only"):
        aligned.item_ids[0] = "other"
    assert x.flags.writeable  # the input stays the caller's
    assert raw.item_ids.flags.writeable
    assert align_models(aligned) is aligned


def test_dropping_items_takes_the_kept_columns() -> None:
    x = _near_copies(1, missing=0.002)
    kept = ~np.isnan(x).any(axis=0)
    assert 0 < (~kept).sum() < x.shape[1] - 2
    aligned = align_models(_unaligned(x), on_missing="intersect")
    assert aligned.scores.tobytes() == x[:, kept].tobytes()
    assert not np.shares_memory(aligned.scores, x)
    assert aligned.n_input.tolist() == (~np.isnan(x)).sum(axis=1).tolist()


@pytest.mark.parametrize("seed", range(2))
def test_aligned_and_unaligned_input_give_the_same_board(seed: int) -> None:
    raw = _unaligned(_near_copies(seed, m=12))
    from_raw, from_aligned = leaderboard(raw), leaderboard(align_models(raw))
    assert without_time(from_raw.to_dict()) == without_time(from_aligned.to_dict())
