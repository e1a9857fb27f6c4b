"""compare() from large arrays: the single-pass, copy-free paths against plain references.

Each fast path (per-item sums read lazily or block by block, the validation by block
extremes, the discordant counts, the in-place standard deviation) is checked bit for bit
against the plain implementation it replaced, written out here; and a few compare()
results recorded with that implementation (evalsig at c3f51ab) must come out unchanged.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from evalsig import compare, load
from evalsig.comparison import _discordant, _mean_range, compare_paired
from evalsig.data.loading import load_pair
from evalsig.data.paired import PairedScores
from evalsig.data.table import (
    ScoreTable,
    _column_squares,
    _column_sums,
    _has_negative_zero,
    items_per_block,
)
from evalsig.data.validate import LARGEST, check_scores
from evalsig.errors import DataError, examples
from evalsig.inference._ttest import _sample_sd, paired_t_core

# -- the plain implementations (evalsig at c3f51ab) ----------------------------------------

OLD_BLOCK = 1 << 16


def plain_column_sums(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item sums and sums of squares, as ``_column_sums`` computed them before."""
    n = matrix.shape[1]
    sums, sumsq = np.empty(n), np.empty(n)
    for start in range(0, n, OLD_BLOCK):
        block = matrix[:, start : start + OLD_BLOCK].astype(np.float64)
        sums[start : start + OLD_BLOCK] = block.sum(axis=0)
        sumsq[start : start + OLD_BLOCK] = np.einsum("ij,ij->j", block, block)
    return sums, sumsq


def plain_check_scores(values: np.ndarray, label: Callable[[np.ndarray], list[str]]) -> bool:
    """``check_scores(values, what="x")`` as it was: isfinite, block extremes, 0/1 by equality."""
    if values.dtype.kind == "b":
        return True
    matrix = values if values.ndim == 2 else values.reshape(1, -1)
    binary = True
    for start in range(0, matrix.shape[1], OLD_BLOCK):
        block = matrix[:, start : start + OLD_BLOCK]
        if values.dtype.kind == "f":
            if not np.isfinite(block).all():
                bad = np.flatnonzero(~np.isfinite(values.reshape(-1)))
                if values.ndim == 2:
                    bad = np.unique(bad % values.shape[1])
                kinds = "NaN or infinite" if np.isinf(values).any() else "NaN"
                raise DataError(
                    f"x has {len(bad)} {kinds} value(s) ({examples(label(bad))}); drop or fill "
                    "them before comparing (evalsig never drops scores silently)."
                )
            if block.size and max(-float(block.min()), float(block.max())) > LARGEST:
                size = np.abs(block)
                largest = float(size.max())
                hit = np.flatnonzero(
                    (size == largest).any(axis=0) if block.ndim == 2 else size == largest
                )
                raise DataError(
                    f"x has scores as large as {largest:.3g} ({examples(label(hit[:1] + start))}"
                    "): their sums and squares overflow floating point; rescale them (evalsig "
                    "takes magnitudes up to 1e+50)."
                )
        if binary:
            binary = bool(((block == 0) | (block == 1)).all())
    return binary


def plain_differences(paired: PairedScores) -> np.ndarray:
    b, c = paired.baseline, paired.candidate
    d: np.ndarray = c.sums / c.counts - b.sums / b.counts
    return d


# -- inputs ----------------------------------------------------------------------------------


def matrices(rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Score matrices of every dtype, layout and shape the fast paths treat differently."""
    for n_runs in (1, 2, 8, 9, 130):
        for n_items in (5, 70_001):
            if n_runs * n_items > 2_000_000:
                continue
            x = rng.normal(0.5, 0.3, (n_runs, n_items))
            x[0, ::7] = -0.0
            yield from (
                x,
                x.astype(np.float32),
                (x > 0.5).astype(np.int8),
                x > 0.5,
                (x > 0.5).astype(np.int64),
                np.rint(x * 100).astype(np.int16),
                np.asfortranarray(x),
                x[:, ::-1],
                x[:, ::3],
            )


# -- per-item sums -----------------------------------------------------------------------------


def test_column_sums_equal_the_plain_ones_bit_for_bit() -> None:
    for m in matrices(np.random.default_rng(1)):
        sums, sumsq = plain_column_sums(m)
        assert _column_sums(m).tobytes() == sums.tobytes(), (m.dtype, m.shape, m.strides)
        assert _column_squares(m).tobytes() == sumsq.tobytes(), (m.dtype, m.shape)


def test_lazy_table_statistics_equal_the_plain_ones() -> None:
    for m in matrices(np.random.default_rng(2)):
        sums, sumsq = plain_column_sums(m)
        n_runs, n_items = m.shape
        # read in either order: mean first (from the runs, for integers) or sums first
        first, second = load(m), load(m)
        assert first.mean == float(sums.sum()) / (n_runs * n_items)
        assert second.sums.tobytes() == sums.tobytes()
        assert second.mean == first.mean
        binary = first.binary
        assert first.sumsq.tobytes() == (sums if binary else sumsq).tobytes()
        assert first.means.tobytes() == (sums / n_runs).tobytes()
        index = np.arange(n_items)[::-2]
        taken = load(m).take(index)
        assert taken.sums.tobytes() == sums[index].tobytes()
        assert taken.sumsq.tobytes() == (sums if binary else sumsq)[index].tobytes()


def test_sum_blocks_give_the_sums() -> None:
    for m in matrices(np.random.default_rng(3)):
        table = load(m)
        parts = list(table.sum_blocks())
        assert [b.start for b, _ in parts] == list(
            range(0, table.n_items, items_per_block(table.n_items))
        )
        joined = np.concatenate([np.asarray(s, dtype=np.float64) for _, s in parts])
        assert joined.tobytes() == plain_column_sums(m)[0].tobytes()


def test_integer_sums_are_kept_exact_when_runs_are_many() -> None:
    # 300 runs of 127 overflow an int16 per item: the accumulator must widen
    m = np.full((300, 10), 127, dtype=np.int8)
    m[:, 3] = -128
    table = load(m)
    joined = np.concatenate([np.asarray(s, dtype=np.float64) for _, s in table.sum_blocks()])
    assert joined.tolist() == [300 * 127.0] * 3 + [300 * -128.0] + [300 * 127.0] * 6
    assert table.mean == float(plain_column_sums(m)[0].sum()) / m.size


def test_wide_integers_are_summed_in_float_as_before() -> None:
    # int64 scores near 2**62 are not exact in float64: the sums come from the plain path
    m = np.array([[2**62, 3, -(2**61)], [2**60, 1, 5]], dtype=np.int64)
    table = load(m)
    assert table.mean == float(plain_column_sums(m)[0].sum()) / m.size
    assert table._sums is not None  # made whole, then read


def test_one_float64_run_is_its_own_sums_without_a_copy() -> None:
    x = np.random.default_rng(4).random(1000)
    table = load(x)
    assert np.shares_memory(table.sums, x)
    assert not table.sums.flags.writeable
    assert x.flags.writeable  # the caller's array is left as it was


def test_negative_zeros_are_summed_to_zero_as_before() -> None:
    x = np.array([1.5, -0.0, 0.0, -2.0, -0.0])
    sums = load(x).sums
    assert sums.tobytes() == plain_column_sums(x.reshape(1, -1))[0].tobytes()
    assert not np.signbit(sums[[1, 4]]).any()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "longdouble", ">f8"])
def test_negative_zero_detection(dtype: str) -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = rng.normal(0, 1, 50).astype(dtype)
        x[rng.random(50) < 0.1] = 0.0
        if rng.random() < 0.5:
            x[rng.integers(50)] = -0.0
        for view in (x, x[::2], x[::-3]):
            expected = bool(np.any((view == 0) & np.signbit(view)))
            assert _has_negative_zero(view) is expected


def test_score_table_keeps_given_statistics_through_replace_and_pickle() -> None:
    table = load({"a": [1, 0], "b": [1, 1], "c": [0.5, 0.25]})
    again = replace(table, source="other")
    assert again.sums is table.sums
    assert again.sumsq is table.sumsq
    restored = pickle.loads(pickle.dumps(load(np.arange(6.0).reshape(2, 3))))
    assert restored.sumsq.tolist() == [9.0, 17.0, 29.0]
    with pytest.raises(DataError, match="needs `sums` and `sumsq`, or the `runs` matrix"):
        ScoreTable(item_ids=None, counts=np.ones(2), binary=True, sums=np.ones(2))


# -- validation --------------------------------------------------------------------------------


def outcome(check: Callable[[], bool]) -> object:
    try:
        return check()
    except DataError as error:
        return str(error)


def test_check_scores_agrees_with_the_plain_check() -> None:
    rng = np.random.default_rng(6)

    def label(pos: np.ndarray) -> list[str]:
        return [f"item {p}" for p in pos]

    cases = list(matrices(rng))
    for bad, where in ((np.nan, 3), (np.inf, 70_000), (-np.inf, 0), (1e60, 65_540)):
        x = rng.random((2, 70_001))
        x[1, where] = bad
        x[0, 66_000] = 1e55 if bad == 1e60 else 0.5
        cases += [x, x[0], x[1]]
    cases += [np.zeros((3, 100)), np.array([0.0, 1.0, 1.0]), np.array([0, 1, 2]), np.eye(3)]
    for values in cases:
        ours = outcome(lambda v=values: check_scores(v, what="x", label=label))
        plain = outcome(lambda v=values: plain_check_scores(v, label))
        assert ours == plain  # the same answer, or the same error naming the same items


# -- differences, discordant pairs, ranges -----------------------------------------------------


def pairs(rng: np.random.Generator) -> Iterator[PairedScores]:
    n = 70_001
    for dtype in (np.int8, np.bool_, np.float64, np.float32):
        for runs_b, runs_c in ((1, 1), (8, 8), (3, 1), (1, 5)):
            b = (rng.random((runs_b, n)) < 0.5).astype(dtype)
            c = (rng.random((runs_c, n)) < 0.55).astype(dtype)
            yield load_pair(b if runs_b > 1 else b[0], c if runs_c > 1 else c[0])
    yield load_pair(rng.normal(0, 1, (4, n)), rng.normal(0, 1, (2, n)))
    yield load_pair(rng.normal(0, 1, (7, n)), rng.normal(0, 1, (3, n)))
    ragged = {f"q{i}": [1.0] * (1 + i % 3) for i in range(200)}
    yield load_pair(ragged, {f"q{i}": float(i % 2) for i in range(200)})


def test_differences_equal_the_plain_ones() -> None:
    for paired in pairs(np.random.default_rng(7)):
        assert paired.differences().tobytes() == plain_differences(paired).tobytes()


def test_discordant_counts_and_mean_ranges_equal_the_plain_ones() -> None:
    for paired in pairs(np.random.default_rng(8)):
        for table in (paired.baseline, paired.candidate):
            low_high = _mean_range(table)  # before the sums are made whole
            means = table.sums / table.counts
            assert low_high == (float(means.min()), float(means.max()))
        if paired.single_run and paired.binary:
            x, y = paired.baseline.sums, paired.candidate.sums
            plain = (
                int(np.count_nonzero((x == 0) & (y == 1))),
                int(np.count_nonzero((x == 1) & (y == 0))),
            )
            assert _discordant(paired) == plain


def test_integer_scores_are_compared_without_float_sums() -> None:
    rng = np.random.default_rng(9)
    for shape in ((100_000,), (8, 20_000)):
        paired = load_pair(
            (rng.random(shape) < 0.5).astype(np.int8), (rng.random(shape) < 0.5).astype(np.int8)
        )
        compare_paired(paired)
        assert paired.baseline._sums is None
        assert paired.candidate._sums is None


# -- the t-test in place -------------------------------------------------------------------------


def test_in_place_sd_is_numpys_to_the_last_bit() -> None:
    rng = np.random.default_rng(10)
    for n in (2, 3, 7, 8, 9, 127, 128, 129, 1000, 65_537, 300_001):
        for values in (rng.normal(0, 1, n), rng.exponential(1e-3, n), rng.random(n) - 0.5):
            expected = np.std(values, ddof=1)
            mine = values.copy()
            assert _sample_sd(mine, np.mean(mine), overwrite=True) == expected
            assert _sample_sd(values, np.mean(values), overwrite=False) == expected


@pytest.mark.parametrize("scale", [1.0, 1e-120, 1e120])
def test_overwriting_d_gives_the_same_result(scale: float) -> None:
    rng = np.random.default_rng(11)
    for n in (3, 30, 250, 100_000):
        d = rng.normal(0.01, 0.1, n) * scale
        kept = paired_t_core(d.copy(), alternative="greater", confidence_level=0.9)
        spent = paired_t_core(d, alternative="greater", confidence_level=0.9, overwrite_d=True)
        for name in ("estimate", "se", "statistic", "pvalue", "notes"):
            assert getattr(spent, name) == getattr(kept, name), name
        assert spent.ci == kept.ci


def test_compare_matches_scipy_ttest_rel_on_item_means() -> None:
    rng = np.random.default_rng(12)
    for base, cand in (
        (rng.random(200_000), rng.random(200_000)),
        (rng.random((8, 100_000)), rng.random((8, 100_000))),
        ((rng.random((8, 100_000)) < 0.5).astype(np.int8), rng.random((8, 100_000)) < 0.51),
    ):
        ours = compare(base, cand)
        theirs = stats.ttest_rel(np.atleast_2d(cand).mean(axis=0), np.atleast_2d(base).mean(axis=0))
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-9)
        assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-8)


# -- results recorded before the change ------------------------------------------------------------


def recorded_inputs() -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(20260601)
    n = 150_001  # crosses the 65,536-item blocks
    p = rng.beta(0.5, 0.5, n)
    yield (
        "int8-1run",
        (rng.random(n) < p).astype(np.int8),
        (rng.random(n) < np.clip(p + 0.01, 0, 1)).astype(np.int8),
    )
    yield (
        "int8-8runs",
        (rng.random((8, n)) < p).astype(np.int8),
        (rng.random((8, n)) < np.clip(p + 0.01, 0, 1)).astype(np.int8),
    )
    x = rng.normal(0.5, 0.2, n)
    yield "float64-1run", x, x + rng.normal(0.003, 0.1, n)
    x8 = rng.normal(0.5, 0.2, (8, n))
    yield "float64-8runs", x8, x8 + rng.normal(0.003, 0.1, (8, n))
    yield "int-3runs-0to10", rng.integers(0, 11, (3, n)), rng.integers(0, 11, (3, n))
    z = rng.normal(0, 1, 2000)
    z[::5] = -0.0
    yield "negative-zeros", z * 1e-120, rng.normal(0.1, 1, 2000) * 1e-120
    yield "all-zero", np.array([0.0, -0.0, 0.0, -0.0]), np.zeros(4)


TANGO = "interval: Tango's score interval for the difference in accuracy."
RECORDED = {  # compare(base, cand) with evalsig at c3f51ab, printed with repr()
    "int8-1run": (
        "mcnemar-asymptotic",
        0.008479943467043553,
        5.121720042511318e-11,
        6.567353963491142,
        0.0012910411556236044,
        (0.005949593057397324, 0.011010510840936768),
        0.4998033346444357,
        0.5082832781114792,
        19393,
        18121,
        True,
        (
            "37514 discordant items: asymptotic z-test (continuity-corrected score test below 25).",
            TANGO,
        ),
    ),
    "int8-8runs": (
        "paired-t",
        0.00972910180598796,
        6.177885449928268e-100,
        21.236460210296812,
        0.0004581319913791782,
        (0.008831172357239401, 0.01062703125473652),
        0.498830007799948,
        0.508559109605936,
        None,
        None,
        True,
        (),
    ),
    "float64-1run": (
        "paired-t",
        0.00281370172299746,
        1.1546858074051284e-27,
        10.902010161845562,
        0.0002580901761442808,
        (0.0023078501912260304, 0.00331955325476889),
        0.5005577098494366,
        0.503371411572434,
        None,
        None,
        False,
        (),
    ),
    "float64-8runs": (
        "paired-t",
        0.0028479422810228777,
        2.2607719345352648e-213,
        31.226524836084455,
        9.120266491299983e-05,
        (0.0026691869001048284, 0.003026697661940927),
        0.5001820873406903,
        0.5030300296217132,
        None,
        None,
        True,
        (),
    ),
    "int-3runs-0to10": (
        "paired-t",
        -0.006486623422510515,
        0.33093740531211374,
        -0.9722306061436093,
        0.006671897985437796,
        (-0.019563408700341844, 0.006590161855320813),
        5.000173332177786,
        4.993686708755275,
        None,
        None,
        False,
        (),
    ),
    "negative-zeros": (
        "paired-t",
        1.123979130543504e-121,
        0.00017232185175686447,
        3.7635884896023444,
        2.9864559678846875e-122,
        (5.382898942741136e-122, 1.7096683668128943e-121),
        -1.7625777851633217e-123,
        1.1063533526918704e-121,
        None,
        None,
        False,
        (),
    ),
    "all-zero": (  # the interval widened by the continuity correction of issue 18
        "mcnemar-score-cc",
        0.0,
        1.0,
        0.0,
        0.0,
        (-0.6042269655172214, 0.6042269655172214),
        0.0,
        0.0,
        0,
        0,
        True,
        (
            "0 discordant items: score test with continuity correction 1/2 (uncorrected from "
            "25 on).",
            "no discordant items: the models agree on every item, so the data carry no "
            "evidence of a difference (p = 1).",
            "interval: Tango's score interval with continuity correction 1/2, the values of "
            "the difference the p-value's test does not reject.",
            "every score on both sides is 0: the values cannot tell a 0/1 score from one on "
            "another scale (0-100), so read the percentage points as assuming 0/1 scores.",
        ),
    ),
}


@pytest.mark.parametrize("name", list(RECORDED))
def test_results_are_those_recorded_before(name: str) -> None:
    base, cand = {name: (b, c) for name, b, c in recorded_inputs()}[name]
    r = compare(base, cand)
    got = (
        r.method,
        r.estimate,
        r.pvalue,
        r.statistic,
        r.se,
        (r.ci.low, r.ci.high),
        r.baseline_mean,
        r.candidate_mean,
        r.n01,
        r.n10,
        r.percent_scale,
        r.notes,
    )
    assert got == RECORDED[name]
    assert str(r.baseline_mean) == str(RECORDED[name][6])  # 0.0, not -0.0
