"""``evalsig monitor``: outputs, exit codes (0 candidate better, 1 baseline better,
3 not yet resolved, 2 usage, 4 data error), standard input and a growing file."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig.cli import app

runner = CliRunner()


def rows(n: int, p01: float, p10: float, seed: int = 0) -> list[tuple[int, int]]:
    """(baseline, candidate) 0/1 scores; p01: only the candidate right, p10: only the baseline."""
    u = np.random.default_rng(seed).random(n)
    right = (np.random.default_rng(seed + 1).random(n) < 0.5).astype(int)
    base = np.where(u < p01, 0, np.where(u < p01 + p10, 1, right))
    cand = np.where(u < p01, 1, np.where(u < p01 + p10, 0, right))
    return list(zip(base.tolist(), cand.tolist(), strict=True))


def csv_text(pairs: list[tuple[int, int]], header: str = "id,baseline,candidate") -> str:
    return header + "\n" + "".join(f"q{i},{b},{c}\n" for i, (b, c) in enumerate(pairs))


@pytest.fixture
def better(tmp_path: Path) -> Path:
    path = tmp_path / "better.csv"
    path.write_text(csv_text(rows(2000, 0.20, 0.05)), encoding="utf-8")
    return path


def _strict(name: str) -> float:
    raise ValueError(f"non-strict JSON constant {name}")


def test_text_output_one_line_per_batch(better: Path) -> None:
    result = runner.invoke(app, ["monitor", str(better), "--batch", "500"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines[:4]] == [
        "n = 500",
        "n = 1,000",
        "n = 1,500",
        "n = 2,000",
    ]
    assert all(
        "95% CS" in line and "candidate better (resolved at n = " in line for line in lines[:4]
    )
    assert lines[4].startswith("CANDIDATE BETTER: the 95% confidence sequence excluded 0 at n = ")
    assert "and still does at n = 2,000." in lines[4]
    assert "Waudby-Smith & Ramdas 2024" in result.stdout


def test_stop_exits_at_the_first_resolved_batch(better: Path) -> None:
    result = runner.invoke(app, ["monitor", str(better), "--batch", "50", "--stop"])
    assert result.exit_code == 0, result.output
    progress = [line for line in result.stdout.splitlines() if line.startswith("n = ")]
    assert "not yet resolved" in progress[0]
    assert "candidate better" in progress[-1]
    assert all("not yet resolved" in line for line in progress[:-1])
    n = int(progress[-1].split("  ")[0].removeprefix("n = ").replace(",", ""))
    assert n < 2000
    assert n % 50 == 0


def test_exit_codes_follow_the_status(tmp_path: Path) -> None:
    worse = tmp_path / "worse.csv"
    worse.write_text(csv_text(rows(2000, 0.05, 0.20)), encoding="utf-8")
    result = runner.invoke(app, ["monitor", str(worse)])
    assert result.exit_code == 1
    assert "BASELINE BETTER" in result.stdout
    same = tmp_path / "same.csv"
    same.write_text(csv_text(rows(300, 0.05, 0.05)), encoding="utf-8")
    result = runner.invoke(app, ["monitor", str(same)])
    assert result.exit_code == 3
    assert "NOT YET RESOLVED after n = 300 items" in result.stdout
    one_sided = runner.invoke(app, ["monitor", str(worse), "--alternative", "greater"])
    assert one_sided.exit_code == 3  # only "candidate better" can be declared


def test_jsonl_differences_to_strict_json(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    lines = [
        json.dumps({"item": i, "difference": c - b})
        for i, (b, c) in enumerate(rows(900, 0.2, 0.05))
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(
        app, ["monitor", str(path), "--format", "json", "--batch", "300", "--method", "bernstein"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout, parse_constant=_strict)
    assert data["kind"] == "sequential"
    assert data["method"] == "bernstein"
    assert data["n"] == 900
    assert data["path"]["n"] == [300, 600, 900]
    assert data["status"] == "candidate better"
    assert result.stderr.count("\n") == 3  # the progress lines go to stderr with --format json


def test_standard_input() -> None:
    text = csv_text(rows(400, 0.3, 0.02), header="id,base,new")
    result = runner.invoke(
        app,
        [
            "monitor",
            "-",
            "--baseline-column",
            "base",
            "--candidate-column",
            "new",
            "--batch",
            "200",
        ],
        input=text,
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("n = 200  mean +")
    assert "\nn = 400  mean +" in result.stdout


def test_markdown_and_html_output(better: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["monitor", str(better), "--format", "markdown"])
    assert result.exit_code == 0
    assert "### Sequential monitoring" in result.stdout
    assert "| Status | candidate better |" in result.stdout
    target = tmp_path / "report.html"
    result = runner.invoke(app, ["monitor", str(better), "--format", "html", "-o", str(target)])
    assert result.exit_code == 0
    html = target.read_text(encoding="utf-8")
    assert "<h2>Sequential monitoring</h2>" in html
    assert "<svg" in html


def test_report_renders_a_saved_result(better: Path, tmp_path: Path) -> None:
    saved = tmp_path / "monitor.json"
    runner.invoke(app, ["monitor", str(better), "--format", "json", "-o", str(saved)])
    for fmt, expected in (
        ("html", "<h2>Sequential monitoring</h2>"),
        ("text", "CANDIDATE BETTER: the 95% confidence sequence"),
        ("markdown", "### Sequential monitoring"),
    ):
        result = runner.invoke(app, ["report", str(saved), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert expected in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "baseline,candidate\n1,0\n1,x\n",
            "line 3: field 'candidate' is 'x', not a score in [0, 1]",
        ),
        (
            "baseline,candidate\n1,0\n1.5,1\n",
            "line 3: field 'baseline' is '1.5', not a score in [0, 1]",
        ),
        ("baseline,candidate\n1,0\n1\n", "line 3: 1 fields, but the header has 2"),
        ("baseline,candidate\n1,\n", "line 2: field 'candidate' is '', not a score in [0, 1]"),
        (
            "a,b\n1,0\n",
            "line 1 (the header): no 'baseline' and 'candidate' fields, nor 'difference'",
        ),
        (
            "difference\n0.5\n-2\n",
            "line 3: field 'difference' is '-2', not a difference in [-1, 1]",
        ),
        (
            "difference\n0.5\nnan\n",
            "line 3: field 'difference' is 'nan', not a difference in [-1, 1]",
        ),
    ],
)
def test_a_malformed_row_stops_with_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["monitor", str(path), "--batch", "1"])
    assert result.exit_code == 4
    assert result.stderr.startswith(f"evalsig: error: {path}: {message}")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_a_malformed_json_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"baseline": 1, "candidate": 0}\n{"baseline": 1}\n[1, 2]\n', encoding="utf-8")
    result = runner.invoke(app, ["monitor", str(path)])
    assert result.exit_code == 4
    assert result.stderr.strip() == (
        f"evalsig: error: {path}: line 2: field 'candidate' is missing; every line needs "
        "'baseline' "
        "and 'candidate'."
    )
    path.write_text(
        '{"baseline": 1, "candidate": 0}\n{"baseline": 1, "candidate"\n', encoding="utf-8"
    )
    result = runner.invoke(app, ["monitor", str(path)])
    assert result.exit_code == 4
    assert "line 2: not strict JSON" in result.stderr


def test_usage_and_missing_file(tmp_path: Path) -> None:
    assert runner.invoke(app, ["monitor", "x.csv", "--confidence-level", "1.5"]).exit_code == 2
    assert runner.invoke(app, ["monitor", "x.csv", "--batch", "0"]).exit_code == 2
    missing = runner.invoke(app, ["monitor", str(tmp_path / "nope.csv")])
    assert missing.exit_code == 4
    assert "nope.csv: cannot read" in missing.stderr


def test_help_documents_the_exit_codes() -> None:
    result = runner.invoke(app, ["monitor", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "0 candidate better, 1 baseline better, 3 not yet resolved" in text


def _writer(path: Path, pairs: list[tuple[int, int]], pause: float) -> threading.Thread:
    """Append the rows in chunks of 100 (the last line of a chunk half-written for a moment)."""

    def write() -> None:
        with path.open("a", encoding="utf-8") as handle:
            for start in range(0, len(pairs), 100):
                chunk = "".join(f"x,{b},{c}\n" for b, c in pairs[start : start + 100])
                handle.write(chunk[:-3])
                handle.flush()
                time.sleep(pause / 2)
                handle.write(chunk[-3:])
                handle.flush()
                time.sleep(pause / 2)

    return threading.Thread(target=write, daemon=True)


def test_follow_a_growing_file_until_timeout(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text("id,baseline,candidate\n", encoding="utf-8")
    writer = _writer(path, rows(600, 0.05, 0.05), pause=0.05)
    writer.start()
    result = runner.invoke(
        app,
        ["monitor", str(path), "--follow", "--timeout", "1", "--poll", "0.01", "--batch", "100"],
    )
    writer.join()
    assert result.exit_code == 3, result.output
    progress = [line for line in result.stdout.splitlines() if line.startswith("n = ")]
    assert [line.split("  ")[0] for line in progress] == [f"n = {k}00" for k in range(1, 7)]
    assert "NOT YET RESOLVED after n = 600 items" in result.stdout


def test_follow_stops_once_resolved(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text("id,baseline,candidate\n", encoding="utf-8")
    writer = _writer(path, rows(3000, 0.4, 0.0), pause=0.02)
    writer.start()
    result = runner.invoke(
        app, ["monitor", str(path), "--follow", "--stop", "--timeout", "5", "--poll", "0.01"]
    )
    writer.join()
    assert result.exit_code == 0, result.output
    last = [line for line in result.stdout.splitlines() if line.startswith("n = ")][-1]
    n = int(last.split("  ")[0].removeprefix("n = ").replace(",", ""))
    assert n < 3000  # stopped while the file was still growing
    assert "CANDIDATE BETTER" in result.stdout
    assert f"still does at n = {n:,}." in result.stdout
