"""Renderings of what ``evalsig inspect`` sees in one input (its JSON: the description of
the files and each task's score): the rows text and markdown share, and the HTML section of
kind ``"inspect"``, rendered by the report's templates, which escape every string (task and
file names come from the files). Importing this module registers the HTML view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalsig.report import score as views

__all__ = [
    "DESCRIPTIVE_HEADER",
    "KIND",
    "SCORE_HEADER",
    "descriptive_rows",
    "score_rows",
    "unscored",
]

KIND = "inspect"
"""The kind of an input's inspection in a report (``{"kind": "inspect", "path": ...}`` with
the fields of :class:`evalsig.data.Description` and ``scores``)."""

Result = Mapping[str, Any]

SCORE_HEADER = ("task", "metric", "score", "interval", "method", "data")
"""Columns of each input's scores: one row per task, metric and filter (and model)."""

DESCRIPTIVE_HEADER = ("task", "statistic", "mean", "values")
"""Columns of the bookkeeping statistics (token counts, runtimes): described, not scored."""


def _task(entry: Mapping[str, Any]) -> str:
    name = entry["task"] or "(all rows)"
    return f"{entry['model']} / {name}" if entry.get("model") else name


def score_rows(scored: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """One row per scored entry: the score and interval as ``evalsig score`` shows them, or
    'not scored' (the reason is in :func:`unscored`)."""
    rows = []
    for entry in scored:
        metric = entry["metric"] + (f" ({entry['filter']})" if entry["filter"] else "")
        head = [_task(entry), metric]
        r = entry["score"]
        if r is None:
            rows.append([*head, "not scored (below)", "-", "-", "-"])
        else:
            rows.append(
                [
                    *head,
                    views.value(r, r["estimate"]),
                    views.interval(r),
                    r["method"],
                    views.sizes(r),
                ]
            )
    return rows


def unscored(scored: Sequence[Mapping[str, Any]]) -> list[str]:
    """'task (metric): not scored: why', for each entry without a score."""
    return [
        f"{_task(e)} ({e['metric']}): not scored: {e['error']}"
        for e in scored
        if e["score"] is None
    ]


def descriptive_rows(tasks: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """One row per bookkeeping statistic of each task: its mean and how many values."""
    return [
        [t["name"] or "(all rows)", metric, "-" if mean is None else f"{mean:.4g}", f"{n:,}"]
        for t in tasks
        for metric, mean, n in t.get("descriptive", ())
    ]


def _runs(t: Mapping[str, Any]) -> str:
    low, high = t["runs"]
    return f"{low}" if low == high else f"{low}-{high}"


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    """One table per input: a row per task and metric with what evalsig sees and the score
    (bookkeeping statistics by their mean; tasks without scores say so)."""
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for entry in r["scores"]:
        by_task.setdefault(entry["task"], []).append(entry)
    rows: list[list[str]] = []
    for t in r["tasks"]:
        facts = [f"{t['n_items']:,}", _runs(t), ", ".join(t["filters"]) or "-", t["scale"]]
        for row in score_rows(by_task.get(t["name"], [])):
            rows.append([row[0], *facts, *row[1:5]])
        for metric, mean, n in t.get("descriptive", ()):
            shown = "-" if mean is None else f"{mean:.4g}"
            rows.append(
                [t["name"] or "(all rows)", *facts, metric, f"mean {shown} of {n:,} values",
                 "none: bookkeeping, not a score", "-"]
            )  # fmt: skip
        if not t["metrics"]:
            rows.append([t["name"] or "(all rows)", *facts, "-", "no scores", "-", "-"])
    notes = [
        *unscored(r["scores"]),
        *(f"malformed: {p}" for p in r["problems"]),
        *r["notes"],
    ]
    if r["cluster_fields"]:
        notes.append(f"cluster fields: {', '.join(r['cluster_fields'])}")
    if r["key_fields"]:
        notes.append(f"content keys: {', '.join(r['key_fields'])}")
    lead = f"{', '.join(r['layouts'])}"
    if r.get("models"):
        lead += f"; models: {', '.join(r['models'])}"
    return "table", {
        "heading": str(r["path"]),
        "lead": lead,
        "plot": None,
        "header": (
            "task", "items", "runs", "filters", "scale", "metric", "score", "interval", "method",
        ),
        "rows": rows,
        "notes": notes,
    }  # fmt: skip


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section(KIND, _section)


_register()
