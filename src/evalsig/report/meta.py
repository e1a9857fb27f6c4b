"""Renderings of meta-analyses from their JSON forms: kinds ``"meta-analysis"`` (a synthesis
of published scores) and ``"random-effects"`` (one pooled set of reports).

Importing this module registers both HTML views. Plots are inline SVG from
:mod:`evalsig.report.svg` (no matplotlib needed); every user string is escaped (Jinja
autoescaping in HTML, :func:`evalsig.report.comparison.md` in markdown).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.formatting import decimals, fixed, name_cell, number_cell

__all__ = [
    "CELL_HEADER",
    "MAX_CELL_PLOTS",
    "as_markdown",
    "as_text",
    "cell_rows",
    "random_effects_markdown",
    "random_effects_text",
    "summary",
]

Result = Mapping[str, Any]

MAX_CELL_PLOTS = 24
"""Per-cell forest and funnel plots drawn in the HTML report (the largest cells first)."""

CELL_HEADER = (
    "benchmark",
    "model",
    "k",
    "synthesized",
    "CI",
    "tau",
    "I^2",
    "prediction interval",
    "max reported",
    "rank",
    "rank by max",
    "Egger p",
)


def _percent(x: float | None, digits: int = 1) -> str:
    """A share in percent ('42.5%'); one below 100% never reads 100.0%."""
    return "n/a" if x is None else f"{fixed(x, digits, high=100.0)}%"


def _p(p: float | None) -> str:
    if p is None:
        return "n/a"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else fixed(p, 3)


def _digits(r: Result) -> int:
    return 2 if r.get("scale", "points") == "points" else 4


def _range(ci: Mapping[str, Any], digits: int) -> str:
    if ci["low"] is None or ci["high"] is None:
        return "n/a"
    return f"{ci['low']:.{digits}f} to {ci['high']:.{digits}f}"


def _signed(x: float | None, digits: int) -> str:
    return "n/a" if x is None else f"{x:+.{digits}f}"


def _level(r: Result) -> str:
    return f"{100 * r['confidence_level']:g}%"


def _label(r: Result) -> str:
    test = "HKSJ t" if r["test"] == "hksj" else "z"
    return f"{r['method'].upper()}, {test}"


# --- one random-effects model ------------------------------------------------------------


def _re_lines(r: Result, digits: int) -> list[tuple[str, str]]:
    df = f", t({r['df']})" if r["df"] is not None else ""
    rows = [
        (
            "Pooled estimate",
            f"{decimals(r['mu'], digits)} ({_level(r)} CI {_range(r['ci'], digits)})",
        ),
        ("Standard error", f"{decimals(r['se'], digits + 2)}{df}"),
        ("Reports (k)", str(r["k"])),
        (
            "tau^2",
            f"{decimals(r['tau2'], 4)} (Q-profile {_range(r['tau2_ci'], 4)}); "
            f"tau {decimals(r['tau'], 4)}",
        ),
        (
            "I^2 / H^2",
            f"{_percent(r['i2'])} ({_range(r['i2_ci'], 1)}) / {decimals(r['h2'], 2)} "
            f"[{r['i2_basis']}-based]",
        ),
        ("Cochran's Q", f"{decimals(r['q'], 2)} on {r['q_df']} df, p {_p(r['q_pvalue'])}"),
        ("Prediction interval", _range(r["prediction_interval"], digits)),
    ]
    if not r["converged"]:
        rows.append(("Converged", "no: estimates undefined"))
    return rows


def _report_rows(r: Result, digits: int) -> list[list[str]]:
    z = 1.959963984540054
    out = []
    for rep in r["reports"]:
        low, high = rep["estimate"] - z * rep["se"], rep["estimate"] + z * rep["se"]
        out.append(
            [
                rep["label"],
                decimals(rep["estimate"], digits),
                f"{low:.{digits}f} to {high:.{digits}f}",
                _percent(rep["weight"]),
            ]
        )
    return out


def random_effects_text(r: Result) -> str:
    """A random-effects result as terminal text."""
    d = _digits(r)
    lines = [f"Random-effects meta-analysis ({_label(r)}): mu = {decimals(r['mu'], d)}"]
    lines += [f"  {k}: {v}" for k, v in _re_lines(r, d)]
    lines.append("  reports (estimate, 95% sampling CI, weight):")
    lines += [f"    {a}: {b} [{c}] {w}" for a, b, c, w in _report_rows(r, d)]
    lines += [f"  note: {n}" for n in r["notes"]]
    return "\n".join(lines)


def random_effects_markdown(r: Result) -> str:
    d = _digits(r)
    lines = [f"### Random-effects meta-analysis ({md(_label(r))})", "", "| | |", "|---|---|"]
    lines += [f"| {md(k)} | {md(v)} |" for k, v in _re_lines(r, d)]
    lines += ["", "| report | estimate | 95% CI | weight |", "|---|---:|---:|---:|"]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in _report_rows(r, d)]
    lines += [f"\n- note: {md(n)}" for n in r["notes"]]
    return "\n".join(lines)


def _cell_forest(c: Result, digits: int, title: str) -> str:
    """Each report with its 95% sampling interval, then the pooled estimate and the PI."""
    z = 1.959963984540054
    rows = [
        svg.ForestRow(
            label=rep.get("source", rep.get("label", "")),
            estimate=rep["score"] if "score" in rep else rep["estimate"],
            low=(rep["score"] if "score" in rep else rep["estimate"]) - z * rep["se"],
            high=(rep["score"] if "score" in rep else rep["estimate"]) + z * rep["se"],
            note="" if rep["weight"] is None else f"weight {_percent(rep['weight'])}",
        )
        for rep in c["reports"]
    ]
    mu = math.nan if c["mu"] is None else c["mu"]
    ci, pi = c["ci"], c["prediction_interval"]
    rows.append(
        svg.ForestRow(
            label=f"pooled ({c['method'].upper()})",
            estimate=mu,
            low=math.nan if ci["low"] is None else ci["low"],
            high=math.nan if ci["high"] is None else ci["high"],
            note=f"{_level(c)} CI",
            emphasis="summary",
        )
    )
    if pi["low"] is not None and pi["high"] is not None:
        rows.append(
            svg.ForestRow(
                label="prediction interval",
                estimate=mu,
                low=pi["low"],
                high=pi["high"],
                note="a new report's setting",
                emphasis="spread",
            )
        )
    legend = {
        "summary": f"pooled estimate ({_level(c)} CI)",
        "spread": "prediction interval (where a new report's setting falls)",
    }
    return svg.forest(rows, reference=math.nan, title=title, legend=legend)


def _no_egger_line(c: Result) -> str | None:
    """Why a cell's funnel has no Egger line (the cell's note says), or None if it has one."""
    egger = c.get("egger")
    if egger and egger["limit_estimate"] is not None and egger["bias"] is not None:
        return None
    if egger:
        return "Egger's fitted line is undefined here (its fit did not converge)"
    said = [str(n) for n in c["notes"] if str(n).startswith("No Egger test")]
    if said:
        return said[0].partition(": ")[2].rstrip(".") or said[0].rstrip(".")
    return "no Egger test was run"


def _funnel_title(c: Result, name: str) -> str:
    """'NAME: funnel with Egger line', or without one and why."""
    why = _no_egger_line(c)
    return (
        f"{name}: funnel with Egger line"
        if why is None
        else f"{name}: funnel (no Egger line: {why})"
    )


def _cell_funnel(c: Result, title: str) -> str:
    points = [
        (
            rep["se"],
            rep["score"] if "score" in rep else rep["estimate"],
            rep.get("source", rep.get("label", "")),
        )
        for rep in c["reports"]
    ]
    egger = c.get("egger")
    line = None
    if egger and egger["limit_estimate"] is not None and egger["bias"] is not None:
        line = (egger["limit_estimate"], egger["bias"])
    funnel = None if c["mu"] is None else (c["mu"], 1.959963984540054)
    return svg.scatter(
        points,
        x_label="standard error",
        y_label="score",
        title=title,
        line=line,
        funnel=funnel,
        invert_x=True,
    )


def _random_effects_section(r: Result) -> tuple[str, dict[str, Any]]:
    d = _digits(r)
    rows = [list(row) for row in _re_lines(r, d)]
    plot = _cell_forest(r, d, "reports, pooled estimate and prediction interval")
    return "table", {
        "heading": f"Random-effects meta-analysis ({_label(r)})",
        "lead": f"mu = {decimals(r['mu'], d)} ({_level(r)} CI {_range(r['ci'], d)}) from "
        f"{r['k']} reports.",
        "plot": Markup(plot),
        "header": ("", ""),
        "rows": rows,
        "notes": list(r["notes"]),
    }


# --- a synthesis of published scores ----------------------------------------------------


def summary(r: Result) -> list[str]:
    """The headline findings, one sentence each."""
    s, d = r["summary"], _digits(r)
    benchmarks = len(r["leaderboards"])
    lines = [
        f"{r['n_reports']:,} reports in {r['n_cells']:,} (model, benchmark) cells on "
        f"{benchmarks} benchmark{'s' if benchmarks != 1 else ''}, scores in {r['scale']}; "
        f"{_label(r)}, {_level(r)} intervals.",
        f"{r['n_imputed']:,} of {r['n_reports']:,} standard errors imputed from the number "
        "of items (binomial).",
    ]
    if s["median_i2"] is not None:
        lines.append(
            f"Median I^2 {_percent(s['median_i2'])} over {s['n_cells_heterogeneity']} cells with "
            "2 or more reports."
        )
    if s["median_half_width"] is not None:
        lines.append(
            f"Median bootstrap CI half-width {decimals(s['median_half_width'], d)} synthesized vs "
            f"{decimals(s['median_single_half_width'], d)} for a single report "
            f"({s['n_cells_bootstrap']} cells with 3 or more reports"
            + (
                ""
                if r.get("seed") is None
                else f"; {r['n_resamples']:,} resamples, seed {r['seed']}"
            )
            + ")."
        )
    depth = r["leaderboards"][0]["top"] if benchmarks else 0
    lines.append(
        f"Ranking by synthesized score reorders the top {depth} on "
        f"{s['n_benchmarks_reordered']} of {benchmarks} benchmarks versus the max-reported "
        "ranking."
    )
    gap = r["self_report"]
    if gap is not None and gap["pooled"] is not None:
        p = gap["pooled"]
        lines.append(
            f"Self-reported minus third-party scores: {_signed(p['mu'], d)} "
            f"({_level(p)} CI {_range(p['ci'], d)}) pooled over {gap['n_cells']} cells."
        )
    return lines


def cell_rows(r: Result) -> list[list[str]]:
    """The cells table, as shown (leaderboard order within each benchmark)."""
    d = _digits(r)
    ranks = {
        (b["benchmark"], row["model"]): (row["rank"], row["rank_max"])
        for b in r["leaderboards"]
        for row in b["rows"]
    }
    out = []
    for c in sorted(r["cells"], key=lambda c: (c["benchmark"], ranks[c["benchmark"], c["model"]])):
        rank, rank_max = ranks[c["benchmark"], c["model"]]
        egger = c["egger"]
        out.append(
            [
                c["benchmark"],
                c["model"],
                str(c["k"]),
                decimals(c["mu"], d),
                _range(c["ci"], d),
                decimals(c["tau"], d),
                _percent(c["i2"]),
                _range(c["prediction_interval"], d),
                decimals(c["max_reported"], d),
                str(rank),
                str(rank_max),
                "n/a" if egger is None else _p(egger["pvalue"]),
            ]
        )
    return out


def _board_lines(b: Mapping[str, Any], d: int) -> list[str]:
    lines = []
    status = "reordered" if b["top_reordered"] else "same order"
    lines.append(
        f"top {b['top']} by synthesized vs max-reported score: {status}; {b['n_moved']} models move"
    )
    for s in b["swaps"]:
        a, other = s["higher_by_max"], s["higher_by_synthesis"]
        trail = None if s["mu_gap"] is None else -s["mu_gap"]
        lines.append(
            f"swap: {a} {_gap('leads', other, s['max_gap'], d)} in max reported but "
            f"{_gap('trails', '', trail, d)} synthesized"
        )
    f = b["funnel"]
    if f is not None:
        lines.append(
            f"funnel asymmetry (Egger, {f['n_groups']} models as groups, {f['k']} reports): "
            f"bias {_signed(f['bias'], 3)}, p {_p(f['pvalue'])}"
        )
    return lines + [f"note: {n}" for n in b["notes"]]


def _gap(verb: str, other: str, size: float | None, digits: int) -> str:
    """'leads B by 0.50', 'trails by 0.37': the verb carries the direction, so the size has
    no sign; a tie (ranked by name) is 'is level' ('is level with B')."""
    whom = f" {other}" if other else ""
    if size is None:
        return f"{verb}{whom} (by an undefined amount)"
    if size == 0.0:
        return f"is level with{whom}" if other else "is level"
    shown = fixed(abs(size), digits, high=math.inf)
    return f"{verb}{whom} by {shown}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return lines


def as_text(r: Result) -> str:
    """A synthesis as terminal text: summary, per-benchmark findings, the cells table."""
    d = _digits(r)
    lines = ["Meta-analysis of published benchmark scores", *(f"  {s}" for s in summary(r))]
    for b in r["leaderboards"]:
        lines += ["", f"Benchmark {b['benchmark']}:", *(f"  {s}" for s in _board_lines(b, d))]
    lines += ["", *_table(CELL_HEADER, cell_rows(r))]
    lines += [f"note: {n}" for n in r["notes"]]
    for c in r["cells"]:
        lines += [f"note ({c['model']} / {c['benchmark']}): {n}" for n in c["notes"]]
    return "\n".join(lines)


def as_markdown(r: Result) -> str:
    d = _digits(r)
    lines = ["### Meta-analysis of published benchmark scores", ""]
    lines += [f"- {md(s)}" for s in summary(r)]
    for b in r["leaderboards"]:
        lines += ["", f"#### Benchmark {md(b['benchmark'])}", ""]
        lines += [f"- {md(s)}" for s in _board_lines(b, d)]
    lines += ["", "| " + " | ".join(map(md, CELL_HEADER)) + " |", "|" + "---|" * len(CELL_HEADER)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in cell_rows(r)]
    lines += [f"\n- note: {md(n)}" for n in r["notes"]]
    for c in r["cells"]:
        lines += [f"- note ({md(c['model'])} / {md(c['benchmark'])}): {md(n)}" for n in c["notes"]]
    return "\n".join(lines)


def _synthesis_section(r: Result) -> tuple[str, dict[str, Any]]:
    d = _digits(r)
    plots = []
    for b in r["leaderboards"]:
        rows = [
            svg.ForestRow(
                label=f"{row['rank']}. {row['model']}",
                estimate=math.nan if row["mu"] is None else row["mu"],
                low=math.nan if row["ci_low"] is None else row["ci_low"],
                high=math.nan if row["ci_high"] is None else row["ci_high"],
                note=f"k = {row['k']}, max reported {row['max_reported']:.{d}f} "
                f"(rank {row['rank_max']})",
                emphasis="marked" if row["rank"] != row["rank_max"] else None,
            )
            for row in b["rows"]
        ]
        title = f"{b['benchmark']}: synthesized score with {_level(r)} CI"
        legend = {"marked": "ranked otherwise by max reported score"}
        plots.append(svg.forest(rows, reference=math.nan, title=title, legend=legend))
    cells = sorted((c for c in r["cells"] if c["k"] >= 2), key=lambda c: -c["k"])[:MAX_CELL_PLOTS]
    for c in cells:
        name = f"{c['model']} on {c['benchmark']}"
        plots.append(_cell_forest(c, d, f"{name}: reports and pooled estimate"))
        if c["k"] >= 3:
            plots.append(_cell_funnel(c, _funnel_title(c, name)))
    notes = list(r["notes"])
    drawn = sum(1 for c in r["cells"] if c["k"] >= 2)
    if drawn > MAX_CELL_PLOTS:
        notes.append(
            f"Per-cell plots drawn for the {MAX_CELL_PLOTS} largest of {drawn} cells with 2 or "
            "more reports (all cells are in the table; --plots DIR writes every plot)."
        )
    for b in r["leaderboards"]:
        notes += [f"{b['benchmark']}: {s}" for s in _board_lines(b, d)]
    for c in r["cells"]:
        notes += [f"{c['model']} / {c['benchmark']}: {n}" for n in c["notes"]]
    return "table", {
        "heading": "Meta-analysis of published benchmark scores",
        "lead": " ".join(summary(r)),
        "plot": Markup("".join(plots)),
        "header": CELL_HEADER,
        "rows": [_cells(row) for row in cell_rows(r)],
        "notes": notes,
    }


def _cells(row: Sequence[str]) -> list[Any]:
    """A row of the cells table as HTML cells: the benchmark and the model are names, the
    rest numbers (kept on one line each)."""
    return [name_cell(row[0]), name_cell(row[1]), *(number_cell(text) for text in row[2:])]


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("meta-analysis", _synthesis_section)
    register_section("random-effects", _random_effects_section)


_register()
