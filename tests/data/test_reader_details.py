"""What inspect and the notes say: per-task sources, content keys, scales, nested fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import describe, load
from evalsig.errors import FormatError

LM_EVAL = Path(__file__).parent / "fixtures" / "lm_eval"
runner = CliRunner()


def test_notes_name_the_files_of_the_chosen_task_once() -> None:
    new = LM_EVAL / "v0.4.7" / "EleutherAI__pythia-160m"
    old = LM_EVAL / "v0.4.3-v0.4.6" / "EleutherAI__pythia-160m"
    args = ["compare", str(new), str(old), "--task", "gsm8k", "--filter", "strict-match"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stdout.splitlines() if line.startswith("   - ")]
    lines = [line for line in notes if "filter 'strict-match'" in line]
    assert len(lines) == 2  # one per side, each naming its own samples file
    assert all("samples_gsm8k_" in line and "2 files" not in line for line in lines)
    assert len(notes) == len(set(notes))  # no note printed twice


def test_free_text_columns_are_not_offered_as_keys_or_clusters(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        "id,score,resps,generated_text,prompt,gold,subject,answer_hash\n"
        "q1,1,a,b,c,x,s,h1\nq2,0,a,b,c,y,t,h2\n",
        encoding="utf-8",
    )
    described = describe(path)
    assert described.key_fields == ("answer_hash", "gold")
    assert described.cluster_fields == ("subject",)


def test_an_all_zero_score_does_not_claim_a_scale(tmp_path: Path) -> None:
    path = tmp_path / "z.csv"
    path.write_text("id,score\nq1,0\nq2,0\nq3,0\n", encoding="utf-8")
    assert describe(path).tasks[0].scale == "all 0 (scale unknown)"
    shown = runner.invoke(app, ["inspect", str(path)])
    assert "all 0 (scale unknown)" in shown.stdout
    r = evalsig.compare(load(path), load(path))
    assert any("cannot tell a 0/1 score from one on another scale" in n for n in r.notes)
    mixed = tmp_path / "m.csv"
    mixed.write_text("id,score\nq1,0\nq2,1\n", encoding="utf-8")
    assert describe(mixed).tasks[0].scale == "0/1"


def test_nested_fields_are_addressed_alike_in_json_and_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [
        {"doc": {"id": f"d{i}", "meta": {"subject": "ab"[i % 2]}}, "metric": {"acc": float(i % 2)}}
        for i in range(6)
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "n.parquet")
    (tmp_path / "n.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n", encoding="utf-8")
    options = {"id_column": "doc.id", "score_column": "metric.acc"}
    tables = [
        load(tmp_path / name, cluster_column="doc.meta.subject", **options)
        for name in ("n.parquet", "n.jsonl")
    ]
    for table in tables:
        assert table.item_ids.tolist() == [f"d{i}" for i in range(6)]
        assert table.sums.tolist() == [0.0, 1.0] * 3
        assert table.clusters.tolist() == ["a", "b"] * 3
    with pytest.raises(FormatError, match=r"no column 'doc.nope'"):
        load(tmp_path / "n.parquet", id_column="doc.nope", score_column="metric.acc")
