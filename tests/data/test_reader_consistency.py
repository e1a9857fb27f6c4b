"""Wrong answers without a word, across readers: a NaN score dropped unseen, a stray 2 in a
0/1 column, true/false and "1" as scores, ids 1 and "1" in two files, empty model names,
byte-identical files counted as runs, unknown format versions labelled as known ones."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import describe, load
from evalsig.data.models import load_models, model_scores
from evalsig.errors import DataError, FormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

runner = CliRunner()
NAN = math.nan


# --- a NaN score: named, or left out with a note when asked -------------------------------


def _lighteval(path: Path, values: list[float]) -> Path:
    """lighteval v0.11+ details with one metric, 'acc', one row per document."""
    rows = [
        {"doc": {"id": f"d{i}", "query": f"question {i}"}, "metric": {"acc": v}}
        for i, v in enumerate(values)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


LIGHTEVAL = "details_lighteval|arc|0_2025-01-01T00-00-00.000000.parquet"


def test_a_lighteval_nan_is_never_dropped_unseen(tmp_path: Path) -> None:
    """One NaN of four documents made 'score' report 100% of 3 documents without a word."""
    path = _lighteval(tmp_path / LIGHTEVAL, [1.0, NAN, 1.0, 1.0])
    with pytest.raises(DataError, match=r"column 'acc' has 1 NaN value\(s\) .*item 'd1' \(row 2\)"):
        load(path)
    kept = load(path, skip_bad_lines=True)
    assert (kept.n_items, kept.mean) == (3, 1.0)
    assert any(
        "left out 1 observation(s) of metric 'acc' without a value (row 2: NaN)" in n
        for n in kept.notes
    )
    assert describe(path).tasks[0].n_missing == 1
    done = runner.invoke(app, ["score", str(path)])
    assert done.exit_code == 4
    assert "row 2" in done.stderr
    assert "'acc'" in done.stderr


def test_a_nan_of_another_lighteval_metric_does_not_matter(tmp_path: Path) -> None:
    rows = [
        {"doc": {"id": f"d{i}", "query": f"q{i}"}, "metric": {"acc": 1.0, "f1": NAN if i else 0.5}}
        for i in range(4)
    ]
    path = tmp_path / LIGHTEVAL
    pq.write_table(pa.Table.from_pylist(rows), path)
    assert load(path, metric="acc").n_items == 4
    with pytest.raises(DataError, match=r"column 'f1' has 3 NaN value"):
        load(path, metric="f1")


def _csv(path: Path) -> Path:
    path.write_text("id,score\nq0,1\nq1,nan\nq2,0\nq3,1\n", encoding="utf-8")
    return path


def _jsonl(path: Path) -> Path:
    lines = ['{"id": "q0", "score": 1}', '{"id": "q1", "score": NaN}', '{"id": "q2", "score": 0}']
    path.with_suffix(".jsonl").write_text("\n".join([*lines, '{"id": "q3", "score": 1}']) + "\n")
    return path.with_suffix(".jsonl")


def _lm_eval(path: Path) -> Path:
    folder = path.parent / "lm"
    folder.mkdir()
    records = [
        {
            "doc_id": i, "doc": {"q": i}, "target": "A", "arguments": [], "resps": [],
            "filtered_resps": [], "filter": "none", "metrics": ["acc"], "doc_hash": f"h{i}",
            "prompt_hash": "p", "target_hash": "t", "acc": [1.0, NAN, 0.0, 1.0][i],
        }
        for i in range(4)
    ]  # fmt: skip
    target = folder / "samples_arc_2025-01-01T00-00-00.000000.jsonl"
    target.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return target


def _helm(path: Path) -> Path:
    run = path.parent / "helm_run"
    run.mkdir()
    (run / "run_spec.json").write_text(json.dumps({"name": "toy:model=a"}), encoding="utf-8")
    entries = [
        {
            "instance_id": f"id{i}",
            "train_trial_index": 0,
            "stats": [{"name": {"name": "em", "split": "test"}, "count": 1, "mean": v, "sum": v}],
        }
        for i, v in enumerate([1.0, NAN, 0.0, 1.0])
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(entries), encoding="utf-8")
    return run / "per_instance_stats.json"


def _every_eval_ever(path: Path) -> Path:
    records = [
        {
            "schema_version": "instance_level_eval_0.2.1", "evaluation_id": "e1",
            "model_id": "org/m", "evaluation_name": "gsm8k", "sample_id": f"s{i}",
            "sample_hash": f"h{i}", "interaction_type": "single_turn",
            "input": {"raw": f"q{i}"}, "output": {"raw": ["4"]}, "answer_attribution": [],
            "evaluation": {"score": v}, "metadata": {},
        }
        for i, v in enumerate([1.0, NAN, 0.0, 1.0])
    ]  # fmt: skip
    target = path.with_suffix(".jsonl")
    target.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return target


def _lighteval_nan(path: Path) -> Path:
    return _lighteval(path.parent / LIGHTEVAL, [1.0, NAN, 0.0, 1.0])


READERS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "csv": (_csv, "line 3"),
    "jsonl": (_jsonl, "line 2"),
    "lm-eval": (_lm_eval, "line 2"),
    "helm": (_helm, "entry 2"),
    "every-eval-ever": (_every_eval_ever, "line 2"),
    "lighteval": (_lighteval_nan, "row 2"),
}
"""A file of four items whose second score is NaN, and how each reader names its place."""


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_names_a_nan_or_leaves_it_out_with_a_note(reader: str, tmp_path: Path) -> None:
    make, where = READERS[reader]
    path = make(tmp_path / "scores.csv")
    with pytest.raises(DataError, match="NaN") as raised:
        load(path)
    assert where in str(raised.value)
    kept = load(path, skip_bad_lines=True)
    assert kept.n_items == 3
    assert any("left out 1 observation(s)" in n and where in n for n in kept.notes), kept.notes


# --- a 0/1 column with a stray value ------------------------------------------------------


@pytest.mark.parametrize(("stray", "shown"), [(2, "2"), (-1, "-1")])
def test_a_stray_value_in_a_0_1_column_is_named(tmp_path: Path, stray: int, shown: str) -> None:
    """A 2 turns McNemar's test into a t test: the note names the item."""
    path = tmp_path / "stray.csv"
    rows = [f"q{i},{i % 2}" for i in range(20)] + [f"q20,{stray}"]
    path.write_text("id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    table = load(path)
    assert not table.binary
    (note,) = [n for n in table.notes if "holds 0 and 1 except" in n]
    assert f"1 value(s) ({shown} at item 'q20')" in note
    assert "McNemar" in note
    fast = load(path, skip_bad_lines=True)  # the row reader notes it alike
    assert note in fast.notes
    matrix = evalsig.load([[1, 0, 1, 1, 0, 1, 0, stray, 1, 0]])
    assert any(f"({shown} at item 7)" in n for n in matrix.notes)


def test_a_continuous_column_is_not_called_a_0_1_one(tmp_path: Path) -> None:
    for values in ([0.0, 1.0, 0.5, 1.0, 0.0], [0, 1, 2, 3, 4, 5, 1, 0], [0, 1, 1, 0]):
        assert not any("holds 0 and 1 except" in n for n in evalsig.load(values).notes)


# --- true/false and "1": refused or noted, never coerced unseen ----------------------------


def test_true_false_text_in_a_csv_is_noted(tmp_path: Path) -> None:
    path = tmp_path / "tf.csv"
    rows = [f"q{i},{['False', 'True'][i % 2]}" for i in range(10)]
    path.write_text("id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    for table in (load(path), load(path, skip_bad_lines=True)):  # columns, then rows
        assert table.binary
        assert table.mean == 0.5
        assert any("holds the text true/false, read as 1 and 0" in n for n in table.notes)
    assert not any("true/false" in n for n in load(_bools(tmp_path)).notes)  # JSON booleans


def _bools(tmp_path: Path) -> Path:
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps({"id": i, "score": i % 2 == 1}) + "\n" for i in range(6)))
    return path


@pytest.mark.parametrize("text", [["0", "1"], ["True", "False"]])
def test_scores_given_as_text_in_json_are_refused(tmp_path: Path, text: list[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"id": i, "score": text[i % 2]}) + "\n" for i in range(6)))
    with pytest.raises(DataError, match=rf"non-numeric value\(s\): {text[0]!r} at line 1"):
        load(path)


def test_an_alpaca_eval_preference_given_as_text_is_noted(tmp_path: Path) -> None:
    records = [
        {"instruction": f"i{k}", "output_1": "a", "output_2": "b", "generator_1": "base",
         "generator_2": "m", "annotator": "gpt4", "preference": p}
        for k, p in enumerate([2.0, "2", 1.0, None])
    ]  # fmt: skip
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(FormatError, match=r"record 4: 'preference' is None, not a number"):
        load(path)
    table = load(path, skip_bad_lines=True)
    assert table.mean == pytest.approx(2 / 3)
    assert any("'preference' is text in 1 record(s) (e.g. record 2)" in n for n in table.notes)


def test_inspect_text_scores_are_noted(tmp_path: Path) -> None:
    samples = [
        {"id": i, "epoch": 1, "target": "A", "scores": {"s": {"value": v}}, "metadata": {}}
        for i, v in enumerate(["1", "C", "0", 1])
    ]
    log = {
        "version": 2, "status": "success", "eval": {"task": "t", "model": "m/x"},
        "results": {"scores": [{"name": "s"}]}, "samples": samples,
    }  # fmt: skip
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    table = load(path)
    assert table.mean == 0.75
    assert any("scorer 's' gave 2 value(s) as text (e.g. '1' at sample 0" in n for n in table.notes)


# --- item ids 1 and "1" in two files --------------------------------------------------------


def test_ids_that_are_numbers_in_one_file_and_text_in_another_are_noted(tmp_path: Path) -> None:
    numbers, texts = tmp_path / "a.json", tmp_path / "b.json"
    numbers.write_text(json.dumps([{"id": i, "score": i % 2} for i in range(6)]))
    texts.write_text(json.dumps([{"id": str(i), "score": 1} for i in range(6)]))
    table = load([numbers, texts])
    assert table.n_runs == 2
    assert any(
        f"item ids are numbers in {numbers} (e.g. 0) but text in {texts} (e.g. '0')" in n
        for n in table.notes
    )
    assert not any("item ids are numbers" in n for n in load([numbers, numbers]).notes)


# --- empty model names ------------------------------------------------------------------------


def test_rows_without_a_model_beside_named_ones_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    rows = [f"q{i},{i % 2},{'gpt-4' if i < 4 else ''}" for i in range(6)]
    path.write_text("id,score,model\n" + "\n".join(rows) + "\n", encoding="utf-8")
    for skip in (False, True):  # the column reader defers to the row reader's message
        with pytest.raises(DataError, match=r"column 'model' is empty on 2 row\(s\) \(line 6"):
            load(path, skip_bad_lines=skip)
    blank = tmp_path / "blank.csv"  # names no model at all: nothing to pool
    blank.write_text("id,score,model\n" + "\n".join(f"q{i},1," for i in range(4)) + "\n")
    assert load(blank).n_items == 4


def test_a_leaderboard_row_without_a_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    rows = [f"{m},q{i},{i % 2}" for m in ("a", "b") for i in range(5)] + [",q5,1"]
    path.write_text("model,id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"line 12: field 'model' is empty"):
        load_models(path)
    scores = {"a": [1, 0, 1], "": [0, 0, 1]}
    with pytest.raises(DataError, match=r"model 2 of 2 has an empty name \(''\)"):
        model_scores({name: evalsig.load(v) for name, v in scores.items()})


def test_a_harness_file_naming_an_empty_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "eee.jsonl"
    record = {
        "schema_version": "0.3.0", "evaluation_id": "e", "model_id": "", "evaluation_name": "t",
        "sample_id": "s0", "sample_hash": "h", "interaction_type": "single_turn",
        "input": {}, "output": {}, "answer_attribution": [], "evaluation": {"score": 1.0},
    }  # fmt: skip
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"line 1: 'model_id' is '', not the name of a model"):
        load(path)


# --- byte-identical files read as runs ---------------------------------------------------------


def test_byte_identical_runs_are_noted_naming_both_files(tmp_path: Path) -> None:
    first = tmp_path / "run1.csv"
    first.write_text("id,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(8)))
    copy = tmp_path / "run2.csv"
    shutil.copy(first, copy)
    table = load([first, copy])
    assert table.n_runs == 2
    assert any(f"{first} and {copy} are byte-identical" in n for n in table.notes)
    twice = load([first, first])
    assert any(f"{first} is given twice" in n for n in twice.notes)
    assert describe([first, copy]).notes[-1].startswith(f"{first} and {copy} are byte-identical")
    other = tmp_path / "run3.csv"
    other.write_text("id,score\n" + "".join(f"q{i},{1 - i % 2}\n" for i in range(8)))
    assert not any("byte-identical" in n for n in load([first, other]).notes)
    shown = runner.invoke(app, ["score", str(tmp_path / "run[12].csv")])
    assert shown.exit_code == 0, shown.output
    assert "byte-identical" in shown.stdout


# --- unknown format versions --------------------------------------------------------------------


def test_an_unknown_promptfoo_version_is_not_labelled_a_known_one(tmp_path: Path) -> None:
    source = Path(__file__).parent / "fixtures/promptfoo/v3_two_providers_repeat2.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    document["results"]["version"] = 4
    path = tmp_path / "v4.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    d = describe(path, where={"provider": "model-a"})
    assert d.layouts == (
        "promptfoo unknown EvaluateSummary version 4; read as version 3 (its results)",
    )
    assert any("unknown EvaluateSummary version 4; read as version 3" in n for n in d.notes)


def test_an_unknown_every_eval_ever_schema_is_said(tmp_path: Path) -> None:
    record = {
        "schema_version": "instance_level_eval_1.4.0", "evaluation_id": "e", "model_id": "m",
        "evaluation_name": "t", "sample_id": "s0", "sample_hash": "h",
        "interaction_type": "single_turn", "input": {}, "output": {},
        "answer_attribution": [], "evaluation": {"score": 1.0},
    }  # fmt: skip
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    d = describe(path)
    assert d.layouts == (
        "every-eval-ever unknown instance schema instance_level_eval_1.4.0; read as schema 0.3.0",
    )


def test_an_unknown_lm_eval_release_is_said(tmp_path: Path) -> None:
    samples = _lm_eval(tmp_path / "x")
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    records[1]["acc"] = 0.0
    samples.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    results = {"results": {"arc": {}}, "configs": {}, "lm_eval_version": "0.9.1"}
    (samples.parent / "results_2025-01-01T00-00-00.000000.json").write_text(json.dumps(results))
    table = load(samples.parent)
    assert table.origin is not None
    assert table.origin.layout == "unknown lm_eval_version 0.9.1; read as v0.4.7 or later"
    assert any("unknown lm_eval_version '0.9.1'; read as v0.4.7 or later" in n for n in table.notes)
    results["lm_eval_version"] = "0.4.9.2"
    (samples.parent / "results_2025-01-01T00-00-00.000000.json").write_text(json.dumps(results))
    assert load(samples.parent).origin.layout == "v0.4.7 or later"  # type: ignore[union-attr]
