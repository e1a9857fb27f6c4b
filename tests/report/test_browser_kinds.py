"""Every result kind's HTML report, in a real headless Chromium, 1200 px wide, then narrowed
to 600.

A small real result of each kind is built through the public API, with long,
hostile model, task and source names (60+ characters, markup, ``&``, quotes, one without
spaces) wherever a result carries names. Each page is checked in the browser:

- nothing widens the page or leaves its section, except inside a scroll container, and
  every table wider than its box sits in one; a click-sortable table names its columns; the
  JSON of a kind without a view of its own wraps its long lines;
- every SVG text lies inside its plot, is at least 9 px high as drawn, and covers no other;
- every name is shown in full; a plot whose tooltips name something also names it in its
  visible text (whole, wrapped onto lines, or in a key of short marks, each mark distinct);
- no console errors, no network requests, no dialogs (the hostile names stay text).

With ``EVALSIG_SCREENSHOTS=1``, screenshots go to ``artifacts/report-<kind>-<width>.png``.
The browser comes from the fixtures in ``conftest.py`` (skipped with the reason where
Chromium is missing).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.report.html import page, section
from evalsig.report.schemas import KINDS

WIDTHS = (1200, 600)
SMALLEST_TEXT_PX = 9.0
"""The smallest SVG text height, in screen pixels, that a plot may shrink to."""

PREFIX = "acme-research/<script>alert(\"x\")</script> & 'quoted' llama-3.1-70b-instruct"
MODELS = (
    f"{PREFIX} step 1000",
    f"{PREFIX} step 2000",  # differs from the first only at the end: a cut name is ambiguous
    "organisation/model_with_a_very_long_identifier_without_any_spaces_v2<&>\"'",
)
TASKS = (
    "mmlu-pro/<b>\"math\"</b> & 'reasoning' subset with a very long descriptive name one",
    "mmlu-pro/<b>\"math\"</b> & 'reasoning' subset with a very long descriptive name two",
)
SOURCE = "arXiv:2407.21783 <i>The Llama 3 Herd of Models</i> & 'appendix' table"

Built = dict[str, tuple[dict[str, Any], tuple[str, ...]]]


def _schema_builders() -> dict[str, Callable[[Path], list[Any]]]:
    """The builders of ``tests/test_schemas.py``: small real results of every kind."""
    path = Path(__file__).resolve().parents[1] / "test_schemas.py"
    spec = importlib.util.spec_from_file_location("evalsig_schema_builders", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BUILDERS  # type: ignore[no-any-return]


CHOSEN = {"simulation": 1}  # the one with simulated benchmarks (a plotted empirical power)
"""Which of test_schemas.py's results of a kind to take (the first if not listed): the
kinds that ``_named`` does not build carry no user names, and come from there."""


def _tables(rng: np.random.Generator) -> dict[str, Any]:
    from evalsig.data import load

    rates = dict(zip(MODELS, (0.62, 0.6, 0.5), strict=True))
    return {
        m: load({f"q{i}": int(rng.random() < p) for i in range(300)}, name=m)
        for m, p in rates.items()
    }


def _named(tmp: Path) -> Built:
    """Results of the kinds that carry names, and the names each one carries."""
    from evalsig import compare
    from evalsig.audit import AuditMethod, audit, audit_claim
    from evalsig.data.models import model_scores
    from evalsig.inference import adjust, dependence, romano_wolf, sign_test
    from evalsig.judge import judge_agreement, rater_agreement
    from evalsig.leaderboard import leaderboard, leaderboard_tasks
    from evalsig.meta import random_effects, synthesize
    from evalsig.power import benchmark_resolution
    from evalsig.release import gate, load_policy, register
    from evalsig.simulate import MixtureDesign

    rng = np.random.default_rng(0)
    tables = _tables(rng)
    pair = (MODELS[0], MODELS[1])
    labelled = {TASKS[0]: 0.01, TASKS[1]: 0.04, MODELS[2]: 0.3}
    base = {task: rng.random(200) for task in TASKS}
    cand = {task: v + rng.normal(0.02, 0.05, 200) for task, v in base.items()}
    policy = tmp / "policy.json"
    policy.write_text(json.dumps({"name": PREFIX, "tasks": list(TASKS)}), "utf-8")
    diffs = {f"q{i}": v for i, v in enumerate(rng.normal(size=60))}
    reports = [
        {"model": model, "benchmark": bench, "source": f"{SOURCE} {k}", "score": s, "n": 1000}
        for bench in (TASKS[0], "gsm8k")
        for model, centre in ((MODELS[0], 0.7), (MODELS[2], 0.6))
        for k, s in enumerate(centre + rng.normal(0, 0.02, 4))
    ]
    sources = tuple(f"{SOURCE} {k}" for k in range(4))

    def wide(data: Any, _: np.random.Generator) -> tuple[float, float, float]:
        d = data.candidate.mean(axis=0) - data.baseline.mean(axis=0)
        half = 2.576 * d.std(ddof=1) / np.sqrt(d.size)
        return float(d.mean()), float(d.mean() - half), float(d.mean() + half)

    custom = AuditMethod(
        name="wide", label=MODELS[2], category="custom", definition="99% paired t.", function=wide
    )
    design = MixtureDesign(n_items=100, n_runs=3, uplift=0.02)
    return {
        "comparison": (compare(tables[MODELS[1]], tables[MODELS[0]]).to_dict(), pair),
        "claim-audit": (
            audit_claim(tables[MODELS[1]], tables[MODELS[0]], half_width=0.02).to_dict(),
            pair,
        ),
        "leaderboard": (leaderboard(model_scores(tables)).to_dict(), MODELS),
        "benchmark-resolution": (
            benchmark_resolution(model_scores(tables), pairs="all").to_dict(),
            MODELS,
        ),
        "leaderboard-tasks": (
            leaderboard_tasks({t: model_scores(_tables(rng)) for t in TASKS}).to_dict(),
            MODELS + TASKS,
        ),
        "gate": (gate(base, cand, policy=load_policy(policy)).to_dict(), (PREFIX, *TASKS)),
        "gate-registration": (register(load_policy(policy))[0].to_dict(), (PREFIX, *TASKS)),
        "multiplicity": (adjust(labelled).to_dict(), tuple(labelled)),
        "sign_test": (sign_test(labelled).to_dict(), ()),  # its JSON keeps no task names
        "dependence": (
            dependence(
                {t: {k: v + rng.normal() for k, v in diffs.items()} for t in TASKS}
            ).to_dict(),
            TASKS,
        ),
        "simultaneous": (
            romano_wolf(
                {t: rng.normal(0.02, 0.2, 80) for t in TASKS}, n_resamples=200, rng=2
            ).to_dict(),
            TASKS,
        ),
        "random-effects": (
            random_effects([0.1, 0.2, 0.15], [0.01, 0.02, 0.01], labels=list(MODELS)).to_dict(),
            MODELS,
        ),
        "meta-analysis": (
            synthesize(reports, n_resamples=0).to_dict(),
            (MODELS[0], MODELS[2], TASKS[0], *sources),
        ),
        "audit": (
            audit(design, methods=["paired-t", custom], n_simulations=10, rng=1).to_dict(),
            (MODELS[2],),
        ),
        "judge-agreement": (
            judge_agreement(
                [TASKS[0], TASKS[1], TASKS[0], TASKS[1], TASKS[0]],
                [TASKS[0], TASKS[1], TASKS[1], TASKS[1], TASKS[0]],
                positive=TASKS[0],
                n_resamples=50,
                rng=0,
            ).to_dict(),
            TASKS,
        ),
        "rater-agreement": (
            rater_agreement(
                [
                    [MODELS[0], MODELS[0], MODELS[2]],
                    [MODELS[2]] * 3,
                    [MODELS[0]] * 3,
                    [MODELS[2], MODELS[0], MODELS[2]],
                ],
                raters=list(MODELS),
                n_resamples=50,
                rng=0,
            ).to_dict(),
            MODELS,
        ),
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A result of every kind (a new kind comes from test_schemas.py's builders), with the
    names it carries."""
    tmp = tmp_path_factory.mktemp("kinds")
    named = _named(tmp)
    builders = _schema_builders()
    unnamed = {
        kind: (builders[kind](tmp)[CHOSEN.get(kind, 0)].to_dict(), ())
        for kind in KINDS
        if kind not in named
    }
    return unnamed | named


def test_every_kind_is_built(built: Built) -> None:
    assert min(len(name) for name in (PREFIX, *MODELS, *TASKS, SOURCE)) >= 60
    assert set(built) == set(KINDS)
    assert all(document["kind"] == kind for kind, (document, _) in built.items())
    assert sum(bool(names) for _, names in built.values()) >= 12  # most kinds carry names


CHECKS = """
([names, smallest]) => {
  const found = {page: [], section: [], table: [], header: [], json: [], outside: [],
                 small: [], covers: [], unnamed: [], marks: [], missing: []};
  const squeeze = (s) => s.replace(/\\s+/g, "");
  const visible = (node) => node.nodeType === Node.TEXT_NODE ? node.data
      : node.nodeName === "title" ? ""
      : Array.from(node.childNodes, visible).join("");
  const scroller = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === "auto" || o === "scroll") { return a; }
    }
    return null;
  };
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    found.page.push(`page ${root.scrollWidth} px wide in a ${root.clientWidth} px viewport`);
  }
  for (const sec of document.querySelectorAll("section.result")) {
    const style = getComputedStyle(sec);
    const right = sec.getBoundingClientRect().left + sec.clientLeft + sec.clientWidth
        - parseFloat(style.paddingRight);
    for (const el of sec.querySelectorAll("*")) {
      if (el.closest("svg") && el.nodeName !== "svg") { continue; }
      const r = el.getBoundingClientRect();
      if (r.width && r.right > right + 1 && !scroller(el)) {
        found.section.push(`<${el.nodeName.toLowerCase()} class="${el.getAttribute("class")}">`
          + ` ends at ${r.right.toFixed(0)} px, past its section's ${right.toFixed(0)} px`);
      }
    }
  }
  for (const table of document.querySelectorAll("table")) {
    const box = table.parentElement.clientWidth;
    if (table.getBoundingClientRect().width > box + 1 && !scroller(table)) {
      found.table.push(`a table ${table.offsetWidth} px wide in a ${box} px box, no scroller`);
    }
  }
  for (const pre of document.querySelectorAll("pre")) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      found.json.push(`a ${pre.scrollWidth} px line in a ${pre.clientWidth} px box: wrap it`);
    }
  }
  for (const th of document.querySelectorAll("table.sortable thead th")) {
    if (!th.textContent.trim()) { found.header.push("a sortable table has an empty header"); }
  }
  const svgs = Array.from(document.querySelectorAll("svg"));
  svgs.forEach((svg, k) => {
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    const texts = Array.from(svg.querySelectorAll("text")).filter((t) => visible(t).trim());
    const plain = [];
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      const shown = visible(t);
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5
          || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        found.outside.push(`svg ${k}: "${shown}" at [${r.left.toFixed(1)}, ${r.right.toFixed(1)}]`
          + ` x [${r.top.toFixed(1)}, ${r.bottom.toFixed(1)}] outside [${box.left.toFixed(1)},`
          + ` ${box.right.toFixed(1)}] x [${box.top.toFixed(1)}, ${box.bottom.toFixed(1)}]`);
      }
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < smallest) {
        found.small.push(`svg ${k}: "${shown}" drawn ${px.toFixed(1)} px high`);
      }
      if (!(t.getAttribute("transform") || "").includes("rotate")) { plain.push([t, r, shown]); }
    }
    for (let i = 0; i < plain.length; i++) {
      for (let j = i + 1; j < plain.length; j++) {
        const [, a, sa] = plain[i];
        const [, b, sb] = plain[j];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 2) { found.covers.push(`svg ${k}: "${sa}" covers "${sb}"`); }
      }
    }
    const tips = Array.from(svg.querySelectorAll("title"), (t) => t.textContent).join("\\n");
    const shown = texts.map((t) => squeeze(visible(t)));
    for (const name of names) {
      if (tips.includes(name) && !shown.some((s) => s.includes(squeeze(name)))) {
        found.unnamed.push(`svg ${k} names "${name}" in tooltips only`);
      }
    }
    const marks = Array.from(svg.querySelectorAll(".key-mark"), (m) => m.textContent);
    if (new Set(marks).size !== marks.length) {
      found.marks.push(`svg ${k}: key marks repeat: ${marks.join(", ")}`);
    }
  });
  const prose = document.querySelector("main").innerText;
  const drawn = svgs.flatMap((svg) => Array.from(svg.querySelectorAll("text"),
                                                  (t) => squeeze(visible(t))));
  for (const name of names) {
    if (!prose.includes(name) && !drawn.some((s) => s.includes(squeeze(name)))) {
      found.missing.push(`"${name}" is not shown in full`);
    }
  }
  return found;
}
"""
"""The layout checks, run in the page; each list names what failed."""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_kind_in_a_real_browser(
    kind: str, built: Built, open_page: Any, screenshot: Any, tmp_path: Path
) -> None:
    """The page opened at the first of :data:`WIDTHS`, then the window narrowed to each
    other width: the checks run at each (media queries and wrapping follow the window)."""
    document, names = built[kind]
    assert document["kind"] == kind
    raw = section(document)["kind"] == "raw"  # no view yet: the JSON is shown, escaped
    shown = [json.dumps(n)[1:-1] if raw else n for n in names]
    path = tmp_path / f"{kind}.html"
    path.write_text(page([document]), encoding="utf-8")
    opened = open_page(path, width=WIDTHS[0])
    tab = opened.tab
    for width in WIDTHS:
        tab.set_viewport_size({"width": width, "height": 800})
        screenshot(tab, f"report-{kind}-{width}")
        found = tab.evaluate(CHECKS, [shown, SMALLEST_TEXT_PX])
        assert {k: v for k, v in found.items() if v} == {}, width
    assert opened.errors == []
    assert opened.requests == [path.as_uri()]  # nothing fetched
    assert opened.dialogs == []  # no hostile name ran
    assert tab.locator("script").count() == 1  # only the page's own sorting script


def test_every_kind_on_one_narrow_page(built: Built, open_page: Any, tmp_path: Path) -> None:
    """All kinds together, with the page's list of contents (long headings) at 600 px."""
    kinds = sorted(built)
    path = tmp_path / "all.html"
    path.write_text(page([built[kind][0] for kind in kinds]), encoding="utf-8")
    opened = open_page(path, width=600)
    raw = {kind for kind in kinds if section(built[kind][0])["kind"] == "raw"}
    names = {json.dumps(n)[1:-1] if kind in raw else n for kind in kinds for n in built[kind][1]}
    found = opened.tab.evaluate(CHECKS, [sorted(names), SMALLEST_TEXT_PX])
    assert {k: v for k, v in found.items() if v} == {}
    assert opened.tab.locator("nav li").count() == len(kinds)
    assert opened.errors == []
    assert opened.requests == [path.as_uri()]
    assert opened.dialogs == []


def test_narrowing_the_window_is_what_the_checks_see(
    built: Built, open_page: Any, tmp_path: Path
) -> None:
    """An element 900 px wide fits the page at 1200 px and widens it once the window is
    narrowed to 600 px: the checks run on the layout of the current width."""
    document, _ = built["comparison"]
    path = tmp_path / "wide.html"
    wide = '<div style="width: 900px">a fixed-width block</div>'
    path.write_text(page([document]).replace("</body>", f"{wide}</body>"), encoding="utf-8")
    tab = open_page(path, width=WIDTHS[0]).tab
    assert tab.evaluate(CHECKS, [[], SMALLEST_TEXT_PX])["page"] == []
    tab.set_viewport_size({"width": 600, "height": 800})
    assert tab.evaluate(CHECKS, [[], SMALLEST_TEXT_PX])["page"] != []
