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


def _views(prefix: str = "as", *more: str, **named: str) -> dict[str, str]:
    """View names of a kind whose functions are ``<prefix>_text`` and ``<prefix>_markdown``
    (and ``<prefix>_<view>`` for each of ``more``), with ``named`` views named otherwise."""
    return {view: f"{prefix}_{view}" for view in ("text", "markdown", *more)} | named


KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "comparison": ("comparison", _views(line="one_line", summary="summary")),
    "score": ("score", _views("as", "html", line="one_line")),
    "gate": ("gate", _views()),
    "sample-size": ("power", _views("sample_size")),
    "power": ("power", _views("power")),
    "resolution": ("power", _views("resolution")),
    "benchmark-resolution": ("power", _views("benchmark")),
    "leaderboard": ("leaderboard", _views()),
    "leaderboard-tasks": ("leaderboard", _views("tasks")),
    "sequential": ("sequential", _views()),
    "meta-analysis": ("meta", _views()),
    "random-effects": ("meta", _views("random_effects")),
    "audit": ("audit", _views()),
    "claim-audit": ("audit", _views("claim")),
    "simulation": ("audit", _views("simulation")),
    "pass-at-k": ("passk", _views("estimates")),
    "pass-at-k-comparison": ("passk", _views("comparison")),
    "pass-at-k-power": ("passk", _views("plan")),
    "judge": ("judge", _views(summary="summary")),
    "arena": ("arena", _views(summary="summary")),
    "benchmark-noise": ("noise", _views("noise")),
    "variance-sources": ("facets", _views("sources")),
    "decision-study": ("facets", _views("decision")),
    "multiplicity": ("multiplicity", _views("as", "html")),
    "sign_test": ("aggregate", _views("sign_test", "html")),
    "dependence": ("aggregate", _views("dependence", "html")),
    "runs-tradeoff": ("plans", _views("runs_tradeoff")),
    "unpaired-shortcut": ("plans", _views("unpaired")),
    "gate-registration": ("plans", _views("registration")),
    "simultaneous": ("simultaneous", _views("as", "html")),
    "ingest": ("ingest", _views("as", "html")),
    "inference": ("inference", _views("as", "html", summary="summary")),
    **{kind: ("agreement", _views(summary=summary)) for kind, summary in _JUDGE_CHECKS.items()},
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
