"""Writing one source into the results store: what is already stored, conflicts, rows.

Private to :mod:`evalsig.store`: :meth:`ResultsStore.ingest
<evalsig.store.ResultsStore.ingest>` opens the transaction and hands each path to
:meth:`Writer.ingest_one`; what happens before the SQL (reading, validating, naming the
models) lives in :mod:`evalsig.store._ingest`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from evalsig.data.readers import collect_files
from evalsig.errors import DataError
from evalsig.store._ingest import (
    Part,
    Spec,
    check_model_source,
    conflict_error,
    describe_origins,
    model_names,
    parts,
    rows_of,
)
from evalsig.store._ingest import digest as source_digest
from evalsig.store._read import what
from evalsig.store.results import SourceReport

if TYPE_CHECKING:
    from evalsig.store._connection import Connection

__all__ = ["Writer"]

_NEW = "evalsig_new_scores"
"""The name under which a source's rows are shown to DuckDB while they are inserted."""

PartKey = tuple[int, int, int, str, str]
"""A stored part: (source_id, model_id, task_id, metric, filter_name)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Stored:
    """A stored part of a source with the same content as the one being ingested."""

    key: PartKey
    model: str
    task: str
    path: str
    options: str | None
    """How that source was read (None: stored by a version 1 store, which did not say)."""
    n_rows: int


class Writer:
    """Adds sources to a store inside the caller's transaction."""

    __slots__ = ("con", "path")

    def __init__(self, con: Connection, path: Path) -> None:
        self.con = con
        self.path = path

    def _first(self, query: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
        """The first row of a query (the result is fetched whole, so it is finished)."""
        rows = self.con.execute(query, list(params)).fetchall()
        return rows[0] if rows else None

    def ingest_one(self, path: Path, spec: Spec, options: str) -> SourceReport:
        digest, kind = source_digest(path)
        same = self._first(
            """SELECT path FROM sources WHERE sha256 = ? AND ingest_options = ?
            ORDER BY source_id""",
            [digest, options],
        )
        if same is not None:  # the same content read the same way: skip it unread
            return _skipped(path, digest, kind, "", str(same[0]))
        read_options = replace(spec.options, models_by_task=True)  # model_names() names each
        collector = collect_files(path, read_options, format=spec.format)
        reader = collector.formats[0]
        check_model_source(path, reader, spec)
        found = parts(collector, path, spec)
        names = model_names(path, reader, spec, found)
        if source_digest(path)[0] != digest:
            raise DataError(
                f"{path}: its content changed while it was being read (is a harness still "
                "writing it?); nothing was stored. Ingest it again once it is complete."
            )
        earlier = self._same_content(digest)
        keep: list[Part] = []
        again: list[_Stored] = []
        already: dict[str, list[str]] = {}
        for part in found:
            model = names[part.source_task].name
            hit = earlier.get((model, part.task, part.metric, part.filter or ""))
            if hit is None:
                keep.append(part)
            elif spec.replace:  # read it again: its stored copy is dropped below
                keep.append(part)
                again.append(hit)
            else:
                already.setdefault(hit.path, []).append(_describe(model, part))
        if not keep:
            hits = [
                earlier[names[p.source_task].name, p.task, p.metric, p.filter or ""] for p in found
            ]
            other = any(h.options is not None and h.options != options for h in hits)
            warnings = (
                (
                    "it was stored before with other options (model, task, columns, run label "
                    "...); to store it as read now, pass --replace (replace=True)",
                )
                if other
                else ()
            )
            return _skipped(path, digest, kind, reader, hits[0].path, warnings)
        rows = rows_of(keep, names, spec)
        model_ids = self._ids("models", "model_ids", "model_id", rows.models)
        task_ids = self._ids("tasks", "task_ids", "task_id", rows.tasks)
        frame = {
            "seq": np.arange(rows.n_rows, dtype=np.int64),
            "model_id": model_ids[rows.model_codes],
            "task_id": task_ids[rows.task_codes],
            "metric": rows.metric,
            "filter_name": rows.filter,
            "item": rows.item,
            "run": rows.run,
            "score": rows.score,
            "cluster": rows.cluster,
            "content_key": rows.key,
        }
        self.con.register(_NEW, frame)
        try:
            self._add_items()
            replaced = self._conflicts(path, spec.replace, [h.key for h in again])
            source_id = self._next("source_ids")
            self.con.execute(
                f"""INSERT INTO scores
                SELECT ?, n.seq, n.model_id, n.task_id, n.metric, n.filter_name, i.item_id,
                       n.run, n.score, n.cluster, n.content_key
                FROM {_NEW} n JOIN items i ON i.task_id = n.task_id AND i.name = n.item""",
                [source_id],
            )
        finally:
            self.con.unregister(_NEW)
        now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        self.con.execute(
            "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?::TIMESTAMP, ?, ?)",
            [source_id, _recorded(path), digest, kind, reader, now, rows.n_rows, options],
        )
        model_index = {name: int(i) for name, i in zip(rows.models, model_ids, strict=True)}
        task_index = {name: int(i) for name, i in zip(rows.tasks, task_ids, strict=True)}
        for part in rows.parts:
            self.con.execute(
                "INSERT INTO source_parts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    source_id,
                    model_index[part.model],
                    task_index[part.task],
                    part.metric,
                    part.filter or "",
                    part.origin,
                    part.n_rows,
                    list(part.notes),
                ],
            )
        stored = [h for h in earlier.values() if h not in again]
        identical = self._identical(source_id, rows.parts, model_index, task_index, stored)
        return SourceReport(
            path=_recorded(path),
            sha256=digest,
            kind=kind,
            format=reader,
            status="ingested",
            n_rows=rows.n_rows,
            models=tuple(rows.models),
            tasks=tuple(rows.tasks),
            model_origins=describe_origins(rows.parts),
            replaced=tuple(replaced),
            already_stored=tuple(
                f"{'; '.join(what)}: already stored from {old} (the same content)"
                for old, what in already.items()
            ),
            warnings=tuple(identical),
            notes=tuple(dict.fromkeys(n for p in rows.parts for n in p.notes)),
        )

    def _same_content(self, digest: str) -> dict[tuple[str, str, str, str], _Stored]:
        """What sources with this content hold: per (model, task, metric, filter), the first."""
        rows = self.con.execute(
            """SELECT p.source_id, p.model_id, p.task_id, p.metric, p.filter_name, m.name,
                      t.name, src.path, src.ingest_options, p.n_rows
            FROM source_parts p JOIN sources src USING (source_id)
            JOIN models m USING (model_id) JOIN tasks t USING (task_id)
            WHERE src.sha256 = ?
            ORDER BY p.source_id, p.model_id, p.task_id, p.metric, p.filter_name""",
            [digest],
        ).fetchall()
        out: dict[tuple[str, str, str, str], _Stored] = {}
        for source, model_id, task_id, metric, filter_name, model, task, old, opts, n in rows:
            out.setdefault(
                (str(model), str(task), str(metric), str(filter_name)),
                _Stored(
                    key=(int(source), int(model_id), int(task_id), str(metric), str(filter_name)),
                    model=str(model),
                    task=str(task),
                    path=str(old),
                    options=None if opts is None else str(opts),
                    n_rows=int(n),
                ),
            )
        return out

    def _identical(
        self,
        source_id: int,
        new: list[Part],
        model_index: Mapping[str, int],
        task_index: Mapping[str, int],
        stored: list[_Stored],
    ) -> list[str]:
        """Warnings for new parts whose scores equal those stored for another model or task
        from the same content (the same file given for two models is worth a second look):
        one per new model and task, naming every earlier model and task it duplicates."""
        same: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
        n_same: dict[tuple[str, str], int] = {}
        where = "source_id = ? AND model_id = ? AND task_id = ? AND metric = ? AND filter_name = ?"
        rows = (
            f"SELECT i.name, s.score FROM scores s JOIN items i USING (task_id, item_id) "
            f"WHERE {where}"
        )
        for part in new:
            matched = False
            for old in stored:
                _, _, _, metric, filter_name = old.key
                if (
                    (old.model, old.task) == (part.model, part.task)
                    or (metric, filter_name) != (part.metric, part.filter or "")
                    or old.n_rows != part.n_rows
                ):
                    continue
                key = [source_id, model_index[part.model], task_index[part.task], metric]
                counts = self._first(
                    f"""WITH old AS ({rows}), new AS ({rows})
                    SELECT (SELECT count(*) FROM old), (SELECT count(*) FROM new),
                           (SELECT count(*) FROM (SELECT * FROM old EXCEPT ALL
                                                  SELECT * FROM new))""",
                    [*old.key, *key, filter_name],
                )
                if counts is not None and counts[0] == counts[1] > 0 and counts[2] == 0:
                    same.setdefault((part.model, part.task), {})[old.model, old.task] = old.path
                    matched = True
            if matched:
                n_same[part.model, part.task] = n_same.get((part.model, part.task), 0) + part.n_rows
        warnings = []
        for (model, task), earlier in same.items():
            names = " and ".join(f"model {m!r} on task {t!r}" for m, t in earlier)
            paths = ", ".join(dict.fromkeys(earlier.values()))
            warnings.append(
                f"model {model!r} on task {task!r} has the same {n_same[model, task]:,} scores "
                f"as {names}, stored from {paths} (the same content); identical results under "
                "two names are unusual: check that each model and task was given its own "
                "results file."
            )
        return warnings

    def _ids(self, table: str, sequence: str, column: str, names: list[str]) -> np.ndarray:
        """The ids of ``names`` in ``models`` or ``tasks``, adding the new names."""
        ids = np.empty(len(names), dtype=np.int32)
        for i, name in enumerate(names):
            row = self._first(f"SELECT {column} FROM {table} WHERE name = ?", [name])
            if row is None:
                row = self._first(
                    f"INSERT INTO {table} VALUES (nextval('{sequence}'), ?) RETURNING {column}",
                    [name],
                )
            if row is None:  # pragma: no cover - INSERT ... RETURNING returns the row
                raise DataError(f"{self.path}: could not add {name!r} to {table}.")
            ids[i] = int(row[0])
        return ids

    def _next(self, sequence: str) -> int:
        row = self._first(f"SELECT nextval('{sequence}')")
        if row is None:  # pragma: no cover
            raise DataError(f"{self.path}: the sequence {sequence} gave no value.")
        return int(row[0])

    def _add_items(self) -> None:
        """Number the new items of each task after its known ones, in order of appearance."""
        self.con.execute(
            f"""INSERT INTO items
            SELECT n.task_id,
                   coalesce(top.last, -1) + row_number() OVER (
                       PARTITION BY n.task_id ORDER BY n.first),
                   n.item
            FROM (SELECT task_id, item, min(seq) AS first FROM {_NEW} GROUP BY task_id, item) n
            LEFT JOIN (SELECT task_id, max(item_id) AS last FROM items GROUP BY task_id) top
                ON top.task_id = n.task_id
            WHERE NOT EXISTS (
                SELECT 1 FROM items i WHERE i.task_id = n.task_id AND i.name = n.item)"""
        )

    def _conflicts(self, path: Path, replace: bool, again: list[PartKey]) -> list[str]:
        """Refuse (or, with ``replace``, drop) stored scores the new rows also claim.

        ``again`` are stored parts of the same content that the new rows replace.
        """
        clash = f"""FROM {_NEW} n
            JOIN items i ON i.task_id = n.task_id AND i.name = n.item
            JOIN scores s ON s.model_id = n.model_id AND s.task_id = n.task_id
                AND s.item_id = i.item_id AND s.metric = n.metric
                AND s.filter_name = n.filter_name AND s.run = n.run"""
        if not replace:
            clashes = self.con.execute(
                f"""SELECT s.source_id, any_value(src.path), s.model_id, any_value(m.name),
                           s.task_id, any_value(t.name), count(*),
                           arg_min(i.name, i.item_id), arg_min(s.run, i.item_id)
                {clash}
                JOIN sources src ON src.source_id = s.source_id
                JOIN models m ON m.model_id = s.model_id
                JOIN tasks t ON t.task_id = s.task_id
                GROUP BY s.source_id, s.model_id, s.task_id
                ORDER BY s.source_id, s.model_id, s.task_id"""
            ).fetchall()
            if clashes:
                raise conflict_error(path, clashes)
            return []
        found = self.con.execute(
            f"SELECT DISTINCT s.source_id, s.model_id, s.task_id, s.metric, s.filter_name {clash}"
        ).fetchall()
        targets = sorted(
            {*again, *((int(a), int(b), int(c), str(d), str(e)) for a, b, c, d, e in found)}
        )
        return self._drop(targets)

    def _drop(self, targets: list[PartKey]) -> list[str]:
        """Delete stored parts (a source's scores of one model, task, metric and filter);
        one line per source, model and task saying how many scores were dropped."""
        dropped: dict[tuple[int, int, int], int] = {}
        where = "source_id = ? AND model_id = ? AND task_id = ? AND metric = ? AND filter_name = ?"
        for target in targets:
            row = self._first(f"SELECT count(*) FROM scores WHERE {where}", target)
            n = 0 if row is None else int(row[0])
            self.con.execute(f"DELETE FROM scores WHERE {where}", target)
            self.con.execute(f"DELETE FROM source_parts WHERE {where}", target)
            self.con.execute(
                "UPDATE sources SET n_rows = n_rows - ? WHERE source_id = ?", [n, target[0]]
            )
            source_model_task = target[:3]
            dropped[source_model_task] = dropped.get(source_model_task, 0) + n
        replaced: list[str] = []
        for (source_id, model_id, task_id), n in dropped.items():
            row = self._first(
                """SELECT src.path, m.name, t.name FROM sources src, models m, tasks t
                WHERE src.source_id = ? AND m.model_id = ? AND t.task_id = ?""",
                [source_id, model_id, task_id],
            )
            old, model, task = ("?", "?", "?") if row is None else row
            replaced.append(f"{n:,} scores of model {model!r} on task {task!r} from {old}")
        self.con.execute(
            "DELETE FROM sources WHERE source_id NOT IN (SELECT source_id FROM source_parts)"
        )
        return replaced


def _recorded(path: Path) -> str:
    """The path a source is stored and reported under: ``-`` for standard input (held in a
    temporary file while it is read), else the path as given."""
    from evalsig.data.provenance import STDIN, is_standard_input

    return STDIN if is_standard_input(path) else str(path)


def _skipped(
    path: Path,
    digest: str,
    kind: Literal["file", "directory"],
    reader: str,
    duplicate_of: str,
    warnings: tuple[str, ...] = (),
) -> SourceReport:
    return SourceReport(
        path=_recorded(path),
        sha256=digest,
        kind=kind,
        format=reader,
        status="skipped",
        n_rows=0,
        duplicate_of=duplicate_of,
        warnings=warnings,
    )


def _describe(model: str, part: Part) -> str:
    """E.g. "model 'a' on task 'quiz', metric 'acc' (filter 'none')"."""
    return f"model {model!r} on task {part.task!r}, {what(part.metric, part.filter or '')}"
