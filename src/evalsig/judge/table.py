"""A judge's scores and human labels from one table (CSV, TSV, JSON Lines or JSON; also
gzip-compressed): one row per judged item (or per judge sample of an item), a judge
column, a human column that is empty (or null) where no human labeled the item, and
optionally item id, cluster and model columns.

Rows with the same item id are one item: its judge scores are several samples (averaged),
its human labels must agree. For a paired difference the model column names which model
each row scores; every item needs both models' rows. A table with a model column (named
``model``, ``model_name``, ``model_id`` or ``generator``, or given) that holds several models
is never pooled into one mean: choose one model, or two to compare.

The table is read by :func:`evalsig.data.readers.records.read_records`, the input path of
every command that reads rows.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalsig.data.readers.records import read_records
from evalsig.data.readers.tabular import MODEL_NAMES
from evalsig.errors import DataError, examples

__all__ = ["JudgeTable", "Side", "label", "read_judge_table"]

_TRUE, _FALSE = {"true", "True", "TRUE"}, {"false", "False", "FALSE"}


@dataclass(slots=True)
class Side:
    """One model's items: judge samples and human label of each, in first-seen order."""

    judge: list[list[float]] = field(default_factory=list)
    human: list[float | None] = field(default_factory=list)
    cluster: list[str | None] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JudgeTable:
    """The items of one model (``sides`` has one entry) or of two, aligned by item."""

    sides: tuple[Side, ...]
    items: tuple[str, ...]
    notes: tuple[str, ...]

    def split(self, k: int) -> tuple[list[list[float]], list[list[float]], list[float]]:
        """Side k's judge samples of the unlabeled items, of the labeled items, and the
        human labels of the labeled items (labeled: every side has a human label)."""
        labeled = self.labeled()
        side = self.sides[k]
        unl = [s for s, keep in zip(side.judge, labeled, strict=True) if not keep]
        lab = [s for s, keep in zip(side.judge, labeled, strict=True) if keep]
        human = [h for h, keep in zip(side.human, labeled, strict=True) if keep]
        return unl, lab, [float(h) for h in human if h is not None]

    def labeled(self) -> list[bool]:
        return [all(side.human[i] is not None for side in self.sides) for i in range(len(self))]

    def clusters(self) -> tuple[list[str | None], list[str | None]]:
        labeled, cluster = self.labeled(), self.sides[0].cluster
        return (
            [c for c, keep in zip(cluster, labeled, strict=True) if not keep],
            [c for c, keep in zip(cluster, labeled, strict=True) if keep],
        )

    def __len__(self) -> int:
        return len(self.items)


def read_judge_table(
    path: str | Path,
    *,
    judge_column: str,
    human_column: str,
    id_column: str | None = None,
    cluster_column: str | None = None,
    model_column: str | None = None,
    models: Sequence[str] = (),
    model: str | None = None,
    separator: str | None = None,
) -> JudgeTable:
    """Read and assemble the items of ``models`` (two: a paired difference), or of one
    ``model``, or of the whole table.

    The model column is ``model_column``, or else a column named like one (``model``,
    ``model_name``, ``model_id``, ``generator``). Without ``models`` or ``model``, a model
    column holding several models is an error: their rows would be pooled into one mean.
    """
    source = Path(path)
    if models and (model_column is None or id_column is None):
        raise DataError(
            "a paired difference needs --model-column (which model a row scores) and --id "
            "(which item), so that the two models' rows of an item are matched."
        )
    if models and model is not None:
        raise DataError("give one model (--model) or two to compare (--baseline ...), not both.")
    wanted = [judge_column, human_column, id_column, cluster_column, model_column]
    columns = [c for c in wanted if c is not None]
    chosen = tuple(models) or ((model,) if model is not None else ())
    sides = {name: Side() for name in (chosen or ("",))}
    index: dict[str, dict[str, int]] = {name: {} for name in sides}
    order: list[str] = []
    notes: list[str] = []
    found: dict[str, None] = {}
    others = 0
    column = model_column
    rows = read_records(source, columns=columns, separator=separator, what="judgments", notes=notes)
    for number, (place, row) in enumerate(rows):
        where = str(place)
        if number == 0 and column is None:
            column = _model_column(row, model, source)
        name = "" if column is None else _model_name(row[column])
        if len(found) <= MAX_SHOWN:
            found.setdefault(name)
        if chosen and name not in sides:
            others += 1
            continue
        side = sides[name if chosen else ""]
        key = str(len(order)) if id_column is None else _text(row[id_column], id_column, where)
        judge = _number(row[judge_column], judge_column, where)
        human = _label(row[human_column], human_column, where)
        cluster = (
            None if cluster_column is None else _text(row[cluster_column], cluster_column, where)
        )
        at = index[name if chosen else ""].get(key)
        if at is None:
            index[name if chosen else ""][key] = len(side.judge)
            side.judge.append([judge])
            side.human.append(human)
            side.cluster.append(cluster)
            if not chosen or name == chosen[0]:
                order.append(key)
            continue
        side.judge[at].append(judge)
        _same(side.human, at, human, f"the human label ({human_column})", key, where)
        _same(side.cluster, at, cluster, f"the cluster ({cluster_column})", key, where)
    if not chosen and column is not None and len(found) > 1:
        raise _pooled(source, column, list(found))
    if model is not None and not order:
        raise DataError(
            f"{source}: no rows of model {model!r} in column {column!r}; it holds "
            f"{examples(found, 5)}."
        )
    notes += _align(sides, index, order, models)
    if others:
        notes.append(
            f"{others} row(s) of other models than {', '.join(map(repr, chosen))} left out."
        )
    aligned = tuple(_aligned(sides[m], index[m], order) for m in sides)
    if models:
        _one_sided_labels(aligned, order, models)
    if not order:
        raise DataError(f"{source}: no rows to read (for models {list(models)!r}).")
    return JudgeTable(sides=aligned, items=tuple(order), notes=tuple(notes))


MAX_SHOWN = 20
"""The most model names a message lists."""


def _model_column(row: dict[str, Any], model: str | None, source: Path) -> str | None:
    """The column that names each row's model, when one is named like it (``model`` ...)."""
    column = next((c for c in row if c.lower() in MODEL_NAMES), None)
    if column is None and model is not None:
        raise DataError(
            f"{source}: --model {model!r} chooses the rows of one model, but no column names "
            f"models (columns {examples(row, 12)}); name it with --model-column."
        )
    return column


def _model_name(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _pooled(source: Path, column: str, names: list[str]) -> DataError:
    more = " ..." if len(names) > MAX_SHOWN else ""
    shown = ", ".join(map(repr, names[:MAX_SHOWN]))
    return DataError(
        f"{source}: column {column!r} holds several models ({shown}{more}); their rows would "
        "be pooled into one mean. Choose one with --model NAME (model=), or compare two with "
        f"--model-column {column} --baseline NAME --candidate NAME."
    )


def label(value: Any, column: str = "", where: str = "") -> int | float | str | None:
    """A label as read: None when empty or null; a whole number as int (``"1"``, ``1.0``,
    ``true`` -> 1); another number as float; any other text as is (stripped). Text that
    reads as a number that is not finite ("nan", "inf") is refused: it is a missing or
    broken value written as text, not a category (``column`` and ``where`` name it).

    CSV cells and JSON values of one label read the same (``"1"`` and ``1`` are one
    category)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if not _finite(value):
            at = f"{where}: " if where else ""
            raise DataError(
                f"{at}{column or 'a label'} is {examples([value], 1)}, a number past the range "
                "of a float, not a label; check the column."
            )
        return value
    if isinstance(value, float):
        if value != value:
            return None
        return int(value) if value.is_integer() else value
    text = str(value).strip()
    if not text:
        return None
    if text in _TRUE or text in _FALSE:
        return 1 if text in _TRUE else 0
    try:
        number = float(text)
    except ValueError:
        return text
    if number != number or number in (float("inf"), float("-inf")):
        at = f"{where}: " if where else ""
        raise DataError(
            f"{at}{column or 'a label'} is {examples([text], 1)}, a number that is not finite, "
            "not a label; "
            "leave the cell empty where there is no label."
        )
    return int(number) if number.is_integer() else number


def _number(value: Any, column: str, where: str) -> float:
    if isinstance(value, str):
        text = value.strip()
        if text in _TRUE or text in _FALSE:
            return 1.0 if text in _TRUE else 0.0
        try:
            value = float(text)
        except ValueError:
            raise DataError(
                f"{where}: {column} is {examples([value], 1)}, not a number; the judge must "
                "score every row (drop rows it did not score)."
            ) from None
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, (int, float)) or not _finite(value):
        raise DataError(f"{where}: {column} is {examples([value], 1)}, not a finite number.")
    return float(value)


def _finite(value: int | float) -> bool:
    """Whether a float holds ``value``: not NaN or infinite, no integer past its range."""
    if isinstance(value, int):
        return abs(value) <= _LARGEST_FLOAT
    return math.isfinite(value)


_LARGEST_FLOAT = int(sys.float_info.max)


def _label(value: Any, column: str, where: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _number(value, column, where)


def _text(value: Any, column: str | None, where: str) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(f"{where}: {column} is empty; every row needs one.")
    return str(value)


def _same(values: list[Any], at: int, value: Any, what: str, key: str, where: str) -> None:
    if values[at] is None and value is not None and what.startswith("the human"):
        values[at] = value  # a label given on one of the item's rows
        return
    if value is not None and values[at] != value:
        raise DataError(
            f"{where}: item {key!r} has {what} {value!r} here but {values[at]!r} on an earlier "
            "row; the rows of one item must agree."
        )


def _align(
    sides: dict[str, Side],
    index: dict[str, dict[str, int]],
    order: list[str],
    models: Sequence[str],
) -> list[str]:
    if not models:
        return []
    first, second = models
    only_first = [k for k in order if k not in index[second]]
    only_second = [k for k in index[second] if k not in index[first]]
    if only_first or only_second:
        raise DataError(
            f"the two models were not judged on the same items: {len(only_first)} item(s) only "
            f"for {first!r} ({examples(only_first)}), {len(only_second)} only for {second!r} "
            f"({examples(only_second)}); give both models' rows of every item."
        )
    if not sides[first].judge:
        raise DataError(f"no rows for model {first!r} in the model column.")
    return []


def _aligned(side: Side, index: dict[str, int], order: list[str]) -> Side:
    positions = [index[k] for k in order]
    return Side(
        judge=[side.judge[i] for i in positions],
        human=[side.human[i] for i in positions],
        cluster=[side.cluster[i] for i in positions],
    )


def _one_sided_labels(sides: tuple[Side, ...], order: list[str], models: Sequence[str]) -> None:
    odd = [
        order[i]
        for i in range(len(order))
        if (sides[0].human[i] is None) != (sides[1].human[i] is None)
    ]
    if odd:
        raise DataError(
            f"{len(odd)} item(s) have a human label for one model only ({examples(odd)}); "
            f"humans must label both {models[0]!r} and {models[1]!r} on the labeled items."
        )
