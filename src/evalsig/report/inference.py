"""Views of one paired test's result (kind "inference", from a test function such as
:func:`evalsig.inference.paired_t` or a plugin's test), from its JSON form."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from evalsig.report.formatting import json_float
from evalsig.report.markdown import markdown_text
from evalsig.report.summary import Summary

__all__ = ["as_html", "as_markdown", "as_text", "cells", "summary"]

Result = Mapping[str, Any]


def cells(r: Result) -> list[tuple[str, str]]:
    """(label, value) pairs of every view: method, estimate, interval, statistic, p-value
    and the resamples drawn."""
    level = f"{100 * r['ci']['confidence_level']:g}%"
    df = "" if r["df"] is None else f" (df {r['df']:.4g})"
    low, high = _bounds(r)
    out = [
        ("method", r["method"]),
        ("estimate", f"{json_float(r['estimate']):+.6g} ({r['estimand']}, candidate - baseline)"),
        (f"{level} CI", f"[{low:+.6g}, {high:+.6g}]"),
        ("statistic", f"{r['statistic_name']} = {json_float(r['statistic']):.6g}{df}"),
        ("p-value", f"{json_float(r['pvalue']):.4g} ({r['alternative']})"),
    ]
    if r["n_resamples"] is not None:
        out.append(("resamples", f"{r['n_resamples']:,} (seed {r['seed']})"))
    return out


def summary(r: Result) -> Summary:
    pvalue = json_float(r["pvalue"])
    decided = "" if math.isnan(pvalue) else f"p = {pvalue:.4g}"
    return Summary(
        title=f"{r['method']}: {r['estimand']}",
        verdict=f"{r['statistic_name']} = {json_float(r['statistic']):.6g}, {decided}".rstrip(", "),
        rows=tuple(cells(r)),
        notes=tuple(r["notes"]),
    )


def as_text(r: Result) -> str:
    lines = [f"{label}: {value}" for label, value in cells(r)]
    return "\n".join(lines + [f"note: {note}" for note in r["notes"]])


def as_html(r: Result) -> str:
    e = html.escape
    rows = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in cells(r))
    notes = "".join(f"<p>{e(note)}</p>" for note in r["notes"])
    return f'<div class="evalsig-inference"><table>{rows}</table>{notes}</div>'


def as_markdown(r: Result) -> str:
    rows = "".join(f"| {k} | {markdown_text(v)} |\n" for k, v in cells(r))
    notes = "".join(f"- {markdown_text(note)}\n" for note in r["notes"])
    return "| | |\n|---|---|\n" + rows + ("\n" + notes if notes else "")


def _bounds(r: Result) -> tuple[float, float]:
    """The interval; a null bound of a one-sided interval is its open side."""
    one_sided = r["alternative"] != "two-sided"
    low, high = r["ci"]["low"], r["ci"]["high"]
    return (
        (-math.inf if one_sided else math.nan) if low is None else float(low),
        (math.inf if one_sided else math.nan) if high is None else float(high),
    )
