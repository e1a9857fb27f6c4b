"""Reading one source for the results store: tasks, metrics, model names, columns.

Private to :mod:`evalsig.store`: the store's SQL lives in :mod:`evalsig.store.duckdb_store`
and :mod:`evalsig.store._write`; everything that happens before it (reading through the
readers, choosing what to store, validating it as :func:`evalsig.load` does, naming the
models) lives here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

from evalsig.data.readers import ReadOptions
from evalsig.data.readers.collect import (
    CLUSTER,
    FILE,
    FILTER,
    ITEM,
    KEY,
    METRIC,
    RUN,
    TASK,
    VALUE,
    Collector,
)
from evalsig.data.readers.streams import check_file, open_error
from evalsig.errors import DataError, examples
from evalsig.store.naming import ModelName, Naming, harness_model

__all__ = [
    "TABULAR",
    "Part",
    "Rows",
    "Spec",
    "check_arguments",
    "check_model_source",
    "conflict_error",
    "describe_origins",
    "digest",
    "ingest_options",
    "model_names",
    "parts",
    "rows_of",
]

TABULAR = ("csv", "jsonl", "json", "parquet")
"""Readers of generic tables: files that name no model, and may have a model column."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    """What the caller asked an ingest to do (shared by every path)."""

    options: ReadOptions
    model: str | None
    model_column: str | None
    task: str | None
    run_label: str | None
    format: str
    replace: bool


_NOT_OPTIONS = ("max_decompressed_bytes",)
"""Read options that change whether a file can be read, never what is read from it."""


def ingest_options(spec: Spec) -> str:
    """How the files of an ingest are read, as canonical JSON (stored with each source).

    Two ingests of one content with equal options store the same rows, so the second is
    skipped unread. ``replace`` is not an option of the reading.

    Examples
    --------
    >>> spec = Spec(options=ReadOptions(where=(("b", "2"), ("a", "1"))), model="m",
    ...             model_column=None, task="t", run_label=None, format="auto", replace=True)
    >>> ingest_options(spec)[:60]
    '{"answer_column":null,"cluster_column":null,"filter":null,"f'
    >>> '"where":[["a","1"],["b","2"]]' in ingest_options(spec)
    True
    """
    read: dict[str, Any] = {
        f.name: getattr(spec.options, f.name)
        for f in fields(spec.options)
        if f.name not in _NOT_OPTIONS
    }
    read["where"] = sorted(map(list, spec.options.where))
    read.update(
        model=spec.model,
        model_column=spec.model_column,
        ingest_task=spec.task,
        run_label=spec.run_label,
        format=spec.format,
    )
    return json.dumps(read, sort_keys=True, separators=(",", ":"))


@dataclass(slots=True)
class Part:
    """The validated rows of one task, metric and filter of one source."""

    source_task: str
    """The task as the reader named it (with a model column: the model)."""
    task: str
    metric: str
    filter: str | None
    rows: list[tuple[Any, ...]]
    notes: tuple[str, ...]
    model: str = ""
    origin: str = ""

    @property
    def n_rows(self) -> int:
        return len(self.rows)


def parts(collector: Collector, path: Path, spec: Spec) -> list[Part]:
    """Choose the tasks, metrics and filters to store, and validate each (as load() does)."""
    names = collector.task_names()
    if not names:
        raise DataError(f"{path}: no scored records found.")
    rename: dict[str, str] = {}
    if spec.model_column is not None:
        if spec.task is None:
            raise DataError(
                f"{path}: a long table with a model column holds one task; name it with "
                "--task NAME (task=)."
            )
        if "None" in names:  # the readers write an empty or null cell as 'None'
            raise DataError(
                f"{path}: some rows have an empty model column {spec.model_column!r}; give "
                "every row its model, or leave those rows out with --where."
            )
        selected = names
        rename = dict.fromkeys(names, spec.task)
    elif spec.task is not None:
        if spec.task in names:
            selected = [spec.task]
        elif names == [""]:
            selected, rename = [""], {"": spec.task}
        else:
            raise DataError(f"{path}: no task {spec.task!r}; tasks: {', '.join(map(repr, names))}.")
    elif "" in names:
        raise DataError(f"{path}: the file names no task; name it with --task NAME (task=).")
    else:
        selected = names
    options = spec.options
    combos: dict[str, dict[tuple[str, str | None], list[tuple[Any, ...]]]] = {
        name: {} for name in selected
    }
    for row in collector.rows:
        group = combos.get(row[TASK])
        if group is None:
            continue
        metric, filter = row[METRIC], row[FILTER]
        if options.metric is not None and metric != options.metric:
            continue
        if options.filter is not None and filter is not None and filter != options.filter:
            continue
        rows = group.get((metric, filter))
        if rows is None:
            rows = group[metric, filter] = []
        rows.append(row)
    if len(selected) == len(names) and all(len(c) == 1 for c in combos.values()):
        tables = collector.tables()  # one pass validates every task
        validated = {(t, *next(iter(combos[t]))): tables[t] for t in selected}
    else:
        validated = {}
        for name in selected:
            if not combos[name]:  # the chosen metric or filter is absent: select() says so
                collector.select(task=name, metric=options.metric, filter=options.filter)
                raise DataError(
                    f"{path}: task {name!r} has no scores for metric {options.metric!r} "
                    f"and filter {options.filter!r}."
                )
            for metric, filter in combos[name]:
                validated[name, metric, filter] = collector.select(
                    task=name, metric=metric, filter=filter
                )
    return [
        Part(
            name,
            rename.get(name, name),
            metric,
            filter,
            rows,
            validated[name, metric, filter].notes,
        )
        for name in selected
        for (metric, filter), rows in combos[name].items()
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rows:
    """A source's rows as columns, ready for DuckDB (``models[model_codes]`` per row ...)."""

    parts: list[Part]
    models: list[str]
    tasks: list[str]
    model_codes: np.ndarray
    task_codes: np.ndarray
    metric: np.ndarray
    filter: np.ndarray
    """'' where the reader gives no filter."""
    item: np.ndarray
    run: np.ndarray
    """'' where the reader gives no run label."""
    score: np.ndarray
    cluster: np.ndarray
    key: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.score)


def rows_of(parts: list[Part], names: Mapping[str, ModelName], spec: Spec) -> Rows:
    """The rows of every part as columns; sets each part's model and its origin."""
    models: dict[str, int] = {}
    tasks: dict[str, int] = {}
    n = sum(p.n_rows for p in parts)
    model_codes = np.empty(n, dtype=np.int64)
    task_codes = np.empty(n, dtype=np.int64)
    columns: dict[str, list[Any]] = {
        k: [] for k in ("item", "run", "score", "cluster", "key", "metric", "filter")
    }
    clustered = spec.options.cluster_column is not None
    label = spec.run_label
    start = 0
    for part in parts:
        part.model, part.origin = names[part.source_task].name, names[part.source_task].origin
        stop = start + part.n_rows
        model_codes[start:stop] = models.setdefault(part.model, len(models))
        task_codes[start:stop] = tasks.setdefault(part.task, len(tasks))
        start = stop
        rows = part.rows
        several_files = len({row[FILE] for row in rows}) > 1
        runs = [_run_label(row, several_files) for row in rows]
        if label is not None:
            runs = [label if r is None else f"{label}/{r}" for r in runs]
        columns["run"] += ["" if r is None else str(r) for r in runs]
        columns["item"] += [str(row[ITEM]) for row in rows]
        columns["score"] += [row[VALUE] for row in rows]
        columns["cluster"] += (
            [None if row[CLUSTER] is None else str(row[CLUSTER]) for row in rows]
            if clustered
            else [None] * len(rows)
        )
        columns["key"] += [None if row[KEY] is None else str(row[KEY]) for row in rows]
        columns["metric"] += [part.metric] * len(rows)
        columns["filter"] += [part.filter or ""] * len(rows)
    return Rows(
        parts=parts,
        models=list(models),
        tasks=list(tasks),
        model_codes=model_codes,
        task_codes=task_codes,
        score=np.asarray(columns.pop("score"), dtype=np.float64),  # validated numbers
        **{name: _object_array(values) for name, values in columns.items()},
    )


def _run_label(row: tuple[Any, ...], several_files: bool) -> object:
    """The run of an observation as the readers label it (file number first, if several)."""
    run = row[RUN]
    if not several_files:
        return run
    return f"{row[FILE]}" if run is None else f"{row[FILE]}/{run}"


def _object_array(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def digest(path: Path) -> tuple[str, Literal["file", "directory"]]:
    """The SHA-256 of a file's content, or of a directory's files (relative paths and
    contents). Each file is checked by the input layer first: a pipe or a device (which
    would block, or never end) is refused, and a failure to read it is one line."""
    digest = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            name = file.relative_to(path).as_posix().encode()
            digest.update(len(name).to_bytes(8, "little") + name)
            digest.update(check_file(file).st_size.to_bytes(8, "little"))
            _feed(digest, file)
        return digest.hexdigest(), "directory"
    check_file(path)
    _feed(digest, path)
    return digest.hexdigest(), "file"


def _feed(digest: Any, file: Path) -> None:
    try:
        with open(file, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise open_error(file, exc) from None


def model_names(path: Path, reader: str, spec: Spec, parts: list[Part]) -> dict[str, ModelName]:
    """The model of each part's collector task (with a model column: the task is it)."""
    if spec.model_column is not None:
        origin = f"column {spec.model_column!r}"
        return {p.source_task: ModelName(name=p.source_task, origin=origin) for p in parts}
    try:
        naming = harness_model(path, reader, spec.options)
    except DataError:
        if spec.model is None:
            raise
        naming = Naming()
    out: dict[str, ModelName] = {}
    for part in parts:
        found = naming.of(part.source_task)
        if spec.model is not None:
            differs = found is not None and found.name != spec.model
            origin = "given (model=, --model)" + (
                f"; the file's metadata names {found.name!r} ({found.origin})"
                if found is not None and differs
                else ""
            )
            out[part.source_task] = ModelName(name=spec.model, origin=origin)
        elif found is not None:
            out[part.source_task] = found
        else:
            raise _unnamed(path, naming.hint or f"{reader} files do not name their model")
    return out


def check_model_source(path: Path, reader: str, spec: Spec) -> None:
    """Fail early when a file can name no model: a generic table without model or column."""
    if spec.model_column is not None and reader not in TABULAR:
        raise DataError(
            f"{path}: {reader} files have no model column; --model-column (model_column=) is "
            f"for long tables ({', '.join(TABULAR)})."
        )
    if spec.model_column is None and spec.model is None and reader in TABULAR:
        raise _unnamed(path, f"{reader} files do not name the model they scored")


def _unnamed(path: Path, why: str) -> DataError:
    return DataError(
        f"{path}: cannot tell which model these scores are from: {why}. Give the model with "
        "--model NAME (model=), or name the model column of a long table with --model-column "
        "COLUMN (model_column=)."
    )


def check_arguments(
    *,
    model: str | None,
    model_column: str | None,
    task: str | None,
    task_column: str | None,
    run_label: str | None,
) -> None:
    """The ingest options that cannot go together, or are empty."""
    if model is not None and model_column is not None:
        raise DataError(
            "give the model with model= (--model) or a model column with model_column= "
            "(--model-column), not both."
        )
    if model_column is not None and task_column is not None:
        raise DataError(
            f"a long table with a model column ({model_column!r}) and a task column "
            f"({task_column!r}): ingest one task at a time, e.g. "
            f"--where {task_column}=NAME --task NAME."
        )
    for name, value in (("model", model), ("task", task), ("run_label", run_label)):
        if value is not None and not value.strip():
            raise DataError(f"`{name}` is empty ({value!r}); give a name.")


def describe_origins(parts: list[Part]) -> tuple[str, ...]:
    """How the model names were found, one line per origin, for the ingest report."""
    by_origin: dict[str, dict[str, None]] = {}
    for part in parts:
        by_origin.setdefault(part.origin, {})[part.model] = None
    return tuple(
        (
            f"model {examples(named)}"
            if len(named) == 1
            else f"{len(named)} models ({examples(named)})"
        )
        + (" " if origin.startswith("given") else " from ")
        + origin
        for origin, named in by_origin.items()
    )


def conflict_error(path: Path, clashes: list[tuple[Any, ...]]) -> DataError:
    """The error for scores another stored file already holds; ``clashes`` has one row per
    (old source, model, task): source id, path, model id, model, task id, task, count, an
    example item and its run."""
    described = "; ".join(
        f"{count:,} of model {model!r} on task {task!r} (e.g. item {item!r}"
        + (f", run {run!r}" if run else "")
        + f") are already stored from {old}"
        for _, old, _, model, _, task, count, item, run in clashes[:3]
    )
    more = f"; and {len(clashes) - 3} more" if len(clashes) > 3 else ""
    return DataError(
        f"{path}: scores for the same model, task, metric, item and run as another "
        f"file: {described}{more}. If {path} replaces that file, pass --replace "
        "(replace=True); if it holds further runs, label its runs with --run-label "
        "(run_label=) or a run column."
    )
