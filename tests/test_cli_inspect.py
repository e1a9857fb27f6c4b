"""``evalsig inspect`` shows each task's score with the interval of ``evalsig score``: text,
markdown and JSON, per metric, and what could not be scored."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.data import load
from evalsig.data.provenance import without_time
from evalsig.report import score as views
from evalsig.score import score

runner = CliRunner()


def _strict(name: str) -> float:
    raise ValueError(f"non-standard JSON constant {name}")


@pytest.fixture
def tasks_csv(tmp_path: Path) -> Path:
    """Two tasks, 40 questions each, 2 seeds: arc gets 3 of 4 right, gsm 1 of 2."""
    path = tmp_path / "tasks.csv"
    rows = [
        f"{task},q{i},{int(i % modulus != 0)},{seed}"
        for task, modulus in (("arc", 4), ("gsm", 2))
        for i in range(40)
        for seed in (1, 2)
    ]
    path.write_text("task,question,correct,seed\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


COLUMNS = ("--id", "question", "--run", "seed", "--task-column", "task")


def test_each_task_has_the_score_and_interval_of_evalsig_score(tasks_csv: Path) -> None:
    expected = {
        task: score(
            load(tasks_csv, id_column="question", run_column="seed", task_column="task", task=task)
        ).to_dict()
        for task in ("arc", "gsm")
    }
    assert expected["arc"]["method"] == "t"  # two runs: t on per-item means
    as_json = runner.invoke(app, ["inspect", str(tasks_csv), *COLUMNS, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    (entry,) = json.loads(as_json.stdout, parse_constant=_strict)
    assert [(s["task"], s["metric"], s["filter"], s["error"]) for s in entry["scores"]] == [
        ("arc", "score", None, None),
        ("gsm", "score", None, None),
    ]
    for scored in entry["scores"]:
        assert without_time(scored["score"]) == without_time(expected[scored["task"]])
    text = runner.invoke(app, ["inspect", str(tasks_csv), *COLUMNS])
    assert text.exit_code == 0, text.output
    for task, r in expected.items():
        row = [task, "score", views.value(r, r["estimate"]), *views.interval(r).split(), "t"]
        assert any(line.split()[: len(row)] == row for line in text.stdout.splitlines()), row
    assert "75.00%" in text.stdout
    assert "scores (the interval of evalsig score, method auto):" in text.stdout
    markdown = runner.invoke(app, ["inspect", str(tasks_csv), *COLUMNS, "--format", "markdown"])
    assert markdown.exit_code == 0, markdown.output
    r = expected["gsm"]
    assert f"| gsm | score | 50.00% | {views.interval(r)} | t | {views.sizes(r)} |" in (
        markdown.stdout
    )


def _inspect_eval(path: Path, outcomes: dict[str, tuple[str, str]]) -> Path:
    """An Inspect .eval archive of one epoch, each sample scored by two scorers."""
    header = {
        "version": 2,
        "status": "success",
        "eval": {"task": "qa", "model": "openai/m", "config": {"epochs": 1}},
        "plan": {"steps": []},
        "results": {
            "total_samples": len(outcomes),
            "scores": [{"name": "exact"}, {"name": "judge"}],
        },
        "stats": {},
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
        for item, (exact, judge) in outcomes.items():
            sample: dict[str, Any] = {
                "id": item,
                "epoch": 1,
                "input": f"question {item}",
                "target": "ok",
                "messages": [],
                "output": {"completion": "..."},
                "scores": {"exact": {"value": exact}, "judge": {"value": judge}},
                "metadata": {},
            }
            archive.writestr(f"samples/{item}_epoch_1.json", json.dumps(sample))
        archive.writestr("summaries.json", "[]")
        archive.writestr("header.json", json.dumps(header))
    return path


def test_every_metric_of_a_task_is_scored(tmp_path: Path) -> None:
    outcomes = {f"s{i}": ("C" if i % 3 else "I", "C" if i % 5 else "I") for i in range(30)}
    path = _inspect_eval(tmp_path / "qa.eval", outcomes)
    done = runner.invoke(app, ["inspect", str(path), "--format", "json"])
    assert done.exit_code == 0, done.output
    (entry,) = json.loads(done.stdout, parse_constant=_strict)
    assert [(s["task"], s["metric"]) for s in entry["scores"]] == [("qa", "exact"), ("qa", "judge")]
    for scored in entry["scores"]:
        expected = score(load(path, metric=scored["metric"])).to_dict()
        assert without_time(scored["score"]) == without_time(expected)
    assert [s["score"]["n_correct"] for s in entry["scores"]] == [20, 24]
    text = runner.invoke(app, ["inspect", str(path)]).stdout
    assert "qa    exact   66.67%" in text
    assert "qa    judge   80.00%" in text


def test_a_task_that_cannot_be_scored_says_why_and_the_rest_still_show(tmp_path: Path) -> None:
    path = tmp_path / "partly.csv"
    rows = [f"ok,q{i},{i % 2}" for i in range(10)] + ["one,q0,1", "one,q1,abc"]
    path.write_text("task,id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = ["inspect", str(path), "--task-column", "task"]
    as_json = runner.invoke(app, [*args, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    (entry,) = json.loads(as_json.stdout, parse_constant=_strict)
    ok, one = entry["scores"]
    assert (ok["task"], ok["score"]["estimate"], ok["error"]) == ("ok", 0.5, None)
    assert one["score"] is None
    assert "column 'score' has 1 non-numeric value(s): 'abc' at line 13" in one["error"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0
    assert "one   score   not scored (below)  -" in text.stdout
    assert f"one (score): not scored: {one['error']}" in text.stdout
    assert "ok    score   50.00%" in text.stdout


def test_markdown_escapes_the_task_names(tmp_path: Path) -> None:
    path = tmp_path / "hostile.csv"
    hostile = "<script>alert(1)</script>|x"
    rows = [f'"{hostile}",q{i},{i % 2}' for i in range(12)]
    path.write_text("task,id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    done = runner.invoke(
        app, ["inspect", str(path), "--task-column", "task", "--format", "markdown"]
    )
    assert done.exit_code == 0, done.output
    assert "<script>" not in done.stdout
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\|x | score | 50.00%" in done.stdout


def test_several_metrics_and_filters_each_get_their_score() -> None:
    folder = Path(__file__).parent / "data/fixtures/lm_eval/v0.4.7/EleutherAI__pythia-160m"
    done = runner.invoke(app, ["inspect", str(folder), "--format", "json"])
    assert done.exit_code == 0, done.output
    (entry,) = json.loads(done.stdout, parse_constant=_strict)
    combos = [(s["task"], s["metric"], s["filter"]) for s in entry["scores"]]
    assert combos == [
        ("arc_easy", "acc", "none"),
        ("arc_easy", "acc_norm", "none"),
        ("gsm8k", "exact_match", "flexible-extract"),
        ("gsm8k", "exact_match", "strict-match"),
    ]
    for (task, metric, chosen), scored in zip(combos, entry["scores"], strict=True):
        expected = score(load(folder, task=task, metric=metric, filter=chosen)).to_dict()
        assert without_time(scored["score"]) == without_time(expected)
    assert [s["score"]["n_correct"] for s in entry["scores"]] == [2, 2, 2, 1]


def _helm_run(folder: Path) -> Path:
    """A HELM run whose instances carry a score (exact_match) and HELM's bookkeeping:
    token counts, a runtime, the batch size, a finish reason (all 0/1 or counts)."""
    folder.mkdir()
    (folder / "run_spec.json").write_text(json.dumps({"name": "toy:model=m"}), encoding="utf-8")

    def stat(name: str, value: float) -> dict[str, Any]:
        return {"name": {"name": name, "split": "test"}, "count": 1, "sum": value, "mean": value}

    entries = [
        {
            "instance_id": f"id{i}",
            "train_trial_index": 0,
            "stats": [
                stat("exact_match", float(i % 4 != 0)),
                stat("num_output_tokens", 1.0),
                stat("num_prompt_tokens", 300.0 + i),
                stat("inference_runtime", 0.25 + i / 100),
                stat("batch_size", 1.0),
                stat("finish_reason_stop", 1.0),
            ],
        }
        for i in range(12)
    ]
    (folder / "per_instance_stats.json").write_text(json.dumps(entries), encoding="utf-8")
    return folder


def test_bookkeeping_statistics_are_described_not_scored(tmp_path: Path) -> None:
    """HELM's token counts and runtimes were shown as accuracies with Clopper-Pearson
    intervals (num_output_tokens '100.00%', batch_size '100.00%')."""
    run = _helm_run(tmp_path / "run")
    as_json = runner.invoke(app, ["inspect", str(run), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    (entry,) = json.loads(as_json.stdout, parse_constant=_strict)
    assert [(s["metric"], s["score"]["estimate"]) for s in entry["scores"]] == [
        ("exact_match", 0.75)
    ]
    (task,) = entry["tasks"]
    described = {metric: (mean, n) for metric, mean, n in task["descriptive"]}
    assert set(described) == {
        "batch_size", "finish_reason_stop", "inference_runtime", "num_output_tokens",
        "num_prompt_tokens",
    }  # fmt: skip
    assert described["num_prompt_tokens"] == (pytest.approx(305.5), 12)
    text = runner.invoke(app, ["inspect", str(run)])
    assert text.exit_code == 0, text.output
    _, _, after = text.stdout.partition("scores (the interval of evalsig score")
    scores, _, bookkeeping = after.partition("bookkeeping statistics")
    assert "exact_match" in scores
    assert "num_output_tokens" not in scores
    assert "inference_runtime" not in scores
    assert "not scores, so their mean and no interval" in bookkeeping
    assert any(
        line.split()[-3:] == ["num_prompt_tokens", "305.5", "12"]
        for line in bookkeeping.splitlines()
    )
    markdown = runner.invoke(app, ["inspect", str(run), "--format", "markdown"])
    assert "| toy | num\\_prompt\\_tokens | 305.5 | 12 |" in markdown.stdout
    chosen = load(run, metric="num_output_tokens")  # still readable when asked for
    assert any("bookkeeping rather than a score" in n for n in chosen.notes)


def test_html_is_rendered_by_the_report_and_escapes_every_name(tmp_path: Path) -> None:
    """--format html printed the text view, names unescaped."""
    hostile = "<script>alert(1)</script>"
    path = tmp_path / "hostile.csv"
    rows = [f'"{hostile}",q{i},{i % 2}' for i in range(12)]
    path.write_text("task,id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    done = runner.invoke(app, ["inspect", str(path), "--task-column", "task", "--format", "html"])
    assert done.exit_code == 0, done.output
    page = done.stdout
    assert page.lstrip().startswith("<!DOCTYPE html>")
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'class="result kind-inspect"' in page
    assert "<td>50.00%</td>" in page
    assert "<table" in page


def test_an_unscored_inspect_log_is_described(tmp_path: Path) -> None:
    outcomes = {f"s{i}": ("C", "I") for i in range(4)}
    path = _inspect_eval(tmp_path / "raw.eval", outcomes)
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    header = json.loads(members["header.json"])
    header["results"] = {"total_samples": 4, "scores": []}
    members["header.json"] = json.dumps(header).encode()
    for name in members:
        if name.startswith("samples/"):
            sample = json.loads(members[name])
            sample["scores"] = {}
            members[name] = json.dumps(sample).encode()
    unscored = tmp_path / "unscored.eval"
    with zipfile.ZipFile(unscored, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    done = runner.invoke(app, ["inspect", str(unscored)])
    assert done.exit_code == 0, done.output
    assert "no scores" in done.stdout
    assert f"(inspect score {unscored})" in done.stdout.replace("\n  ", " ")
    as_json = runner.invoke(app, ["inspect", str(unscored), "--format", "json"])
    (entry,) = json.loads(as_json.stdout, parse_constant=_strict)
    assert [(t["n_items"], t["scale"]) for t in entry["tasks"]] == [(4, "no scores")]
    assert entry["scores"] == []


def test_byte_identical_runs_are_shown(tmp_path: Path) -> None:
    first = tmp_path / "a1.csv"
    first.write_text("id,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(10)))
    (tmp_path / "a2.csv").write_bytes(first.read_bytes())
    done = runner.invoke(app, ["inspect", str(tmp_path / "a[12].csv")])
    assert done.exit_code == 0, done.output
    assert "are byte-identical" in done.stdout
