"""The HTML report in a real headless Chromium: offline, no errors, hostile names inert.

The browser comes from the fixtures in ``conftest.py`` (the test skips with the reason
where Chromium is missing). With ``EVALSIG_SCREENSHOTS=1``, screenshots are saved to
``artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evalsig import compare
from evalsig.release import gate
from evalsig.report.html import page

HOSTILE = "<script>alert(1)</script>"


def _results() -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, 4000)
    cand = np.where(rng.random(4000) < 0.06, 1, base)
    comparison = compare(base, cand, one_sided=True).to_dict()
    shifts = {HOSTILE: 0.03, "pipe | and `tick`": 0.0, "down": -0.03}
    b, c = {}, {}
    for task, shift in shifts.items():
        item = rng.beta(2, 2, 800)
        b[task] = np.clip(item + rng.normal(0, 0.05, 800), 0, 1)
        c[task] = np.clip(item + shift + rng.normal(0, 0.05, 800), 0, 1)
    release = gate(b, c, policy={"name": f"ship {HOSTILE}", "tasks": list(shifts)}).to_dict()
    return [comparison, release]


def test_report_in_a_real_browser(open_page: Any, screenshot: Any, tmp_path: Path) -> None:
    results = _results()
    path = tmp_path / "report.html"
    path.write_text(page(results, title=f"report {HOSTILE}"), encoding="utf-8")
    opened = open_page(path)
    tab = opened.tab
    assert opened.errors == []
    assert opened.requests == [path.as_uri()]  # the page itself, nothing fetched
    assert opened.dialogs == []  # the hostile names did not run
    text = tab.inner_text("body")
    assert HOSTILE in text  # shown as text
    assert "pipe | and `tick`" in text
    assert tab.locator("script").count() == 1  # only the page's own sorting script
    estimate = results[0]["estimate"]
    assert f"{100 * estimate:+.2f} pp" in text
    assert "Release gate ship" in text
    for task in results[1]["tasks"]:  # every verdict and adjusted p-value is on the page
        assert task["verdict"] in text
        assert f"{task['p_adjusted']:.4f}" in text or task["p_adjusted"] < 1e-4
    assert tab.locator("svg").count() >= 2
    # sort the gate's task table by its verdict column, then the other way
    table = tab.locator("table.sortable").first
    header = table.locator("thead th").nth(6)
    header.click()
    first = table.locator("tbody tr").first.locator("td").nth(6).inner_text()
    header.click()
    reversed_first = table.locator("tbody tr").first.locator("td").nth(6).inner_text()
    assert first != reversed_first
    assert header.get_attribute("aria-sort") == "descending"
    screenshot(tab, "report")


def _later_results() -> list[dict[str, Any]]:
    """One result of every later kind, with hostile model names where names appear."""
    from evalsig.audit import audit
    from evalsig.data import load
    from evalsig.data.models import model_scores
    from evalsig.leaderboard import leaderboard
    from evalsig.meta import synthesize
    from evalsig.power import power_analysis, resolution_from_rates
    from evalsig.sequential import confidence_sequence
    from evalsig.simulate import MixtureDesign

    rng = np.random.default_rng(1)
    tables = {
        name: load({f"q{i}": int(rng.random() < p) for i in range(500)})
        for name, p in ((HOSTILE, 0.6), ("pipe | and `tick`", 0.55), ("base", 0.5))
    }
    reports = [
        {"model": model, "benchmark": "mmlu", "source": f"paper {k}", "score": s, "n": 1000}
        for model, base in ((HOSTILE, 0.7), ("base", 0.6))
        for k, s in enumerate(base + rng.normal(0, 0.02, 4))
    ]
    design = MixtureDesign(n_items=400, n_runs=4, uplift=0.02)
    return [
        power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57).to_dict(),
        resolution_from_rates(4000, 0.075, 0.065).to_dict(),
        confidence_sequence(rng.choice([-1.0, 0.0, 1.0], 3000, p=[0.06, 0.86, 0.08])).to_dict(),
        leaderboard(model_scores(tables)).to_dict(),
        synthesize(reports, n_resamples=0).to_dict(),
        audit(design, n_simulations=20, rng=1).to_dict(),
    ]


def test_every_result_kind_in_a_real_browser(
    open_page: Any, screenshot: Any, tmp_path: Path
) -> None:
    results = _later_results()
    path = tmp_path / "all.html"
    path.write_text(page(results, title="every kind"), encoding="utf-8")
    opened = open_page(path)
    tab = opened.tab
    assert opened.errors == []
    assert opened.requests == [path.as_uri()]
    assert opened.dialogs == []
    text = tab.inner_text("body")
    assert "Result of kind" not in text  # every kind has its own view
    assert HOSTILE in text
    assert "N* = 10,987 items" in text
    assert tab.locator("script").count() == 1
    assert tab.locator("svg").count() >= 6
    screenshot(tab, "report-all-kinds")
