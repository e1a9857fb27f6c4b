"""Views of the across-task summaries (kinds "sign_test" and "dependence"), from their
JSON forms."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from evalsig.report.markdown import markdown_table, markdown_text

__all__ = [
    "dependence_html",
    "dependence_markdown",
    "dependence_text",
    "sign_test_html",
    "sign_test_markdown",
    "sign_test_text",
]

Result = Mapping[str, Any]


def sign_test_text(r: Result) -> str:
    pvalue = "nan" if r["pvalue"] is None else f"{r['pvalue']:.4g}"
    return (
        f"candidate wins {r['wins_candidate']} of {r['n_tasks']} tasks, baseline "
        f"{r['wins_baseline']}, ties {r['ties']}: sign test p = {pvalue} ({r['alternative']})"
    )


def sign_test_markdown(r: Result) -> str:
    notes = "".join(f"\n- note: {markdown_text(note)}" for note in r["notes"])
    return markdown_text(sign_test_text(r)) + ("\n" + notes if notes else "")


def sign_test_html(r: Result) -> str:
    notes = "".join(f"<p>{html.escape(note)}</p>" for note in r["notes"])
    return f'<div class="evalsig-sign-test"><p>{html.escape(sign_test_text(r))}</p>{notes}</div>'


def dependence_text(r: Result) -> str:
    tasks = r["tasks"]
    rows = [["", *tasks]] + [
        [t, *map(_r, row)] for t, row in zip(tasks, r["correlation"], strict=True)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = ["correlation of per-item differences between tasks"]
    lines += [
        "  " + "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
    ]
    mean = r["mean_abs_correlation"]
    lines.append(
        f"mean |correlation| off the diagonal: {'undefined' if mean is None else f'{mean:.2f}'}"
    )
    return "\n".join(lines + [f"note: {note}" for note in r["notes"]])


def dependence_markdown(r: Result) -> str:
    rows = [[t, *map(_r, row)] for t, row in zip(r["tasks"], r["correlation"], strict=True)]
    return markdown_table(None, ["", *r["tasks"]], rows, notes=r["notes"])


def dependence_html(r: Result) -> str:
    e = html.escape
    head = "".join(f"<th>{e(t)}</th>" for t in r["tasks"])
    rows = "".join(
        f"<tr><th>{e(t)}</th>" + "".join(f"<td>{_r(v)}</td>" for v in row) + "</tr>"
        for t, row in zip(r["tasks"], r["correlation"], strict=True)
    )
    return f"<table><tr><th></th>{head}</tr>{rows}</table>"


def _r(value: float | None) -> str:
    return "nan" if value is None else f"{value:.2f}"
