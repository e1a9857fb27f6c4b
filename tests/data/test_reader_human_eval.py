"""HumanEval's own results file and column names (issue 28): ``task_id``, ``passed``, the
samples of a task as its runs, read by ``pass-at-k`` without options.

The files are written as OpenAI's human-eval writes them: ``evaluate_functional_correctness
samples.jsonl`` adds ``result`` and ``passed`` to every line of the samples file, in its
order, in ``samples.jsonl_results.jsonl`` (``human_eval/evaluation.py``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.cli.application import EXIT_DATA_ERROR, EXIT_OK
from evalsig.data import describe
from evalsig.errors import FormatError
from evalsig.passk import SampleCounts, compare_pass_at_k, pass_at_k

runner = CliRunner()


def _results(path: Path, correct: list[list[bool]], prefix: str = "HumanEval") -> Path:
    """One line per sample, the samples of each task together (as the samples file lists
    them, ``num_samples_per_task`` per problem)."""
    lines = []
    for t, outcomes in enumerate(correct):
        for ok in outcomes:
            result = "passed" if ok else "failed: AssertionError"
            lines.append(
                {
                    "task_id": f"{prefix}/{t}",
                    "completion": "    return x\n",
                    "result": result,
                    "passed": ok,
                }
            )
    text = "".join(json.dumps(line) + "\n" for line in lines)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def _outcomes(seed: int, p: float, tasks: int = 30, samples: int = 5) -> list[list[bool]]:
    rng = np.random.default_rng(seed)
    return [[bool(x) for x in rng.random(samples) < p] for _ in range(tasks)]


def _counts(correct: list[list[bool]]) -> SampleCounts:
    return SampleCounts(
        n=[len(o) for o in correct],
        c=[sum(o) for o in correct],
        tasks=[f"HumanEval/{t}" for t in range(len(correct))],
    )


def test_a_results_file_is_read_with_its_samples_as_runs(tmp_path: Path) -> None:
    correct = _outcomes(1, 0.4)
    path = _results(tmp_path / "samples.jsonl_results.jsonl", correct)
    d = describe(path)
    assert d.formats == ("human-eval",)
    table = evalsig.load(path)
    assert table.n_items == 30
    assert table.n_runs == 5
    assert table.mean == pytest.approx(np.mean([np.mean(o) for o in correct]))
    read = pass_at_k(path, [1, 5])
    expected = pass_at_k(_counts(correct), [1, 5])
    assert [r.estimate for r in read.rows] == pytest.approx([r.estimate for r in expected.rows])


def test_tasks_with_different_numbers_of_samples_and_gzip(tmp_path: Path) -> None:
    correct = [[True, False, True], [False], [True, True, False, False, True]]
    path = _results(tmp_path / "r.jsonl.gz", correct)
    assert describe(path).formats == ("human-eval",)
    read = pass_at_k(path, 1)[1]
    assert read.estimate == pytest.approx(pass_at_k(_counts(correct), 1)[1].estimate)


def test_pass_at_k_compares_two_results_files_without_options(tmp_path: Path) -> None:
    base = _results(tmp_path / "base.jsonl", _outcomes(2, 0.4))
    cand = _results(tmp_path / "cand.jsonl", _outcomes(3, 0.6))
    result = runner.invoke(app, ["pass-at-k", str(base), str(cand), "--k", "1,5"])
    assert result.exit_code == EXIT_OK, result.stderr
    assert "pass@1" in result.stdout
    assert "pass@5" in result.stdout
    python = compare_pass_at_k(base, cand, [1, 5])
    expected = compare_pass_at_k(_counts(_outcomes(2, 0.4)), _counts(_outcomes(3, 0.6)), [1, 5])
    assert [r.estimate for r in python.rows] == pytest.approx([r.estimate for r in expected.rows])


def test_a_line_whose_passed_is_not_true_or_false_is_named(tmp_path: Path) -> None:
    path = _results(tmp_path / "r.jsonl", _outcomes(4, 0.5, tasks=3))
    lines = path.read_text().splitlines()
    lines[4] = (
        lines[4]
        .replace('"passed": false', '"passed": "no"')
        .replace('"passed": true', '"passed": "no"')
    )
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"line 5: has passed = 'no'; expected true or false"):
        evalsig.load(path)
    skipped = evalsig.load(path, skip_bad_lines=True)
    assert skipped.n_items == 3
    cli = runner.invoke(app, ["pass-at-k", str(path)])
    assert cli.exit_code == EXIT_DATA_ERROR
    assert "passed = 'no'" in cli.stderr


def test_other_tables_with_the_code_evaluation_column_names(tmp_path: Path) -> None:
    """task_id, passed and completion_id are recognised when no usual name is there (the
    code_eval metric's per-sample results), and never make a usual name ambiguous."""
    rows = [(f"HumanEval/{t}", s, int((t + s) % 3 == 0)) for t in range(12) for s in range(4)]
    path = tmp_path / "code_eval.csv"
    path.write_text(
        "task_id,completion_id,passed\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows)
    )
    table = evalsig.load(path)
    assert (table.n_items, table.n_runs) == (12, 4)
    assert "item id 'task_id', score 'passed', run 'completion_id'" in table.notes[0]
    cli = runner.invoke(app, ["pass-at-k", str(path), "--k", "2"])
    assert cli.exit_code == EXIT_OK, cli.stderr
    both = tmp_path / "both.csv"
    both.write_text("task_id,id,score\nmath,q1,1\nmath,q2,0\n")
    assert evalsig.load(both).item_ids.tolist() == ["q1", "q2"]  # 'id' wins, no ambiguity
