"""Generic records: MMLU-Pro zips, AlpacaEval annotations, several files as runs, filters."""

from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import evalsig
from evalsig.data import load, load_tasks
from evalsig.errors import AlignmentError, DataError, FormatError

pytestmark = pytest.mark.shared_data


class TestMmluPro:
    def test_zip_reads_natively(self, shared_data: Path) -> None:
        base = load(shared_data / "mmlu_pro/model_outputs_Meta-Llama-3_1-8B_5shots.zip")
        inst = load(shared_data / "mmlu_pro/model_outputs_Meta-Llama-3_1-8B-Instruct_5shots.zip")
        assert (base.n_items, round(base.mean, 4)) == (12_032, 0.3649)
        assert (inst.n_items, round(inst.mean, 4)) == (12_032, 0.4419)
        assert any("detected score = 'pred' == 'answer'" in n for n in base.notes)

    def test_null_predictions_are_wrong_and_counted(self, shared_data: Path) -> None:
        t = load(shared_data / "mmlu_pro/model_outputs_Mistral-7B-v0.1_5shots.zip")
        assert any(
            "1251 record(s) have no prediction ('pred' is null): scored as wrong" in n
            for n in t.notes
        )

    def test_the_33_revised_answer_keys_are_caught(self, shared_data: Path) -> None:
        tables = {
            f.name: load(f, cluster_column="category")
            for f in sorted((shared_data / "mmlu_pro").glob("model_outputs_*.zip"))
        }
        revised: set[str] = set()
        for a, b in itertools.combinations(tables.values(), 2):
            keys_a = dict(zip(a.item_ids, a.keys, strict=True))  # type: ignore[arg-type]
            keys_b = dict(zip(b.item_ids, b.keys, strict=True))  # type: ignore[arg-type]
            differ = {i for i in keys_a.keys() & keys_b.keys() if keys_a[i] != keys_b[i]}
            if not differ:
                evalsig.compare(a, b, on_missing="intersect")  # no error without a mismatch
                continue
            with pytest.raises(AlignmentError, match=f"{len(differ)} item\\(s\\) have a different"):
                evalsig.compare(a, b, on_missing="intersect")
            r = evalsig.compare(a, b, on_missing="intersect", on_mismatch="exclude")
            assert r.n_mismatched == len(differ)
            revised |= differ
        assert len(revised) == 33  # data/README.md

    def test_long_table_with_where_and_key(self, shared_data: Path) -> None:
        path = shared_data / "mmlu_pro/mmlu_pro_long.csv.gz"
        gemini = load(
            path,
            where={"model": "gemini-1.5-pro-002_5shots"},
            key_column="answer",
            id_column="question_id",
            score_column="correct",
        )
        llama = load(
            path,
            where={"model": "Meta-Llama-3_1-8B_5shots"},
            key_column="answer",
            id_column="question_id",
            score_column="correct",
        )
        assert gemini.n_items == 12_020
        with pytest.raises(AlignmentError, match=r"30 item\(s\) have a different content key"):
            evalsig.compare(llama, gemini, on_missing="intersect")


class TestAlpacaEval:
    def test_win_rate_reproduces_the_leaderboard(self, shared_data: Path) -> None:
        t = load(shared_data / "alpaca_eval/claude-2/annotations.json", cluster_column="dataset")
        assert t.n_items == 805
        assert t.mean * 100 == pytest.approx(17.188240356708075, abs=1e-9)  # leaderboard.csv
        assert sorted(set(t.clusters)) == [  # type: ignore[arg-type]
            "helpful_base",
            "koala",
            "oasst",
            "selfinstruct",
            "vicuna",
        ]

    def test_paired_comparison_and_missing_instruction(self, shared_data: Path) -> None:
        claude = load(shared_data / "alpaca_eval/claude-2/annotations.json")
        gpt35 = load(shared_data / "alpaca_eval/gpt-3.5-turbo-1106/annotations.json")
        r = evalsig.compare(gpt35, claude)
        assert (r.method, r.n_items) == ("paired-t", 805)
        concise = load(shared_data / "alpaca_eval/alpaca-7b_concise/annotations.json")
        with pytest.raises(AlignmentError, match="805 items and candidate has 804; 1 only in"):
            evalsig.compare(claude, concise)

    def test_different_judges_are_not_paired(self, tmp_path: Path) -> None:
        def annotations(annotator: str, prefs: list[float]) -> Path:
            path = tmp_path / f"{annotator}-{len(prefs)}" / "annotations.json"
            path.parent.mkdir()
            path.write_text(
                json.dumps(
                    [
                        {
                            "instruction": f"i{k}",
                            "output_1": "base",
                            "generator_1": "gpt4",
                            "output_2": "x",
                            "generator_2": "m",
                            "annotator": annotator,
                            "preference": str(p),
                            "dataset": "d",
                        }
                        for k, p in enumerate(prefs)
                    ]
                ),
                encoding="utf-8",
            )
            return path

        a = load(annotations("judge-a", [1.0, 2.0, 1.5, 1.2]))
        assert a.mean == pytest.approx((0 + 1 + 0.5 + 0.2) / 4)
        b = load(annotations("judge-b", [2.0, 2.0, 1.5, 1.0]))
        with pytest.raises(AlignmentError, match="4 item\\(s\\) have a different content key"):
            evalsig.compare(a, b)
        bad = annotations("judge-c", [1.0, 3.0])
        with pytest.raises(FormatError, match=r"record 2: 'preference' is '3.0', outside \[1, 2\]"):
            load(bad)


def _records_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


class TestGenericRecords:
    def test_zip_needs_exactly_one_json_member(self, tmp_path: Path) -> None:
        data = json.dumps([{"item": "a", "score": 1}]).encode()
        two = _records_zip(tmp_path / "two.zip", {"a.json": data, "b.json": data})
        with pytest.raises(FormatError, match="expected one JSON file in the archive, found 2"):
            load(two)

    def test_zip_bomb_is_refused(self, tmp_path: Path) -> None:
        bomb = _records_zip(tmp_path / "bomb.zip", {"x.json": b"[" + b" " * 50_000_000 + b"]"})
        assert bomb.stat().st_size < 200_000
        from evalsig.data.readers import ReadOptions, read_tables

        with pytest.raises(
            FormatError, match="declares 50,000,002 bytes, more than the 1,000,000-byte cap"
        ):
            read_tables(bomb, ReadOptions(max_decompressed_bytes=1_000_000))

    def test_prediction_and_answer(self, tmp_path: Path) -> None:
        rows = [
            {"id": i, "pred": p, "gold": g}
            for i, (p, g) in enumerate([("A", "A"), ("B", "C"), (None, "D"), ("D", "D")])
        ]
        path = tmp_path / "r.jsonl"
        path.write_text("\n".join(map(json.dumps, rows)), encoding="utf-8")
        t = load(path, prediction_column="pred", answer_column="gold")
        assert t.mean == 0.5
        assert list(t.keys) == ["A", "C", "D", "D"]  # type: ignore[arg-type]
        assert any("1 record(s) have no prediction" in n for n in t.notes)
        with pytest.raises(DataError, match="prediction_column and answer_column go together"):
            load(path, prediction_column="pred")

    def test_several_files_are_runs(self, tmp_path: Path) -> None:
        for seed, scores in enumerate(([1, 0, 1], [1, 1, 1], [0, 0, 1])):
            (tmp_path / f"run{seed}.csv").write_text(
                "item,score\n" + "".join(f"q{i},{s}\n" for i, s in enumerate(scores)),
                encoding="utf-8",
            )
        t = load(str(tmp_path / "run*.csv"))
        assert (t.n_items, t.n_runs) == (3, 3)
        assert list(t.means) == pytest.approx([2 / 3, 1 / 3, 1.0])
        same = load([tmp_path / "run0.csv", tmp_path / "run1.csv"])
        assert same.n_runs == 2
        with pytest.raises(FormatError, match="the pattern matches no file"):
            load(str(tmp_path / "nothing*.csv"))

    def test_task_column(self, tmp_path: Path) -> None:
        frame = pd.DataFrame({"task": ["a", "a", "b"], "item": [1, 2, 1], "score": [1, 0, 1]})
        tables = load_tasks(frame, task_column="task")
        assert {k: v.n_items for k, v in tables.items()} == {"a": 2, "b": 1}
        with pytest.raises(DataError, match=r"holds 2 tasks \('a', 'b'\)"):
            load(frame, task_column="task")


def test_wide_tables_have_a_column_per_run(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text(
        "item,seed_1,seed_2,seed_3,subject\nq1,1,0,1,a\nq2,0,0,,b\nq3,1,1,1,a\n", encoding="utf-8"
    )
    t = load(path, score_column="seed_*", cluster_column="subject")
    assert (t.n_items, t.n_runs) == (3, 3)
    assert t.counts.tolist() == [3, 2, 3]  # q2 lacks seed_3: a ragged run, noted
    assert t.means.tolist() == pytest.approx([2 / 3, 0.0, 1.0])
    assert any("1 empty cell(s) in the score columns" in n for n in t.notes)
    same = load(path, score_column="seed_1, seed_2")
    assert same.n_runs == 2
    with pytest.raises(FormatError, match="no column matches 'run_\\*'"):
        load(path, score_column="run_*")
    with pytest.raises(DataError, match="runs of a wide table, so there is no run column"):
        load(path, score_column="seed_*", run_column="subject")
    frame = pd.DataFrame({"item": ["a", "b"], "m1": [0.5, 0.7], "m2": [0.4, 0.9]})
    assert load(frame, score_column="m1,m2").n_runs == 2
