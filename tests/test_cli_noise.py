"""``evalsig noise``: outputs in every format, the inputs it reads, escaping, exit codes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

import evalsig.cli.noise  # noqa: F401  (registers the command)
from evalsig.cli import app
from evalsig.cli.application import EXIT_DATA_ERROR, EXIT_USAGE
from evalsig.power.noise import benchmark_noise

runner = CliRunner()
HOSTILE = "<script>alert(1)</script>|`x`"


def _scores(seed: int = 0, n_items: int = 80, runs: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n_items)
    return {
        name: (rng.random((runs, n_items)) < np.clip(p + 0.04 * k, 0, 1)).astype(int)
        for k, name in enumerate(["alpha", "beta", HOSTILE])
    }


@pytest.fixture
def scores() -> dict[str, np.ndarray]:
    return _scores()


@pytest.fixture
def long_table(tmp_path: Path, scores: dict[str, np.ndarray]) -> Path:
    rows = ["model,item,seed,correct"]
    for name, matrix in scores.items():
        rows += [
            f'"{name}",q{i},{r},{matrix[r, i]}'
            for r in range(matrix.shape[0])
            for i in range(matrix.shape[1])
        ]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _json(args: list[str]) -> dict:
    result = runner.invoke(app, ["noise", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_matches_the_python_api_and_the_schema(
    long_table: Path, scores: dict[str, np.ndarray]
) -> None:
    doc = _json([str(long_table), "--id", "item", "--score", "correct", "--run", "seed"])
    expected = benchmark_noise(scores).to_dict()
    assert doc["kind"] == "benchmark-noise"
    by_name = {m["model"]: m for m in doc["models"]}
    for m in expected["models"]:
        assert by_name[m["model"]]["run_variance"] == pytest.approx(m["run_variance"], rel=1e-12)
        assert by_name[m["model"]]["item_variance"] == pytest.approx(m["item_variance"], rel=1e-12)
    for key in ("mde", "snr", "signal", "noise", "item_variance", "run_variance"):
        assert doc[key] == pytest.approx(expected[key], rel=1e-12)
    text = (
        resources.files("evalsig.report") / "schemas" / "benchmark-noise.schema.json"
    ).read_text()
    Draft202012Validator(json.loads(text)).validate(doc)
    assert doc["provenance"]["inputs"]


def test_options_reach_the_result(long_table: Path) -> None:
    doc = _json(
        [
            str(long_table),
            "--run",
            "seed",
            "--runs",
            "1",
            "--runs",
            "5",
            "--items",
            "100",
            "--alpha",
            "0.01",
            "--power",
            "0.9",
        ]
    )
    assert [(o["n_items"], o["runs"]) for o in doc["options"]] == [(100, 1), (100, 5)]
    assert (doc["alpha"], doc["power"]) == (0.01, 0.9)
    assert [row["runs"] for row in doc["tradeoff"]["rows"]] == [1, 5]


def test_a_task_column_picks_one_task(tmp_path: Path, scores: dict[str, np.ndarray]) -> None:
    other = _scores(seed=5)
    rows = ["task,model,item,seed,correct"]
    for task, data in (("math", scores), ("code", other)):
        for name, matrix in data.items():
            rows += [
                f'{task},"{name}",q{i},{r},{matrix[r, i]}' for r in range(3) for i in range(80)
            ]
    path = tmp_path / "tasks.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    for task, data in (("math", scores), ("code", other)):
        doc = _json([str(path), "--run", "seed", "--task-column", "task", "--task", task])
        expected = benchmark_noise(data).to_dict()
        assert doc["run_variance"] == pytest.approx(expected["run_variance"], rel=1e-12)
        assert doc["item_variance"] == pytest.approx(expected["item_variance"], rel=1e-12)
    for args in (["--task", "math"], ["--task-column", "task"]):
        result = runner.invoke(app, ["noise", str(path), "--run", "seed", *args])
        assert result.exit_code == EXIT_DATA_ERROR
        assert "--task" in result.stderr


def test_one_file_per_model(tmp_path: Path, scores: dict[str, np.ndarray]) -> None:
    paths = []
    for k, (_name, matrix) in enumerate(scores.items()):
        rows = ["item,seed,correct"] + [
            f"q{i},{r},{matrix[r, i]}" for r in range(matrix.shape[0]) for i in range(80)
        ]
        path = tmp_path / f"model{k}.csv"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        paths.append(str(path))
    doc = _json([*paths, "--run", "seed"])
    assert [m["model"] for m in doc["models"]] == ["model0", "model1", "model2"]
    expected = benchmark_noise(scores).to_dict()
    assert doc["run_variance"] == pytest.approx(expected["run_variance"], rel=1e-12)
    folder = _json([str(tmp_path), "--run", "seed"])
    assert folder["run_variance"] == pytest.approx(expected["run_variance"], rel=1e-12)


def test_text_markdown_and_html(long_table: Path, tmp_path: Path) -> None:
    args = ["noise", str(long_table), "--run", "seed"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("Benchmark noise")
    assert "SNR" in text.stdout
    assert "Design options" in text.stdout
    assert "add items" in text.stdout
    markdown = runner.invoke(app, [*args, "--format", "markdown"])
    assert markdown.exit_code == 0
    assert "<script>" not in markdown.stdout
    assert "&lt;script&gt;" in markdown.stdout
    out = tmp_path / "noise.html"
    html = runner.invoke(app, [*args, "--format", "html", "--output", str(out)])
    assert html.exit_code == 0, html.output
    page = out.read_text(encoding="utf-8")
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Benchmark noise: 3 models" in page
    assert "<svg" in page


def test_single_run_data_reports_what_is_missing(tmp_path: Path) -> None:
    rows = ["model,item,correct"] + [
        f"m{k},q{i},{(i * (k + 2)) % 3 == 0:d}" for k in range(2) for i in range(40)
    ]
    path = tmp_path / "one.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    doc = _json([str(path)])
    assert doc["run_variance"] is None
    assert doc["snr"] is None
    assert "one run per item" in doc["nulls"]["snr"]
    text = runner.invoke(app, ["noise", str(path)])
    assert text.exit_code == 0
    assert "not separated" in text.stdout


def test_data_errors_are_one_line_and_exit_4(tmp_path: Path) -> None:
    path = tmp_path / "solo.csv"
    path.write_text("model,item,correct\na,q1,1\na,q2,0\n", encoding="utf-8")
    result = runner.invoke(app, ["noise", str(path)])
    assert result.exit_code == EXIT_DATA_ERROR
    assert "at least 2 models" in result.stderr
    assert "Traceback" not in result.stderr
    twin = [tmp_path / "a.csv", tmp_path / "sub" / "a.csv"]
    twin[1].parent.mkdir()
    for p in twin:
        p.write_text("item,correct\nq1,1\nq2,0\n", encoding="utf-8")
    result = runner.invoke(app, ["noise", *map(str, twin)])
    assert result.exit_code == EXIT_DATA_ERROR
    assert "would both be model 'a'" in result.stderr


def test_usage_errors_exit_2(long_table: Path) -> None:
    result = runner.invoke(app, ["noise", str(long_table), "--runs", "0"])
    assert result.exit_code == EXIT_USAGE
