"""Table-level synthesis: leaderboard reordering, self-report gap, bootstrap, JSON, rendering."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from evalsig.errors import EvalsigError
from evalsig.meta import meta_regression, random_effects, synthesize
from evalsig.report.html import page
from evalsig.report.meta import as_markdown, as_text

HOSTILE = "<script>alert(1)</script>|x"


def _table() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []

    def add(model: str, bench: str, scores: list[float], selfs: list[bool], se: float) -> None:
        for i, (s, f) in enumerate(zip(scores, selfs, strict=True)):
            rows.append(
                {
                    "model": model,
                    "benchmark": bench,
                    "source": f"{model}-paper{i}",
                    "score": s,
                    "se": se + 0.1 * i,
                    "self_reported": f,
                }
            )

    # "a" has one high self-reported report and lower third-party ones; "b" is consistent.
    add("a", "gsm8k", [80.0, 74.0, 75.0, 74.5], [True, False, False, False], 1.0)
    add("b", "gsm8k", [78.0, 79.0, 78.5], [True, False, False], 0.8)
    add(HOSTILE, "gsm8k", [60.0, 61.0, 62.5], [True, False, False], 1.2)
    add("c", "gsm8k", [70.0], [False], 1.0)
    add("a", "mmlu", [70.0, 71.0], [True, False], 0.5)
    add("b", "mmlu", [65.0, 64.0, 66.0], [True, False, False], 0.5)
    return rows


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return synthesize(_table(), n_resamples=500, rng=7)


def test_leaderboard_reorders(result) -> None:  # type: ignore[no-untyped-def]
    board = next(b for b in result.leaderboards if b.benchmark == "gsm8k")
    order = [(r.model, r.rank, r.rank_max) for r in board.rows]
    assert order == [("b", 1, 2), ("a", 2, 1), ("c", 3, 3), (HOSTILE, 4, 4)]
    assert board.top_reordered
    assert board.n_moved == 2
    (swap,) = board.swaps
    assert swap[:2] == ("a", "b")
    assert swap[2] == pytest.approx(1.0)  # a leads by 1 point in max reported
    assert swap[3] < 0  # and trails under the synthesis
    mmlu = next(b for b in result.leaderboards if b.benchmark == "mmlu")
    assert not mmlu.top_reordered
    assert result.overview()["n_benchmarks_reordered"] == 1


def test_cells_match_random_effects(result) -> None:  # type: ignore[no-untyped-def]
    cell = result.cell("a", "gsm8k")
    ref = random_effects([80.0, 74.0, 75.0, 74.5], [1.0, 1.21, 1.44, 1.69])
    assert cell.meta.mu == pytest.approx(ref.mu, rel=1e-12)
    assert cell.meta.labels == ("a-paper0", "a-paper1", "a-paper2", "a-paper3")
    assert cell.max_reported == 80.0
    assert (cell.egger, cell.rank_test, cell.trim_and_fill) == (None, None, None)
    assert any("4 reports, fewer than the 10" in note for note in cell.notes)
    single = result.cell("c", "gsm8k")
    assert single.meta.k == 1
    assert single.bootstrap is None
    assert single.egger is None


def _many_reports(k: int, *, imputed: bool) -> list[dict[str, object]]:
    rng = np.random.default_rng(5)
    rows: list[dict[str, object]] = []
    for i in range(k):
        n = int(rng.integers(200, 5000))
        row: dict[str, object] = {"model": "m", "benchmark": "b", "source": f"p{i}"}
        row["score"] = float(np.round(0.6 + rng.normal(0, 0.02), 4))
        row |= {"n": n} if imputed else {"se": float(np.sqrt(0.24 / n))}
        rows.append(row)
    return rows


@pytest.mark.parametrize("k", [9, 10, 14])
def test_funnel_tests_need_ten_reports(k: int) -> None:
    cell = synthesize(_many_reports(k, imputed=False), n_resamples=0).cell("m", "b")
    ran = [cell.egger is not None, cell.rank_test is not None, cell.trim_and_fill is not None]
    assert ran == [k >= 10] * 3
    refused = [note for note in cell.notes if "fewer than the 10" in note]
    assert len(refused) == (k < 10)


def test_funnel_tests_refused_on_imputed_standard_errors() -> None:
    result = synthesize(_many_reports(14, imputed=True), n_resamples=0)
    cell = result.cell("m", "b")
    assert (cell.egger, cell.rank_test, cell.trim_and_fill) == (None, None, None)
    (note,) = [n for n in cell.notes if "imputed" in n]
    assert "14 of 14 standard errors are imputed" in note
    assert "depend on the score itself" in note
    (board,) = result.leaderboards
    assert board.funnel is None
    assert any("meaningless" in n for n in board.notes)


def test_self_report_gap_two_stage(result) -> None:  # type: ignore[no-untyped-def]
    gap = result.self_report
    assert gap is not None
    assert gap.n_cells == 4  # a, b and HOSTILE on gsm8k; b on mmlu (k = 3)
    for model, bench in (("a", "gsm8k"), ("b", "gsm8k"), (HOSTILE, "gsm8k")):
        cell = result.cell(model, bench)
        y = [float(result.table.scores[i]) for i in cell.rows]
        v = [float(result.table.se[i]) ** 2 for i in cell.rows]
        flags = [float(bool(result.table.self_reported[i])) for i in cell.rows]
        reg = meta_regression(y, v, flags)
        assert cell.self_report_gap is not None
        assert cell.self_report_gap.slope == pytest.approx(reg.slope, rel=1e-12)
        assert cell.self_report_gap.slope_se == pytest.approx(reg.slope_se, rel=1e-12)
    # mmlu "b" (k = 3) has a gap too; "a" on mmlu (k = 2) is skipped
    assert result.cell("b", "mmlu").self_report_gap is not None
    assert gap.n_cells_skipped == 1


def test_self_report_gap_pooled(result) -> None:  # type: ignore[no-untyped-def]
    gap = result.self_report
    cells = [c for c in result.cells if c.self_report_gap is not None]
    ref = random_effects(
        [c.self_report_gap.slope for c in cells], [c.self_report_gap.slope_se**2 for c in cells]
    )
    assert gap.pooled is not None
    assert gap.pooled.mu == pytest.approx(ref.mu, rel=1e-12)
    assert gap.pooled.mu > 0
    assert [b for b, _ in gap.by_benchmark] == ["gsm8k", "mmlu"]


def test_bootstrap_seeded_and_narrower(result) -> None:  # type: ignore[no-untyped-def]
    again = synthesize(_table(), n_resamples=500, rng=7)
    for c1, c2 in zip(result.cells, again.cells, strict=True):
        assert c1.bootstrap == c2.bootstrap
    boot = result.cell("b", "gsm8k").bootstrap
    assert boot is not None
    assert boot.n_resamples == 500
    assert boot.n_failed == 0
    assert boot.synthesized < boot.single_report
    summary = result.overview()
    assert summary["median_half_width"] < summary["median_single_half_width"]
    other = synthesize(_table(), n_resamples=500, rng=8)
    assert other.cell("b", "gsm8k").bootstrap != boot


def test_json_is_strict_and_complete(result) -> None:  # type: ignore[no-untyped-def]
    d = result.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert d["kind"] == "meta-analysis"
    assert d["schema_version"] == 1
    assert d["n_reports"] == 16
    assert d["n_imputed"] == 0
    single = next(c for c in d["cells"] if c["model"] == "c")
    assert single["tau2"] is None
    assert "k = 1" in single["nulls"]["tau2"]
    assert single["reports"][0]["self_reported"] is False
    assert "NaN" not in text
    assert "Infinity" not in text


def test_text_markdown_html_escape_hostile_names(result) -> None:  # type: ignore[no-untyped-def]
    d = result.to_dict()
    text = str(result)
    assert HOSTILE in text  # terminal text shows the name as it is
    markdown = as_markdown(d)
    assert HOSTILE not in markdown
    assert r"&lt;script&gt;alert(1)&lt;/script&gt;\|x" in markdown
    html = page([d])
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;|x" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    assert html.count("<svg") >= 2 + 4  # two leaderboards, per-cell forests and funnels
    fragment = result._repr_html_()
    assert "<script>alert" not in fragment
    assert as_text(d) == text


def test_random_effects_renderings() -> None:
    res = random_effects([61.0, 62.2, 62.8], [0.2, 0.1, 0.3], labels=["p1", HOSTILE, "p3"])
    text = str(res)
    assert "Random-effects meta-analysis (REML, z)" in text
    d = res.to_dict()
    assert d["kind"] == "random-effects"
    html = page([d])
    assert "<script>alert" not in html
    assert "Random-effects meta-analysis" in html
    from evalsig.report.meta import random_effects_markdown

    assert HOSTILE not in random_effects_markdown(d)


def test_plots_written(result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    from evalsig.meta.plots import write_plots

    written = write_plots(result, tmp_path / "plots")
    names = sorted(p.name for p in written)
    assert all(p.exists() and p.stat().st_size > 0 for p in written)
    # cells with k >= 2: 5 forests; with k >= 3: 4 funnels; two formats each
    assert len(written) == (5 + 4) * 2
    assert "003-script_alert_1_script_x-gsm8k-forest.svg" in names
    assert all("/" not in n and not n.startswith(".") for n in names)
    svg_text = (tmp_path / "plots" / "001-a-gsm8k-forest.svg").read_text()
    assert "<svg" in svg_text


def test_plots_missing_matplotlib(result, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from evalsig.meta.plots import forest_plot

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(EvalsigError, match=r"pip install 'evalsig-stats\[plots\]'"):
        forest_plot(result.cells[0].meta)


def test_options_validated() -> None:
    with pytest.raises(ValueError, match="n_resamples"):
        synthesize(_table(), n_resamples=10)
    with pytest.raises(ValueError, match="`top`"):
        synthesize(_table(), top=0)


def test_proportion_scale_roundtrip() -> None:
    rows = [
        {"model": "m", "benchmark": "b", "source": f"p{i}", "score": s, "n": 1000}
        for i, s in enumerate([0.70, 0.72, 0.69])
    ]
    res = synthesize(rows, n_resamples=0)
    assert res.table.scale == "proportion"
    assert res.n_imputed == 3
    assert 0.69 < res.cells[0].meta.mu < 0.72
    assert res.cells[0].bootstrap is None
    np.testing.assert_allclose(
        res.table.se, np.sqrt(np.array([0.7 * 0.3, 0.72 * 0.28, 0.69 * 0.31]) / 1000)
    )
