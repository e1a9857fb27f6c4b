"""Renderings of power, sample-size and resolution results, from their JSON forms."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.formatting import difference, fixed, name_cell, number_cell
from evalsig.report.provenance import compared, compared_lines, markdown_footer, text_footer

__all__ = [
    "benchmark_markdown",
    "benchmark_text",
    "power_markdown",
    "power_text",
    "resolution_markdown",
    "resolution_text",
    "sample_size_markdown",
    "sample_size_text",
]

Result = Mapping[str, Any]

_DESIGN = {
    ("mcnemar", "normal"): "McNemar's paired test, normal approximation (Connor 1987)",
    ("mcnemar", "exact"): "McNemar's exact conditional test",
    ("mcnemar", "score"): (
        "McNemar's score test, as compare runs it (continuity-corrected below 25 discordant "
        "items), power summed exactly"
    ),
    ("paired-t", "noncentral-t"): "paired t-test on per-item differences (noncentral t)",
}


def _items(n: float | None) -> str:
    if n is None:
        return "no finite number"
    return f"{math.ceil(n - 1e-9):,}"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{fixed(100 * x, 2, high=100.0)}%"


def _effect(value: float | None, design: str) -> str:
    if value is None:
        return "n/a"
    return difference(value, percent=design == "mcnemar")


def _magnitude(value: float | None, design: str) -> str:
    if value is None:
        return "none"
    return f"{100 * value:.2f} pp" if design == "mcnemar" else f"{value:.4g}"


def _target(r: Result) -> str:
    return f"alpha {r['alpha']:g} {r['alternative']}, power {r['power']:g}"


def _inputs(r: Result) -> str:
    i = r["inputs"]
    if r["design"] == "mcnemar":
        return (
            f"p01 {_pct(i.get('p01'))}, p10 {_pct(i.get('p10'))}, "
            f"discordance {_pct(i.get('discordance'))}"
        )
    parts = [f"{k} {v:.4g}" for k, v in i.items() if v is not None]
    return ", ".join(parts)


def _q(q: float | None) -> str:
    """q with 2 decimals; a q just below 1 (unresolved) never reads 1.00."""
    if q is None:
        return "n/a"
    return fixed(q, 2) if q < 100 else f"{q:.3g}"


# --- sample size ---------------------------------------------------------------------------


def _sample_size_lines(r: Result) -> list[tuple[str, str]]:
    design = _DESIGN.get((r["design"], r["method"]), f"{r['design']} ({r['method']})")
    rows = [
        ("Design", design),
        ("Effect to detect", f"{_effect(r['effect'], r['design'])} ({_inputs(r)})"),
        ("Target", _target(r)),
        ("Items needed (N*)", _items(r["n"])),
    ]
    if r["n"] is not None and r["method"] != "exact":
        rows.append(("Unrounded N*", f"{r['n']:.6g}"))
    if r["achieved_power"] is not None:
        rows.append(("Power at N*", fixed(r["achieved_power"], 4)))
    return rows


def sample_size_text(r: Result) -> str:
    """'N* = 10,987 items ...' and the inputs."""
    head = f"N* = {_items(r['n'])} items " + (
        f"to detect {_effect(r['effect'], r['design'])} at {_target(r)}"
    )
    body = [f"  {k}: {v}" for k, v in _sample_size_lines(r)]
    return "\n".join([head, *body, *(f"  note: {n}" for n in r["notes"])])


def sample_size_markdown(r: Result) -> str:
    return _md_section("Sample size", _sample_size_lines(r), r["notes"])


# --- power analysis ------------------------------------------------------------------------


def _power_lines(r: Result) -> list[tuple[str, str]]:
    s = r["sample_size"]
    rows = _sample_size_lines(s)
    rows.insert(0, ("Inputs from", r["source"]))
    if r["n"] is not None:
        state = "resolved" if r["resolved"] else "unresolved"
        rows.append(
            (
                f"At n = {r['n']:,} items",
                f"power {fixed(r['power_at_n'], 3)}; smallest detectable difference "
                f"{_magnitude(r['detectable_effect'], s['design'])}; q = n/N* = "
                f"{_q(r['q'])} ({state})",
            )
        )
    u = r["unpaired"]
    if u is not None and u["paired"] is not None:
        rho = "" if u["rho"] is None else f" x (1 - rho {u['rho']:.2f})"
        rows.append(
            (
                "Unpaired shortcut",
                f"Cohen's h {u['h']:.4f}: {_items(u['per_arm'])} per arm; both arms{rho} = "
                f"{_items(u['shortcut'])}, {_q(u['ratio'])} x the paired N* "
                f"(per arm alone: {_q((u['per_arm'] or math.inf) / u['paired'])} x)",
            )
        )
    return rows


def _runs_rows(r: Result) -> list[list[str]]:
    runs = r["runs"]
    if runs is None:
        return []
    return [
        [str(row["runs"]), _items(row["n_required"]), _items(row["evaluations"])]
        for row in runs["rows"]
    ]


def power_text(r: Result) -> str:
    s = r["sample_size"]
    lines = [f"Power analysis: N* = {_items(s['n'])} items"]
    lines += [f"  {k}: {v}" for k, v in _power_lines(r)]
    runs = _runs_rows(r)
    if runs:
        lines.append("  Runs per item | items needed | model calls per model")
        lines += [f"  {a:>13} | {b:>12} | {c:>21}" for a, b, c in runs]
        limit = r["runs"]["n_limit"]
        lines.append(f"  with unlimited runs: {_items(limit)} items (item spread alone)")
    lines += [f"  note: {n}" for n in r["notes"]]
    lines += compared_lines(r, "  compared: ")
    return "\n".join(lines)


def power_markdown(r: Result) -> str:
    text = _md_section("Power analysis", _power_lines(r), r["notes"])
    runs = _runs_rows(r)
    if runs:
        text += "\n\n| runs per item | items needed | model calls per model |\n|---:|---:|---:|\n"
        text += "\n".join(f"| {a} | {b} | {c} |" for a, b, c in runs)
    return text + "".join(f"\n\n- compared: {md(line)}" for line in [compared(r)] if line)


# --- resolution of one pair ----------------------------------------------------------------


def _resolution_lines(r: Result) -> list[tuple[str, str]]:
    rows = [
        ("Items (N)", f"{r['n_items']:,}"),
        ("Observed difference", f"{_effect(r['effect'], r['design'])} ({_inputs(r)})"),
        ("Target", _target(r)),
        ("Items needed (N*)", _items(r["n_required"])),
        ("Resolution q = N/N*", _q(r["q"])),
        ("Smallest detectable difference", _magnitude(r["detectable_effect"], r["design"])),
    ]
    if r["design_effect"] is not None:
        rows.append(
            (
                "Clustered",
                f"design effect {r['design_effect']:.2f} (icc {r['icc']:.4f}, "
                f"{r['n_clusters']} clusters): N* {_items(r['n_required_clustered'])}, "
                f"q {_q(r['q_clustered'])}",
            )
        )
    rows.append(("Verdict", _resolution_verdict(r)))
    return rows


def _resolution_verdict(r: Result) -> str:
    clustered = " once clustering is accounted for" if r["design_effect"] is not None else ""
    if r["resolved"]:
        return (
            f"Resolved{clustered}: the benchmark is large enough to detect a difference of "
            f"this size with power {r['power']:g}."
        )
    return (
        f"Unresolved{clustered}: a difference this small needs more items than the "
        "comparison has; its sign is not established by this benchmark's size."
    )


def resolution_text(r: Result) -> str:
    lines = [f"q = N/N* = {_q(r['q'])}: {'RESOLVED' if r['resolved'] else 'UNRESOLVED'}"]
    lines += [f"  {k}: {v}" for k, v in _resolution_lines(r)]
    lines += [f"  note: {n}" for n in r["notes"]]
    lines += compared_lines(r, "  compared: ")
    return "\n".join(lines)


def resolution_markdown(r: Result) -> str:
    text = _md_section("Resolution", _resolution_lines(r), r["notes"])
    return text + "".join(f"\n\n- compared: {md(line)}" for line in [compared(r)] if line)


# --- benchmark -----------------------------------------------------------------------------

BENCHMARK_HEADER = (
    "candidate",
    "baseline",
    "items",
    "difference",
    "N*",
    "q",
    "deff",
    "q clustered",
    "adjusted p",
)


def _benchmark_rows(r: Result) -> list[list[str]]:
    rows = []
    for p in r["pairs"]:
        rows.append(
            [
                p["candidate"],
                p["baseline"],
                f"{p['n_items']:,}",
                _effect(p["effect"], r["design"]),
                _items(p["n_required"]),
                _q(p["q"]) + ("" if p["resolved"] else " (unresolved)"),
                "n/a" if p["design_effect"] is None else f"{p['design_effect']:.2f}",
                _q(p["q_clustered"])
                + ("" if p["resolved_clustered"] in (None, True) else " (unresolved)"),
                f"{p['p_adjusted']:.3g}",
            ]
        )
    return rows


def benchmark_summary(r: Result) -> list[str]:
    """The counts, one sentence each."""
    m = r["n_pairs"]
    which = "adjacent-rank" if r["which"] == "adjacent" else ""
    lines = [
        f"{r['n_unresolved']} of {m} {which} pairs unresolved at (alpha, power) = "
        f"({r['alpha']:g}, {r['power']:g})".replace("  ", " ")
    ]
    if r["n_unresolved_clustered"] is not None:
        lines.append(
            f"{r['n_unresolved_clustered']} of {m} under clustering by {r['n_clusters']} "
            "clusters (design effect)"
        )
    lines.append(
        f"{r['n_unresolved_family']} of {m} at the family level (Bonferroni alpha/{m}); "
        f"{r['n_not_significant']} of {m} not significant after {r['correction']}"
    )
    boot = r["bootstrap"]
    if boot:
        for key, label in (("unresolved", "unresolved"), ("unresolved_clustered", "clustered")):
            dist = ", ".join(f"{k}: {fixed(100 * v, 1, high=100.0)}%" for k, v in boot[key].items())
            lines.append(
                f"category bootstrap ({boot['n_resamples']:,} resamples of "
                f"{boot['n_clusters']} clusters{_seed(boot)}), {label} count: {dist}"
            )
    return lines


def _seed(boot: Result) -> str:
    seed = boot.get("seed")
    return "" if seed is None else f", seed {seed}"


def benchmark_text(r: Result) -> str:
    rows = _benchmark_rows(r)
    widths = [
        max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
        for i, h in enumerate(BENCHMARK_HEADER)
    ]
    table = [
        "  ".join(h.ljust(w) for h, w in zip(BENCHMARK_HEADER, widths, strict=True)),
        *("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows),
    ]
    head = f"Benchmark resolution: {len(r['models'])} models, {r['n_items']:,} items"
    return "\n".join([head, *benchmark_summary(r), "", *table, *text_footer(r)])


def benchmark_markdown(r: Result) -> str:
    lines = [f"### Benchmark resolution: {len(r['models'])} models, {r['n_items']:,} items", ""]
    lines += [f"- {md(s)}" for s in benchmark_summary(r)]
    lines += ["", "| " + " | ".join(BENCHMARK_HEADER) + " |", "|" + "---|" * len(BENCHMARK_HEADER)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in _benchmark_rows(r)]
    lines += markdown_footer(r)
    return "\n".join(lines)


# --- shared --------------------------------------------------------------------------------


def _md_section(title: str, rows: Sequence[tuple[str, str]], notes: Sequence[str]) -> str:
    lines = [f"### {title}", "", "| | |", "|---|---|"]
    lines += [f"| {md(k)} | {md(v)} |" for k, v in rows]
    lines += [f"\n- note: {md(n)}" for n in notes]
    return "\n".join(lines)


def _kv_table(
    heading: str, rows: Sequence[tuple[str, str]], notes: Sequence[str], **extra: Any
) -> tuple[str, dict[str, Any]]:
    return "table", {
        "heading": heading,
        "lead": extra.get("lead"),
        "plot": extra.get("plot"),
        "header": ("", ""),
        "rows": [list(row) for row in rows],
        "notes": list(notes),
    }


def _power_section(r: Result) -> tuple[str, dict[str, Any]]:
    s = r["sample_size"]
    plot = None
    if r["curve"]:
        vlines: list[float | tuple[float, str]] = []
        if s["n"] is not None:
            vlines.append((float(s["n"]), "N*"))
        if r["n"] is not None:
            vlines.append((float(r["n"]), "n"))
        plot = Markup(
            svg.lines(
                {"power": [(x, y) for x, y in r["curve"]]},
                x_label="items",
                y_label="power",
                title="power curve",
                hlines=[(float(s["power"]), "target")],
                vlines=vlines,
            )
        )
    rows = _power_lines(r) + [
        (f"{a} runs per item", f"{b} items, {c} model calls per model") for a, b, c in _runs_rows(r)
    ]
    return _kv_table(f"Power analysis: N* = {_items(s['n'])} items", rows, r["notes"], plot=plot)


SHORT_NAME = 15
"""The longest model name written into a pair's label in the resolution chart; with longer
names the models are numbered (#1 the top-ranked) and a key under the chart names them."""


def _benchmark_section(r: Result) -> tuple[str, dict[str, Any]]:
    keyed = any(len(name) > SHORT_NAME for name in r["models"])
    number = {name: f"#{i + 1}" for i, name in enumerate(r["models"])}
    forest_rows, named = [], set[str]()
    for p in r["pairs"]:
        half = 1.96 * p["sd"] / math.sqrt(p["n_items"]) if p["n_items"] > 1 else math.inf
        pair = (p["candidate"], p["baseline"])
        named.update(pair)
        forest_rows.append(
            svg.ForestRow(
                label=" - ".join(number[m] if keyed else m for m in pair),
                estimate=p["effect"],
                low=p["effect"] - half,
                high=p["effect"] + half,
                note=f"q = {_q(p['q'])}",
                emphasis=None if p["resolved"] else "unresolved",
            )
        )
    key = [(number[m], m) for m in r["models"] if m in named] if keyed else []
    unit = "pp" if r["design"] == "mcnemar" else ""
    title = "difference (candidate - baseline) with 95% Wald CI"
    plot = Markup(svg.forest(forest_rows, unit=unit, title=title, key=key))
    return "table", {
        "heading": f"Benchmark resolution: {len(r['models'])} models",
        "lead": "; ".join(benchmark_summary(r)) + ".",
        "plot": plot,
        "header": BENCHMARK_HEADER,
        "rows": [
            [name_cell(a), name_cell(b), *map(number_cell, rest)]
            for a, b, *rest in _benchmark_rows(r)
        ],
        "notes": list(r["notes"]),
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section(
        "sample-size", lambda r: _kv_table("Sample size", _sample_size_lines(r), r["notes"])
    )
    register_section("power", _power_section)
    register_section(
        "resolution",
        lambda r: _kv_table(f"Resolution: q = {_q(r['q'])}", _resolution_lines(r), r["notes"]),
    )
    register_section("benchmark-resolution", _benchmark_section)


_register()
