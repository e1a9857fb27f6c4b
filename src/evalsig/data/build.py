"""Build a :class:`ScoreTable` from matrices, long-format columns and mappings.

Layouts
-------
* matrix: a 1-D array is one run over items; a 2-D array is ``runs x items``. Items are
  identified by position.
* long format: one row per (item, run) with columns item id, score, and optionally run
  and cluster. Items are identified by id.
* mapping: ``{item_id: score}`` or ``{item_id: [score of run 1, run 2, ...]}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalsig.data.table import IdKind, LazyLabels, ScoreTable
from evalsig.data.validate import check_scores, nearly_binary, numeric_array
from evalsig.errors import DataError, examples

__all__ = [
    "factorize",
    "id_kind_of",
    "table_from_long",
    "table_from_mapping",
    "table_from_matrix",
]


@dataclass(frozen=True, slots=True)
class Factorized:
    """Labels already coded, as a reader that parses columns in bulk gives them.

    ``uniques[codes[i]]`` is row i's label (a string; the uniques in order of first
    appearance, as :func:`factorize` gives them); code -1 marks a row without a label,
    allowed only for content keys.
    """

    codes: np.ndarray
    uniques: np.ndarray | LazyLabels

    def __len__(self) -> int:
        return len(self.codes)


Labels = Sequence[object] | np.ndarray | Factorized


def factorize(labels: Labels) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and unique labels (as strings), in order of first appearance."""
    if isinstance(labels, Factorized):
        uniques = labels.uniques
        return labels.codes, uniques.strings() if isinstance(uniques, LazyLabels) else uniques
    index: dict[str, int] = {}
    codes = np.fromiter(
        (index.setdefault(str(v), len(index)) for v in labels),
        dtype=np.int64,
        count=len(labels),
    )
    uniques = np.empty(len(index), dtype=object)
    uniques[:] = list(index)
    return codes, uniques


def id_kind_of(ids: Iterable[object]) -> IdKind | None:
    """'number' when every id is a number, 'text' when every one is text, else None.

    >>> id_kind_of([1, 2]), id_kind_of(["1", "2"]), id_kind_of([1, "2"])
    ('number', 'text', None)
    """
    return kind_of_types(set(map(type, ids)))


def kind_of_types(types: set[type]) -> IdKind | None:
    """:func:`id_kind_of` for the types of the ids (a bool is neither a number nor text)."""
    if not types:
        return None
    if all(issubclass(t, str) for t in types):
        return "text"
    numbers = all(
        issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(t, (bool, np.bool_))
        for t in types
    )
    return "number" if numbers else None


def table_from_matrix(values: object, *, source: str) -> ScoreTable:
    """A positional table from a 1-D (one run) or 2-D ``runs x items`` numeric array.

    The array is not copied: the table keeps it as ``runs`` and computes its per-item
    sums and sums of squares from it when they are first read.
    """
    array = numeric_array(
        values, what=f"`{source}`", label=lambda pos: [f"position {p}" for p in pos]
    )
    if array.ndim == 0 or array.ndim > 2:
        raise DataError(
            f"`{source}` must be a 1-D array (one run over items) or a 2-D array "
            f"(runs x items); got an array of shape {array.shape}."
        )
    matrix = array.reshape(1, -1) if array.ndim == 1 else array
    n_runs, n_items = matrix.shape
    if n_items == 0 or n_runs == 0:
        raise DataError(f"`{source}` is empty: it has no scores to compare.")
    binary = check_scores(matrix, what=f"`{source}`", label=lambda pos: [f"item {p}" for p in pos])
    notes: tuple[str, ...] = ()
    stray = None if binary else nearly_binary(matrix, what=f"`{source}`", label=_items)
    if stray is not None:
        notes = (stray,)
    if array.ndim == 2 and n_runs > n_items:
        notes += (
            f"`{source}` has more runs ({n_runs}) than items ({n_items}); 2-D arrays are "
            "read as runs x items, so transpose yours if it is items x runs.",
        )
    return ScoreTable(
        item_ids=None,
        counts=np.broadcast_to(np.int64(n_runs), (n_items,)),  # a view: no memory per item
        binary=binary,
        runs=matrix,
        source=source,
        notes=notes,
    )


def _item(item_ids: np.ndarray | LazyLabels, codes: np.ndarray, position: int) -> str:
    return f"item {item_ids[codes[position]]!r}"


def _items(positions: Sequence[int] | np.ndarray) -> list[str]:
    return [f"item {int(p)}" for p in positions]


def table_from_long(
    ids: Labels,
    scores: Sequence[object] | np.ndarray,
    *,
    runs: Labels | None = None,
    clusters: Labels | None = None,
    keys: Labels | None = None,
    source: str,
    fields: Mapping[str, str] | None = None,
    row_names: Sequence[str] | None = None,
    notes: tuple[str, ...] = (),
    scores_name: str | None = None,
    id_kind: IdKind | None = None,
) -> ScoreTable:
    """A table from long-format columns: one row per (item, run).

    Parameters
    ----------
    ids, scores, runs, clusters, keys : sequences of equal length
        Item id, score, optional run label, cluster label and content key of each row
        (a key may be None on rows that lack one; an item's rows must agree). Labels may
        come already coded, as :class:`Factorized`.
    source : str
        How messages name the data (a file name, 'baseline').
    fields : mapping, optional
        Column names to quote in messages, keyed by 'id', 'score', 'run', 'cluster'.
    row_names : sequence of str, optional
        How messages name each row (e.g. 'line 17'); defaults to 'row i'.
    scores_name : str, optional
        How messages name the scores; defaults to "{source}: column '{score}'".
    id_kind : {"number", "text"}, optional
        How the input wrote the ids (see :attr:`ScoreTable.id_kind`), when it says.
    """
    names = {"id": "id", "score": "score", "run": "run", "cluster": "cluster", **(fields or {})}
    n_rows = len(ids)
    for key, column in (("score", scores), ("run", runs), ("cluster", clusters), ("key", keys)):
        if column is not None and len(column) != n_rows:
            raise DataError(
                f"{source}: column '{names[key]}' has {len(column)} rows but '{names['id']}' "
                f"has {n_rows}; every row needs an id and a {key}."
            )
    if n_rows == 0:
        raise DataError(f"{source} is empty: it has no rows to compare.")

    def row(pos: Sequence[int] | np.ndarray) -> list[str]:
        if row_names is not None:
            return [row_names[int(p)] for p in pos]
        return [f"row {int(p) + 1}" for p in pos]

    _check_labels(ids, what=f"{source}: column '{names['id']}'", row=row)
    item_ids: np.ndarray | LazyLabels  # a reader's lazy labels stay so: see ScoreTable
    codes, item_ids = (ids.codes, ids.uniques) if isinstance(ids, Factorized) else factorize(ids)
    what = scores_name or f"{source}: column '{names['score']}'"
    values = numeric_array(scores, what=what, label=row)

    def item(pos: Sequence[int] | np.ndarray) -> list[str]:
        return [f"item {item_ids[codes[p]]!r} ({row([p])[0]})" for p in pos]

    binary = check_scores(values, what=what, label=item)
    if not binary:  # items only: a note is the same whichever path read the file
        stray = nearly_binary(
            values, what=what, label=lambda pos: [_item(item_ids, codes, p) for p in pos]
        )
        notes = notes if stray is None else (*notes, stray)
    if not (binary and values.dtype.kind in "biu"):
        values = values.astype(np.float64, copy=False)  # 0/1 integers are summed as they are
    n_items = len(item_ids)
    run_codes = run_labels = None
    if runs is not None:
        _check_labels(runs, what=f"{source}: column '{names['run']}'", row=row)
        run_codes, run_labels = factorize(runs)
    n_runs = 1 if run_labels is None else len(run_labels)
    if n_runs <= MAX_GRID_RUNS and _item_major(codes, run_codes, n_items, n_runs):
        counts = np.broadcast_to(np.int64(n_runs), (n_items,))  # a view: no memory per item
        sums, sumsq = _grid_sums(values.reshape(n_items, n_runs))
    else:
        counts, sums, sumsq = _bincount_sums(codes, run_codes, run_labels, values, item_ids, source)
    cluster_labels = None
    if clusters is not None:
        _check_labels(clusters, what=f"{source}: column '{names['cluster']}'", row=row)
        cluster_labels = _per_item_cluster(codes, clusters, n_items, item_ids, source, names)
    return ScoreTable(
        item_ids=item_ids,
        keys=None if keys is None else _per_item_key(codes, keys, n_items, item_ids, source),
        sums=sums,
        sumsq=sumsq,
        counts=counts,
        binary=binary,
        clusters=cluster_labels,
        source=source,
        notes=notes,
        id_kind=id_kind,
    )


MAX_GRID_RUNS = 64
"""The most runs per item for which :func:`_grid_sums` adds run by run (it loops in Python
over the runs; more runs go to ``bincount``)."""
GRID_BLOCK_ROWS = 1 << 17
"""Rows per block of :func:`_grid_sums` (1 MB of float64 scores: a block stays in cache
while it is read run by run)."""


def _item_major(codes: np.ndarray, run_codes: np.ndarray | None, n_items: int, n_runs: int) -> bool:
    """Whether row ``i`` holds run ``i % R`` of item ``i // R`` (codes in order of first
    appearance): every item has every run once, its rows side by side, its runs in one
    order. The layout of most long files; it has no repeated (item, run) pair.

    Compared block by block, so that no temporary as large as the column is made.
    """
    if len(codes) != n_items * n_runs:
        return False
    items = codes.reshape(n_items, n_runs)
    run_order = np.arange(n_runs)
    runs = None if run_codes is None else run_codes.reshape(n_items, n_runs)
    step = max(1, GRID_BLOCK_ROWS // n_runs)
    for start in range(0, n_items, step):
        stop = min(start + step, n_items)
        if not (items[start:stop] == np.arange(start, stop)[:, None]).all():
            return False
        if runs is not None and not (runs[start:stop] == run_order).all():
            return False
    return True


def _grid_sums(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-item sums and sums of squares (float64) of an ``items x runs`` grid of scores.

    :math:`s_i = ((0 + x_{i1}) + x_{i2}) + \dots`, added run by run in row order, and the
    same for :math:`x^2`: the operations ``np.bincount(codes, weights=...)`` makes on the
    rows, so the same numbers to the last bit, without its passes over the codes.
    """
    n_items, n_runs = grid.shape
    sums, sumsq = np.zeros(n_items), np.zeros(n_items)
    step = max(1, GRID_BLOCK_ROWS // n_runs)
    for start in range(0, n_items, step):
        block = grid[start : start + step]
        block_sums, block_sumsq = sums[start : start + step], sumsq[start : start + step]
        for run in range(n_runs):
            column = block[:, run]
            block_sums += column
            block_sumsq += column * column
    return sums, sumsq


def _bincount_sums(
    codes: np.ndarray,
    run_codes: np.ndarray | None,
    run_labels: np.ndarray | None,
    values: np.ndarray,
    item_ids: np.ndarray | LazyLabels,
    source: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-item counts, sums and sums of squares of rows in any order, by ``bincount``;
    a repeated (item, run) pair, or a repeated item without a run column, is an error."""
    n_items = len(item_ids)
    counts = np.bincount(codes, minlength=n_items)
    if run_codes is None or run_labels is None:
        if counts.max() > 1:
            repeated = item_ids[counts > 1]
            raise DataError(
                f"{source}: {len(repeated)} item(s) appear on several rows ({examples(repeated)}) "
                "but no run column was named. If a column names the model, choose one with "
                "--where COLUMN=NAME (where={COLUMN: NAME}), or rank them all with evalsig "
                "leaderboard; name a run column (e.g. 'epoch' or 'seed') only for repeated "
                "runs of one model. If a column such as a prompt template or a judge tells an "
                "item's rows apart, it is a facet: evalsig variance --facet ID --facet COLUMN "
                "splits the score's variance among them, and compare and score take the same "
                "--facet options to test over them (or keep one with --where); else remove "
                "the duplicate rows."
            )
    else:
        width = len(run_labels)
        dup = _repeated(codes.astype(np.int64, copy=False) * width + run_codes, n_items * width)
        if dup.size:
            pairs = [([item_ids[k // width]], [run_labels[k % width]]) for k in dup[:3]]
            shown = [f"(item {examples(i)}, run {examples(r)})" for i, r in pairs]  # shortened
            raise DataError(
                f"{source}: {len(dup)} (item, run) pair(s) appear more than once: "
                f"{', '.join(shown)}{', ...' if len(dup) > 3 else ''}; each item can have "
                "one score per run. If another column (a prompt template, a judge) tells "
                "those rows apart, it is a facet: evalsig variance --facet ID --facet COLUMN "
                "--facet RUN decomposes them, and compare and score take the same --facet "
                "options (or keep one with --where); else remove the duplicate rows or fix "
                "the run labels."
            )
    sums = np.bincount(codes, weights=values, minlength=n_items)
    sumsq = np.bincount(codes, weights=values * values, minlength=n_items)
    return counts.astype(np.int64), sums, sumsq


def _repeated(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """The keys in ``[0, n_keys)`` that occur more than once, in increasing order: counted
    with one pass of ``bincount`` when the key space is not much larger than the data."""
    if n_keys <= 4 * len(keys) + 1024:
        seen = np.zeros(n_keys, dtype=bool)
        seen[keys] = True
        if np.count_nonzero(seen) == len(keys):  # the usual case, decided in one byte a key
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(np.bincount(keys, minlength=n_keys) > 1)
    unique_keys, counts = np.unique(keys, return_counts=True)
    return unique_keys[counts > 1]


def _check_labels(labels: Labels, *, what: str, row: Any) -> None:
    """Ids and labels must be present: None, NaN and empty strings are errors."""
    if isinstance(labels, Factorized):
        if labels.codes.size and labels.codes.min() < 0:
            raise DataError(f"{what} is empty on {int((labels.codes < 0).sum())} row(s).")
        return
    missing = np.flatnonzero(
        [v is None or (isinstance(v, float) and v != v) or v == "" for v in labels]
    )
    if missing.size:
        raise DataError(
            f"{what} is empty on {missing.size} row(s) ({examples(row(missing))}); every row "
            "needs a value there."
        )


def _per_item_cluster(
    codes: np.ndarray,
    clusters: Labels,
    n_items: int,
    item_ids: np.ndarray | LazyLabels,
    source: str,
    names: Mapping[str, str],
) -> np.ndarray:
    cluster_codes, cluster_names = factorize(clusters)
    first = np.full(n_items, -1, dtype=np.int64)
    first[codes[::-1]] = cluster_codes[::-1]  # the first row of each item wins
    clash = np.flatnonzero(first[codes] != cluster_codes)
    if clash.size:
        bad_items = np.unique(codes[clash])
        raise DataError(
            f"{source}: column '{names['cluster']}' gives {len(bad_items)} item(s) more than one "
            f"cluster label across runs ({examples(item_ids[bad_items])}); an item belongs to "
            "one cluster."
        )
    return np.asarray(cluster_names[first], dtype=object)


def _per_item_key(
    codes: np.ndarray,
    keys: Labels,
    n_items: int,
    item_ids: np.ndarray | LazyLabels,
    source: str,
) -> np.ndarray:
    """Each item's content key; rows of one item (its runs) must not disagree."""
    if isinstance(keys, Factorized):
        return _per_item_coded_key(codes, keys, n_items, item_ids, source)
    out = np.full(n_items, None, dtype=object)
    for code, key in zip(codes.tolist(), keys, strict=True):
        if key is None:
            continue
        text = str(key)
        seen = out[code]
        if seen is None:
            out[code] = text
        elif seen != text:
            raise DataError(
                f"{source}: item {item_ids[code]!r} has different content keys in different "
                f"runs ({seen!r} vs {text!r}): its runs did not score the same question."
            )
    return out


def _per_item_coded_key(
    codes: np.ndarray,
    keys: Factorized,
    n_items: int,
    item_ids: np.ndarray | LazyLabels,
    source: str,
) -> np.ndarray:
    """:func:`_per_item_key` for coded keys, in whole-array steps."""
    present = keys.codes >= 0
    first = np.full(n_items, -1, dtype=np.int64)
    first[codes[present][::-1]] = keys.codes[present][::-1]  # the first keyed row wins
    clash = np.flatnonzero(present & (first[codes] != keys.codes))
    if clash.size:
        row = int(clash[0])
        seen, text = keys.uniques[first[codes[row]]], keys.uniques[keys.codes[row]]
        raise DataError(
            f"{source}: item {item_ids[codes[row]]!r} has different content keys in different "
            f"runs ({seen!r} vs {text!r}): its runs did not score the same question."
        )
    out = np.full(n_items, None, dtype=object)
    keyed = first >= 0
    out[keyed] = keys.uniques[first[keyed]]
    return out


def table_from_mapping(mapping: Mapping[Any, Any], *, source: str) -> ScoreTable:
    """A table from ``{item_id: score}`` or ``{item_id: [run scores]}``."""
    ids: list[object] = []
    scores: list[object] = []
    runs: list[int] = []
    multi = False
    for key, value in mapping.items():
        if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)):
            multi = True
            if len(value) == 0:
                raise DataError(f"`{source}`[{key!r}] is an empty list of run scores.")
            for run, score in enumerate(value):
                ids.append(key)
                scores.append(score)
                runs.append(run)
        else:
            ids.append(key)
            scores.append(value)
            runs.append(0)
    scores_array = np.empty(len(scores), dtype=object)
    scores_array[:] = scores
    return table_from_long(
        ids,
        scores_array,
        runs=runs if multi else None,
        source=f"`{source}`",
        fields={"id": "keys", "score": "values"},
        row_names=[f"key {k!r}" for k in ids],
        scores_name=f"`{source}`",
        id_kind=id_kind_of(mapping),
    )
