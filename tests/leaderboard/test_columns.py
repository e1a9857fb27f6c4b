"""Leaderboards from score columns on disk: the in-memory leaderboard, bit for bit."""

from __future__ import annotations

import pickle
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from evalsig.data.models import ModelScores
from evalsig.data.provenance import without_time
from evalsig.errors import DataError
from evalsig.inference import allpairs
from evalsig.inference._pair_sums import PairBlock, assemble_blocks, pair_blocks
from evalsig.leaderboard import (
    Leaderboard,
    leaderboard,
    leaderboard_from_columns,
    open_score_columns,
    write_score_columns,
)
from evalsig.leaderboard.columns import pair_block_sums

pytest.importorskip("pyarrow", reason="score columns are Parquet files: pip install pyarrow")


def _scores(values: np.ndarray, *, binary: bool, clusters: int = 0, seed: int = 0) -> ModelScores:
    m, n = values.shape
    codes = np.random.default_rng(seed).integers(0, clusters, n) if clusters else None
    if codes is not None:
        codes = np.unique(codes, return_inverse=True)[1]
    return ModelScores(
        names=tuple(f"model-{k}" for k in range(m)),
        item_ids=np.array([f"q{i}" for i in range(n)]),
        scores=values,
        binary=binary,
        n_runs=(1,) * m,
        cluster_codes=codes,
        cluster_labels=None if codes is None else np.array([f"c{g}" for g in range(clusters)]),
    )


def _random(binary: bool, clusters: int, *, m: int = 11, n: int = 600) -> ModelScores:
    rng = np.random.default_rng(17 + clusters)
    skill = np.linspace(0.4, 0.6, m)[:, None]
    values = rng.random((m, n))
    values = (values < skill).astype(float) if binary else values + skill
    values[3, rng.choice(n, 25, replace=False)] = np.nan  # dropped for every model
    return _scores(values, binary=binary, clusters=clusters)


def _assert_same_board(got: Leaderboard, want: Leaderboard) -> None:
    assert without_time(got.to_dict()) == without_time(want.to_dict())
    for name in ("means", "n_items", "n_input", "difference", "pvalue", "p_adjusted"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b, equal_nan=True), name
    assert np.array_equal(got.adjacent_q, want.adjacent_q, equal_nan=True)


def _block_sums(directory: Path, model_block: int) -> np.ndarray:
    source = open_score_columns(directory)
    blocks = pair_blocks(source.n_models, model_block=model_block)
    parts = [pair_block_sums(source, block) for block in blocks]
    return assemble_blocks(source.n_models, max(source.n_clusters, 1), blocks, parts)


def _differ(got: tuple[np.ndarray, np.ndarray | None], want: np.ndarray, block: PairBlock) -> int:
    """Entries of a block and its mirror that differ from the in-memory sums ``want``."""
    upper, lower = got
    count = int(np.sum(upper != want[:, :, block.rows, block.cols]))
    if lower is not None:
        count += int(np.sum(lower != want[:, :, block.cols, block.rows]))
    return count


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("clusters", [0, 6])
def test_columns_rank_as_the_in_memory_leaderboard(
    tmp_path: Path, binary: bool, clusters: int
) -> None:
    scores = _random(binary, clusters)
    want = leaderboard(scores, task="quiz", on_missing="intersect", correction="bh")
    written = write_score_columns(
        scores, tmp_path / "cols", models_per_file=4, on_missing="intersect"
    )
    assert written == open_score_columns(tmp_path / "cols")
    for model_block in (1, 3, 5, 11, 128):
        got = leaderboard_from_columns(
            tmp_path / "cols", task="quiz", correction="bh", model_block=model_block
        )
        _assert_same_board(got, want)
    assert any("intersect" in note or "lack" in note for note in want.notes)


def test_zero_one_and_continuous_models_side_by_side(tmp_path: Path) -> None:
    """Blocks of 0/1 models take float32 counts, blocks with a continuous model exact
    float64 products; the in-memory sums take float64 products for all: the same numbers."""
    rng = np.random.default_rng(9)
    values = (rng.random((8, 700)) < 0.5).astype(float)
    values[5] = rng.random(700)  # read after the 0/1 models of its file
    scores = _scores(values, binary=False, clusters=3)
    write_score_columns(scores, tmp_path / "cols", models_per_file=6)
    for model_block in (2, 8):
        got = leaderboard_from_columns(tmp_path / "cols", model_block=model_block)
        _assert_same_board(got, leaderboard(scores))
    assert open_score_columns(tmp_path / "cols").read([0, 1]).dtype == np.float32
    assert open_score_columns(tmp_path / "cols").read([0, 5, 1]).dtype == np.float64


def test_blocks_repeat_the_arithmetic_of_the_default_tiles(tmp_path: Path) -> None:
    """Continuous scores of very different sizes: the order in which a tile adds its slice
    products shows in the last bits, and blocks inside the default diagonal tile repeat it."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=(40, 5000)) * np.exp(rng.normal(size=(40, 1)) * 5)
    write_score_columns(_scores(values, binary=False), tmp_path / "cols", models_per_file=16)
    want = allpairs.pair_sums(values, None)
    for model_block in (7, 40):
        assert np.array_equal(_block_sums(tmp_path / "cols", model_block), want)
    # the order of an off-diagonal tile differs in a few entries: the test has teeth
    source = open_score_columns(tmp_path / "cols")
    differ = 0
    for block in pair_blocks(40, model_block=7):
        if not block.diagonal:
            wrong = PairBlock(block.rows, block.cols, in_diagonal_tile=False)
            differ += _differ(pair_block_sums(source, wrong), want, block)
    assert differ > 0


def test_blocks_across_default_tiles_add_in_their_order(tmp_path: Path) -> None:
    """More models than one default tile side (1,024): blocks in different tiles add their
    slice products as an off-diagonal tile does."""
    rng = np.random.default_rng(0)
    m, n = allpairs.MODEL_BLOCK + 6, 1000
    values = rng.normal(size=(m, n)) * np.exp(rng.normal(size=(m, 1)) * 5)
    write_score_columns(_scores(values, binary=False), tmp_path / "cols", models_per_file=300)
    source = open_score_columns(tmp_path / "cols")
    want = allpairs.pair_sums(values, None)
    across = [b for b in pair_blocks(m, model_block=512) if not b.in_diagonal_tile]
    assert [(b.rows.stop, b.cols.start) for b in across] == [(512, 1024), (1024, 1024)]
    differ = 0
    for block in across:
        assert _differ(pair_block_sums(source, block), want, block) == 0
        wrong = PairBlock(block.rows, block.cols, in_diagonal_tile=True)
        differ += _differ(pair_block_sums(source, wrong), want, block)
    assert differ > 0


def test_zero_one_blocks_and_their_mirrors_are_exact_counts(tmp_path: Path) -> None:
    scores = _random(True, 4, m=9)
    write_score_columns(scores, tmp_path / "cols", models_per_file=2, on_missing="intersect")
    kept = ~np.isnan(scores.scores).any(axis=0)
    codes = scores.cluster_codes[kept] if scores.cluster_codes is not None else None
    x = scores.scores[:, kept]
    got = _block_sums(tmp_path / "cols", 2)
    assert np.array_equal(got, allpairs.pair_sums(x, codes))
    for g in range(4):
        ones = x[:, codes == g].astype(np.int64)
        assert np.array_equal(got[g, 2], ones @ ones.T)


def test_errors(tmp_path: Path) -> None:
    scores = _random(True, 0, m=4)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    with pytest.raises(DataError, match="not an empty directory"):
        write_score_columns(scores, tmp_path / "full", on_missing="intersect")
    with pytest.raises(DataError, match=r"no models\.parquet"):
        open_score_columns(tmp_path / "full")
    with pytest.raises(DataError, match="`models_per_file` must be a positive integer"):
        write_score_columns(scores, tmp_path / "a", models_per_file=0, on_missing="intersect")
    write_score_columns(scores, tmp_path / "cols", on_missing="intersect")
    with pytest.raises(DataError, match="`model_block` must be a positive integer; got 0"):
        leaderboard_from_columns(tmp_path / "cols", model_block=0)
    with pytest.raises(DataError, match="`correction` must be 'holm' or 'bh'"):
        leaderboard_from_columns(tmp_path / "cols", correction="sidak")  # type: ignore[arg-type]
    one = _scores(np.ones((3, 5)) * np.array([[0.0], [1.0], [1.0]]), binary=True, clusters=1)
    write_score_columns(one, tmp_path / "one")
    with pytest.raises(DataError, match="all in one cluster \\('c0'\\)") as raised:
        leaderboard(one)
    with pytest.raises(DataError) as again:
        leaderboard_from_columns(tmp_path / "one")
    assert str(again.value) == str(raised.value)


def test_changed_files_are_refused(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    scores = _random(True, 0, m=4)
    source = write_score_columns(scores, tmp_path / "cols", on_missing="intersect")
    path = tmp_path / "cols" / source.files[0]
    table = pq.read_table(path)
    pq.write_table(table.set_column(1, "m1", pa.array(np.full(source.n_items, np.nan))), path)
    with pytest.raises(DataError, match=r"model 'model-1' has .* NaN"):
        leaderboard_from_columns(source)
    pq.write_table(pa.table({name: np.zeros(5) for name in table.column_names}), path)
    with pytest.raises(DataError, match=r"model 'model-0' has 5 rows, 0 of them"):
        leaderboard_from_columns(source)


def test_what_travels_to_the_workers_is_names_and_positions(tmp_path: Path) -> None:
    scores = _random(False, 0, m=30, n=5000)
    source = write_score_columns(scores, tmp_path / "cols", on_missing="intersect")
    assert not any(isinstance(getattr(source, f.name), np.ndarray) for f in fields(source))
    blocks = pair_blocks(source.n_models, model_block=8)
    shipped = len(pickle.dumps((source, blocks)))
    assert shipped < scores.scores.nbytes / 100


@pytest.mark.slow
def test_a_local_dask_cluster_reads_the_columns_itself(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed", reason="dask.distributed is not installed")
    from evalsig.distributed import dask_executor

    boards = {}
    for binary in (True, False):
        scores = _random(binary, 5)
        write_score_columns(scores, tmp_path / str(binary), on_missing="intersect")
        boards[binary] = leaderboard(scores, on_missing="intersect")
    with dask_executor(workers=2) as executor:
        assert len(executor.client.scheduler_info()["workers"]) == 2
        for binary, want in boards.items():
            got = leaderboard_from_columns(tmp_path / str(binary), model_block=3, executor=executor)
            _assert_same_board(got, want)


def test_a_stored_task_exports_to_columns_that_rank_as_the_store(tmp_path: Path) -> None:
    pytest.importorskip("duckdb", reason="the results store needs duckdb")
    from evalsig.store import ResultsStore
    from evalsig.store.export import export_score_columns

    rng = np.random.default_rng(4)
    with ResultsStore(tmp_path / "results.duckdb") as store:
        for k in range(5):
            lines = ["item,run,score,subject"]
            for run in (1, 2):
                lines += [f"q{i},{run},{rng.random():.3f},s{i % 3}" for i in range(k == 0, 60)]
            path = tmp_path / f"m{k}.csv"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            store.ingest(path, model=f"m{k}", task="quiz", cluster_column="subject")
        want = leaderboard(store.model_scores("quiz", on_missing="intersect"), task="quiz")
        exported = export_score_columns(
            store, "quiz", tmp_path / "quiz", on_missing="intersect", models_per_file=2
        )
    assert exported.n_clusters == 3
    assert exported.n_runs == (2,) * 5
    _assert_same_board(leaderboard_from_columns(tmp_path / "quiz", task="quiz"), want)
