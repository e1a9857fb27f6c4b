"""Renderings of a judge's checks, from their JSON form: agreement with human labels
(``"judge-agreement"``), agreement among several raters (``"rater-agreement"``), the
position and length bias probes (``"judge-position-bias"``, ``"judge-length-bias"``) and
the number of human labels to collect (``"judge-plan"``).

Each kind has a :class:`~evalsig.report.summary.Summary` (text, markdown, HTML, LaTeX) and an
HTML report section: the summary's rows under a forest plot of the intervals (the plan has
no plot). The sections are registered on import.
"""

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
    "estimate_row",
    "interval",
    "length_bias_summary",
    "number",
    "p_text",
    "plan_summary",
    "position_bias_summary",
    "rater_agreement_summary",
]

Result = Mapping[str, Any]

_NAMES = {"fleiss_kappa": "Fleiss' kappa", "krippendorff_alpha": "Krippendorff's alpha"}


def number(value: float | None) -> str:
    """A value to 4 significant digits; ``n/a`` for null."""
    return "n/a" if value is None else f"{value:.4g}"


def interval(ci: Mapping[str, Any]) -> str:
    """``95% CI low to high``, or a one-sided bound."""
    level = f"{100 * ci['confidence_level']:g}%"
    low, high = ci["low"], ci["high"]
    if high is None and low is not None:
        return f"{level} lower bound {low:.4g}"
    if low is None and high is not None:
        return f"{level} upper bound {high:.4g}"
    return f"{level} CI {number(low)} to {number(high)}"


def estimate_row(estimate: Mapping[str, Any]) -> str:
    """``estimate (SE se; interval)``."""
    se = number(estimate["se"])
    return f"{number(estimate['estimate'])} (SE {se}; {interval(estimate['ci'])})"


def p_text(value: float | None) -> str:
    """``p = ...``, or ``p n/a`` for null."""
    return "p n/a" if value is None else pvalue(float(value))


def _rate(rate: Mapping[str, Any], of: str = "") -> str:
    return (
        f"{rate['estimate']:.4g} ({rate['successes']:,} of {rate['n']:,}{of}; "
        f"Wilson {interval(rate['ci'])})"
    )


def _reliability(r: Result) -> str:
    text = f"{number(r['estimate'])} (bootstrap {interval(r['ci'])}"
    if r["null_se"] is not None:
        text += f"; SE under no agreement {number(r['null_se'])}, {p_text(r['pvalue'])}"
    return text + ")"


# --- judge vs humans ------------------------------------------------------------------------


def agreement_summary(r: Result) -> Summary:
    """A ``"judge-agreement"`` result as a :class:`~evalsig.report.summary.Summary` table."""
    kappa = f"{number(r['kappa'])} (SE {number(r['kappa_se'])}; {interval(r['kappa_ci'])})"
    rows = [
        ("Items", f"{r['n']:,}"),
        ("Raw agreement", f"{r['agreement']:.4g}"),
        ("Cohen's kappa", kappa),
    ]
    for name in ("sensitivity", "specificity"):
        if r[name] is not None:
            rows.append((name.capitalize(), _rate(r[name])))
    cells = ", ".join(
        f"human {h} / judge {j}: {count:,}"
        for h, row in zip(r["categories"], r["table"], strict=True)
        for j, count in zip(r["categories"], row, strict=True)
    )
    rows.append(("Counts", cells))
    for key, name in _NAMES.items():
        if r.get(key) is not None:
            rows.append((name, _reliability(r[key])))
    positive = "" if r["positive"] is None else f", positive = {r['positive']}"
    return Summary(
        title=f"Judge vs human labels{positive}",
        verdict=f"kappa = {number(r['kappa'])}, raw agreement {r['agreement']:.4g}",
        rows=tuple(rows),
        notes=tuple(_notes(r)),
    )


def _notes(r: Result) -> list[str]:
    """The result's notes, then those of its coefficients, each naming its coefficient."""
    notes = list(r["notes"])
    for key, name in _NAMES.items():
        if r.get(key) is not None:
            notes += [f"{name}: {note}" for note in r[key]["notes"]]
    return notes


def _agreement_section(r: Result) -> tuple[str, dict[str, Any]]:
    rows = [_forest_row("Cohen's kappa", r["kappa"], r["kappa_ci"], "judge vs humans")]
    for key, name in _NAMES.items():
        if r.get(key) is not None:
            rows.append(_forest_row(name, r[key]["estimate"], r[key]["ci"], "bootstrap"))
    for name in ("sensitivity", "specificity"):
        if r[name] is not None:
            rows.append(_forest_row(name, r[name]["estimate"], r[name]["ci"], "Wilson"))
    return _section(agreement_summary(r), rows, title="agreement beyond chance, and rates")


# --- several raters ---------------------------------------------------------------------------


def rater_agreement_summary(r: Result) -> Summary:
    """A ``"rater-agreement"`` result as a :class:`~evalsig.report.summary.Summary` table."""
    alpha = r["krippendorff_alpha"]
    raters = ", ".join(r["raters"])
    rows = [
        ("Items", f"{r['n_items']:,} ({alpha['n_items']:,} rated at least twice)"),
        ("Raters", f"{len(r['raters'])}: {raters}"),
        ("Values", ", ".join(r["categories"])),
        (f"Krippendorff's alpha ({alpha['metric']})", _reliability(alpha)),
    ]
    if r["fleiss_kappa"] is not None:
        rows.append(("Fleiss' kappa", _reliability(r["fleiss_kappa"])))
    verdict = f"Krippendorff's alpha = {number(alpha['estimate'])}"
    if r["fleiss_kappa"] is not None:
        verdict += f", Fleiss' kappa = {number(r['fleiss_kappa']['estimate'])}"
    return Summary(
        title=f"Agreement among {len(r['raters'])} raters",
        verdict=verdict,
        rows=tuple(rows),
        notes=tuple(_notes(r)),
    )


def _rater_section(r: Result) -> tuple[str, dict[str, Any]]:
    rows = [
        _forest_row(name, r[key]["estimate"], r[key]["ci"], "bootstrap")
        for key, name in _NAMES.items()
        if r[key] is not None
    ]
    return _section(rater_agreement_summary(r), rows, title="agreement beyond chance")


# --- bias probes ------------------------------------------------------------------------------


def position_bias_summary(r: Result) -> Summary:
    """A ``"judge-position-bias"`` result as a :class:`~evalsig.report.summary.Summary`."""
    share = r["estimate"] + 0.5
    rows = [
        ("Position bias", f"{r['estimate']:+.4g} ({interval(r['ci'])})"),
        ("First shown preferred", f"{r['first_preferred']:,} of {r['n']:,} ({share:.4g})"),
    ]
    if r.get("ties"):
        total = r["n"] + r["ties"]
        rows.append(("Ties", f"{r['ties']:,} of {total:,} judgments (left out of the test)"))
    rows += [
        ("p-value", f"{p_text(r['pvalue'])} (no position bias)"),
        ("Method", r["method"]),
    ]
    if r["n_pairs"] is not None:
        rows.append(("Pairs", f"{r['n_pairs']:,}"))
    if r["consistency"] is not None:
        rows.append(("Consistent in both orders", _rate(r["consistency"], " pairs")))
    return Summary(
        title="Judge position bias: P(prefers the first shown) - 1/2",
        verdict=f"position bias {r['estimate']:+.4g}, {p_text(r['pvalue'])}",
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


def _position_section(r: Result) -> tuple[str, dict[str, Any]]:
    rows = [_forest_row("P(first shown) - 1/2", r["estimate"], r["ci"], r["method"])]
    return _section(position_bias_summary(r), rows, title="position bias (0: none)")


def _association(a: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        ("correlation", f"{number(a['correlation'])} (Fisher-z {interval(a['correlation_ci'])})"),
        ("logistic slope", f"{estimate_row(a['slope'])}, {p_text(a['pvalue'])}"),
    ]


def length_bias_summary(r: Result) -> Summary:
    """A ``"judge-length-bias"`` result as a :class:`~evalsig.report.summary.Summary`."""
    rows = [("Judge items", f"{r['judge']['n']:,}")]
    rows += [(f"Judge {label}", value) for label, value in _association(r["judge"])]
    if r["human"] is not None:
        rows.append(("Human items", f"{r['human']['n']:,}"))
        rows += [(f"Human {label}", value) for label, value in _association(r["human"])]
        rows.append(
            (
                "Slope difference (judge - human)",
                f"{estimate_row(r['slope_difference'])}, {p_text(r['difference_pvalue'])}",
            )
        )
    verdict = f"judge slope {number(r['judge']['slope']['estimate'])} per unit of length"
    if r["slope_difference"] is not None:
        verdict += f"; judge - human {number(r['slope_difference']['estimate'])}"
    return Summary(
        title="Judge length bias: preference for A against len(A) - len(B)",
        verdict=verdict,
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


def _length_section(r: Result) -> tuple[str, dict[str, Any]]:
    slope = r["judge"]["slope"]
    rows = [_forest_row("judge", slope["estimate"], slope["ci"], "logistic slope")]
    if r["human"] is not None:
        slope = r["human"]["slope"]
        rows.append(_forest_row("humans", slope["estimate"], slope["ci"], "logistic slope"))
        d = r["slope_difference"]
        rows.append(_forest_row("judge - humans", d["estimate"], d["ci"], "joint sandwich SE"))
    return _section(length_bias_summary(r), rows, title="slope per unit of len(A) - len(B)")


# --- planning ---------------------------------------------------------------------------------


def plan_summary(r: Result) -> Summary:
    """A ``"judge-plan"`` result as a :class:`~evalsig.report.summary.Summary` table."""
    method = {"ppi++": "PPI++ (power-tuned lambda)", "ppi": "PPI (lambda = 1)"}[r["method"]]
    needed = "no finite number" if r["n_labels"] is None else f"{r['n_labels']:,}"
    rows = [
        ("Human labels needed", f"{needed} ({method})"),
        ("Human labels alone", f"{r['n_classical']:,} (no judge)"),
        ("Target", r["target"] or "-"),
        ("Target standard error", f"{r['target_se']:.4g}"),
        ("Judge-scored items", f"{r['n_unlabeled']:,}"),
        ("Correlation judge-human", f"{r['correlation']:.4g}"),
        ("Human SD, judge SD", f"{r['human_sd']:.4g}, {r['judge_sd']:.4g}"),
    ]
    if r["lambda"] is not None:
        rows.append(("lambda", f"{r['lambda']:.4g}"))
    return Summary(
        title="Human labels for a judge correction",
        verdict=f"{needed} human labels; {r['n_classical']:,} without the judge",
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )


def _plan_section(r: Result) -> tuple[str, dict[str, Any]]:
    return _section(plan_summary(r), [], title="")


# --- any of these kinds -----------------------------------------------------------------------


def _summary(r: Result) -> Summary:
    views = {
        "judge-agreement": agreement_summary,
        "rater-agreement": rater_agreement_summary,
        "judge-position-bias": position_bias_summary,
        "judge-length-bias": length_bias_summary,
        "judge-plan": plan_summary,
    }
    return views[r["kind"]](r)


def as_text(r: Result) -> str:
    """A result of any of this module's kinds as text (its summary table)."""
    return _summary(r).as_text()


def as_markdown(r: Result) -> str:
    """A result of any of this module's kinds as markdown (its summary table)."""
    return _summary(r).as_markdown()


# --- shared -----------------------------------------------------------------------------------


def _forest_row(label: str, estimate: float | None, ci: Mapping[str, Any], note: str) -> Any:
    """A plot row; a null (undefined) estimate or bound is NaN, drawn as n/a."""

    def value(v: float | None) -> float:
        return math.nan if v is None else float(v)

    return svg.ForestRow(
        label=label,
        estimate=value(estimate),
        low=value(ci["low"]),
        high=value(ci["high"]),
        note=note,
    )


def _section(table: Summary, rows: list[Any], *, title: str) -> tuple[str, dict[str, Any]]:
    """The summary's rows under a forest plot of ``rows`` (none: no plot)."""
    plot = Markup(svg.forest(rows, title=title)) if rows else None
    return "comparison", {
        "heading": table.title,
        "verdict": table.verdict,
        "tone": "not-significant",
        "plot": plot,
        "rows": list(table.rows),
        "notes": list(table.notes),
    }


def _register() -> None:
    """Register the HTML sections of these kinds (idempotent)."""
    from evalsig.report.sections import register_section

    register_section("judge-agreement", _agreement_section)
    register_section("rater-agreement", _rater_section)
    register_section("judge-position-bias", _position_section)
    register_section("judge-length-bias", _length_section)
    register_section("judge-plan", _plan_section)


_register()
