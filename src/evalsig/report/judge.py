"""Renderings of judge corrections (``"judge"`` results, from their JSON form): a summary
table for text, markdown and LaTeX, and an HTML section with a forest plot of the judge-only,
human-only and corrected intervals. The section is registered on import (and by
:func:`register`, which results call before rendering a notebook fragment)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.formatting import pvalue
from evalsig.report.summary import Summary

__all__ = [
    "agreement_summary",
    "as_markdown",
    "as_text",
    "length_bias_summary",
    "position_bias_summary",
    "summary",
]

Result = Mapping[str, Any]

_METHODS = {
    "ppi++": "PPI++ (prediction-powered, power-tuned lambda)",
    "ppi": "PPI (prediction-powered, lambda = 1)",
    "rogan-gladen": "Rogan-Gladen correction of the judge's positive rate",
}


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def _bound(value: float | None, side: float) -> float:
    return math.copysign(math.inf, side) if value is None else float(value)


def _interval(ci: Mapping[str, Any]) -> str:
    level = f"{100 * ci['confidence_level']:g}%"
    low, high = ci["low"], ci["high"]
    if high is None and low is not None:
        return f"{level} lower bound {low:.4g}"
    if low is None and high is not None:
        return f"{level} upper bound {high:.4g}"
    return f"{level} CI {_number(low)} to {_number(high)}"


def _row(estimate: Mapping[str, Any]) -> str:
    return (
        f"{_number(estimate['estimate'])} (SE {_number(estimate['se'])}; "
        f"{_interval(estimate['ci'])})"
    )


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


def agreement_summary(r: Result) -> Summary:
    """A ``"judge-agreement"`` result as a :class:`~evalsig.report.summary.Summary` table."""
    ci = r["kappa_ci"]
    kappa = f"{_number(r['kappa'])} (SE {_number(r['kappa_se'])}; {_interval(ci)})"
    rows = [
        ("Items", f"{r['n']:,}"),
        ("Raw agreement", f"{r['agreement']:.4g}"),
        ("Cohen's kappa", kappa),
    ]
    for name in ("sensitivity", "specificity"):
        rate = r[name]
        if rate is not None:
            rows.append(
                (
                    name.capitalize(),
                    f"{rate['estimate']:.4g} ({rate['successes']:,} of {rate['n']:,}; "
                    f"Wilson {_interval(rate['ci'])})",
                )
            )
    cells = ", ".join(
        f"human {h} / judge {j}: {count:,}"
        for h, row in zip(r["categories"], r["table"], strict=True)
        for j, count in zip(r["categories"], row, strict=True)
    )
    rows.append(("Counts", cells))
    for key, name in (
        ("fleiss_kappa", "Fleiss' kappa"),
        ("krippendorff_alpha", "Krippendorff's alpha"),
    ):
        value = r.get(key)
        if value is not None:
            rows.append((name, _reliability(value)))
    positive = "" if r["positive"] is None else f", positive = {r['positive']}"
    return Summary(
        title=f"Judge vs human labels{positive}",
        verdict=f"kappa = {_number(r['kappa'])}, raw agreement {r['agreement']:.4g}",
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


def _reliability(r: Result) -> str:
    text = f"{_number(r['estimate'])} (bootstrap {_interval(r['ci'])}"
    if r["null_se"] is not None:
        text += f"; SE under no agreement {_number(r['null_se'])}, {pvalue(float(r['pvalue']))}"
    return text + ")"


def position_bias_summary(r: Result) -> Summary:
    """A ``"judge-position-bias"`` result as a :class:`~evalsig.report.summary.Summary`."""
    share = (r["estimate"] + 0.5) if r["n"] else math.nan
    rows = [
        ("Position bias", f"{r['estimate']:+.4g} ({_interval(r['ci'])})"),
        ("First shown preferred", f"{r['first_preferred']:,} of {r['n']:,} ({share:.4g})"),
        ("p-value", f"{_p(r['pvalue'])} (no position bias)"),
        ("Method", r["method"]),
    ]
    if r["n_pairs"] is not None:
        rows.append(("Pairs", f"{r['n_pairs']:,}"))
    rate = r["consistency"]
    if rate is not None:
        rows.append(
            (
                "Consistent in both orders",
                f"{rate['estimate']:.4g} ({rate['successes']:,} of {rate['n']:,} pairs; "
                f"Wilson {_interval(rate['ci'])})",
            )
        )
    return Summary(
        title="Judge position bias: P(prefers the first shown) - 1/2",
        verdict=f"position bias {r['estimate']:+.4g}, {_p(r['pvalue'])}",
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


def _p(value: float | None) -> str:
    return "p n/a" if value is None else pvalue(float(value))


def _association(a: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        ("correlation", f"{_number(a['correlation'])} (Fisher-z {_interval(a['correlation_ci'])})"),
        ("logistic slope", f"{_row(a['slope'])}, {_p(a['pvalue'])}"),
    ]


def length_bias_summary(r: Result) -> Summary:
    """A ``"judge-length-bias"`` result as a :class:`~evalsig.report.summary.Summary`."""
    rows = [(f"Judge {label}", value) for label, value in _association(r["judge"])]
    rows.insert(0, ("Judge items", f"{r['judge']['n']:,}"))
    if r["human"] is not None:
        rows.append(("Human items", f"{r['human']['n']:,}"))
        rows += [(f"Human {label}", value) for label, value in _association(r["human"])]
        rows.append(
            (
                "Slope difference (judge - human)",
                f"{_row(r['slope_difference'])}, {_p(r['difference_pvalue'])}",
            )
        )
    verdict = f"judge slope {_number(r['judge']['slope']['estimate'])} per unit of length"
    if r["slope_difference"] is not None:
        verdict += f"; judge - human {_number(r['slope_difference']['estimate'])}"
    return Summary(
        title="Judge length bias: preference for A against len(A) - len(B)",
        verdict=verdict,
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


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
    from evalsig.report.html import register_section

    register_section("judge", _section)


_register()
