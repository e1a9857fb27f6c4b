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
    ci = r["ci"]
    interval = (
        f"{ci['confidence_level']:.0%} CI {ci['low']:.4g} to {ci['high']:.4g} "
        f"(t on {r['df']:.3g} Satterthwaite df)"
        if r["df"] is not None and ci["low"] is not None
        else "no interval (no variance to spread)"
    )
    return [
        f"{what} {r['mean']:.4g}, SE {r['se']:.3g} over {r['n']:,} scores; facets: "
        + ", ".join(r["facets"]),
        interval,
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
    se = "SE of a model's score" if r["object_of_measurement"] else "SE"
    extra: tuple[str, ...] = ()
    if r["object_of_measurement"]:
        extra += ("G", "G interval", "Phi")
    if r["costs"]:
        extra += ("cost",)
    return (*r["facets"], "scores", se, "SE interval", "MDE", *extra)


def _range(low: float | None, high: float | None, digits: int = 3) -> str:
    return "n/a" if low is None or high is None else f"{low:.{digits}g} to {high:.{digits}g}"


def _design_row(r: Result, d: Mapping[str, Any], now: list[int]) -> list[str]:
    row = [
        *(f"{n:,}" + (" (now)" if d["levels"] == now else "") for n in d["levels"]),
        f"{d['scores']:,}",
        f"{d['se']:.3g}",
        _range(d["se_low"], d["se_high"]),
        "n/a" if d["mde"] is None else f"{d['mde']:.3g}",
    ]
    if r["object_of_measurement"]:
        row += [
            "n/a" if d["g"] is None else f"{d['g']:.3f}",
            _range(d["g_low"], d["g_high"]),
            "n/a" if d["phi"] is None else f"{d['phi']:.3f}",
        ]
    if r["costs"]:
        row.append(f"{d['cost']:,.6g}")
    return row


def _design_rows(r: Result) -> list[list[str]]:
    now = list(r["current"])
    rows = [_design_row(r, d, now) for d in r["designs"]]
    if r["allocation"] is not None:
        rows.append(_design_row(r, r["allocation"], now))
        rows[-1][len(now)] += " (chosen)"
    return rows


def _decision_lead(r: Result) -> list[str]:
    obj = r["object_of_measurement"]
    others = ", ".join(f for f in r["facets"] if f != obj)
    if obj:
        what = f"SE of one {obj}'s score, MDE of two {obj}s' difference, G and Phi"
    else:
        what = "SE of the " + ("paired difference" if r["estimand"] == "difference" else "score")
    lead = [
        f"{what} at other numbers of {others}; MDE two-sided at alpha {r['alpha']:g}, power "
        f"{r['power']:g}; intervals {r['confidence_level']:.0%} over the components' "
        "bootstrap resamples"
    ]
    if obj:
        lead.append(
            f"G: how well the design tells {obj}s apart (relative error); Phi: how well it "
            "fixes each one's score (absolute error)"
        )
    if r["costs"]:
        lead.append("costs: " + ", ".join(f"{k} {v:g} each" for k, v in r["costs"].items()))
    a = r["allocation"]
    if a is not None:
        goal = (
            f"least error for a budget of {r['budget']:,.6g}"
            if r["budget"] is not None
            else f"least cost for a half-width of {r['half_width']:.3g}"
        )
        chosen = ", ".join(f"{n:,} {f}" for f, n in zip(r["facets"], a["levels"], strict=True))
        spread = ""
        if r["allocation_low"] is not None:
            spread = "; over the resamples " + ", ".join(
                f"{f} {lo:,} to {hi:,}"
                for f, lo, hi in zip(
                    r["facets"], r["allocation_low"], r["allocation_high"], strict=True
                )
                if f != obj
            )
        cost = ""
        if r["half_width"] is not None and r["cost_low"] is not None:
            high = "unbounded" if r["cost_high"] is None else f"{r['cost_high']:,.6g}"
            cost = f"; cost needed {r['cost_low']:,.6g} to {high}"
        lead.append(f"{goal}: {chosen} (cost {a['cost']:,.6g}){spread}{cost}")
    return lead


def _decision_plot(r: Result) -> str | None:
    """SE against each facet's levels as a multiple of today's, the other facets as they
    are (the default designs)."""
    from evalsig.report import svg

    now = list(r["current"])
    series: dict[str, list[tuple[float, float]]] = {}
    for d in r["designs"]:
        changed = [i for i, (n, c) in enumerate(zip(d["levels"], now, strict=True)) if n != c]
        if len(changed) > 1:
            continue  # a design that changes two facets is on no facet's curve
        for i in changed or range(len(now)):  # today's design is on every curve
            if r["facets"][i] != r["object_of_measurement"]:
                series.setdefault(r["facets"][i], []).append((d["levels"][i] / now[i], d["se"]))
    series = {k: sorted(v) for k, v in series.items() if len(v) > 1}
    if not series:
        return None
    return svg.lines(
        series,
        x_label="levels, as a multiple of today's",
        y_label=_design_header(r)[len(now) + 1],
        title="standard error by design",
        vlines=[(1.0, "now")],
        y_include=[0.0],
    )


def decision_text(r: Result) -> str:
    """Plain text: one row a design."""
    return _text("Decision study", _decision_lead(r), _design_header(r), _design_rows(r), r)


def decision_markdown(r: Result) -> str:
    """GitHub markdown: the same table, every user string escaped."""
    return _markdown("Decision study", _decision_lead(r), _design_header(r), _design_rows(r), r)


def _decision_section(r: Result) -> tuple[str, dict[str, Any]]:
    from markupsafe import Markup

    plot = _decision_plot(r)
    return "table", {
        "heading": "Decision study",
        "lead": "; ".join(_decision_lead(r)) + ".",
        "plot": None if plot is None else Markup(plot),
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
