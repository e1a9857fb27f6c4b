"""The results of pass@k: one model's estimates per k (:class:`PassAtKResult`) and the paired
comparison of two models per k (:class:`PassAtKComparison`), with their JSON documents,
frames and renderings."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe, seed_null
from evalsig.data.provenance import Provenance
from evalsig.inference._common import (
    Alternative,
    ConfidenceInterval,
    PairedDecision,
    check_confidence_level,
)
from evalsig.inference.passk import Estimator, Ties
from evalsig.passk._input import estimator_name
from evalsig.result import Result

__all__ = ["PassAtKComparison", "PassAtKEstimate", "PassAtKResult", "PassAtKTest"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKEstimate:
    """One k of a :class:`PassAtKResult`: the mean over tasks, its interval and its parts."""

    k: int
    estimate: float
    se: float
    """Standard error over tasks, ``s / sqrt(T)`` (it holds the within-task noise)."""
    ci: ConfidenceInterval
    df: float | None
    method: str
    """'t' or 'bootstrap-bca' (or the bootstrap kind used)."""
    method_reason: str
    se_within: float | None
    """The part of ``se`` due to sampling within tasks; None when a task has fewer than
    2k samples (no unbiased estimate exists)."""
    se_limit: float | None
    """``se`` with unlimited samples per task: the spread of the tasks alone."""
    n_tasks: int
    n_dropped: int
    """Tasks left out for having fewer than k samples (``too_few_samples="drop"``)."""
    n_clusters: int | None = None
    """Clusters of the tasks used (cluster-robust CR2 interval); None when tasks are not
    clustered."""
    n_resamples: int | None = None
    notes: tuple[str, ...] = ()
    task_estimates: np.ndarray = field(repr=False, compare=False)
    """Per-task estimates of the tasks used, in the result's task order."""
    used: np.ndarray = field(repr=False, compare=False)
    """Positions of the tasks used among the result's tasks."""
    _interval: Callable[[float], tuple[float, float]] = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """The interval at another confidence level."""
        level = check_confidence_level(confidence_level)
        low, high = self._interval(level)
        return ConfidenceInterval(low=low, high=high, confidence_level=level)


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKTest(PairedDecision):
    """One k of a :class:`PassAtKComparison`: the paired test of per-task differences."""

    k: int
    baseline: float
    candidate: float
    estimate: float
    """Candidate minus baseline, mean over tasks."""
    se: float
    ci: ConfidenceInterval
    pvalue: float
    statistic: float
    statistic_name: str
    df: float | None
    method: str
    method_reason: str
    alternative: Alternative
    se_within: float | None
    """The part of ``se`` due to sampling within tasks (both models); None when a task has
    fewer than 2k samples."""
    se_limit: float | None
    """``se`` with unlimited samples per task."""
    n_tasks: int
    n_dropped: int
    n_clusters: int | None = None
    """Clusters of the tasks used (cluster-robust CR2 test); None when tasks are not
    clustered."""
    n_resamples: int | None = None
    notes: tuple[str, ...] = ()
    _interval: Callable[[float, Alternative], tuple[float, float]] = field(
        repr=False, compare=False
    )


class _Rows(Result):
    """What both results share: ``result[k]``, rows as JSON and as a frame."""

    __slots__ = ()
    rows: tuple[Any, ...]
    seed: int | None
    notes: tuple[str, ...]
    provenance: Provenance | None
    to_dict: Callable[[], dict[str, Any]]
    """Each result's JSON document (defined by the result)."""

    def __getitem__(self, k: int) -> Any:
        for row in self.rows:
            if row.k == k:
                return row
        raise KeyError(f"no row for k = {k!r}; the result has k = {[r.k for r in self.rows]}")

    @property
    def ks(self) -> tuple[int, ...]:
        return tuple(row.k for row in self.rows)

    def _document(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The JSON document: ``fields`` (kind first), then the rows, seed, notes,
        provenance and nulls."""
        nulls: dict[str, str] = {}
        rows = [_row_dict(row, f"rows[{i}]", nulls) for i, row in enumerate(self.rows)]
        seed_null(nulls, self.seed, drew=any(r.n_resamples for r in self.rows))
        return {
            **fields,
            "rows": rows,
            "seed": self.seed,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per k: the numbers of ``to_dict()``'s rows (the interval as ci_low and
        ci_high, +/-inf for a one-sided test's open side; NaN where the JSON has null)."""
        from evalsig._frame import Nullable, data_frame, floats, ints

        columns: dict[str, Any] = {}
        for name in _row_dict(self.rows[0], "", {}):
            if name in ("notes", "method_reason", "statistic_name", "n_resamples"):
                continue
            if name == "ci":
                columns["ci_low"] = floats(r.ci.low for r in self.rows)
                columns["ci_high"] = floats(r.ci.high for r in self.rows)
            elif name in ("k", "n_tasks", "n_dropped"):
                columns[name] = ints(getattr(r, name) for r in self.rows)
            elif name == "n_clusters":
                columns[name] = Nullable([r.n_clusters for r in self.rows], "Int64")
            elif name == "method":
                columns[name] = [r.method for r in self.rows]
            else:
                columns[name] = floats(getattr(r, name) for r in self.rows)
        return data_frame(columns)


def _row_dict(row: Any, where: str, nulls: dict[str, str]) -> dict[str, Any]:
    """A row's public fields as strict JSON (NaN and infinities as null, said in ``nulls``)."""
    out: dict[str, Any] = {}
    for item in dataclasses.fields(row):
        name, value = item.name, getattr(row, item.name)
        if name.startswith("_") or name in ("task_estimates", "used", "alternative"):
            continue
        if name == "ci":
            value = {
                "low": json_safe(value.low, f"{where}.ci.low", nulls, "one-sided interval"),
                "high": json_safe(value.high, f"{where}.ci.high", nulls, "one-sided interval"),
                "confidence_level": value.confidence_level,
            }
        elif name in ("se_within", "se_limit") and value is None:
            nulls[f"{where}.{name}"] = f"some task has fewer than 2k = {2 * row.k} samples"
        elif name == "n_clusters" and value is None:
            nulls[f"{where}.{name}"] = "tasks not clustered (no cluster labels)"
        elif isinstance(value, float):
            value = json_safe(value, f"{where}.{name}", nulls, "undefined (see the notes)")
        elif name == "notes":
            value = list(value)
        out[name] = value
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKResult(_Rows):
    """pass@k (pass^k, majority@k) of one model over tasks, one row per k: ``result[k]``."""

    estimator: Estimator
    ties: Ties | None
    rows: tuple[PassAtKEstimate, ...]
    n_tasks: int
    samples: tuple[int, int]
    """Fewest and most samples per task."""
    seed: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    task_ids: np.ndarray | None = field(default=None, repr=False, compare=False)
    n: np.ndarray = field(repr=False, compare=False)
    c: np.ndarray = field(repr=False, compare=False)
    kind: ClassVar[str] = "pass-at-k"

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON fields; nulls are explained under ``nulls``."""
        return self._document(
            {
                "kind": "pass-at-k",
                "schema_version": SCHEMA_VERSION,
                "estimator": self.estimator,
                "ties": self.ties,
                "n_tasks": self.n_tasks,
                "samples": {"min": self.samples[0], "max": self.samples[1]},
            }
        )

    def tasks_frame(self) -> Any:
        """One row per task: task (or its position), n, c, then the estimate at each k
        (columns named like 'pass@5'; NaN where a task was dropped for that k)."""
        from evalsig._frame import data_frame

        tasks = np.arange(len(self.n)) if self.task_ids is None else list(self.task_ids)
        columns: dict[str, Any] = {"task": tasks, "n": self.n, "c": self.c}
        for r in self.rows:
            column = np.full(len(self.n), np.nan)
            column[r.used] = r.task_estimates
            columns[estimator_name(self.estimator, r.k)] = column
        return data_frame(columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKComparison(_Rows):
    """Candidate minus baseline pass@k (pass^k, majority@k) on the same tasks, a paired test
    per k: ``result[k]``."""

    estimator: Estimator
    ties: Ties | None
    rows: tuple[PassAtKTest, ...]
    alternative: Alternative
    n_tasks: int
    samples: tuple[tuple[int, int], tuple[int, int]]
    """Fewest and most samples per task of the baseline and of the candidate."""
    n_dropped: tuple[int, int]
    """Tasks dropped as present only in the baseline, only in the candidate."""
    n_mismatched: int
    seed: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    kind: ClassVar[str] = "pass-at-k-comparison"

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON fields; nulls are explained under ``nulls``."""
        (b_low, b_high), (c_low, c_high) = self.samples
        return self._document(
            {
                "kind": "pass-at-k-comparison",
                "schema_version": SCHEMA_VERSION,
                "estimator": self.estimator,
                "ties": self.ties,
                "alternative": self.alternative,
                "n_tasks": self.n_tasks,
                "samples": {
                    "baseline": {"min": b_low, "max": b_high},
                    "candidate": {"min": c_low, "max": c_high},
                },
                "n_dropped": {
                    "only_baseline": self.n_dropped[0],
                    "only_candidate": self.n_dropped[1],
                },
                "n_mismatched": self.n_mismatched,
            },
        )
