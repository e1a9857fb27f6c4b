"""Views of a multiplicity adjustment (kind "multiplicity"), from its JSON form: the
adjusted p-values and decisions of the first 50 hypotheses, in input order."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from evalsig.report.markdown import markdown_table
from evalsig.report.provenance import compared

__all__ = ["MAX_ROWS", "as_html", "as_markdown", "as_text", "table"]

Result = Mapping[str, Any]

MAX_ROWS = 50
"""Rows shown by the views; the JSON form (and ``to_frame()``) hold every hypothesis."""

_NAMES = {
    "bonferroni": "Bonferroni", "sidak": "Sidak", "holm": "Holm", "holm-sidak": "Holm-Sidak",
    "hochberg": "Hochberg", "hommel": "Hommel", "bh": "Benjamini-Hochberg",
    "by": "Benjamini-Yekutieli", "storey": "Storey q-value",
}  # fmt: skip
_YES = {True: "yes", False: "no"}


def table(r: Result) -> tuple[str, list[tuple[str, str, str, str]], str]:
    """Title; header and first rows as text; a line on the rows not shown."""
    pi0 = "" if r["pi0"] is None else f", pi0 = {r['pi0']:.4g}"
    pvalues, adjusted, reject = r["pvalues"], r["p_adjusted"], r["reject"]
    title = (
        f"{_NAMES.get(r['method'], r['method'])} adjustment ({r['error_rate'].upper()}) at "
        f"alpha = {r['alpha']:g}{pi0}: {r['n_rejected']} of {len(pvalues)} rejected"
    )
    n = min(len(pvalues), MAX_ROWS)
    labels = r["labels"]
    names = labels if labels is not None else [str(i) for i in range(n)]
    rows = [("label" if labels is not None else "#", "raw p", "adjusted p", "reject")]
    rows += [(names[i], _p(pvalues[i]), _p(adjusted[i]), _YES[reject[i]]) for i in range(n)]
    rest = len(pvalues) - n
    return title, rows, f"... {rest:,} more (see p_adjusted and reject)" if rest else ""


def as_text(r: Result) -> str:
    title, rows, more = table(r)
    widths = [max(len(row[c]) for row in rows) for c in range(4)]
    lines = [title]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [row[c].rjust(widths[c]) for c in (1, 2, 3)]
        lines.append("  " + "  ".join(cells).rstrip())
    lines += [f"  {more}"] if more else []
    lines += [f"note: {note}" for note in r["notes"]]
    lines += _compared(r)
    return "\n".join(lines)


def as_html(r: Result) -> str:
    e = html.escape
    title, rows, more = table(r)
    head = "".join(f"<th>{e(h)}</th>" for h in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows[1:])
    tail = "".join(f"<p>{e(line)}</p>" for line in [more, *r["notes"], *_compared(r)] if line)
    return (
        f'<div class="evalsig-multiplicity"><table><caption>{e(title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}</div>"
    )


def as_markdown(r: Result) -> str:
    title, rows, more = table(r)
    lines = [line for line in [more, *_compared(r)] if line]
    return markdown_table(title, rows[0], rows[1:], lines=lines, notes=r["notes"])


def _p(value: float | None) -> str:
    return "nan" if value is None else f"{value:.4g}"


def _compared(r: Result) -> list[str]:
    """The 'Compared' line of the provenance, when it names inputs (p-values passed in
    Python have only the version and time, which the JSON form keeps)."""
    given = r.get("provenance")
    if not given or not (given.get("inputs") or given.get("files")):
        return []
    return [f"compared: {compared(r)}"]
