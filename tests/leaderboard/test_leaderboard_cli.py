"""``evalsig leaderboard``: long tables, folders of per-model results, outputs, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig.cli import app

runner = CliRunner()
HOSTILE = "<script>alert(1)</script>|`x`"


@pytest.fixture
def long_table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = ["model,item,correct,task"]
    for k, name in enumerate(["alpha", "beta", HOSTILE]):
        for task in ("arc", "mmlu"):
            for i in range(300):
                rows.append(f'"{name}",{task}-{i},{int(rng.random() < 0.4 + 0.15 * k)},{task}')
    path = tmp_path / "board.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    root = tmp_path / "runs"
    root.mkdir()
    for k, name in enumerate(["base", "tuned", "large"]):
        rows = ["id,correct"] + [f"q{i},{int(rng.random() < 0.5 + 0.1 * k)}" for i in range(400)]
        (root / f"{name}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def test_long_table_text(long_table: Path) -> None:
    result = runner.invoke(
        app, ["leaderboard", str(long_table), "--task-column", "task", "--task", "arc"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Leaderboard: arc")
    assert "3 models, 3 pairs compared with McNemar's test, holm correction" in result.stdout


def test_multi_task_json(long_table: Path) -> None:
    args = [
        "leaderboard",
        str(long_table),
        "--task-column",
        "task",
        "--task",
        "arc",
        "--task",
        "mmlu",
        "--format",
        "json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kind"] == "leaderboard-tasks"
    assert [t["task"] for t in data["tasks"]] == ["arc", "mmlu"]
    assert data["aggregate"]["method"] == "aggregate"


def test_folder_of_models_and_bootstrap(folder: Path) -> None:
    args = ["leaderboard", str(folder), "--bootstrap", "300", "--seed", "2", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {row["model"] for row in data["rows"]} == {"base", "tuned", "large"}
    assert data["n_resamples"] == 300
    assert "bootstrap_rank_low" in data["rows"][0]


def test_markdown_and_html_escape_model_names(long_table: Path, tmp_path: Path) -> None:
    base = ["leaderboard", str(long_table), "--task-column", "task", "--task", "arc"]
    md = runner.invoke(app, [*base, "--format", "markdown"])
    assert md.exit_code == 0, md.output
    assert "<script>" not in md.stdout
    out = tmp_path / "board.html"
    html = runner.invoke(app, [*base, "--format", "html", "-o", str(out)])
    assert html.exit_code == 0, html.output
    page = out.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either a SOURCE"),
        (["--task", "arc"], "--task needs --task-column"),
        (["--task-column", "task"], "name the task(s) with --task"),
    ],
)
def test_errors(long_table: Path, args: list[str], message: str) -> None:
    source = [] if not args else [str(long_table)]
    result = runner.invoke(app, ["leaderboard", *source, *args])
    assert result.exit_code == 1
    assert message in result.stderr
