"""An embedded results store: harness outputs read once into a DuckDB database.

:meth:`ResultsStore.ingest` reads result files with the same readers as every other
command (so the same checks apply: NaN scores, duplicate rows, clashing clusters or
content keys are errors) and keeps every observation, each run of each item, with its
cluster label and content key. Nothing is loaded twice: a path whose content (SHA-256) is
already stored for the same model, task, metric and filter is skipped and reported. The
same content given for another model or task is stored for it, with a warning when the
scores are identical. A different file claiming scores the store already holds for the
same model, task, metric, item and run is refused, naming both files, unless it is meant
to replace them (``replace=True``). :meth:`ResultsStore.model_scores` gives a task's
models x items matrix without re-reading any file.

Concurrent use
--------------
DuckDB locks the file for as long as a store is open: one process may have it open to
write (an ingest), or any number of processes to read (``read_only=True``: store-info,
leaderboard), never both at once. Opening a store that another process holds waits, with
backoff, up to ``lock_timeout`` seconds for it, then raises
:class:`~evalsig.errors.StoreLockedError`. Every ingest is one transaction: a failure or
a crash part-way stores nothing of it.

Schema
------
``models(model_id, name)``, ``tasks(task_id, name)``
    One row per model and task name.
``items(task_id, item_id, name)``
    Item ids are per task; ``item_id`` numbers a task's items in order of first appearance.
``sources(source_id, path, sha256, kind, format, ingested_at, n_rows, ingest_options)``
    One row per ingested file or directory; ``ingested_at`` is UTC; ``ingest_options`` is
    how it was read (model, task, columns ...) as JSON, NULL for a version 1 store's sources.
``source_parts(source_id, model_id, task_id, metric, filter_name, model_origin, n_rows, notes)``
    What each source holds: per model, task, metric and lm-eval filter, how the model name
    was determined and the reader's notes.
``scores(source_id, seq, model_id, task_id, metric, filter_name, item_id, run, score,
cluster, content_key)``
    One row per observation; ``seq`` is its order in the source (tables are rebuilt in
    that order, so per-item sums are bit-for-bit those of reading the files); ``run`` is
    the run label ('' when the file has none); ``filter_name`` is '' without a filter.
``evalsig_store(key, value)``
    The schema version (see :mod:`evalsig.store._schema` for versions and migration).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from evalsig.data.models import ModelScores, model_scores
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.readers import ReadOptions, _expand
from evalsig.data.readers.base import ReaderKeywordsExceptTask, read_options
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError, examples
from evalsig.progress import report
from evalsig.store._connection import Connection, check_store_file
from evalsig.store._ingest import Spec, check_arguments, ingest_options
from evalsig.store._lock import DEFAULT_LOCK_TIMEOUT, check_lock_timeout, connect
from evalsig.store._read import choose, rebuild, what
from evalsig.store._schema import SCHEMA_VERSION, check_schema
from evalsig.store._write import Writer
from evalsig.store.results import (
    IngestReport,
    SourceReport,
    StoredModel,
    StoredSource,
    StoredTask,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["DEFAULT_LOCK_TIMEOUT", "SCHEMA_VERSION", "ResultsStore"]

MIN_DUCKDB = (1, 2)
"""The oldest duckdb that takes a dict of numpy arrays as a table without pandas."""


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise DataError(
            "the results store needs the duckdb package; install it with "
            "pip install 'evalsig-stats[store]'."
        ) from None
    version = tuple(int(p) for p in re.findall(r"\d+", duckdb.__version__)[:2])
    if version < MIN_DUCKDB:
        raise DataError(
            f"the results store needs duckdb >= {'.'.join(map(str, MIN_DUCKDB))} (it reads "
            f"numpy arrays without pandas); found {duckdb.__version__}. Upgrade it with "
            "pip install -U 'evalsig-stats[store]'."
        )
    return duckdb


def _spec(
    *,
    model: str | None,
    model_column: str | None,
    task: str | None,
    read: ReadOptions,
    run_label: str | None,
    format: str,
    replace: bool,
) -> Spec:
    """The checked options of :meth:`ResultsStore.ingest`, shared by every path."""
    check_arguments(
        model=model,
        model_column=model_column,
        task=task,
        task_column=read.task_column,
        run_label=run_label,
    )
    if model_column is not None:  # a long table's models are read as its tasks
        read = dataclasses.replace(read, task_column=model_column)
    return Spec(
        options=read,
        model=model,
        model_column=model_column,
        task=task,
        run_label=run_label,
        format=format,
        replace=replace,
    )


class ResultsStore:
    """A DuckDB file of evaluation results: many models, tasks, items and runs.

    Parameters
    ----------
    path : str or PathLike
        The database file; created (with its tables) when it does not exist, unless
        ``read_only``.
    read_only : bool
        Open for reading only. Any number of processes may read one store at once; only
        one may have it open to write, and then no other may read it.
    lock_timeout : float
        Seconds to wait, retrying with backoff, while another process holds the store
        (default 30); 0 does not wait.

    Raises
    ------
    StoreLockedError
        Another process held the store for longer than ``lock_timeout``.
    DataError
        duckdb is not installed; the file is not a DuckDB database or not an evalsig store
        (or one of a schema version this evalsig does not read); a read-only store does not
        exist; the path is a directory, a pipe or a device. A store file that is damaged
        or truncated raises a DataError naming it and the fix, here or at whatever later
        call DuckDB finds the damage.

    Notes
    -----
    The store stays locked from opening until :meth:`close` (or the end of a ``with``
    block): close it as soon as you are done, so that other processes can open it. A store
    written by an older evalsig (schema version 1) is read as it is, and migrated to the
    current version, in one transaction, when opened to write.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, right in (("small", 2), ("large", 3)):
    ...     rows = [f"q{i},{int(i < right)}" for i in range(4)]
    ...     _ = (folder / f"{name}.csv").write_text("id,correct\\n" + "\\n".join(rows) + "\\n")
    >>> with ResultsStore(folder / "results.duckdb") as store:
    ...     _ = store.ingest(folder / "small.csv", model="small", task="quiz")
    ...     _ = store.ingest(folder / "large.csv", model="large", task="quiz")
    ...     board = store.model_scores("quiz")
    >>> board.names, board.means.tolist()
    (('small', 'large'), [0.5, 0.75])
    """

    __slots__ = ("_closed", "_con", "lock_timeout", "path", "read_only")

    def __init__(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        read_only: bool = False,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        _duckdb()  # fail early, with the install hint, when duckdb is missing
        self.path = Path(path)
        self.read_only = read_only
        self.lock_timeout = check_lock_timeout(lock_timeout)
        self._con: Connection | None = None
        self._closed = False
        if check_store_file(self.path):
            self._open()
        elif read_only:
            raise DataError(
                f"{self.path}: no results store there; create one with "
                f"evalsig ingest PATH... --store {self.path}."
            )

    def _open(self) -> None:
        """Connect (waiting for another process's lock), create or check the tables.

        This is the one place the store opens its database: every statement after it goes
        through :class:`~evalsig.store._connection.Connection`, so a damaged or truncated
        file is one error naming it and the fix, at whatever query DuckDB finds the damage.
        """
        ddb = _duckdb()
        self._con = Connection(
            connect(ddb, self.path, read_only=self.read_only, lock_timeout=self.lock_timeout),
            ddb,
            self.path,
        )
        try:
            check_schema(self._con, self.path, read_only=self.read_only)
        except BaseException:
            self.close()
            raise

    @property
    def _db(self) -> Connection:
        if self._con is None:
            if self._closed:
                raise DataError(f"{self.path}: the results store is closed.")
            raise DataError(
                f"{self.path}: no results store there yet; create one with "
                f"evalsig ingest PATH... --store {self.path}."
            )
        return self._con

    def close(self) -> None:
        """Close the database (further calls fail)."""
        if self._con is not None:
            self._db.close()
        self._con = None
        self._closed = True

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r}{', read_only=True' if self.read_only else ''})"

    # --- ingest ---------------------------------------------------------------------------

    def ingest(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        /,
        *,
        model: str | None = None,
        model_column: str | None = None,
        task: str | None = None,
        read: ReadOptions | None = None,
        run_label: str | None = None,
        format: str = "auto",
        replace: bool = False,
        **keywords: Unpack[ReaderKeywordsExceptTask],
    ) -> IngestReport:
        """Read result files once and store every observation; skip what is already stored.

        Parameters
        ----------
        paths : path, list of paths or glob pattern
            Harness outputs or long-format tables, each read on its own (one source each:
            a file, or a directory such as an lm-eval output folder or a HELM run).
        model : str, optional
            The model the files scored. Harness logs name their model (see Notes); generic
            tables do not, and need ``model`` or ``model_column``. When both ``model`` and
            the metadata give a name, ``model`` wins and the report shows both.
        model_column : str, optional
            A column naming the model of each row of a long table (generic tables only;
            the table then holds one task, named by ``task``).
        task : str, optional
            The task to store from files holding several; or the name of the task of a
            file that has none (a generic table without a task column).
        read : ReadOptions, optional
            How to read files: columns, harness choices, limits, as for
            :func:`evalsig.load` (see :class:`~evalsig.data.ReadOptions`). Its ``metric``,
            ``filter`` and ``split`` store only this metric (lm-eval metric, Inspect
            scorer, HELM stat), lm-eval filter, HELM split; by default every metric and
            filter is stored, and readers of the store choose among them.
        format : str
            As for :func:`evalsig.load`.
        run_label : str, optional
            A label for the runs of these files, so that files that are repeated runs of
            one evaluation (and carry no run labels of their own) do not clash: a row's
            run is stored as ``run_label`` or ``run_label/<its run>``.
        replace : bool
            When a file holds scores the store already has from another file (same model,
            task, metric, item and run), drop that file's scores of that model, task,
            metric and filter and store the new ones, instead of failing. A file whose
            content is already stored for the same model and task is read again (e.g. with
            another ``cluster_column``) and replaces its stored copy, instead of being
            skipped.
        **keywords
            The fields of :class:`~evalsig.data.ReadOptions` but ``task`` as keywords, a
            shorthand for ``read`` (``id_column=...``, ``where={"model": "m"}``). A field
            given both here and in ``read`` is an error.

        Returns
        -------
        IngestReport
            Per path: ingested (scores, models, tasks, how model names were found, what it
            replaced, warnings) or skipped (the stored source with the same content).

        Raises
        ------
        DataError
            Invalid data (as :func:`evalsig.load`), a file whose model cannot be named,
            a file claiming scores another file already stored, a file that changed while
            it was read. Nothing is stored then: an ingest is one transaction.
        TypeError
            A keyword that is not a field of ReadOptions; a field given twice.
        StoreLockedError
            The store did not exist when opened, and another process created and held it
            for longer than ``lock_timeout``.

        Notes
        -----
        What is already stored is decided per path, model, task, metric and filter. A path
        whose content (SHA-256) was stored before with the same options is skipped unread.
        Otherwise it is read, and each model, task, metric and filter that the same content
        already stored is skipped (so reading a file again for one more metric stores just
        that metric); what is left is stored. The same content stored for another model or
        task is reported as a warning when the scores are identical.

        Model names come from ``model_name`` in lm-evaluation-harness's
        ``results_<datetime>.json`` beside the samples files (or ``config.model_args``),
        Inspect's ``eval.model``, HELM's ``adapter_spec.model`` in ``run_spec.json`` (or
        the ``model=`` entry of the run name), the OpenAI evals run spec's completion
        function, Every Eval Ever's ``model_id`` and AlpacaEval's ``generator_2``. A name is
        never guessed from other parts of a path.
        """
        self._writable()
        spec = _spec(
            model=model,
            model_column=model_column,
            task=task,
            read=read_options(read, **keywords),
            run_label=run_label,
            format=format,
            replace=replace,
        )
        files = _expand(paths)
        if self._con is None and not self._closed:
            self._open()
        return self._ingest_files(files, spec)

    def _ingest_files(self, files: list[Path], spec: Spec) -> IngestReport:
        """Store each file in one transaction: all of them, or nothing on a failure."""
        reports: list[SourceReport] = []
        options = ingest_options(spec)
        writer = Writer(self._db, self.path)
        self._db.begin()
        try:
            for number, path in enumerate(files, start=1):
                reports.append(writer.ingest_one(path, spec, options))
                report("ingesting result files", number, len(files))
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise
        return IngestReport(
            store=str(self.path),
            sources=tuple(reports),
            n_tasks=self._count("tasks"),
            n_models=self._count("models"),
        )

    def _first(self, query: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
        """The first row of a query (the result is fetched whole, so it is finished)."""
        rows = self._db.execute(query, list(params)).fetchall()
        return rows[0] if rows else None

    def _writable(self) -> None:
        if self.read_only:
            raise DataError(f"{self.path}: the store was opened read-only; open it to write.")

    def _count(self, table: str) -> int:
        row = self._first(f"SELECT count(*) FROM {table}")
        return 0 if row is None else int(row[0])

    # --- reading --------------------------------------------------------------------------

    def tasks(self) -> tuple[str, ...]:
        """The tasks with scores, in the order they were first stored."""
        rows = self._db.execute(
            """SELECT name FROM tasks WHERE task_id IN (SELECT task_id FROM source_parts)
            ORDER BY task_id"""
        ).fetchall()
        return tuple(str(r[0]) for r in rows)

    def models(self, task: str | None = None) -> tuple[str, ...]:
        """The models with scores (on ``task``, when given), in the order first stored."""
        if task is None:
            query, params = "SELECT model_id FROM source_parts", []
        else:
            query, params = (
                "SELECT model_id FROM source_parts WHERE task_id = ?",
                [self._task_id(task)],
            )
        rows = self._db.execute(
            f"SELECT name FROM models WHERE model_id IN ({query}) ORDER BY model_id", params
        ).fetchall()
        return tuple(str(r[0]) for r in rows)

    def sources(self) -> tuple[StoredSource, ...]:
        """The ingested files and directories, in the order they were ingested."""
        rows = self._db.execute(
            """SELECT path, sha256, kind, format, strftime(ingested_at, '%Y-%m-%dT%H:%M:%SZ'),
                      n_rows
            FROM sources ORDER BY source_id"""
        ).fetchall()
        return tuple(
            StoredSource(
                path=str(r[0]),
                sha256=str(r[1]),
                kind=str(r[2]),
                format=str(r[3]),
                ingested_at=str(r[4]),
                n_rows=int(r[5]),
            )
            for r in rows
        )

    def contents(self) -> tuple[StoredTask, ...]:
        """Per task, metric and filter: the models, their items and runs."""
        rows = self._db.execute(
            """WITH per_item AS (
                SELECT task_id, metric, filter_name, model_id, item_id, count(*) AS runs
                FROM scores GROUP BY ALL)
            SELECT t.name, p.metric, p.filter_name, m.name, count(*), sum(p.runs)::BIGINT,
                   min(p.runs), max(p.runs)
            FROM per_item p JOIN tasks t USING (task_id) JOIN models m USING (model_id)
            GROUP BY t.task_id, t.name, p.metric, p.filter_name, m.model_id, m.name
            ORDER BY t.task_id, p.metric, p.filter_name, m.model_id"""
        ).fetchall()
        items = {
            (str(r[0]), str(r[1]), str(r[2])): int(r[3])
            for r in self._db.execute(
                """SELECT t.name, s.metric, s.filter_name, count(DISTINCT s.item_id)
                FROM scores s JOIN tasks t USING (task_id) GROUP BY ALL"""
            ).fetchall()
        }
        grouped: dict[tuple[str, str, str], list[StoredModel]] = {}
        for task, metric, filter_name, model, n_items, n_scores, low, high in rows:
            grouped.setdefault((str(task), str(metric), str(filter_name)), []).append(
                StoredModel(
                    name=str(model),
                    n_items=int(n_items),
                    n_scores=int(n_scores),
                    runs=(int(low), int(high)),
                )
            )
        return tuple(
            StoredTask(
                task=task,
                metric=metric,
                filter=filter_name or None,
                n_items=items[task, metric, filter_name],
                models=tuple(models),
            )
            for (task, metric, filter_name), models in grouped.items()
        )

    def table(
        self, model: str, task: str, *, metric: str | None = None, filter: str | None = None
    ) -> ScoreTable:
        """One model's scores on one task, as :func:`evalsig.load` would read its files.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "a.csv").write_text("id,run,correct\\nq1,1,1\\nq1,2,0\\nq2,1,1\\n")
        >>> with ResultsStore(folder / "results.duckdb") as store:
        ...     _ = store.ingest(folder / "a.csv", model="a", task="quiz")
        ...     table = store.table("a", "quiz")
        >>> table.item_ids.tolist(), table.counts.tolist(), table.means.tolist()
        (['q1', 'q2'], [2, 1], [0.5, 1.0])
        """
        task_id = self._task_id(task)
        model_id = self._model_ids(task, task_id, [model])[0]
        chosen_metric, chosen_filter = choose(
            self._db, self.path, task, task_id, metric, filter, [model_id]
        )
        return rebuild(
            self._db, self.path, task, task_id, chosen_metric, chosen_filter, [model_id]
        )[model]

    def model_scores(
        self,
        task: str,
        *,
        metric: str | None = None,
        filter: str | None = None,
        models: Sequence[str] | None = None,
        on_missing: OnMissing = "error",
        on_mismatch: OnMismatch = "error",
    ) -> ModelScores:
        """The models x items matrix of ``task``, as :func:`evalsig.data.models.model_scores`.

        Parameters
        ----------
        task : str
            A stored task.
        metric, filter : str, optional
            Needed only when the task was stored with several metrics (or lm-eval filters).
        models : sequence of str, optional
            The models, in this order; by default every model with scores for the metric,
            in the order first stored (models of the task without that metric are named
            in the notes).
        on_missing, on_mismatch : str
            Items some models lack, and items whose stored content keys differ between
            models (see :func:`evalsig.data.models.model_scores`).

        Returns
        -------
        ModelScores
            Built from per-model tables rebuilt from the stored rows (every run, cluster
            label and content key), row for row as reading the files gives them.
        """
        task_id = self._task_id(task)
        wanted = None if models is None else self._model_ids(task, task_id, list(models))
        chosen_metric, chosen_filter = choose(
            self._db, self.path, task, task_id, metric, filter, wanted
        )
        have = [
            int(r[0])
            for r in self._db.execute(
                """SELECT DISTINCT model_id FROM source_parts
                WHERE task_id = ? AND metric = ? AND filter_name = ? ORDER BY model_id""",
                [task_id, chosen_metric, chosen_filter],
            ).fetchall()
        ]
        notes: list[str] = []
        if wanted is None:
            wanted = have
            others = self._db.execute(
                """SELECT name FROM models WHERE model_id IN (
                    SELECT model_id FROM source_parts WHERE task_id = ?) AND model_id NOT IN (
                    SELECT model_id FROM source_parts
                    WHERE task_id = ? AND metric = ? AND filter_name = ?) ORDER BY model_id""",
                [task_id, task_id, chosen_metric, chosen_filter],
            ).fetchall()
            if others:
                notes.append(
                    f"{what(chosen_metric, chosen_filter)}: left out "
                    f"{', '.join(repr(r[0]) for r in others)}, which have scores on task "
                    f"{task!r} for other metrics only"
                )
        else:
            lacking = [m for m, i in zip(models or (), wanted, strict=True) if i not in have]
            if lacking:
                raise DataError(
                    f"{self.path}: model(s) {examples(lacking)} have no scores on task {task!r} "
                    f"for {what(chosen_metric, chosen_filter)}; drop them or choose another "
                    "metric."
                )
        tables = rebuild(self._db, self.path, task, task_id, chosen_metric, chosen_filter, wanted)
        scores = model_scores(tables, on_missing=on_missing, on_mismatch=on_mismatch)
        return replace(scores, notes=scores.notes + tuple(notes)) if notes else scores

    def _task_id(self, task: str) -> int:
        row = self._first("SELECT task_id FROM tasks WHERE name = ?", [task])
        if row is None:
            known = self.tasks()
            raise DataError(
                f"{self.path}: no task {task!r} in the store; tasks: "
                f"{', '.join(map(repr, known)) or 'none (ingest some files first)'}."
            )
        return int(row[0])

    def _model_ids(self, task: str, task_id: int, names: list[str]) -> list[int]:
        repeated = sorted({name for name in names if names.count(name) > 1})
        if not names or repeated:
            raise DataError(
                f"`models` is empty or names a model twice ({examples(repeated)}); list each "
                f"model once, or leave `models` out for every model of task {task!r}."
            )
        found = dict(
            self._db.execute(
                """SELECT m.name, m.model_id FROM models m WHERE m.model_id IN (
                    SELECT model_id FROM source_parts WHERE task_id = ?)""",
                [task_id],
            ).fetchall()
        )
        missing = [name for name in names if name not in found]
        if missing:
            raise DataError(
                f"{self.path}: no scores of model(s) {examples(missing)} on task {task!r}; "
                f"models of that task: {', '.join(map(repr, self.models(task)))}."
            )
        return [int(found[name]) for name in names]
