"""Renderings of a leaderboard from its JSON form: ranks as groups and intervals."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.comparison import md
from evalsig.report.formatting import name_cell, number_cell
from evalsig.report.provenance import markdown_footer, text_footer

__all__ = ["as_markdown", "as_text", "header", "rows", "summary", "tasks_markdown", "tasks_text"]

Result = Mapping[str, Any]


def header(r: Result) -> tuple[str, ...]:
    """The table's column names; the score interval's at the board's confidence level."""
    level = f"{100 * r.get('confidence_level', 0.95):g}% CI"
    return (
        "rank",
        "model",
        "score",
        level,
        "tie group",
        "rank interval",
        "items compared (of input)",
    )


def _percent(r: Result) -> bool:
    return r["method"] in ("mcnemar",) or all(0 <= row["score"] <= 1 for row in r["rows"])


def _score(r: Result, value: float) -> str:
    return f"{100 * value:.2f}%" if _percent(r) else f"{value:.4g}"


def _score_interval(r: Result, row: Mapping[str, Any]) -> str:
    """'[71.20%, 75.10%]'; 'undefined' where a bound is null (see the nulls)."""
    low, high = row.get("score_low"), row.get("score_high")
    if low is None or high is None:
        return "undefined"
    return f"[{_score(r, low)}, {_score(r, high)}]"


def _interval(row: Mapping[str, Any]) -> str:
    low, high = row["rank_low"], row["rank_high"]
    text = str(low) if low == high else f"{low}-{high}"
    if "bootstrap_rank_low" in row:
        b_low, b_high = row["bootstrap_rank_low"], row["bootstrap_rank_high"]
        text += f" (bootstrap {b_low if b_low == b_high else f'{b_low}-{b_high}'})"
    return text


def rows(r: Result) -> list[list[str]]:
    """The table's cells, as shown."""
    return [
        [
            str(row["rank"]),
            row["model"],
            _score(r, row["score"]),
            _score_interval(r, row),
            str(row["group"]),
            _interval(row),
            _items(row),
        ]
        for row in r["rows"]
    ]


def _items(row: Mapping[str, Any]) -> str:
    """'12,032', or '10,294 of 12,032' when items were dropped."""
    compared, given = row["n_items"], row.get("n_input", row["n_items"])
    return f"{compared:,}" if compared == given else f"{compared:,} of {given:,}"


def _span(values: list[int]) -> str:
    return f"{values[0]:,}" if len(values) == 1 else f"{values[0]:,}-{values[-1]:,}"


def _coverage(r: Result) -> str:
    """How many items were compared, of how many each model had, and why any were left out."""
    compared = sorted({row["n_items"] for row in r["rows"]})
    given = sorted({row.get("n_input", row["n_items"]) for row in r["rows"]})
    text = f"Items compared: {_span(compared)} per model"
    if given != compared:
        text += f", of {_span(given)} in the inputs"
        if r.get("on_missing") == "intersect":
            text += " (on_missing='intersect': only the items every model has)"
    mismatched = r.get("n_mismatched", 0)
    if mismatched:
        how = {"exclude": "excluded", "keep": "compared anyway"}.get(r.get("on_mismatch", ""), "")
        text += f"; {mismatched:,} with differing content keys {how}".rstrip()
    return text + "."


def summary(r: Result) -> list[str]:
    """What the ranking does and does not show, one sentence each."""
    m, adjacent = r["n_models"], r["n_models"] - 1
    test = {
        "mcnemar": "McNemar's test",
        "paired-t": "paired t-tests on per-item means",
        "paired-t-adjusted": "paired t-tests on per-item means with Agresti-Min pseudo-items",
        "cluster": "cluster-robust (CR2) tests",
        "stratified": "stratified t-tests on per-item means",
        "aggregate": "z-tests of the mean over tasks",
    }.get(r["method"], r["method"])
    lines = [
        f"{m} models, {r['n_pairs']:,} pairs compared with {test}, {r['correction']} "
        f"correction at alpha = {r['alpha']:g}.",
        _coverage(r),
        f"{len(r['groups'])} tie groups; {r['n_separated_adjacent']} of {adjacent} adjacent "
        f"pairs differ significantly, {r['n_unresolved_adjacent']} of {adjacent} are below the "
        "benchmark's resolution (q < 1).",
        "Rank intervals hold for all models at once"
        + (" (Holm)." if r["correction"] == "holm" else " only under FWER control; BH gives FDR."),
    ]
    if r.get("n_resamples"):
        seed = r.get("seed")
        lines.append(
            f"Bootstrap: {r['n_resamples']:,} resamples, seed {seed} (rng= / --seed reproduces it)."
            if seed is not None
            else f"Bootstrap: {r['n_resamples']:,} resamples (no integer seed to record)."
        )
    return lines


def as_text(r: Result) -> str:
    table = rows(r)
    columns = header(r)
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(columns)]
    lines = [f"Leaderboard{': ' + r['task'] if r['task'] else ''}", *summary(r), ""]
    lines.append("  ".join(h.ljust(w) for h, w in zip(columns, widths, strict=True)))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in table]
    lines += text_footer(r)
    return "\n".join(lines)


def as_markdown(r: Result) -> str:
    title = f"### Leaderboard{': ' + md(r['task']) if r['task'] else ''}"
    lines = [title, "", *(f"- {md(s)}" for s in summary(r)), ""]
    columns = header(r)
    lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows(r)]
    lines += markdown_footer(r)
    return "\n".join(lines)


def tasks_text(r: Result) -> str:
    """The aggregate, then each task."""
    return "\n\n".join(as_text(board) for board in [r["aggregate"], *r["tasks"]])


def tasks_markdown(r: Result) -> str:
    return "\n\n".join(as_markdown(board) for board in [r["aggregate"], *r["tasks"]])


def _tasks_section(r: Result) -> tuple[str, dict[str, Any]]:
    macro, context = _section(r["aggregate"])
    per_task = [f"{board['task']}: " + " ".join(summary(board)) for board in r["tasks"]]
    context["notes"] = per_task + context["notes"]
    return macro, context


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    names = [row["model"] for row in r["rows"]]
    matrix = [[math.nan if v is None else v for v in row] for row in r["p_adjusted"]]
    heat = svg.heatmap(names, matrix, title=f"{r['correction']}-adjusted p-values", fmt="{:.2g}")
    forest_rows = [
        svg.ForestRow(
            label=f"{row['model']}",
            estimate=float(row["rank"]),
            low=float(row["rank_low"]),
            high=float(row["rank_high"]),
            note=_score(r, row["score"]),
        )
        for row in r["rows"]
    ]
    scores = svg.forest(  # each model's rank and its rank interval (1 = best): no false
        forest_rows,  # precision from a score drawn without its own interval
        reference=math.nan,
        unit="rank",
        title="rank intervals (1 = best)",
        signed=False,
    )
    table = [
        [shown[0], name_cell(shown[1]), number_cell(shown[2], row["score"]), *shown[3:]]
        for shown, row in zip(rows(r), r["rows"], strict=True)
    ]
    return "table", {
        "heading": f"Leaderboard{': ' + r['task'] if r['task'] else ''}",
        "lead": " ".join(summary(r)),
        "plot": Markup(scores + heat),
        "header": header(r),
        "rows": table,
        "notes": list(r["notes"]),
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("leaderboard", _section)
    register_section("leaderboard-tasks", _tasks_section)


_register()
