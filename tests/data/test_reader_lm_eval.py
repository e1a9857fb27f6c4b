"""lm-evaluation-harness samples: real fixture, generated logs, choices, runs, keys, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe, load, load_tasks
from evalsig.errors import AlignmentError, DataError, FormatError

FIXTURE = "harness_fixtures/every_eval_ever/tests/data/lm_eval"
DATE = "2026-01-21T03-44-18.458309"


def _sample(doc_id: int, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}", "subject": f"s{doc_id % 3}"},
        "target": "A",
        "arguments": [["prompt", " A"]],
        "resps": [[["-1.0", "False"]]],
        "filtered_resps": [["-1.0", "False"]],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": f"hash{doc_id}",
        "prompt_hash": "p",
        "target_hash": "t",
        "acc": float(doc_id % 2),
        "acc_norm": float(doc_id % 3 == 0),
    }
    record.update(fields)
    return record


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_real_fixture(shared_data: Path) -> None:
    folder = shared_data / FIXTURE
    table = load(folder)
    assert (table.n_items, table.n_runs, table.binary) == (10, 1, True)
    assert table.mean == 0.0  # exact_match,none = 0.0 in the results file
    assert table.keys is not None
    assert table.keys[0] == "7193b975fe3f4bf6159e1031c2f9c6ac8ee72053be21c4cdc5cc87b55924c050"
    assert any("holds 10 documents but" in n and "reports 5000 evaluated" in n for n in table.notes)
    d = describe(folder)
    assert d.formats == ("lm-eval",)
    (task,) = d.tasks
    assert (task.name, task.metrics, task.filters) == (
        "math_perturbed_full",
        ("exact_match",),
        ("none",),
    )
    assert "doc.level" in d.cluster_fields
    assert d.key_fields == ("doc_hash", "target", "target_hash")


def test_results_file_alone_is_refused(shared_data: Path) -> None:
    with pytest.raises(
        FormatError, match=r"holds aggregate scores only.*--log_samples.*samples_math"
    ):
        load(shared_data / FIXTURE / f"results_{DATE}.json")


def test_metric_and_filter_choices(tmp_path: Path) -> None:
    records = [_sample(i) for i in range(6)] + [
        _sample(i, filter="strict-match", acc=1.0) for i in range(6)
    ]
    path = _write(tmp_path / f"samples_arc_{DATE}.jsonl", records)
    with pytest.raises(
        DataError, match=r"several metrics \('acc', 'acc_norm'\); choose one with --metric"
    ):
        load(path)
    with pytest.raises(
        DataError, match=r"several filters \('none', 'strict-match'\); choose one with --filter"
    ):
        load(path, metric="acc")
    table = load(path, metric="acc", filter="strict-match")
    assert table.mean == 1.0
    assert load(path, metric="acc_norm", filter="none").mean == pytest.approx(2 / 6)
    with pytest.raises(DataError, match=r"no metric 'f1'; choose one of 'acc', 'acc_norm'"):
        load(path, metric="f1")


def test_older_logs_without_metric_list(tmp_path: Path) -> None:
    records = [_sample(i) for i in range(4)]
    for r in records:
        del r["metrics"], r["filter"]
    table = load(_write(tmp_path / "samples_arc.jsonl", records), metric="acc")
    assert table.mean == 0.5


def test_directory_of_tasks_and_repeated_runs(tmp_path: Path) -> None:
    _write(tmp_path / f"samples_arc_{DATE}.jsonl", [_sample(i) for i in range(4)])
    _write(
        tmp_path / "samples_arc_2026-01-22T10-00-00.000001.jsonl",
        [_sample(i, acc=1.0) for i in range(4)],
    )
    _write(tmp_path / f"samples_hellaswag_{DATE}.jsonl", [_sample(i) for i in range(5)])
    tables = load_tasks(tmp_path, metric="acc")
    assert sorted(tables) == ["arc", "hellaswag"]
    assert tables["arc"].n_runs == 2  # two samples files of one task: two runs
    assert tables["arc"].mean == pytest.approx(0.75)
    assert tables["hellaswag"].n_runs == 1
    with pytest.raises(
        DataError, match=r"holds 2 tasks \('arc', 'hellaswag'\); choose one with task="
    ):
        load(tmp_path, metric="acc")
    assert load(tmp_path, metric="acc", task="hellaswag").n_items == 5


def test_corpus_metrics_are_explained(tmp_path: Path) -> None:
    records = [_sample(i, metrics=["bleu"], bleu=[["ref"], "pred"]) for i in range(3)]
    with pytest.raises(DataError, match=r"metric 'bleu' is not a per-document number.*statistic="):
        load(_write(tmp_path / "samples_wmt.jsonl", records))
    mixed = [_sample(i, metrics=["acc", "bleu"], bleu=[["ref"], "pred"]) for i in range(3)]
    table = load(_write(tmp_path / "samples_mix.jsonl", mixed))
    assert any("bleu hold corpus-level data" in n for n in table.notes)


def test_clusters_from_the_document(tmp_path: Path) -> None:
    path = _write(tmp_path / "samples_mmlu.jsonl", [_sample(i) for i in range(9)])
    table = load(path, metric="acc", cluster_column="subject")
    assert sorted(set(table.clusters)) == ["s0", "s1", "s2"]  # type: ignore[arg-type]
    assert load(path, metric="acc", cluster_column="doc.subject").clusters is not None


def test_bad_lines(tmp_path: Path) -> None:
    text = "\n".join([json.dumps(_sample(0)), '{"doc_id": 1, "doc": {', json.dumps({"x": 1})])
    path = tmp_path / "samples_arc.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"samples_arc.jsonl: line 2: not valid JSON"):
        load(path, metric="acc")
    table = load(path, metric="acc", skip_bad_lines=True)
    assert table.n_items == 1
    assert any("skipped 2 malformed record(s) (" in n for n in table.notes)


def test_content_keys_catch_different_datasets(tmp_path: Path) -> None:
    a = _write(tmp_path / "samples_arc_a.jsonl", [_sample(i) for i in range(6)])
    b = _write(
        tmp_path / "samples_arc_b.jsonl",
        [_sample(i, doc_hash=f"hash{i}" if i < 4 else "new", acc=1.0) for i in range(6)],
    )
    with pytest.raises(
        AlignmentError, match=r"2 item\(s\) have a different content key .*'4': 'hash4' vs 'new'"
    ):
        evalsig.compare(load(a, metric="acc"), load(b, metric="acc"))
    r = evalsig.compare(load(a, metric="acc"), load(b, metric="acc"), on_mismatch="exclude")
    assert (r.n_items, r.n_mismatched) == (4, 2)
    kept = evalsig.compare(load(a, metric="acc"), load(b, metric="acc"), on_mismatch="keep")
    assert (kept.n_items, kept.n_mismatched) == (6, 2)
    assert any("compared anyway" in n for n in kept.notes)


def test_end_to_end_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from evalsig.cli import app

    a = _write(tmp_path / "samples_arc_a.jsonl", [_sample(i) for i in range(40)])
    b = _write(
        tmp_path / "samples_arc_b.jsonl",
        [_sample(i, acc=float(i % 2 or i % 4 == 0)) for i in range(40)],
    )
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--metric", "acc"])
    assert result.exit_code == 0, result.output
    assert "+25.00 pp" in result.stdout
    ambiguous = CliRunner().invoke(app, ["compare", str(a), str(b)])
    assert ambiguous.exit_code == 4
    assert "several metrics ('acc', 'acc_norm'); choose one with --metric" in ambiguous.stderr


# --- every layout the harness has written --------------------------------------------------

LAYOUTS = Path(__file__).parent / "fixtures" / "lm_eval"
FOLDERS = {
    "v0.4.0-v0.4.2": ("v0.4.0-v0.4.2", "v0.4.0-v0.4.2 (<model_args>_<task>.jsonl holding"),
    "main-2024-05": (
        "main-2024-05/EleutherAI__pythia-160m",
        "main of May-June 2024 (samples_<task>_<date>.json holding JSON Lines)",
    ),
    "v0.4.3-v0.4.6": ("v0.4.3-v0.4.6/EleutherAI__pythia-160m", "v0.4.3-v0.4.6"),
    "v0.4.7": ("v0.4.7/EleutherAI__pythia-160m", "v0.4.7 or later"),
}


@pytest.mark.parametrize("layout", sorted(FOLDERS))
def test_every_layout_reads_the_same_scores(layout: str) -> None:
    folder, version = FOLDERS[layout]
    path = LAYOUTS / folder
    described = describe(path)
    assert described.layouts[0].startswith(f"lm-eval {version}")
    assert [t.name for t in described.tasks] == ["arc_easy", "gsm8k"]
    gsm = next(t for t in described.tasks if t.name == "gsm8k")
    assert gsm.filters == ("flexible-extract", "strict-match")
    assert gsm.runs == (1, 1)  # one copy per filter, not two runs
    arc = load(path, task="arc_easy", metric="acc")
    assert arc.sums.tolist() == [1.0, 0.0, 1.0]
    strict = load(path, task="gsm8k", filter="strict-match")
    flexible = load(path, task="gsm8k", filter="flexible-extract")
    assert (strict.sums.tolist(), flexible.sums.tolist()) == ([1.0, 0.0, 0.0], [1.0, 1.0, 0.0])


def test_single_legacy_files_and_the_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from evalsig.cli import app

    legacy = LAYOUTS / "v0.4.0-v0.4.2" / "pretrained__EleutherAI__pythia-160m_gsm8k.jsonl"
    table = load(legacy, filter="flexible-extract")
    assert table.sums.tolist() == [1.0, 1.0, 0.0]
    old = LAYOUTS / FOLDERS["v0.4.0-v0.4.2"][0]
    new = LAYOUTS / FOLDERS["v0.4.7"][0]
    args = ["compare", str(old), str(new), "--task", "gsm8k", "--filter", "strict-match"]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n_items"] == 3
    shown = CliRunner().invoke(app, ["inspect", str(old)])
    assert "[lm-eval v0.4.0-v0.4.2 (<model_args>_<task>.jsonl holding a JSON array)]" in (
        shown.stdout
    )


def test_unnamed_filters_without_a_results_file_are_numbered(tmp_path: Path) -> None:
    records = [
        _sample(i, filter=None, metrics=None, acc=float(k)) for k in (0, 1) for i in range(4)
    ]
    for record in records:
        del record["filter"], record["metrics"]
    path = _write(tmp_path / "samples_gsm8k_2024-08-01T00-00-00.jsonl", records)
    tables = describe(path)
    assert tables.tasks[0].filters == ("filter 1", "filter 2")
    assert any("appears 2 times without a filter name" in n for n in tables.notes)
    assert load(path, filter="filter 2", metric="acc").sums.tolist() == [1.0] * 4


def test_a_forced_format_that_reads_nothing_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.jsonl", [{"x": 1}, {"x": 2}])
    for skip in (False, True):
        with pytest.raises(FormatError, match=r"(not an lm-evaluation-harness sample)"):
            load(path, format="lm-eval", skip_bad_lines=skip)
    with pytest.raises(FormatError, match=r"none of its records could be read as 'lm-eval' \(2 "):
        describe(path, format="lm-eval", skip_bad_lines=True)


def test_lmms_eval_samples_read_as_lm_eval_with_their_own_names() -> None:
    folder = Path(__file__).parent / "fixtures" / "lmms_eval" / "llava-hf__llava-1.5-7b-hf"
    described = describe(folder)
    assert described.layouts == ("lm-eval lmms-eval (<date>_samples_<task>.jsonl)",)
    assert [t.name for t in described.tasks] == ["ai2d"]
    table = load(folder)
    assert table.sums.tolist() == [1.0, 0.0, 1.0]
    assert table.keys is not None  # doc_hash: a revised dataset would be caught


def test_an_output_path_of_one_model_is_read_and_of_several_refused(tmp_path: Path) -> None:
    import shutil

    model = Path(__file__).parent / "fixtures" / "lm_eval" / "v0.4.7" / "EleutherAI__pythia-160m"
    output = tmp_path / "out"
    shutil.copytree(model, output / model.name)
    tables = load_tasks(output, metric="exact_match", filter="strict-match", task="gsm8k")
    direct = load_tasks(
        output / model.name, metric="exact_match", filter="strict-match", task="gsm8k"
    )
    assert tables["gsm8k"].sums.tolist() == direct["gsm8k"].sums.tolist()
    assert any("its one model folder, EleutherAI__pythia-160m" in n for n in tables["gsm8k"].notes)
    shutil.copytree(model, output / "another_model")
    with pytest.raises(DataError, match=r"samples of 2 models \('EleutherAI__pythia-160m', 'ano"):
        describe(output)
