"""OpenAI simple-evals files: HealthBench _allresults.json read; every aggregate-only file refused.

Fixtures follow openai/simple-evals at 5e623c2 (2025-05-12) and ee3b031: ``simple_evals.py``
writes ``/tmp/<eval>_<model>_<%Y%m%d_%H%M%S>.json`` (metrics), ``.html`` (report) and
``_allresults.json`` (``json.dumps`` of score, metrics, htmls, convos, metadata, indent 2).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe, load
from evalsig.data.readers import READERS
from evalsig.data.readers.simple_evals import SIMPLE_EVALS
from evalsig.errors import AlignmentError, DataError, FormatError

LAYOUT = "simple-evals 5e623c2 (2025-05-12) or later: HealthBench _allresults.json"
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}


def _prompt(k: int) -> list[dict[str, str]]:
    """A HealthBench prompt (a conversation ending with a user turn)."""
    return [{"role": "user", "content": f"health question {k}"}]


def _healthbench_record(k: int, score: Any, *, system: bool = True) -> dict[str, Any]:
    """One ``example_level_metadata`` record, as ``HealthBenchEval.__call__`` builds it."""
    prompt = ([SYSTEM] if system else []) + _prompt(k)
    completion = f"answer {k}"
    return {
        "score": score,
        "usage": {
            "input_tokens": 120,
            "input_cached_tokens": 0,
            "output_tokens": 300,
            "output_reasoning_tokens": 0,
            "total_tokens": 420,
        },
        "rubric_items": [
            {
                "criterion": "Advises to seek care",
                "points": 5,
                "tags": ["level:example", "axis:completeness"],
                "criteria_met": True,
                "explanation": "It does.",
            }
        ],
        "prompt": prompt,
        "completion": [{"content": completion, "role": "assistant"}],
        "prompt_id": f"prompt-{k:04d}",
        "completion_id": hashlib.sha256(f"prompt-{k:04d}{completion}".encode()).hexdigest(),
    }


def _all_results(
    path: Path,
    scores: list[Any],
    *,
    n_repeats: int = 1,
    records: list[Any] | None = None,
    html: str = "<p>Score: x</p>",
) -> Path:
    """A HealthBench ``_allresults.json``: examples listed ``n_repeats`` times over."""
    records = records or [
        _healthbench_record(k % len(scores), s) for k, s in enumerate(scores * n_repeats)
    ]
    convos = [
        (r["prompt"] + r["completion"]) if isinstance(r, dict) and "prompt" in r else None
        for r in records
    ]
    numbers = [s for s in scores if isinstance(s, (int, float))]
    mean = sum(numbers) / len(numbers) if numbers else 0.0
    document = {
        "score": min(max(mean, 0.0), 1.0),
        "metrics": {
            "overall_score:n_samples": len(records),
            "overall_score:bootstrap_std": 0.01,
            "axis:completeness": mean,
            "axis:completeness:n_samples": len(records),
            "axis:completeness:bootstrap_std": 0.02,
        },
        "htmls": [html for _ in records],
        "convos": convos,
        "metadata": {"example_level_metadata": records},
    }
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _aggregate_all_results(path: Path, metadata: Any) -> Path:
    """An ``_allresults.json`` of an eval run through ``common.aggregate_results``."""
    document = {
        "score": 0.5,
        "metrics": {"score:std": 0.5, "humanities": 0.5, "humanities:std": 0.5},
        "htmls": ["<h3>Prompt conversation</h3>...<p>Score: 1.0</p>", "<p>Score: 0.0</p>"],
        "convos": [_prompt(0), _prompt(1)],
        "metadata": metadata,
    }
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


A_SCORES = [1.0, 0.5, 0.0, 0.75, 1.0, 0.25]
B_SCORES = [0.5, 0.5, -0.25, 0.75, 0.0, 0.25]


def test_healthbench_all_results_are_read_per_prompt(tmp_path: Path) -> None:
    path = _all_results(
        tmp_path / "healthbench_hard_gpt-4.1_20250512_101500_allresults.json", A_SCORES
    )
    described = describe(path)
    assert described.layouts == (LAYOUT,)
    assert [(t.name, t.n_items, t.runs) for t in described.tasks] == [
        ("healthbench_hard", 6, (1, 1))
    ]
    assert described.key_fields == ("first user message (hash)",)
    assert any("model 'gpt-4.1' (from the file name)" in note for note in described.notes)
    table = load(path)
    assert table.sums.tolist() == A_SCORES
    assert list(map(str, table.item_ids)) == [f"prompt-{k:04d}" for k in range(6)]


def test_negative_scores_are_kept_unclipped(tmp_path: Path) -> None:
    path = _all_results(tmp_path / "healthbench_o3_20250512_101500_allresults.json", B_SCORES)
    assert load(path).mean == pytest.approx(sum(B_SCORES) / 6)
    assert describe(path).tasks[0].scale == "continuous"


def test_repeats_are_runs(tmp_path: Path) -> None:
    path = _all_results(
        tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES, n_repeats=3
    )
    (task,) = describe(path).tasks
    assert (task.n_items, task.n_observations, task.runs) == (6, 18, (3, 3))
    assert load(path).mean == pytest.approx(sum(A_SCORES) / 6)


def test_two_models_compare_and_mismatched_questions_are_refused(tmp_path: Path) -> None:
    a = load(
        _all_results(tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES)
    )
    b = load(_all_results(tmp_path / "healthbench_o3_20250512_101500_allresults.json", B_SCORES))
    result = evalsig.compare(a, b)
    assert result.n_items == 6
    records = [_healthbench_record(k, s) for k, s in enumerate(B_SCORES)]
    records[2]["prompt"] = [SYSTEM, {"role": "user", "content": "another question"}]
    other = _all_results(
        tmp_path / "healthbench_o4-mini_20250512_101500_allresults.json", B_SCORES, records=records
    )
    with pytest.raises(AlignmentError, match=r"1 item\(s\) have a different content key"):
        evalsig.compare(a, load(other))


def test_the_key_ignores_the_samplers_system_message(tmp_path: Path) -> None:
    """Samplers prepend their system message to the prompt; the first user turn is the key."""
    with_system = load(
        _all_results(tmp_path / "healthbench_a_20250512_101500_allresults.json", A_SCORES)
    )
    records = [_healthbench_record(k, s, system=False) for k, s in enumerate(B_SCORES)]
    without = _all_results(
        tmp_path / "healthbench_b_20250512_101500_allresults.json", B_SCORES, records=records
    )
    assert evalsig.compare(with_system, load(without)).n_items == 6


def test_physician_baseline_files_are_read(tmp_path: Path) -> None:
    """``healthbench_eval.py`` physician runs name files by group, with a date to the minute."""
    records = [_healthbench_record(k, s, system=False) for k, s in enumerate(A_SCORES)]
    path = _all_results(
        tmp_path / "healthbench_no_reference_humanbaseline_20250512_1015_allresults.json",
        A_SCORES,
        records=records,
    )
    described = describe(path)
    assert [t.name for t in described.tasks] == ["healthbench"]
    assert any("model 'no_reference_humanbaseline'" in note for note in described.notes)


def test_a_renamed_file_is_read_as_healthbench_and_says_so(tmp_path: Path) -> None:
    path = _all_results(tmp_path / "run1.json", A_SCORES)
    described = describe(path)
    assert [t.name for t in described.tasks] == ["healthbench"]
    assert any("without a simple-evals eval name" in note for note in described.notes)


def test_detection_past_the_head(tmp_path: Path) -> None:
    """A real file is large (HTML of every example); the start of the document suffices."""
    path = _all_results(
        tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json",
        A_SCORES,
        html="<p>" + "x" * 300_000 + "</p>",
    )
    assert path.stat().st_size > 1 << 20
    assert describe(path).formats == ("simple-evals",)
    assert load(path).sums.tolist() == A_SCORES


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"score": None}, r"example 1 .*'score' of prompt 'prompt-0001' is None, not a number"),
        ({"score": "high"}, r"'score' of prompt 'prompt-0001' is 'high', not a number"),
        ({"prompt_id": None}, r"example 1 .*'prompt_id' \(the item id\) is None, not a string"),
        ({"score": 10**400}, r"'score' of prompt 'prompt-0001' is 1000.*, not a number"),
    ],
)
def test_malformed_examples_are_named_or_skipped(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    records = [_healthbench_record(k, s) for k, s in enumerate(A_SCORES)]
    records[1].update(change)
    path = _all_results(
        tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES, records=records
    )
    with pytest.raises(FormatError, match=message):
        load(path)
    table = load(path, skip_bad_lines=True)
    assert table.n_items == 5
    assert any("skipped 1 malformed record(s)" in note for note in table.notes)


def test_a_record_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    records: list[Any] = [_healthbench_record(k, s) for k, s in enumerate(A_SCORES)]
    records[3] = [1, 2]
    path = _all_results(
        tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES, records=records
    )
    with pytest.raises(FormatError, match=r"example 3 .*is \[1, 2\], not an object"):
        load(path)


def test_files_of_two_models_are_never_pooled(tmp_path: Path) -> None:
    a = _all_results(tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES)
    b = _all_results(tmp_path / "healthbench_o3_20250512_101500_allresults.json", B_SCORES)
    with pytest.raises(DataError, match=r"model 'o3' .*holds model 'gpt-4.1'.*pooled"):
        load([a, b])
    with pytest.raises(DataError, match=r"have no rows to choose with --where"):
        load(b, where={"model": "o3"})
    again = _all_results(tmp_path / "healthbench_gpt-4.1_20250601_090000_allresults.json", A_SCORES)
    assert describe([a, again]).tasks[0].runs == (2, 2)


@pytest.mark.parametrize(
    ("name", "metadata"),
    [
        ("mmlu_gpt-4.1_20250512_101500_allresults.json", {"example_level_metadata": [None, None]}),
        (
            "healthbench_meta_gpt-4.1_20250512_101500_allresults.json",
            {"model_agreement_metrics": {}, "physician_agreement_metric_lists": {}},
        ),
    ],
)
def test_aggregate_only_all_results_are_refused(
    tmp_path: Path, name: str, metadata: dict[str, Any]
) -> None:
    path = _aggregate_all_results(tmp_path / name, metadata)
    eval_name = name.split("_gpt")[0]
    with pytest.raises(
        FormatError,
        match=rf"a simple-evals _allresults.json of eval '{eval_name}': it holds aggregate "
        r"metrics only; for 2 examples .*export one row per example",
    ):
        load(path)


@pytest.mark.parametrize(
    ("name", "metrics", "indent", "fix"),
    [
        # simple_evals.py / demo.py since 2024-04-11: metrics | {"score": ...}, indent 2
        (
            "mmlu_gpt-4o_chatgpt.json",
            {"score": 0.88, "score:std": 0.32, "humanities": 0.85, "humanities:std": 0.35},
            2,
            "no per-question scores of 'mmlu' in a file: export one row per example",
        ),
        # since 2025-05-12: a date in the name, keys sorted
        (
            "gpqa_o3_20250512_101500.json",
            {"chars": 1200.5, "chars:std": 300.1, "score": 0.8, "score:std": 0.4},
            2,
            "no per-question scores of 'gpqa' in a file: export one row per example",
        ),
        # healthbench_eval.py physician baselines: no "score" key, no indent
        (
            "healthbench_no_reference_humanbaseline_20250512_1015.json",
            {
                "overall_score": 0.3,
                "overall_score:n_samples": 5000,
                "overall_score:bootstrap_std": 0.004,
            },
            None,
            "For healthbench, pass the healthbench_no_reference_humanbaseline_20250512_1015"
            "_allresults.json written beside it",
        ),
        # a renamed file: both fixes
        (
            "run1.json",
            {"score": 0.5, "score:std": 0.5},
            2,
            "For HealthBench pass the run1_allresults.json written beside it (simple-evals "
            "2025-05-12 or later); for other evals export one row per example",
        ),
    ],
)
def test_metrics_files_are_refused_with_the_fix(
    tmp_path: Path, name: str, metrics: dict[str, float], indent: int | None, fix: str
) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(metrics, indent=indent), encoding="utf-8")
    with pytest.raises(
        FormatError, match=r"a simple-evals metrics file .*aggregate scores only"
    ) as e:
        load(path)
    assert fix in str(e.value)


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        ("mmlu_gpt-4.1_20250512_101500.html", "no per-question scores of 'mmlu' in a file"),
        (
            "healthbench_hard_o3_20250512_101500.html",
            "pass the healthbench_hard_o3_20250512_101500_allresults.json written beside it",
        ),
    ],
)
def test_the_html_report_is_refused(tmp_path: Path, name: str, fix: str) -> None:
    """common.make_report's template: a style sheet, Metrics, then Examples."""
    path = tmp_path / name
    path.write_text(
        "<!DOCTYPE html>\n<html><head><style>.message.assistant { color: #4527A0; }</style>"
        "</head><body><h1>Metrics</h1><table></table><h1>Examples</h1><p>Score: 1.0</p>"
        "</body></html>",
        encoding="utf-8",
    )
    with pytest.raises(FormatError, match=r"a simple-evals HTML report: ") as e:
        load(path)
    assert fix in str(e.value)
    other = tmp_path / "page.html"
    other.write_text("<html><body><h1>Examples</h1></body></html>", encoding="utf-8")
    assert not SIMPLE_EVALS.sniff(other, other.read_bytes())


@pytest.mark.parametrize(
    "content",
    [
        [{"id": "q1", "score": 1}, {"id": "q2", "score": 0}],  # a generic record list
        {"id": "q1", "score": 1, "metrics": {"acc": 1}},  # one record, no htmls/convos
        {"acc": 0.5, "acc_stderr": 0.1},  # flat numbers without name:stat keys
        {"score": 0.5, "score:std": "n/a"},  # not all numbers
    ],
)
def test_other_json_is_not_claimed(tmp_path: Path, content: Any) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    assert not SIMPLE_EVALS.sniff(path, path.read_bytes())


def test_other_harness_files_are_not_claimed(tmp_path: Path) -> None:
    """Readers registered before simple-evals keep their files; the metrics file is ours."""
    path = tmp_path / "mmlu_gpt-4o.json"
    path.write_text(json.dumps({"score": 0.8, "score:std": 0.4}), encoding="utf-8")
    names = list(READERS)
    claiming = [n for n in names if READERS[n].sniff(path, path.read_bytes())]
    assert claiming[0] == "simple-evals"
    assert not SIMPLE_EVALS.sniff(tmp_path / "a.csv", b"score,score:std\n1,0\n")


def test_cli_inspect_names_the_harness_and_version(tmp_path: Path) -> None:
    path = _all_results(tmp_path / "healthbench_gpt-4.1_20250512_101500_allresults.json", A_SCORES)
    result = subprocess.run(
        [sys.executable, "-m", "evalsig", "inspect", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert f"[{LAYOUT}]" in result.stdout
    assert "healthbench" in result.stdout
