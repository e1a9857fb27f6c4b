"""Renderings of a paired comparison, from its JSON form (``ComparisonResult.to_dict()``).

Working from the JSON means a saved result renders exactly as a fresh one:
``evalsig report result.json`` and ``evalsig compare ... --format html`` share this code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalsig.report import formatting as fmt
from evalsig.report.markdown import md
from evalsig.report.provenance import compared, compared_lines
from evalsig.report.provenance import title as models_title
from evalsig.report.summary import Summary

__all__ = ["as_markdown", "as_text", "md", "one_line", "resolution", "verdict"]

Result = Mapping[str, Any]


def _bound(value: float | None, side: float) -> float:
    """A JSON bound: null stands for an unbounded side (``side`` = -1 low, +1 high)."""
    return math.copysign(math.inf, side) if value is None else float(value)


def _p(r: Result) -> float:
    return math.nan if r["pvalue"] is None else float(r["pvalue"])


def _ci(r: Result) -> tuple[float, float, float]:
    ci = r["ci"]
    return _bound(ci["low"], -1), _bound(ci["high"], 1), float(ci["confidence_level"])


def _interval(r: Result) -> str:
    low, high, level = _ci(r)
    return fmt.interval(low, high, level, percent=r["percent_scale"], alternative=r["alternative"])


def _diff(r: Result, value: float | None) -> str:
    return fmt.difference(math.nan if value is None else value, percent=r["percent_scale"])


def sizes(r: Result) -> str:
    """'n = 4,000 items x 8 runs in 14 clusters'."""
    runs = r["n_runs"]
    b, c = runs["baseline"], runs["candidate"]
    text = f"n = {r['n_items']:,} items"
    if (b, c) != (1, 1):
        unit = "cells" if r["method"] == "facets" else "runs"
        text += f" x {b if b == c else f'{b}/{c}'} {unit}"
    if r["n_clusters"] is not None:
        text += f" in {r['n_clusters']:,} clusters"
    if r.get("n_strata") is not None:
        text += f" in {r['n_strata']:,} strata"
    return text


def resampling(r: Result) -> str | None:
    """'10,000 resamples, seed 42 (pass it as --seed / rng= to reproduce)', if drawn at random."""
    if not r.get("n_resamples"):
        return None
    seed = r.get("seed")
    if seed is None:
        return f"{r['n_resamples']:,} resamples; seed unknown (a numpy Generator was passed)"
    return f"{r['n_resamples']:,} resamples, seed {seed} (pass it as --seed / rng= to reproduce)"


def one_line(r: Result) -> str:
    """'candidate - baseline = +1.17 pp (95% CI +0.65 to +1.69 pp), p < 0.0001 [method, n]'."""
    return (
        f"candidate - baseline = {_diff(r, r['estimate'])} ({_interval(r)}), "
        f"{fmt.pvalue(_p(r))} [{r['method']}, {sizes(r)}]"
    )


def verdict(r: Result, alpha: float | None = None) -> str:
    """One sentence that says what the data show, and no more."""
    low, high, level = _ci(r)
    a = 1.0 - level if alpha is None else alpha
    p = _p(r)
    if math.isnan(p):
        return "No p-value could be computed for these data (see the notes)."
    if p <= a:
        who = "better" if (r["estimate"] or 0) > 0 else "worse"
        return (
            f"The candidate is {who} than the baseline by {_diff(r, r['estimate'])} "
            f"({_interval(r)}, {fmt.pvalue(p)}; significant at alpha = {a:g})."
        )
    percent = r["percent_scale"]
    lo, hi = fmt.difference(low, percent=percent), fmt.difference(high, percent=percent)
    tag = f"{100 * level:g}%"
    if r["alternative"] == "greater":
        claim, room = "that the candidate is better", f"as low as {lo} ({tag} lower bound)"
    elif r["alternative"] == "less":
        claim, room = "that the candidate is worse", f"as high as {hi} ({tag} upper bound)"
    else:
        claim, room = "a difference", f"anywhere from {lo} to {hi} ({tag} CI)"
    return (
        f"Not significant at alpha = {a:g}: the data do not show {claim} ({fmt.pvalue(p)}); "
        f"the true difference could be {room}."
    )


def resolution(r: Result, power: float = 0.8) -> str | None:
    """The smallest difference this comparison detects with ``power``, from its standard error.

    ``(z_{1-alpha/2} + z_{power}) * se`` (one-sided: ``z_{1-alpha}``), a normal approximation.
    """
    se = r.get("se")
    if se is None or not se > 0:
        return None
    from scipy import special

    level = float(r["ci"]["confidence_level"])
    tail = (1 - level) / (2 if r["alternative"] == "two-sided" else 1)
    mde = (float(special.ndtri(1 - tail)) + float(special.ndtri(power))) * float(se)
    size = fmt.difference(mde, percent=r["percent_scale"]).lstrip("+")
    return (
        f"differences smaller than about {size} are detected less than {100 * power:g}% of "
        "the time at this sample size"
    )


def as_text(r: Result) -> str:
    """A plain-text block: verdict, numbers, method and notes."""
    percent = r["percent_scale"]
    statistic = r["statistic"]
    stat = "undefined" if statistic is None else f"{statistic:.4g}"
    lines = [
        verdict(r),
        "",
        f"  baseline   {fmt.score(r['baseline_mean'], percent=percent)}",
        f"  candidate  {fmt.score(r['candidate_mean'], percent=percent)}",
        f"  difference {_diff(r, r['estimate'])}  ({_interval(r)})",
        f"  {fmt.pvalue(_p(r))} ({r['alternative']}); {r['statistic_name']} = {stat}"
        + (f", df = {r['df']:g}" if r["df"] is not None else ""),
        f"  method     {r['method']}: {r['method_reason']}",
        f"  data       {sizes(r)}"
        + (f"; discordant n01 = {r['n01']:,}, n10 = {r['n10']:,}" if r["n01"] is not None else ""),
    ]
    draws = resampling(r)
    if draws:
        lines.append(f"  resampling {draws}")
    lines += compared_lines(r, "  compared   ")
    if r["notes"]:
        lines.append("  notes")
        lines.extend(f"   - {note}" for note in r["notes"])
    return "\n".join(lines)


def as_markdown(r: Result, *, title: str | None = None) -> str:
    """The reporting template for a paper or pull request: claim, method, N, estimate with
    CI, p-value, resolution, what was compared, and a verdict that does not overstate the
    result. The title names the models ('candidate vs baseline') unless ``title`` is given."""
    return summary(r, title=title).as_markdown()


def summary(r: Result, *, title: str | None = None) -> Summary:
    """The reporting template as a :class:`~evalsig.report.summary.Summary` (text,
    markdown, HTML or LaTeX)."""
    percent = r["percent_scale"]
    claim = {
        "greater": "the candidate scores higher than the baseline (one-sided)",
        "less": "the candidate scores lower than the baseline (one-sided)",
        "two-sided": "the candidate and the baseline differ (two-sided)",
    }[r["alternative"]]
    rows = [
        ("Claim tested", claim),
        ("Method", f"{r['method']}: {r['method_reason']}"),
        ("Data", sizes(r)),
        ("Baseline", fmt.score(r["baseline_mean"], percent=percent)),
        ("Candidate", fmt.score(r["candidate_mean"], percent=percent)),
        ("Difference (candidate - baseline)", _diff(r, r["estimate"])),
        ("Interval", _interval(r)),
        ("p-value", f"{fmt.pvalue(_p(r))} (single test, no multiplicity correction)"),
    ]
    draws = resampling(r)
    if draws:
        rows.append(("Resampling", draws))
    reach = resolution(r)
    if reach:
        rows.append(("Resolution", reach))
    line = compared(r)
    if line:
        rows.append(("Compared", line))
    return Summary(
        title=title or models_title(r, ""),
        verdict=verdict(r),
        rows=tuple(rows),
        notes=tuple(r["notes"]),
    )
