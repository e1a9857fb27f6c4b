"""``evalsig leaderboard``: long tables, folders of per-model results, outputs, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.data.provenance import without_time

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
    args = ["leaderboard", str(folder), "--resamples", "300", "--seed", "2", "--format", "json"]
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
    assert result.exit_code == 4
    assert message in result.stderr


# --- the models must describe the same items ----------------------------------------------


@pytest.fixture
def uneven(tmp_path: Path) -> Path:
    """Three models' files; 'small' lacks 25 of the 400 items."""
    rng = np.random.default_rng(2)
    root = tmp_path / "uneven"
    root.mkdir()
    for k, name in enumerate(["large", "medium", "small"]):
        n = 375 if name == "small" else 400
        rows = ["id,correct"] + [f"q{i},{int(rng.random() < 0.5 + 0.1 * k)}" for i in range(n)]
        (root / f"{name}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def test_missing_items_stop_the_board_until_told(uneven: Path) -> None:
    stopped = runner.invoke(app, ["leaderboard", str(uneven)])
    assert stopped.exit_code == 4
    assert "1 of 3 models lack some of the 400 items ('small' lacks 25 (" in stopped.stderr
    assert "--on-missing intersect" in stopped.stderr
    args = ["leaderboard", str(uneven), "--on-missing", "intersect"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "Items compared: 375 per model, of 375-400 in the inputs" in text.stdout
    assert "375 of 400" in text.stdout
    assert "items dropped per model: large 25 of 400, medium 25 of 400, small 0 of 375" in (
        " ".join(text.stdout.split())
    )
    data = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert data["on_missing"] == "intersect"
    assert {r["model"]: (r["n_items"], r["n_input"]) for r in data["rows"]} == {
        "large": (375, 400),
        "medium": (375, 400),
        "small": (375, 375),
    }


@pytest.fixture
def revised(tmp_path: Path) -> Path:
    """A long table whose 'gold' column changed for two items in one model's rows."""
    rng = np.random.default_rng(3)
    rows = ["model,item,gold,correct,checksum"]
    for k, name in enumerate(["a", "b", "c"]):
        for i in range(300):
            gold = "ABCD"[i % 4] if not (name == "c" and i in (4, 8)) else "Z"
            checksum = f"h{i}" if not (name == "a" and i == 11) else "changed"
            rows.append(f"{name},q{i},{gold},{int(rng.random() < 0.4 + 0.1 * k)},{checksum}")
    path = tmp_path / "revised.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_changed_gold_column_stops_the_board_until_told(revised: Path) -> None:
    stopped = runner.invoke(app, ["leaderboard", str(revised)])
    assert stopped.exit_code == 4
    assert "2 item(s) have a different content key" in stopped.stderr
    assert "'q4': 'A' in 'a' and 'b' vs 'Z' in 'c'" in stopped.stderr
    assert "--on-mismatch exclude" in stopped.stderr
    for policy, n_items in (("exclude", 298), ("keep", 300)):
        done = runner.invoke(
            app, ["leaderboard", str(revised), "--on-mismatch", policy, "--format", "json"]
        )
        assert done.exit_code == 0, done.output
        data = json.loads(done.stdout)
        assert (data["on_mismatch"], data["n_mismatched"]) == (policy, 2)
        assert {r["n_items"] for r in data["rows"]} == {n_items}
        assert {r["n_input"] for r in data["rows"]} == {300}
    # --key names another content-key column
    by_checksum = runner.invoke(app, ["leaderboard", str(revised), "--key", "checksum"])
    assert by_checksum.exit_code == 4
    assert "1 item(s) have a different content key" in by_checksum.stderr
    assert "'q11'" in by_checksum.stderr


def test_store_leaderboards_check_items_and_keys(revised: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    from evalsig.store import ResultsStore

    path = tmp_path / "results.duckdb"
    with ResultsStore(path) as db:
        db.ingest(revised, model_column="model", task="quiz")
    stopped = runner.invoke(app, ["leaderboard", "--store", str(path)])
    assert stopped.exit_code == 4
    assert "2 item(s) have a different content key" in stopped.stderr
    args = ["leaderboard", "--store", str(path), "--on-mismatch", "exclude", "--format", "json"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["n_mismatched"] == 2
    assert {r["n_items"] for r in data["rows"]} == {298}


def test_the_drawn_seed_is_shown_and_reproduces_the_board(folder: Path) -> None:
    args = ["leaderboard", str(folder), "--resamples", "300", "--format", "json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert isinstance(data["seed"], int)
    again = runner.invoke(app, [*args, "--seed", str(data["seed"])])
    assert again.exit_code == 0, again.output
    assert without_time(json.loads(again.stdout)) == without_time(data)
    text = runner.invoke(app, ["leaderboard", str(folder), "--resamples", "300", "--seed", "7"])
    assert "Bootstrap: 300 resamples, seed 7 (rng= / --seed reproduces it)." in text.stdout


def test_one_cluster_is_a_data_error(tmp_path: Path) -> None:
    rows = ["model,item,correct,subject"]
    rows += [f"m{k},q{i},{(i + k) % 2},algebra" for k in range(3) for i in range(50)]
    path = tmp_path / "one.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["leaderboard", str(path), "--cluster", "subject"])
    assert result.exit_code == 4
    assert "all in one cluster ('algebra')" in result.stderr
    assert "needs at least 2 clusters" in result.stderr


@pytest.mark.shared_data
def test_mmlu_pro_board_from_the_command_line(shared_data: Path) -> None:
    path = str(shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz")
    base = ["leaderboard", path, "--id", "question_id", "--score", "correct"]
    stopped = runner.invoke(app, base)
    assert stopped.exit_code == 4
    assert "'DeepSeek-Coder-V2_5shots' lacks 1681" in stopped.stderr
    flags = ["--on-missing", "intersect", "--on-mismatch", "exclude", "--format", "json"]
    done = runner.invoke(app, [*base, *flags])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert (data["n_models"], data["n_mismatched"]) == (29, 32)
    rows = {r["model"]: r for r in data["rows"]}
    assert (
        rows["DeepSeek-Coder-V2_5shots"]["n_input"],
        rows["DeepSeek-Coder-V2_5shots"]["n_items"],
    ) == (10_351, 10_294)
    assert (
        rows["Meta-Llama-3_1-70B-Instruct_5shots"]["rank"]
        < rows["DeepSeek-Coder-V2_5shots"]["rank"]
    )
