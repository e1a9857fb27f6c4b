"""What every confidence-sequence method shares: running sums, one step per batch."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from evalsig.inference._common import Alternative

__all__ = ["Engine", "Step"]


@dataclass(frozen=True, slots=True)
class Step:
    """Per item of a batch: the running sum of the differences and the running bounds."""

    sums: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


class Engine(ABC):
    """The running state of one method. ``update`` costs O(batch) times a per-item cost that
    does not grow with the number of items already seen.

    Every running quantity is a sequential accumulation (``numpy.cumsum`` of the previous
    value followed by the batch), so the state after a stream is bit-for-bit the same however
    the stream is cut into batches.
    """

    grid_size: int | None = None

    def __init__(self, *, confidence_level: float, alternative: Alternative) -> None:
        self.alpha = 1.0 - confidence_level
        self.alternative: Alternative = alternative
        self.n = 0
        self.total = 0.0

    def update(self, d: np.ndarray) -> Step:
        """Advance over the validated differences ``d`` (1-D, in [-1, 1])."""
        sums = np.cumsum(np.concatenate(([self.total], d)))
        lower, upper = self._advance(d, sums, self.n)
        self.n += len(d)
        self.total = float(sums[-1])
        return Step(sums=sums[1:], lower=lower, upper=upper)

    @abstractmethod
    def _advance(self, d: np.ndarray, sums: np.ndarray, n0: int) -> tuple[np.ndarray, np.ndarray]:
        """Bounds after each item; ``sums[k]`` is the sum of the first ``n0 + k`` items."""
