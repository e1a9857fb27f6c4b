"""The per-item statistics compare() starts from, for long tables in item-major layout.

``table_from_long`` adds an item's runs column by column of an ``items x runs`` grid when
row ``i`` is run ``i % R`` of item ``i // R`` (the layout of most long files). Oracle: the
plain implementation it replaced, ``np.bincount`` over the rows, written out here; the
sums, sums of squares and counts must be equal to the last bit, negative zeros included,
and every other layout must still take ``bincount`` (and give its errors).
"""

from __future__ import annotations

import numpy as np
import pytest

from evalsig import compare
from evalsig.data.build import MAX_GRID_RUNS, Factorized, factorize, table_from_long
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError


def plain_statistics(
    ids: list[str], scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts, sums and sums of squares as ``table_from_long`` computed them before."""
    codes, uniques = factorize(ids)
    n = len(uniques)
    values = scores.astype(np.float64)
    return (
        np.bincount(codes, minlength=n).astype(np.int64),
        np.bincount(codes, weights=values, minlength=n),
        np.bincount(codes, weights=values * values, minlength=n),
    )


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.int64)


def _item_major(
    n_items: int, n_runs: int, rng: np.random.Generator
) -> tuple[list[str], list[int], np.ndarray]:
    ids = [f"q{i}" for i in range(n_items) for _ in range(n_runs)]
    runs = [r for _ in range(n_items) for r in range(n_runs)]
    scores = rng.choice([0.0, -0.0, 0.1, 0.2, 0.7, 1 / 3, 1e-9, 5.0], size=n_items * n_runs)
    return ids, runs, scores


def _assert_plain(table: ScoreTable, ids: list[str], scores: np.ndarray) -> None:
    counts, sums, sumsq = plain_statistics(ids, scores)
    np.testing.assert_array_equal(table.counts, counts)
    np.testing.assert_array_equal(_bits(table.sums), _bits(sums))
    np.testing.assert_array_equal(_bits(table.sumsq), _bits(sumsq))


@pytest.mark.parametrize("n_runs", [1, 2, 3, 8, MAX_GRID_RUNS])
@pytest.mark.parametrize("n_items", [1, 7, 70_000])
def test_item_major_sums_are_bincounts_to_the_last_bit(n_items: int, n_runs: int) -> None:
    if n_items * n_runs > 2_000_000:
        n_items = 2_000_000 // n_runs
    rng = np.random.default_rng(n_items * 100 + n_runs)
    ids, runs, scores = _item_major(n_items, n_runs, rng)
    table = table_from_long(ids, scores, runs=runs, source="t")
    assert table.counts.strides == (0,)  # the grid path: one count for every item
    assert (table.n_runs, table.ragged) == (n_runs, False)
    _assert_plain(table, ids, scores)


def test_negative_zeros_sum_to_zero_as_bincount_does() -> None:
    ids, runs = ["a", "a", "b", "b"], [0, 1, 0, 1]
    scores = np.array([-0.0, -0.0, -0.0, 0.5])
    table = table_from_long(ids, scores, runs=runs, source="t")
    assert table.counts.strides == (0,)
    assert np.signbit(table.sums).tolist() == [False, False]
    _assert_plain(table, ids, scores)
    one = table_from_long(["a", "b"], np.array([-0.0, 1.0]), source="t")  # no run column
    assert np.signbit(one.sums).tolist() == [False, False]


def test_coded_labels_take_the_grid_path_too() -> None:
    rng = np.random.default_rng(5)
    ids, runs, scores = _item_major(1000, 4, rng)
    id_codes, id_names = factorize(ids)
    run_codes, run_names = factorize(runs)
    table = table_from_long(
        Factorized(id_codes, id_names),
        scores,
        runs=Factorized(run_codes, run_names),
        source="t",
    )
    assert table.counts.strides == (0,)
    _assert_plain(table, ids, scores)


@pytest.mark.parametrize("shuffle", [False, True])
def test_narrow_integer_codes_give_the_same_table(shuffle: bool) -> None:
    """Codes as a reader may hold them (int32 dictionary indices, int8 run numbers)."""
    rng = np.random.default_rng(9)
    ids, runs, scores = _item_major(3000, 6, rng)
    order = rng.permutation(len(ids)) if shuffle else np.arange(len(ids))
    ids, runs, scores = [ids[i] for i in order], [runs[i] for i in order], scores[order]
    id_codes, id_names = factorize(ids)
    run_codes, run_names = factorize(runs)
    narrow = table_from_long(
        Factorized(id_codes.astype(np.int32), id_names),
        scores,
        runs=Factorized(run_codes.astype(np.int8), run_names),
        source="t",
    )
    assert narrow.counts.strides == ((8,) if shuffle else (0,))
    _assert_plain(narrow, ids, scores)
    with pytest.raises(DataError, match=r"1 \(item, run\) pair\(s\) appear more than once"):
        table_from_long(
            Factorized(np.array([0, 0, 1, 1], dtype=np.int32), np.array(["a", "b"], dtype=object)),
            [1, 0, 1, 1],
            runs=Factorized(
                np.array([0, 0, 0, 1], dtype=np.int8), np.array(["0", "1"], dtype=object)
            ),
            source="t",
        )


def _other_layouts(rng: np.random.Generator) -> dict[str, tuple[list[str], list[int], np.ndarray]]:
    ids, runs, scores = _item_major(50, 3, rng)
    order = rng.permutation(len(ids))
    swapped = list(runs)
    swapped[3], swapped[4] = swapped[4], swapped[3]  # item q1 lists run 1 before run 0
    return {
        "run-major": (
            [f"q{i}" for r in range(3) for i in range(50)],
            [r for r in range(3) for _ in range(50)],
            scores,
        ),
        "shuffled": ([ids[i] for i in order], [runs[i] for i in order], scores[order]),
        "ragged": (ids[:-1], runs[:-1], scores[:-1]),
        "runs in another order": (ids, swapped, scores),
        "too many runs": _item_major(3, MAX_GRID_RUNS + 1, rng),
    }


@pytest.mark.parametrize(
    "layout", ["run-major", "shuffled", "ragged", "runs in another order", "too many runs"]
)
def test_other_layouts_take_bincount(layout: str) -> None:
    ids, runs, scores = _other_layouts(np.random.default_rng(11))[layout]
    table = table_from_long(ids, scores, runs=runs, source="t")
    assert table.counts.strides == (8,)
    _assert_plain(table, ids, scores)


def test_repeated_rows_are_still_refused() -> None:
    with pytest.raises(DataError, match=r"1 \(item, run\) pair\(s\) appear more than once"):
        table_from_long(["a", "a", "b", "b"], [1, 0, 1, 1], runs=[0, 0, 0, 1], source="t")
    with pytest.raises(DataError, match=r"1 item\(s\) appear on several rows \('a'\)"):
        table_from_long(["a", "a", "b"], [1, 0, 1], source="t")


def test_compare_gives_the_same_result_from_either_layout() -> None:
    """Item-major rows (the grid path) and the same rows run by run (bincount, adding each
    item's runs in the same order) give one comparison, field for field."""
    rng = np.random.default_rng(3)
    n_items, n_runs = 400, 5
    grid, scattered = [], []
    for _ in range(2):
        ids, runs, _ = _item_major(n_items, n_runs, rng)
        scores = np.round(rng.random(len(ids)), 3)
        grid.append(table_from_long(ids, scores, runs=runs, source="t"))
        by_run = np.arange(len(ids)).reshape(n_items, n_runs).T.ravel()
        scattered.append(
            table_from_long(
                [ids[i] for i in by_run], scores[by_run], runs=[runs[i] for i in by_run], source="t"
            )
        )
    assert grid[0].counts.strides == (0,)
    assert scattered[0].counts.strides == (8,)
    for method in ("paired-t", "wilcoxon", "bootstrap"):
        a = compare(*grid, method=method, rng=1).to_dict()
        b = compare(*scattered, method=method, rng=1).to_dict()
        for result in (a, b):
            result.pop("provenance", None)  # when it ran, not what it found
        assert a == b
