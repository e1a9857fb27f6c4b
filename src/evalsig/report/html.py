"""Self-contained HTML reports: one file, inline CSS and SVG plots, no network fetches.

Every section is rendered from a result's JSON (``to_dict()``), so a saved result renders
exactly as a fresh one. Templates escape every string (Jinja2 autoescaping); plots are SVG
made by :mod:`evalsig.report.svg`, which escapes its own text. Tables sort on a click with
a few lines of inline script; the page works with scripts off too.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from evalsig import __version__, plugins
from evalsig.report import comparison as comparison_text
from evalsig.report import formatting as fmt
from evalsig.report import gate as gate_text
from evalsig.report import svg
from evalsig.report.provenance import compared
from evalsig.report.provenance import title as models_title
from evalsig.report.sections import SECTIONS as _SECTIONS
from evalsig.report.sections import register_section

__all__ = [
    "FRAGMENT_CLASS",
    "fragment",
    "load_plugins",
    "page",
    "register_section",
    "scoped_css",
    "section",
]

Result = Mapping[str, Any]


@cache
def _environment() -> jinja2.Environment:
    folder = resources.files("evalsig.report") / "templates"
    sources = {
        name: (folder / name).read_text(encoding="utf-8")
        for name in ("page.html.j2", "sections.html.j2", "style.css", "sort.js")
    }
    return jinja2.Environment(
        loader=jinja2.DictLoader(sources),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _macro(name: str) -> Callable[..., str]:
    module = _environment().get_template("sections.html.j2").module
    return getattr(module, name)  # type: ignore[no-any-return]


def page(results: Sequence[Result], *, title: str = "evalsig report", stamp: bool = True) -> str:
    """A complete HTML document with one section per result (in order)."""
    env = _environment()
    sections = [dict(section(r), anchor=f"result-{i + 1}") for i, r in enumerate(results)]
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if stamp else ""
    return env.get_template("page.html.j2").render(
        title=title,
        version=__version__,
        generated=generated,
        sections=sections,
        css=Markup(env.loader.get_source(env, "style.css")[0]),  # type: ignore[union-attr]
        script=Markup(env.loader.get_source(env, "sort.js")[0]),  # type: ignore[union-attr]
    )


FRAGMENT_CLASS = "evalsig"
"""The class of a fragment's wrapper ``div``; every rule of its styles starts with it."""

PAGE_ONLY = ("body", "h1", "nav", "footer", ".meta", "section.result", "table.sortable th")
"""Selectors of the page's own parts (and of click-sorting, which needs the page's script):
left out of a fragment's styles."""


def fragment(result: Result) -> str:
    """One result as an HTML fragment (for notebooks): the section without the page, with
    the report's styles scoped to the fragment's wrapper so they never restyle the page
    around it (a notebook's cells, other outputs)."""
    s = section(result)
    return f'<div class="{FRAGMENT_CLASS}"><style>{_fragment_css()}</style>{s["body"]}</div>'


@cache
def _fragment_css() -> str:
    """The page's style sheet with every selector scoped to ``div.evalsig``."""
    env = _environment()
    css = env.loader.get_source(env, "style.css")[0]  # type: ignore[union-attr]
    return scoped_css(css, f".{FRAGMENT_CLASS}", drop=PAGE_ONLY)


def scoped_css(css: str, scope: str, *, drop: Sequence[str] = ()) -> str:
    """``css`` with each selector prefixed by ``scope`` (``:root`` becomes the scope itself);
    selectors starting with one of ``drop`` are left out, and so are rules (and ``@media``
    blocks) left with none.

    >>> css = ":root { --x: 1; } a, body p { color: red; } @media print { a { x: y; } }"
    >>> print(scoped_css(css, ".s", drop=("body",)))
    .s { --x: 1; }
    .s a { color: red; }
    @media print { .s a { x: y; } }
    """
    out = []
    for head, body in _css_rules(css):
        if head.startswith("@"):
            inner = scoped_css(body, scope, drop=drop)
            if inner:
                out.append(f"{head} {{ {inner} }}")
            continue
        selectors = [s.strip() for s in head.split(",")]
        kept = [_scoped(s, scope) for s in selectors if not s.startswith(tuple(drop))]
        if kept:
            out.append(f"{', '.join(kept)} {{ {body.strip()} }}")
    return "\n".join(out)


def _scoped(selector: str, scope: str) -> str:
    if selector == ":root":
        return scope
    return f"{scope} {selector}"


def _css_rules(css: str) -> list[tuple[str, str]]:
    """``(selectors or @-rule, body)`` of each top-level rule, comments left out."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    rules, depth, start, head = [], 0, 0, ""
    for i, char in enumerate(css):
        if char == "{":
            if depth == 0:
                head, start = css[start:i].strip(), i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                rules.append((head, css[start:i]))
                start = i + 1
    return rules


def section(result: Result) -> dict[str, Any]:
    """The heading, kind and rendered body of one result. A plugin's view that fails
    shows the result as JSON instead, with a :class:`~evalsig.plugins.PluginWarning` naming
    the plugin and the error (a built-in view's failure is a bug, and raises)."""
    kind = str(result.get("kind", "unknown"))
    if kind not in _SECTIONS:
        load_plugins()  # views of later capabilities, then plugins' (once)
    build = _SECTIONS.get(kind)
    if build is None:
        return _raw(result, kind)
    if kind in _FROM_PLUGIN:
        try:
            macro, context = build(result)
            body = Markup(_macro(macro)(context))
            heading = str(context["heading"])
        except (Exception, SystemExit) as exc:  # a plugin's fault: the report goes on
            why = f"it called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else exc
            reason = f"The view from {_FROM_PLUGIN[kind]} failed ({type(exc).__name__}: {why})"
            warnings.warn(f"report section {kind!r}: {reason}.", plugins.PluginWarning, 2)
            return _raw(result, kind, reason)
    else:
        macro, context = build(result)
        body = Markup(_macro(macro)(context))
        heading = context["heading"]
    line = compared(result) if kind != "comparison" else None  # a comparison has its row
    if line:
        body += Markup('<p class="compared"><strong>Compared:</strong> {}</p>').format(line)
    return {"kind": kind, "heading": heading, "body": body}


def _raw(result: Result, kind: str, reason: str = "") -> dict[str, Any]:
    """A result shown as its JSON (no view of its kind, or a plugin's view failed)."""
    context = {
        "heading": f"Result of kind {kind!r}",
        "json": json.dumps(result, indent=2, allow_nan=False),
        "reason": reason,
    }
    return {"kind": "raw", "heading": context["heading"], "body": Markup(_macro("raw")(context))}


# --- comparison ----------------------------------------------------------------------------


def _comparison(r: Result) -> tuple[str, dict[str, Any]]:
    percent = r["percent_scale"]
    p = r["pvalue"]
    level = r["ci"]["confidence_level"]
    significant = p is not None and p <= 1 - level
    tone = (
        "not-significant"
        if not significant
        else ("significant" if (r["estimate"] or 0) > 0 else "worse")
    )
    low, high = r["ci"]["low"], r["ci"]["high"]
    if r["alternative"] == "greater":  # the open side is unbounded, whatever its natural limit
        high = None
    elif r["alternative"] == "less":
        low = None
    row = svg.ForestRow(
        label="candidate - baseline",
        estimate=math.nan if r["estimate"] is None else r["estimate"],
        low=-math.inf if low is None else low,
        high=math.inf if high is None else high,
        note=f"{100 * level:g}% interval, {r['method']}",
    )
    rows = [
        ("Baseline", fmt.score(r["baseline_mean"], percent=percent)),
        ("Candidate", fmt.score(r["candidate_mean"], percent=percent)),
        (
            "Difference",
            fmt.difference(math.nan if r["estimate"] is None else r["estimate"], percent=percent),
        ),
        ("Interval", comparison_text._interval(r)),
        ("p-value", f"{fmt.pvalue(comparison_text._p(r))} ({r['alternative']})"),
        ("Method", f"{r['method']}: {r['method_reason']}"),
        ("Data", comparison_text.sizes(r)),
    ]
    draws = comparison_text.resampling(r)
    if draws:
        rows.append(("Resampling", draws))
    reach = comparison_text.resolution(r)
    if reach:
        rows.append(("Resolution", reach))
    line = compared(r)
    if line:
        rows.append(("Compared", line))
    context = {
        "heading": models_title(r, "Paired comparison"),
        "verdict": comparison_text.verdict(r),
        "tone": tone,
        "plot": Markup(svg.forest([row], unit="pp" if percent else "")),
        "rows": rows,
        "notes": list(r["notes"]),
    }
    return "comparison", context


# --- gate ----------------------------------------------------------------------------------


def _cell(text: str, value: float | None = None, badge: str | None = None) -> dict[str, Any]:
    return {"text": text, "value": value, "badge": badge, "cls": "num" if value is not None else ""}


def _gate(r: Result) -> tuple[str, dict[str, Any]]:
    emphasis = {"PASS": "pass", "FAIL": "fail", "INCONCLUSIVE": "unresolved"}
    percent = all(t["comparison"]["percent_scale"] for t in r["tasks"])
    forest_rows, thresholds = [], []
    for t in r["tasks"]:
        c = t["comparison"]
        forest_rows.append(
            svg.ForestRow(
                label=t["task"],
                estimate=math.nan if c["estimate"] is None else c["estimate"],
                low=gate_text.bound_value(r, t),
                high=math.inf,
                note=t["reason"],
                emphasis=emphasis[t["verdict"]],
            )
        )
        thresholds.append(t["threshold"])
    table = []
    for t, shown in zip(r["tasks"], gate_text.rows(r), strict=True):
        low = gate_text.bound_value(r, t)
        table.append(
            [
                fmt.name_cell(shown[0]),
                shown[1],
                _cell(shown[2], t["comparison"]["estimate"]),
                _cell(shown[3], None if math.isinf(low) else low),
                _cell(shown[4], t["pvalue"]),
                _cell(shown[5], t["p_adjusted"]),
                _cell(shown[6], None, badge=t["verdict"]),
            ]
        )
    context = {
        "heading": f"Release gate {r['policy']['name']}",
        "verdict": r["verdict"],
        "tone": r["verdict"].lower(),
        "reason": r["reason"],
        "family": gate_text.family_line(r),
        "registration": r["registration"]["summary"],
        "plot": Markup(
            svg.forest(
                forest_rows,
                thresholds=thresholds,
                unit="pp" if percent else "",
                title=f"improvement and lower bound per task ({gate_text.bound_label(r)})",
            )
        ),
        "header": gate_text.HEADER,
        "rows": table,
        "aggregate": gate_text._sign(r),
        "reasons": [f"{t['task']}: {t['reason']}" for t in r["tasks"] if t["verdict"] != "PASS"],
        "notes": list(r["notes"]),
    }
    return "gate", context


# --- multiplicity, simultaneous intervals, file descriptions ---------------------------------


def _multiplicity(r: Result) -> tuple[str, dict[str, Any]]:
    labels = r.get("labels") or [str(i + 1) for i in range(len(r["pvalues"]))]
    rows = [
        [
            fmt.name_cell(label),
            _cell(_num(p), p),
            _cell(_num(q), q),
            _cell("yes" if rej else "no", None, badge="PASS" if rej else None),
        ]
        for label, p, q, rej in zip(labels, r["pvalues"], r["p_adjusted"], r["reject"], strict=True)
    ]
    context = {
        "heading": f"Multiple-testing correction: {r['method']}",
        "lead": f"alpha = {r['alpha']:g}; {sum(map(bool, r['reject']))} of {len(rows)} rejected.",
        "plot": None,
        "header": ("hypothesis", "raw p", "adjusted p", "rejected"),
        "rows": rows,
        "notes": list(r.get("notes", [])),
    }
    return "table", context


def _simultaneous(r: Result) -> tuple[str, dict[str, Any]]:
    tasks = r["tasks"]
    forest_rows = [
        svg.ForestRow(
            label=t, estimate=_float(e), low=_float(lo, -math.inf), high=_float(hi, math.inf)
        )
        for t, e, lo, hi in zip(tasks, r["estimate"], r["ci_low"], r["ci_high"], strict=True)
    ]
    rows = [
        [
            fmt.name_cell(t),
            _cell(_num(e), e),
            _cell(_num(p), p),
            _cell(_num(q), q),
            "yes" if rej else "no",
        ]
        for t, e, p, q, rej in zip(
            tasks, r["estimate"], r["pvalues"], r["p_adjusted"], r["reject"], strict=True
        )
    ]
    context = {
        "heading": "Simultaneous inference (Romano-Wolf, max-T)",
        "lead": f"{r['scheme']} resampling, {r['n_resamples']:,} resamples; intervals cover all "
        f"{len(tasks)} differences at once with probability {r['confidence_level']:g}.",
        "plot": Markup(svg.forest(forest_rows)),
        "header": ("task", "estimate", "raw p", "Romano-Wolf p", "rejected"),
        "rows": rows,
        "notes": list(r.get("notes", [])),
    }
    return "table", context


def _float(value: float | None, default: float = math.nan) -> float:
    return default if value is None else float(value)


def _num(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "< 0.0001" if 0 < value < 1e-4 else f"{value:.4g}"


_SECTIONS.update(
    comparison=_comparison, gate=_gate, multiplicity=_multiplicity, simultaneous=_simultaneous
)


_FROM_PLUGIN: dict[str, str] = {}
"""Kinds whose view an installed plugin gave, and which plugin (its failures are isolated)."""

_SECTION_MODULES = (
    "evalsig.report.power",
    "evalsig.report.leaderboard",
    "evalsig.report.sequential",
    "evalsig.report.meta",
    "evalsig.report.audit",
    "evalsig.report.passk",
    "evalsig.report.judge",
    "evalsig.report.agreement",
    "evalsig.report.score",
    "evalsig.report.arena",
    "evalsig.report.noise",
    "evalsig.report.inspect",
)
"""Modules whose import registers more sections (saved results of any kind render)."""


def load_plugins() -> tuple[plugins.Plugin, ...]:
    """Register the built-in views, then those of installed plugins (entry-point group
    ``evalsig.report_sections``, once): a plugin cannot take a built-in's kind."""
    for module in _SECTION_MODULES:  # views of later capabilities register on import
        importlib.import_module(module)
    return plugins.load_group(plugins.REPORT_SECTIONS, _install_plugin)


def _install_plugin(entry: object, plugin: plugins.Plugin) -> str:
    """A plugin's ``(kind, build)`` pair, or object with ``kind`` and ``build``."""
    pair = entry if isinstance(entry, tuple) and len(entry) == 2 else None
    kind, build = pair or (getattr(entry, "kind", None), getattr(entry, "build", None))
    if not isinstance(kind, str) or not kind or not callable(build):
        raise plugins.PluginError(
            f"it names {type(entry).__name__} {entry!r:.60}, not a (kind, build) pair or an "
            "object with a `kind` (text) and a `build(result) -> (macro, context)`."
        )
    if kind in _SECTIONS:
        raise plugins.PluginError(f"results of kind {kind!r} have a view already, which is kept.")
    register_section(kind, build)
    _FROM_PLUGIN[kind] = f"plugin {plugin.distribution} {plugin.version} ({plugin.name})"
    return f"report section {kind!r}"
