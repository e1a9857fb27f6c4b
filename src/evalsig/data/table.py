"""One model's scores on a set of items, over one or more runs.

A run is one repeated evaluation of the same item: a sample, an epoch or a seed. Items
may have different numbers of runs (ragged runs); evalsig then works with per-item means
and records the counts, never dropping runs. The table keeps per-item sufficient
statistics (sum, sum of squares, count), which is all the paired methods need, and, when
every item has the same runs and the data came as a matrix, the ``runs x items`` matrix
itself (a view of the caller's array, not a copy).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from evalsig.errors import DataError

__all__ = ["ScoreTable"]


@dataclass(frozen=True, slots=True, eq=False)
class ScoreTable:
    """One model's validated scores on items (build with :func:`evalsig.load`)."""

    item_ids: np.ndarray | None
    """``(n,)`` item ids as strings, or None when items are identified by position."""
    sums: np.ndarray
    """``(n,)`` sum of the item's scores over its runs."""
    sumsq: np.ndarray
    """``(n,)`` sum of squared scores over runs (for within-item variance)."""
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

    def __post_init__(self) -> None:
        n = len(self.sums)
        for name in ("sumsq", "counts"):
            if len(getattr(self, name)) != n:
                raise DataError(f"ScoreTable.{name} has {len(getattr(self, name))} rows, not {n}.")
        if self.item_ids is not None and len(self.item_ids) != n:
            raise DataError(f"ScoreTable.item_ids has {len(self.item_ids)} rows, not {n}.")
        for name in ("clusters", "keys"):
            column = getattr(self, name)
            if column is not None and len(column) != n:
                raise DataError(f"ScoreTable.{name} has {len(column)} rows, not {n}.")

    @property
    def n_items(self) -> int:
        return len(self.sums)

    @property
    def means(self) -> np.ndarray:
        """Per-item mean score over runs."""
        means: np.ndarray = self.sums / self.counts
        return means

    @property
    def n_runs(self) -> int:
        """The largest number of runs of any item."""
        return int(self.counts.max()) if self.n_items else 0

    @property
    def ragged(self) -> bool:
        """Whether items have different numbers of runs."""
        return self.n_items > 0 and int(self.counts.min()) != int(self.counts.max())

    @property
    def mean(self) -> float:
        """The model's score: the mean over items of per-item means."""
        if not self.ragged:
            return float(self.sums.sum()) / (self.n_runs * self.n_items)
        return float(self.means.mean())

    def take(self, index: np.ndarray) -> ScoreTable:
        """The table restricted to (and reordered by) the integer positions ``index``."""
        return replace(
            self,
            item_ids=None if self.item_ids is None else self.item_ids[index],
            sums=self.sums[index],
            sumsq=self.sumsq[index],
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
