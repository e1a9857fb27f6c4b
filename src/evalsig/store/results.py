"""What ingesting into a results store did, and what the store holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from evalsig._json import SCHEMA_VERSION, record_dict
from evalsig.result import Result

__all__ = ["IngestReport", "SourceReport", "StoredModel", "StoredSource", "StoredTask"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceReport:
    """One input path of an ingest: stored, or skipped because its content already was."""

    path: str
    sha256: str
    """The content hash (of a directory: of its files' relative paths and contents)."""
    kind: Literal["file", "directory"]
    format: str
    """The reader that read it ('csv', 'lm-eval', ...); '' when skipped unread."""
    status: Literal["ingested", "skipped"]
    n_rows: int
    """Scores stored (one per model, task, metric, item and run); 0 when skipped."""
    models: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    model_origins: tuple[str, ...] = ()
    """How the model names were found, e.g. "model 'gpt-4o' from eval.model in the log header"."""
    duplicate_of: str | None = None
    """For a skipped path: the stored source with the same content."""
    replaced: tuple[str, ...] = ()
    """Stored scores this path replaced (with ``replace=True``)."""
    already_stored: tuple[str, ...] = ()
    """Parts of an ingested path (model, task, metric) that its content had already stored,
    and that were skipped."""
    warnings: tuple[str, ...] = ()
    """What deserves a second look: scores identical to another model's or task's from the
    same content; a skipped path that was read with other options than its stored copy."""
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestReport(Result):
    """What :meth:`ResultsStore.ingest` did, path by path (kind ``ingest``; ``str()`` gives
    a line per path and the store's totals)."""

    kind: ClassVar[str] = "ingest"

    store: str
    sources: tuple[SourceReport, ...]
    n_tasks: int
    """Tasks in the store after the ingest."""
    n_models: int
    """Models in the store after the ingest."""

    @property
    def n_ingested(self) -> int:
        return sum(s.status == "ingested" for s in self.sources)

    @property
    def n_skipped(self) -> int:
        return sum(s.status == "skipped" for s in self.sources)

    @property
    def n_rows(self) -> int:
        """Scores stored by this ingest."""
        return sum(s.n_rows for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "ingest",
            "schema_version": SCHEMA_VERSION,
            "store": self.store,
            "n_ingested": self.n_ingested,
            "n_skipped": self.n_skipped,
            "n_rows": self.n_rows,
            "n_tasks": self.n_tasks,
            "n_models": self.n_models,
            "sources": [s.to_dict() for s in self.sources],
        }

    def to_frame(self) -> Any:
        """One row per input path: path, sha256, kind, format, status, n_rows, models,
        tasks (tuples), duplicate_of, warnings (a tuple)."""
        from evalsig._frame import data_frame, ints

        def column(name: str) -> list[Any]:
            return [getattr(s, name) for s in self.sources]

        names: tuple[str, ...] = ("path", "sha256", "kind", "format", "status", "n_rows", "models")
        names += ("tasks", "duplicate_of", "warnings")
        columns: dict[str, Any] = {name: column(name) for name in names}
        columns["n_rows"] = ints(columns["n_rows"])
        return data_frame(columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredModel:
    """One model's scores on one task and metric in a store."""

    name: str
    n_items: int
    n_scores: int
    runs: tuple[int, int]
    """Fewest and most runs per item."""

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredTask:
    """What a store holds for one task, metric and (lm-eval) filter."""

    task: str
    metric: str
    filter: str | None
    n_items: int
    """Distinct items over all models."""
    models: tuple[StoredModel, ...]

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)

    def to_frame(self) -> Any:
        """One row per model: task, metric, filter (the same on every row, so that the
        frames of several tasks concatenate), model, n_items, n_scores, min_runs, max_runs."""
        from evalsig._frame import data_frame, ints

        models = self.models
        return data_frame(
            {
                "task": [self.task] * len(models),
                "metric": [self.metric] * len(models),
                "filter": [self.filter] * len(models),
                "model": [m.name for m in models],
                "n_items": ints(m.n_items for m in models),
                "n_scores": ints(m.n_scores for m in models),
                "min_runs": ints(m.runs[0] for m in models),
                "max_runs": ints(m.runs[1] for m in models),
            }
        )

    def __str__(self) -> str:
        what = f"metric {self.metric!r}" + (
            f", filter {self.filter!r}" if self.filter is not None else ""
        )
        lines = [
            f"task {self.task!r} ({what}): {_count(len(self.models), 'model')}, "
            f"{_count(self.n_items, 'item')}"
        ]
        width = max(len(m.name) for m in self.models) if self.models else 0
        for m in self.models:
            low, high = m.runs
            runs = f"{low}" if low == high else f"{low}-{high}"
            lines.append(
                f"  {m.name:<{width}}  {m.n_items:>9,} items  {runs} run{'s' if high != 1 else ''}"
            )
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredSource:
    """One ingested file or directory."""

    path: str
    sha256: str
    kind: str
    format: str
    ingested_at: str
    """UTC time of the ingest, ISO 8601."""
    n_rows: int

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


def _count(n: int, noun: str) -> str:
    """'1 score', '2,400 scores'."""
    return f"{n:,} {noun}{'s' if n != 1 else ''}"
