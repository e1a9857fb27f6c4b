"""``evalsig arena``: output in each format and clear failures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

import evalsig.cli.arena  # noqa: F401 (registers the command)
from evalsig.cli.application import EXIT_DATA_ERROR, app


def _log(tmp_path: Path, simulate) -> Path:
    a, b, y = simulate(np.array([0.8, 0.0, -0.8]), 600, seed=41, tie_share=0.1)
    names = ["alpha", "beta", "gamma"]
    winner = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
    path = tmp_path / "battles.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"model_a": names[i], "model_b": names[j], "winner": winner[v]})
            for i, j, v in zip(a, b, y, strict=True)
        ),
        encoding="utf-8",
    )
    return path


def test_text_output_ranks_the_models(tmp_path, simulate):
    result = CliRunner().invoke(app, ["arena", str(_log(tmp_path, simulate)), "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Bradley-Terry scores (Elo scale) of 3 models from 600 battles"
    assert [line.split()[1] for line in lines[2:5]] == ["alpha", "beta", "gamma"]


def test_json_output_with_elo_and_davidson(tmp_path, simulate):
    args = ["arena", str(_log(tmp_path, simulate)), "--format", "json", "--seed", "2",
            "--ties", "davidson", "--elo", "--format-in", "fastchat"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["kind"] == "arena"
    assert document["ties"] == "davidson"
    assert document["tie_parameter"]["estimate"] > 0
    assert document["online_elo"]["k"] == 4.0
    assert document["seed"] == 2


def test_markdown_and_html(tmp_path, simulate):
    path = str(_log(tmp_path, simulate))
    markdown = CliRunner().invoke(app, ["arena", path, "--format", "markdown", "--seed", "3"])
    assert markdown.exit_code == 0
    assert "| rank | model |" in markdown.output
    page = CliRunner().invoke(app, ["arena", path, "--format", "html", "--seed", "3"])
    assert page.exit_code == 0
    assert "<svg" in page.output
    assert "Bradley-Terry" in page.output


def test_a_data_error_is_one_line_and_the_data_error_code(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"model_a": "x", "model_b": "y", "winner": "nobody"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["arena", str(path)])
    assert result.exit_code == EXIT_DATA_ERROR
    assert "field 'winner' is 'nobody'" in result.output
    assert "Traceback" not in result.output


def test_a_usage_error_exits_2(tmp_path, simulate):
    result = CliRunner().invoke(
        app, ["arena", str(_log(tmp_path, simulate)), "--ties", "sometimes"]
    )
    assert result.exit_code == 2


def test_cluster_correction_option(tmp_path, simulate):
    a, b, y = simulate(np.array([0.5, 0.0, -0.5]), 300, seed=42)
    prompts = np.random.default_rng(42).integers(0, 8, len(y))
    names, winner = ["alpha", "beta", "gamma"], {1.0: "model_a", 0.0: "model_b"}
    path = tmp_path / "battles.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "question_id": int(q),
                    "model_a": names[i],
                    "model_b": names[j],
                    "winner": winner[v],
                }
            )
            for i, j, v, q in zip(a, b, y, prompts, strict=True)
        ),
        encoding="utf-8",
    )
    base = ["arena", str(path), "--cluster", "question_id", "--format", "json", "--seed", "1"]
    two = json.loads(CliRunner().invoke(app, base).output)
    one = json.loads(CliRunner().invoke(app, [*base, "--cluster-correction", "CR1"]).output)
    assert (two["cluster_correction"], one["cluster_correction"]) == ("CR2", "CR1")
    assert all(0 < row["df"] < 8 for row in two["rows"])
    assert all(row["df"] is None for row in one["rows"])
    assert two["rank_null"] == "cr2-studentized"
    bad = CliRunner().invoke(app, [*base, "--cluster-correction", "CR3"])
    assert bad.exit_code == 2
