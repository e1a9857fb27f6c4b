"""``evalsig ingest`` and ``evalsig store-info``: output lines and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from evalsig.cli import app

pytest.importorskip(
    "duckdb", reason="the results store needs duckdb: pip install 'evalsig-stats[store]'"
)

runner = CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for model, every in (("base", 3), ("tuned", 5)):
        rows = [f"q{i},{int(i % every != 0)},s{i % 4}" for i in range(12)]
        path = tmp_path / f"{model}.csv"
        path.write_text("id,correct,subject\n" + "\n".join(rows) + "\n", encoding="utf-8")
        out[model] = path
    return out


def _ingest(store: Path, path: Path, model: str, *extra: str) -> Result:
    return runner.invoke(
        app,
        ["ingest", str(path), "--store", str(store), "--model", model, "--task", "quiz", *extra],
    )


def test_ingest_prints_one_line_per_file_and_a_summary(
    files: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    result = runner.invoke(
        app,
        ["ingest", str(files["base"]), "--store", str(store), "--model", "base", "--task", "quiz"],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"ingested  {files['base']}: 12 scores; 'base' on 'quiz'",
        "          model 'base' given (model=, --model)",
        f"1 path: 1 ingested (12 scores), 0 skipped; {store} holds 1 task and 1 model.",
    ]
    again = runner.invoke(
        app,
        [
            "ingest",
            str(files["base"]),
            str(files["tuned"]),
            "--store",
            str(store),
            "--model",
            "base",
            "--task",
            "quiz",
        ],
    )
    assert again.exit_code == 4  # tuned.csv is another file of model 'base': a conflict
    assert again.stderr.startswith(f"evalsig: error: {files['tuned']}: scores for the same")
    tuned = _ingest(store, files["tuned"], "tuned")
    assert tuned.exit_code == 0, tuned.output
    skip = _ingest(store, files["base"], "base")
    assert skip.exit_code == 0, skip.output
    assert skip.stdout.splitlines() == [
        f"skipped   {files['base']}: already stored (same content as {files['base']})",
        f"1 path: 0 ingested (0 scores), 1 skipped; {store} holds 1 task and 2 models.",
    ]


def test_store_info_lists_tasks_models_and_items(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    for model, path in files.items():
        assert _ingest(store, path, model, "--cluster", "subject").exit_code == 0
    result = runner.invoke(app, ["store-info", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{store}: 2 sources ingested",
        "task 'quiz': 2 models, 12 items; metric: score",
        "  base          12 items  1 run",
        "  tuned         12 items  1 run",
    ]
    as_json = runner.invoke(app, ["store-info", "--store", str(store), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert [m["name"] for m in data["tasks"][0]["models"]] == ["base", "tuned"]
    assert [s["path"] for s in data["sources"]] == [str(files["base"]), str(files["tuned"])]


def test_ingest_json_output(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    result = _ingest(store, files["base"], "base", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["n_ingested"], data["n_rows"], data["sources"][0]["models"]) == (1, 12, ["base"])


def test_conflicting_file_is_one_error_line_and_exit_1(
    files: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    assert _ingest(store, files["base"], "base").exit_code == 0
    clash = runner.invoke(
        app,
        ["ingest", str(files["tuned"]), "--store", str(store), "--model", "base", "--task", "quiz"],
    )
    assert clash.exit_code == 4
    lines = clash.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"evalsig: error: {files['tuned']}: scores for the same model")
    assert f"already stored from {files['base']}" in lines[0]
    assert "Traceback" not in clash.output
    replaced = runner.invoke(
        app,
        [
            "ingest",
            str(files["tuned"]),
            "--store",
            str(store),
            "--model",
            "base",
            "--task",
            "quiz",
            "--replace",
        ],
    )
    assert replaced.exit_code == 0, replaced.output
    assert f"          replaced 12 scores of model 'base' on task 'quiz' from {files['base']}" in (
        replaced.stdout.splitlines()
    )


def test_missing_model_name_is_a_data_error(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    result = runner.invoke(app, ["ingest", str(files["base"]), "--store", str(store)])
    assert result.exit_code == 4
    assert result.stderr.strip() == (
        f"evalsig: error: {files['base']}: cannot tell which model these scores are from: "
        "csv files do not name the model they scored. Give the model with --model NAME "
        "(model=), or name the model column of a long table with --model-column COLUMN "
        "(model_column=)."
    )


def test_usage_errors_exit_2(files: dict[str, Path], tmp_path: Path) -> None:
    no_store = runner.invoke(app, ["ingest", str(files["base"]), "--model", "base"])
    assert no_store.exit_code == 2
    assert "--store" in no_store.output
    bad_format = runner.invoke(
        app, ["store-info", "--store", str(tmp_path / "r.duckdb"), "--format", "html"]
    )
    assert bad_format.exit_code == 2


def test_store_info_of_a_missing_store(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.duckdb"
    result = runner.invoke(app, ["store-info", "--store", str(missing)])
    assert result.exit_code == 4
    assert result.stderr.strip() == (
        f"evalsig: error: {missing}: no results store there; create one with evalsig ingest "
        f"PATH... --store {missing}."
    )
    assert not missing.exists()


def test_leaderboard_reads_from_the_store(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    for model, path in files.items():
        assert _ingest(store, path, model).exit_code == 0
    result = runner.invoke(app, ["leaderboard", "--store", str(store), "--task", "quiz"])
    assert result.exit_code == 0, result.output
    assert "base" in result.stdout
    assert "tuned" in result.stdout


def test_same_file_for_another_model_is_ingested_with_a_warning(
    files: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    assert _ingest(store, files["base"], "base").exit_code == 0
    copy = _ingest(store, files["base"], "copy")
    assert copy.exit_code == 0, copy.output
    warning = (
        "          warning: model 'copy' on task 'quiz' has the same 12 scores as model 'base' "
        f"on task 'quiz', stored from {files['base']} (the same content); identical results "
        "under two names are unusual: check that each model and task was given its own "
        "results file."
    )
    assert copy.stdout.splitlines() == [
        f"ingested  {files['base']}: 12 scores; 'copy' on 'quiz'",
        "          model 'copy' given (model=, --model)",
        warning,
        f"1 path: 1 ingested (12 scores), 0 skipped; {store} holds 1 task and 2 models.",
    ]
    as_json = _ingest(store, files["base"], "third", "--format", "json")
    assert as_json.exit_code == 0, as_json.output
    (source,) = json.loads(as_json.stdout)["sources"]
    assert (source["status"], source["models"]) == ("ingested", ["third"])
    assert source["warnings"] == [
        "model 'third' on task 'quiz' has the same 12 scores as model 'base' on task 'quiz' "
        f"and model 'copy' on task 'quiz', stored from {files['base']} (the same content); "
        "identical results under two names are unusual: check that each model and task was "
        "given its own results file."
    ]
    info = runner.invoke(app, ["store-info", "--store", str(store)])
    assert info.exit_code == 0, info.output
    assert info.stdout.splitlines()[1] == "task 'quiz': 3 models, 12 items; metric: score"
