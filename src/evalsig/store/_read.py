"""Reading a task back from the results store: choosing the metric, rebuilding tables.

Private to :mod:`evalsig.store`; :class:`~evalsig.store.ResultsStore` calls these with its
connection.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalsig.data.build import table_from_long
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError

if TYPE_CHECKING:
    from evalsig.store._connection import Connection

__all__ = ["choose", "rebuild", "what"]


def choose(
    con: Connection,
    store: Path,
    task: str,
    task_id: int,
    metric: str | None,
    filter: str | None,
    model_ids: list[int] | None,
) -> tuple[str, str]:
    """The metric and filter ('' for none) to read: the given ones, or the only ones."""
    query = "SELECT DISTINCT metric, filter_name FROM source_parts WHERE task_id = ?"
    params: list[Any] = [task_id]
    if model_ids is not None:
        query += f" AND model_id IN ({', '.join('?' * len(model_ids))})"
        params += model_ids
    pairs = sorted((str(m), str(f)) for m, f in con.execute(query, params).fetchall())
    metrics = sorted({m for m, _ in pairs})
    if metric is None:
        if len(metrics) != 1:
            raise DataError(
                f"{store}: task {task!r} has several metrics "
                f"({', '.join(map(repr, metrics))}); choose one with --metric / metric=."
            )
        metric = metrics[0]
    elif metric not in metrics:
        raise DataError(
            f"{store}: task {task!r} has no metric {metric!r}; choose one of "
            f"{', '.join(map(repr, metrics))}."
        )
    filters = sorted(f for m, f in pairs if m == metric)
    if filter is None:
        if len(filters) != 1:
            raise DataError(
                f"{store}: metric {metric!r} of task {task!r} has several filters "
                f"({', '.join(map(repr, filters))}); choose one with --filter / filter=."
            )
        return metric, filters[0]
    if filter not in filters:
        raise DataError(
            f"{store}: metric {metric!r} of task {task!r} has no filter {filter!r}; "
            f"choose one of {', '.join(map(repr, [f or None for f in filters]))}."
        )
    return metric, filter


def rebuild(
    con: Connection,
    store: Path,
    task: str,
    task_id: int,
    metric: str,
    filter: str,
    model_ids: list[int],
) -> dict[str, ScoreTable]:
    """Rebuild each model's table from its rows, in stored order (source, then seq)."""
    placeholders = ", ".join("?" * len(model_ids))
    params = [task_id, metric, filter, *model_ids]
    data = con.execute(
        f"""SELECT s.model_id, i.name AS item, s.score, s.run, s.cluster, s.content_key
        FROM scores s JOIN items i ON i.task_id = s.task_id AND i.item_id = s.item_id
        WHERE s.task_id = ? AND s.metric = ? AND s.filter_name = ?
            AND s.model_id IN ({placeholders})
        ORDER BY s.model_id, s.source_id, s.seq""",
        params,
    ).fetchnumpy()
    parts = con.execute(
        f"""SELECT p.model_id, m.name, p.notes FROM source_parts p
        JOIN models m USING (model_id)
        WHERE p.task_id = ? AND p.metric = ? AND p.filter_name = ?
            AND p.model_id IN ({placeholders})
        ORDER BY p.model_id, p.source_id""",
        params,
    ).fetchall()
    names: dict[int, str] = {}
    notes: dict[int, list[str]] = {}
    for model_id, name, part_notes in parts:
        names[int(model_id)] = str(name)
        notes.setdefault(int(model_id), []).extend(part_notes)
    ids = np.asarray(data["model_id"])
    items, scores, runs = (np.asarray(data[c]) for c in ("item", "score", "run"))
    clusters, keys = _objects(data["cluster"]), _objects(data["content_key"])
    out: dict[str, ScoreTable] = {}
    for model_id in model_ids:
        lo, hi = np.searchsorted(ids, [model_id, model_id + 1])
        rows = slice(int(lo), int(hi))
        labels = runs[rows]
        run_labels = np.unique(labels)
        unlabelled = sum(c is None for c in clusters[rows])
        if 0 < unlabelled < hi - lo:
            raise DataError(
                f"{store}: model {names[model_id]!r} on task {task!r} has {unlabelled} scores "
                "without a cluster label beside scores with one (its files were ingested with "
                "and without --cluster); re-ingest them with the same --cluster and --replace."
            )
        out[names[model_id]] = table_from_long(
            items[rows],
            scores[rows],
            runs=None
            if len(run_labels) < 2
            else np.where(labels == "", "(no run label)", labels).astype(object),
            clusters=None if unlabelled else clusters[rows],
            keys=None if _all_none(keys[rows]) else keys[rows],
            source=f"{store} (model {names[model_id]!r}, task {task!r})",
            fields={"id": "item", "score": what(metric, filter)},
            notes=tuple(dict.fromkeys(notes.get(model_id, ()))),
        )
    return out


def _objects(column: Any) -> np.ndarray:
    """A fetched string column as an object array with None for NULL."""
    if isinstance(column, np.ma.MaskedArray):
        out: np.ndarray = np.asarray(column.data, dtype=object).copy()
        out[np.ma.getmaskarray(column)] = None
        return out
    plain: np.ndarray = np.asarray(column, dtype=object)
    return plain


def _all_none(values: np.ndarray) -> bool:
    return all(v is None for v in values)


def what(metric: str, filter: str) -> str:
    return f"metric {metric!r}" + (f" (filter {filter!r})" if filter else "")
