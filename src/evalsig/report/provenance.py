"""The 'Compared' line of every report, from a result's JSON ``provenance`` object.

Working from the JSON means a saved result names what it compared exactly as a fresh one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import Any

from evalsig.report.markdown import md

__all__ = ["compared", "compared_lines", "markdown_footer", "models", "text_footer", "title"]

SHORT_HASH = 12
"""Hex digits of a SHA-256 shown in a report line (the JSON holds all 64)."""

Document = Mapping[str, Any]


STDIN = "-"
"""The path of a file record that holds standard input."""


def _file(record: Document) -> str:
    """``name@0123456789ab``: the file's name (``standard input`` for ``-``) and the first
    digits of its hash."""
    path = str(record["path"])
    name = "standard input" if path == STDIN else PurePath(path).name
    return f"{name}@{str(record['sha256'])[:SHORT_HASH]}"


def _origin(label: str, origin: Document | None) -> str:
    if origin is None:
        return f"{label}: unknown origin"
    parts = [_file(f) for f in origin["files"]] or [f"in-memory {origin['format']}"]
    parts += [f"{key} {origin[key]!r}" for key in ("task", "metric", "filter") if origin[key]]
    parts = [p for p in parts if p != "metric 'score'"]  # a table's score column
    parts += [f"where {k}={v!r}" for k, v in origin["where"].items()]
    name = origin["model"] or label
    shown = name if name == label else f"{label} {name}"
    return f"{shown} ({', '.join(parts)})"


def models(r: Document) -> dict[str, str]:
    """Each input's model name by label ('baseline', 'candidate', a model), the label when
    the provenance names none."""
    inputs = (r.get("provenance") or {}).get("inputs") or {}
    return {label: (origin or {}).get("model") or label for label, origin in inputs.items()}


def title(r: Document, default: str) -> str:
    """'candidate-model vs baseline-model' for a comparison that names both, else ``default``."""
    named = models(r)
    if set(named) != {"baseline", "candidate"}:
        return default
    if named == {"baseline": "baseline", "candidate": "candidate"}:
        return default
    return f"{named['candidate']} vs {named['baseline']}"


def compared(r: Document) -> str | None:
    """One line: each input's model, files with short hashes, task, metric, filter, other
    files ("no input files" when there are none: values passed in Python, a simulation),
    the seed, the evalsig version and the time; None without provenance."""
    doc = r.get("provenance")
    if not doc:
        return None
    parts = [_origin(label, origin) for label, origin in doc["inputs"].items()]
    parts += [f"{role} {_file(record)}" for role, record in doc["files"].items()]
    if not parts:
        parts.append("no input files")
    if doc["seed"] is not None:
        parts.append(f"seed {doc['seed']}")
    parts.append(f"evalsig {doc['evalsig_version']}, {doc['created']}")
    return "; ".join(parts)


def compared_lines(r: Document, prefix: str = "compared: ") -> list[str]:
    """``[prefix + the 'Compared' line]``, or ``[]`` for a result without provenance."""
    line = compared(r)
    return [prefix + line] if line else []


def text_footer(r: Document, notes: Iterable[str] | None = None) -> list[str]:
    """The last lines of a text report: ``note: ...`` for each note (the result's own by
    default), then ``compared: ...``."""
    shown = r["notes"] if notes is None else notes
    return [*(f"note: {n}" for n in shown), *compared_lines(r)]


def markdown_footer(r: Document, notes: Iterable[str] | None = None) -> list[str]:
    """The last lines of a markdown report: each note (the result's own by default), then
    the 'Compared' line, each a list item of its own paragraph."""
    shown = r["notes"] if notes is None else notes
    line = compared(r)
    return [
        *(f"\n- note: {md(n)}" for n in shown),
        *([f"\n- compared: {md(line)}"] if line else []),
    ]
