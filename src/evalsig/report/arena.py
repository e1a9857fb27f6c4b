"""Views of an arena (Bradley-Terry) result: text, markdown, a summary table and the HTML
section (a forest plot of the scores with their rank intervals), all from ``to_dict()``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from evalsig.report import svg
from evalsig.report.formatting import name_cell, number_cell
from evalsig.report.markdown import markdown_table
from evalsig.report.provenance import compared_lines
from evalsig.report.summary import Summary

__all__ = ["as_markdown", "as_text", "section", "summary"]

Result = Mapping[str, Any]

HEADER = ("rank", "model", "score", "interval", "rank interval", "group", "battles")


def _number(value: float | None, r: Result) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1f}" if r["scale"] == "elo" else f"{value:.3f}"


def _rows(r: Result) -> list[list[str]]:
    out = []
    elo = r["online_elo"]
    for row in r["rows"]:
        low, high = row["rank_low"], row["rank_high"]
        cells = [
            str(row["rank"]),
            row["model"],
            f"{_number(row['score'], r)} (se {_number(row['se'], r)})",
            f"[{_number(row['ci']['low'], r)}, {_number(row['ci']['high'], r)}]",
            str(low) if low == high else f"{low}-{high}",
            str(row["group"]),
            f"{row['n_battles']:,}",
        ]
        if elo is not None:
            cells.append(f"{elo['ratings'][row['model']]:.1f}")
        out.append(cells)
    return out


def _header(r: Result) -> tuple[str, ...]:
    return HEADER + (("online Elo",) if r["online_elo"] is not None else ())


def _title(r: Result) -> str:
    unit = "Elo scale" if r["scale"] == "elo" else "logit scale"
    clusters = f", {r['n_clusters']:,} clusters" if r["n_clusters"] else ""
    return (
        f"Bradley-Terry scores ({unit}) of {r['n_models']:,} models from "
        f"{r['n_battles']:,} battles{clusters}"
    )


_NULL = {
    "normal": "",
    "multivariate-t": "multivariate t ",
    "cr2-studentized": "studentised CR2 ",
}


def _lines(r: Result) -> list[str]:
    level = f"{100 * r['confidence_level']:g}%"
    ties = (
        "ties count half a win each way"
        if r["ties"] == "half"
        else "ties by Davidson's model"
        + (
            f" (nu = {r['tie_parameter']['estimate']:.3f}, se {r['tie_parameter']['se']:.3f})"
            if r["tie_parameter"]
            else ""
        )
    )
    interval = r["interval"] + (
        f" ({r['n_resamples']:,} resamples)" if r["n_resamples"] is not None else ""
    )
    correction = r.get("cluster_correction")  # absent from results saved before CR2
    if correction == "CR2":
        dfs = [row["df"] for row in r["rows"] if row.get("df") is not None]
        span = f"{min(dfs):.1f}" if min(dfs) == max(dfs) else f"{min(dfs):.1f}-{max(dfs):.1f}"
        interval += f" (CR2; t intervals, Bell-McCaffrey df {span})" if dfs else " (CR2)"
    elif correction == "CR1":
        interval += " (CR1; normal intervals)"
    lines = [
        f"{level} intervals: {interval}; {ties}.",
        f"rank intervals and groups: max-T simultaneous {level} intervals of all pairwise "
        f"differences (critical value {r['critical_value']:.3f}, {r['n_draws']:,} "
        f"{_NULL[r.get('rank_null', 'normal')]}draws); "
        "a group's members cannot be told apart from its leader.",
    ]
    for c in r["covariates"]:
        lines.append(
            f"style control {c['name']}: {c['estimate']:+.4f} per unit (logit, se {c['se']:.4f})"
        )
    if r["online_elo"] is not None:
        lines.append(f"online Elo (K = {r['online_elo']['k']:g}): {r['online_elo']['note']}")
    lines += compared_lines(r)
    return lines


def as_text(r: Result) -> str:
    """The leaderboard as aligned text: title, table, method lines and notes."""
    header, rows = _header(r), _rows(r)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    table = [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [list(header), *rows]
    ]
    return "\n".join(
        [_title(r), *table, *(f"  {x}" for x in _lines(r)), *(f"  note: {n}" for n in r["notes"])]
    )


def as_markdown(r: Result) -> str:
    return markdown_table(_title(r), _header(r), _rows(r), lines=_lines(r), notes=r["notes"])


def summary(r: Result) -> Summary:
    """Model by model: score, interval and rank interval."""
    leaders = [row["model"] for row in r["rows"] if row["group"] == 1]
    verdict = (
        f"{leaders[0]} leads alone."
        if len(leaders) == 1
        else f"{len(leaders)} models share the lead: {', '.join(leaders)}."
    )
    rows = tuple((row[1], f"{row[2]}, {row[3]}, rank {row[4]}") for row in _rows(r))
    return Summary(title=_title(r), verdict=verdict, rows=rows, notes=tuple(r["notes"]))


def _bound(value: float | None, side: int) -> float:
    return side * math.inf if value is None else float(value)


def section(r: Result) -> tuple[str, dict[str, Any]]:
    """The HTML section: a forest plot of the scores, then the sortable table."""
    forest_rows = [
        svg.ForestRow(
            label=row["model"],
            estimate=math.nan if row["score"] is None else float(row["score"]),
            low=_bound(row["ci"]["low"], -1),
            high=_bound(row["ci"]["high"], 1),
            note=f"rank {row['rank_low']}-{row['rank_high']}, group {row['group']}",
        )
        for row in r["rows"]
    ]
    centre = 1000.0 if r["scale"] == "elo" else 0.0
    plot = svg.forest(
        forest_rows,
        reference=centre,
        unit="Elo" if r["scale"] == "elo" else "logit",
        title="scores with their intervals, best first",
        signed=False,
    )
    table: list[Sequence[Any]] = [
        [number_cell(shown[0], row["rank"]), name_cell(shown[1]),
         number_cell(shown[2], row["score"]), number_cell(shown[3], row["ci"]["low"]),
         *shown[4:]]
        for shown, row in zip(_rows(r), r["rows"], strict=True)
    ]  # fmt: skip
    return "table", {
        "heading": _title(r),
        "lead": " ".join(x for x in _lines(r) if not x.startswith("compared")),
        "plot": Markup(plot),
        "header": _header(r),
        "rows": table,
        "notes": list(r["notes"]),
    }


def _register() -> None:
    """Register the HTML section of kind 'arena' (idempotent)."""
    from evalsig.report.sections import register_section

    register_section("arena", section)


_register()
