"""Validation of the options and the streamed data of a confidence sequence."""

from __future__ import annotations

from typing import Literal, cast, get_args

import numpy as np

from evalsig.data.validate import numeric_array
from evalsig.errors import AlignmentError, DataError, examples
from evalsig.inference._common import check_choice

__all__ = ["Method", "as_differences", "check_grid_size", "check_method"]

Method = Literal["betting", "bernstein"]
"""``"betting"``: Waudby-Smith & Ramdas's hedged capital on a grid (the default, tighter);
``"bernstein"``: Howard et al.'s empirical-Bernstein stitched boundary (O(1) per item)."""

MIN_GRID, MAX_GRID = 10, 100_000


def check_method(method: object) -> Method:
    hint = "Use 'betting' (the default) unless you need constant work per item."
    return cast(Method, check_choice(method, get_args(Method), "`method`", hint))


def check_grid_size(grid_size: object) -> int:
    if (
        isinstance(grid_size, bool)
        or not isinstance(grid_size, (int, np.integer))
        or not MIN_GRID <= grid_size <= MAX_GRID
        or grid_size % 2
    ):
        raise DataError(
            f"`grid_size` must be an even integer from {MIN_GRID} to {MAX_GRID:,} (so that 0 "
            f"is a grid point); got {grid_size!r}. Use e.g. 2000 (steps of 0.1 pp)."
        )
    return int(grid_size)


def as_differences(first: object, second: object | None, *, offset: int = 0) -> np.ndarray:
    """Per-item differences ``candidate - baseline`` as a 1-D float array.

    ``second`` None: ``first`` holds the differences, each in [-1, 1]. Otherwise ``first`` is
    the baseline and ``second`` the candidate, scores in [0, 1]. ``offset`` is the number of
    items already seen, so that messages name the item's position in the whole stream.
    """
    if second is None:
        d = _vector(first, "differences", -1.0, 1.0, offset)
        return d
    baseline = _vector(first, "baseline", 0.0, 1.0, offset)
    candidate = _vector(second, "candidate", 0.0, 1.0, offset)
    if baseline.shape != candidate.shape:
        raise AlignmentError(
            f"`baseline` has {baseline.size} values but `candidate` has {candidate.size}; "
            "paired data need one score per item on both sides, in the same item order."
        )
    diff: np.ndarray = candidate - baseline
    return diff


def _vector(values: object, name: str, low: float, high: float, offset: int) -> np.ndarray:
    def label(positions: np.ndarray) -> list[str]:
        return [f"item {offset + int(p) + 1:,}" for p in positions]

    array = numeric_array(values, what=f"`{name}`", label=label)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise DataError(
            f"`{name}` must be one-dimensional (one value per item, in arrival order); got "
            f"shape {array.shape}. Pass one run per item, or average runs first."
        )
    array = array.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise DataError(
            f"`{name}` has {bad.size} NaN or infinite value(s) ({examples(label(bad))}); "
            "drop or fill them before monitoring (evalsig never drops scores silently)."
        )
    bad = np.flatnonzero((array < low) | (array > high))
    if bad.size:
        shown = ", ".join(
            f"{float(array[b])!r} at {where}"
            for b, where in zip(bad[:3], label(bad[:3]), strict=True)
        )
        hint = (
            "differences of scores in [0, 1] lie in [-1, 1]"
            if name == "differences"
            else "rescale the scores to [0, 1] (e.g. divide by the maximum score)"
        )
        raise DataError(
            f"`{name}` has {bad.size} value(s) outside [{low:g}, {high:g}]: {shown}"
            f"{', ...' if bad.size > 3 else ''}; {hint}."
        )
    return array
