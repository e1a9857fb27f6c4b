"""``evalsig power`` and ``evalsig resolution``: outputs, schemas, escaping, exit codes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.data.models import load_models
from evalsig.data.provenance import without_time
from evalsig.power import (
    benchmark_resolution,
    mcnemar_sample_size,
    power_analysis,
    resolution_from_rates,
)
from evalsig.report.html import page

runner = CliRunner()
HOSTILE = "<script>alert(1)</script>|`x`"


def _validate(result: dict[str, Any]) -> None:
    text = (resources.files("evalsig.report") / "schemas" / "power.schema.json").read_text()
    Draft202012Validator(json.loads(text)).validate(result)


@pytest.fixture
def pilot(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    a = (rng.random(2000) < 0.6).astype(int)
    b = np.where(rng.random(2000) < 0.12, 1 - a, a)
    b[:30] = 1
    paths = tmp_path / "base.csv", tmp_path / "cand.csv"
    for path, scores in zip(paths, (a, b), strict=True):
        rows = ["id,correct"] + [f"q{i},{s}" for i, s in enumerate(scores)]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return paths


@pytest.fixture
def leaderboard(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    rows = ["model,item,correct,subject"]
    for k, name in enumerate(["alpha", "beta", HOSTILE, "delta"]):
        for i in range(600):
            rows.append(f'"{name}",q{i},{int(rng.random() < 0.5 + 0.03 * k)},s{i % 6}')
    path = tmp_path / "board.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_power_from_rates() -> None:
    result = runner.invoke(app, ["power", "--p01", "0.075", "--p10", "0.065", "--n", "4000"])
    assert result.exit_code == 0, result.output
    assert "N* = 10,987 items" in result.stdout
    assert "power 0.394" in result.stdout
    assert "q = n/N* = 0.36 (unresolved)" in result.stdout


def test_power_json_matches_the_api_and_schema() -> None:
    result = runner.invoke(
        app, ["power", "--p01", "0.075", "--p10", "0.065", "--accuracy", "0.57", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    _validate(data)
    assert data["sample_size"]["n"] == pytest.approx(mcnemar_sample_size(0.075, 0.065).n)
    assert data["unpaired"]["ratio"] == pytest.approx(2.0, abs=0.01)


def test_power_solves_for_the_mde() -> None:
    result = runner.invoke(app, ["power", "--discordance", "0.14", "--n", "4000"])
    assert result.exit_code == 0, result.output
    assert "smallest detectable difference 1.66 pp" in result.stdout
    assert "N* = 4,000 items" in result.stdout


def test_power_runs_tradeoff_markdown() -> None:
    args = [
        "power",
        "--effect",
        "0.01",
        "--sd",
        "0.3",
        "--sd-within",
        "0.3",
        "--format",
        "markdown",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "| runs per item | items needed | model calls per model |" in result.stdout
    assert "| 1 | 14,130 | 14,130 |" in result.stdout


def test_power_from_pilot_files(pilot: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["power", *map(str, pilot), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    _validate(data)
    assert data["n"] == 2000
    assert data["source"].startswith("pilot: ")
    assert data["unpaired"] is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--p01", "1.5", "--p10", "0.1"], "`p01` must be a probability"),
        (["--p01", "0.1"], "give both `p01` and `p10`"),
        (["--p01", "0.1", "--p10", "0.05", "--sd", "0.3"], "not both or neither"),
        (["--discordance", "0.1"], "needs `n`"),
        (["--p01", "0.1", "--p10", "0.05", "--alpha", "0.9"], "`alpha`"),
    ],
)
def test_power_errors_are_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["power", *args])
    assert result.exit_code == 4
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_resolution_table_escapes_names(leaderboard: Path) -> None:
    result = runner.invoke(
        app, ["resolution", str(leaderboard), "--cluster", "subject", "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    assert "<script>" not in result.stdout
    assert "&lt;script&gt;" in result.stdout
    assert "3 pairs" not in result.stdout  # the sentence counts "of 3 adjacent-rank pairs"
    assert "of 3 adjacent-rank pairs unresolved" in result.stdout


def test_resolution_json_and_bootstrap(leaderboard: Path) -> None:
    args = ["resolution", str(leaderboard), "--cluster", "subject", "--pairs", "all"]
    result = runner.invoke(app, [*args, "--resamples", "100", "--seed", "3", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    _validate(data)
    assert data["n_pairs"] == 6
    assert data["bootstrap"]["n_resamples"] == 100
    scores = load_models(leaderboard, cluster_column="subject")
    api = benchmark_resolution(scores, pairs="all", n_resamples=100, rng=3).to_dict()
    assert without_time(api) == without_time(data)


def test_resolution_without_clusters_refuses_a_bootstrap(leaderboard: Path) -> None:
    result = runner.invoke(app, ["resolution", str(leaderboard), "--resamples", "10"])
    assert result.exit_code == 4
    assert "needs item clusters" in result.stderr


def test_power_results_render_in_html_and_report(tmp_path: Path, leaderboard: Path) -> None:
    results = [
        power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57).to_dict(),
        power_analysis(effect=0.01, sd=0.3, sd_within=0.3, n=4000).to_dict(),
        resolution_from_rates(4000, 0.075, 0.065).to_dict(),
        resolution_from_rates(4000, 0.07, 0.07).to_dict(),  # no difference: N* infinite
        mcnemar_sample_size(0.1, 0.1).to_dict(),
        benchmark_resolution(load_models(leaderboard, cluster_column="subject")).to_dict(),
    ]
    for r in results:
        _validate(r)
    html = page(results)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "power curve" in html
    assert "Result of kind" not in html  # every kind has its own view
    saved = []
    for i, r in enumerate(results):
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps(r), encoding="utf-8")
        saved.append(str(path))
    for fmt in ("html", "markdown", "text"):
        out = runner.invoke(app, ["report", *saved, "--format", fmt])
        assert out.exit_code == 0, out.output
        assert "10,987" in out.stdout


def test_resolution_checks_the_models_share_their_items(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    rows = ["model,item,correct"]
    for k in range(3):
        n = 280 if k == 2 else 300
        rows += [f"m{k},q{i},{int(rng.random() < 0.5 + 0.1 * k)}" for i in range(n)]
    path = tmp_path / "uneven.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    stopped = runner.invoke(app, ["resolution", str(path)])
    assert stopped.exit_code == 4
    assert "'m2' lacks 20" in stopped.stderr
    assert "--on-missing intersect" in stopped.stderr
    done = runner.invoke(
        app, ["resolution", str(path), "--on-missing", "intersect", "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    assert {p["n_items"] for p in json.loads(done.stdout)["pairs"]} == {280}
