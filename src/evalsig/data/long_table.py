"""Long tables of facets: one score a row and a column per facet (item, prompt template,
run, judge ...), read through :func:`evalsig.data.readers.records.read_records`, and one such
table made of several results files of one model (a file a level of a facet).

A score is a finite number: in a CSV or TSV table a cell that reads as one, in JSON a
number or ``true``/``false`` (a JSON string ``"1"`` is text, not a number). A facet label is
text or a number; an empty, null or nested label, or a score that is not a finite number,
is an error naming the line, never a level or a value read as something else. A model
column holding several models is never pooled: the caller chooses one, or two.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evalsig.errors import DataError, examples

if TYPE_CHECKING:
    from evalsig.data.provenance import Origin

__all__ = ["Table", "files_table", "read_long_table", "read_model_rows"]

Table = dict[str, list[Any]]
"""A long table read: each facet's labels (text) and the scores (floats), by column."""

MAX_SHOWN = 20
"""The most model names a message lists."""

_LARGEST_FLOAT = int(sys.float_info.max)
_TABLE_SUFFIXES = (".csv", ".txt", ".tsv")
"""The suffixes :func:`~evalsig.data.readers.records.read_records` reads as a table (its
values are the cells' text); every other file it reads is JSON (values as parsed)."""

CHOOSE_MODELS = (
    "Choose one with --model NAME, or decompose the difference of two with --baseline NAME "
    "--candidate NAME."
)


def files_table(
    paths: Sequence[str], facet: str, read: dict[str, Any]
) -> tuple[list[Table], list[str]]:
    """One long table from several results files of one model, each file one level of
    ``facet`` (named after the file), items crossed with it. The runs of an item in a file
    are nested in that cell, so they are the residual, and REML sees them only through the
    cell's mean and its sum of squares about that mean (exact compression): each cell's
    runs are given as values with the cell's count, mean and sum of squares (its own runs
    when the file kept them)."""
    from pathlib import Path

    import numpy as np

    from evalsig.data import load
    from evalsig.data.readers.base import stem

    table: Table = {"item": [], facet: [], "score": []}
    names: dict[str, str] = {}
    notes: list[str] = []
    for path in paths:
        name = stem(Path(path))
        if name in names:
            raise DataError(
                f"{names[name]} and {path} would both be {facet} {name!r}; give each file "
                "its own name."
            )
        names[name] = path
        scores = load(path, **read)
        if scores.item_ids is None:
            raise DataError(f"{path}: its items have no ids; name the id column with --id.")
        counts = np.asarray(scores.counts, dtype=np.int64)
        for item, values in zip(
            (str(i) for i in scores.item_ids), _cell_values(scores, counts), strict=True
        ):
            table["item"] += [item] * len(values)
            table[facet] += [name] * len(values)
            table["score"] += values
        notes += [f"{name}: {note}" for note in scores.notes]
    return [table], notes


def _cell_values(scores: Any, counts: Any) -> list[list[float]]:
    """Each item's runs, or values with their count, mean and sum of squares about the
    mean: the mean plus the root of that sum times a fixed contrast (sum 0, squares 1)."""
    import numpy as np

    if scores.runs is not None:
        return [column.tolist() for column in np.asarray(scores.runs, dtype=np.float64).T]
    sums = np.asarray(scores.sums, dtype=np.float64)
    means = sums / counts
    within = np.maximum(np.asarray(scores.sumsq, dtype=np.float64) - sums * means, 0.0)
    out = []
    for mean, spread, r in zip(
        means.tolist(), np.sqrt(within).tolist(), counts.tolist(), strict=True
    ):
        if r == 1:
            out.append([mean])
            continue
        contrast = np.zeros(r)
        contrast[0], contrast[1:] = (r - 1), -1.0
        contrast /= np.sqrt((r - 1) * r)  # sum 0, sum of squares 1
        out.append((mean + spread * contrast).tolist())
    return out


def read_long_table(
    path: str,
    *,
    facets: Sequence[str],
    score_column: str,
    model_column: str | None,
    models: Sequence[str] = (),
    separator: str | None = None,
    choose: str = CHOOSE_MODELS,
) -> tuple[list[Table], list[str]]:
    """The tables of ``models`` (in their order), or of the whole file when none is named,
    and notes on the rows left out; ``choose`` tells how to choose models when the file
    holds several and none is named.

    Without ``models``, a ``model_column`` holding several models is an error (their
    scores would be pooled into one); with them, the file must have a model column and
    rows of each. ``model_column`` None reads every row as one table (a leaderboard whose
    model column is a facet).
    """
    model_field = model_column or ""
    from pathlib import Path

    from evalsig.data.readers.records import read_records
    from evalsig.data.readers.tabular import suffix

    table = suffix(Path(path)).lower() in _TABLE_SUFFIXES
    columns = [*facets, score_column]
    tables: dict[str, Table] = {}
    found: dict[str, None] = {}
    first: bool | None = None  # whether the first row names its model
    others = 0
    rows = read_records(
        path,
        columns=columns,
        fields=[model_column] if model_column else [],
        separator=separator,
        what="scores",
    )
    for place, row in rows:
        where = str(place)
        named = model_column is not None and model_column in row
        if first is None:
            first = named
            if models and not named:
                raise DataError(
                    f"{path}: no column {model_column!r} names the models, so --model or "
                    f"--baseline/--candidate cannot choose rows; its columns are "
                    f"{examples(row, 12)}: name the model column with --model-column."
                )
        elif named != first:
            raise DataError(
                f"{where}: "
                + ("has a field" if named else "has no field")
                + f" {model_column!r}, but the first record "
                + ("has none" if named else "has one")
                + "; give every record its model (or none, for one model's table)."
            )
        name = _label(row[model_field], model_field, where, "model") if named else ""
        if len(found) <= MAX_SHOWN:
            found.setdefault(name)
        if (models and name not in models) or (not models and len(found) > 1):
            others += 1
            continue
        out = tables.setdefault(name, {column: [] for column in columns})
        for column in facets:
            out[column].append(_label(row[column], column, where, "facet"))
        out[score_column].append(_score(row[score_column], score_column, where, table))
    if not models and len(found) > 1:
        raise _pooled(path, model_field, list(found), choose)
    missing = [name for name in models if name not in tables]
    if missing:
        raise DataError(
            f"{path}: no rows of model {missing[0]!r} in column {model_column!r}; it holds "
            f"{examples(found, 8)}."
        )
    notes = []
    if others:
        chosen = ", ".join(map(repr, models))
        notes.append(f"{others:,} row(s) of models other than {chosen} left out")
    return [tables[name] for name in models or list(tables)], notes


def read_model_rows(
    path: str,
    *,
    facets: Sequence[str],
    score_column: str,
    where: Mapping[str, str],
    separator: str | None,
    choose: str,
) -> tuple[Table, list[str], Origin]:
    """One model's rows of a long table, chosen by ``where`` (one ``{column: value}``; none
    reads a file without a ``model`` column whole), as the facets' columns and ``"score"``;
    the notes on the rows left out; and the rows' origin for a result's provenance."""
    from evalsig.data.provenance import Origin, file_record

    if score_column in facets or "score" in facets:
        raise DataError(
            f"facet {'score' if 'score' in facets else score_column!r} is the score column "
            "(or would take its name); name the facets and the score with different columns."
        )
    column, model = next(iter(where.items()), ("model", None))
    (table,), notes = read_long_table(
        path,
        facets=facets,
        score_column=score_column,
        model_column=column,
        models=[model] if model is not None else (),
        separator=separator,
        choose=choose,
    )
    origin = Origin(
        files=(file_record(path),),
        format="long table",
        model=model,
        model_from=None if model is None else "--where model=",
        where=tuple(where.items()),
    )
    return {**{name: table[name] for name in facets}, "score": table[score_column]}, notes, origin


def _pooled(path: str, column: str, names: list[str], choose: str) -> DataError:
    more = " ..." if len(names) > MAX_SHOWN else ""
    shown = ", ".join(map(repr, names[:MAX_SHOWN]))
    return DataError(
        f"{path}: column {column!r} holds several models ({shown}{more}); their scores would "
        f"be pooled into one. {choose}"
    )


def _label(value: Any, column: str, where: str, what: str) -> str:
    """A facet's (or the model's) label as text: text that is not blank, or a finite
    number (a whole float as an integer, so that ``1`` and ``1.0`` are one level)."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    empty = value is None or isinstance(value, str)
    why = "empty" if empty else f"{examples([value], 1)}, not a label"
    raise DataError(
        f"{where}: {what} column {column!r} is {why}; give every row a label (text or a "
        "number) there, or drop the row."
    )


def _score(value: Any, column: str, where: str, table: bool) -> float:
    """A score: a finite number (a table's cell that reads as one; in JSON a number or a
    boolean)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int) and abs(value) <= _LARGEST_FLOAT:
        return float(value)
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and table and "_" not in value:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    if value is None or (isinstance(value, str) and not value.strip()):
        fix = "every row needs its score: drop the rows without one"
    elif isinstance(value, str) and not table:
        fix = "write scores as JSON numbers (or true/false), not text"
    else:
        fix = "give a finite number (1 and 0 for correct or not), or drop the row"
    raise DataError(
        f"{where}: score column {column!r} is {examples([value], 1)}, not a finite number; {fix}."
    )
