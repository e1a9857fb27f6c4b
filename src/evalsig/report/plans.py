"""Views of the smaller planning results, from their JSON forms: the items needed at each
number of runs (kind "runs-tradeoff"), the unpaired calculator's shortcut beside the paired
N* (kind "unpaired-shortcut"), and a gate's pre-registration record (kind
"gate-registration")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalsig.report.markdown import markdown_table, markdown_text

__all__ = [
    "registration_markdown",
    "registration_text",
    "runs_tradeoff_markdown",
    "runs_tradeoff_text",
    "unpaired_markdown",
    "unpaired_text",
]

Result = Mapping[str, Any]

_HEADER = ("runs", "items (N*)", "evaluations")


def _count(value: float | None) -> str:
    """A count of items or calls; null is what no number of items reaches."""
    return "never" if value is None else f"{value:,.0f}"


def _design(r: Result) -> str:
    return f"power {r['power']:.0%} at alpha = {r['alpha']:g} ({r['alternative']})"


def _tradeoff_rows(r: Result) -> list[tuple[str, str, str]]:
    """Runs, items (N* rounded up) and the calls they cost (items x runs)."""
    return [
        (
            str(row["runs"]),
            _count(row["n_items"]),
            _count(None if row["n_items"] is None else row["n_items"] * row["runs"]),
        )
        for row in r["rows"]
    ]


def _tradeoff_title(r: Result) -> str:
    return (
        f"Items needed to detect {r['effect']:g} with {_design(r)}; item sd "
        f"{r['sd_between']:.4g}, run sd {r['sd_within']:.4g}"
    )


def runs_tradeoff_text(r: Result) -> str:
    rows = [_HEADER, *_tradeoff_rows(r)]
    widths = [max(len(row[c]) for row in rows) for c in range(3)]
    lines = [_tradeoff_title(r)]
    lines += [
        "  " + "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
    ]
    lines.append(f"with unlimited runs: N* = {_count(r['n_limit'])} items")
    return "\n".join(lines)


def runs_tradeoff_markdown(r: Result) -> str:
    limit = f"with unlimited runs: N* = {_count(r['n_limit'])} items"
    return markdown_table(_tradeoff_title(r), _HEADER, _tradeoff_rows(r), lines=[limit])


def unpaired_text(r: Result) -> str:
    rho = "" if r["rho"] is None else f" x (1 - rho = {r['rho']:.3g})"
    lines = [
        f"Unpaired calculator for {r['p_baseline']:.2%} vs {r['p_candidate']:.2%} "
        f"(Cohen's h = {r['h']:.4g}) with {_design(r)}:",
        f"  per arm {_count(r['per_arm'])}; reported as 2 x per arm{rho}: "
        f"{_count(r['shortcut'])} items",
    ]
    if r["paired"] is not None:
        ratio = "" if r["ratio"] is None else f" ({r['ratio']:.3g}x the paired N*)"
        lines.append(f"  paired N* (McNemar): {_count(r['paired'])} items{ratio}")
    return "\n".join(lines)


def unpaired_markdown(r: Result) -> str:
    first, *rest = unpaired_text(r).splitlines()
    return "\n".join(
        [f"**{markdown_text(first)}**", ""] + [f"- {markdown_text(line.strip())}" for line in rest]
    )


def _registration_lines(r: Result) -> list[str]:
    settings = ", ".join(f"{name} = {value}" for name, value in r["settings"].items())
    return [
        f"Gate policy {r['policy_name']!r} registered at {r['registered_at']} "
        f"(policy sha256 {r['policy_digest'][:12]}, evalsig {r['evalsig_version']})",
        f"family of {len(r['family'])} tasks: {', '.join(r['family'])}",
        f"settings: {settings}",
    ]


def registration_text(r: Result) -> str:
    return "\n".join(_registration_lines(r))


def registration_markdown(r: Result) -> str:
    first, *rest = _registration_lines(r)
    return "\n".join(
        [f"**{markdown_text(first)}**", ""] + [f"- {markdown_text(line)}" for line in rest]
    )
