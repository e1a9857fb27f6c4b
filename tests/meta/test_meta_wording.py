"""Meta-analysis reports in their own words (issue 28): a verb that carries the direction
takes an unsigned size ('trails by 0.37', not '+0.37'); its forest plots have their own
legend (pooled estimate, prediction interval), not the gate's pass/unresolved; a funnel
without an Egger line says why instead of promising one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.meta import synthesize
from evalsig.report import meta as views

SCORES = {  # (model, benchmark): reported scores; 'model-a' leads by max, trails by synthesis
    ("model-a", "mmlu"): [79.2, 74.1, 75.8, 74.9],
    ("model-b", "mmlu"): [77.0, 76.2, 75.9],
    ("model-c", "mmlu"): [75.4],
}


def _reports(**extra: Any) -> list[dict[str, Any]]:
    return [
        {"model": m, "benchmark": b, "source": f"s{i}", "score": s, "n": 14042, **extra}
        for (m, b), scores in SCORES.items()
        for i, s in enumerate(scores)
    ]


def _with_own_se(k: int = 12) -> list[dict[str, Any]]:
    rng = np.random.default_rng(5)
    se = rng.uniform(0.3, 2.0, k)
    scores = 70 + rng.normal(0, se) + 1.5 * se  # small studies higher: a visible Egger slope
    return [
        {"model": "m", "benchmark": "b", "source": f"s{i}", "score": float(y), "se": float(e)}
        for i, (y, e) in enumerate(zip(scores, se, strict=True))
    ]


def _legends(svg: str) -> list[str]:
    return re.findall(r'class="legend-label"[^>]*>([^<]*)<', svg)


def test_a_swap_reads_with_unsigned_sizes() -> None:
    document = synthesize(_reports(), n_resamples=200, rng=1).to_dict()
    text = views.as_text(document)
    (swap,) = [line.strip() for line in text.splitlines() if line.strip().startswith("swap:")]
    assert swap == (
        "swap: model-a leads model-b by 2.20 in max reported but trails by 0.37 synthesized"
    )
    assert not re.search(r"(leads|trails)( \S+)? by [+-]", views.as_markdown(document))


@pytest.mark.parametrize(
    ("size", "expected"),
    [(0.374, "trails by 0.37"), (-0.374, "trails by 0.37"), (0.0, "is level"),
     (0.001, "trails by 0.001"), (None, "trails (by an undefined amount)")],
)  # fmt: skip
def test_gap_wording(size: float | None, expected: str) -> None:
    assert views._gap("trails", "", size, 2) == expected


def test_forest_plots_have_the_meta_analysis_legend() -> None:
    document = synthesize(_reports(), n_resamples=200, rng=1).to_dict()
    _, context = views._synthesis_section(document)
    legends = _legends(str(context["plot"]))
    assert "pooled estimate (95% CI)" in legends
    assert any(label.startswith("prediction interval") for label in legends)
    assert "ranked otherwise by max reported score" in legends
    assert not {"\u2713 pass", "? unresolved", "pass", "unresolved"} & set(legends)
    assert "\u2713" not in str(context["plot"])  # no verdict check marks on pooled rows


def test_a_funnel_without_egger_says_why() -> None:
    document = synthesize(_reports(), n_resamples=200, rng=1).to_dict()
    _, context = views._synthesis_section(document)
    plot = str(context["plot"])
    assert "funnel with Egger line" not in plot
    assert "no Egger line: " in plot
    assert "imputed" in plot  # the cell's own reason


def test_a_funnel_with_egger_promises_the_line() -> None:
    document = synthesize(_with_own_se(), n_resamples=0, rng=1).to_dict()
    (cell,) = document["cells"]
    assert cell["egger"] is not None
    _, context = views._synthesis_section(document)
    assert "m on b: funnel with Egger line" in str(context["plot"])


def test_matplotlib_funnels_say_why_there_is_no_line(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    from evalsig.meta import random_effects
    from evalsig.meta.plots import funnel_plot, write_plots

    fig = funnel_plot(random_effects([70.1, 72.4, 69.8], [0.9, 1.1, 0.8]), title="x")
    assert "no Egger line: no Egger test was given" in fig.axes[0].get_title()
    result = synthesize(_reports(), n_resamples=0, rng=1)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        written = write_plots(result, tmp_path, formats=("svg",))
    funnels = [p for p in written if p.name.endswith("-funnel.svg")]
    assert funnels
    assert all("no Egger line" in p.read_text() for p in funnels)
