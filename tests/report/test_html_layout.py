"""The HTML report's layout, without a browser: tables in scroll containers, name and number
cells, key-value tables not sortable, long model names keyed in the resolution chart.

The browser checks of the same pages at two widths are in ``test_browser_kinds.py``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
from markupsafe import escape

from evalsig.data import load
from evalsig.data.models import model_scores
from evalsig.leaderboard import leaderboard
from evalsig.meta import synthesize
from evalsig.power import benchmark_resolution, power_analysis
from evalsig.report.html import fragment, page
from evalsig.sequential import confidence_sequence

LONG = "organisation/model_with_a_very_long_identifier_without_any_spaces_v2<&>\"'"
NS = "{http://www.w3.org/2000/svg}"


def _scores(names: list[str]) -> Any:
    rng = np.random.default_rng(3)
    rates = np.linspace(0.5, 0.65, len(names))
    tables = {
        n: load({f"q{i}": int(rng.random() < p) for i in range(200)}, name=n)
        for n, p in zip(names, rates, strict=True)
    }
    return model_scores(tables)


def _svgs(markup: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", markup, flags=re.DOTALL)]


def _texts(root: ET.Element, cls: str) -> list[str]:
    """The text of each element of class ``cls``, a verdict symbol ('? ') left out."""
    return [
        "".join(el.itertext()).removeprefix("? ")
        for el in root.iter()
        if cls in (el.get("class") or "").split() and el.tag == f"{NS}text"
    ]


def test_every_table_sits_in_a_scroll_container() -> None:
    results = [
        leaderboard(_scores(["a", LONG, "b"])).to_dict(),
        power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57).to_dict(),
    ]
    for markup in (page(results), fragment(results[0])):
        assert markup.count("<table") >= 1
        assert markup.count("<table") == markup.count('<div class="table-scroll"><table')


def test_names_may_wrap_and_numbers_may_not() -> None:
    markup = page([leaderboard(_scores(["short-name", LONG])).to_dict()])
    assert f'<td class="name long">{escape(LONG)}</td>' in markup
    assert '<td class="name">short-name</td>' in markup
    assert re.search(r'<td class="num" data-value="[\d.]+">[\d.]+%</td>', markup)


def test_key_value_results_are_not_sortable() -> None:
    rng = np.random.default_rng(1)
    for result in (
        power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57),
        confidence_sequence(rng.choice([-1.0, 0.0, 1.0], 300)),
    ):
        markup = page([result.to_dict()])
        assert 'class="sortable"' not in markup
        assert '<table class="kv">' in markup


def test_benchmark_resolution_numbers_long_model_names_with_a_key() -> None:
    names = [f"{LONG} {i}" for i in range(3)]
    result = benchmark_resolution(_scores(names), pairs="all").to_dict()
    (chart,) = _svgs(page([result]))
    number = {name: f"#{i + 1}" for i, name in enumerate(result["models"])}
    labels = [f"{number[p['candidate']]} - {number[p['baseline']]}" for p in result["pairs"]]
    assert _texts(chart, "label") == labels
    assert _texts(chart, "key-mark") == ["#1", "#2", "#3"]
    keyed = [
        " ".join(span.text or "" for span in el.iter(f"{NS}tspan")) or el.text
        for el in chart.iter()
        if el.get("class") == "key-text"
    ]
    assert [k.replace(" ", "") for k in keyed] == [n.replace(" ", "") for n in result["models"]]


def test_benchmark_resolution_writes_short_model_names_in_place() -> None:
    result = benchmark_resolution(_scores(["m0", "m1", "m2"]), pairs="all").to_dict()
    (chart,) = _svgs(page([result]))
    labels = [f"{p['candidate']} - {p['baseline']}" for p in result["pairs"]]
    assert _texts(chart, "label") == labels
    assert not _texts(chart, "key-mark")


def test_meta_table_names_and_numbers() -> None:
    rng = np.random.default_rng(2)
    reports = [
        {"model": model, "benchmark": "mmlu", "source": f"paper {k}", "score": s, "n": 1000}
        for model, centre in ((LONG, 0.7), ("base", 0.6))
        for k, s in enumerate(centre + rng.normal(0, 0.02, 3))
    ]
    markup = page([synthesize(reports, n_resamples=0).to_dict()])
    assert f'<td class="name long">{escape(LONG)}</td>' in markup
    assert '<td class="name">mmlu</td>' in markup
    row = re.search(r'<td class="name">base</td>(.*?)</tr>', markup)
    assert row is not None
    assert re.findall(r"<td([^>]*)>", row.group(1)) == [' class="num"'] * 10
