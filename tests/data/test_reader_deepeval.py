"""DeepEval test runs in each layout deepeval has written, their keys, names and errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import describe, load
from evalsig.data.readers.deepeval import DEEPEVAL
from evalsig.errors import AlignmentError, DataError, FormatError

FIXTURES = Path(__file__).parent / "fixtures" / "deepeval"
V4 = FIXTURES / "v4" / "test_run_20260812_101500.json"
QUESTIONS = ["capital of France", "legs does a spider", "wrote Hamlet", "12 times 12"]
RELEVANCY = [1.0, 0.75, 0.5, 0.25]
"""The fixtures' 'Answer Relevancy' score of question k (threshold 0.5)."""

LAYOUTS = {
    "v0.20/20240121_101500": (
        "deepeval v0.20.17-v0.20.71 (dict_test_cases, metricsMetadata)",
        "test_chatbot.py",
        "test_answer_relevancy[test_case{k}]",
    ),
    "v0.21/20240605_142000": (
        "deepeval v0.20.72-v0.21.77 (metricsMetadata)",
        "deepeval",
        "test_case_{k}",
    ),
    "v3.5/20250916_093000": ("deepeval v0.21.78-v3.9.7 (metricsData)", "deepeval", "test_case_{k}"),
    "v4/test_run_20260812_101500.json": (
        "deepeval v3.9.8 or later (test_run_<timestamp>.json)",
        "deepeval",
        "test_case_{k}",
    ),
    "latest/.latest_test_run.json": (
        "deepeval v3.0.6 or later (.latest_test_run.json, testRunData)",
        "deepeval",
        "test_case_{k}",
    ),
}


def _run(path: Path = V4) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write(path: Path, run: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run), encoding="utf-8")
    return path


def _by_item(table: evalsig.ScoreTable) -> dict[str, float]:
    assert table.item_ids is not None
    return dict(zip(map(str, table.item_ids), table.means.tolist(), strict=True))


@pytest.mark.parametrize("fixture", sorted(LAYOUTS))
def test_every_layout_reads_each_test_case_by_name(fixture: str) -> None:
    layout, task, name = LAYOUTS[fixture]
    path = FIXTURES / fixture
    described = describe(path)
    assert described.formats == ("deepeval",)
    assert described.layouts == (layout,)
    assert described.tasks[0].name == task
    assert described.tasks[0].n_items == 4
    table = load(path, task=task, metric="Answer Relevancy")
    assert _by_item(table) == {name.format(k=k): RELEVANCY[k] for k in range(4)}
    assert table.keys is not None
    assert len(set(table.keys)) == 4


def test_pass_fail_is_the_metric_name_with_success() -> None:
    table = load(V4, metric="Answer Relevancy:success")
    assert table.binary
    assert _by_item(table) == {
        "test_case_0": 1,
        "test_case_1": 1,
        "test_case_2": 1,
        "test_case_3": 0,
    }
    assert table.keys is not None
    assert str(table.keys[0]).endswith("|judge=gpt-4.1|threshold=0.5")
    assert any("metric='<name>:success'" in note for note in describe(V4).notes)


def test_several_metrics_must_be_chosen() -> None:
    with pytest.raises(DataError, match=r"several metrics \('Answer Relevancy', 'Correctness"):
        load(V4)
    assert load(V4, metric="Correctness [GEval]").mean == pytest.approx(0.65)


def test_conversations_are_a_task_of_their_own() -> None:
    new = load(FIXTURES / "v3.5" / "20250916_093000", task="deepeval (conversational)")
    assert _by_item(new) == {"conversational_test_case_0": 1.0}
    # before v3.0.8 a conversation's metric was stored on its last turn
    old = load(FIXTURES / "v0.21" / "20240605_142000", task="deepeval (conversational)")
    assert _by_item(old) == {"conversational_test_case_0/message_1": 0.9}


def test_two_models_compare_by_name_checked_by_content(tmp_path: Path) -> None:
    other = _run()
    other["hyperparameters"] = {"model": "gpt-4o-mini"}
    other["testCases"].reverse()  # async completion order: the file order means nothing
    for case in other["testCases"]:
        case["metricsData"][0]["score"] = 0.5
    candidate = _write(tmp_path / "mini" / "test_run_20260813_090000.json", other)
    result = evalsig.compare(
        load(V4, metric="Answer Relevancy"), load(candidate, metric="Answer Relevancy")
    )
    assert result.n_items == 4
    assert result.estimate == pytest.approx(0.5 - sum(RELEVANCY) / 4)


def test_runs_judged_by_another_model_are_not_paired() -> None:
    old = load(FIXTURES / "v0.21" / "20240605_142000", task="deepeval", metric="Answer Relevancy")
    with pytest.raises(AlignmentError, match=r"judge=gpt-4o' vs .*judge=gpt-4\.1'"):
        evalsig.compare(old, load(V4, metric="Answer Relevancy"))


def test_a_reordered_evaluate_list_stops_and_pairs_by_input(tmp_path: Path) -> None:
    shuffled = _run()
    cases = shuffled["testCases"]
    for case, name in zip(
        cases, ["test_case_1", "test_case_0", "test_case_3", "test_case_2"], strict=True
    ):
        case["name"] = name  # the same questions given to evaluate() in another order
    path = _write(tmp_path / "test_run_20260813_090000.json", shuffled)
    baseline = load(V4, metric="Answer Relevancy")
    with pytest.raises(AlignmentError, match="4 item\\(s\\) have a different content key"):
        evalsig.compare(baseline, load(path, metric="Answer Relevancy"))
    by_input = [load(p, metric="Answer Relevancy", id_column="input") for p in (V4, path)]
    assert _by_item(by_input[0]) == _by_item(by_input[1])
    assert evalsig.compare(*by_input).estimate == 0.0


def test_an_errored_metric_is_a_malformed_record_not_a_zero(tmp_path: Path) -> None:
    run = _run()
    failed = run["testCases"][2]["metricsData"][1]
    del failed["score"], failed["reason"]
    failed.update(success=False, error="RateLimitError: quota exceeded")
    run["testCases"][3]["metricsData"][1]["score"] = float("nan")  # json.dump writes NaN
    path = _write(tmp_path / "test_run_20260813_090000.json", run)
    with pytest.raises(
        FormatError,
        match=r"testCases\[2\]: 'test_case_2': metric 'Correctness \[GEval\]' has no score: "
        r"it errored \('RateLimitError: quota exceeded'\)",
    ):
        load(path, metric="Correctness [GEval]")
    skipped = load(path, metric="Correctness [GEval]", skip_bad_lines=True)
    assert _by_item(skipped) == {"test_case_0": 0.9, "test_case_1": 0.2}
    assert any("skipped 2 malformed record(s)" in note for note in skipped.notes)
    assert load(path, metric="Answer Relevancy").n_items == 4  # the other metric is whole
    assert any("'Correctness [GEval]' (2)" in note for note in describe(path).notes)


def test_a_test_case_without_the_chosen_metric_is_noted(tmp_path: Path) -> None:
    run = _run()
    del run["testCases"][0]["metricsData"][1]
    table = load(_write(tmp_path / "r.json", run), metric="Correctness [GEval]")
    assert table.n_items == 3
    assert any("1 test case(s) were not scored with metric" in note for note in table.notes)


def test_component_level_scores_are_named_and_refused(tmp_path: Path) -> None:
    run = _run()
    for case in run["testCases"]:
        span = {"uuid": "u1", "name": "retriever", "metricsData": case.pop("metricsData")}
        case["metricsData"] = []
        case["trace"] = {"retrieverSpans": [span], "llmSpans": []}
    with pytest.raises(FormatError, match="its scores are on trace spans"):
        load(_write(tmp_path / "r.json", run), metric="Answer Relevancy")


def test_one_name_for_several_test_cases_is_refused(tmp_path: Path) -> None:
    run = _run(FIXTURES / "v0.20" / "20240121_101500")
    for case in run["dict_test_cases"].values():
        case["name"] = "test_answer_relevancy"  # one test looping over its cases
    path = _write(tmp_path / "20240121_101500", run)
    with pytest.raises(DataError, match="name 'test_answer_relevancy' is shared by 4 test cases"):
        load(path)
    assert load(path, id_column="input").n_items == 4
    with pytest.raises(FormatError, match="got id_column='question'"):
        load(path, id_column="question")


def test_pytest_repeat_names_are_runs(tmp_path: Path) -> None:
    run = _run()
    repeated = []
    for k in (1, 2):
        for case in copy.deepcopy(run["testCases"]):
            case["name"] = f"test_chatbot[{case['name']}-{k}-2]"
            repeated.append(case)
    run["testCases"] = repeated
    table = load(_write(tmp_path / "r.json", run), metric="Answer Relevancy")
    assert (table.n_items, table.n_runs) == (4, 2)
    assert any("-r 2): read as 2 runs" in note for note in table.notes)


def test_several_files_of_one_model_are_runs(tmp_path: Path) -> None:
    second = _write(tmp_path / "test_run_20260813_090000.json", _run())
    assert load([V4, second], metric="Answer Relevancy").n_runs == 2


def test_a_file_holds_one_model_so_where_is_refused() -> None:
    with pytest.raises(DataError, match="hold one model's results"):
        load(V4, metric="Answer Relevancy", where={"model": "gpt-4o"})


def test_metadata_fields_are_clusters(tmp_path: Path) -> None:
    run = _run()
    for k, case in enumerate(run["testCases"]):
        case["metadata"] = {"topic": ["geography", "biology", "literature", "math"][k // 2 * 2]}
    path = _write(tmp_path / "r.json", run)
    table = load(path, metric="Answer Relevancy", cluster_column="metadata.topic")
    assert table.clusters is not None
    assert list(table.clusters) == ["geography", "geography", "literature", "literature"]


def test_a_link_only_latest_file_is_named_and_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path / ".deepeval" / ".latest_test_run.json",
        {"testRunLink": "https://app.confident-ai.com/project/p/evaluation/test-runs/r"},
    )
    with pytest.raises(FormatError, match="holds only the link to the test run on Confident AI"):
        load(path)


def test_a_run_longer_than_the_head_is_detected(tmp_path: Path) -> None:
    run = _run()
    run["testCases"][0]["actualOutput"] = "x" * (1 << 21)
    path = _write(tmp_path / "test_run_20260813_090000.json", run)
    assert describe(path).formats == ("deepeval",)


def test_cli_inspect_names_the_harness_and_version() -> None:
    result = CliRunner().invoke(app, ["inspect", str(FIXTURES / "v0.20" / "20240121_101500")])
    assert result.exit_code == 0, result.output
    assert "deepeval v0.20.17-v0.20.71 (dict_test_cases, metricsMetadata)" in result.stdout
    assert "test_chatbot.py" in result.stdout


def test_cli_compares_two_runs(tmp_path: Path) -> None:
    other = _run()
    for case in other["testCases"]:
        case["metricsData"][0]["score"] = 1.0
    candidate = _write(tmp_path / "test_run_20260813_090000.json", other)
    result = CliRunner().invoke(
        app, ["compare", str(V4), str(candidate), "--metric", "Answer Relevancy"]
    )
    assert result.exit_code == 0, result.output
    assert "n = 4 items" in result.stdout


def test_other_files_are_not_claimed(tmp_path: Path) -> None:
    others = [p for p in (FIXTURES.parent).rglob("*") if p.is_file() and FIXTURES not in p.parents]
    assert others
    for path in others:
        head = path.read_bytes()[: 1 << 20]
        assert not DEEPEVAL.sniff(path, head), path
    plain = _write(tmp_path / "cases.json", {"testCases": [{"id": "q1", "score": 1}]})
    assert not DEEPEVAL.sniff(plain, plain.read_bytes())
    records = _write(tmp_path / "records.json", [{"id": "q1", "name": "a", "score": 1}])
    assert describe(records).formats == ("json",)
