"""Long-format files: CSV, TSV, JSONL, JSON, Parquet, gzip; malformed and hostile input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from evalsig.data import load, read_tables
from evalsig.errors import DataError, FormatError


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_with_runs(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.csv", "item,run,score\nq1,1,1\nq1,2,0\nq2,1,1\nq2,2,1\n")
    t = load(f)
    assert (t.n_items, t.n_runs, t.mean) == (2, 2, 0.75)


def test_csv_true_false_and_tsv(tmp_path: Path) -> None:
    assert load(_write(tmp_path / "a.csv", "id,correct\nq1,True\nq2,false\n")).mean == 0.5
    assert load(_write(tmp_path / "a.tsv", "id\tcorrect\nq1\t1\nq2\t0\n")).n_items == 2


def test_csv_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="the file is empty"):
        load(_write(tmp_path / "e.csv", ""))
    with pytest.raises(FormatError, match="has a header but no rows"):
        load(_write(tmp_path / "h.csv", "item,score\n"))
    with pytest.raises(FormatError, match=r"s\.csv: line 3: has 1 fields but the header has 2"):
        load(_write(tmp_path / "s.csv", "item,score\nq1,1\nq2\n"))
    with pytest.raises(FormatError, match=r"m\.csv: line 2: field 'score' is null or empty"):
        load(_write(tmp_path / "m.csv", "item,score\nq1,\n"))
    with pytest.raises(
        DataError, match=r"column 'score' has 1 non-numeric value\(s\): 'maybe' at line 2"
    ):
        load(_write(tmp_path / "n.csv", "item,score\nq1,maybe\n"))
    bad = tmp_path / "u.csv"
    bad.write_bytes(b"item,score\nq1,1\n\xff\xfe,1\n")
    with pytest.raises(FormatError, match="not valid UTF-8"):
        load(bad)


def test_jsonl_nested_fields(tmp_path: Path) -> None:
    lines = [
        {"id": "a", "scores": {"acc": 1}, "metadata": {"subject": "math"}},
        {"id": "b", "scores": {"acc": 0}, "metadata": {"subject": "law"}},
    ]
    f = _write(tmp_path / "r.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n\n")
    t = load(f, score_column="scores.acc", cluster_column="metadata.subject")
    assert t.mean == 0.5
    assert list(t.clusters) == ["math", "law"]  # type: ignore[arg-type]


def test_jsonl_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"line 2: not valid JSON .* is the line truncated"):
        load(_write(tmp_path / "t.jsonl", '{"id": "a", "score": 1}\n{"id": "b", "sco'))
    with pytest.raises(FormatError, match=r"l\.jsonl: line 1: is a JSON list, not an object"):
        load(_write(tmp_path / "l.jsonl", "[1, 2]\n"))
    with pytest.raises(
        FormatError, match=r"f\.jsonl: line 2: no field 'score'; every row needs it"
    ):
        load(_write(tmp_path / "f.jsonl", '{"id": "a", "score": 1}\n{"id": "b"}\n'))
    with pytest.raises(FormatError, match="line 1: field 'score' is null"):
        load(_write(tmp_path / "n.jsonl", '{"id": "a", "score": null}\n'))
    with pytest.raises(FormatError, match="the file has no records"):
        load(_write(tmp_path / "e.jsonl", "\n"))
    with pytest.raises(
        DataError, match=r"column 'score' has 1 NaN value\(s\) \(\"item 'a' \(line 1\)\"\)"
    ):
        load(_write(tmp_path / "nan.jsonl", '{"id": "a", "score": NaN}\n'))


def test_json_list_and_mapping(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "l.json", json.dumps([{"item": "a", "score": 1}, {"item": "b", "score": 0}])
    )
    assert load(f).n_items == 2
    g = _write(tmp_path / "m.json", json.dumps({"a": 1, "b": [0, 1]}))
    assert load(g).counts.tolist() == [1, 2]
    with pytest.raises(FormatError, match="expected a JSON list of records or an object"):
        load(_write(tmp_path / "x.json", json.dumps({"a": {"b": 1}})))
    with pytest.raises(FormatError, match="not valid JSON"):
        load(_write(tmp_path / "y.json", "{"))


def test_parquet(tmp_path: Path) -> None:
    f = tmp_path / "p.parquet"
    pd.DataFrame({"item": ["a", "b", "c"], "score": [0.5, 1.0, 0.25]}).to_parquet(f)
    assert load(f).mean == pytest.approx(0.5833333333)
    g = tmp_path / "n.parquet"
    pd.DataFrame({"item": ["a", "b"], "score": [1.0, None]}).to_parquet(g)
    with pytest.raises(
        FormatError,
        match=r"n.parquet: row 2: field 'score' is null or empty; every row needs a score",
    ):
        load(g)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(FormatError, match="not a readable Parquet file"):
        load(bad)


def test_gzip_and_decompression_cap(tmp_path: Path) -> None:
    f = tmp_path / "a.csv.gz"
    with gzip.open(f, "wt") as out:
        out.write("item,score\nq1,1\nq2,0\n")
    assert load(f).n_items == 2
    bomb = tmp_path / "bomb.csv.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(b"item,score\n" + b"q,1\n" * 5_000_000)  # 20 MB of text, tiny on disk
    assert bomb.stat().st_size < 200_000
    from evalsig.data.readers import ReadOptions
    from evalsig.data.readers import read_tables as read

    with pytest.raises(FormatError, match="expands to more than 1,000,000 bytes"):
        read(bomb, ReadOptions(max_decompressed_bytes=1_000_000))


def test_paths_and_formats(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such file"):
        load(tmp_path / "missing.csv")
    with pytest.raises(FormatError, match="a directory with no results evalsig recognises"):
        load(tmp_path)
    with pytest.raises(FormatError, match="cannot tell the format from the name"):
        load(_write(tmp_path / "a.txt", "x"))
    with pytest.raises(FormatError, match="unknown format 'xml'"):
        read_tables(_write(tmp_path / "b.csv", "item,score\na,1\n"), format="xml")
    assert load(_write(tmp_path / "c.data", "item,score\na,1\nb,0\n"), format="csv").n_items == 2


def test_where_is_an_error_for_files_of_one_model(tmp_path: Path) -> None:
    samples = next(
        (Path(__file__).parent / "fixtures" / "lm_eval" / "v0.4.7").rglob("samples_*.jsonl")
    )
    with pytest.raises(DataError, match=r"lm-eval files hold one model's .*\(model=a\); drop it"):
        load(samples, metric="acc", where={"model": "a"})
    table = tmp_path / "long.csv"
    table.write_text("model,item,score\na,1,1\nb,1,0\na,2,0\nb,2,1\n", encoding="utf-8")
    assert load(table, where={"model": "a"}).sums.tolist() == [1.0, 0.0]


def test_a_where_that_matches_nothing_lists_the_values(tmp_path: Path) -> None:
    table = tmp_path / "models.csv"
    table.write_text("model,item,score\nbase,1,1\nft,1,0\nbase,2,0\nft,2,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"no record has model=bse; 'model' holds 'base', 'ft'\."):
        load(table, where={"model": "bse"})
    records = tmp_path / "models.jsonl"
    records.write_text('{"model": "a", "item": 1, "score": 1}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"no record has model=b; 'model' holds 'a'\."):
        load(records, where={"model": "b"})
