"""Views of an ingest into a results store (kind ``ingest``): a line per input path, then
what the store holds."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from evalsig.report.markdown import markdown_table

__all__ = ["as_html", "as_markdown", "as_text", "totals"]

_HEADER = ("status", "path", "scores", "models", "tasks")


def as_text(document: Mapping[str, Any]) -> str:
    """Each path's line, the lines under it (model origins, replaced and already stored
    parts, warnings), then :func:`totals`."""
    lines: list[str] = []
    for source in document["sources"]:
        lines.append(_line(source))
        lines += [f"          {origin}" for origin in source["model_origins"]]
        lines += [f"          replaced {what}" for what in source["replaced"]]
        lines += [f"          {what}" for what in source["already_stored"]]
        lines += [f"          warning: {what}" for what in source["warnings"]]
    lines.append(totals(document))
    return "\n".join(lines)


def as_markdown(document: Mapping[str, Any]) -> str:
    sources = document["sources"]
    warnings = [f"warning: {s['path']}: {w}" for s in sources for w in s["warnings"]]
    return markdown_table(None, _HEADER, map(_cells, sources), lines=[*warnings, totals(document)])


def as_html(document: Mapping[str, Any]) -> str:
    sources = document["sources"]
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in _cells(s)) + "</tr>"
        for s in sources
    )
    warnings = "".join(
        f"<p>warning: {html.escape(s['path'])}: {html.escape(w)}</p>"
        for s in sources
        for w in s["warnings"]
    )
    header = "".join(f"<th>{name}</th>" for name in _HEADER)
    return f"<table><tr>{header}</tr>{rows}</table>{warnings}<p>{html.escape(totals(document))}</p>"


def totals(document: Mapping[str, Any]) -> str:
    """'2 paths: 1 ingested (12 scores), 1 skipped; results.duckdb holds 2 tasks and 1 model.'"""
    d = document
    return (
        f"{_count(len(d['sources']), 'path')}: {d['n_ingested']} ingested "
        f"({_count(d['n_rows'], 'score')}), {d['n_skipped']} skipped; {d['store']} holds "
        f"{_count(d['n_tasks'], 'task')} and {_count(d['n_models'], 'model')}."
    )


def _cells(source: Mapping[str, Any]) -> list[str]:
    return [
        source["status"],
        source["path"],
        f"{source['n_rows']:,}",
        ", ".join(source["models"]),
        ", ".join(source["tasks"]),
    ]


def _line(source: Mapping[str, Any]) -> str:
    """One path: stored (its scores, models and tasks) or skipped (what it duplicates)."""
    path = _named(source["path"])
    if source["status"] == "skipped":
        first = _named(source["duplicate_of"] or "")
        return f"skipped   {path}: already stored (same content as {first})"
    models = ", ".join(map(repr, source["models"]))
    if len(source["models"]) > 3:
        models = f"{len(source['models'])} models"
    tasks = ", ".join(map(repr, source["tasks"]))
    if len(source["tasks"]) > 3:
        tasks = f"{len(source['tasks'])} tasks"
    return f"ingested  {path}: {_count(source['n_rows'], 'score')}; {models} on {tasks}"


def _named(path: str) -> str:
    """A stored path for a person to read: ``-`` is standard input."""
    return "standard input (-)" if path == "-" else path


def _count(n: int, noun: str) -> str:
    """'1 score', '2,400 scores'."""
    return f"{n:,} {noun}{'s' if n != 1 else ''}"
