"""Views of Romano-Wolf adjusted p-values with max-T simultaneous intervals (kind
"simultaneous"), from the JSON form: the first 50 tasks, in order."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from evalsig.report.formatting import json_float
from evalsig.report.markdown import markdown_table
from evalsig.report.provenance import compared

__all__ = ["MAX_ROWS", "as_html", "as_markdown", "as_text", "footer", "rows", "title"]

Result = Mapping[str, Any]

MAX_ROWS = 50
"""Rows shown by the views; the JSON form (and ``to_frame()``) hold every task."""


def title(r: Result) -> str:
    seed = "" if r["seed"] is None else f"; seed {r['seed']}"
    return (
        f"Romano-Wolf step-down (studentized bootstrap, {r['n_resamples']:,} {r['scheme']} "
        f"resamples, {r['alternative']}) at alpha = {r['alpha']:g}: {r['n_rejected']} of "
        f"{len(r['tasks'])} rejected{seed}"
    )


def footer(r: Result) -> list[str]:
    more = len(r["tasks"]) - MAX_ROWS
    too_few = r["nulls"].get("critical_value", "").startswith("too few")
    critical = json_float(r["critical_value"], math.inf if too_few else math.nan)
    lines = [f"... {more:,} more tasks (see the arrays)"] * (more > 0) + [
        f"max-T critical value c = {critical:.4g}; mean |correlation| of the task estimates "
        f"across resamples: {json_float(r['mean_abs_correlation']):.2f}"
    ]
    given = r.get("provenance")
    if given and (given.get("inputs") or given.get("files")):  # arrays: in the JSON only
        lines.append(f"compared: {compared(r)}")
    return lines


def rows(r: Result) -> list[tuple[str, ...]]:
    level = f"{r['confidence_level']:.0%} simultaneous CI"
    head = ("task", "n", "estimate", "se", "t", "raw p", "adjusted p", "reject", level)
    out: list[tuple[str, ...]] = [head]
    for i in range(min(len(r["tasks"]), MAX_ROWS)):
        low, high = json_float(r["ci_low"][i], -math.inf), json_float(r["ci_high"][i], math.inf)
        out.append((
            r["tasks"][i], str(int(r["n_items"][i])), f"{json_float(r['estimate'][i]):+.4g}",
            f"{json_float(r['se'][i]):.4g}", f"{json_float(r['statistic'][i]):+.3g}",
            f"{json_float(r['pvalues'][i]):.4g}", f"{json_float(r['p_adjusted'][i]):.4g}",
            "yes" if r["reject"][i] else "no", f"[{low:+.4g}, {high:+.4g}]",
        ))  # fmt: skip
    return out


def as_text(r: Result) -> str:
    table = rows(r)
    widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
    lines = [title(r)]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [row[c].rjust(widths[c]) for c in range(1, len(row))]
        lines.append("  " + "  ".join(cells).rstrip())
    lines.extend([*footer(r), *(f"note: {note}" for note in r["notes"])])
    return "\n".join(lines)


def as_html(r: Result) -> str:
    e = html.escape
    head, *body = rows(r)
    header = "".join(f"<th>{e(h)}</th>" for h in head)
    cells = "".join("<tr>" + "".join(f"<td>{e(x)}</td>" for x in row) + "</tr>" for row in body)
    after = "".join(f"<p>{e(line)}</p>" for line in footer(r))
    after += "".join(f"<p>Note: {e(note)}</p>" for note in r["notes"])
    return (
        f'<div class="evalsig-simultaneous"><table><caption>{e(title(r))}</caption>'
        f"<thead><tr>{header}</tr></thead><tbody>{cells}</tbody></table>{after}</div>"
    )


def as_markdown(r: Result) -> str:
    head, *body = rows(r)
    return markdown_table(title(r), head, body, lines=footer(r), notes=r["notes"])
