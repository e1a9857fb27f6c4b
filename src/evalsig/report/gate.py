"""Renderings of a :class:`~evalsig.release.GateResult`: terminal text, markdown for a pull
request, and an HTML fragment (every user string escaped)."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

from evalsig.report import formatting as fmt
from evalsig.report.comparison import _md

if TYPE_CHECKING:
    from evalsig.release.gate import GateResult, TaskVerdict

__all__ = ["as_html", "as_markdown", "as_text"]

CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm-sidak": "Holm-Sidak",
    "hochberg": "Hochberg",
    "hommel": "Hommel",
    "romano-wolf": "Romano-Wolf step-down",
    "bh": "Benjamini-Hochberg",
    "by": "Benjamini-Yekutieli",
    "storey": "Storey q-values",
}


def _p(value: float) -> str:
    if math.isnan(value):
        return "undefined"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"


def _claim(t: TaskVerdict) -> str:
    side = "" if t.task.direction == "higher" else " (lower is better)"
    if t.task.claim == "superiority":
        return f"better{side}"
    margin = fmt.difference(t.task.margin, percent=t.comparison.percent_scale).lstrip("+")
    return f"not worse than -{margin}{side}"


def _rows(result: GateResult) -> list[tuple[str, ...]]:
    level = f"{100 * (1 - result.policy.alpha):g}%"
    rows: list[tuple[str, ...]] = []
    for t in result.tasks:
        percent = t.comparison.percent_scale
        rows.append(
            (
                t.task.name,
                _claim(t),
                fmt.difference(t.comparison.estimate, percent=percent),
                f"{fmt.difference(t.lower_bound, percent=percent)} ({level} lower)",
                _p(t.pvalue),
                _p(t.p_adjusted),
                t.verdict,
            )
        )
    return rows


HEADER = ("task", "claim", "improvement", "bound", "raw p", "adjusted p", "verdict")


def _family_line(result: GateResult) -> str:
    p = result.policy
    k = len(p.tasks)
    name = CORRECTION_NAMES.get(result.correction.method, result.correction.method)
    controls = "family-wise error" if p.error_rate == "fwer" else "false discovery rate"
    rule = {"all": "every task must pass", "sign-test": "sign test over task wins"}.get(
        p.rule, f"at least {p.at_least} of {k} tasks must pass"
    )
    return (
        f"family of {k} task(s), {name} correction controlling the {controls} at alpha = "
        f"{p.alpha:g}; rule: {rule}. Read uncorrected, {k} tests at alpha = {p.alpha:g} "
        f"would risk a false pass with probability {result.uncorrected_fwer:.3f}."
    )


def as_text(result: GateResult) -> str:
    """Plain text for a terminal."""
    rows = [HEADER, *_rows(result)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    table = [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines = [
        f"{result.verdict}: {result.reason}",
        f"gate {result.policy.name!r}: {_family_line(result)}",
        f"registration: {result.registration.summary()}",
        "",
        *table,
        "",
        f"aggregate: {result.sign_test}",
    ]
    for t in result.tasks:
        if t.verdict != "PASS":
            lines.append(f"  {t.task.name}: {t.reason}")
    if result.notes:
        lines.append("notes")
        lines.extend(f" - {note}" for note in result.notes)
    return "\n".join(lines)


def as_markdown(result: GateResult) -> str:
    """A pull-request comment: decision, family, raw and adjusted p-values, reasons."""
    icon = {"PASS": "PASS", "FAIL": "FAIL", "INCONCLUSIVE": "INCONCLUSIVE"}[result.verdict]
    lines = [
        f"### Release gate {_md(result.policy.name)}: **{icon}**",
        "",
        _md(result.reason),
        "",
        f"{_md(_family_line(result))}",
        "",
        f"Registration: {_md(result.registration.summary())}",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in _rows(result)]
    lines += ["", f"Aggregate: {_md(str(result.sign_test))}."]
    reasons = [
        f"- **{_md(t.task.name)}**: {_md(t.reason)}" for t in result.tasks if t.verdict != "PASS"
    ]
    if reasons:
        lines += ["", *reasons]
    if result.notes:
        lines += ["", *[f"- {_md(n)}" for n in result.notes]]
    return "\n".join(lines) + "\n"


def as_html(result: GateResult) -> str:
    """An HTML fragment for notebooks and reports."""
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in _rows(result)
    )
    notes = "".join(f"<li>{e(n)}</li>" for n in result.notes)
    return (
        f'<div class="evalsig-gate"><p><strong>{e(result.verdict)}</strong>: '
        f"{e(result.reason)}</p><p>{e(_family_line(result))}</p>"
        f"<p>{e(result.registration.summary())}</p>"
        f"<table><tr>{head}</tr>{body}</table>" + (f"<ul>{notes}</ul>" if notes else "") + "</div>"
    )
