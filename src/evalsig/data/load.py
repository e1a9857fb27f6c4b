"""One entry point from whatever the user has to a :class:`ScoreTable`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evalsig.data.build import table_from_long, table_from_mapping, table_from_matrix
from evalsig.data.readers import ReadOptions, read_table
from evalsig.data.readers.base import resolve_columns
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError

__all__ = ["load"]


def load(
    data: Any,
    /,
    *,
    id_column: str | None = None,
    score_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    format: str = "auto",
    name: str = "scores",
) -> ScoreTable:
    """Read one model's per-item scores into a validated :class:`ScoreTable`.

    Parameters
    ----------
    data : array, sequence, mapping, DataFrame, Series, path or ScoreTable
        * 1-D array or sequence: one score per item, items by position;
        * 2-D array or nested sequence: ``runs x items``;
        * mapping ``{item_id: score}`` or ``{item_id: [run scores]}``;
        * pandas DataFrame in long format (one row per item and run);
        * pandas Series indexed by item id;
        * path to a CSV, TSV, JSONL, JSON or Parquet file in long format (optionally .gz).
    id_column, score_column, run_column, cluster_column : str, optional
        Column names for long-format data. Unnamed id, score and run columns are
        detected when exactly one column has a usual name ('item', 'question_id', 'score',
        'correct', 'epoch', ...); otherwise the error lists the columns.
    format : str
        File format, or 'auto' to detect it from the name.
    name : str
        How messages refer to the data.

    Returns
    -------
    ScoreTable

    Raises
    ------
    DataError
        Empty data, NaN or infinite scores, non-numeric scores, duplicate (item, run) rows,
        an item with two cluster labels, a missing column.

    Examples
    --------
    >>> table = load({"q1": 1, "q2": 0, "q3": 1})
    >>> table.n_items, table.mean
    (3, 0.6666666666666666)
    >>> load([[1, 0, 1], [1, 1, 1]]).n_runs
    2
    """
    options = ReadOptions(
        id_column=id_column,
        score_column=score_column,
        run_column=run_column,
        cluster_column=cluster_column,
    )
    if isinstance(data, ScoreTable):
        return data
    if isinstance(data, (str, os.PathLike)):
        return read_table(data, options, format=format)
    if _is_dataframe(data):
        return _from_dataframe(data, options, name)
    if _is_series(data):
        return _from_series(data, name)
    if isinstance(data, Mapping):
        return table_from_mapping(data, source=name)
    if isinstance(data, (np.ndarray, Sequence)):
        _reject_ragged(data, name)
        return table_from_matrix(data, source=name)
    raise DataError(
        f"`{name}` is a {type(data).__name__}; pass an array (items or runs x items), a "
        "mapping item_id -> score, a pandas DataFrame in long format, or a file path."
    )


def _is_dataframe(data: object) -> bool:
    return type(data).__module__.startswith("pandas") and hasattr(data, "columns")


def _is_series(data: object) -> bool:
    return type(data).__module__.startswith("pandas") and hasattr(data, "index")


def _from_dataframe(frame: Any, options: ReadOptions, name: str) -> ScoreTable:
    columns = resolve_columns([str(c) for c in frame.columns], options, source=f"`{name}`")

    def column(label: str) -> np.ndarray:
        return np.asarray(frame[label].to_numpy(dtype=object))

    return table_from_long(
        column(columns.id),
        column(columns.score),
        runs=column(columns.run) if columns.run else None,
        clusters=column(columns.cluster) if columns.cluster else None,
        source=f"`{name}`",
        fields={
            "id": columns.id,
            "score": columns.score,
            "run": columns.run or "run",
            "cluster": columns.cluster or "cluster",
        },
        notes=columns.detected,
    )


def _from_series(series: Any, name: str) -> ScoreTable:
    return table_from_long(
        np.asarray(series.index.to_numpy(dtype=object)),
        np.asarray(series.to_numpy(dtype=object)),
        source=f"`{name}`",
        fields={"id": "index", "score": "values"},
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
