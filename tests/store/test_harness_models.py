"""Model names from harness metadata, and tasks stored with several metrics."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalsig.data import load
from evalsig.data.readers import ReadOptions
from evalsig.errors import DataError
from evalsig.store import ResultsStore, harness_model

pytest.importorskip(
    "duckdb", reason="the results store needs duckdb: pip install 'evalsig-stats[store]'"
)

DATE = "2026-01-02T03-04-05.678901"


def _lm_eval_run(folder: Path, model: str, *, norm: bool = True, offset: int = 0) -> Path:
    """An lm-eval output folder: one samples file (acc, maybe acc_norm) and its results."""
    folder.mkdir(parents=True)
    metrics = ["acc", "acc_norm"] if norm else ["acc"]
    with (folder / f"samples_arc_easy_{DATE}.jsonl").open("w", encoding="utf-8") as f:
        for i in range(12):
            record = {
                "doc_id": i,
                "doc": {"question": f"Q{i}?", "subject": f"s{i % 3}"},
                "target": "A",
                "filter": "none",
                "metrics": metrics,
                "doc_hash": f"{i:064x}",
                "acc": float((i + offset) % 3 != 0),
                "acc_norm": float((i + offset) % 2 == 0),
            }
            f.write(json.dumps(record) + "\n")
    results = {
        "results": {"arc_easy": {"acc,none": 0.5}},
        "versions": {"arc_easy": 1},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=bfloat16"},
        "model_name": model,
    }
    (folder / f"results_{DATE}.json").write_text(json.dumps(results), encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResultsStore]:
    with ResultsStore(tmp_path / "results.duckdb") as db:
        yield db


def test_lm_eval_model_names_and_metric_choice(store: ResultsStore, tmp_path: Path) -> None:
    runs = {
        "org/alpha": _lm_eval_run(tmp_path / "out" / "org__alpha", "org/alpha"),
        "org/beta": _lm_eval_run(tmp_path / "out" / "org__beta", "org/beta", offset=1),
        "org/gamma": _lm_eval_run(tmp_path / "out" / "org__gamma", "org/gamma", norm=False),
    }
    report = store.ingest(sorted(runs.values()))
    assert [s.models for s in report.sources] == [(m,) for m in runs]
    assert report.sources[0].model_origins == (
        f"model 'org/alpha' from 'model_name' in results_{DATE}.json",
    )
    with pytest.raises(DataError, match=r"several metrics \('acc', 'acc_norm'\)"):
        store.model_scores("arc_easy")
    acc = store.model_scores("arc_easy", metric="acc")
    assert acc.names == tuple(runs)
    norm = store.model_scores("arc_easy", metric="acc_norm")
    assert norm.names == ("org/alpha", "org/beta")
    assert norm.notes[-1] == (
        "metric 'acc_norm' (filter 'none'): left out 'org/gamma', which have scores on task "
        "'arc_easy' for other metrics only"
    )
    with pytest.raises(DataError, match=r"model\(s\) 'org/gamma' have no scores on task"):
        store.model_scores("arc_easy", metric="acc_norm", models=["org/alpha", "org/gamma"])
    with pytest.raises(DataError, match="names a model twice"):
        store.model_scores("arc_easy", metric="acc", models=["org/alpha", "org/alpha"])
    table = store.table("org/beta", "arc_easy", metric="acc")
    direct = load(runs["org/beta"], metric="acc")
    assert table.sums.tolist() == direct.sums.tolist()
    assert table.keys is not None
    assert direct.keys is not None
    assert table.keys.tolist() == direct.keys.tolist()


def test_lm_eval_samples_without_results_need_a_model(store: ResultsStore, tmp_path: Path) -> None:
    folder = _lm_eval_run(tmp_path / "run", "org/alpha")
    (folder / f"results_{DATE}.json").unlink()
    samples = folder / f"samples_arc_easy_{DATE}.jsonl"
    with pytest.raises(DataError) as info:
        store.ingest(samples, metric="acc")
    assert str(info.value).startswith(
        f"{samples}: cannot tell which model these scores are from: lm-evaluation-harness "
        f"samples name no model, and there is no results_*.json beside them in {folder}. Give "
        "the model with --model NAME"
    )
    report = store.ingest(samples, metric="acc", model="org/alpha")
    assert report.sources[0].model_origins == ("model 'org/alpha' given (model=, --model)",)


def test_a_cluster_column_must_be_given_for_every_file_of_a_model(
    store: ResultsStore, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text("id,correct,subject\nq1,1,s1\nq2,0,s2\n", encoding="utf-8")
    second.write_text("id,correct,subject\nq3,1,s1\nq4,0,s2\n", encoding="utf-8")
    store.ingest(first, model="m", task="t", cluster_column="subject")
    store.ingest(second, model="m", task="t")
    with pytest.raises(DataError, match="has 2 scores without a cluster label beside scores"):
        store.table("m", "t")


def test_openai_evals_name_their_completion_function(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    lines = [
        {"spec": {"completion_fns": ["gpt-4"], "eval_name": "match.s1.v0", "run_id": "r"}},
        {"run_id": "r", "event_id": 0, "sample_id": "match.s1.0", "type": "match",
         "data": {"correct": True, "expected": "A", "picked": "A"}},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    naming = harness_model(path, "openai-evals", ReadOptions())
    found = naming.of("match.s1.v0")
    assert found is not None
    assert (found.name, found.origin) == ("gpt-4", "spec.completion_fns of the run spec")
    with ResultsStore(tmp_path / "r.duckdb") as db:
        assert db.ingest(path).sources[0].models == ("gpt-4",)


def test_every_eval_ever_names_its_model_id(tmp_path: Path) -> None:
    path = tmp_path / "instances.jsonl"
    records = [
        {"evaluation_id": "e", "evaluation_name": "arc", "model_id": "acme/m1",
         "sample_id": f"s{i}", "interaction_type": "single_turn",
         "evaluation": {"score": float(i % 2), "is_correct": bool(i % 2)}}
        for i in range(4)
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    with ResultsStore(tmp_path / "r.duckdb") as db:
        source = db.ingest(path).sources[0]
        assert source.models == ("acme/m1",)
        assert source.model_origins == ("model 'acme/m1' from 'model_id' of its records",)
        assert db.table("acme/m1", "arc", metric="is_correct").mean == 0.5


@pytest.mark.shared_data
def test_alpaca_eval_names_its_generator(shared_data: Path, tmp_path: Path) -> None:
    path = shared_data / "alpaca_eval/claude-2/annotations.json"
    with ResultsStore(tmp_path / "r.duckdb") as db:
        source = db.ingest(path).sources[0]
        assert source.models == ("claude-2",)
        assert source.model_origins == ("model 'claude-2' from 'generator_2' of its records",)
        win_rate = db.table("claude-2", "alpaca_eval").mean
    assert 100 * win_rate == pytest.approx(17.188, abs=5e-4)  # leaderboard.csv
