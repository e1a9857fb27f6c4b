"""OpenCompass results in each layout of ``details``, folders of models, what is refused.

The fixtures under fixtures/opencompass/ follow the writers at open-compass/opencompass
0.3.9 and 0.5.0 (``tasks/openicl_eval.py`` ``format_details``; ``BaseEvaluator.evaluate``;
the inferencers' output handlers), field order and ``indent=4`` included:
``v0.3.9/`` and ``v0.5.0/`` stand for ``outputs/<config>/<timestamp>/``. The layouts only
written by other versions or on failure paths are built here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe, load
from evalsig.data.readers import READERS, ReadOptions
from evalsig.data.readers import describe as describe_with
from evalsig.data.readers.opencompass import OPENCOMPASS
from evalsig.errors import AlignmentError, DataError, FormatError

FIXTURES = Path(__file__).parent / "fixtures"
OLD = FIXTURES / "opencompass" / "v0.3.9"
NEW = FIXTURES / "opencompass" / "v0.5.0"
INDEXED = "opencompass v0.1.7-v0.4.2 (details keyed by sample index)"
INDEXED_LISTS = "opencompass v0.4.1-v0.4.2 (details keyed by sample index, one-element lists)"
INDEXED_TYPED = "opencompass v0.5 or later (details keyed by sample index, no evaluator details)"
BY_EXAMPLE = "opencompass v0.4.1 or later (details per example_abbr, one value per repeat)"
RAW = "opencompass v0.2.2-v0.4.2 (the evaluator's own details, not reformatted)"
PREDICTIONS = "opencompass predictions file (scored here as prediction == answer)"


def _write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=4, ensure_ascii=False), encoding="utf-8")
    return path


def _v041(correct: list[bool]) -> dict[str, Any]:
    """v0.4.1-v0.4.2 with n = 1: format_details copies the evaluator's flattened lists."""
    details = {
        str(i): {
            "prompt": [{"role": "HUMAN", "prompt": f"Question {i}"}],
            "origin_prediction": f"The answer is {i}",
            "predictions": [str(i)],
            "references": [str(i) if ok else "x"],
            "correct": [ok],
        }
        for i, ok in enumerate(correct)
    }
    return {"accuracy": 100 * sum(correct) / len(correct), "details": details, "type": "GEN"}


def _raw(details: object) -> dict[str, Any]:
    """v0.2.2-v0.4.2 when format_details failed: the evaluator's details as it returned them."""
    return {"accuracy": 50.0, "details": details}


def _by_example(values: list[Any], field: str = "correct") -> dict[str, Any]:
    """v0.4.1+: one entry per example_abbr, each field a list of one value per repeat."""
    details = [
        {"example_abbr": f"math_{i}", "pred": ["1"], "answer": ["1"], field: v}
        for i, v in enumerate(values)
    ]
    return {"accuracy": 50.0, "details": details}


# --- layouts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "layout", "task", "sums"),
    [
        (OLD / "results/qwen2-7b/gsm8k.json", INDEXED, "gsm8k", [1, 1, 0, 1]),
        (OLD / "results/qwen2-7b/piqa.json", INDEXED, "piqa", [1, 0, 1, 1]),
        (NEW / "results/qwen2.5-7b/gsm8k.json", BY_EXAMPLE, "gsm8k", [1, 1, 1, 0]),
        (NEW / "results/qwen2.5-7b/aime2024.json", BY_EXAMPLE, "aime2024", [2, 1, 0, 2]),
        (NEW / "results/qwen2.5-7b/piqa.json", INDEXED_TYPED, "piqa", [1, 0, 1, 1]),
    ],
)
def test_every_written_layout(path: Path, layout: str, task: str, sums: list[int]) -> None:
    described = describe(path)
    assert described.formats == ("opencompass",)
    assert described.layouts == (layout,)
    assert [(t.name, t.n_items, t.metrics) for t in described.tasks] == [(task, 4, ("correct",))]
    table = load(path)
    assert table.item_ids is not None
    assert table.item_ids.tolist() == ["0", "1", "2", "3"]
    assert table.sums.tolist() == sums


def test_repeats_are_runs_and_g_pass_is_not_read() -> None:
    path = NEW / "results/qwen2.5-7b/aime2024.json"
    (task,) = describe(path).tasks
    assert task.runs == (2, 2)
    table = load(path)
    assert table.n_runs == 2
    assert table.counts.tolist() == [2, 2, 2, 2]
    assert table.mean == pytest.approx(5 / 8)  # "accuracy (2 runs average)": 62.5
    assert any("2 repeats of each sample" in note for note in table.notes)


def test_v0_4_1_one_element_lists(tmp_path: Path) -> None:
    path = _write(tmp_path / "results/m/gsm8k.json", _v041([True, False, True]))
    assert describe(path).layouts == (INDEXED_LISTS,)
    table = load(path)
    assert table.sums.tolist() == [1, 0, 1]
    assert table.keys is not None
    assert table.keys.tolist() == ["0", "x", "2"]  # the list around the reference is removed


@pytest.mark.parametrize(
    "details",
    [
        [{"pred": "A", "answer": "A", "correct": True}, {"pred": "B", "answer": "C", "correct": 0}],
        {"0": {"prompt": "p", "pred": "A", "refr": "A", "is_correct": True},
         "1": {"prompt": "p", "pred": "B", "refr": "C", "is_correct": False}},
    ],
)  # fmt: skip
def test_the_evaluators_own_details(tmp_path: Path, details: object) -> None:
    path = _write(tmp_path / "ds.json", _raw(details))
    assert describe(path).layouts == (RAW,)
    assert load(path).sums.tolist() == [1, 0]


def test_several_score_fields_are_chosen_with_metric(tmp_path: Path) -> None:
    details = [
        {"pred": "A", "answer": "A", "correct": True, "score": 0.5},
        {"pred": "B", "answer": "C", "correct": False, "score": 0.25},
    ]
    path = _write(tmp_path / "ds.json", _raw(details))
    with pytest.raises(DataError, match=r"several metrics \('correct', 'score'\)"):
        load(path)
    assert load(path, metric="score").sums.tolist() == [0.5, 0.25]


def test_detection_reads_past_a_long_first_record(tmp_path: Path) -> None:
    document = _v041([True, False])
    document["details"]["0"]["origin_prediction"] = "y" * (1 << 20)
    path = _write(tmp_path / "results/m/gsm8k.json", document)
    assert describe(path).formats == ("opencompass",)
    assert load(path).sums.tolist() == [1, 0]


# --- pairing ---------------------------------------------------------------------------------


def test_two_models_compare_and_versions_pair_by_sample_index() -> None:
    qwen, llama = OLD / "results/qwen2-7b/gsm8k.json", OLD / "results/llama3-8b/gsm8k.json"
    result = evalsig.compare(load(qwen), load(llama))
    assert result.n_items == 4
    assert result.estimate == pytest.approx(-0.25)
    newer = load(NEW / "results/qwen2.5-7b/gsm8k.json")  # 'answer': ['72'] vs 'references'
    assert evalsig.compare(load(qwen), newer).n_items == 4


def test_a_different_reference_is_a_mismatch(tmp_path: Path) -> None:
    document = json.loads((NEW / "results/qwen2.5-7b/gsm8k.json").read_text(encoding="utf-8"))
    document["details"][1]["answer"] = ["11"]
    other = _write(tmp_path / "results/m/gsm8k.json", document)
    with pytest.raises(AlignmentError, match="different content key"):
        evalsig.compare(load(NEW / "results/qwen2.5-7b/gsm8k.json"), load(other))


# --- folders and models ----------------------------------------------------------------------


def test_a_model_folder_reads_each_dataset_as_a_task() -> None:
    described = describe(NEW / "results/qwen2.5-7b")
    assert [t.name for t in described.tasks] == ["aime2024", "gsm8k", "piqa"]
    assert set(described.layouts) == {BY_EXAMPLE, INDEXED_TYPED}
    assert any("passed over 1 file(s)" in n and "math_llmjudge" in n for n in described.notes)
    assert load(NEW / "results/qwen2.5-7b", task="piqa").sums.tolist() == [1, 0, 1, 1]


def test_several_models_are_chosen_with_where() -> None:
    with pytest.raises(DataError, match=r"2 models \('internlm3-8b', 'qwen2.5-7b'\)"):
        describe(NEW)
    table = load(NEW, where={"model": "internlm3-8b"})
    assert table.sums.tolist() == [1, 0, 1, 1]
    assert load(NEW / "results", where={"model": "internlm3-8b"}).sums.tolist() == [1, 0, 1, 1]
    with pytest.raises(DataError, match="no model 'gpt-4'; models: 'internlm3-8b'"):
        load(NEW, where={"model": "gpt-4"})
    with pytest.raises(DataError, match="is model 'qwen2-7b' \\(its folder\\), not 'llama3-8b'"):
        load(OLD / "results/qwen2-7b/gsm8k.json", where={"model": "llama3-8b"})
    with pytest.raises(DataError, match="can only choose 'model'"):
        load(OLD / "results/qwen2-7b/gsm8k.json", where={"dataset": "gsm8k"})


# --- refused ---------------------------------------------------------------------------------


def test_aggregate_results_are_refused_with_the_fix(tmp_path: Path) -> None:
    shutil.copytree(OLD, tmp_path / "run")
    path = _write(tmp_path / "run/results/qwen2-7b/gsm8k.json", {"accuracy": 75.0})
    with pytest.raises(FormatError, match="rerun the evaluation with OpenCompass's --dump-eval"):
        load(path)
    repeated = _write(tmp_path / "elsewhere.json", {"accuracy (4 runs average)": 50.0})
    with pytest.raises(FormatError, match="aggregate scores only"):
        load(repeated)
    _write(tmp_path / "run/results/qwen2-7b/piqa.json", {"accuracy": 75.0})
    with pytest.raises(FormatError, match="none of its 2 results file\\(s\\)"):
        load(tmp_path / "run/results/qwen2-7b")


def test_llm_judge_details_hold_no_score() -> None:
    with pytest.raises(FormatError, match="LLM-judge evaluator"):
        load(NEW / "results/qwen2.5-7b/math_llmjudge.json")
    with pytest.raises(FormatError, match="LLM-judge evaluator"):
        load(NEW / "results/qwen2.5-7b", task="math_llmjudge")


def test_predictions_are_read_only_as_prediction_equals_answer() -> None:
    path = OLD / "predictions/qwen2-7b/piqa.json"
    with pytest.raises(FormatError, match="--prediction prediction --answer gold"):
        load(path)
    options = ReadOptions(prediction_column="prediction", answer_column="gold")
    assert describe_with(path, options).layouts == (PREDICTIONS,)
    table = load(path, prediction_column="prediction", answer_column="gold")
    assert table.sums.tolist() == [1, 0, 1, 1]  # the PPL label chosen == the gold label
    assert any("without OpenCompass's post-processing" in n for n in table.notes)


# --- malformed -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_by_example([[True], ["yes"]]), r"details\[1\]: 'correct' is \['yes'\], not a boolean"),
        (_by_example([[True], True]), r"details\[1\]: 'correct' is True, not a list of one score"),
        (_by_example([[True], [True, False]]), r"details\[1\]: 'correct' has 2 values, but the"),
        (_raw({"0": {"answer": "A", "correct": [True, False]}, "1": {"answer": "B", "correct": 1}}),
         r"details\['0'\]: 'correct' is a list of 2 values"),
        (_raw([{"pred": "A", "answer": "A", "correct": True}, {"pred": "B", "answer": "B"}]),
         r"details\[1\]: has none of the score fields 'correct'"),
        (_raw([{"pred": "A", "answer": "A", "correct": True}, {"pred": "B", "correct": False}]),
         r"details\[1\]: has no field 'answer' \(the content key\)"),
    ],
)  # fmt: skip
def test_malformed_records_name_the_record_and_field(
    tmp_path: Path, document: dict[str, Any], message: str
) -> None:
    path = _write(tmp_path / "ds.json", document)
    with pytest.raises(FormatError, match=message):
        load(path)
    described = describe(path, skip_bad_lines=True)
    assert described.skipped == 1
    assert described.tasks[0].n_items == 1


def test_a_bad_example_abbr_is_refused(tmp_path: Path) -> None:
    document = _by_example([[True], [False]])
    document["details"][1]["example_abbr"] = "math"
    path = _write(tmp_path / "ds.json", document)
    with pytest.raises(FormatError, match="'example_abbr' is 'math', not '<dataset>_<sample"):
        load(path)
    assert load(path, skip_bad_lines=True).n_items == 1


# --- the command line and the other readers --------------------------------------------------


def test_inspect_names_harness_and_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", "inspect", str(OLD / "results/qwen2-7b/gsm8k.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert INDEXED in done.stdout


def test_cli_compares_two_model_folders() -> None:
    from typer.testing import CliRunner

    from evalsig.cli import app

    a, b = OLD / "results/qwen2-7b", OLD / "results/llama3-8b"
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--task", "piqa"])
    assert result.exit_code == 0, result.output
    assert "n = 4 items" in result.stdout
    result = CliRunner().invoke(app, ["inspect", str(NEW)])
    assert result.exit_code == 4
    assert "--where model=NAME" in result.output


def test_other_formats_are_left_alone(tmp_path: Path) -> None:
    others = [
        p
        for folder in ("lm_eval", "lighteval", "lmms_eval")
        for p in (FIXTURES / folder).rglob("*")
        if p.is_file()
    ]
    assert others
    for path in others:
        assert not OPENCOMPASS.sniff(path, path.read_bytes()[: 1 << 20]), path
    plain = _write(tmp_path / "results/m/scores.json", {"q1": 1, "q2": 0})
    records = _write(tmp_path / "records.json", [{"id": "q1", "correct": True, "answer": "A"}])
    assert describe(plain).formats == ("json",)
    assert describe(records).formats == ("json",)
    mine = list(READERS).index("opencompass")
    assert all(
        not READERS[name].sniff(p, p.read_bytes()[: 1 << 20])
        for name in list(READERS)[:mine]
        for p in sorted((FIXTURES / "opencompass").rglob("*.json"))
    )
