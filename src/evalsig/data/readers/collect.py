"""What every reader produces: observations, collected column by column, then selected.

A reader parses its format and calls :meth:`Collector.add` once per scored observation:
task, item, run, metric (and lm-eval's filter), value, optional cluster label and content
key. Selection is shared: the task, metric and filter are taken from the options or, when
the file leaves no doubt, from the data; when several are possible the error lists them
instead of guessing. The same observations also describe a file for ``evalsig inspect``.
"""

from __future__ import annotations

import math
import os
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any

import numpy as np

from evalsig.data.build import kind_of_types, table_from_long
from evalsig.data.provenance import Origin, file_model, file_record
from evalsig.data.readers.base import ReadOptions
from evalsig.data.table import IdKind, ScoreTable
from evalsig.errors import DataError, FormatError, examples

__all__ = ["Collector", "Description", "TaskDescription", "Unusable"]


class Unusable:
    """An observation a reader found without a usable value, and why (e.g. a HELM stat with
    count 0). Added in place of the value: an error when its metric is chosen (left out,
    and noted, with ``skip_bad_lines``); other metrics' are never looked at."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unusable({self.reason!r})"


@dataclass(frozen=True, slots=True)
class TaskDescription:
    """What one task of a file holds."""

    name: str
    n_items: int
    n_observations: int
    runs: tuple[int, int]
    """Fewest and most runs per item."""
    metrics: tuple[str, ...]
    filters: tuple[str, ...]
    binary: bool
    n_missing: int
    """Observations whose value is null, NaN or not a number."""
    scale: str = ""
    """'0/1', 'continuous', or 'all 0 (scale unknown)' when every value is the same number,
    which cannot tell a 0/1 score from a 0-100 one; 'no scores' for items never scored."""
    descriptive: tuple[tuple[str, float | None, int], ...] = ()
    """Metrics that are bookkeeping (token counts, runtimes, request settings), not scores,
    each with the mean of its finite values (None when it has none) and their number:
    described so, never given a score's interval."""


@dataclass(frozen=True, slots=True)
class Description:
    """What evalsig sees in one or more files of one model."""

    sources: tuple[str, ...]
    formats: tuple[str, ...]
    tasks: tuple[TaskDescription, ...]
    cluster_fields: tuple[str, ...]
    key_fields: tuple[str, ...]
    skipped: int
    """Malformed records skipped (describe() reads with skip_bad_lines)."""
    problems: tuple[str, ...]
    """Where and why the first malformed records were skipped."""
    notes: tuple[str, ...]
    layouts: tuple[str, ...] = ()
    """The harness and version of each layout read, e.g. 'lm-eval v0.4.7 or later'."""
    models: tuple[str, ...] = ()
    """The models the files name (their harness metadata), in order of first appearance."""


@dataclass(slots=True)
class Collector:
    """Accumulates observations from one or more files of one model."""

    options: ReadOptions
    sources: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    versions: list[str | None] = field(default_factory=list)
    """The version (layout) of each file's format, when its reader can tell."""
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    """One tuple per observation: task, item, value, metric, filter, run, cluster, key,
    file number, position (in that order: see :meth:`add`)."""
    cluster_fields: set[str] = field(default_factory=set)
    key_fields: set[str] = field(default_factory=set)
    skipped: list[tuple[int, object, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    """How messages name the fields: keys 'id', 'score', 'run', 'cluster' (set by readers)."""
    tasks_seen: set[str] = field(default_factory=set)
    """Tasks a reader passed over because another was chosen (for the message)."""
    hinted: dict[str, set[object]] = field(default_factory=dict)
    """Labels seen in columns that look like clusters but were not passed (for a note)."""
    models: dict[int, str] = field(default_factory=dict)
    """The model named by each file's harness metadata (by file number), when it names one."""
    descriptive: dict[str, str] = field(default_factory=dict)
    """Metrics a reader knows to be bookkeeping, not scores, and what they are (e.g.
    'num_output_tokens': 'a HELM token count')."""
    unscored: list[tuple[int, str, int, str]] = field(default_factory=list)
    """Files that hold items but no scores at all: (file, task, items, why and the fix)."""
    passed: list[str] = field(default_factory=list)
    """The models of inputs passed over because ``where`` chose another model."""
    untyped: set[int] = field(default_factory=set)
    """Files whose item ids have no type of their own (see :meth:`ids_untyped`)."""
    _file: int = -1

    def start_file(self, source: str, format: str) -> None:
        """Begin a new file: observations that follow are its runs."""
        self.sources.append(source)
        self.formats.append(format)
        self.versions.append(None)
        self._file = len(self.sources) - 1

    def folder_file(self, number: int, source: str, format: str) -> None:
        """Begin the file numbered ``number`` (from 0) of those read from one folder: the
        first stands for the folder itself (the file already begun); each other is a new file."""
        if number:
            self.start_file(source, format)
        else:
            self.sources[self._file] = source

    def version(self, text: str) -> None:
        """Record which version (layout) of its format the current file is."""
        self.versions[self._file] = text

    def model(self, name: object) -> None:
        """Record the model the current file's harness metadata names (a string; the first
        one given for a file is kept). An empty name is an error: the file claims to name
        its model and does not, so files of several models could not be told apart."""
        if isinstance(name, str) and not name.strip():
            raise FormatError(
                f"{self.sources[self._file]}: names its model as {name!r}, an empty name; "
                "give the model's name in the file (or rewrite it from the run's settings)."
            )
        if isinstance(name, str):
            self.models.setdefault(self._file, name.strip())

    def ids_untyped(self) -> None:
        """The current file's item ids are text by its layout, whatever its writer held
        (the keys of a JSON object): neither numbers nor text (:attr:`ScoreTable.id_kind`),
        as a CSV file's are."""
        self.untyped.add(self._file)

    def unknown_version(self, what: str, found: object, read_as: str) -> None:
        """The current file names a version of its format that evalsig does not know: it is
        read as ``read_as`` (the newest layout evalsig knows), said in a note and in the
        layout, never labelled as a known version."""
        self.version(f"unknown {what} {found}; read as {read_as}")
        self.notes.append(
            f"{self.sources[self._file]}: unknown {what} {found!r}; read as {read_as}, the "
            "newest evalsig knows. If the format changed, the scores may be misread: check "
            "them, or upgrade evalsig."
        )

    def no_scores(self, task: str, n_items: int, why: str) -> None:
        """The current file holds ``n_items`` items of ``task`` and no score at all (e.g. an
        Inspect log written without scoring): described by ``inspect``, an error to read."""
        self.unscored.append((self._file, task, n_items, why))

    def origin(
        self,
        files: Sequence[int],
        *,
        task: str,
        metric: str | None,
        filter: str | None,
        paths: Sequence[str] = (),
        format: str = "",
        layout: str | None = None,
    ) -> Origin:
        """Where a table of the files numbered ``files`` came from (see :class:`Origin`).

        A columnar path, which starts no file, names its ``paths``, ``format`` and
        ``layout``; a model named by another file of the collection (one model) is its.
        """
        on_disk = [f for f in files if self.formats[f] not in IN_MEMORY]
        paths = [*paths, *(self.sources[f] for f in on_disk)]
        layouts = [self.versions[f] for f in files]
        named = list(dict.fromkeys(self.models[f] for f in files if f in self.models))
        if not named and len(set(self.models.values())) == 1:
            named = list(self.models.values())[:1]
        model, model_from = file_model(paths, self.options.where, " + ".join(named) or None)
        formats = [format] if format else [self.formats[f] for f in files]
        return Origin(
            files=tuple(file_record(p) for p in paths),
            format=" + ".join(dict.fromkeys(formats)),
            layout="; ".join(dict.fromkeys(v for v in layouts if v)) or layout,
            model=model,
            model_from=model_from,
            task=task or None,
            metric=metric,
            filter=filter,
            where=self.options.where,
        )

    def add(
        self,
        task: str,
        item: object,
        value: object,
        *,
        position: object,
        metric: str = "score",
        filter: str | None = None,
        run: object = None,
        cluster: object = None,
        key: object = None,
    ) -> None:
        """One scored observation; ``position`` names where it came from: a line number
        (an int) or a phrase such as 'record 3' or "member 'samples/1_epoch_1.json'".
        An item id, run or cluster that is a list or an object is a malformed record."""
        for role, label in (("item id", item), ("run", run), ("cluster", cluster)):
            if isinstance(label, (list, dict)):
                kind = "a list" if isinstance(label, list) else "an object"
                self.bad(
                    position,
                    f"the {role} is {kind} ({examples([label], 1)}), not a plain value; "
                    "give a text or a whole number.",
                )
                return
        self.rows.append(
            (task, item, value, metric, filter, run, cluster, key, self._file, position)
        )

    def offer(self, *, clusters: Iterable[str] = (), keys: Iterable[str] = ()) -> None:
        """Fields the file could use as cluster labels or content keys (for inspect)."""
        self.cluster_fields.update(clusters)
        self.key_fields.update(keys)

    def hint_cluster(self, column: str, label: object) -> None:
        """A label of an unused column that looks like a cluster; counted up to a cap."""
        seen = self.hinted.setdefault(column, set())
        if len(seen) <= MAX_HINT_LABELS and isinstance(label, (str, int, float)):
            seen.add(label)

    @property
    def file_number(self) -> int:
        """The number of the file being read (the ``FILE`` field of its rows)."""
        return self._file

    def bad(self, position: object, reason: str) -> None:
        """A malformed record: an error, or counted and skipped with ``skip_bad_lines``."""
        if not self.options.skip_bad_lines:
            raise FormatError(f"{self.sources[self._file]}: {_position(position)}: {reason}")
        self.skipped.append((self._file, position, reason))

    # --- selection -------------------------------------------------------------------------

    def _describe_where(self, file_no: int, position: object) -> str:
        prefix = f"{self.sources[file_no]}: " if len(self.sources) > 1 else ""
        return f"{prefix}{_position(position)}"

    def _source(self) -> str:
        return self.sources[0] if len(self.sources) == 1 else f"{len(self.sources)} files"

    def _choose(self, what: str, flag: str, given: str | None, present: Counter[str]) -> str:
        if given is not None:
            if given not in present:
                raise DataError(
                    f"{self._source()}: no {what} {given!r}; choose one of "
                    f"{', '.join(map(repr, sorted(present)))}."
                )
            return given
        if len(present) == 1:
            return next(iter(present))
        raise DataError(
            f"{self._source()}: several {what}s ({', '.join(map(repr, sorted(present)))}); "
            f"choose one with {flag}."
        )

    def task_names(self) -> list[str]:
        return list(dict.fromkeys(row[TASK] for row in self.rows))

    def tables(self) -> dict[str, ScoreTable]:
        """One table per task, for the chosen metric and filter."""
        self._one_model()
        if self.unscored:
            file, _, _, why = self.unscored[0]
            raise FormatError(f"{self.sources[file]}: {why}")
        if not self.rows:
            if self.passed:
                wanted = dict(self.options.where).get("model")
                raise DataError(
                    f"{self._where()}: no file of model {wanted!r} (--where model= / where=); "
                    f"the files' models: {examples(dict.fromkeys(self.passed), limit=10)}."
                )
            if self.options.task is not None and self.tasks_seen:
                found = ", ".join(sorted(map(repr, self.tasks_seen)))
                raise DataError(f"{self._source()}: no task {self.options.task!r}; tasks: {found}.")
            raise FormatError(f"{self._source()}: no scored records found.")
        options = self.options
        names = self.task_names()
        if options.task is not None:
            if options.task not in names:
                raise DataError(
                    f"{self._source()}: no task {options.task!r}; tasks: "
                    f"{', '.join(map(repr, names))}."
                )
            names = [options.task]
        by_task: dict[str, list[tuple[Any, ...]]] = {name: [] for name in names}
        for row in self.rows:
            group = by_task.get(row[TASK])
            if group is not None:
                group.append(row)
        try:
            return {name: self._table(rows, name) for name, rows in by_task.items()}
        except RecursionError:  # str() or repr() of a value nested hundreds of levels deep
            raise FormatError(
                f"{self._source()}: an item id, score, run, cluster or key is nested too "
                "deeply (lists or objects inside one another hundreds of levels deep); "
                "these must be plain values: flatten them."
            ) from None

    def named_models(self) -> dict[str, list[int]]:
        """The files of each model the files name, in order of first appearance."""
        files: dict[str, list[int]] = {}
        for number, name in sorted(self.models.items()):
            files.setdefault(name, []).append(number)
        return files

    def _one_model(self) -> None:
        """Files naming several models are never read as runs of one model."""
        named = self.named_models()
        if len(named) < 2 or self.options.models_by_task:
            return
        noun = (
            MODEL_FILES.get(self.formats[0], "results")
            if len(set(self.formats)) == 1
            else "results"
        )
        listed = "; ".join(
            f"{name}: {len(files)} file(s)" + (f" ({_names(self.sources, files)})")
            for name, files in named.items()
        )
        unnamed = [f for f in range(len(self.sources)) if f not in self.models]
        also = f"; {len(unnamed)} file(s) name no model" if unnamed else ""
        where = (
            " (or choose one with --where model=NAME / where={'model': NAME})"
            if self.formats[0] in WHERE_MODEL
            else ""
        )
        raise DataError(
            f"{self._where()}: holds {noun} of {len(named)} models ({listed}{also}); one "
            "model's runs are never pooled with another's. Pass one model's files"
            f"{where}, or rank them all with evalsig leaderboard."
        )

    def by_model(self) -> dict[str, Collector] | None:
        """The files of each model they name, as collections of their own (one model each);
        None when they name no model. Every file must name its model."""
        named = self.named_models()
        if not named:
            return None
        unnamed = [f for f in range(len(self.sources)) if f not in self.models]
        if unnamed:
            raise DataError(
                f"{self._where()}: {_names(self.sources, unnamed)} name(s) no model, beside "
                f"files of {', '.join(map(repr, named))}; every file must name its model to "
                "rank the models."
            )
        out: dict[str, Collector] = {}
        for name, files in named.items():
            keep = set(files)
            out[name] = replace(
                self,
                rows=[row for row in self.rows if row[FILE] in keep],
                models=dict.fromkeys(files, name),
                skipped=[s for s in self.skipped if s[0] in keep],
                unscored=[u for u in self.unscored if u[0] in keep],
            )
        return out

    def _where(self) -> str:
        """The files named for a message: one file, their common folder, or 'N files'."""
        if len(self.sources) == 1:
            return self.sources[0]
        parents = {os.path.dirname(s) for s in self.sources}
        if len(parents) == 1 and next(iter(parents)):
            return next(iter(parents))
        return f"{len(self.sources)} files"

    def select(
        self, *, task: str, metric: str | None = None, filter: str | None = None
    ) -> ScoreTable:
        """One task's table with its own metric and filter (the read is not repeated)."""
        saved = self.options
        self.options = replace(saved, task=task, metric=metric, filter=filter)
        try:
            return self.tables()[task]
        finally:
            self.options = saved

    def _table(self, rows: list[tuple[Any, ...]], task: str) -> ScoreTable:
        metrics = Counter(row[METRIC] for row in rows)
        metric = self._choose("metric", "--metric / metric=", self.options.metric, metrics)
        rows = [row for row in rows if row[METRIC] == metric]
        filters = Counter(row[FILTER] for row in rows if row[FILTER] is not None)
        if filters:
            chosen = self._choose("filter", "--filter / filter=", self.options.filter, filters)
            rows = [row for row in rows if row[FILTER] == chosen]
        rows, left_out = self._usable(rows, metric)
        if self.options.cluster_column is not None and all(row[CLUSTER] is None for row in rows):
            offered = ", ".join(map(repr, sorted(self.cluster_fields))) or "none"
            raise DataError(
                f"{self._source()}: no cluster field {self.options.cluster_column!r} in task "
                f"{task!r}; fields that could be clusters: {offered}."
            )
        several_files = len({row[FILE] for row in rows}) > 1
        runs = [_run_label(row, several_files) for row in rows]
        files = sorted({row[FILE] for row in rows})
        origin = self.sources[files[0]] if len(files) == 1 else f"{len(files)} files"
        source = origin + (f" (task {examples([task], 1)})" if task else "")
        notes = list(self.notes)
        if filters:
            notes.append(f"{source}: metric {metric!r}, filter {chosen!r}.")
        elif len(metrics) > 1 or metric != "score":
            notes.append(f"{source}: metric {metric!r}.")
        if self.skipped:
            shown = examples(self._describe_where(f, p) for f, p, _ in self.skipped)
            notes.append(
                f"{source}: skipped {len(self.skipped)} malformed record(s) ({shown}) "
                "because skip_bad_lines was set."
            )
        if left_out:
            notes.append(f"{source}: {left_out}")
        if metric in self.descriptive:
            notes.append(
                f"{source}: metric {metric!r} is {self.descriptive[metric]}, bookkeeping "
                "rather than a score of the answers."
            )
        kinds = self._id_kinds(rows, several_files)
        notes += self._id_kinds_note(kinds)
        if self.hinted and self.options.cluster_column is None:
            notes += cluster_hints(self.hinted, len({row[ITEM] for row in rows}))
        keys = [row[KEY] for row in rows]
        table = table_from_long(
            [row[ITEM] for row in rows],
            np.fromiter((row[VALUE] for row in rows), dtype=object, count=len(rows)),
            runs=runs if any(r is not None for r in runs) else None,
            clusters=[row[CLUSTER] for row in rows]
            if self.options.cluster_column is not None
            else None,
            keys=keys if any(k is not None for k in keys) else None,
            source=source,
            fields={"id": "item id", "score": metric, "run": "run", "cluster": "cluster"}
            | self.names,
            row_names=_Positions(self, rows),
            notes=tuple(notes),
            id_kind=_one_kind(kinds),
        )
        origin = self.origin(files, task=task, metric=metric, filter=chosen if filters else None)
        copies = identical_files(origin)
        if copies:
            table = replace(table, notes=(*table.notes, *copies))
        return replace(table, origin=origin)

    def _usable(
        self, rows: list[tuple[Any, ...]], metric: str
    ) -> tuple[list[tuple[Any, ...]], str]:
        """The rows whose value can be a score, and a note on those left out.

        A value a reader marked :class:`Unusable` is an error naming where it is and why;
        with ``skip_bad_lines``, it and every missing value (null, NaN, infinite) are left
        out with a note naming them. Other values go on to the table, which refuses a NaN
        or a value that is not a number naming the item and the row.
        """
        values = [row[VALUE] for row in rows]
        if set(map(type, values)) <= {float, int, bool} and _all_finite(values):
            return rows, ""
        missing = [i for i, v in enumerate(values) if _missing(v)]
        if not missing:
            return rows, ""
        shown = [
            f"{self._describe_where(rows[i][FILE], rows[i][POSITION])}: {_why(values[i])}"
            for i in missing[:3]
        ]
        more = ", ..." if len(missing) > 3 else ""
        if not self.options.skip_bad_lines:
            marked = [i for i in missing if isinstance(values[i], Unusable)]
            if not marked:
                return rows, ""  # the table names NaN and null values by item and row
            i = marked[0]
            raise FormatError(
                f"{self._describe_where(rows[i][FILE], rows[i][POSITION])}: metric {metric!r} "
                f"{values[i].reason}; "
                f"{len(marked)} observation(s) of {metric!r} have no value. evalsig never "
                "drops scores silently: choose another metric, fix the records, or pass "
                "skip_bad_lines=True (CLI: --skip-bad-lines) to leave them out (noted)."
            )
        dropped = set(missing)
        kept = [row for i, row in enumerate(rows) if i not in dropped]
        return kept, (
            f"left out {len(missing)} observation(s) of metric {metric!r} without a value "
            f"({'; '.join(shown)}{more}) because skip_bad_lines was set."
        )

    def _id_kinds(
        self, rows: list[tuple[Any, ...]], several_files: bool
    ) -> dict[int, tuple[IdKind | None, object]]:
        """How each file of a format with types wrote the item ids of ``rows`` (numbers,
        text, or None for both), and its first id. A CSV file has no types: its cells are
        text whatever they hold, so it is left out (its digits are no evidence either way),
        as is a file whose ids are the keys of a JSON object (:meth:`ids_untyped`)."""
        typed = [
            f for f, fmt in enumerate(self.formats) if fmt not in UNTYPED and f not in self.untyped
        ]
        if not rows or not typed:
            return {}
        if not several_files:
            file = rows[0][FILE]
            if file not in typed:
                return {}
            items = map(itemgetter(ITEM), rows)
            return {file: (kind_of_types(set(map(type, items))), rows[0][ITEM])}
        types: dict[int, set[type]] = {}
        first: dict[int, object] = {}
        for row in rows:
            types.setdefault(row[FILE], set()).add(type(row[ITEM]))
            first.setdefault(row[FILE], row[ITEM])
        return {f: (kind_of_types(types[f]), first[f]) for f in typed if f in types}

    def _id_kinds_note(self, kinds: Mapping[int, tuple[IdKind | None, object]]) -> list[str]:
        """A note when one file gives item ids as numbers and another as text (1 and '1'):
        they are matched by their text, and the mix suggests files of different writers."""
        numbers = [f for f, (kind, _) in kinds.items() if kind == "number"]
        texts = [f for f, (kind, _) in kinds.items() if kind == "text"]
        if not numbers or not texts:
            return []
        number, text = numbers[0], texts[0]
        first = {f: example for f, (_, example) in kinds.items()}
        return [
            f"item ids are numbers in {self.sources[number]} (e.g. {first[number]!r}) but text "
            f"in {self.sources[text]} (e.g. {first[text]!r}); evalsig matches ids by their "
            f"text, so {first[number]!r} and {str(first[number])!r} are one item. Check that "
            "the files number their items the same way."
        ]

    # --- description ----------------------------------------------------------------------

    def describe(self) -> Description:
        """Tasks, metrics, filters, items and runs found, without choosing any."""
        try:
            return self._describe()
        except RecursionError:  # str() of an item id nested hundreds of levels deep
            raise FormatError(
                f"{self._source()}: an item id is nested too deeply (lists or objects inside "
                "one another hundreds of levels deep); ids must be plain values."
            ) from None

    def _describe(self) -> Description:
        described = []
        unscored = {task: n for _, task, n, _ in self.unscored}
        named = self.named_models()
        # runs are counted within a model: several models' logs are not runs of one
        models = self.models if len(named) > 1 else {}
        for name in self.task_names():
            rows = [row for row in self.rows if row[TASK] == name]
            # items are told apart by their text, as tables do (a JSON list id is allowed)
            per_item: Counter[tuple[str, str, str | None, str | None]] = Counter(
                (str(row[ITEM]), row[METRIC], row[FILTER], models.get(row[FILE])) for row in rows
            )
            counts = list(per_item.values()) or [0]
            values = [row[VALUE] for row in rows]
            described.append(
                TaskDescription(
                    name=name,
                    n_items=len({item for item, *_ in per_item}),
                    n_observations=len(rows),
                    runs=(min(counts), max(counts)),
                    metrics=tuple(sorted({row[METRIC] for row in rows})),
                    filters=tuple(sorted({row[FILTER] for row in rows} - {None})),
                    binary=all(v in (0, 1, True, False) for v in values),
                    n_missing=sum(not _finite_number(v) for v in values),
                    scale=_scale(values),
                    descriptive=_summaries(rows, self.descriptive),
                )
            )
        for name, n in unscored.items():
            if name not in self.task_names():
                described.append(
                    TaskDescription(
                        name=name,
                        n_items=n,
                        n_observations=0,
                        runs=(0, 0),
                        metrics=(),
                        filters=(),
                        binary=False,
                        n_missing=0,
                        scale="no scores",
                    )
                )
        notes = [*self.notes, *(f"{self.sources[f]}: {why}" for f, _, _, why in self.unscored)]
        repeated = any(task.runs[1] > 1 for task in described)
        notes += facet_hints(self.hinted, repeated and self.options.run_column is None)
        if len(named) > 1:
            notes.append(
                f"the files name {len(named)} models ({', '.join(map(repr, named))}): each "
                "model is read on its own, never as runs of one; rank them with evalsig "
                "leaderboard."
            )
        if len(self.sources) > 1:
            paths = [
                s for s, fmt in zip(self.sources, self.formats, strict=True) if fmt not in IN_MEMORY
            ]
            with suppress(OSError):  # a file gone since it was read: nothing to compare
                notes += identical_files(Origin(files=tuple(map(file_record, paths)), format=""))
        return Description(
            sources=tuple(self.sources),
            formats=tuple(dict.fromkeys(self.formats)),
            tasks=tuple(described),
            cluster_fields=tuple(sorted(self.cluster_fields)),
            key_fields=tuple(sorted(self.key_fields)),
            skipped=len(self.skipped),
            problems=tuple(
                f"{self._describe_where(f, p)}: {reason}" for f, p, reason in self.skipped[:5]
            ),
            notes=tuple(notes),
            layouts=tuple(
                dict.fromkeys(
                    f"{fmt} {ver}" if ver else fmt
                    for fmt, ver in zip(self.formats, self.versions, strict=True)
                )
            ),
            models=tuple(named),
        )


IN_MEMORY = ("dataframe",)
"""Formats of data passed in Python: their sources name no file."""

UNTYPED = frozenset({"csv", "opencompass"})
"""Formats whose item ids have no type of their own: a CSV cell is text whatever it holds,
and OpenCompass numbers samples by the keys of a JSON object. Their ids are neither
numbers nor text (:attr:`ScoreTable.id_kind` None)."""

TASK, ITEM, VALUE, METRIC, FILTER, RUN, CLUSTER, KEY, FILE, POSITION = range(10)
"""Fields of a row of :attr:`Collector.rows` (readers on a hot path may append rows)."""


MODEL_FILES = {
    "inspect": "Inspect logs",
    "lm-eval": "lm-evaluation-harness samples",
    "lighteval": "lighteval details",
    "helm": "HELM runs",
    "openai-evals": "OpenAI evals logs",
    "promptfoo": "promptfoo results",
    "deepeval": "deepeval test runs",
    "opencompass": "OpenCompass results",
    "simple-evals": "simple-evals results",
}
"""How a message names files of one format that hold several models' results."""

WHERE_MODEL = frozenset({"inspect", "helm"})
"""Formats whose files are chosen by model with ``where={'model': NAME}``."""


def _one_kind(kinds: Mapping[int, tuple[IdKind | None, object]]) -> IdKind | None:
    """The kind of item ids every typed file agrees on, else None."""
    found = {kind for kind, _ in kinds.values()}
    return found.pop() if len(found) == 1 else None


def _names(sources: Sequence[str], files: Sequence[int]) -> str:
    return examples(os.path.basename(sources[f]) or sources[f] for f in files)


def identical_files(origin: Origin) -> list[str]:
    """A note for each file whose bytes equal an earlier one's (or a file given twice): read
    as runs, the copies count one run several times, so the interval is too narrow and the
    run-to-run variation looks smaller than it is."""
    first: dict[str, str] = {}
    notes = []
    for record in origin.files:
        if record.sha256 not in first:
            first[record.sha256] = record.path
            continue
        seen = first[record.sha256]
        what = (
            f"{seen} is given twice"
            if seen == record.path
            else f"{seen} and {record.path} are byte-identical (SHA-256 {record.sha256[:12]}...)"
        )
        notes.append(
            f"{what}: read as two runs, they count one run twice unless the runs really "
            "gave identical output; pass the file once if it was copied."
        )
    return notes


def _summaries(
    rows: Sequence[tuple[Any, ...]], descriptive: Mapping[str, str]
) -> tuple[tuple[str, float | None, int], ...]:
    """(metric, mean of its finite values or None, their number) of each bookkeeping
    metric among ``rows``."""
    values: dict[str, list[float]] = {}
    for row in rows:
        if row[METRIC] in descriptive:
            kept = values.setdefault(row[METRIC], [])
            if _finite_number(row[VALUE]):
                kept.append(float(row[VALUE]))
    return tuple(
        (metric, sum(found) / len(found) if found else None, len(found))
        for metric, found in sorted(values.items())
    )


def _all_finite(numbers: list[Any]) -> bool:
    """Whether every number is finite (integers past float range count as finite: the
    table refuses them with its own message)."""
    try:
        return bool(np.isfinite(np.array(numbers, dtype=np.float64)).all())
    except OverflowError:
        return all(math.isfinite(v) for v in numbers if type(v) is float)


def _missing(value: object) -> bool:
    """A value that is no score: null, NaN, infinite, or marked :class:`Unusable`."""
    if value is None or isinstance(value, Unusable):
        return True
    return isinstance(value, float) and not math.isfinite(value)


def _why(value: object) -> str:
    if isinstance(value, Unusable):
        return value.reason
    if isinstance(value, float):
        return "NaN" if value != value else "infinite"
    return "null"


MAX_HINT_LABELS = 10_000

IGNORED_CLUSTER_FPR = "36%"
"""False-positive rate at alpha 0.05 when 10 clusters of 20 items at ICC 0.2 are ignored:
1,000 seeded simulations (``MixtureDesign(n_items=200, n_runs=1, n_clusters=10, icc=0.2)``,
McNemar 357 rejections; the CR2 cluster-robust test 40). See tests/test_calibration_small.py."""


FACET_NAMES = frozenset(
    {
        "prompt", "prompt_id", "prompt_template", "template", "template_id", "variant",
        "prompt_variant", "judge", "grader", "rater", "annotator", "fewshot", "few_shot",
        "fewshot_set", "shots",
    }
)  # fmt: skip
"""Column names (any case) of a facet of the evaluation (templates, judges, few-shot sets):
``inspect`` names them, and ``evalsig variance`` decomposes over them."""


def cluster_hints(hinted: Mapping[str, set[object]], n_items: int) -> list[str]:
    """A note naming columns that group items but were not passed as clusters."""
    found = [
        (column, len(labels))
        for column, labels in hinted.items()
        if 2 <= len(labels) <= min(MAX_HINT_LABELS, n_items // 2)
        and column.lower() not in FACET_NAMES
    ]
    if not found:
        return []
    named = ", ".join(f"{column!r} ({k} values)" for column, k in found)
    first, groups = found[0]
    size = n_items // groups
    looks = "strata" if groups <= MAX_STRATA and size >= MIN_STRATUM_ITEMS else "clusters"
    return [
        f"column(s) {named} group the items, but were given neither as strata nor as "
        f"clusters; {first!r} ({groups} groups of about {size:,} items) looks like {looks}. "
        "Strata are a few large named groups that make up the population of interest "
        f"(subjects, subtasks): --strata {first} (strata={first!r}) leaves the "
        "variance between them out of the standard error. Clusters are groups sampled from "
        "a larger set (passages, templates, source documents) whose items are easy or hard "
        "together: treating them as independent makes the interval too narrow (ignoring 10 "
        f"clusters at ICC 0.2 gave {IGNORED_CLUSTER_FPR} false positives at alpha 0.05 in a "
        f"seeded simulation). Pass --cluster {first} (cluster={first!r}) unless the items "
        "are independent."
    ]


MAX_STRATA = 30
"""At most this many groups (of at least :data:`MIN_STRATUM_ITEMS` items each) read as
strata in the hint: MMLU's 57 subjects are an exception the hint's text covers."""
MIN_STRATUM_ITEMS = 20


def facet_hints(hinted: Mapping[str, set[object]], repeated: bool) -> list[str]:
    """A note naming columns that look like facets of the evaluation (prompt templates,
    judges, few-shot sets), and what to do with them."""
    found = [
        (column, len(labels))
        for column, labels in hinted.items()
        if column.lower() in FACET_NAMES and len(labels) >= 2
    ]
    if not found:
        return []
    named = ", ".join(f"{column!r} ({k} values)" for column, k in found)
    first = found[0][0]
    rows = (
        "items appear on several rows, one a level: the commands that read one score an "
        "item and run refuse them rather than average them; "
        if repeated
        else ""
    )
    return [
        f"column(s) {named} look like facets of the evaluation (prompt templates, judges, "
        f"few-shot sets): {rows}evalsig variance FILE --facet ID --facet {first} splits the "
        f"score's variance among them, compare and score take the same --facet options to "
        f"test over them, and --where {first}=VALUE reads one level."
    ]


def _scale(values: list[Any]) -> str:
    """How ``inspect`` describes the scores, without guessing a scale the values do not show."""
    numbers = {float(v) for v in values if _finite_number(v)}
    if len(numbers) == 1:
        return f"all {numbers.pop():g} (scale unknown)"
    if numbers <= {0.0, 1.0}:
        return "0/1"
    return "continuous"


def _position(position: object) -> str:
    return f"line {position}" if isinstance(position, int) else str(position)


def _run_label(row: tuple[Any, ...], several_files: bool) -> object:
    """The run of an observation; with several files, the file number comes first."""
    run = row[RUN]
    if not several_files:
        return run
    return f"{row[FILE]}" if run is None else f"{row[FILE]}/{run}"


class _Positions(Sequence[str]):
    """Where each selected observation came from, formatted only when a message needs it."""

    def __init__(self, collector: Collector, rows: list[tuple[Any, ...]]) -> None:
        self._collector = collector
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # no slicing needed
        row = self._rows[i]
        return self._collector._describe_where(row[FILE], row[POSITION])


def _finite_number(value: object) -> bool:
    """A number a float holds: not NaN, not infinite, no integer past the float range."""
    if isinstance(value, int):
        return abs(value) <= _LARGEST_FLOAT
    return isinstance(value, float) and math.isfinite(value)


_LARGEST_FLOAT = int(sys.float_info.max)


def _values(values: Iterable[object]) -> np.ndarray:
    return np.fromiter(values, dtype=object)


def nested(record: Mapping[str, Any], path: str) -> Any:
    """``record[path]``, following dots into nested objects; KeyError when absent."""
    if path in record:
        return record[path]
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(path)
        value = value[part]
    return value
