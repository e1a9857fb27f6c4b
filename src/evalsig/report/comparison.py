"""Renderings of a :class:`~evalsig.comparison.ComparisonResult`."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

from evalsig.report import formatting as fmt

if TYPE_CHECKING:
    from evalsig.comparison import ComparisonResult

__all__ = ["as_html", "as_markdown", "as_text", "one_line", "verdict"]


def _sizes(r: ComparisonResult) -> str:
    runs = r.n_runs[0] if r.n_runs[0] == r.n_runs[1] else f"{r.n_runs[0]}/{r.n_runs[1]}"
    text = f"n = {r.n_items:,} items"
    if r.n_runs != (1, 1):
        text += f" x {runs} runs"
    if r.n_clusters is not None:
        text += f" in {r.n_clusters:,} clusters"
    return text


def _interval(r: ComparisonResult) -> str:
    return fmt.interval(
        r.ci.low, r.ci.high, r.confidence_level, percent=r.percent_scale, alternative=r.alternative
    )


def one_line(r: ComparisonResult) -> str:
    """'candidate - baseline = +1.17 pp (95% CI +0.65 to +1.69 pp), p < 0.0001 [method, n]'."""
    percent = r.percent_scale
    return (
        f"candidate - baseline = {fmt.difference(r.estimate, percent=percent)} "
        f"({_interval(r)}), "
        f"{fmt.pvalue(r.pvalue)} [{r.method}, {_sizes(r)}]"
    )


def verdict(r: ComparisonResult, alpha: float | None = None) -> str:
    """One sentence that says what the data show, and no more."""
    a = 1.0 - r.confidence_level if alpha is None else alpha
    percent = r.percent_scale
    ci = _interval(r)
    if math.isnan(r.pvalue):
        return "No p-value could be computed for these data (see the notes)."
    if r.pvalue <= a:
        better = r.estimate > 0
        who = "better" if better else "worse"
        return (
            f"The candidate is {who} than the baseline by "
            f"{fmt.difference(r.estimate, percent=percent)} ({ci}, {fmt.pvalue(r.pvalue)}; "
            f"significant at alpha = {a:g})."
        )
    low = fmt.difference(r.ci.low, percent=percent)
    high = fmt.difference(r.ci.high, percent=percent)
    level = f"{100 * r.confidence_level:g}%"
    if r.alternative == "greater":
        claim = "that the candidate is better"
        room = f"the true difference could be as low as {low} ({level} lower bound)"
    elif r.alternative == "less":
        claim = "that the candidate is worse"
        room = f"the true difference could be as high as {high} ({level} upper bound)"
    else:
        claim = "a difference"
        room = f"the true difference could be anywhere from {low} to {high} ({level} CI)"
    return (
        f"Not significant at alpha = {a:g}: the data do not show {claim} "
        f"({fmt.pvalue(r.pvalue)}); {room}."
    )


def as_text(r: ComparisonResult) -> str:
    """A plain-text block: verdict, numbers, method and notes."""
    percent = r.percent_scale
    lines = [
        verdict(r),
        "",
        f"  baseline   {fmt.score(r.baseline_mean, percent=percent)}",
        f"  candidate  {fmt.score(r.candidate_mean, percent=percent)}",
        f"  difference {fmt.difference(r.estimate, percent=percent)}  ({_interval(r)})",
        f"  {fmt.pvalue(r.pvalue)} ({r.alternative}); {r.statistic_name} = {r.statistic:.4g}"
        + (f", df = {r.df:g}" if r.df is not None else ""),
        f"  method     {r.method}: {r.method_reason}",
        f"  data       {_sizes(r)}"
        + (f"; discordant n01 = {r.n01:,}, n10 = {r.n10:,}" if r.n01 is not None else ""),
    ]
    if r.notes:
        lines.append("  notes")
        lines.extend(f"   - {note}" for note in r.notes)
    return "\n".join(lines)


def _md(text: str) -> str:
    """Escape a string for a markdown table cell."""
    escaped = html.escape(text, quote=False)
    for char in "\\`*_[]|<>#":
        escaped = escaped.replace(char, "\\" + char)
    return escaped.replace("\n", " ")


def as_markdown(r: ComparisonResult) -> str:
    """A markdown block for a pull request or paper appendix."""
    percent = r.percent_scale
    rows = [
        ("Baseline", fmt.score(r.baseline_mean, percent=percent)),
        ("Candidate", fmt.score(r.candidate_mean, percent=percent)),
        ("Difference (candidate - baseline)", fmt.difference(r.estimate, percent=percent)),
        ("Interval", _interval(r)),
        ("p-value", f"{fmt.pvalue(r.pvalue)} ({r.alternative})"),
        ("Method", f"{r.method}: {r.method_reason}"),
        ("Data", _sizes(r)),
    ]
    table = ["| | |", "|---|---|"] + [f"| {_md(k)} | {_md(v)} |" for k, v in rows]
    out = [f"**{_md(verdict(r))}**", "", *table]
    if r.notes:
        out += ["", *[f"- {_md(note)}" for note in r.notes]]
    return "\n".join(out)


def as_html(r: ComparisonResult) -> str:
    """An HTML fragment (every string escaped), for notebooks and reports."""
    percent = r.percent_scale
    e = html.escape
    rows = [
        ("baseline", fmt.score(r.baseline_mean, percent=percent)),
        ("candidate", fmt.score(r.candidate_mean, percent=percent)),
        ("difference", fmt.difference(r.estimate, percent=percent)),
        ("interval", _interval(r)),
        ("p-value", f"{fmt.pvalue(r.pvalue)} ({r.alternative})"),
        ("method", f"{r.method}: {r.method_reason}"),
        ("data", _sizes(r)),
    ]
    body = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    notes = "".join(f"<li>{e(n)}</li>" for n in r.notes)
    return (
        f'<div class="evalsig-comparison"><p><strong>{e(verdict(r))}</strong></p>'
        f"<table>{body}</table>" + (f"<ul>{notes}</ul>" if notes else "") + "</div>"
    )
