"""Checks of the arrays the judge functions take: per-item scores, labels and clusters."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from typing import Any

import numpy as np

from evalsig.errors import DataError, examples

__all__ = [
    "MAX_LABELS",
    "check_label_set",
    "check_same_items",
    "cluster_codes",
    "finite_numbers",
    "human_scores",
    "judge_scores",
]

MAX_LABELS = 1000
"""The most distinct labels an agreement statistic takes: its tables grow with the square
of their number (a 1,000 x 1,000 table is 8 MB; 20,000 free-text "labels" need 3 GB)."""

FEW_LABELS = 50
"""Up to this many distinct labels are categories whatever the number of rows."""


def check_label_set(
    labels: Iterable[Any], column: str, *, rows: int, scale: str = "nominal"
) -> None:
    """Refuse labels that are not a set of categories: free text, or continuous scores.

    Labels (None: missing) are refused when they take more than :data:`MAX_LABELS`
    distinct values, or on a nominal scale more than :data:`FEW_LABELS` values that are
    more than half the ``rows`` (labels nearly unique per row are not categories that
    raters could agree on). ``column`` names them in the message.

    Examples
    --------
    >>> check_label_set(["yes", "no", "yes"], "judge", rows=3)
    >>> check_label_set([f"answer {i}" for i in range(60)], "judge", rows=60)
    Traceback (most recent call last):
    ...
    evalsig.errors.DataError: column 'judge' holds 60 distinct labels in 60 rows ...
    """
    distinct = {value for value in labels if value is not None}
    count = len(distinct)
    if count <= FEW_LABELS or (count <= MAX_LABELS and (scale != "nominal" or count <= rows / 2)):
        return
    text = any(isinstance(value, str) for value in distinct)
    looks = "free text" if text else "continuous scores"
    raise DataError(
        f"column {column!r} holds {count:,} distinct labels in {rows:,} rows ("
        f"{examples(sorted(map(str, distinct))[:3])} ...): that looks like {looks}, not "
        "categories that raters agree on, and the agreement tables would grow with the "
        "square of their number. Map the values to a few categories (or round scores to "
        f"the points of a rating scale) first; at most {MAX_LABELS:,} labels, and at most "
        f"half as many as rows beyond {FEW_LABELS}."
    )


def judge_scores(values: Any, name: str) -> tuple[np.ndarray, str | None]:
    """Per-item judge scores as float64, and a note when several samples were averaged.

    ``values`` is 1-D (one score per item), 2-D ``items x samples``, or a sequence of
    per-item sequences of different lengths (ragged); several samples of an item are
    averaged before anything else, and the note says so.
    """
    if isinstance(values, np.ndarray) and values.ndim == 2:
        return _finite(values, name).mean(axis=1), _averaged(name, values.shape[1], values.shape[1])
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = None  # ragged, or not numbers: per item below
    if array is not None and array.ndim == 2:
        return _finite(array, name).mean(axis=1), _averaged(name, array.shape[1], array.shape[1])
    if array is not None:
        return _finite(_one_dimensional(array, name), name), None
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise DataError(f"`{name}` must be a sequence of numbers; got {values!r:.60}.")
    means, counts = np.empty(len(values)), np.empty(len(values), dtype=np.int64)
    for i, item in enumerate(values):
        try:
            samples = np.atleast_1d(np.asarray(item, dtype=np.float64))
        except (TypeError, ValueError):
            raise DataError(
                f"`{name}`[{i}] is {item!r:.40}, not a number or a list of numbers."
            ) from None
        if samples.ndim != 1 or samples.size == 0:
            raise DataError(f"`{name}`[{i}] holds no judge score; give at least one per item.")
        means[i], counts[i] = _finite(samples, f"{name}[{i}]").mean(), samples.size
    return means, _averaged(name, int(counts.min()), int(counts.max()))


def human_scores(values: Any, name: str) -> np.ndarray:
    """Human labels (or scores), one per item, as float64."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(
            f"`{name}` must be numbers, one per item (0/1 labels or scores); got {values!r:.60}."
        ) from None
    return _finite(_one_dimensional(array, name), name)


def cluster_codes(labels: Any, n: int, name: str) -> np.ndarray:
    """Integer codes 0..G-1 of ``n`` cluster labels (any hashable values)."""
    if isinstance(labels, str) or not hasattr(labels, "__len__"):
        raise DataError(f"`{name}` must be a sequence of cluster labels; got {labels!r:.60}.")
    if len(labels) != n:
        raise DataError(
            f"`{name}` has {len(labels)} cluster labels but there are {n} items; give one "
            "label per item, in the items' order."
        )
    listed = [v.item() if hasattr(v, "item") else v for v in labels]
    missing = [i for i, v in enumerate(listed) if v is None or v != v]  # None or NaN
    if missing:
        raise DataError(
            f"`{name}` has {len(missing)} missing cluster label(s) (positions "
            f"{examples(missing)}); every item needs its cluster."
        )
    codes: dict[object, int] = {}
    return np.array([codes.setdefault(v, len(codes)) for v in listed], dtype=np.int64)


def check_same_items(judge: Sized, human: Sized, *, counted: str, both: str) -> None:
    """Refuse a judge's and humans' values of different lengths: ``counted`` names what each
    holds ('labels'), ``both`` what to give for every item ('labels')."""
    if len(judge) != len(human):
        raise DataError(
            f"`judge` has {len(judge)} {counted} but `human` has {len(human)}: give both "
            f"{both} of the same items, in one order."
        )


def finite_numbers(array: np.ndarray, name: str, *, per: str, fix: str) -> np.ndarray:
    """``array`` when it holds one finite number per ``per`` (1-D); else a DataError naming
    ``name``, the shape or the first positions that are missing, and ``fix``."""
    if array.ndim != 1:
        raise DataError(f"`{name}` must be one number per {per}; got shape {array.shape}.")
    bad = np.flatnonzero(~np.isfinite(array))
    if len(bad):
        raise DataError(
            f"`{name}` has {len(bad)} missing or infinite value(s) (positions "
            f"{bad[:3].tolist()}); {fix}."
        )
    return array


def _one_dimensional(array: np.ndarray, name: str) -> np.ndarray:
    if array.ndim != 1:
        raise DataError(
            f"`{name}` must be one value per item (1-D); got an array of shape {array.shape}."
        )
    return array


def _finite(array: np.ndarray, name: str) -> np.ndarray:
    array = np.asarray(array, dtype=np.float64)
    bad = ~np.isfinite(array)
    if bad.any():
        where = np.argwhere(bad)
        positions = [int(w[0]) if len(w) == 1 else tuple(int(x) for x in w) for w in where]
        raise DataError(
            f"`{name}` has {int(bad.sum())} missing or infinite value(s) (positions "
            f"{examples(positions)}); remove those items or fill in their scores."
        )
    return array


def _averaged(name: str, low: int, high: int) -> str | None:
    if high <= 1:
        return None
    counts = f"{low}" if low == high else f"{low} to {high}"
    return (
        f"`{name}` has {counts} judge samples per item: they were averaged per item first, "
        "so each item counts once."
    )
