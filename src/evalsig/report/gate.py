"""Renderings of a release gate, from its JSON form (``GateResult.to_dict()``): terminal text,
a pull-request comment in markdown, and an HTML fragment (every user string escaped)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalsig.report import formatting as fmt
from evalsig.report.comparison import md
from evalsig.report.provenance import compared, compared_lines

__all__ = ["HEADER", "as_markdown", "as_text", "bound_label", "bound_value", "family_line", "rows"]

Result = Mapping[str, Any]

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

HEADER = ("task", "claim", "improvement", "bound", "raw p", "adjusted p", "verdict")


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "undefined"
    return "< 0.0001" if value < 1e-4 else fmt.fixed(value, 4)


def _claim(task: Result) -> str:
    percent = task["comparison"]["percent_scale"]
    side = "" if task["direction"] == "higher" else " (lower is better)"
    if task["claim"] == "superiority":
        return f"better{side}"
    margin = fmt.difference(task["margin"], percent=percent).lstrip("+")
    return f"not worse than -{margin}{side}"


def bound_value(r: Result, task: Result) -> float:
    """The lower bound a report shows for ``task``: the simultaneous one that matches the
    correction when the gate has it (``r["bounds"]``), else the unadjusted one."""
    low = task.get("adjusted_lower_bound") if r.get("bounds") else task["lower_bound"]
    return -math.inf if low is None else float(low)


def bound_label(r: Result) -> str:
    """What :func:`bound_value` is: '95% simultaneous, Holm' or '95% lower, unadjusted'."""
    level = f"{100 * (1 - r['policy']['alpha']):g}%"
    method = r.get("bounds")
    if method:
        return f"{level} simultaneous, {CORRECTION_NAMES.get(method, method)}"
    return f"{level} lower, unadjusted"


def rows(r: Result) -> list[tuple[str, ...]]:
    """One row per task: name, claim, improvement, lower bound (labelled: simultaneous for
    the correction, or unadjusted), raw and adjusted p, verdict."""
    label = bound_label(r)
    out: list[tuple[str, ...]] = []
    for task in r["tasks"]:
        percent = task["comparison"]["percent_scale"]
        bound = fmt.difference(bound_value(r, task), percent=percent)
        out.append(
            (
                task["task"],
                _claim(task),
                fmt.difference(task["comparison"]["estimate"], percent=percent),
                f"{bound} ({label})",
                _p(task["pvalue"]),
                _p(task["p_adjusted"]),
                task["verdict"],
            )
        )
    return out


def family_line(r: Result) -> str:
    """The family, the correction and the rule, with the risk of reading it uncorrected."""
    policy = r["policy"]
    k = len(policy["tasks"])
    method = r["correction"]["method"]
    name = CORRECTION_NAMES.get(method, method)
    controls = "family-wise error" if policy["error_rate"] == "fwer" else "false discovery rate"
    rule = {"all": "every task must pass", "sign-test": "sign test over task wins"}.get(
        policy["rule"], f"at least {policy['at_least']} of {k} tasks must pass"
    )
    alpha = policy["alpha"]
    return (
        f"family of {k} task(s), {name} correction controlling the {controls} at alpha = "
        f"{alpha:g}; rule: {rule}. Read uncorrected, {k} tests at alpha = {alpha:g} would "
        f"risk a false pass with probability {fmt.fixed(r['uncorrected_fwer'], 3)}."
    )


def _sign(r: Result) -> str:
    s = r["sign_test"]
    p = s["pvalue"]
    return (
        f"candidate wins {s['wins_candidate']} of {s['n_tasks']} tasks, baseline "
        f"{s['wins_baseline']}, ties {s['ties']}: sign test p = {_p(p)} (one-sided)"
    )


def as_text(r: Result) -> str:
    """Plain text for a terminal."""
    table = [HEADER, *rows(r)]
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
    lines = [
        f"{r['verdict']}: {r['reason']}",
        f"gate {r['policy']['name']!r}: {family_line(r)}",
        f"registration: {r['registration']['summary']}",
        "",
        *(
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in table
        ),
        "",
        f"aggregate: {_sign(r)}",
    ]
    lines += [f"  {t['task']}: {t['reason']}" for t in r["tasks"] if t["verdict"] != "PASS"]
    if r["notes"]:
        lines += ["notes", *(f" - {note}" for note in r["notes"])]
    lines += compared_lines(r)
    return "\n".join(lines)


def as_markdown(r: Result) -> str:
    """A pull-request comment: decision, family, raw and adjusted p-values, reasons."""
    lines = [
        f"### Release gate {md(r['policy']['name'])}: **{r['verdict']}**",
        "",
        md(r["reason"]),
        "",
        md(family_line(r)),
        "",
        f"Registration: {md(r['registration']['summary'])}",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
        *("| " + " | ".join(md(c) for c in row) + " |" for row in rows(r)),
        "",
        f"Aggregate: {md(_sign(r))}.",
    ]
    reasons = [
        f"- **{md(t['task'])}**: {md(t['reason'])}" for t in r["tasks"] if t["verdict"] != "PASS"
    ]
    if reasons:
        lines += ["", *reasons]
    if r["notes"]:
        lines += ["", *(f"- {md(n)}" for n in r["notes"])]
    line = compared(r)
    if line:
        lines += ["", f"Compared: {md(line)}"]
    return "\n".join(lines) + "\n"
