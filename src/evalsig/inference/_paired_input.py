"""Validation of the aligned per-item arrays the inference functions take."""

from __future__ import annotations

import numpy as np

from evalsig.data.validate import check_scores, numeric_array
from evalsig.errors import AlignmentError, DataError

__all__ = ["paired_arrays", "paired_differences"]


def paired_arrays(
    baseline: object, candidate: object, *, ndim: int = 1, min_items: int = 2
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Two aligned float arrays of per-item values, and whether all values are 0/1.

    ``ndim=1``: one value per item; ``ndim=2``: a row of sufficient statistics per item.
    """
    arrays = []
    binary = True
    for name, values in (("baseline", baseline), ("candidate", candidate)):
        array = numeric_array(values, what=f"`{name}`", label=_positions)
        if array.ndim != ndim:
            shape = "(n,) one value per item" if ndim == 1 else "(n, k) one row per item"
            raise DataError(
                f"`{name}` must have shape {shape}; got shape {array.shape}. For several runs "
                "pass per-item means, or use evalsig.compare, which takes runs x items."
            )
        matrix = array if ndim == 1 else array.T
        binary &= check_scores(matrix, what=f"`{name}`", label=_positions)
        arrays.append(array.astype(np.float64, copy=False))
    x, y = arrays
    if x.shape != y.shape:
        raise AlignmentError(
            f"`baseline` has shape {x.shape} but `candidate` has shape {y.shape}; paired data "
            "need one value (or row) per item on both sides, in the same item order."
        )
    if len(x) < min_items:
        raise DataError(f"a paired test needs at least {min_items} items; got {len(x)}.")
    return x, y, binary


def paired_differences(baseline: object, candidate: object) -> np.ndarray:
    """Per-item differences ``candidate - baseline`` of validated 1-D arrays."""
    x, y, _ = paired_arrays(baseline, candidate)
    d: np.ndarray = y - x
    return d


def _positions(pos: np.ndarray) -> list[str]:
    return [f"position {int(p)}" for p in pos]
