"""Generic long tables carry a content key, so compare() notices a changed answer column."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import load, load_tasks
from evalsig.data.readers.content_key import detect_key
from evalsig.errors import AlignmentError, FormatError

runner = CliRunner()


@pytest.mark.parametrize(
    ("columns", "used", "key"),
    [
        (["id", "gold", "score"], ["id", "score"], "gold"),
        (["id", "target", "doc_hash", "score"], ["id", "score"], "target"),
        (["id", "answer", "pred", "correct"], ["id", "correct"], "answer"),
        (["id", "label", "prediction", "score"], ["id", "score"], "label"),
        # alone, 'answer' or 'label' may be the model's own answer: never a key
        (["id", "answer", "score"], ["id", "score"], None),
        (["id", "label", "score"], ["id", "score"], None),
        # a column with another role is never the key
        (["item", "target", "score"], ["item", "score", "target"], None),
        # a per-row prediction is never a key
        (["id", "pred", "score"], ["id", "score"], None),
        (["id", "score"], ["id", "score"], None),
    ],
)
def test_detection_is_narrow(columns: list[str], used: list[str], key: str | None) -> None:
    found, note = detect_key(columns, used, source="t.csv")
    assert found == key
    assert (note is None) == (key is None)
    if key is not None:
        assert note is not None
        assert note.startswith(f"t.csv: content key {key!r} detected")


def _csv(path: Path, answers: dict[str, str], extra: str = "pred") -> Path:
    rng = np.random.default_rng(len(path.name))
    rows = [f"id,answer,{extra},correct"]
    for item, gold in answers.items():
        rows.append(
            f"{item},{gold},{gold if rng.random() < 0.6 else 'X'},{int(rng.random() < 0.6)}"
        )
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


ANSWERS = {f"q{i}": "ABCD"[i % 4] for i in range(60)}
REVISED = {**ANSWERS, "q5": "D", "q9": "A"}


def test_a_changed_answer_column_stops_compare(tmp_path: Path) -> None:
    old = _csv(tmp_path / "old.csv", ANSWERS)
    new = _csv(tmp_path / "new.csv", REVISED)
    table = load(old)
    assert table.keys is not None
    assert table.keys[:3].tolist() == ["A", "B", "C"]
    assert any("content key 'answer' detected" in n for n in table.notes)
    with pytest.raises(AlignmentError, match=r"2 item\(s\) have a different content key") as info:
        evalsig.compare(old, new)
    assert "'q5': 'B' vs 'D'" in str(info.value)
    r = evalsig.compare(old, new, on_mismatch="exclude")
    assert (r.n_items, r.n_mismatched) == (58, 2)
    assert evalsig.compare(old, new, on_mismatch="keep").n_items == 60
    evalsig.compare(old, _csv(tmp_path / "same.csv", ANSWERS))  # the same key: no alarm


def test_no_false_alarm_without_a_prediction_column(tmp_path: Path) -> None:
    """'answer' beside a score but no prediction may be the model's answer: not a key."""
    a = _csv(tmp_path / "a.csv", ANSWERS, extra="length")
    b = _csv(tmp_path / "b.csv", REVISED, extra="length")
    assert load(a).keys is None
    assert evalsig.compare(a, b).n_items == 60
    # named by the user, it is one
    with pytest.raises(AlignmentError, match="different content key"):
        evalsig.compare(load(a, key_column="answer"), load(b, key_column="answer"))


def test_named_key_column_wins_and_must_exist(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("id,checksum,answer,pred,score\nq1,x1,A,A,1\nq2,x2,B,C,0\n", encoding="utf-8")
    table = load(path, key_column="checksum")
    assert table.keys is not None
    assert table.keys.tolist() == ["x1", "x2"]
    assert not any("detected" in n and "content key" in n for n in table.notes)
    with pytest.raises(FormatError, match="no column 'hash'"):
        load(path, key_column="hash")


def test_jsonl_and_parquet_carry_the_key(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    frames = {
        name: pd.DataFrame(
            {"item": list(answers), "target": list(answers.values()), "score": [1, 0] * 30}
        )
        for name, answers in (("old", ANSWERS), ("new", REVISED))
    }
    jsonl = tmp_path / "old.jsonl"
    jsonl.write_text(
        "\n".join(json.dumps(r) for r in frames["old"].to_dict("records")), encoding="utf-8"
    )
    parquet = tmp_path / "new.parquet"
    frames["new"].to_parquet(parquet)
    with pytest.raises(AlignmentError, match=r"2 item\(s\) have a different content key"):
        evalsig.compare(jsonl, parquet)
    assert load(parquet).keys is not None


def test_dataframes_carry_the_key() -> None:
    rows = [
        {"model": m, "question_id": q, "answer": a, "pred": a, "correct": 1}
        for m, answers in (("base", ANSWERS), ("tuned", REVISED))
        for q, a in answers.items()
    ]
    frame = pd.DataFrame(rows)
    base = frame[frame["model"] == "base"]
    tuned = frame[frame["model"] == "tuned"]
    with pytest.raises(AlignmentError, match="different content key"):
        evalsig.compare(base, tuned)
    a = load(frame, where={"model": "base"})
    b = load(frame, where={"model": "tuned"})
    with pytest.raises(AlignmentError, match="different content key"):
        evalsig.compare(a, b)


# --- the MMLU-Pro long table (../shared/data) ---------------------------------------------

LLAMA_8B = "Meta-Llama-3_1-8B_5shots"
LLAMA_8B_INSTRUCT = "Meta-Llama-3_1-8B-Instruct_5shots"
MISTRAL_7B = "Mistral-7B-v0.1_5shots"


@pytest.fixture(scope="module")
def long_table(shared_data: Path) -> Path:
    return shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz"


@pytest.fixture(scope="module")
def mmlu(long_table: Path) -> pd.DataFrame:
    return pd.read_csv(long_table)


@pytest.mark.shared_data
def test_every_pair_of_the_long_table_is_checked(mmlu: pd.DataFrame) -> None:
    """For all 406 pairs of models, compare() stops exactly when pandas sees their gold
    answers differ on a shared question, and names how many."""
    tables = load_tasks(mmlu, task_column="model", id_column="question_id", score_column="correct")
    answers = mmlu.pivot(index="question_id", columns="model", values="answer")
    differing = 0
    for a, b in itertools.combinations(sorted(tables), 2):
        both = answers[[a, b]].dropna()
        n = int((both[a] != both[b]).sum())
        if n == 0:
            r = evalsig.compare(tables[a], tables[b], on_missing="intersect")
            assert r.n_mismatched == 0
            continue
        differing += 1
        with pytest.raises(AlignmentError, match=rf"^{n} item\(s\) have a different content key"):
            evalsig.compare(tables[a], tables[b], on_missing="intersect")
        r = evalsig.compare(tables[a], tables[b], on_missing="intersect", on_mismatch="exclude")
        assert r.n_mismatched == n
        assert r.n_items == len(both) - n
    assert differing == 183  # the four versions of the answer key: 20, 5, 3 and 1 models


@pytest.mark.shared_data
def test_llama_instruct_and_base_share_their_answer_key(mmlu: pd.DataFrame) -> None:
    base = mmlu[mmlu["model"] == LLAMA_8B]
    inst = mmlu[mmlu["model"] == LLAMA_8B_INSTRUCT]
    r = evalsig.compare(base, inst)
    assert (r.n_items, r.n_mismatched) == (12_032, 0)
    assert round(r.candidate_mean - r.baseline_mean, 4) == round(0.4419 - 0.3649, 4)


@pytest.mark.shared_data
def test_llama_and_mistral_used_different_answer_keys(mmlu: pd.DataFrame) -> None:
    base = mmlu[mmlu["model"] == LLAMA_8B]
    mistral = mmlu[mmlu["model"] == MISTRAL_7B]
    with pytest.raises(AlignmentError) as info:
        evalsig.compare(base, mistral)
    assert str(info.value).startswith(
        "3 item(s) have a different content key (gold answer, target or document hash) in "
        "baseline and candidate ('143': 'I' vs 'C'; '3983': 'C' vs 'B'; '6392': 'B' vs 'D')"
    )
    assert evalsig.compare(base, mistral, on_mismatch="exclude").n_items == 12_029
    kept = evalsig.compare(base, mistral, on_mismatch="keep")
    assert (kept.n_items, kept.n_mismatched) == (12_032, 3)


@pytest.mark.shared_data
def test_compare_cli_on_the_long_table(long_table: Path) -> None:
    base = ["compare", str(long_table), str(long_table), "--id", "question_id"]
    args = [
        *base,
        "--baseline-where",
        f"model={LLAMA_8B}",
        "--candidate-where",
        f"model={MISTRAL_7B}",
    ]
    stopped = runner.invoke(app, args)
    assert stopped.exit_code == 4
    assert "3 item(s) have a different content key" in stopped.stderr
    assert "--on-mismatch exclude" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    passed = runner.invoke(app, [*args, "--on-mismatch", "exclude", "--format", "json"])
    assert passed.exit_code == 0, passed.output
    data = json.loads(passed.stdout)
    assert data["n_items"] == 12_029
    same = [*base, "--baseline-where", f"model={LLAMA_8B}"]
    same += ["--candidate-where", f"model={LLAMA_8B_INSTRUCT}", "--format", "json"]
    ok = runner.invoke(app, same)
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["n_items"] == 12_032
