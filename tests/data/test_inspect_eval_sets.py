"""Inspect logs of several models (a real eval set, a glob), logs never scored, log-folder
manifests, unknown log versions and logs whose names look like another harness's: real
offline runs of ``inspect_ai`` with mock models, read as files."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai", reason="real Inspect logs need inspect_ai")

pytestmark = [
    # inspect-ai 0.3.285 passes tenacity 9.2's deprecated 'initial' on every model call
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    # and leaves anyio memory streams for the garbage collector
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in.*MemoryObjectReceiveStream"
        ":pytest.PytestUnraisableExceptionWarning"
    ),
]

from inspect_ai import Task, eval, eval_set  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import match  # noqa: E402

import evalsig  # noqa: E402
from evalsig.cli import app  # noqa: E402
from evalsig.data import describe, load  # noqa: E402
from evalsig.data.models import load_models  # noqa: E402
from evalsig.errors import DataError, FormatError  # noqa: E402

runner = CliRunner()

ANSWERS = {"gpt-5": "ABABABAB", "claude": "ABABAAAA", "gemini": "BBBBBBBB"}
"""Each mock model's answer to the eight questions (the targets alternate A, B)."""
TARGETS = "ABABABAB"
ACCURACY = {
    f"mockllm/{name}": sum(a == t for a, t in zip(answers, TARGETS, strict=True)) / 8
    for name, answers in ANSWERS.items()
}


def _replies(answers: str) -> Any:
    def reply(messages: Any, *_: object) -> ModelOutput:
        text = str(messages[-1].content if isinstance(messages, list) else messages)
        number = int(text.rsplit("q", 1)[-1])
        output = ModelOutput.from_content(model="mockllm", content=answers[number])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return reply


def _task() -> Task:
    samples = [Sample(id=f"q{i}", input=f"question q{i}", target=t) for i, t in enumerate(TARGETS)]
    return Task(dataset=samples, scorer=match(), name="quiz")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real eval set of three mock models, and a log written without scoring."""
    root = tmp_path_factory.mktemp("inspect")
    models = [
        get_model(f"mockllm/{name}", custom_outputs=_replies(answers))
        for name, answers in ANSWERS.items()
    ]
    done, _ = eval_set([_task()], model=models, log_dir=str(root / "set"), display="none")
    assert done
    unscored = root / "unscored"
    eval(_task(), model=models[0], log_dir=str(unscored), display="none", score=False)
    as_json = root / "json"
    eval(_task(), model=models[1], log_dir=str(as_json), display="none", log_format="json")
    gc.collect()  # Inspect's leftover streams, now (under this module's filters), not later
    return {"set": root / "set", "unscored": unscored, "json": next(as_json.glob("*.json"))}


def test_the_eval_set_folder_holds_its_manifests_beside_the_logs(logs: dict[str, Path]) -> None:
    names = sorted(p.name for p in logs["set"].iterdir())
    assert {"eval-set.json", "logs.json"} <= set(names)
    assert sum(name.endswith(".eval") for name in names) == 3


def test_several_models_are_never_runs_of_one(logs: dict[str, Path]) -> None:
    """gpt-5, claude and gemini were pooled as 3 runs of one model at 50%."""
    expected = r"holds Inspect logs of 3 models \(mockllm/[\w-]+: 1 file.*evalsig leaderboard"
    for given in (logs["set"], str(logs["set"] / "*.eval"), sorted(logs["set"].glob("*.eval"))):
        with pytest.raises(DataError, match=expected):
            load(given)
    with pytest.raises(DataError, match="--where model=NAME"):
        load(logs["set"])


def test_where_keeps_one_model_of_the_set(logs: dict[str, Path]) -> None:
    for model, accuracy in ACCURACY.items():
        table = load(logs["set"], where={"model": model})
        assert (table.n_items, table.n_runs, table.mean) == (8, 1, accuracy)
        assert table.origin is not None
        assert table.origin.model == model
    with pytest.raises(DataError, match=r"no file of model 'mockllm/o3'.*'mockllm/gpt-5'"):
        load(logs["set"], where={"model": "mockllm/o3"})
    with pytest.raises(DataError, match="chosen by 'model' only"):
        load(logs["set"], where={"task": "quiz"})


def test_the_set_is_described_model_by_model(logs: dict[str, Path]) -> None:
    d = describe(logs["set"])
    assert sorted(d.models) == sorted(ACCURACY)
    assert [(t.name, t.n_items, t.runs) for t in d.tasks] == [("quiz", 8, (1, 1))]
    assert any("3 models" in note and "evalsig leaderboard" in note for note in d.notes)


def test_the_set_is_ranked_model_by_model(logs: dict[str, Path]) -> None:
    from evalsig.data.models import harness_models

    scores = load_models(logs["set"])
    assert dict(zip(scores.names, scores.means.tolist(), strict=True)) == ACCURACY
    named = harness_models(str(logs["set"] / "*.eval"))
    assert named is not None
    assert {model: tables["quiz"].mean for model, tables in named.items()} == ACCURACY
    board = runner.invoke(app, ["leaderboard", str(logs["set"]), "--format", "json"])
    assert board.exit_code == 0, board.output
    result = json.loads(board.stdout)
    assert {row["model"]: row["score"] for row in result["rows"]} == ACCURACY


def test_compare_on_the_set_names_the_models(logs: dict[str, Path]) -> None:
    done = runner.invoke(app, ["compare", str(logs["set"]), str(logs["set"])])
    assert done.exit_code == 4
    assert "holds Inspect logs of 3 models" in done.stderr
    assert "mockllm/claude" in done.stderr
    assert "evalsig leaderboard" in done.stderr
    picked = runner.invoke(
        app,
        [
            "compare", str(logs["set"]), str(logs["set"]),
            "--baseline-where", "model=mockllm/gemini", "--candidate-where", "model=mockllm/gpt-5",
        ],
    )  # fmt: skip
    assert picked.exit_code == 0, picked.output
    assert "+50.00 pp" in picked.stdout  # gpt-5 (8 of 8) against gemini (4 of 8)


def test_the_manifests_are_named_for_what_they_are(logs: dict[str, Path]) -> None:
    for name, what in (("logs.json", "the headers of the logs"), ("eval-set.json", "eval set")):
        with pytest.raises(FormatError, match=rf"{name}: not an Inspect log but .*{what}"):
            load(logs["set"] / name)


def test_an_unscored_log_is_described_and_refused(logs: dict[str, Path]) -> None:
    d = describe(logs["unscored"], skip_bad_lines=True)
    assert [(t.name, t.n_items, t.metrics, t.scale) for t in d.tasks] == [
        ("quiz", 8, (), "no scores")
    ]
    assert any("no scores" in n and "inspect score" in n for n in d.notes)
    with pytest.raises(FormatError, match=r"no scores: none of its 8 samples .*inspect score"):
        load(logs["unscored"])
    shown = runner.invoke(app, ["inspect", str(logs["unscored"])])
    assert shown.exit_code == 0, shown.output
    assert "no scores" in shown.stdout
    assert "inspect score" in shown.stdout
    refused = runner.invoke(app, ["score", str(logs["unscored"])])
    assert refused.exit_code == 4
    assert "no scores" in refused.stderr


def test_a_log_without_samples_is_named_for_what_it_is(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """Named like lm-eval's samples, an Inspect log was called 'not an lm-evaluation-harness
    sample'."""
    document = json.loads(logs["json"].read_bytes())
    document["samples"] = None
    path = tmp_path / "samples_quiz.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(FormatError, match=r"the log holds no samples") as raised:
        load(path)
    assert "lm-evaluation-harness" not in str(raised.value)
    with pytest.raises(FormatError, match=r"an Inspect AI log .* --input-format inspect"):
        load(path, format="lm-eval")


def test_an_unknown_log_version_is_said(logs: dict[str, Path], tmp_path: Path) -> None:
    document = json.loads(logs["json"].read_bytes())
    document["version"] = 9
    path = tmp_path / "v9.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    table = load(path)
    assert table.origin is not None
    assert table.origin.layout == "unknown Inspect log format 9; read as log format 2 (JSON)"
    assert any("unknown Inspect log format 9; read as log format 2" in n for n in table.notes)
    assert describe(logs["json"]).layouts == ("inspect log format 2 (JSON)",)


def test_an_empty_model_name_is_refused(logs: dict[str, Path], tmp_path: Path) -> None:
    document = json.loads(logs["json"].read_bytes())
    document["eval"]["model"] = " "
    path = tmp_path / "nameless.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(FormatError, match=r"the log's model is ' ' \('eval.model'\), not a name"):
        load(path)


def test_a_copied_log_is_noted_as_one_run_twice(logs: dict[str, Path], tmp_path: Path) -> None:
    first = next(logs["set"].glob("*.eval"))
    copy = tmp_path / "copy.eval"
    shutil.copy(first, copy)
    table = load([first, copy])
    assert table.n_runs == 2
    assert any(
        f"{first} and {copy} are byte-identical" in n and "count one run twice" in n
        for n in table.notes
    )
    assert evalsig.score(table).notes  # the note reaches the result
