"""Score columns: a models x items matrix on disk, one Parquet column per model.

A leaderboard of thousands of models need not hold their scores in memory. Each task of
:func:`leaderboard_from_columns` is a block of model pairs that reads its models' columns
itself, so only paths and column names travel to the workers and only the block's
pairwise sums come back; on a Dask cluster the blocks run in parallel, in this process
they run one after another. The result equals :func:`evalsig.leaderboard.leaderboard` of
the same scores, bit for bit.

Layout of a directory (written by :func:`write_score_columns`, opened by
:func:`open_score_columns`)::

    items.parquet          item: the item ids, in order; with clusters also cluster (the
                           code of each item's cluster) and cluster_label
    models.parquet         model, file, column, n_input, n_runs: one row per model, in
                           order; its schema metadata "evalsig" holds the rest as JSON
    scores-00000.parquet   one float64 column per model (m0, m1, ...), one row per item
    scores-00001.parquet   in the order of items.parquet, ``models_per_file`` models a file
    ...

The matrix is aligned (:func:`evalsig.data.models.align_models`): every model has a score
for every item, and the notes say what the alignment dropped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from evalsig.data.models import ModelScores, align_models, check_clusters
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import provenance
from evalsig.errors import DataError
from evalsig.inference._pair_sums import PairBlock, Sums, assemble_blocks, block_sums, pair_blocks
from evalsig.inference.allpairs import MAX_ITEM_BLOCK
from evalsig.leaderboard.board import (
    Correction,
    Leaderboard,
    check_correction,
    leaderboard_from_sums,
)
from evalsig.power._common import check_alpha, check_power

__all__ = [
    "LAYOUT",
    "ScoreColumns",
    "leaderboard_from_columns",
    "open_score_columns",
    "pair_block_sums",
    "write_score_columns",
]

LAYOUT = "evalsig-score-columns-1"
"""Name and version of the layout, in the metadata of ``models.parquet``."""
MODELS_PER_FILE = 256
"""Default models (columns) per scores file."""
MODELS_PER_BLOCK = 256
"""Default models per side of a block of pairs: a task reads up to 512 columns (0.4 GB of
float64 scores over 100,000 items) and multiplies blocks of 256 x 256 models."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreColumns:
    """An open directory of score columns: what each task needs to read its models.

    Holds names, paths and counts only, never scores: this is what travels to the workers.
    """

    directory: str
    """Absolute path of the directory (workers read from it: a path they share)."""
    names: tuple[str, ...]
    files: tuple[str, ...]
    """The scores file of each model (relative to ``directory``)."""
    columns: tuple[str, ...]
    """The column of each model in its file."""
    n_items: int
    n_clusters: int
    """Clusters of the items (0 without clusters)."""
    binary: bool
    """The models' scores are one run of 0/1 each (:attr:`ModelScores.binary`)."""
    n_input: tuple[int, ...]
    n_runs: tuple[int, ...]
    notes: tuple[str, ...]
    on_missing: str
    on_mismatch: str
    n_mismatched: int

    @property
    def n_models(self) -> int:
        return len(self.names)

    def read(self, models: Sequence[int], /) -> np.ndarray:
        """``(len(models), N)`` scores of the models at these positions, file by file.

        float32 while every score read is 0 or 1 (exact; below 2^24 items), float64 from
        the first other score on: one pass over each column, no float64 copy of 0/1 scores.
        """
        pq = _parquet()
        zero_one = self.n_items < MAX_ITEM_BLOCK
        out: np.ndarray = np.empty(
            (len(models), self.n_items), dtype=np.float32 if zero_one else np.float64
        )
        by_file: dict[str, list[int]] = {}
        for row, model in enumerate(models):
            by_file.setdefault(self.files[model], []).append(row)
        done: list[int] = []
        for file, rows in by_file.items():
            path = Path(self.directory) / file
            table = pq.read_table(path, columns=[self.columns[models[r]] for r in rows])
            for row, column in zip(rows, table.columns, strict=True):
                values = column.to_numpy()
                if out.dtype == np.float32 and not (
                    len(values) == self.n_items and _zero_one(values)
                ):
                    wider = np.empty(out.shape)
                    wider[done] = out[done]  # 0/1 scores: exact
                    out = wider
                if out.dtype == np.float64 and (
                    len(values) != self.n_items or np.isnan(values).any()
                ):
                    raise DataError(
                        f"{path}: the column of model {self.names[models[row]]!r} has "
                        f"{len(values)} rows, {int(np.isnan(values).sum())} of them empty or "
                        f"NaN, where {self.n_items} scores were written; the directory "
                        "changed since write_score_columns wrote it. Write it again."
                    )
                out[row] = values
                done.append(row)
        return out

    def cluster_codes(self) -> np.ndarray | None:
        """``(N,)`` cluster code of each item, or None without clusters."""
        if not self.n_clusters:
            return None
        table = _parquet().read_table(Path(self.directory) / "items.parquet", columns=["cluster"])
        codes: np.ndarray = table.column("cluster").to_numpy().astype(np.int64)
        return codes


def write_score_columns(
    scores: ModelScores,
    directory: str | os.PathLike[str],
    /,
    *,
    models_per_file: int = MODELS_PER_FILE,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> ScoreColumns:
    """Write a models x items matrix as score columns (see the module docstring).

    Parameters
    ----------
    scores : ModelScores
        Aligned first (``on_missing``, ``on_mismatch`` as for
        :func:`evalsig.data.models.align_models`), so that the columns rank as
        ``leaderboard(scores, on_missing=..., on_mismatch=...)`` does.
    directory : path
        A new or empty directory.
    models_per_file : int
        Models (columns) per scores file.

    Raises
    ------
    DataError
        The directory holds files already; a bad ``models_per_file``.
    """
    pa, pq = _arrow(), _parquet()
    if _not_positive_int(models_per_file):
        raise DataError(f"`models_per_file` must be a positive integer; got {models_per_file!r}.")
    aligned = align_models(scores, on_missing=on_missing, on_mismatch=on_mismatch)
    folder = Path(directory)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise DataError(
            f"{folder} is not an empty directory; score columns are written to a new or "
            "empty directory, so that no file of another matrix mixes in."
        )
    folder.mkdir(parents=True, exist_ok=True)
    _write_items(aligned, folder)
    m = aligned.n_models
    files = tuple(f"scores-{k // models_per_file:05d}.parquet" for k in range(m))
    columns = tuple(f"m{k}" for k in range(m))
    for first in range(0, m, models_per_file):
        block = range(first, min(first + models_per_file, m))
        values = [np.ascontiguousarray(aligned.scores[k]) for k in block]
        table = pa.table([pa.array(v) for v in values], names=[columns[k] for k in block])
        pq.write_table(table, folder / files[first])
    written = ScoreColumns(
        directory=str(folder.resolve()),
        names=aligned.names,
        files=files,
        columns=columns,
        n_items=aligned.n_items,
        n_clusters=0 if aligned.cluster_codes is None else len(np.unique(aligned.cluster_codes)),
        binary=aligned.binary,
        n_input=tuple(int(v) for v in aligned.input_counts),
        n_runs=tuple(int(v) for v in aligned.n_runs),
        notes=aligned.notes,
        on_missing=aligned.on_missing,
        on_mismatch=aligned.on_mismatch,
        n_mismatched=aligned.n_mismatched,
    )
    _write_models(written, folder)
    return written


def _write_items(scores: ModelScores, folder: Path) -> None:
    pa, pq = _arrow(), _parquet()
    items: dict[str, Any] = {"item": pa.array([str(i) for i in scores.item_ids], pa.string())}
    if scores.cluster_codes is not None:
        codes = np.asarray(scores.cluster_codes, dtype=np.int64)
        items["cluster"] = pa.array(codes)
        labels = scores.cluster_labels
        items["cluster_label"] = pa.array(
            [str(c) if labels is None else str(labels[c]) for c in codes], pa.string()
        )
    pq.write_table(pa.table(items), folder / "items.parquet")


def _write_models(source: ScoreColumns, folder: Path) -> None:
    pa, pq = _arrow(), _parquet()
    meta = {
        "layout": LAYOUT,
        "n_items": source.n_items,
        "n_clusters": source.n_clusters,
        "binary": source.binary,
        "notes": list(source.notes),
        "on_missing": source.on_missing,
        "on_mismatch": source.on_mismatch,
        "n_mismatched": source.n_mismatched,
    }
    table = pa.table(
        {
            "model": pa.array(source.names, pa.string()),
            "file": pa.array(source.files, pa.string()),
            "column": pa.array(source.columns, pa.string()),
            "n_input": pa.array(source.n_input, pa.int64()),
            "n_runs": pa.array(source.n_runs, pa.int64()),
        }
    ).replace_schema_metadata({"evalsig": json.dumps(meta)})
    pq.write_table(table, folder / "models.parquet")


def open_score_columns(directory: str | os.PathLike[str], /) -> ScoreColumns:
    """Open a directory written by :func:`write_score_columns` (reads its model list only).

    Raises
    ------
    DataError
        No ``models.parquet`` of this layout in the directory.
    """
    folder = Path(directory)
    path = folder / "models.parquet"
    if not path.is_file():
        raise DataError(
            f"{folder} holds no models.parquet: not a directory of score columns. Write one "
            "with evalsig.leaderboard.write_score_columns."
        )
    table = _parquet().read_table(path)
    raw = (table.schema.metadata or {}).get(b"evalsig")
    meta = json.loads(raw) if raw else {}
    if meta.get("layout") != LAYOUT:
        raise DataError(
            f"{path}: layout {meta.get('layout')!r}, not {LAYOUT!r}; write the score columns "
            "again with this evalsig."
        )
    column = {name: table.column(name).to_pylist() for name in table.column_names}
    return ScoreColumns(
        directory=str(folder.resolve()),
        names=tuple(column["model"]),
        files=tuple(column["file"]),
        columns=tuple(column["column"]),
        n_items=int(meta["n_items"]),
        n_clusters=int(meta["n_clusters"]),
        binary=bool(meta["binary"]),
        n_input=tuple(int(v) for v in column["n_input"]),
        n_runs=tuple(int(v) for v in column["n_runs"]),
        notes=tuple(meta["notes"]),
        on_missing=str(meta["on_missing"]),
        on_mismatch=str(meta["on_mismatch"]),
        n_mismatched=int(meta["n_mismatched"]),
    )


def pair_block_sums(source: ScoreColumns, block: PairBlock, /) -> Sums:
    """The pairwise sums of one block and of its mirror, its models read from their files.

    The task a worker runs: its arguments are names and positions, its result the
    block's sums (see :func:`evalsig.inference._pair_sums.block_sums`).
    """
    models = list(range(block.rows.start, block.rows.stop))
    if not block.diagonal:
        models += range(block.cols.start, block.cols.stop)
    return block_sums(source.read(models), source.cluster_codes(), block)


def leaderboard_from_columns(
    columns: ScoreColumns | str | os.PathLike[str],
    /,
    *,
    task: str | None = None,
    correction: Correction = "holm",
    alpha: float = 0.05,
    power: float = 0.8,
    model_block: int = MODELS_PER_BLOCK,
    executor: Any = None,
) -> Leaderboard:
    """Rank the models of a directory of score columns, block of model pairs by block.

    Parameters
    ----------
    columns : ScoreColumns or path
        Written by :func:`write_score_columns` (or
        :func:`evalsig.store.export.export_score_columns`).
    task, correction, alpha, power
        As for :func:`evalsig.leaderboard.leaderboard`.
    model_block : int
        Models per side of a block of pairs: a task reads at most ``2 * model_block``
        columns. Smaller blocks make more tasks (about ``(M / model_block)^2 / 2``), and
        every column is read once per block side.
    executor : evalsig.distributed.Executor, optional
        Runs the blocks on a Dask cluster (:func:`evalsig.distributed.dask_executor`);
        by default one after another in this process.

    Notes
    -----
    Equal to ``leaderboard(scores, task=..., correction=..., alpha=..., power=...)`` of
    the scores written, bit for bit, whatever ``model_block`` and wherever the blocks
    run: the blocks nest in the default tiles of the in-memory sums and repeat their
    arithmetic (see :mod:`evalsig.inference._pair_sums`). Only the blocks on and above the
    diagonal are tasks; each also gives its mirror below, from the same products. No
    bootstrap: it resamples the items of every model at once.

    Examples
    --------
    >>> import tempfile
    >>> from evalsig.data.models import load_models
    >>> from evalsig.leaderboard import leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = load_models({f"m{k}": {f"q{i}": int(rng.random() < 0.5 + 0.1 * k)
    ...                                 for i in range(400)} for k in range(5)})
    >>> folder = write_score_columns(scores, f"{tempfile.mkdtemp()}/board", models_per_file=2)
    >>> board = leaderboard_from_columns(folder, model_block=2)
    >>> in_memory = leaderboard(scores).to_dict() | {"provenance": None}
    >>> board.models, board.to_dict() | {"provenance": None} == in_memory
    (('m4', 'm3', 'm2', 'm1', 'm0'), True)
    """
    from evalsig.distributed import local

    source = columns if isinstance(columns, ScoreColumns) else open_score_columns(columns)
    alpha, power = check_alpha(alpha), check_power(power)
    check_correction(correction)
    if _not_positive_int(model_block):
        raise DataError(f"`model_block` must be a positive integer; got {model_block!r}.")
    if source.n_clusters == 1:
        check_clusters(_without_scores(source), task)
    blocks = pair_blocks(source.n_models, model_block=model_block)
    parts = (executor or local()).map(pair_block_sums, source, blocks)
    sums = assemble_blocks(source.n_models, max(source.n_clusters, 1), blocks, parts)
    board = leaderboard_from_sums(
        sums,
        names=source.names,
        n_input=np.asarray(source.n_input, dtype=np.int64),
        binary=source.binary,
        clustered=source.n_clusters > 0,
        correction=correction,
        alpha=alpha,
        power=power,
        confidence_level=0.95,
        task=task,
        notes=source.notes,
        on_missing=source.on_missing,
        on_mismatch=source.on_mismatch,
        n_mismatched=source.n_mismatched,
    )
    inputs = dict.fromkeys(source.names)  # the columns keep no origins
    return replace(board, provenance=provenance(inputs))


def _without_scores(source: ScoreColumns) -> ModelScores:
    """The items and clusters of ``source`` as a :class:`ModelScores` whose scores are a
    read-only NaN placeholder (no memory), for the checks that need no scores."""
    table = _parquet().read_table(Path(source.directory) / "items.parquet")
    codes = source.cluster_codes()
    labels = None
    if codes is not None:
        first = np.unique(codes, return_index=True)[1]
        labels = np.asarray(table.column("cluster_label").to_pylist(), dtype=object)[first]
    return ModelScores(
        names=source.names,
        item_ids=np.asarray(table.column("item").to_pylist(), dtype=object),
        scores=np.broadcast_to(np.float64(np.nan), (source.n_models, source.n_items)),
        binary=source.binary,
        n_runs=source.n_runs,
        cluster_codes=codes,
        cluster_labels=labels,
    )


def _not_positive_int(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int) or value < 1


def _zero_one(values: np.ndarray) -> bool:
    """Every value is 0 or 1 (NaN is neither)."""
    return bool(np.all((values == 0) | (values == 1)))


def _arrow() -> Any:
    try:
        import pyarrow
    except ImportError:  # pragma: no cover - depends on the environment
        raise DataError(
            "score columns are Parquet files: install pyarrow with "
            "pip install 'evalsig-stats[columnar]'."
        ) from None
    return pyarrow


def _parquet() -> Any:
    _arrow()
    import pyarrow.parquet

    return pyarrow.parquet
