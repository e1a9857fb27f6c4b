"""``evalsig meta``: formats, options, plots, escaping and exit codes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalsig.cli import app

runner = CliRunner()
HOSTILE = "<script>alert(1)</script>|x"


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    rows = []
    data = {
        ("alpha", "gsm8k"): [(80.0, True), (74.0, False), (75.0, False), (74.5, False)],
        ("beta", "gsm8k"): [(78.0, True), (79.0, False), (78.5, False)],
        (HOSTILE, "gsm8k"): [(60.0, True), (61.0, False)],
        ("alpha", "mmlu"): [(70.0, True)],
    }
    for (model, bench), scores in data.items():
        for i, (score, flag) in enumerate(scores):
            rows.append(
                {
                    "model": model,
                    "benchmark": bench,
                    "source": f"paper{i}",
                    "score": score,
                    "n": 1319 if bench == "gsm8k" else 14042,
                    "self_reported": flag,
                }
            )
    path = tmp_path / "reports.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_text(reports: Path) -> None:
    result = runner.invoke(app, ["meta", str(reports), "--seed", "1", "--resamples", "200"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("Meta-analysis of published benchmark scores")
    assert "10 reports in 4 (model, benchmark) cells on 2 benchmarks" in out
    assert "10 of 10 standard errors imputed" in out
    assert "reorders the top 10 on 1 of 2 benchmarks" in out
    assert "swap: alpha leads beta" in out


def test_json_and_report_roundtrip(reports: Path, tmp_path: Path) -> None:
    out = tmp_path / "meta.json"
    result = runner.invoke(
        app,
        [
            "meta",
            str(reports),
            "--method",
            "dl",
            "--test",
            "hksj",
            "--format",
            "json",
            "-o",
            str(out),
            "--resamples",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(c))
    assert data["kind"] == "meta-analysis"
    assert data["method"] == "dl"
    assert data["test"] == "hksj"
    assert data["n_imputed"] == 10
    cell = next(c for c in data["cells"] if c["model"] == "beta")
    assert cell["df"] == 2
    rendered = runner.invoke(app, ["report", str(out), "--format", "markdown"])
    assert rendered.exit_code == 0, rendered.output
    assert rendered.stdout.startswith("### Meta-analysis of published benchmark scores")
    text = runner.invoke(app, ["report", str(out), "--format", "text"])
    assert text.stdout.startswith("Meta-analysis of published benchmark scores")
    html = runner.invoke(app, ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert html.exit_code == 0
    page = (tmp_path / "r.html").read_text()
    assert "Meta-analysis of published benchmark scores" in page
    assert "<script>alert" not in page


def test_markdown_and_html_escape(reports: Path, tmp_path: Path) -> None:
    md = runner.invoke(app, ["meta", str(reports), "--format", "markdown", "--resamples", "0"])
    assert md.exit_code == 0, md.output
    assert HOSTILE not in md.stdout
    assert r"&lt;script&gt;alert(1)&lt;/script&gt;\|x" in md.stdout
    target = tmp_path / "meta.html"
    html = runner.invoke(
        app, ["meta", str(reports), "--format", "html", "-o", str(target), "--resamples", "0"]
    )
    assert html.exit_code == 0, html.output
    page = target.read_text()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;|x" in page
    assert "<svg" in page


def test_plots(reports: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    folder = tmp_path / "plots"
    result = runner.invoke(app, ["meta", str(reports), "--plots", str(folder), "--resamples", "0"])
    assert result.exit_code == 0, result.output
    assert "wrote 10 plot files" in result.stderr
    assert {p.suffix for p in folder.iterdir()} == {".png", ".svg"}


def test_bad_row_exits_1_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "model,benchmark,source,score,se\nm,b,p1,81.0,1.0\nm,b,p2,79.0,0\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["meta", str(path)])
    assert result.exit_code == 4
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("evalsig: error:")
    assert "row 2" in lines[0]
    assert "`se` is '0'" in lines[0]


def test_missing_file_and_usage_errors(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["meta", str(tmp_path / "nope.csv")])
    assert missing.exit_code == 4
    assert "cannot read" in missing.stderr
    usage = runner.invoke(app, ["meta", str(tmp_path / "x.csv"), "--method", "bogus"])
    assert usage.exit_code == 2
    level = runner.invoke(app, ["meta", str(tmp_path / "x.csv"), "--confidence-level", "95"])
    assert level.exit_code == 2
