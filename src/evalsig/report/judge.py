"""Renderings of judge corrections (``"judge"`` results, from their JSON form): a summary
table for text, markdown and LaTeX, and an HTML section with a forest plot of the judge-only,
human-only and corrected intervals. The section is registered on import, and so are those
of the judge's checks (:mod:`evalsig.report.agreement`, imported here)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.agreement import estimate_row as _row
from evalsig.report.agreement import interval as _interval
from evalsig.report.agreement import number as _number
from evalsig.report.formatting import pvalue
from evalsig.report.summary import Summary

__all__ = ["as_markdown", "as_text", "summary"]

Result = Mapping[str, Any]

_METHODS = {
    "ppi++": "PPI++ (prediction-powered, power-tuned lambda)",
    "ppi": "PPI (prediction-powered, lambda = 1)",
    "rogan-gladen": "Rogan-Gladen correction of the judge's positive rate",
}


def _bound(value: float | None, side: float) -> float:
    return math.copysign(math.inf, side) if value is None else float(value)


def _title(r: Result) -> str:
    if r["baseline"] is not None:
        return f"Judge corrected with human labels: {r['candidate']} - {r['baseline']}"
    return f"Judge corrected with human labels: {r['estimand']}"


def _verdict(r: Result) -> str:
    head = f"{r['estimand']} = {_number(r['estimate'])} ({_interval(r['ci'])})"
    if r["pvalue"] is None:
        return f"{head}, {r['method']}."
    return f"{head}, {pvalue(float(r['pvalue']))} ({r['alternative']}), {r['method']}."


def summary(r: Result) -> Summary:
    """The result as a :class:`~evalsig.report.summary.Summary` table."""
    rows = [
        ("Estimate", _row({"estimate": r["estimate"], "se": r["se"], "ci": r["ci"]})),
        ("Method", _METHODS[r["method"]]),
    ]
    if r["lambda"] is not None:
        rows.append(("lambda", f"{r['lambda']:.4g}"))
    if r["pvalue"] is not None:
        rows.append(("p-value", f"{pvalue(float(r['pvalue']))} ({r['alternative']})"))
    labeled = "n/a" if r["n_labeled"] is None else f"{r['n_labeled']:,}"
    sizes = f"{labeled} labeled, {r['n_unlabeled']:,} unlabeled items"
    if r["n_clusters"] is not None:
        sizes += f", {r['n_clusters']:,} clusters"
    rows.append(("Data", sizes))
    rows.append(("Judge only", _row(r["naive"])))
    if r["classical"] is not None:
        rows.append(("Humans only", _row(r["classical"])))
    return Summary(title=_title(r), verdict=_verdict(r), rows=tuple(rows), notes=tuple(r["notes"]))


def as_text(r: Result) -> str:
    return summary(r).as_text()


def as_markdown(r: Result) -> str:
    return summary(r).as_markdown()


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    estimates = [("judge only", r["naive"], "biased if the judge is")]
    if r["classical"] is not None:
        estimates.append(("humans only", r["classical"], f"{r['n_labeled']:,} labels"))
    estimates.append(
        (r["method"], {"estimate": r["estimate"], "ci": r["ci"]}, "judge corrected by humans")
    )
    rows = [
        svg.ForestRow(
            label=label,
            estimate=math.nan if e["estimate"] is None else float(e["estimate"]),
            low=_bound(e["ci"]["low"], -1),
            high=_bound(e["ci"]["high"], 1),
            note=note,
        )
        for label, e, note in estimates
    ]
    plot = svg.forest(
        rows,
        reference=0.0 if r["baseline"] is not None else math.nan,
        signed=r["baseline"] is not None,
        title=r["estimand"],
    )
    table = summary(r)
    return "comparison", {
        "heading": table.title,
        "verdict": table.verdict,
        "tone": "not-significant",
        "plot": Markup(plot),
        "rows": list(table.rows),
        "notes": list(table.notes),
    }


def _register() -> None:
    """Register the HTML section of ``"judge"`` results (idempotent)."""
    from evalsig.report.sections import register_section

    register_section("judge", _section)


_register()
