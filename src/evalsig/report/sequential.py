"""Renderings of a confidence sequence (``SequentialResult.to_dict()``): text, markdown, HTML.

Importing this module registers the HTML view of results of kind ``"sequential"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.formatting import difference
from evalsig.report.provenance import compared, compared_lines

__all__ = [
    "as_markdown",
    "as_text",
    "headline",
    "interval",
    "method_line",
    "plot",
    "progress_line",
]

Result = Mapping[str, Any]


def _pp(value: float | None) -> str:
    return "undefined" if value is None else difference(float(value), percent=True)


def _level(r: Result) -> str:
    return f"{100 * r['confidence_level']:g}%"


def interval(r: Result) -> str:
    """'95% CS -0.42 to +1.80 pp', or one bound for a one-sided sequence."""
    if r["lower"] is None or r["upper"] is None:
        return f"{_level(r)} CS empty"
    lo, hi = difference(r["lower"], percent=True), difference(r["upper"], percent=True)
    if r["alternative"] == "greater":
        return f"{_level(r)} CS lower bound {lo}"
    if r["alternative"] == "less":
        return f"{_level(r)} CS upper bound {hi}"
    return f"{_level(r)} CS {lo.removesuffix(' pp')} to {hi}"


def headline(r: Result) -> str:
    """One sentence: resolved or not, and when."""
    if r["resolved"]:
        return (
            f"{r['status'].upper()}: the {_level(r)} confidence sequence excluded 0 at "
            f"n = {r['resolved_at']:,} and still does at n = {r['n']:,}."
        )
    side = {
        "two-sided": "a difference",
        "greater": "that the candidate is better",
        "less": "that the candidate is worse",
    }[r["alternative"]]
    return (
        f"NOT YET RESOLVED after n = {r['n']:,} items: the {_level(r)} confidence sequence "
        f"still contains 0, so the data do not yet show {side}."
    )


def method_line(r: Result) -> str:
    """What was computed, with the paper."""
    if r["method"] == "betting":
        step = difference(2.0 / r["grid_size"], percent=True).lstrip("+")
        return (
            "betting confidence sequence (Waudby-Smith & Ramdas 2024): hedged capital with "
            f"predictable plug-in bets, bounds rounded outward to a grid step of {step}"
        )
    return (
        "empirical-Bernstein confidence sequence with a polynomial stitched boundary "
        "(Howard, Ramdas, McAuliffe & Sekhon 2021)"
    )


def progress_line(r: Result) -> str:
    """One line per checkpoint: 'n = 1,000  mean +1.20 pp  95% CS ...  not yet resolved'."""
    status = r["status"]
    if r["resolved"]:
        status += f" (resolved at n = {r['resolved_at']:,})"
    return f"n = {r['n']:,}  mean {_pp(r['estimate'])}  {interval(r)}  {status}"


def _rows(r: Result) -> list[tuple[str, str]]:
    rows = [
        ("Status", r["status"]),
        ("Items", f"{r['n']:,}"),
        ("Mean difference", f"{_pp(r['estimate'])} (candidate - baseline)"),
        ("Confidence sequence", f"{interval(r)} (running intersection)"),
        ("Resolved at", "not yet" if r["resolved_at"] is None else f"n = {r['resolved_at']:,}"),
        ("Alternative", r["alternative"]),
        ("Method", method_line(r)),
    ]
    return rows


GUARANTEE = (
    "anytime-valid: the sequence covers the true mean difference at every n at once with "
    "probability at least the confidence level, so it may be checked after every item"
)


def as_text(r: Result) -> str:
    """The headline, then the numbers, the method and the notes."""
    lines = [headline(r), ""]
    lines += [f"  {key.lower():<20} {value}" for key, value in _rows(r)[1:]]
    lines.append(f"  {GUARANTEE}.")
    lines += compared_lines(r, f"  {'compared':<20} ")
    if r["notes"]:
        lines.append("  notes")
        lines.extend(f"   - {note}" for note in r["notes"])
    return "\n".join(lines)


def as_markdown(r: Result) -> str:
    """A heading, the headline and a two-column table."""
    lines = ["### Sequential monitoring", "", md(headline(r)), "", "| | |", "|---|---|"]
    lines += [f"| {md(key)} | {md(value)} |" for key, value in _rows(r)]
    lines += ["", f"- {md(GUARANTEE)}."]
    lines += [f"- note: {md(note)}" for note in r["notes"]]
    lines += [f"- compared: {md(line)}" for line in [compared(r)] if line]
    return "\n".join(lines)


def _series(values: list[float | None]) -> list[float]:
    return [math.nan if v is None else 100.0 * float(v) for v in values]


def plot(r: Result) -> str | None:
    """The bounds and the running mean over n (in pp), from where the bounds are readable."""
    path = r.get("path")
    if not path or not path["n"]:
        return None
    n = [float(k) for k in path["n"]]
    lower, upper, mean = (_series(path[k]) for k in ("lower", "upper", "estimate"))
    finals = [abs(v) for v in (r["lower"], r["upper"], r["estimate"]) if v is not None]
    span = 100.0 * max(0.02, 3.0 * max([v for v in finals if v < 1.0], default=0.0))
    series: dict[str, list[float]] = {}
    if r["alternative"] != "less":
        series["lower bound"] = lower
    if r["alternative"] != "greater":
        series["upper bound"] = upper
    series["running mean"] = mean
    start = len(n)  # draw from the first n after which every bound stays within +-span
    while start > 0 and all(not abs(s[start - 1]) > span for s in series.values()):
        start -= 1
    if start == len(n):
        start = 0
    title = "confidence sequence and running mean"
    if start:
        title += f" from n = {int(n[start]):,} (wider before)"
    vlines: list[float | tuple[float, str]] = []
    if r["resolved_at"] is not None and r["resolved_at"] >= n[start]:
        vlines.append((float(r["resolved_at"]), "resolved"))
    return svg.lines(
        {
            name: list(zip(n[start:], values[start:], strict=True))
            for name, values in series.items()
        },
        x_label="items",
        y_label="candidate - baseline (pp)",
        title=title,
        hlines=[(0.0, "no difference")],
        vlines=vlines,
    )


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    chart = plot(r)
    return "table", {
        "heading": "Sequential monitoring",
        "lead": headline(r),
        "plot": None if chart is None else Markup(chart),
        "header": ("", ""),
        "rows": [list(row) for row in _rows(r)],
        "notes": [GUARANTEE + ".", *r["notes"]],
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("sequential", _section)


_register()
