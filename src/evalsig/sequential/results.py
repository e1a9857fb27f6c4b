"""The state of a confidence sequence after some items, and the path it took."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.inference._common import Alternative
from evalsig.result import Result
from evalsig.sequential._input import Method

__all__ = ["SequencePath", "SequentialResult", "Status"]

Status = Literal["candidate better", "baseline better", "not yet resolved"]
"""Resolved once the confidence sequence excludes 0; it then stays resolved."""

MAX_PATH_POINTS = 400
"""``to_dict()`` keeps at most about this many points of a long path (log-spaced)."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SequencePath:
    """The confidence sequence as it evolved: one entry per checkpoint (compared by identity).

    ``confidence_sequence`` records every item; :class:`SequentialMonitor` one checkpoint per
    ``update``. Bounds are NaN where the running intersection was empty.
    """

    n: np.ndarray
    """Items seen at each checkpoint (int64, increasing)."""
    estimate: np.ndarray
    """Running mean difference (candidate - baseline)."""
    lower: np.ndarray
    upper: np.ndarray

    def __len__(self) -> int:
        return len(self.n)

    def thinned(self, max_points: int = MAX_PATH_POINTS) -> SequencePath:
        """At most about ``max_points`` checkpoints, log-spaced, keeping the first and last."""
        m = len(self.n)
        if m <= max_points:
            return self
        keep = np.unique(
            np.concatenate(
                [
                    np.geomspace(1, m, max_points // 2).astype(np.int64) - 1,
                    np.linspace(0, m - 1, max_points // 2).astype(np.int64),
                ]
            )
        )
        return SequencePath(
            n=self.n[keep],
            estimate=self.estimate[keep],
            lower=self.lower[keep],
            upper=self.upper[keep],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SequentialResult(Result):
    """An anytime-valid confidence sequence for the mean paired difference, at item ``n``.

    With probability at least ``confidence_level``, the interval contains the true mean
    difference at *every* ``n`` simultaneously, so it may be checked after every item and
    the stream stopped whenever it excludes 0, without inflating the error rate.
    """

    kind: ClassVar[str] = "sequential"

    method: Method
    alternative: Alternative
    confidence_level: float
    n: int
    """Items seen so far."""
    estimate: float
    """Running mean of candidate - baseline (NaN before the first item)."""
    lower: float
    """Lower bound of the running intersection; -1 (the natural limit) for ``"less"``."""
    upper: float
    """Upper bound; +1 for ``"greater"``. Both bounds are NaN if the intersection is empty."""
    status: Status
    resolved_at: int | None
    """The first ``n`` at which the sequence excluded 0 (None while unresolved)."""
    grid_size: int | None
    """Grid intervals on [-1, 1] (``"betting"``); None for ``"bernstein"``."""
    notes: tuple[str, ...] = ()
    path: SequencePath | None = field(default=None, compare=False, repr=False)
    """Checkpoints up to ``n`` (None for the states :meth:`SequentialMonitor.update` returns)."""
    provenance: Provenance | None = field(default=None, compare=False, repr=False)
    """The version and the time; ``evalsig monitor`` adds the file it read (its size and
    SHA-256 over the lines monitored) and the columns."""

    @property
    def resolved(self) -> bool:
        """Whether the sequence has excluded 0 (the status is then final)."""
        return self.resolved_at is not None

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON form; NaN becomes null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        empty = "the running intersection is empty (see notes)"
        return {
            "kind": "sequential",
            "schema_version": SCHEMA_VERSION,
            "method": self.method,
            "alternative": self.alternative,
            "confidence_level": self.confidence_level,
            "n": self.n,
            "estimate": json_safe(self.estimate, "estimate", nulls, "no items yet"),
            "lower": json_safe(self.lower, "lower", nulls, empty),
            "upper": json_safe(self.upper, "upper", nulls, empty),
            "status": self.status,
            "resolved": self.resolved,
            "resolved_at": self.resolved_at,
            "grid_size": self.grid_size,
            "path": _path_dict(self.path, nulls),
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """The path, every checkpoint (not thinned as in ``to_dict()``): n, estimate, lower,
        upper (NaN where the running intersection was empty).

        Raises
        ------
        DataError
            The state has no path (``SequentialMonitor.update`` returns states without one).
        """
        from evalsig._frame import data_frame
        from evalsig.errors import DataError

        if self.path is None:
            raise DataError(
                "this state has no path: SequentialMonitor.update() returns states without "
                "one; take monitor.result() (or confidence_sequence()) for the path."
            )
        p = self.path
        return data_frame({"n": p.n, "estimate": p.estimate, "lower": p.lower, "upper": p.upper})


def _path_dict(path: SequencePath | None, nulls: dict[str, str]) -> dict[str, Any] | None:
    if path is None:
        return None
    shown = path.thinned()
    columns: dict[str, Any] = {"n": [int(k) for k in shown.n]}
    for name in ("estimate", "lower", "upper"):
        values = getattr(shown, name)
        columns[name] = [float(v) if math.isfinite(v) else None for v in values]
        if not np.isfinite(values).all():
            nulls[f"path.{name}"] = "no items yet, or an empty running intersection"
    columns["checkpoints"] = len(path)
    columns["thinned"] = len(shown) < len(path)
    return columns
