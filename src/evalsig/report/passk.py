"""Renderings of pass@k results, from their JSON forms: estimates (``"pass-at-k"``), paired
comparisons (``"pass-at-k-comparison"``) and plans (``"pass-at-k-power"``).

Text and markdown share the rows of one table; HTML sections are registered on import (and
by :func:`register`, which results call before rendering a notebook fragment).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md, verdict
from evalsig.report.formatting import difference, name_cell, number_cell, pvalue, score
from evalsig.report.markdown import markdown_table
from evalsig.report.provenance import compared_lines, models
from evalsig.report.provenance import title as models_title

__all__ = [
    "comparison_markdown",
    "comparison_text",
    "estimates_markdown",
    "estimates_text",
    "plan_markdown",
    "plan_text",
]

Result = Mapping[str, Any]


def _name(r: Result, k: int) -> str:
    """'pass@5', 'pass^5', 'majority@5'."""
    return str(r["estimator"]).replace("k", str(k))


def _pct(value: float | None) -> str:
    return "n/a" if value is None else score(float(value), percent=True)


def _pp(value: float | None) -> str:
    """An unsigned size on the percent scale: '1.61 pp'."""
    return "n/a" if value is None else f"{100 * float(value):.2f} pp"


def _signed(value: float | None) -> str:
    return "undefined" if value is None else difference(float(value), percent=True)


def _bound(value: float | None, side: float) -> float:
    return math.copysign(math.inf, side) if value is None else float(value)


def _samples(s: Mapping[str, int]) -> str:
    low, high = s["min"], s["max"]
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def _ties(r: Result) -> str:
    if r["ties"] is None:
        return ""
    return "; a tie counts 1/2" if r["ties"] == "half" else "; a tie counts as a failure"


def _interval(row: Result, alternative: str = "two-sided") -> str:
    ci = row["ci"]
    low, high = _bound(ci["low"], -1), _bound(ci["high"], 1)
    level = f"{100 * ci['confidence_level']:g}%"

    def shown(x: float, signed: bool) -> str:
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        return f"{100 * x:+.2f}" if signed else f"{100 * x:.2f}%"

    if alternative == "greater":
        return f"{level} lower bound {shown(low, True)} pp"
    if alternative == "less":
        return f"{level} upper bound {shown(high, True)} pp"
    if "baseline" in row:
        return f"{level} CI {shown(low, True)} to {shown(high, True)} pp"
    return f"{level} CI {shown(low, False)} to {shown(high, False)}"


def _task_count(row: Result) -> str:
    """'120', '120 in 24 clusters', '118 (2 left out)'."""
    text = f"{row['n_tasks']:,}"
    if row.get("n_clusters") is not None:
        text += f" in {row['n_clusters']:,} clusters"
    return text + (f" ({row['n_dropped']:,} left out)" if row["n_dropped"] else "")


def _sentences(lines: Sequence[str]) -> str:
    """Lines as one paragraph, each ending with a full stop."""
    return " ".join(line if line.endswith(".") else f"{line}." for line in lines)


def _notes(r: Result) -> list[str]:
    """The result's notes, then each row's, prefixed with its estimator."""
    out = list(r["notes"])
    for row in r["rows"]:
        out += [f"{_name(r, row['k'])}: {note}" for note in row["notes"]]
    return out


def _draws(r: Result) -> str | None:
    draws = [row["n_resamples"] for row in r["rows"] if row["n_resamples"]]
    if not draws:
        return None
    seed = "unknown (a numpy Generator was passed)" if r["seed"] is None else str(r["seed"])
    return f"{max(draws):,} resamples, seed {seed} (pass it as --seed / rng= to reproduce)"


# --- one model -----------------------------------------------------------------------------

ESTIMATES_HEADER = (
    "k",
    "estimate",
    "interval",
    "SE",
    "SE within tasks",
    "SE, unlimited samples",
    "tasks",
)


def _estimate_rows(r: Result) -> list[list[str]]:
    return [
        [
            _name(r, row["k"]),
            _pct(row["estimate"]),
            _interval(row),
            _pp(row["se"]),
            _pp(row["se_within"]),
            _pp(row["se_limit"]),
            _task_count(row),
        ]
        for row in r["rows"]
    ]


def _estimates_title(r: Result) -> str:
    model = models(r).get("scores", "scores")
    who = "" if model == "scores" else f" of {model}"
    return (
        f"{r['estimator']}{who} over {r['n_tasks']:,} tasks "
        f"({_samples(r['samples'])} samples per task{_ties(r)})"
    )


def _methods(r: Result) -> list[str]:
    """'method: ...' once when every k used the same, else one line per k."""
    reasons = [row["method_reason"] for row in r["rows"]]
    if len(set(reasons)) == 1:
        return [f"method: {reasons[0]}"]
    return [f"method: {_name(r, row['k'])}: {row['method_reason']}" for row in r["rows"]]


def _estimates_lines(r: Result) -> list[str]:
    lines = _methods(r)
    lines.append(
        "SE within tasks: the part of the SE due to each task's own sampling; SE, unlimited "
        "samples: what remains with infinitely many samples per task (more samples buy at "
        "most the difference)."
    )
    draws = _draws(r)
    if draws:
        lines.append(f"resampling: {draws}")
    lines += compared_lines(r)
    return lines


def estimates_text(r: Result) -> str:
    """A title, the table (one row per k), the method and the notes."""
    return _text(_estimates_title(r), ESTIMATES_HEADER, _estimate_rows(r), _estimates_lines(r), r)


def estimates_markdown(r: Result) -> str:
    return markdown_table(
        _estimates_title(r),
        ESTIMATES_HEADER,
        _estimate_rows(r),
        lines=_estimates_lines(r),
        notes=_notes(r),
    )


def _estimates_section(r: Result) -> tuple[str, dict[str, Any]]:
    forest_rows = [
        svg.ForestRow(
            label=_name(r, row["k"]),
            estimate=float(row["estimate"]),
            low=_bound(row["ci"]["low"], -1),
            high=_bound(row["ci"]["high"], 1),
        )
        for row in r["rows"]
    ]
    plot = svg.forest(
        forest_rows, reference=math.nan, unit="pp", signed=False, title="estimate and interval"
    )
    table = [
        [name_cell(shown[0]), number_cell(shown[1], row["estimate"]), *shown[2:]]
        for shown, row in zip(_estimate_rows(r), r["rows"], strict=True)
    ]
    return "table", {
        "heading": _estimates_title(r),
        "lead": _sentences([x for x in _estimates_lines(r) if not x.startswith("compared")]),
        "plot": Markup(plot),
        "header": ESTIMATES_HEADER,
        "rows": table,
        "notes": _notes(r),
    }


# --- two models ----------------------------------------------------------------------------

COMPARISON_HEADER = (
    "k",
    "baseline",
    "candidate",
    "difference",
    "interval",
    "p-value",
    "SE",
    "SE within tasks",
    "SE, unlimited samples",
    "tasks",
    "method",
)


def _comparison_rows(r: Result) -> list[list[str]]:
    return [
        [
            _name(r, row["k"]),
            _pct(row["baseline"]),
            _pct(row["candidate"]),
            _signed(row["estimate"]),
            _interval(row, r["alternative"]),
            pvalue(math.nan if row["pvalue"] is None else float(row["pvalue"])),
            _pp(row["se"]),
            _pp(row["se_within"]),
            _pp(row["se_limit"]),
            _task_count(row),
            row["method"],
        ]
        for row in r["rows"]
    ]


def verdicts(r: Result) -> list[str]:
    """One sentence per k that says what the data show, and no more."""
    return [
        f"{_name(r, row['k'])}: "
        + verdict(
            {
                "ci": row["ci"],
                "pvalue": row["pvalue"],
                "estimate": row["estimate"],
                "percent_scale": True,
                "alternative": r["alternative"],
            }
        )
        for row in r["rows"]
    ]


def _comparison_title(r: Result) -> str:
    s = r["samples"]
    b, c = _samples(s["baseline"]), _samples(s["candidate"])
    sizes = f"{b} samples per task" if b == c else f"{b} and {c} samples per task"
    who = models_title(r, "candidate vs baseline")
    return f"{r['estimator']}, {who}: paired over {r['n_tasks']:,} tasks ({sizes}{_ties(r)})"


def _comparison_lines(r: Result) -> list[str]:
    lines = _methods(r)
    if len(r["rows"]) > 1:
        lines.append("p-values are per k, not corrected for testing several k.")
    draws = _draws(r)
    if draws:
        lines.append(f"resampling: {draws}")
    dropped = r["n_dropped"]
    if dropped["only_baseline"] or dropped["only_candidate"]:
        lines.append(
            f"tasks on one side only, left out: {dropped['only_baseline']:,} (baseline), "
            f"{dropped['only_candidate']:,} (candidate)"
        )
    lines += compared_lines(r)
    return lines


def comparison_text(r: Result) -> str:
    """Verdicts, the table (one row per k), the methods and the notes."""
    body = _text(
        _comparison_title(r), COMPARISON_HEADER, _comparison_rows(r), _comparison_lines(r), r
    )
    head, _, rest = body.partition("\n")
    return "\n".join([*verdicts(r), "", head, rest])


def comparison_markdown(r: Result) -> str:
    table = markdown_table(
        _comparison_title(r),
        COMPARISON_HEADER,
        _comparison_rows(r),
        lines=_comparison_lines(r),
        notes=_notes(r),
    )
    head, _, rest = table.partition("\n\n")
    return "\n\n".join([head, *(f"**{md(v)}**" for v in verdicts(r)), rest])


def _comparison_section(r: Result) -> tuple[str, dict[str, Any]]:
    forest_rows = []
    for row in r["rows"]:
        low, high = _bound(row["ci"]["low"], -1), _bound(row["ci"]["high"], 1)
        significant = (
            row["pvalue"] is not None and row["pvalue"] <= 1 - row["ci"]["confidence_level"]
        )
        forest_rows.append(
            svg.ForestRow(
                label=_name(r, row["k"]),
                estimate=math.nan if row["estimate"] is None else float(row["estimate"]),
                low=low,
                high=high,
                note=row["method"],
                emphasis=("pass" if row["estimate"] > 0 else "fail") if significant else None,
            )
        )
    plot = svg.forest(forest_rows, unit="pp", title="candidate - baseline, per k")
    table = [
        [
            name_cell(shown[0]),
            *shown[1:3],
            number_cell(shown[3], row["estimate"]),
            shown[4],
            number_cell(shown[5], row["pvalue"]),
            *shown[6:],
        ]
        for shown, row in zip(_comparison_rows(r), r["rows"], strict=True)
    ]
    lines = [line for line in _comparison_lines(r) if not line.startswith("compared")]
    return "table", {
        "heading": _comparison_title(r),
        "lead": _sentences(verdicts(r) + lines),
        "plot": Markup(plot),
        "header": COMPARISON_HEADER,
        "rows": table,
        "notes": _notes(r),
    }


# --- plans ---------------------------------------------------------------------------------

PLAN_HEADER = ("samples per task", "SD of a task's difference", "tasks needed (N*)", "model calls")


def _tasks(n: float | None) -> str:
    return "no finite number" if n is None else f"{math.ceil(n - 1e-9):,}"


def _plan_rows(r: Result) -> list[list[str]]:
    return [
        [
            f"{row['samples']:,}",
            f"{row['sd']:.4f}",
            _tasks(row["n_required"]),
            _tasks(row["evaluations"]),
        ]
        for row in r["rows"]
    ]


def _plan_title(r: Result) -> str:
    return (
        f"Tasks needed to detect {_signed(r['effect'])} in {_name(r, r['k'])} "
        f"(alpha {r['alpha']:g} {r['alternative']}, power {r['power']:g})"
    )


def _plan_lines(r: Result) -> list[str]:
    lines = [
        f"with unlimited samples per task: {_tasks(r['n_limit'])} tasks (the spread of the "
        f"tasks' true differences alone, SD {r['sd_between']:.4f}); model calls are per model.",
    ]
    if r["pilot_tasks"] is not None:
        lines.append(
            f"from a pilot of {r['pilot_tasks']:,} tasks ({_samples(r['pilot_samples'])} "
            f"samples per task): observed difference {_signed(r['pilot_effect'])}, SD of "
            f"per-task differences {r['sd_observed']:.4f}"
        )
    lines += compared_lines(r)
    return lines


def plan_text(r: Result) -> str:
    return _text(_plan_title(r), PLAN_HEADER, _plan_rows(r), _plan_lines(r), r, notes=r["notes"])


def plan_markdown(r: Result) -> str:
    return markdown_table(
        _plan_title(r), PLAN_HEADER, _plan_rows(r), lines=_plan_lines(r), notes=r["notes"]
    )


def _plan_section(r: Result) -> tuple[str, dict[str, Any]]:
    points = [
        (float(row["samples"]), float(row["n_required"]))
        for row in r["rows"]
        if row["n_required"] is not None
    ]
    limit = r["n_limit"]
    plot = svg.lines(
        {"tasks needed": points},
        x_label="samples per task",
        y_label="tasks needed (N*)",
        title="tasks needed as samples per task grow",
        hlines=[] if limit is None else [(float(limit), "unlimited samples")],
        y_include=[0.0],
    )
    table = [
        [number_cell(shown[0], row["samples"]), shown[1], number_cell(shown[2], row["n_required"]),
         number_cell(shown[3], row["evaluations"])]
        for shown, row in zip(_plan_rows(r), r["rows"], strict=True)
    ]  # fmt: skip
    lines = [line for line in _plan_lines(r) if not line.startswith("compared")]
    return "table", {
        "heading": _plan_title(r),
        "lead": _sentences(lines),
        "plot": Markup(plot),
        "header": PLAN_HEADER,
        "rows": table,
        "notes": list(r["notes"]),
    }


# --- shared --------------------------------------------------------------------------------


def _text(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    lines: Sequence[str],
    r: Result,
    *,
    notes: Sequence[str] | None = None,
) -> str:
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    table = [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [list(header), *rows]
    ]
    shown = _notes(r) if notes is None else list(notes)
    return "\n".join(
        [title, *table, *(f"  {line}" for line in lines), *(f"  note: {n}" for n in shown)]
    )


def _register() -> None:
    """Register the HTML sections of the three result kinds (idempotent)."""
    from evalsig.report.sections import register_section

    register_section("pass-at-k", _estimates_section)
    register_section("pass-at-k-comparison", _comparison_section)
    register_section("pass-at-k-power", _plan_section)


_register()
