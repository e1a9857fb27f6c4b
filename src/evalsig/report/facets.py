"""Views of where a score's variance comes from (kind "variance-sources"), from its JSON form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalsig.report.formatting import name_cell, number_cell
from evalsig.report.markdown import markdown_table, markdown_text

__all__ = [
    "HEADER",
    "decision_markdown",
    "decision_text",
    "sources_lead",
    "sources_markdown",
    "sources_text",
]

Result = Mapping[str, Any]

HEADER = ("term", "variance", "interval", "levels", "share of a score's variance", "share of SE^2")


def _interval(t: Mapping[str, Any]) -> str:
    return "n/a" if t["low"] is None else f"{t['low']:.3g} to {t['high']:.3g}"


def _rows(r: Result) -> list[list[str]]:
    return [
        [
            t["term"],
            f"{t['variance']:.4g}",
            _interval(t),
            f"{t['levels']:,}",
            f"{100 * t['share_of_score_variance']:.1f}%",
            f"{100 * t['share_of_se']:.1f}%",
        ]
        for t in r["terms"]
    ]


def sources_lead(r: Result) -> list[str]:
    """What was decomposed, the estimate and its SE, and the largest source of the SE."""
    what = "paired difference" if r["estimand"] == "difference" else "score"
    top = max(r["terms"], key=lambda t: t["share_of_se"])
    return [
        f"{what} {r['mean']:.4g}, SE {r['se']:.3g} over {r['n']:,} scores; facets: "
        + ", ".join(r["facets"]),
        f"largest share of the SE: {top['term']} ({100 * top['share_of_se']:.1f}%)",
        f"method: {r['method']}"
        + (
            f"; intervals: parametric bootstrap, {r['n_resamples']} resamples, "
            f"{r['confidence_level']:.0%} percentile"
            if r["n_resamples"]
            else ""
        ),
    ]


def _text(
    title: str, lead: list[str], header: Sequence[str], rows: list[list[str]], r: Result
) -> str:
    """Plain text: the title and lead lines, the table in aligned columns, the notes."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    out = [title, *(f"  {line}" for line in lead), ""]
    out.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    out += [f"note: {n}" for n in r["notes"]]
    return "\n".join(out)


def _markdown(
    title: str, lead: list[str], header: Sequence[str], rows: list[list[str]], r: Result
) -> str:
    """GitHub markdown: the same table, every user string escaped, then the notes."""
    parts = [markdown_table(title, header, rows, lines=lead, notes=())]
    if r["notes"]:
        parts.append("\n".join(f"- note: {markdown_text(n)}" for n in r["notes"]))
    return "\n\n".join(parts)


def sources_text(r: Result) -> str:
    """Plain text: the lead lines, one row a term, the notes."""
    return _text("Where the variance comes from", sources_lead(r), HEADER, _rows(r), r)


def sources_markdown(r: Result) -> str:
    """GitHub markdown: the same table, every user string escaped."""
    return _markdown("Where the variance comes from", sources_lead(r), HEADER, _rows(r), r)


def _design_header(r: Result) -> tuple[str, ...]:
    return (*r["facets"], "scores a model", "SE", "SE interval", "MDE")


def _design_rows(r: Result) -> list[list[str]]:
    now = list(r["current"])
    return [
        [
            *(f"{n:,}" + (" (now)" if d["levels"] == now else "") for n in d["levels"]),
            f"{d['scores']:,}",
            f"{d['se']:.3g}",
            "n/a" if d["se_low"] is None else f"{d['se_low']:.3g} to {d['se_high']:.3g}",
            "n/a" if d["mde"] is None else f"{d['mde']:.3g}",
        ]
        for d in r["designs"]
    ]


def _decision_lead(r: Result) -> list[str]:
    what = "paired difference" if r["estimand"] == "difference" else "score"
    return [
        f"the {what}'s SE at other numbers of "
        + ", ".join(r["facets"])
        + f"; MDE two-sided at alpha {r['alpha']:g}, power {r['power']:g}; intervals "
        f"{r['confidence_level']:.0%} over the components' bootstrap resamples"
    ]


def decision_text(r: Result) -> str:
    """Plain text: one row a design."""
    return _text("Decision study", _decision_lead(r), _design_header(r), _design_rows(r), r)


def decision_markdown(r: Result) -> str:
    """GitHub markdown: the same table, every user string escaped."""
    return _markdown("Decision study", _decision_lead(r), _design_header(r), _design_rows(r), r)


def _decision_section(r: Result) -> tuple[str, dict[str, Any]]:
    return "table", {
        "heading": "Decision study",
        "lead": "; ".join(_decision_lead(r)) + ".",
        "plot": None,
        "header": _design_header(r),
        "rows": [[number_cell(c) for c in row] for row in _design_rows(r)],
        "notes": list(r["notes"]),
    }


def _section(r: Result) -> tuple[str, dict[str, Any]]:
    return "table", {
        "heading": "Where the variance comes from",
        "lead": "; ".join(sources_lead(r)) + ".",
        "plot": None,
        "header": HEADER,
        "rows": [[name_cell(row[0]), *(number_cell(c) for c in row[1:])] for row in _rows(r)],
        "notes": list(r["notes"]),
    }


def _register() -> None:
    from evalsig.report.sections import register_section

    register_section("variance-sources", _section)
    register_section("decision-study", _decision_section)


_register()
