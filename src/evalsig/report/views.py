"""Which report module draws each result kind's views, loaded when first asked for.

:func:`evalsig.result.render` calls :func:`load` the first time a kind's view is wanted;
it imports that kind's module alone (all of them would take a second: jinja2, the SVG
charts, scipy) and registers the views. HTML is the report's section of the kind
(:func:`evalsig.report.html.fragment`); a kind without a summary table of its own gets
:func:`evalsig.report.summary.generic`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

from evalsig.result import register_views

__all__ = ["KINDS", "load"]

_JUDGE_CHECKS = {
    "judge-agreement": "agreement_summary",
    "rater-agreement": "rater_agreement_summary",
    "judge-position-bias": "position_bias_summary",
    "judge-length-bias": "length_bias_summary",
    "judge-plan": "plan_summary",
}

KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "comparison": (
        "comparison",
        {"text": "as_text", "line": "one_line", "markdown": "as_markdown", "summary": "summary"},
    ),
    "score": (
        "score",
        {"text": "as_text", "line": "one_line", "markdown": "as_markdown", "html": "as_html"},
    ),
    "gate": ("gate", {"text": "as_text", "markdown": "as_markdown"}),
    "sample-size": ("power", {"text": "sample_size_text", "markdown": "sample_size_markdown"}),
    "power": ("power", {"text": "power_text", "markdown": "power_markdown"}),
    "resolution": ("power", {"text": "resolution_text", "markdown": "resolution_markdown"}),
    "benchmark-resolution": ("power", {"text": "benchmark_text", "markdown": "benchmark_markdown"}),
    "leaderboard": ("leaderboard", {"text": "as_text", "markdown": "as_markdown"}),
    "leaderboard-tasks": ("leaderboard", {"text": "tasks_text", "markdown": "tasks_markdown"}),
    "sequential": ("sequential", {"text": "as_text", "markdown": "as_markdown"}),
    "meta-analysis": ("meta", {"text": "as_text", "markdown": "as_markdown"}),
    "random-effects": (
        "meta",
        {"text": "random_effects_text", "markdown": "random_effects_markdown"},
    ),
    "audit": ("audit", {"text": "as_text", "markdown": "as_markdown"}),
    "claim-audit": ("audit", {"text": "claim_text", "markdown": "claim_markdown"}),
    "simulation": ("audit", {"text": "simulation_text", "markdown": "simulation_markdown"}),
    "pass-at-k": ("passk", {"text": "estimates_text", "markdown": "estimates_markdown"}),
    "pass-at-k-comparison": (
        "passk",
        {"text": "comparison_text", "markdown": "comparison_markdown"},
    ),
    "pass-at-k-power": ("passk", {"text": "plan_text", "markdown": "plan_markdown"}),
    "judge": ("judge", {"text": "as_text", "markdown": "as_markdown", "summary": "summary"}),
    "arena": ("arena", {"text": "as_text", "markdown": "as_markdown", "summary": "summary"}),
    "benchmark-noise": ("noise", {"text": "noise_text", "markdown": "noise_markdown"}),
    "multiplicity": (
        "multiplicity",
        {"text": "as_text", "markdown": "as_markdown", "html": "as_html"},
    ),
    "sign_test": (
        "aggregate",
        {"text": "sign_test_text", "markdown": "sign_test_markdown", "html": "sign_test_html"},
    ),
    "dependence": (
        "aggregate",
        {"text": "dependence_text", "markdown": "dependence_markdown", "html": "dependence_html"},
    ),
    "runs-tradeoff": (
        "plans",
        {"text": "runs_tradeoff_text", "markdown": "runs_tradeoff_markdown"},
    ),
    "unpaired-shortcut": ("plans", {"text": "unpaired_text", "markdown": "unpaired_markdown"}),
    "gate-registration": (
        "plans",
        {"text": "registration_text", "markdown": "registration_markdown"},
    ),
    "simultaneous": (
        "simultaneous",
        {"text": "as_text", "markdown": "as_markdown", "html": "as_html"},
    ),
    "ingest": ("ingest", {"text": "as_text", "markdown": "as_markdown", "html": "as_html"}),
    "inference": (
        "inference",
        {"text": "as_text", "markdown": "as_markdown", "html": "as_html", "summary": "summary"},
    ),
    **{
        kind: ("agreement", {"text": "as_text", "markdown": "as_markdown", "summary": summary})
        for kind, summary in _JUDGE_CHECKS.items()
    },
}
"""Each kind's module in :mod:`evalsig.report` and the names of its view functions (each
takes the result's ``to_dict()`` form). ``line``, the one-line ``str()`` of a comparison or
a score, falls back to ``text``."""


def load(kind: str) -> None:
    """Register the views of ``kind`` (an unknown kind registers nothing)."""
    if kind not in KINDS:
        return
    module_name, names = KINDS[kind]
    module = import_module(f"evalsig.report.{module_name}")
    views = {view: getattr(module, name) for view, name in names.items()}
    views.setdefault("line", views["text"])
    views.setdefault("html", _html)
    views.setdefault("summary", _generic_summary)
    register_views(kind, **views)


def _html(document: Mapping[str, Any]) -> str:
    from evalsig.report.html import fragment

    return fragment(document)


def _generic_summary(document: Mapping[str, Any]) -> Any:
    from evalsig.report.summary import generic

    return generic(document)
