"""Every Eval Ever instance-level JSONL: tasks, both metrics, hashes as keys, models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe, load
from evalsig.data.readers.every_eval_ever import EVERY_EVAL_EVER
from evalsig.errors import AlignmentError, DataError


def _record(
    i: int, correct: bool, *, model: str = "org/m", task: str = "gsm8k", **extra: Any
) -> dict[str, Any]:
    record = {
        "schema_version": "instance_level_eval_0.2.1",
        "evaluation_id": "e1",
        "model_id": model,
        "evaluation_name": task,
        "sample_id": f"s{i}",
        "sample_hash": f"h{i}",
        "interaction_type": "single_turn",
        "input": {"raw": f"q{i}", "reference": ["4"]},
        "output": {"raw": ["4" if correct else "5"]},
        "answer_attribution": [],
        "evaluation": {"score": float(correct), "is_correct": correct},
        "metadata": {"subject": f"t{i % 2}"},
    }
    record.update(extra)
    return record


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_reads_scores_keys_and_clusters(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", [_record(i, i % 3 == 0) for i in range(6)])
    assert describe(path).formats == ("every-eval-ever",)
    assert describe(path).layouts == ("every-eval-ever instance schema instance_level_eval_0.2.1",)
    with pytest.raises(DataError, match=r"several metrics \('is_correct', 'score'\)"):
        load(path)
    t = load(path, metric="is_correct", cluster_column="subject")
    assert t.mean == pytest.approx(2 / 6)
    assert sorted(set(t.clusters)) == ["t0", "t1"]  # type: ignore[arg-type]
    assert t.keys[0] == "h0"  # type: ignore[index]


def test_hashes_catch_different_samples(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", [_record(i, i % 2 == 0) for i in range(6)])
    b = _write(
        tmp_path / "b.jsonl",
        [_record(i, True, sample_hash=f"x{i}" if i == 5 else f"h{i}") for i in range(6)],
    )
    with pytest.raises(AlignmentError, match=r"1 item\(s\) have a different content key"):
        evalsig.compare(load(a, metric="score"), load(b, metric="score"))


def test_several_models_need_a_choice(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "m.jsonl",
        [_record(i, True, model="org/a") for i in range(3)]
        + [_record(i, False, model="org/b") for i in range(3)],
    )
    with pytest.raises(DataError, match=r"holds samples of 2 models \(org/a, org/b\)"):
        load(path, metric="score")
    assert load(path, metric="score", where={"model_id": "org/b"}).mean == 0.0


def test_detected_by_its_first_record_and_version_named(tmp_path: Path) -> None:
    padded = _record(0, True, schema_version="0.3.0", input={"raw": "q" * (1 << 21)})
    path = _write(tmp_path / "big.jsonl", [padded, _record(1, False, schema_version="0.3.0")])
    assert describe(path).layouts == ("every-eval-ever instance schema 0.3.0",)
    lacking = [{k: v for k, v in _record(i, True).items() if k != "schema_version"} for i in (0, 1)]
    assert describe(_write(tmp_path / "old.jsonl", lacking)).layouts == (
        "every-eval-ever (records name no schema_version)",
    )
    other = [{k: v for k, v in _record(i, True).items() if k != "interaction_type"} for i in (0, 1)]
    other_path = _write(tmp_path / "other.jsonl", other)
    assert not EVERY_EVAL_EVER.sniff(other_path, other_path.read_bytes())
