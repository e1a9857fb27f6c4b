"""Renderings of method audits, claim audits and simulation reports, from their JSON forms.

Importing this module registers the HTML views of results of kind ``"audit"``,
``"claim-audit"`` and ``"simulation"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup
from scipy import special

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.formatting import (
    decimals,
    difference,
    json_float,
    name_cell,
    number_cell,
    pvalue,
)
from evalsig.report.provenance import markdown_footer, text_footer

__all__ = [
    "HEADER",
    "as_markdown",
    "as_text",
    "claim_candidate_rows",
    "claim_lines",
    "claim_markdown",
    "claim_text",
    "rows",
    "simulation_lines",
    "simulation_markdown",
    "simulation_rows",
    "simulation_text",
    "summary",
]

Result = Mapping[str, Any]

HEADER = (
    "method",
    "kind",
    "power",
    "false-positive rate",
    "median half-width",
    "analytical power",
    "calibration",
    "published (power / FP / half-width)",
)


def _pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


def _rate(value: float, se: float) -> str:
    return f"{100 * value:.1f}% ± {100 * se:.1f}"


def _half(value: float | None, se: float | None = None) -> str:
    if value is None:
        return "n/a"
    text = f"±{100 * value:.2f} pp"
    return text if se is None else f"{text} (± {100 * se:.3f})"


def _calibration(m: Result, alpha: float) -> str:
    """'calibrated', 'conservative' or 'N.Nx the nominal 5%', within 3 Monte Carlo SEs."""
    n = m["n_simulations"]
    spread = 3 * math.sqrt(alpha * (1 - alpha) / n)
    fp = m["false_positive_rate"]
    if fp > alpha + spread:
        return f"false positives {fp / alpha:.1f}x the nominal {100 * alpha:g}%"
    if fp < alpha - spread:
        return "conservative"
    return "calibrated"


def _published(m: Result) -> str:
    p = m["published"]
    if p is None:
        return ""
    agree = "agrees" if p["agrees"] else "DISAGREES"
    return (
        f"{_pct(p['power'])} / {_pct(p['false_positive_rate'])} / "
        f"{_half(p['median_half_width'])} ({agree})"
    )


def rows(r: Result) -> list[list[str]]:
    """One row of strings per method, in the order of :data:`HEADER`."""
    alpha = 1 - r["confidence_level"]
    out = []
    for m in r["methods"]:
        out.append(
            [
                m["label"],
                m["category"],
                _rate(m["power"], m["power_se"]),
                _rate(m["false_positive_rate"], m["false_positive_se"]),
                _half(m["median_half_width"], m["median_half_width_se"]),
                _pct(m["analytical_power"]),
                _calibration(m, alpha),
                _published(m),
            ]
        )
    return out


def summary(r: Result) -> list[str]:
    """The design, the settings and how to read the table, one sentence each."""
    d = r["design"]
    lines = [
        f"{r['n_simulations']:,} simulated benchmarks (seed {r['seed']}): {d['description']}.",
        f"Each benchmark: a baseline, its clone (true difference 0: false positives) and a "
        f"fine-tune (true uplift {difference(r['true_uplift'], percent=True)}: power); "
        f"{100 * r['confidence_level']:g}% intervals, significant when the interval excludes "
        f"0; B = {r['n_resamples']} resamples, J = {r['independent_runs']} independent runs.",
        "Rates are shown ± their Monte Carlo standard error; half-widths are of the "
        "fine-tune's intervals.",
    ]
    if r["reference"]:
        lines.append(
            f"Published: {r['reference']}; 'agrees' means Fisher's exact test finds no "
            "difference beyond Monte Carlo error (p >= 0.001) in power and false positives."
        )
    return lines


def _table(header: Sequence[str], body: list[list[str]]) -> list[str]:
    keep = [i for i in range(len(header)) if any(row[i] for row in body) or i < 7]
    header = [header[i] for i in keep]
    body = [[row[i] for i in keep] for row in body]
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in body
    ]
    return lines


def _method_notes(r: Result) -> list[str]:
    return [f"{m['label']}: {n}" for m in r["methods"] for n in m["notes"]] + list(r["notes"])


def as_text(r: Result) -> str:
    """The audit table with a few lines of context."""
    lines = ["Method audit: power, false positives and interval width", *summary(r), ""]
    lines += _table(HEADER, rows(r))
    lines += ["", "Definitions:"]
    lines += [f"  {m['label']}: {m['definition']}" for m in r["methods"]]
    lines += text_footer(r, _method_notes(r))
    return "\n".join(lines)


def as_markdown(r: Result) -> str:
    lines = ["### Method audit", "", *(f"- {md(s)}" for s in summary(r)), ""]
    body = rows(r)
    keep = [i for i in range(len(HEADER)) if any(row[i] for row in body) or i < 7]
    lines += ["| " + " | ".join(md(HEADER[i]) for i in keep) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(md(row[i]) for i in keep) + " |" for row in body]
    lines += ["", "**Definitions**", ""]
    lines += [f"- **{md(m['label'])}**: {md(m['definition'])}" for m in r["methods"]]
    lines += markdown_footer(r, _method_notes(r))
    return "\n".join(lines)


def _plots(r: Result) -> str:
    forest_rows = []
    for m in r["methods"]:
        estimate, low, high = (math.nan if v is None else v for v in m["example"]["uplift"])
        kind = "ANTI-PATTERN; " if m["category"] == "anti-pattern" else ""
        forest_rows.append(
            svg.ForestRow(
                label=m["label"],
                estimate=estimate,
                low=low,
                high=high,
                note=f"{kind}power {_pct(m['power'])}, FP {_pct(m['false_positive_rate'])}",
            )
        )
    uplift = difference(r["true_uplift"], percent=True)
    forest = svg.forest(
        forest_rows,
        unit="pp",
        title=f"Same data, different intervals: benchmark 1, true uplift {uplift}",
    )
    alpha = 1 - r["confidence_level"]
    points = {m["label"]: [(m["false_positive_rate"], m["power"])] for m in r["methods"]}
    chart = svg.lines(
        points,
        x_label="false-positive rate (clone)",
        y_label=f"power (fine-tune, {uplift})",
        title="Power against false-positive rate",
        vlines=[(alpha, f"nominal {100 * alpha:g}%")],
        y_include=(0.0, 1.0),
    )
    return forest + chart


def _audit_section(r: Result) -> tuple[str, dict[str, Any]]:
    return "table", {
        "heading": "Method audit: power, false positives and interval width",
        "lead": " ".join(summary(r)),
        "plot": Markup(_plots(r)),
        "header": [h for i, h in enumerate(HEADER) if i < 7 or r["reference"]],
        "rows": [_named(row if r["reference"] else row[:7], 2, 6) for row in rows(r)],
        "notes": [f"{m['label']}: {m['definition']}" for m in r["methods"]] + _method_notes(r),
    }


# --- claim audit ---------------------------------------------------------------------------


def _signed(value: float | None, percent: bool) -> str:
    return "n/a" if value is None else difference(value, percent=percent)


def _width(value: float | None, percent: bool) -> str:
    if value is None:
        return "n/a"
    return f"±{100 * value:.3g} pp" if percent else f"±{value:.4g}"


def claim_lines(r: Result) -> list[tuple[str, str]]:
    """The claim audit as (label, value) pairs."""
    percent = r["percent_scale"]
    rep, hon = r["reported"], r["honest"]
    level = f"{100 * r['confidence_level']:g}%"
    reported = []
    if rep["low"] is not None:
        reported.append(
            f"{_signed(rep['estimate'], percent)}, {level} CI {_signed(rep['low'], percent)} "
            f"to {_signed(rep['high'], percent)} ({_width(rep['half_width'], percent)})"
        )
    if rep["pvalue"] is not None:
        reported.append(pvalue(rep["pvalue"]))
    honest = (
        f"{_signed(hon['estimate'], percent)}, {level} CI {_signed(hon['low'], percent)} to "
        f"{_signed(hon['high'], percent)} ({_width(hon['half_width'], percent)}), "
        f"{pvalue(math.nan if hon['pvalue'] is None else hon['pvalue'])} ({hon['method']})"
    )
    ratio = r["narrower_by"]
    lines = [
        ("Verdict", r["verdict"]),
        ("Reported", "; ".join(reported)),
        ("Honest paired analysis", honest),
        (
            "Honest / reported width",
            "n/a" if ratio is None else f"{ratio:.2f}x",
        ),
        ("Likely cause", r["likely_cause"] or "none identified"),
        ("Explanation", r["explanation"]),
        (
            "Data",
            f"{r['n_items']:,} items; runs: baseline {r['n_runs']['baseline']}, candidate "
            f"{r['n_runs']['candidate']}",
        ),
    ]
    return lines


def claim_candidate_rows(r: Result) -> list[list[str]]:
    """What each procedure would report on the data, and how the claim compares."""
    percent = r["percent_scale"]
    z = _z(r["confidence_level"])
    out = []
    for c in r["candidates"]:
        se = c["se"]
        half = None if se is None else z * se
        resamples = "" if c["resamples"] is None else f"B = {c['resamples']:.4g}"
        out.append(
            [
                c["label"],
                "honest" if c["honest"] else ", ".join(c["causes"]),
                _width(half, percent),
                resamples,
                "n/a" if c["ratio"] is None else f"{c['ratio']:.2f}",
                "yes" if c["matches"] else "",
            ]
        )
    return out


CLAIM_HEADER = ("procedure", "shortcut", "half-width", "resamples", "reported / this", "match")


def _z(level: float) -> float:
    return float(special.ndtri(1 - (1 - level) / 2))


def claim_text(r: Result) -> str:
    lines = [f"Claim audit: {r['verdict'].upper()}"]
    lines += [f"  {k}: {v}" for k, v in claim_lines(r)]
    lines += ["", *_table(CLAIM_HEADER, claim_candidate_rows(r))]
    lines += text_footer(r)
    return "\n".join(lines)


def claim_markdown(r: Result) -> str:
    lines = [f"### Claim audit: {md(r['verdict'])}", "", "| | |", "|---|---|"]
    lines += [f"| {md(k)} | {md(v)} |" for k, v in claim_lines(r)]
    lines += ["", "| " + " | ".join(CLAIM_HEADER) + " |", "|" + "---|" * len(CLAIM_HEADER)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in claim_candidate_rows(r)]
    lines += markdown_footer(r)
    return "\n".join(lines)


def _claim_section(r: Result) -> tuple[str, dict[str, Any]]:
    percent = r["percent_scale"]
    z = _z(r["confidence_level"])
    rep, hon = r["reported"], r["honest"]
    forest_rows = []
    if rep["low"] is not None:
        forest_rows.append(
            svg.ForestRow(
                label="reported",
                estimate=rep["estimate"],
                low=rep["low"],
                high=rep["high"],
                emphasis="fail" if r["verdict"] in ("too narrow", "estimate differs") else None,
            )
        )
    if hon["low"] is not None and hon["high"] is not None and hon["estimate"] is not None:
        forest_rows.append(
            svg.ForestRow(
                label="honest (" + hon["method"] + ")",
                estimate=hon["estimate"],
                low=hon["low"],
                high=hon["high"],
            )
        )
    for c in r["candidates"]:
        if c["se"] is None or c["honest"]:
            continue
        centre = hon["estimate"] if hon["estimate"] is not None else math.nan
        forest_rows.append(
            svg.ForestRow(
                label=c["label"],
                estimate=centre,
                low=centre - z * c["se"],
                high=centre + z * c["se"],
                note="matches the reported width" if c["matches"] else "",
            )
        )
    plot = svg.forest(forest_rows, unit="pp" if percent else "", title="Reported and recomputed")
    return "table", {
        "heading": f"Claim audit: {r['verdict']}",
        "lead": r["explanation"],
        "plot": Markup(plot),
        "header": CLAIM_HEADER,
        "rows": [_named(row, 2, 5) for row in claim_candidate_rows(r)],
        "notes": [f"{k}: {v}" for k, v in claim_lines(r) if k != "Explanation"] + list(r["notes"]),
    }


# --- simulation report ---------------------------------------------------------------------


SIMULATION_HEADER = (
    "model",
    "true accuracy",
    "observed accuracy",
    "per-run SD (expected)",
    "pairwise consistency (expected)",
)


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.3f} pp"


def simulation_rows(r: Result) -> list[list[str]]:
    return [
        [
            m["name"],
            _pct(m["true_accuracy"], 2),
            _pct(m["observed_accuracy"], 2),
            f"{_pp(m['per_run_sd'])} ({_pp(m['expected_per_run_sd'])})",
            f"{_pct(m['consistency'])} ({_pct(m['expected_consistency'])})",
        ]
        for m in r["models"]
    ]


def simulation_lines(r: Result) -> list[str]:
    """The pairs, the power and the clusters, one sentence each."""
    lines = []
    level = f"{100 * (1 - r['alpha']):g}%"
    for p in r["pairs"]:
        mc, pt = p["mcnemar"], p["paired_t"]
        lines.append(
            f"{p['name']} - baseline: true {difference(p['true_difference'], percent=True)}, "
            f"observed {difference(p['observed_difference'], percent=True)}; discordance "
            f"{_pct(p['discordance'])} (expected {_pct(p['expected_discordance'])}); McNemar on "
            f"run 1 {difference(mc['estimate'], percent=True)}, z = {decimals(mc['statistic'])}, "
            f"{pvalue(json_float(mc['pvalue']))}; paired t on all runs "
            f"{difference(pt['estimate'], percent=True)}, {level} CI "
            f"{_signed(pt['low'], True)} to {_signed(pt['high'], True)}, "
            f"{pvalue(json_float(pt['pvalue']))}"
            + (
                ""
                if p["icc_differences"] is None
                else f"; ICC of differences {p['icc_differences']:.4f}"
            )
        )
    w = r["power"]
    for key, label in (("mcnemar", "McNemar, one run"), ("paired_t", "Paired t, all runs")):
        row = w[key]
        empirical = (
            "not simulated"
            if row["empirical"] is None
            else f"{_pct(row['empirical'])} ± {100 * row['empirical_se']:.1f} over "
            f"{w['n_simulations']:,} benchmarks"
        )
        basis = (
            f" (discordance {_pct(row['discordance'])}: p01 {_pct(row['p01'], 2)}, p10 "
            f"{_pct(row['p10'], 2)})"
            if key == "mcnemar"
            else ""
        )
        lines.append(
            f"Power of {label} at alpha {r['alpha']:g}: analytical {_pct(row['analytical'])}"
            f"{basis}, empirical {empirical}"
        )
    published = r.get("published")
    if published:
        shown = "; ".join(
            f"{name} {_pct(v['true_accuracy'], 2)} / {_pct(v['observed_accuracy'], 2)} / "
            f"{_pp(v['per_run_sd'])} / {_pct(v['consistency'])}"
            for name, v in published.items()
        )
        lines.append(
            "The article printed for this design and seed (true / observed accuracy, per-run "
            f"SD, consistency): {shown}"
        )
    icc = r["icc"]
    if icc["n_clusters"] is not None:
        realized = "n/a" if icc["realized_scores"] is None else f"{icc['realized_scores']:.4f}"
        lines.append(
            f"{icc['n_clusters']} clusters: target ICC of single-run scores {icc['target']:g}, "
            f"realised in this benchmark {realized}"
        )
    return lines


def simulation_text(r: Result) -> str:
    lines = [f"Simulated benchmark (seed {r['seed']}): {r['design']['description']}", ""]
    lines += _table(SIMULATION_HEADER, simulation_rows(r))
    lines += ["", *simulation_lines(r)]
    lines += text_footer(r)
    return "\n".join(lines)


def simulation_markdown(r: Result) -> str:
    lines = [f"### Simulated benchmark (seed {r['seed']})", "", md(r["design"]["description"]), ""]
    lines += [
        "| " + " | ".join(SIMULATION_HEADER) + " |",
        "|" + "---|" * len(SIMULATION_HEADER),
    ]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in simulation_rows(r)]
    lines += ["", *(f"- {md(s)}" for s in simulation_lines(r))]
    lines += markdown_footer(r)
    return "\n".join(lines)


def _simulation_section(r: Result) -> tuple[str, dict[str, Any]]:
    w = r["power"]
    series: dict[str, list[tuple[float, float]]] = {
        "analytical = empirical": [(0.0, 0.0), (1.0, 1.0)]
    }
    for key, label in (("mcnemar", "McNemar, one run"), ("paired_t", "Paired t, all runs")):
        row = w[key]
        if row["empirical"] is not None:
            series[label] = [(json_float(row["analytical"]), row["empirical"])]
    plot = svg.lines(
        series,
        x_label="analytical power",
        y_label=f"empirical power ({w['n_simulations']:,} benchmarks)",
        title="Power of the honest tests for this design",
    )
    return "table", {
        "heading": f"Simulated benchmark (seed {r['seed']})",
        "lead": r["design"]["description"],
        "plot": Markup(plot),
        "header": SIMULATION_HEADER,
        "rows": [_named(row, 1, 5) for row in simulation_rows(r)],
        "notes": simulation_lines(r) + list(r["notes"]),
    }


def _named(row: Sequence[str], first: int, stop: int) -> list[Any]:
    """A table row whose first cell is a name (a method, a procedure, a model) and whose
    cells ``first`` to ``stop - 1`` are numbers."""
    cells: list[Any] = [name_cell(row[0]), *row[1:]]
    cells[first:stop] = [number_cell(text) for text in row[first:stop]]
    return cells


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("audit", _audit_section)
    register_section("claim-audit", _claim_section)
    register_section("simulation", _simulation_section)


_register()
