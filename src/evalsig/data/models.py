"""Many models on one benchmark: a models x items matrix of per-item mean scores.

Items are aligned by id, and the models must describe the same items, as for
:func:`evalsig.compare`: an item some model lacks is an error unless
``on_missing="intersect"`` (then every model keeps only the items all models have), and an
item whose content key (gold answer, target, document hash) differs between two models is
an error unless ``on_mismatch`` is "exclude" or "keep". An item a model lacks is never
scored as wrong; the result records how many items each model had and lost.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from evalsig.data.agreement import check_policy, describe_mismatches, key_mismatches, shared_items
from evalsig.data.build import factorize
from evalsig.data.loading import load, load_tasks
from evalsig.data.paired import OnMismatch, OnMissing, id_kinds_note, mismatch_message
from evalsig.data.provenance import Origin
from evalsig.data.readers import ReadOptions, _expand, _pick, collect_files
from evalsig.data.readers.base import ReaderKeywords, read_options
from evalsig.data.table import ScoreTable, same_ids
from evalsig.errors import AlignmentError, DataError, EvalsigError, examples

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "ModelScores",
    "align_models",
    "check_clusters",
    "harness_models",
    "load_models",
    "model_scores",
    "same_ids",
]


@dataclass(frozen=True, slots=True, eq=False)
class ModelScores:
    """Per-item mean scores of several models on a shared set of items."""

    names: tuple[str, ...]
    item_ids: np.ndarray
    """``(N,)`` item ids: strings, or the positions 0 .. N - 1 (integers) of models given
    as arrays."""
    scores: np.ndarray
    """``(M, N)`` per-item mean scores; NaN where a model lacks the item."""
    binary: bool
    """Every score is 0 or 1 (and every model has one run per item)."""
    n_runs: tuple[int, ...]
    """Largest number of runs per item, for each model."""
    cluster_codes: np.ndarray | None = None
    """``(N,)`` integer cluster of each item, or None."""
    cluster_labels: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    key_codes: np.ndarray | None = None
    """``(M, N)`` code of each model's content key of each item (index into
    ``key_labels``), -1 where the model gives none; None when no model has keys."""
    key_labels: np.ndarray | None = None
    n_input: np.ndarray | None = None
    """``(M,)`` items each model had in its input, before :func:`align_models` dropped any
    (None: not aligned yet; the items present)."""
    n_mismatched: int = 0
    """Items whose content keys differ between models (excluded or kept, as asked)."""
    on_missing: str = "error"
    """The ``on_missing`` that aligned the items (the one that dropped any)."""
    on_mismatch: str = "error"
    """The ``on_mismatch`` that handled differing content keys (if any)."""
    origins: tuple[Origin | None, ...] = ()
    """Where each model's scores came from (see :class:`evalsig.data.provenance.Origin`), when
    read by :func:`load_models`."""

    @property
    def n_models(self) -> int:
        return len(self.names)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def present(self) -> np.ndarray:
        """``(M, N)`` whether each model has each item."""
        mask: np.ndarray = ~np.isnan(self.scores)
        return mask

    @property
    def input_counts(self) -> np.ndarray:
        """``(M,)`` items each model had in its input."""
        if self.n_input is not None:
            return self.n_input
        counts: np.ndarray = self.present.sum(axis=1)
        return counts

    @property
    def means(self) -> np.ndarray:
        """``(M,)`` each model's score over the items it has."""
        means: np.ndarray = np.nanmean(self.scores, axis=1)
        return means


def _by_position(tables: Mapping[str, ScoreTable]) -> Mapping[str, ScoreTable]:
    """Tables without item ids (arrays), aligned by position as :func:`evalsig.compare`
    aligns two arrays: item i is the i-th score of every model, which must have as many."""
    if not all(t.by_position for t in tables.values()):
        return tables
    sizes = {name: t.n_items for name, t in tables.items()}
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{name!r}: {n}" for name, n in list(sizes.items())[:5])
        raise DataError(
            f"models given as arrays are aligned by position, so they need as many items "
            f"each; got {shown}. Pass tables with item ids to align them by id instead."
        )
    ids = np.arange(next(iter(sizes.values())))  # positions: no million strings to make
    return {name: replace(t, _item_ids=ids) for name, t in tables.items()}


def model_scores(
    tables: Mapping[str, ScoreTable],
    /,
    *,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> ModelScores:
    """Stack per-model tables into one matrix aligned by item id (see :class:`ModelScores`).

    Parameters
    ----------
    tables : mapping
        ``{model name: ScoreTable}``, every table with item ids.
    on_missing : {"error", "intersect"}
        Items some models lack: an error naming them, or keep only the items every model
        has (the notes give the drop per model).
    on_mismatch : {"error", "exclude", "keep"}
        Items whose content key differs between two models that have them: an error, drop
        them for every model, or compare them anyway; the result records how many.

    Raises
    ------
    AlignmentError
        Models with different items or content keys (as :func:`evalsig.compare`).
    """
    check_policy(on_missing, on_mismatch)
    if len(tables) < 2:
        raise DataError(
            f"a benchmark view needs at least 2 models; got {len(tables)} "
            f"({examples(tables)}). Check the model column."
        )
    names = tuple(str(k) for k in tables)
    empty = [i for i, name in enumerate(names) if not name.strip()]
    if empty:
        raise DataError(
            f"model {empty[0] + 1} of {len(names)} has an empty name ({names[empty[0]]!r}); "
            "every model needs a name to be ranked and reported: fill in the model column "
            "or the mapping's keys."
        )
    tables = _by_position(tables)
    for name, table in tables.items():
        if table.by_position:
            raise DataError(
                f"model {name!r} has no item ids while others have them; models are aligned "
                "by item id, so give every model an id column."
            )
    first = next(iter(tables.values()))
    if all(t.same_items(first) for t in tables.values()):  # one benchmark, one order
        ids = cast(np.ndarray, first.item_ids)  # checked above: every table has ids
        codes = np.tile(np.arange(len(ids)), len(tables))
    else:
        codes, ids = factorize(np.concatenate([t.item_ids for t in tables.values()]))
    scores = np.full((len(names), len(ids)), np.nan)
    clusters = np.full(len(ids), None, dtype=object)
    keyed = any(t.keys is not None for t in tables.values())
    key_codes = np.full((len(names), len(ids)), -1, dtype=np.int32) if keyed else None
    key_index: dict[str, int] = {}
    start = 0
    by_note: dict[str, list[str]] = {}
    for row, (name, table) in enumerate(tables.items()):
        where = codes[start : start + table.n_items]
        start += table.n_items
        scores[row, where] = table.means
        if key_codes is not None and table.keys is not None:
            key_codes[row, where] = [
                -1 if k is None else key_index.setdefault(str(k), len(key_index))
                for k in table.keys.tolist()
            ]
        if table.clusters is not None:
            known = clusters[where]
            clash = np.array(
                [k is not None and k != c for k, c in zip(known, table.clusters, strict=True)]
            )
            if clash.any():
                bad = where[np.flatnonzero(clash)]
                raise DataError(
                    f"model {name!r} puts items {examples(ids[bad])} in other clusters than "
                    "an earlier model does; cluster labels must describe the items."
                )
            clusters[where] = table.clusters
        for note in table.notes:
            by_note.setdefault(note, []).append(name)
    notes = [
        note if len(who) == len(names) else f"{', '.join(who)}: {note}"
        for note, who in by_note.items()
    ]
    notes += _id_kinds(tables)
    cluster_codes = cluster_labels = None
    if any(t.clusters is not None for t in tables.values()):
        if any(c is None for c in clusters):
            raise DataError(
                "some items have no cluster label (some models' files lack the cluster "
                "column); give every model the cluster column or none."
            )
        cluster_codes, cluster_labels = factorize(clusters.astype(str))
    key_labels = None
    if key_codes is not None:
        key_labels = np.empty(len(key_index), dtype=object)
        key_labels[:] = list(key_index)
    stacked = ModelScores(
        names=names,
        item_ids=ids,
        scores=scores,
        binary=all(t.binary and t.n_runs == 1 for t in tables.values()),
        n_runs=tuple(t.n_runs for t in tables.values()),
        cluster_codes=cluster_codes,
        cluster_labels=cluster_labels,
        notes=tuple(notes),
        key_codes=key_codes,
        key_labels=key_labels,
        origins=tuple(t.origin for t in tables.values()),
    )
    return align_models(stacked, on_missing=on_missing, on_mismatch=on_mismatch)


def _id_kinds(tables: Mapping[str, ScoreTable]) -> list[str]:
    """A note when some models' inputs write the item ids as numbers and others' as text
    (JSON 1 and "1"): they are aligned by their text."""
    numbers = [name for name, t in tables.items() if t.id_kind == "number"]
    texts = [name for name, t in tables.items() if t.id_kind == "text"]
    if not numbers or not texts:
        return []
    theirs = set(cast(np.ndarray, tables[texts[0]].item_ids).tolist())
    mine = cast(np.ndarray, tables[numbers[0]].item_ids).tolist()
    example = next((i for i in mine if i in theirs), mine[0])
    return [
        id_kinds_note(
            f"model(s) {examples(numbers, limit=5)}",
            f"model(s) {examples(texts, limit=5)}",
            example=str(example),
            done="aligned",
        )
    ]


def align_models(
    scores: ModelScores,
    /,
    *,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> ModelScores:
    """Make every model describe the same items: the checks of :func:`model_scores`.

    Items some model lacks are an error, or (``on_missing="intersect"``) dropped for every
    model; items whose content keys differ between two models are an error, dropped for
    every model (``"exclude"``) or kept (``"keep"``). The result has no missing scores,
    records each model's input item count in ``n_input`` and the choices in its notes.
    Aligning an aligned result changes nothing: the mismatches a "keep" accepted are no
    longer counted as mismatches.

    >>> s = ModelScores(names=("a", "b"), item_ids=np.array(["q1", "q2", "q3"]),
    ...     scores=np.array([[1.0, 0.0, 1.0], [1.0, np.nan, 0.0]]), binary=True, n_runs=(1, 1))
    >>> aligned = align_models(s, on_missing="intersect")
    >>> aligned.item_ids.tolist(), aligned.n_input.tolist()
    (['q1', 'q3'], [3, 2])
    """
    check_policy(on_missing, on_mismatch)
    names, ids = scores.names, scores.item_ids
    present = scores.present
    n_input = present.sum(axis=1) if scores.n_input is None else scores.n_input
    keep, note = shared_items(names, ids, present, on_missing)
    del present  # (M, N) booleans: not held through the rest
    notes = list(scores.notes) + ([note] if note else [])
    key_codes = None if scores.key_codes is None else _columns(scores.key_codes, keep)
    n_mismatched = 0
    if key_codes is not None and scores.key_labels is not None:
        mismatched = key_mismatches(key_codes)
        n_mismatched = int(mismatched.sum())
        if n_mismatched:
            what = describe_mismatches(names, ids[keep], key_codes, scores.key_labels, mismatched)
            compared = int(np.count_nonzero((key_codes >= 0).sum(axis=0) >= 2))
            message = mismatch_message(what, n_mismatched, compared, on_mismatch, scope="models")
            if on_mismatch == "error":
                raise AlignmentError(message)
            notes.append(message)
            if on_mismatch == "exclude":
                keep, key_codes = keep[~mismatched], key_codes[:, ~mismatched]
            else:
                key_codes = key_codes.copy()
                key_codes[:, mismatched] = -1  # accepted: a later alignment does not recount
    if keep.size < 2:
        raise DataError(
            f"a paired comparison needs at least 2 items every model has; {keep.size} are "
            f"left of {len(ids)} after dropping mismatched content keys."
        )
    aligned = scores.n_input is not None
    dropped = keep.size < len(ids)
    if aligned and not dropped and not n_mismatched:
        return scores
    cluster_codes, cluster_labels = scores.cluster_codes, scores.cluster_labels
    if cluster_codes is not None:
        used, cluster_codes = np.unique(cluster_codes[keep], return_inverse=True)
        cluster_codes = np.asarray(cluster_codes, dtype=np.int64).reshape(-1)
        cluster_labels = None if cluster_labels is None else cluster_labels[used]
    return replace(
        scores,
        item_ids=_columns(ids, keep),
        scores=_columns(scores.scores, keep),
        cluster_codes=cluster_codes,
        cluster_labels=cluster_labels,
        notes=tuple(notes),
        key_codes=key_codes,
        n_input=np.asarray(n_input, dtype=np.int64),
        n_mismatched=scores.n_mismatched + n_mismatched,
        # an earlier alignment's choices stand unless this one had something to do
        on_missing=on_missing if dropped or not aligned else scores.on_missing,
        on_mismatch=on_mismatch if n_mismatched or not aligned else scores.on_mismatch,
    )


def _columns(array: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The columns ``keep`` (increasing positions) of ``array``: a read-only view when that
    is every column, so that no copy is made and no caller writes into the input through it.
    """
    if keep.size == array.shape[-1]:
        view: np.ndarray = array.view()
        view.flags.writeable = False
        return view
    taken: np.ndarray = array[..., keep]
    return taken


def load_models(
    data: Any,
    /,
    *,
    model_column: str = "model",
    read: ReadOptions | None = None,
    format: str = "auto",
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    **keywords: Unpack[ReaderKeywords],
) -> ModelScores:
    """Read many models' per-item scores: a long table with a model column, or a mapping.

    Parameters
    ----------
    data : path, DataFrame or mapping
        A long-format file or DataFrame with one row per model and item (and run), or a
        mapping ``{model name: scores}`` with anything :func:`evalsig.load` accepts.
    model_column : str, default "model"
        The column naming the model of each row (long tables only). It is read as the
        table's task column, so ``task_column`` and ``task`` do not apply to a long table.
    read, format, **keywords
        How to read files, as for :func:`evalsig.load` (see
        :class:`~evalsig.data.ReadOptions`); a content-key column with a recognised name
        (``gold``, ``target``, ``answer`` beside a prediction column ...) is used unless
        ``key_column`` names another.
    on_missing, on_mismatch
        What to do with items some models lack, and with items whose content keys differ
        between models (see :func:`model_scores`).
    """
    check_policy(on_missing, on_mismatch)
    options = read_options(read, **keywords)
    named = None if isinstance(data, Mapping) else harness_models(data, read=options, format=format)
    if isinstance(data, Mapping):
        tables = {
            str(name): load(scores, name=str(name), read=options, format=format)
            for name, scores in data.items()
        }
    elif named is not None:
        tables = _one_task(named, data)
    else:
        by_model = _model_column_as_task(options, model_column, data)
        tables = {
            name: _named_by_column(table, name)
            for name, table in load_tasks(data, read=by_model, format=format).items()
        }
    return model_scores(tables, on_missing=on_missing, on_mismatch=on_mismatch)


def _model_column_as_task(options: ReadOptions, model_column: str, data: Any) -> ReadOptions:
    """The options that read a long table's model column as its task column."""
    for name in ("task_column", "task"):
        if getattr(options, name) is not None:
            source = data if isinstance(data, (str, os.PathLike)) else "the long table"
            raise DataError(
                f"{source}: its models are read from the model column {model_column!r} (as "
                f"the table's task column), so `{name}` does not apply; keep the rows of one "
                "task with where={column: task}."
            )
    return replace(options, task_column=model_column)


def harness_models(
    data: Any,
    /,
    *,
    read: ReadOptions | None = None,
    format: str = "auto",
    **keywords: Unpack[ReaderKeywords],
) -> dict[str, dict[str, ScoreTable]] | None:
    """Each model's tables, ``{model: {task: table}}``, of harness logs that name their
    model one by one (an Inspect eval-set folder, a glob of several models' logs).

    None when ``data`` is not such logs (a long table names its models in a column, a
    folder holds one entry per model), or when the logs name no model. A log that names
    no model beside logs that do is an error: it could be any of them. ``read`` (or its
    fields as keywords) and ``format`` as for :func:`evalsig.load`.
    """
    options = read_options(read, **keywords)
    if not isinstance(data, (str, os.PathLike)) and not (
        isinstance(data, (list, tuple))
        and data
        and all(isinstance(p, (str, os.PathLike)) for p in data)
    ):
        return None
    try:
        files = _expand(data)
        logs = all(getattr(_pick(f, format), "logs_name_models", False) for f in files)
    except EvalsigError:
        return None  # reading the files says what is wrong
    if not logs:
        return None
    by_model = collect_files(data, options, format=format).by_model()
    if by_model is None:
        return None
    return {
        name: {task: _named_by_log(table, name) for task, table in models.tables().items()}
        for name, models in by_model.items()
    }


def _named_by_log(table: ScoreTable, name: str) -> ScoreTable:
    if table.origin is None:
        return table
    return replace(table, origin=replace(table.origin, model=name, model_from="harness metadata"))


def _one_task(named: Mapping[str, Mapping[str, ScoreTable]], data: Any) -> dict[str, ScoreTable]:
    """Each model's table of the one task all the logs hold."""
    tasks = sorted({task for tables in named.values() for task in tables})
    if len(tasks) != 1:
        raise DataError(
            f"{data}: the logs hold {len(tasks)} tasks ({examples(tasks)}); rank one task at "
            "a time: pass that task's logs, or the folder to evalsig leaderboard (one "
            "leaderboard per task)."
        )
    lacking = [name for name, tables in named.items() if tasks[0] not in tables]
    if lacking:
        raise DataError(f"{data}: no logs of task {tasks[0]!r} for {examples(lacking)}.")
    return {name: tables[tasks[0]] for name, tables in named.items()}


def _named_by_column(table: ScoreTable, name: str) -> ScoreTable:
    """A long table's model: the value of its model column (read as a task)."""
    if table.origin is None:
        return table
    origin = replace(table.origin, model=name, model_from="model column", task=None)
    return replace(table, origin=origin)


def check_clusters(scores: ModelScores, task: str | None = None) -> None:
    """One cluster leaves no between-cluster variance: a cluster-robust test is impossible."""
    labels = scores.cluster_labels
    if scores.cluster_codes is None or np.unique(scores.cluster_codes).size >= 2:
        return
    name = "" if labels is None or not len(labels) else f" ({examples(labels[:1])})"
    where = f" of task {task!r}" if task else ""
    raise DataError(
        f"the {scores.n_items} compared items{where} are all in one cluster{name}; a "
        "cluster-robust test needs at least 2 clusters (and about 30 for reliable results) "
        "to estimate the between-cluster variance. Use a cluster column with several "
        "labels (subject, passage, source), or leave the cluster column out if the items "
        "are independent."
    )
