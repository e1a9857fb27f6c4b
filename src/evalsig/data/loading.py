"""One entry point from whatever the user has to validated :class:`ScoreTable` objects."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from evalsig.data.build import id_kind_of, table_from_long, table_from_mapping, table_from_matrix
from evalsig.data.paired import OnMismatch, OnMissing, PairedScores, pair
from evalsig.data.provenance import in_memory_origin
from evalsig.data.readers import Description, ReadOptions, collect_files, read_tables, single_task
from evalsig.data.readers.base import ReaderKeywords, read_options
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import RecordMapper
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["describe", "load", "load_pair", "load_tasks"]


def load(
    data: Any,
    /,
    *,
    read: ReadOptions | None = None,
    format: str = "auto",
    name: str = "scores",
    **keywords: Unpack[ReaderKeywords],
) -> ScoreTable:
    """Read one model's per-item scores on one task into a validated :class:`ScoreTable`.

    Parameters
    ----------
    data : array, sequence, mapping, DataFrame, Series, path(s) or ScoreTable
        * 1-D array or sequence: one score per item, items by position;
        * 2-D array or nested sequence: ``runs x items``;
        * mapping ``{item_id: score}`` or ``{item_id: [run scores]}``;
        * pandas DataFrame in long format (one row per item and run), or a Series indexed
          by item id;
        * a path, a list of paths or a glob pattern: harness logs (lm-evaluation-harness,
          Inspect AI, HELM, OpenAI evals, AlpacaEval) or long-format CSV, TSV, JSONL, JSON
          and Parquet files (optionally .gz; JSON also in a .zip). Several files of one task
          become several runs.
    read : ReadOptions, optional
        How to read files: columns, harness choices, limits; see
        :class:`~evalsig.data.ReadOptions`. A DataFrame is read as a file with the same
        columns would be.
    format : str
        Input format, or 'auto' to detect it.
    name : str
        How messages refer to in-memory data.
    **keywords
        The fields of :class:`~evalsig.data.ReadOptions` as keywords, a shorthand for
        ``read``: ``id_column``, ``score_column``, ``run_column``, ``cluster_column``,
        ``key_column``, ``where`` (also a mapping ``{"model": "gpt-4"}``), ``task``,
        ``metric``, ``separator`` ... A field given both here and in ``read`` is an error.

    Returns
    -------
    ScoreTable

    Raises
    ------
    DataError
        Empty data, NaN or infinite scores, non-numeric scores, duplicate (item, run) rows,
        an item with two cluster labels, a missing column, an ambiguous task or metric.
    TypeError
        A keyword that is not a field of ReadOptions; a field given twice.

    Examples
    --------
    >>> table = load({"q1": 1, "q2": 0, "q3": 1})
    >>> table.n_items, table.mean
    (3, 0.6666666666666666)
    >>> load([[1, 0, 1], [1, 1, 1]]).n_runs
    2
    """
    tables = load_tasks(data, read=read_options(read, **keywords), format=format, name=name)
    hint = "choose one with task= (CLI: --task)."
    return single_task(tables, _label(data, name), hint, DataError)


def load_tasks(
    data: Any,
    /,
    *,
    read: ReadOptions | None = None,
    format: str = "auto",
    name: str = "scores",
    **keywords: Unpack[ReaderKeywords],
) -> dict[str, ScoreTable]:
    """Like :func:`load`, for every task the data hold: ``{task name: ScoreTable}``.

    Data without tasks give one table under the name ''.
    """
    options = read_options(read, **keywords)
    if isinstance(data, ScoreTable):
        return {"": data if data.origin is not None else _in_memory(data, "ScoreTable", name)}
    if _is_paths(data):
        return read_tables(data, options, format=format)
    if _is_dataframe(data):
        tables = _from_dataframe(data, options, name).tables()
        return {task: _in_memory(t, "dataframe", name, task) for task, t in tables.items()}
    if _is_series(data):
        return {"": _in_memory(_from_series(data, name), "series", name)}
    if isinstance(data, Mapping):
        return {"": _in_memory(table_from_mapping(data, source=name), "mapping", name)}
    if isinstance(data, (np.ndarray, Sequence)):
        _reject_ragged(data, name)
        return {"": _in_memory(table_from_matrix(data, source=name), "array", name)}
    raise DataError(
        f"`{name}` is a {type(data).__name__}; pass an array (items or runs x items), a "
        "mapping item_id -> score, a pandas DataFrame in long format, or a file path."
    )


def load_pair(
    baseline: Any,
    candidate: Any,
    /,
    *,
    cluster: Any = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> PairedScores:
    """Load both models' scores and align them by item id (see :func:`evalsig.compare`).

    ``cluster`` is a column name when either input names its fields (a file or a
    DataFrame), otherwise a sequence in the baseline's item order or a mapping
    ``item_id -> label``.
    """
    named_fields = any(_has_columns(data) for data in (baseline, candidate))
    cluster_column = cluster if isinstance(cluster, str) and named_fields else None
    tables = [
        load(data, name=name, cluster_column=cluster_column if _has_columns(data) else None)
        for name, data in (("baseline", baseline), ("candidate", candidate))
    ]
    cluster_arg = None if cluster_column is not None else cluster
    return pair(
        tables[0], tables[1], clusters=cluster_arg, on_missing=on_missing, on_mismatch=on_mismatch
    )


def _in_memory(table: ScoreTable, kind: str, name: str, task: str = "") -> ScoreTable:
    """The table with the origin of data passed in Python: its type; no file, no model
    name unless the caller named it (``name`` other than the defaults)."""
    given = None if name in UNNAMED else name
    origin = in_memory_origin(kind, model=given)
    if table.origin is not None:  # a DataFrame's metric and where, as read
        origin = replace(table.origin, format=kind)
        if given is not None or origin.model_from == "file name":
            origin = replace(origin, model=given, model_from="given" if given else None)
    return replace(table, origin=replace(origin, task=task or None))


UNNAMED = ("scores", "baseline", "candidate")
"""Default names of in-memory data: they name no model."""


def _has_columns(data: object) -> bool:
    """Whether the input names its fields (a DataFrame or a file), so `cluster` is a column."""
    return isinstance(data, (str, os.PathLike)) or hasattr(data, "columns")


def describe(
    paths: Any,
    /,
    *,
    read: ReadOptions | None = None,
    format: str = "auto",
    **keywords: Unpack[ReaderKeywords],
) -> Description:
    """What evalsig sees in result files: formats, tasks, metrics, filters, items, runs.

    ``read`` (or its fields as keywords) as in :func:`load`: ``where`` keeps the records
    (or, for a HELM suite, the runs) of one model, and the column options name a table's
    columns.
    """
    if not _is_paths(paths):
        raise DataError(f"describe() takes file paths; got a {type(paths).__name__}.")
    return collect_files(paths, read_options(read, **keywords), format=format).describe()


def _is_paths(data: object) -> bool:
    if isinstance(data, (str, os.PathLike)):
        return True
    return (
        isinstance(data, (list, tuple))
        and bool(data)
        and all(isinstance(p, (str, os.PathLike)) for p in data)
    )


def _label(data: object, name: str) -> str:
    return str(data) if isinstance(data, (str, os.PathLike)) else f"`{name}`"


def _is_dataframe(data: object) -> bool:
    return type(data).__module__.startswith("pandas") and hasattr(data, "columns")


def _is_series(data: object) -> bool:
    return type(data).__module__.startswith("pandas") and hasattr(data, "index")


def _from_dataframe(frame: Any, options: ReadOptions, name: str) -> Collector:
    """A long-format DataFrame, read exactly as a file with the same columns would be."""
    source = f"`{name}`"
    out = Collector(options)
    out.start_file(source, "dataframe")
    columns: dict[str, list[Any]] = {}

    def get(row: int, column: str) -> Any:
        if column not in columns:
            values = frame[column].tolist()
            columns[column] = [None if _is_missing(v) else v for v in values]
        return columns[column][row]

    mapper = RecordMapper.build(
        [str(c) for c in frame.columns], options, source=source, get=get, out=out
    )
    for row in range(len(frame)):
        mapper.feed(row, f"row {row + 1}", out)
    mapper.finish(source, out)
    return out


def _is_missing(value: object) -> bool:
    try:
        return value is None or bool(value != value)
    except (TypeError, ValueError):  # pandas.NA refuses to be truth-tested
        return True


def _from_series(series: Any, name: str) -> ScoreTable:
    ids = np.asarray(series.index.to_numpy(dtype=object))
    return table_from_long(
        ids,
        np.asarray(series.to_numpy(dtype=object)),
        source=f"`{name}`",
        fields={"id": "index", "score": "values"},
        id_kind=id_kind_of(ids.tolist()),
    )


def _reject_ragged(data: Any, name: str) -> None:
    """A nested sequence must be a rectangle of runs x items."""
    if isinstance(data, np.ndarray):
        return
    nested = [isinstance(row, (list, tuple, np.ndarray)) for row in data]
    if not any(nested):
        return
    if not all(nested):
        raise DataError(
            f"`{name}` mixes scores and lists of scores; pass one score per item (1-D) or one "
            "list per run (2-D, runs x items)."
        )
    lengths = sorted({len(row) for row in data})
    if len(lengths) > 1:
        raise DataError(
            f"`{name}` is a nested sequence whose runs have different lengths "
            f"({', '.join(map(str, lengths))}); a 2-D array needs every run to cover every "
            "item. For ragged runs use a mapping {item_id: [run scores]} or a long table with "
            "a run column."
        )
