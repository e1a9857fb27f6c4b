"""Results as tables for notebooks: pandas DataFrames (``to_frame()``).

pandas is imported inside :func:`data_frame` (the ``pandas`` extra), so ``import evalsig``
and the command line never load it. A frame holds every row of its result, typed: counts
as int64, flags as bool, numbers as float64 (NaN or +/-inf where ``to_dict()`` has null),
text as strings. (:func:`evalsig.report.markdown.markdown_table` writes the same rows as
markdown.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PANDAS_MISSING",
    "Nullable",
    "data_frame",
    "floats",
    "ints",
    "stacked",
]

PANDAS_MISSING = "to_frame() needs pandas: pip install 'evalsig-stats[columnar]'."


@dataclass(frozen=True, slots=True)
class Nullable:
    """A column of pandas' nullable ``dtype``: flags or counts where None is <NA>."""

    values: Sequence[bool | int | None]
    dtype: Literal["boolean", "Int64"]

    def __len__(self) -> int:
        return len(self.values)


def data_frame(
    columns: Mapping[str, Sequence[Any] | np.ndarray | Nullable],
    *,
    attrs: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """A DataFrame with ``columns`` in their order (each a copy), and ``attrs`` attached.

    A numpy array keeps its kind (bool; int as int64; float as float64); a
    :class:`Nullable` becomes pandas' nullable ``boolean`` or ``Int64`` (None as <NA>);
    a list holds text or other objects (tuples stay tuples).

    Raises
    ------
    ImportError
        pandas is not installed; the message names the extra that brings it.
    """
    pandas = _pandas()
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns of different lengths: {lengths}")
    frame = pandas.DataFrame({name: _column(pandas, v) for name, v in columns.items()})
    frame.attrs.update(attrs or {})
    return frame


def stacked(frames: Sequence[pd.DataFrame], *, column: str, keys: Sequence[str]) -> pd.DataFrame:
    """The frames one under the other, ``column`` (first) saying which ``keys[i]`` each row
    came from; the index runs 0 .. n - 1."""
    pandas = _pandas()
    parts = [
        f.assign(**{column: key})[[column, *f.columns]] for f, key in zip(frames, keys, strict=True)
    ]
    return pandas.concat(parts, ignore_index=True)


def floats(values: Iterable[float | None]) -> np.ndarray:
    """float64 values, None as NaN (the inverse of ``to_dict()``'s nulls)."""
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def ints(values: Iterable[int]) -> np.ndarray:
    """int64 values (counts, ranks)."""
    return np.array(list(values), dtype=np.int64)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError(PANDAS_MISSING) from None
    return pandas


def _column(pandas: Any, values: Sequence[Any] | np.ndarray | Nullable) -> Any:
    """One column, typed as :func:`data_frame` describes."""
    if isinstance(values, np.ndarray):
        kind = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64}.get(values.dtype.kind)
        return np.array(values, dtype=kind or values.dtype, copy=True)
    if isinstance(values, Nullable):
        return pandas.array(list(values.values), dtype=values.dtype)
    column = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):  # element by element: tuples stay tuples
        column[i] = value
    return column
