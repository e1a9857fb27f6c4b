"""promptfoo output files: versions 2 and 3 of the JSON summary, JSONL, repeats, errors,
providers and prompts chosen with where=, malformed results, detection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import describe, load
from evalsig.data.readers import HEAD_BYTES, READERS
from evalsig.data.readers.promptfoo import PROMPTFOO
from evalsig.errors import AlignmentError, DataError, FormatError

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"
V2 = "promptfoo v2 (EvaluateSummary version 2: its table; promptfoo 0.91 or earlier)"
V3 = "promptfoo v3 (EvaluateSummary version 3; promptfoo 0.121.20)"
JSONL = "promptfoo JSONL (one result per line; promptfoo 0.99 or later)"
REPEATED = {  # fixture -> layout (see fixtures/promptfoo/README.md)
    "v2_two_providers_repeat2.json": V2,
    "v3_two_providers_repeat2.json": V3,
    "v3_two_providers_repeat2.jsonl": JSONL,
}
ERRORS = ("v2_errors_two_prompts.json", "v3_errors_two_prompts.json")


# --- hand-written layouts ------------------------------------------------------------------


def _result(
    test_idx: int,
    score: float,
    *,
    provider: tuple[str, str | None] = ("openai:gpt-4o-mini", None),
    prompt_idx: int = 0,
    question: str | None = None,
    success: bool | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An EvaluateResult in the field order of promptfoo 0.121's EvalResult.toEvaluateResult."""
    variables = {"question": question if question is not None else f"question {test_idx}"}
    passed = score >= 0.5 if success is None else success
    return {
        "cost": 0,
        "gradingResult": {"pass": passed, "score": score, "reason": "graded"},
        "id": f"uuid-{test_idx}-{prompt_idx}",
        "latencyMs": 12,
        "namedScores": {},
        "prompt": {"raw": f"Q: {variables['question']}", "label": "Q: {{question}}"},
        "promptId": "c0335ced",
        "promptIdx": prompt_idx,
        "provider": {"id": provider[0], "label": provider[1]},
        "response": {"output": "an answer"},
        "score": score,
        "success": passed,
        "testCase": {"vars": variables, "assert": [{"type": "llm-rubric"}], "options": {}},
        "testIdx": test_idx,
        "vars": variables,
        "metadata": {},
        "failureReason": 0 if passed else 1,
    } | extra


def _v3(path: Path, results: list[Any], **wrapper: Any) -> Path:
    """``promptfoo eval -o results.json`` since 0.92: the wrapper around a version 3 summary."""
    document = {
        "evalId": "eval-abc-2025-06-01T10:00:00",
        "results": {
            "version": 3,
            "timestamp": "2025-06-01T10:00:00.000Z",
            "prompts": [{"raw": "Q: {{question}}", "label": "Q: {{question}}", "provider": "p"}],
            "results": results,
            "stats": {"successes": 0, "failures": 0, "errors": 0},
        },
        "config": {"description": "hand-written"},
        "shareableUrl": None,
        "metadata": {"promptfooVersion": "0.114.7"},
    } | wrapper
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _v2_early(path: Path) -> Path:
    """promptfoo 0.24 (mid 2023): no evalId, no timestamp, no provider in the table; with
    several providers a column's display is '[provider id] prompt' (src/evaluator.ts)."""
    head = [{"raw": "Q: {{q}}", "display": f"[{p}] Q: {{{{q}}}}"} for p in ("gpt-4", "claude-2")]
    verdicts = [(True, False), (True, True), (False, False), (True, False)]
    cells = [
        [{"pass": v, "score": float(v), "text": "x", "prompt": "Q", "latencyMs": 3} for v in row]
        for row in verdicts
    ]
    body = [{"outputs": cells[k], "vars": [f"q{k}"]} for k in range(len(cells))]
    summary = {
        "version": 2,
        "results": [  # in the order they finished, without their row or column
            {
                "provider": {"id": provider},
                "prompt": {"raw": f"Q: q{k}", "display": f"[{provider}] Q: {{{{q}}}}"},
                "vars": {"q": f"q{k}"},
                "response": {"output": "x"},
                "success": cells[k][c]["pass"],
                "score": cells[k][c]["score"],
                "latencyMs": 3,
            }
            for k in (3, 0, 2, 1)
            for c, provider in enumerate(("gpt-4", "claude-2"))
        ],
        "stats": {"successes": 4, "failures": 4},
        "table": {"head": {"prompts": head, "vars": ["q"]}, "body": body},
    }
    document = {"results": summary, "config": {}, "shareableUrl": None}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _v099_jsonl(path: Path) -> Path:
    """promptfoo 0.99 JSONL: EvalResult objects (with evalId), batches joined by '\\n' with
    no final newline and appended to the file, so a second eval is glued to the first."""

    def record(eval_id: str, test_idx: int, score: float) -> str:
        fields = {"id": "u", "evalId": eval_id, "promptIdx": 0, "testIdx": test_idx}
        row = _result(test_idx, score)
        for name in ("testCase", "prompt", "promptId", "success", "score", "response"):
            fields[name] = row[name]
        fields |= {"gradingResult": None, "namedScores": {}, "provider": {"id": "echo"}}
        return json.dumps(fields | {"latencyMs": 1, "cost": 0, "metadata": {}, "persisted": True})

    first = "\n".join(record("eval-1", k, s) for k, s in enumerate([1, 0, 1]))
    second = "\n".join(record("eval-2", k, s) for k, s in enumerate([0, 0, 1]))
    path.write_text(first + second, encoding="utf-8")
    return path


# --- layouts --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_every_layout_reads_the_same_items_runs_and_keys(name: str) -> None:
    """Three tests run twice: rows 0-1, 2-3, 4-5 are one test each (runs of items 0, 2, 4)."""
    path = FIXTURES / name
    table = load(path, where={"provider": "model-a"})
    assert table.item_ids.tolist() == ["0", "2", "4"]
    assert table.counts.tolist() == [2, 2, 2]
    assert table.sums.tolist() == [2.0, 0.75, 2.0]  # scores 1, 0.375 and 1, twice each
    described = describe(path, where={"provider": "model-a"})
    assert described.layouts == (REPEATED[name],)
    assert [(t.name, t.n_items, t.runs, t.metrics) for t in described.tasks] == [
        ("promptfoo", 3, (2, 2), ("score",))
    ]
    assert any("3 of 6 test rows repeat the test case" in note for note in described.notes)
    assert table.keys is not None
    assert len(set(table.keys.tolist())) == 3


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_pass_and_named_scores_are_chosen_with_metric(name: str) -> None:
    path = FIXTURES / name
    assert load(path, where={"provider": "model-b"}, metric="pass").sums.tolist() == [2, 0, 2]
    accuracy = load(path, where={"provider": "model-b"}, metric="accuracy")
    assert accuracy.item_ids.tolist() == ["0", "2"]  # the third test has no accuracy assertion
    assert any("2 result(s) have no named score 'accuracy'" in n for n in accuracy.notes)
    with pytest.raises(DataError, match=r"no metric 'acc'.*'accuracy', 'pass', 'score'"):
        load(path, where={"provider": "model-b"}, metric="acc")


def test_versions_2_and_3_pair_item_by_item() -> None:
    old = load(FIXTURES / "v2_two_providers_repeat2.json", where={"provider": "model-a"})
    new = load(FIXTURES / "v3_two_providers_repeat2.jsonl", where={"provider": "model-b"})
    assert old.keys is not None
    assert new.keys is not None
    assert old.keys.tolist() == new.keys.tolist()
    result = evalsig.compare(old, new)
    assert (result.n_items, result.n_runs, result.estimate) == (3, (2, 2), 0.0)


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_failures_with_score_zero_and_noted(name: str) -> None:
    """Per prompt: pass, error, pass, fail; promptfoo's own pass rate is 2 / 4."""
    table = load(FIXTURES / name, where={"prompt": "long"}, metric="pass")
    assert table.sums.tolist() == [1, 0, 1, 0]
    notes = load(FIXTURES / name, where={"prompt": "short"}).notes
    assert any("1 of 4 results are errors" in n and "testIdx 1" in n for n in notes), notes


def test_an_error_before_failure_reasons_is_told_by_its_missing_grading(tmp_path: Path) -> None:
    """promptfoo 0.92 - 0.99 wrote no failureReason: an error has 'error' and no grading."""
    rows = [_result(k, 1.0) for k in range(3)]
    rows[1] |= {"success": False, "score": 0, "error": "timeout", "gradingResult": None}
    for row in rows:
        del row["failureReason"]
    table = load(_v3(tmp_path / "r.json", rows))
    assert table.sums.tolist() == [1, 0, 1]
    assert any("1 of 3 results are errors" in note for note in table.notes)


def test_the_earliest_version_2_names_providers_in_the_column_display(tmp_path: Path) -> None:
    path = _v2_early(tmp_path / "results.json")
    assert load(path, where={"provider": "gpt-4"}).sums.tolist() == [1, 1, 0, 1]
    assert load(path, where={"provider": "claude-2"}).sums.tolist() == [0, 1, 0, 0]
    with pytest.raises(DataError, match=r"2 providers, each one model: 'claude-2', 'gpt-4'"):
        load(path)


def test_appended_jsonl_of_promptfoo_0_99_is_split_and_chosen_by_eval(tmp_path: Path) -> None:
    path = _v099_jsonl(tmp_path / "results.jsonl")
    with pytest.raises(DataError, match=r"2 evals appended to one file.*'eval-1', 'eval-2'"):
        load(path)
    first = load(path, where={"evalId": "eval-1"})
    assert first.sums.tolist() == [1, 0, 1]
    assert any("1 line(s) held several results" in note for note in first.notes)
    assert load(path, where={"evalId": "eval-2"}).sums.tolist() == [0, 0, 1]


# --- models, prompts and comparisons ------------------------------------------------------


def test_several_providers_are_listed_and_chosen_by_label_or_id() -> None:
    path = FIXTURES / "v3_two_providers_repeat2.json"
    with pytest.raises(DataError, match=r"2 providers.*'model-a' \(id 'echo'\), 'model-b'"):
        load(path)
    with pytest.raises(DataError, match=r"provider 'echo' matches 2 providers"):
        load(path, where={"provider": "echo"})
    with pytest.raises(DataError, match=r"no result with provider 'gpt-4'"):
        load(path, where={"provider": "gpt-4"})
    with pytest.raises(DataError, match=r"'model' .*not promptfoo fields"):
        load(path, where={"model": "model-a"})


def test_several_prompts_are_chosen_by_label_id_or_index() -> None:
    path = FIXTURES / "v3_errors_two_prompts.json"
    with pytest.raises(DataError, match=r"2 prompts.*'long' \(promptIdx 1\), 'short'"):
        load(path)
    long_id = "fc66f021c67d064c1490a12b5a4d4d2f5167ca692a16ca12f1f3a4cda29a6fa9"
    for chosen in ("long", long_id, "1"):
        table = load(path, where={"prompt": chosen})
        assert table.source.endswith("(task 'promptfoo')")
        assert table.sums.tolist() == [1, 0, 1, 0]
    notes = load(path, where={"prompt": "0"}).notes
    assert (
        "v3_errors_two_prompts.json: provider 'flaky' (id 'file://flaky.js'), prompt "
        "'short' (promptIdx 0)." in notes
    )


def test_two_models_files_compare(tmp_path: Path) -> None:
    """Model A passes 40 of 60 questions, model B 48 of 60."""
    a = _v3(tmp_path / "a.json", [_result(k, float(k % 3 != 0)) for k in range(60)])
    gpt = ("openai:gpt-4o", "gpt-4o")
    b = _v3(tmp_path / "b.json", [_result(k, float(k % 5 != 0), provider=gpt) for k in range(60)])
    result = evalsig.compare(load(a), load(b))
    assert result.n_items == 60
    assert result.estimate == pytest.approx(48 / 60 - 40 / 60)
    swapped = [_result(k, 1.0, question=f"other {k}") for k in range(60)]
    with pytest.raises(AlignmentError, match="60 item\\(s\\) have a different content key"):
        evalsig.compare(load(a), load(_v3(tmp_path / "c.json", swapped)))


def test_clusters_come_from_the_test_metadata() -> None:
    path = FIXTURES / "v3_two_providers_repeat2.json"
    assert describe(path, where={"provider": "model-a"}).cluster_fields == ("category",)
    table = load(path, where={"provider": "model-a"}, cluster_column="category")
    assert table.clusters is not None
    assert table.clusters.tolist() == ["geo", "math", "geo"]


def test_without_vars_and_prompts_each_row_is_an_item(tmp_path: Path) -> None:
    """PROMPTFOO_STRIP_TEST_VARS and _PROMPT_TEXT leave nothing that tells tests apart."""
    rows = [_result(k, 1.0) for k in range(4)]
    for row in rows:
        del row["testCase"]["vars"]
        row["vars"], row["prompt"]["raw"] = {}, "[prompt stripped]"
    table = load(_v3(tmp_path / "r.json", rows))
    assert table.item_ids.tolist() == ["0", "1", "2", "3"]
    assert any("repeats of a test cannot be recognised" in note for note in table.notes)


# --- malformed results ----------------------------------------------------------------------


def test_a_result_without_a_score_is_refused_or_skipped(tmp_path: Path) -> None:
    rows = [_result(k, 1.0) for k in range(3)]
    del rows[1]["score"]
    rows[2]["testIdx"] = "2"
    path = _v3(tmp_path / "r.json", rows)
    with pytest.raises(FormatError, match=r"r.json: results\[1\]: 'score' is missing"):
        load(path)
    described = describe(path, skip_bad_lines=True)
    assert described.skipped == 2
    assert "'testIdx' is '2', not an index" in described.problems[1]
    assert load(path, skip_bad_lines=True).n_items == 1


def test_a_bad_jsonl_line_and_a_repeated_test_index_are_named(tmp_path: Path) -> None:
    lines = [json.dumps(_result(0, 1.0)), '{"testIdx": 1, "score":', json.dumps(_result(0, 0.0))]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"results\.jsonl: line 2: is not valid JSON"):
        load(path)
    described = describe(path, skip_bad_lines=True)
    assert described.problems[1] == (
        "line 3: repeats testIdx 0 of line 1 for the same provider and prompt; were two "
        "evals written to one file?"
    )


def test_a_summary_without_results_is_not_promptfoo(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"version": 3, "prompts": []}}), encoding="utf-8")
    with pytest.raises(FormatError, match="expected an object whose 'results' holds"):
        load(path, format="promptfoo")


# --- detection and the command line ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted([*REPEATED, *ERRORS]))
def test_every_fixture_is_detected_as_promptfoo(name: str, tmp_path: Path) -> None:
    """Also under promptfoo's usual name, results.json, which lm-eval's reader looks at first."""
    renamed = tmp_path / ("results" + Path(name).suffix)
    renamed.write_bytes((FIXTURES / name).read_bytes())
    for path in (FIXTURES / name, renamed):
        head = path.read_bytes()[:HEAD_BYTES]
        claims = [reader.name for reader in READERS.values() if reader.sniff(path, head)]
        assert claims[0] == "promptfoo", claims


def test_detection_past_the_head(tmp_path: Path) -> None:
    """A first result longer than the sniffed head (a long response) is told by its fields."""
    long = [_result(0, 1.0, response={"output": "x" * (HEAD_BYTES + 10)}), _result(1, 0.0)]
    path = _v3(tmp_path / "results.json", long)
    assert describe(path).formats == ("promptfoo",)
    line = tmp_path / "results.jsonl"
    line.write_text("".join(json.dumps(r) + "\n" for r in long), encoding="utf-8")
    assert describe(line).formats == ("promptfoo",)


def test_generic_and_other_harness_files_are_not_claimed(tmp_path: Path) -> None:
    generic = {
        "scores.json": {"results": {"version": 2, "results": [{"score": 1, "success": True}]}},
        "rows.jsonl": {"id": 1, "score": 1.0, "success": True, "testIdx": 3},
        "list.json": [_result(0, 1.0)],
    }
    for name, value in generic.items():
        path = tmp_path / name
        path.write_text(json.dumps(value), encoding="utf-8")
        assert not PROMPTFOO.sniff(path, path.read_bytes())
    others = [p for p in FIXTURES.parent.rglob("*") if p.is_file() and FIXTURES not in p.parents]
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "harness_fixtures"
    others += [p for p in shared.rglob("*") if p.is_file()] if shared.is_dir() else []
    assert len(others) > 20
    claimed = [p for p in others if PROMPTFOO.sniff(p, p.read_bytes()[:HEAD_BYTES])]
    assert claimed == []


def test_inspect_names_the_harness_and_version() -> None:
    path = FIXTURES / "v3_two_providers_repeat2.json"
    shown = CliRunner().invoke(app, ["inspect", str(path), "--where", "provider=model-b"])
    assert shown.exit_code == 0, shown.output
    assert "provider 'model-b' (id 'echo'), prompt 'Answer: {{question}}'" in shown.stdout
    assert "[promptfoo v3 (EvaluateSummary version 3; promptfoo 0.121.20)]" in shown.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "evalsig", "inspect", str(path)], capture_output=True, text=True
    )
    assert refused.returncode == 4
    assert "2 providers, each one model" in refused.stderr + refused.stdout
