"""Renderings of one model's score (``ScoreResult.to_dict()``): text, markdown, HTML.

Working from the JSON means a saved result renders exactly as a fresh one. Importing this
module registers the HTML view of results of kind ``"score"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.provenance import compared

__all__ = [
    "HEADER",
    "as_html",
    "as_markdown",
    "as_text",
    "interval",
    "label",
    "one_line",
    "rows",
    "table_markdown",
    "table_text",
    "value",
]

Result = Mapping[str, Any]

HEADER = ("model / task", "score", "interval", "method", "data")
"""Columns of the table of several scores (one row per file and task)."""


def value(r: Result, x: float | None) -> str:
    """'71.25%' on the percent scale, '0.7125' otherwise; 'undefined' for null."""
    if x is None or math.isnan(x):
        return "undefined"
    return f"{100 * x:.2f}%" if r["percent_scale"] else f"{x:.4g}"


def _spread(r: Result, x: float | None) -> str:
    """A standard error: '2.26 pp' on the percent scale, '0.0226' otherwise."""
    if x is None:
        return "undefined"
    return f"{100 * x:.2f} pp" if r["percent_scale"] else f"{x:.4g}"


def interval(r: Result) -> str:
    """'95% CI 66.60% to 75.50%'."""
    ci = r["ci"]
    level = f"{100 * ci['confidence_level']:g}%"
    return f"{level} CI {value(r, ci['low'])} to {value(r, ci['high'])}"


def _origin(r: Result) -> Mapping[str, Any] | None:
    inputs = (r.get("provenance") or {}).get("inputs") or {}
    return next(iter(inputs.values()), None)


def label(r: Result) -> str:
    """What was scored: the model (or the first file's name) and the task, e.g.
    'llama-8b / arc_easy'; 'scores' when nothing names it (values passed in Python)."""
    origin = _origin(r)
    if origin is None:
        return "scores"
    name = origin.get("model")
    if not name and origin.get("files"):
        path = str(origin["files"][0]["path"])
        name = "standard input" if path == "-" else PurePath(path).name
    name = name or "scores"
    return f"{name} / {origin['task']}" if origin.get("task") else str(name)


def sizes(r: Result) -> str:
    """'n = 400 items (285 right)', 'n = 1,000 items x 8 runs in 14 clusters'."""
    text = f"n = {r['n_items']:,} items"
    if r["n_runs"] != 1:
        text += f" x {r['n_runs']} " + ("cells" if r["method"] == "facets" else "runs")
    if r["n_clusters"] is not None:
        text += f" in {r['n_clusters']:,} clusters"
    if r.get("n_strata") is not None:
        text += f" in {r['n_strata']:,} strata"
    if r["n_correct"] is not None:
        text += f" ({r['n_correct']:,} right)"
    return text


def one_line(r: Result) -> str:
    """'score = 71.25% (95% CI 66.60% to 75.50%) [clopper-pearson, n = 400 items (285 right)]'."""
    return f"score = {value(r, r['estimate'])} ({interval(r)}) [{r['method']}, {sizes(r)}]"


def _standard_error(r: Result) -> str:
    text = _spread(r, r["se"])
    if r["method"] in PROPORTION:
        text += " (binomial, sqrt(p (1 - p) / n); the interval is not score +/- z se)"
    if r["df"] is not None:
        text += f", df = {r['df']:.4g}"
    return text


PROPORTION = ("wilson", "wilson-cc", "clopper-pearson", "jeffreys", "agresti-coull", "bayes")
"""Methods whose interval is that of a proportion (one run of 0/1 scores)."""


def variance_lines(r: Result) -> list[str]:
    """The variance decomposition of several runs, and what more runs could gain."""
    v = r["variance"]
    if v is None:
        return []
    n, se = r["n_items"], r["se"]
    lines = [
        f"variance of the per-item means {_num(v['item_means'])} = between items "
        f"{_num(v['between_item'])} ({_share(v['between_share'])} of the squared standard "
        f"error) + run-to-run {_num(v['within_contribution'])} ({_share(v['within_share'])}; "
        f"{_num(v['within_item'])} for one run, divided by the runs)"
    ]
    if v["between_item"] is not None and se is not None and r["method"] == "t":
        floor = math.sqrt(v["between_item"] / n)
        lines.append(
            f"more runs per item shrink only the run-to-run part: with unlimited runs the "
            f"standard error would still be {_spread(r, floor)} (now {_spread(r, se)})"
        )
    return lines


def _num(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.4g}"


def _share(x: float | None) -> str:
    return "undefined" if x is None else f"{100 * x:.0f}%"


def _rows(r: Result, *, scored: bool = True) -> list[tuple[str, str]]:
    """(label, text) pairs of every view; ``scored=False`` leaves out the provenance line
    (the HTML page adds its own)."""
    out = [
        ("Score", value(r, r["estimate"])),
        ("Interval", interval(r)),
        ("Standard error", _standard_error(r)),
        ("Method", f"{r['method']}: {r['method_reason']}"),
        ("Data", sizes(r)),
    ]
    if r["prior"] is not None:
        out.append(("Prior", f"Beta({r['prior']['a']:g}, {r['prior']['b']:g})"))
    out += [("Variance", line) for line in variance_lines(r)]
    if r["n_resamples"]:
        seed = r["seed"]
        shown = "unknown (a numpy Generator was passed)" if seed is None else str(seed)
        out.append(("Resampling", f"{r['n_resamples']:,} resamples, seed {shown}"))
    line = compared(r) if scored else None
    if line:
        out.append(("Scored", line))
    return out


def _title(r: Result) -> str:
    origin = _origin(r)
    name = (origin or {}).get("model")
    task = (origin or {}).get("task")
    title = f"Score of {name}" if name else "Score"
    return f"{title} on {task}" if task else title


def as_text(r: Result) -> str:
    """The score and interval, then the method, the data and the notes."""
    lines = [f"{_title(r)}: {value(r, r['estimate'])} ({interval(r)})", ""]
    lines += [f"  {key.lower():<15} {text}" for key, text in _rows(r)[2:]]
    if r["notes"]:
        lines.append("  notes")
        lines.extend(f"   - {note}" for note in r["notes"])
    return "\n".join(lines)


def as_markdown(r: Result, *, title: str | None = None) -> str:
    """A heading, the score with its interval in bold, a two-column table and the notes;
    every string escaped."""
    out = [f"### {md(title or _title(r))}", ""]
    out += [f"**{md(value(r, r['estimate']))} ({md(interval(r))})**", "", "| | |", "|---|---|"]
    out += [f"| {md(key)} | {md(text)} |" for key, text in _rows(r)]
    if r["notes"]:
        out += ["", *[f"- {md(note)}" for note in r["notes"]]]
    return "\n".join(out)


def as_html(r: Result) -> str:
    """An HTML fragment for notebooks, its styles scoped to it."""
    from evalsig.report.html import fragment

    return fragment(r)


def rows(results: Sequence[Result]) -> list[list[str]]:
    """One row per score: what was scored, the score, the interval, the method, the data."""
    return [
        [label(r), value(r, r["estimate"]), interval(r), r["method"], sizes(r)] for r in results
    ]


def _aligned(table: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for row in table:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        lines.append("  ".join(cells).rstrip())
    return lines


def table_text(results: Sequence[Result]) -> str:
    """Several scores as an aligned table, then each one's method reason and notes."""
    lines = _aligned([list(HEADER), *rows(results)])
    lines.append("")
    for r in results:
        lines.append(f"{label(r)}: {r['method']}: {r['method_reason']}")
        lines.extend(f"   - {note}" for note in r["notes"])
    return "\n".join(lines)


def table_markdown(results: Sequence[Result]) -> str:
    """Several scores as one markdown table, then each one's reason and notes; escaped."""
    out = ["### Scores", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in rows(results)]
    out.append("")
    for r in results:
        out.append(f"- {md(label(r))}: {md(r['method'])}: {md(r['method_reason'])}")
        out.extend(f"  - {md(note)}" for note in r["notes"])
    return "\n".join(out)


def _plot(r: Result) -> str | None:
    ci = r["ci"]
    if r["estimate"] is None or ci["low"] is None or ci["high"] is None:
        return None
    percent = r["percent_scale"]
    row = svg.ForestRow(
        label=label(r),
        estimate=float(r["estimate"]),
        low=float(ci["low"]),
        high=float(ci["high"]),
        note=f"{100 * ci['confidence_level']:g}% interval, {r['method']}",
    )
    return svg.forest([row], reference=math.nan, unit="pp" if percent else "", signed=False)


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    plot = _plot(r)
    return "comparison", {
        "heading": _title(r),
        "verdict": f"{value(r, r['estimate'])} ({interval(r)})",
        "tone": "score",
        "plot": None if plot is None else Markup(plot),
        "rows": _rows(r, scored=False),
        "notes": list(r["notes"]),
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("score", _section)


_register()
