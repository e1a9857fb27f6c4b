"""What ingesting into a results store did, and what the store holds."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Literal

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
        return {
            "path": self.path,
            "sha256": self.sha256,
            "kind": self.kind,
            "format": self.format,
            "status": self.status,
            "n_rows": self.n_rows,
            "models": list(self.models),
            "tasks": list(self.tasks),
            "model_origins": list(self.model_origins),
            "duplicate_of": self.duplicate_of,
            "replaced": list(self.replaced),
            "already_stored": list(self.already_stored),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
        }

    def line(self) -> str:
        """One line for the command line."""
        path = _named(self.path)
        if self.status == "skipped":
            first = _named(self.duplicate_of or "")
            return f"skipped   {path}: already stored (same content as {first})"
        models = ", ".join(map(repr, self.models))
        if len(self.models) > 3:
            models = f"{len(self.models)} models"
        tasks = ", ".join(map(repr, self.tasks))
        if len(self.tasks) > 3:
            tasks = f"{len(self.tasks)} tasks"
        return f"ingested  {path}: {_count(self.n_rows, 'score')}; {models} on {tasks}"


def _named(path: str) -> str:
    """A stored path for a person to read: ``-`` is standard input."""
    return "standard input (-)" if path == "-" else path


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestReport:
    """What :meth:`ResultsStore.ingest` did, path by path."""

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

    def summary(self) -> str:
        return (
            f"{_count(len(self.sources), 'path')}: {self.n_ingested} ingested "
            f"({_count(self.n_rows, 'score')}), {self.n_skipped} skipped; {self.store} holds "
            f"{_count(self.n_tasks, 'task')} and {_count(self.n_models, 'model')}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "n_ingested": self.n_ingested,
            "n_skipped": self.n_skipped,
            "n_rows": self.n_rows,
            "n_tasks": self.n_tasks,
            "n_models": self.n_models,
            "sources": [s.to_dict() for s in self.sources],
        }

    def __str__(self) -> str:
        lines: list[str] = []
        for source in self.sources:
            lines.append(source.line())
            lines += [f"          {origin}" for origin in source.model_origins]
            lines += [f"          replaced {what}" for what in source.replaced]
            lines += [f"          {what}" for what in source.already_stored]
            lines += [f"          warning: {what}" for what in source.warnings]
        lines.append(self.summary())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(s.status)}</td><td>{html.escape(s.path)}</td>"
            f"<td>{s.n_rows:,}</td><td>{html.escape(', '.join(s.models))}</td>"
            f"<td>{html.escape(', '.join(s.tasks))}</td></tr>"
            for s in self.sources
        )
        warnings = "".join(
            f"<p>warning: {html.escape(s.path)}: {html.escape(w)}</p>"
            for s in self.sources
            for w in s.warnings
        )
        return (
            "<table><tr><th>status</th><th>path</th><th>scores</th><th>models</th>"
            f"<th>tasks</th></tr>{cells}</table>{warnings}<p>{html.escape(self.summary())}</p>"
        )

    def _repr_markdown_(self) -> str:
        from evalsig.report.markdown import markdown_table

        rows = [
            [s.status, s.path, f"{s.n_rows:,}", ", ".join(s.models), ", ".join(s.tasks)]
            for s in self.sources
        ]
        warnings = [f"warning: {s.path}: {w}" for s in self.sources for w in s.warnings]
        header = ["status", "path", "scores", "models", "tasks"]
        return markdown_table(None, header, rows, lines=[*warnings, self.summary()])

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
        return {
            "name": self.name,
            "n_items": self.n_items,
            "n_scores": self.n_scores,
            "runs": list(self.runs),
        }


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
        return {
            "task": self.task,
            "metric": self.metric,
            "filter": self.filter,
            "n_items": self.n_items,
            "models": [m.to_dict() for m in self.models],
        }

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
        return {
            "path": self.path,
            "sha256": self.sha256,
            "kind": self.kind,
            "format": self.format,
            "ingested_at": self.ingested_at,
            "n_rows": self.n_rows,
        }


def _count(n: int, noun: str) -> str:
    """'1 score', '2,400 scores'."""
    return f"{n:,} {noun}{'s' if n != 1 else ''}"
