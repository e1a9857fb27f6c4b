"""The command line: outputs, exit codes (0 done, 1 data error, 2 usage error), the demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app

runner = CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    base, cand = tmp_path / "base.csv", tmp_path / "cand.csv"
    rows_b = ["id,correct,subject"] + [f"q{i},{int(i % 3 != 0)},s{i % 4}" for i in range(300)]
    rows_c = ["id,correct,subject"] + [f"q{i},{int(i % 5 != 0)},s{i % 4}" for i in range(300)]
    base.write_text("\n".join(rows_b) + "\n", encoding="utf-8")
    cand.write_text("\n".join(rows_c) + "\n", encoding="utf-8")
    return base, cand


def _strict(name: str) -> float:
    raise ValueError(f"non-strict JSON constant {name}")


def test_text_output(files: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["compare", *map(str, files)])
    assert result.exit_code == 0, result.output
    assert "The candidate is better than the baseline by +13.33 pp" in result.stdout
    assert "mcnemar-asymptotic" in result.stdout
    assert "n = 300 items; discordant n01 = 80, n10 = 40" in result.stdout


def test_json_output_is_strict(files: tuple[Path, Path]) -> None:
    result = runner.invoke(
        app,
        [
            "compare",
            *map(str, files),
            "--format",
            "json",
            "--one-sided",
            "--seed",
            "1",
            "--method",
            "bootstrap",
            "--variant",
            "percentile",
            "--resamples",
            "2000",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout, parse_constant=_strict)
    assert data["method"] == "bootstrap-percentile"
    assert data["alternative"] == "greater"
    assert data["ci"]["high"] is None
    assert "ci.high" in data["nulls"]
    assert data["n_resamples"] == 2000


def test_markdown_output_to_file(files: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "comment.md"
    result = runner.invoke(
        app, ["compare", *map(str, files), "--format", "markdown", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"### {files[1].stem} vs {files[0].stem}\n\n**The candidate is better")
    assert "| Difference (candidate - baseline) | +13.33 pp |" in text


def test_cluster_column(files: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["compare", *map(str, files), "--cluster", "subject"])
    assert result.exit_code == 0, result.output
    assert "cluster-cr2" in result.stdout
    assert "only 4 clusters" in result.stdout


def test_data_error_is_one_line_and_exit_4(files: tuple[Path, Path], tmp_path: Path) -> None:
    short = tmp_path / "short.csv"
    short.write_text("id,correct\nq1,1\nq2,0\n", encoding="utf-8")
    result = runner.invoke(app, ["compare", str(files[0]), str(short)])
    assert result.exit_code == 4
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("evalsig: error: baseline has 300 items and candidate has 2;")
    assert "Traceback" not in result.output


def test_missing_file_is_a_data_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    assert result.exit_code == 4
    assert result.stderr.strip() == f"evalsig: error: {tmp_path / 'a.csv'}: no such file."


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "a.csv"],
        ["compare", "a.csv", "b.csv", "--method", "ttest"],
        ["compare", "a.csv", "b.csv", "--variant", "exact"],
        ["compare", "a.csv", "b.csv", "--method", "bootstrap", "--variant", "exact"],
        ["compare", "a.csv", "b.csv", "--confidence-level", "95"],
        ["compare", "a.csv", "b.csv", "--format", "yaml"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"evalsig {evalsig.__version__} (evalsig-stats)"


def test_demo(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    assert "Fine-tune A vs base\nNot significant at alpha = 0.05" in result.stdout
    assert (
        "Fine-tune B vs base\nThe candidate is better than the baseline by +1.17 pp"
        in result.stdout
    )
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == [
        "base.csv",
        "finetune-a.csv",
        "finetune-b.csv",
        "report.html",
    ]
    report = tmp_path / "demo" / "report.html"
    assert f"HTML report: {report.resolve()}" in result.stdout
    html = report.read_text(encoding="utf-8")
    assert html.count('class="result kind-comparison"') == 2


def test_module_entry_point(files: tuple[Path, Path]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", "compare", *map(str, files), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_items"] == 300
    bad = subprocess.run(
        [sys.executable, "-m", "evalsig", "compare", str(files[0]), "missing.csv"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 4
    assert bad.stderr.count("\n") == 1
    assert "Traceback" not in bad.stderr


def test_inspect_lists_what_a_file_holds(shared_data: Path) -> None:
    folder = shared_data / "harness_fixtures/every_eval_ever/tests/data/lm_eval"
    result = runner.invoke(app, ["inspect", str(folder)])
    assert result.exit_code == 0, result.output
    assert "[lm-eval v0.4.7 or later]" in result.stdout
    assert "math_perturbed_full" in result.stdout
    assert "exact_match" in result.stdout
    assert "content keys:   doc_hash, target, target_hash" in result.stdout
    as_json = runner.invoke(app, ["inspect", str(folder), "--format", "json"])
    (entry,) = json.loads(as_json.stdout, parse_constant=_strict)
    assert entry["tasks"][0]["n_items"] == 10
    assert entry["formats"] == ["lm-eval"]


def test_inspect_reports_malformed_records(tmp_path: Path) -> None:
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"item": "a", "score": 1}\n{"item": "b", "sco\n', encoding="utf-8")
    result = runner.invoke(app, ["inspect", str(bad)])
    assert result.exit_code == 0, result.output
    assert "1 malformed record(s)" in result.stdout
    assert "line 2: not valid JSON" in result.stdout


def test_compare_two_models_from_one_long_table(tmp_path: Path) -> None:
    rows = ["model,question,gold,pred"] + [
        f"{m},q{i},A,{'A' if (i + k) % 3 else 'B'}"
        for k, m in enumerate(("m1", "m2"))
        for i in range(60)
    ]
    table = tmp_path / "long.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = [
        "compare",
        str(table),
        str(table),
        "--id",
        "question",
        "--prediction",
        "pred",
        "--answer",
        "gold",
        "--method",
        "paired-t",
    ]
    result = runner.invoke(
        app,
        [
            *args,
            "--baseline-where",
            "model=m1",
            "--candidate-where",
            "model=m2",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n_items"] == 60
    assert data["baseline_mean"] == pytest.approx(40 / 60)
    assert data["candidate_mean"] == pytest.approx(40 / 60)
    together = runner.invoke(app, [*args])  # both models' rows on each side: never pooled
    assert together.exit_code == 4
    assert "column 'model' holds several models ('m1', 'm2')" in together.stderr
    assert "--where model=NAME" in together.stderr
    assert "--run" not in together.stderr  # pooling the models as runs is not suggested
    bad = runner.invoke(app, [*args, "--where", "model"])
    assert bad.exit_code == 2


def test_every_option_the_readers_suggest_exists_on_compare() -> None:
    """Messages and notes name options such as --key or --metric: compare must have each
    (but --follow, which only monitor's streams take, and --model and --model-column, which
    the long-table reader names for evalsig variance)."""
    import re

    source = Path(evalsig.__file__).parent
    named = set()
    for module in [*source.glob("data/**/*.py"), source / "comparison.py"]:
        named |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", module.read_text("utf-8")))
    harness_flags = {  # the harnesses' own options
        *("--log", "--no-log-samples", "--save-details", "--dump-eval-details"),
        *("--repeat", "--retry-errors"),
    }
    help_text = runner.invoke(app, ["compare", "--help"], env={"COLUMNS": "200"}).stdout
    streams = runner.invoke(app, ["monitor", "--help"], env={"COLUMNS": "200"}).stdout
    monitor_only = {"--follow"}  # the shared stream opener names monitor's own option
    assert all(flag in streams for flag in monitor_only)
    variance = runner.invoke(app, ["variance", "--help"], env={"COLUMNS": "200"}).stdout
    variance_only = {"--model", "--model-column"}  # the long-table reader's, for variance
    assert all(flag in variance for flag in variance_only)
    others = harness_flags | monitor_only | variance_only
    missing = sorted(flag for flag in named - others if flag not in help_text)
    assert missing == []


def test_inspect_says_whose_options_its_notes_name(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,score,gold\nq1,1,a\nq2,0,b\n", encoding="utf-8")
    result = runner.invoke(app, ["inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert "--key / key_column=" in result.stdout
    assert "options named above are those of evalsig compare, leaderboard and gate" in (
        result.stdout
    )


def test_inspect_takes_the_column_options_of_compare(tmp_path: Path) -> None:
    path = tmp_path / "tasks.csv"
    rows = [
        f"{task},q{i},{i % 2},{seed}"
        for task in ("arc", "gsm")
        for i in range(6)
        for seed in (1, 2)
    ]
    path.write_text("task,question,correct,seed\n" + "\n".join(rows) + "\n", encoding="utf-8")
    pooled = runner.invoke(app, ["inspect", str(path), "--id", "question", "--run", "seed"])
    assert pooled.exit_code == 0, pooled.output
    assert "(all rows)" in pooled.stdout  # one table: the task column was not named
    split = runner.invoke(
        app,
        ["inspect", str(path), "--id", "question", "--run", "seed", "--task-column", "task"],
    )
    assert split.exit_code == 0, split.output
    lines = split.stdout.splitlines()
    assert [line.split()[:3] for line in lines if line.startswith(("arc", "gsm"))] == [
        ["arc", "│", "6"],
        ["gsm", "│", "6"],
    ]
    assert "cluster fields: task" not in split.stdout  # the task column is not offered as one
