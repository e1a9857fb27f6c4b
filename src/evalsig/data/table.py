"""One model's scores on a set of items, over one or more runs.

A run is one repeated evaluation of the same item: a sample, an epoch or a seed. Items
may have different numbers of runs (ragged runs); evalsig then works with per-item means
and records the counts, never dropping runs. The table keeps per-item sufficient
statistics (sum, sum of squares, count), which is all the paired methods need, and, when
every item has the same runs and the data came as a matrix, the ``runs x items`` matrix
itself (a view of the caller's array, not a copy). A table built from a matrix computes
its statistics from the matrix when they are first read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Literal

import numpy as np

from evalsig.data.provenance import Origin
from evalsig.errors import DataError

__all__ = ["IdKind", "LazyLabels", "ScoreTable", "items_per_block", "same_ids"]


class _Unset(Enum):
    """An argument not given (``dataclasses.replace`` passes ``item_ids`` on as ``_item_ids``)."""

    UNSET = "unset"


_UNSET = _Unset.UNSET

BLOCK = 1 << 16
"""Items per block when a per-item statistic is computed from the runs matrix."""
MIN_BLOCK = 1 << 12
"""The fewest items per block of :func:`items_per_block` (when there are more items)."""

EXACT_BELOW = 2**53
"""Integers below this are exact in float64, so sums of them are exact in any order."""


IdKind = Literal["number", "text"]
"""How the data wrote a table's item ids: as numbers (JSON ``1``) or as text (``"1"``)."""


class LazyLabels:
    """Item labels a reader keeps in its own form (a pyarrow text array) until they are
    read: made into Python strings on first use, then kept. A comparison of two files that
    list the same items in the same order needs none of them (:meth:`same_as`), and a
    million labels take 0.06 s and 60 MB to make."""

    __slots__ = ("_length", "_strings")

    def __init__(self, length: int) -> None:
        self._length = length
        self._strings: np.ndarray | None = None

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        return self.strings()[index]

    def strings(self) -> np.ndarray:
        """The labels as a numpy array of Python strings."""
        if self._strings is None:
            self._strings = self._make()
        return self._strings

    def _make(self) -> np.ndarray:
        raise NotImplementedError

    def same_as(self, other: LazyLabels) -> bool | None:
        """Whether ``other`` holds the same labels in the same order, when that is known
        without making them; else None."""
        return None


@dataclass(frozen=True, slots=True, eq=False, init=False)
class ScoreTable:
    """One model's validated scores on items (build with :func:`evalsig.load`).

    Construct with keywords: ``item_ids``, ``counts``, ``binary``, and ``sums`` and
    ``sumsq``, either of which may be left out when ``runs`` is given: it is then
    computed from the matrix when first read. ``clusters``, ``keys``, ``source``,
    ``notes``, ``origin`` and ``id_kind`` are optional. (``_sums``, ``_sumsq`` and
    ``_item_ids`` carry the statistics and labels over in ``dataclasses.replace``.)
    """

    _item_ids: np.ndarray | LazyLabels | None = field(repr=False)
    """:attr:`item_ids`, or labels not yet made into strings."""
    counts: np.ndarray
    """``(n,)`` number of runs of each item (at least 1); may be a read-only broadcast view."""
    binary: bool
    """Whether every score is 0 or 1."""
    clusters: np.ndarray | None = None
    """``(n,)`` cluster label of each item (subject, passage, source), or None."""
    keys: np.ndarray | None = None
    """``(n,)`` content key of each item (gold answer, target, document hash) or None; two
    files that give one item different keys did not score the same thing."""
    runs: np.ndarray | None = field(default=None, repr=False)
    """``(R, n)`` score matrix when every item has R runs and the input was a matrix."""
    source: str = "scores"
    """How messages refer to this table: 'baseline', a file name ..."""
    notes: tuple[str, ...] = ()
    """What happened while reading (null predictions scored wrong, ...)."""
    origin: Origin | None = None
    """Where the scores came from (files and hashes, model, task, metric), when known."""
    id_kind: IdKind | None = None
    """Whether the input wrote every item id as a number or every one as text (the ids
    themselves are text either way, so JSON ``1`` and ``"1"`` are one item); None when
    it does not say: a format without types (CSV), ids of both kinds, positional items."""
    _sums: np.ndarray | None = field(default=None, repr=False)
    """:attr:`sums` once given or computed; None until then."""
    _sumsq: np.ndarray | None = field(default=None, repr=False)
    """:attr:`sumsq` once given or computed; None until then."""

    def __init__(
        self,
        *,
        item_ids: np.ndarray | LazyLabels | _Unset | None = _UNSET,
        counts: np.ndarray,
        binary: bool,
        sums: np.ndarray | None = None,
        sumsq: np.ndarray | None = None,
        clusters: np.ndarray | None = None,
        keys: np.ndarray | None = None,
        runs: np.ndarray | None = None,
        source: str = "scores",
        notes: tuple[str, ...] = (),
        origin: Origin | None = None,
        id_kind: IdKind | None = None,
        _sums: np.ndarray | None = None,
        _sumsq: np.ndarray | None = None,
        _item_ids: np.ndarray | LazyLabels | _Unset | None = _UNSET,
    ) -> None:
        if item_ids is _UNSET and _item_ids is _UNSET:
            raise TypeError("ScoreTable() needs `item_ids` (None for items known by position).")
        values = {
            "_item_ids": _item_ids if item_ids is _UNSET else item_ids,
            "counts": counts,
            "binary": binary,
            "clusters": clusters,
            "keys": keys,
            "runs": runs,
            "source": source,
            "notes": notes,
            "origin": origin,
            "id_kind": id_kind,
            "_sums": _sums if sums is None else sums,
            "_sumsq": _sumsq if sumsq is None else sumsq,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)
        self._check_shapes()

    def _check_shapes(self) -> None:
        n = len(self.counts)
        columns = {
            "sums": self._sums,
            "sumsq": self._sumsq,
            "item_ids": self._item_ids,
            "clusters": self.clusters,
            "keys": self.keys,
        }
        for name, column in columns.items():
            if column is not None and len(column) != n:
                raise DataError(f"ScoreTable.{name} has {len(column)} rows, not {n}.")
        if self.runs is not None and (self.runs.ndim != 2 or self.runs.shape[1] != n):
            raise DataError(f"ScoreTable.runs has shape {self.runs.shape}, not (R, {n}).")
        if self.runs is None and (self._sums is None or self._sumsq is None):
            raise DataError("ScoreTable needs `sums` and `sumsq`, or the `runs` matrix.")

    @property
    def item_ids(self) -> np.ndarray | None:
        """``(n,)`` item ids as strings, or None when items are identified by position."""
        ids = self._item_ids
        return ids.strings() if isinstance(ids, LazyLabels) else ids

    @property
    def by_position(self) -> bool:
        """Whether items are identified by position (the table has no item ids)."""
        return self._item_ids is None

    def same_items(self, other: ScoreTable) -> bool:
        """Whether both tables list the same item ids in the same order (lazy labels are
        compared as the reader holds them, when it can)."""
        if self.by_position or other.by_position:
            return self.by_position and other.by_position and self.n_items == other.n_items
        mine, theirs = self._item_ids, other._item_ids
        if isinstance(mine, LazyLabels) and isinstance(theirs, LazyLabels):
            same = mine.same_as(theirs)
            if same is not None:
                return same
        return same_ids(self.item_ids, other.item_ids)

    @property
    def sums(self) -> np.ndarray:
        """``(n,)`` sum of the item's scores over its runs, in float64.

        From a matrix: computed when first read, then kept; one run of float64 scores is
        its own sum (a read-only view of the caller's array).
        """
        sums = self._sums
        if sums is None:
            sums = _column_sums(self._matrix())
            object.__setattr__(self, "_sums", sums)  # a cache of a pure function
        return sums

    @property
    def sumsq(self) -> np.ndarray:
        """``(n,)`` sum of squared scores over runs (for within-item variance).

        From a matrix: computed when first read (a comparison never reads it), then kept;
        for 0/1 scores it is :attr:`sums` itself.
        """
        squares = self._sumsq
        if squares is None:
            squares = self.sums if self.binary else _column_squares(self._matrix())
            object.__setattr__(self, "_sumsq", squares)  # a cache of a pure function
        return squares

    def sum_blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """``(block, sums[block])`` over consecutive blocks of items.

        Integer scores whose sums are not kept give exact integer sums (the scores
        themselves for one run), block by block and never all at once: the numbers of
        :attr:`sums` (float64 sums are 8x an int8 matrix), to be computed with in float64.
        Other scores are summed whole and kept, since their total needs them whole.
        """
        accumulator = self._exact_accumulator() if self._sums is None else None
        step = items_per_block(self.n_items)
        for start in range(0, self.n_items, step):
            block = slice(start, start + step)
            if accumulator is None:
                yield block, self.sums[block]
            else:
                yield block, _integer_column_sums(self._matrix()[:, block], accumulator)

    def _matrix(self) -> np.ndarray:
        if self.runs is None:  # excluded by the constructor
            raise DataError("ScoreTable has neither its sums nor a `runs` matrix.")
        return self.runs

    def _exact_accumulator(self) -> np.dtype | None:
        """The smallest integer type that sums an item's runs exactly, for integer scores
        whose every partial sum is an integer below 2**53 (so that float64 sums of them are
        exact in any order, and equal); None for other scores."""
        runs = self.runs
        if runs is None or runs.dtype.kind not in "biu":
            return None
        if self.binary or runs.dtype.kind == "b":
            largest = 1
        else:
            info = np.iinfo(runs.dtype)
            largest = max(-int(info.min), int(info.max))
        if largest * runs.size >= EXACT_BELOW:
            return None
        per_item = largest * runs.shape[0]
        return next(
            np.dtype(t) for t in (np.int16, np.int32, np.int64) if per_item <= np.iinfo(t).max
        )

    @property
    def n_items(self) -> int:
        return len(self.counts)

    @property
    def means(self) -> np.ndarray:
        """Per-item mean score over runs."""
        runs = self._uniform_runs()
        # dividing by the float R gives the same numbers as by the int64 counts, unconverted
        means: np.ndarray = self.sums / (self.counts if runs is None else float(runs))
        return means

    @property
    def n_runs(self) -> int:
        """The largest number of runs of any item."""
        runs = self._uniform_runs()
        if runs is not None:
            return runs
        return int(self.counts.max()) if self.n_items else 0

    @property
    def ragged(self) -> bool:
        """Whether items have different numbers of runs."""
        if self._uniform_runs() is not None:
            return False
        return self.n_items > 0 and int(self.counts.min()) != int(self.counts.max())

    @property
    def mean(self) -> float:
        """The model's score: the mean over items of per-item means."""
        if not self.ragged:
            if self._sums is None and self._exact_accumulator() is not None:
                total = float(int(self._matrix().sum()))  # sums.sum() to the last bit
            else:
                total = float(self.sums.sum())
            return total / (self.n_runs * self.n_items)
        return float(self.means.mean())

    def _uniform_runs(self) -> int | None:
        """R when ``counts`` is a broadcast view of one count R (every item has R runs).

        A view with stride 0 holds one value: reading it costs nothing, where ``max()``
        over the counts reads every item.
        """
        counts = self.counts
        if self.n_items and counts.ndim == 1 and counts.strides[0] == 0:
            return int(counts[0])
        return None

    def take(self, index: np.ndarray) -> ScoreTable:
        """The table restricted to (and reordered by) the integer positions ``index``.

        Its sums come from this table's (made now if not yet), not from the taken runs:
        the same numbers whatever the memory layout of ``runs[:, index]``.
        """
        return replace(
            self,
            _item_ids=None if self.item_ids is None else self.item_ids[index],
            _sums=self.sums[index],
            _sumsq=self.sumsq[index],
            counts=self.counts[index],
            clusters=None if self.clusters is None else self.clusters[index],
            keys=None if self.keys is None else self.keys[index],
            runs=None if self.runs is None else self.runs[:, index],
        )

    def runs_summary(self) -> str:
        """'8 runs', or 'ragged: 3-8 runs per item (mean 7.2)'."""
        if not self.ragged:
            n = self.n_runs
            return f"{n} run" + ("s" if n != 1 else "")
        lo, hi = int(self.counts.min()), int(self.counts.max())
        return f"ragged: {lo}-{hi} runs per item (mean {self.counts.mean():.2f})"


def same_ids(ids: np.ndarray | None, other: np.ndarray | None) -> bool:
    """Whether two tables list the same item ids in the same order (a table's ids are
    distinct, so the stacked ids are then either's)."""
    if ids is None or other is None:
        return ids is other
    return ids is other or (len(ids) == len(other) and bool(np.array_equal(ids, other)))


def items_per_block(n_items: int) -> int:
    """Items per block for per-item work: about 1/16 of the items, between 4,096 and
    65,536 (a float64 block of 512 KB), so that a block's temporaries stay small beside
    small inputs too."""
    return min(BLOCK, max(MIN_BLOCK, n_items // 16))


def _integer_column_sums(matrix: np.ndarray, accumulator: np.dtype) -> np.ndarray:
    """Per-item sums of integer scores over runs, exact in ``accumulator`` (wide enough)."""
    sums: np.ndarray = (
        matrix[0] if matrix.shape[0] == 1 else np.add.reduce(matrix, axis=0, dtype=accumulator)
    )
    return sums


def _column_sums(matrix: np.ndarray) -> np.ndarray:
    """Per-item sum of scores over runs, ``sum_r x[r, i]``, in float64.

    One run is its own sum: a read-only view of float64 scores, not a copy. Several runs
    are added block by block of items, straight into the result (no float64 copy of the
    block), in the same order as ``block.astype(float).sum(axis=0)``.
    """
    if matrix.shape[0] == 1:
        return _single_run_sums(matrix[0])
    n = matrix.shape[1]
    sums = np.empty(n)
    for start in range(0, n, BLOCK):
        block = slice(start, start + BLOCK)
        np.add.reduce(matrix[:, block], axis=0, dtype=np.float64, out=sums[block])
    return sums


def _single_run_sums(row: np.ndarray) -> np.ndarray:
    """One run's scores as float64 sums: ``0.0 + x``, a view when that is ``x`` itself.

    A sum turns a negative zero into 0.0, so scores holding one are copied that way.
    """
    if row.dtype.kind == "f" and _has_negative_zero(row):
        sums: np.ndarray = np.add(row, 0.0, dtype=np.float64)
        return sums
    if row.dtype != np.float64:
        return row.astype(np.float64)
    view: np.ndarray = row.view()
    view.flags.writeable = False
    return view


def _has_negative_zero(row: np.ndarray) -> bool:
    """Whether a float array holds -0.0.

    Read as integers of the same width, -0.0 (the sign bit alone) is the smallest integer
    there is, so one minimum answers, with no mask as large as ``row``.
    """
    if row.dtype.isnative and row.dtype.itemsize in (2, 4, 8):
        bits = row.view(f"i{row.itemsize}")
        return bool(bits.min() == np.iinfo(bits.dtype).min)
    return bool((np.signbit(row) & (row == 0)).any())


def _column_squares(matrix: np.ndarray) -> np.ndarray:
    """Per-item sum of squared scores over runs, ``sum_r x[r, i]**2``, in float64.

    Read in blocks of items, so that no float64 copy of a whole (integer) matrix is made.
    Each block is copied in the matrix's own memory order: einsum's order of addition,
    and so the last bits, follow the layout.
    """
    n = matrix.shape[1]
    sumsq = np.empty(n)
    for start in range(0, n, BLOCK):
        block = matrix[:, start : start + BLOCK].astype(np.float64)
        sumsq[start : start + BLOCK] = np.einsum("ij,ij->j", block, block)
    return sumsq
