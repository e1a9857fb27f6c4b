"""Validation of score values: numeric, finite, binary or not, with messages that name items."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from evalsig.errors import DataError, examples

__all__ = ["check_scores", "nearly_binary", "numeric_array"]

Labeller = Callable[[np.ndarray], Sequence[object]]
"""Maps positions of bad values to what a message should show (item ids, rows ...)."""

BLOCK = 1 << 16


def _too_large(value: object) -> bool:
    """Whether ``value`` is an integer past the range of a float."""
    try:
        float(value)  # type: ignore[arg-type]
    except OverflowError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def numeric_array(values: object, *, what: str, label: Labeller) -> np.ndarray:
    """``values`` as a real numeric array, or a :class:`DataError` naming the bad entries.

    Booleans and integers are kept as they are (no copy); strings, None and other objects
    are never converted: a score must already be a number.
    """
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        return array
    if array.dtype.kind in "US" and not isinstance(values, np.ndarray):
        array = np.asarray(values, dtype=object)  # a list mixing numbers and text
    if array.dtype.kind == "c":
        raise DataError(f"{what} holds complex numbers; scores must be real.")
    if array.dtype.kind == "O":
        flat = array.reshape(-1)
        if all(type(v) is float for v in flat):  # the common case, decided fast
            return flat.astype(np.float64).reshape(array.shape)
        bad = np.flatnonzero(
            [not isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) for v in flat]
        )
        if bad.size == 0:
            try:
                return array.astype(np.float64)
            except OverflowError:  # an integer beyond float range (JSON allows any size)
                bad = np.flatnonzero([_too_large(v) for v in flat])
                raise DataError(
                    f"{what} has {bad.size} integer(s) too large for a floating-point number "
                    f"(at {', '.join(map(str, label(bad[:3])))}); scores must be ordinary numbers."
                ) from None
        where = label(bad)
        pairs = ", ".join(
            f"{examples([flat[b]])} at {w}" for b, w in zip(bad[:3], where[:3], strict=False)
        )
        raise DataError(
            f"{what} has {bad.size} non-numeric value(s): {pairs}{', ...' if bad.size > 3 else ''}"
            "; scores must be numbers (use 1/0 for correct/incorrect)."
        )
    shown = examples(array.reshape(-1)[:3])
    raise DataError(
        f"{what} holds no numbers (dtype {array.dtype}, values like {shown}); "
        "scores must be numbers (use 1/0 for correct/incorrect)."
    )


def check_scores(values: np.ndarray, *, what: str, label: Labeller) -> bool:
    """Raise on NaN or infinite scores; return whether every score is 0 or 1.

    ``values`` is 1-D (one score per row) or 2-D ``runs x items``; it is read in blocks of
    items so that no temporary the size of the input is made. A block's minimum and
    maximum decide most of it: both are finite only when every score is (a NaN makes them
    NaN), and integers between 0 and 1 are 0 or 1.
    """
    if values.dtype.kind == "b":
        return True
    matrix = values if values.ndim == 2 else values.reshape(1, -1)
    binary = True
    for start in range(0, matrix.shape[1], BLOCK):
        block = matrix[:, start : start + BLOCK]
        if block.size == 0:
            continue
        if values.dtype.kind == "f":
            low, high = block.min(), block.max()
            if not (np.isfinite(low) and np.isfinite(high)):
                _raise_not_finite(values, what=what, label=label)
            _check_magnitude(block, start, low=float(low), high=float(high), what=what, label=label)
            if binary:
                binary = bool(low >= 0 and high <= 1) and _zeros_and_ones(block)
        elif binary:
            binary = bool(block.min() >= 0 and block.max() <= 1)
    return binary


PEEK = 64
"""Items of a block looked at first when telling 0/1 scores from continuous ones."""


def _zeros_and_ones(block: np.ndarray) -> bool:
    """Whether every float in a block is 0 or 1; its first :data:`PEEK` items first, where
    continuous scores fail at once."""
    return all(bool(((part == 0) | (part == 1)).all()) for part in (block[:, :PEEK], block))


LARGEST = 1e50
"""The largest score magnitude evalsig computes with: squares and cubes of differences and
of their sums over millions of items stay far inside float64."""


def _check_magnitude(
    block: np.ndarray, start: int, *, low: float, high: float, what: str, label: Labeller
) -> None:
    if max(-low, high) <= LARGEST:
        return
    size = np.abs(block)
    largest = float(size.max())
    hit = np.flatnonzero((size == largest).any(axis=0) if block.ndim == 2 else size == largest)
    raise DataError(
        f"{what} has scores as large as {largest:.3g} ({examples(label(hit[:1] + start))}): "
        "their sums and squares overflow floating point; rescale them (evalsig takes "
        f"magnitudes up to {LARGEST:.0e})."
    )


def _raise_not_finite(values: np.ndarray, *, what: str, label: Labeller) -> None:
    bad = np.flatnonzero(~np.isfinite(values.reshape(-1)))
    if values.ndim == 2:
        bad = np.unique(bad % values.shape[1])
    kinds = "NaN or infinite" if np.isinf(values).any() else "NaN"
    raise DataError(
        f"{what} has {len(bad)} {kinds} value(s) ({examples(label(bad))}); "
        "drop or fill them before comparing (evalsig never drops scores silently)."
    )


STRAY_SHARE = 0.05
"""The largest share of whole numbers other than 0 and 1 (at least one value) that makes a
score column look like 0/1 scores with typos rather than counts or ratings."""


def nearly_binary(values: np.ndarray, *, what: str, label: Labeller) -> str | None:
    """A note when scores are 0 and 1 but for a few other whole numbers (a 2, a -1).

    Such a column is read as continuous scores, as it must be (the values are what they
    are), but that changes the method: no McNemar test, no exact binomial interval. A
    stray value is more often a typo than a score, so the note names them. ``values`` is
    1-D (one score per row) or 2-D ``runs x items`` (then items are named).

    >>> nearly_binary(np.array([1, 0, 1, 1, 2, 0]), what="`s`", label=lambda p: list(p))
    "`s` holds 0 and 1 except 1 value(s) (2 at 4): read as continuous scores, so the \
methods for 0/1 scores (McNemar's test, exact binomial intervals) are not used; if they are \
typos, correct them to 0 or 1."
    """
    flat = values.reshape(-1)
    n = flat.size
    others = n - int(np.count_nonzero(flat == 0)) - int(np.count_nonzero(flat == 1))
    if others == 0 or others > max(1, STRAY_SHARE * n) or n - others < 2:
        return None
    positions = np.flatnonzero((flat != 0) & (flat != 1))
    odd = flat[positions]
    if not np.array_equal(odd, np.round(odd)):
        return None  # a fraction: continuous scores
    if values.ndim == 2:
        positions = positions % values.shape[1]
    where = label(positions[:3])
    shown = ", ".join(f"{_number(v)} at {w}" for v, w in zip(odd[:3], where, strict=False))
    more = ", ..." if others > 3 else ""
    return (
        f"{what} holds 0 and 1 except {others} value(s) ({shown}{more}): read as continuous "
        "scores, so the methods for 0/1 scores (McNemar's test, exact binomial intervals) "
        "are not used; if they are typos, correct them to 0 or 1."
    )


def _number(value: object) -> str:
    number = float(value)  # type: ignore[arg-type]
    return f"{number:g}"
