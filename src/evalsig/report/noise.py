"""Renderings of a benchmark's noise diagnostics (kind "benchmark-noise"), from its JSON form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.formatting import name_cell, number_cell
from evalsig.report.markdown import markdown_table, markdown_text
from evalsig.report.provenance import compared_lines

__all__ = ["MODEL_HEADER", "OPTION_HEADER", "noise_markdown", "noise_summary", "noise_text"]

Result = Mapping[str, Any]

MODEL_HEADER = ("model", "mean", "runs", "item var", "run var", "SE", "run SD of score")
OPTION_HEADER = ("items", "runs", "model calls", "SE of a score", "MDE (paired)")


def _num(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}g}"


def _undefined(name: str, nulls: Mapping[str, str]) -> str:
    """'undefined' for a number the JSON gives as null for a reason (see the notes)."""
    return "undefined" if name in nulls else "n/a"


def _runs(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def noise_summary(r: Result) -> list[str]:
    """The benchmark-level lines: components, signal and noise, MDE, what to add."""
    nulls = r["nulls"]
    lines = [
        f"{r['n_models']} models, {r['n_items']:,} items, {_runs(r['runs'])} runs per item "
        "on average",
        f"item variance {_num(r['item_variance'])}, run-to-run variance "
        + (_num(r["run_variance"]) if r["run_variance"] is not None else "not separated"),
    ]
    signal = "n/a" if r["signal"] is None else f"{100 * r['signal']:.2f}%"
    noise = "n/a" if r["noise"] is None else f"{100 * r['noise']:.2f}%"
    snr = _num(r["snr"], 3) if r["snr"] is not None else _undefined("snr", nulls)
    if r["run_variance"] is None:
        snr = "n/a"
    lines.append(
        f"signal (spread {_num(r['spread'])} / mean) {signal}, noise (run SD of a score "
        f"{_num(r['noise_sd'])} / mean) {noise}, SNR {snr}"
    )
    lines.append(
        f"smallest paired difference resolved (MDE, alpha {r['alpha']:g}, power "
        f"{r['power']:g}): "
        + (_num(r["mde"]) if r["mde"] is not None else _undefined("mde", nulls))
    )
    if r["better"] is not None:
        lines.append(
            f"per model call, one more item lowers a score's SE by {_num(r['gain_per_item'], 3)}"
            f", one more run of every item by {_num(r['gain_per_run'], 3)}: add {r['better']}"
        )
    return lines


def _model_rows(r: Result) -> list[list[str]]:
    return [
        [
            m["model"],
            _num(m["mean"]),
            _runs(m["runs"]),
            _num(m["item_variance"]) + (" (set to 0)" if m["truncated"] else ""),
            _num(m["run_variance"]),
            _num(m["se"]),
            _num(m["noise_sd"]),
        ]
        for m in r["models"]
    ]


def _option_rows(r: Result) -> list[list[str]]:
    return [
        [
            f"{o['n_items']:,}",
            str(o["runs"]),
            f"{o['evaluations']:,}",
            _num(o["se"]),
            _num(o["mde"]) if o["mde"] is not None else _undefined("options.mde", r["nulls"]),
        ]
        for o in r["options"]
    ]


def _tradeoff_lines(r: Result) -> list[str]:
    t = r["tradeoff"]
    if t is None:
        return []
    cells = [
        f"{row['runs']} run{'' if row['runs'] == 1 else 's'}: "
        + ("no finite number" if row["n_items"] is None else f"{row['n_items']:,}")
        for row in t["rows"]
    ]
    return [f"items needed to resolve a difference of {_num(t['effect'])}: " + "; ".join(cells)]


def _columns(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    return [
        "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)),
        *("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows),
    ]


def noise_text(r: Result) -> str:
    """Plain text: the summary, the per-model table, the design options and notes."""
    out = ["Benchmark noise", *(f"  {line}" for line in noise_summary(r)), ""]
    out += _columns(MODEL_HEADER, _model_rows(r))
    options = _option_rows(r)
    if options:
        out += ["", "Design options (pooled components):", *_columns(OPTION_HEADER, options)]
    out += _tradeoff_lines(r)
    out += [f"note: {n}" for n in r["notes"]]
    out += compared_lines(r)
    return "\n".join(out)


def noise_markdown(r: Result) -> str:
    """GitHub markdown: the same tables, every user string escaped."""
    parts = [
        markdown_table(
            "Benchmark noise", MODEL_HEADER, _model_rows(r), lines=noise_summary(r), notes=()
        )
    ]
    options = _option_rows(r)
    if options:
        parts.append(markdown_table("Design options", OPTION_HEADER, options))
    lines = _tradeoff_lines(r) + compared_lines(r)
    parts += [markdown_text(line) for line in lines]
    if r["notes"]:
        parts.append("\n".join(f"- note: {markdown_text(n)}" for n in r["notes"]))
    return "\n\n".join(parts)


def _plot(r: Result) -> Markup | None:
    """SE of a model's score against items, one line per number of runs."""
    if not r["options"]:
        return None
    series: dict[str, list[tuple[float, float]]] = {}
    for o in r["options"]:
        series.setdefault(f"{o['runs']} runs", []).append((float(o["n_items"]), o["se"]))
    return Markup(
        svg.lines(
            series,
            x_label="items",
            y_label="SE of a model's score",
            title="standard error by items and runs",
            vlines=[(float(r["n_items"]), "now")],
        )
    )


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    options = [
        f"{o['n_items']:,} items x {o['runs']} runs ({o['evaluations']:,} calls): SE "
        f"{row[3]}, MDE {row[4]}"
        for o, row in zip(r["options"], _option_rows(r), strict=True)
    ]
    return "table", {
        "heading": f"Benchmark noise: {r['n_models']} models, {r['n_items']:,} items",
        "lead": "; ".join(noise_summary(r)) + ".",
        "plot": _plot(r),
        "header": MODEL_HEADER,
        "rows": [[name_cell(row[0]), *(number_cell(c) for c in row[1:])] for row in _model_rows(r)],
        "notes": options + _tradeoff_lines(r) + list(r["notes"]),
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("benchmark-noise", _section)


_register()
