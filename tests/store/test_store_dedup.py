"""What the store skips, stores and replaces; old stores; crashes in the middle of an ingest."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from evalsig.data import load
from evalsig.errors import DataError
from evalsig.store import SCHEMA_VERSION, ResultsStore
from evalsig.store import _write as write_module

pytest.importorskip(
    "duckdb", reason="the results store needs duckdb: pip install 'evalsig-stats[store]'"
)

DATE = "2026-01-02T03-04-05.678901"


def _csv(path: Path, rows: list[tuple[str, int, float]]) -> Path:
    """A long CSV: item, run, score, subject (one per item)."""
    lines = ["item,run,score,subject"] + [f"{i},{r},{s!r},s{len(i) % 2}" for i, r, s in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _scores(seed: int, n_items: int = 20) -> list[tuple[str, int, float]]:
    rng = np.random.default_rng(seed)
    return [(f"q{i}", run, float(rng.integers(0, 5)) / 4) for run in (1, 2) for i in range(n_items)]


def _lm_eval(folder: Path, model: str, *, offset: int = 0) -> Path:
    """An lm-eval output folder: one samples file with acc and acc_norm, and its results."""
    folder.mkdir(parents=True)
    with (folder / f"samples_arc_easy_{DATE}.jsonl").open("w", encoding="utf-8") as f:
        for i in range(12):
            record = {
                "doc_id": i,
                "doc": {"question": f"Q{i}?"},
                "target": "A",
                "filter": "none",
                "metrics": ["acc", "acc_norm"],
                "acc": float((i + offset) % 3 != 0),
                "acc_norm": float((i + offset) % 2 == 0),
            }
            f.write(json.dumps(record) + "\n")
    results = {"results": {"arc_easy": {"acc,none": 0.5}}, "model_name": model}
    (folder / f"results_{DATE}.json").write_text(json.dumps(results), encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResultsStore]:
    with ResultsStore(tmp_path / "results.duckdb") as db:
        yield db


def _same(got: object, want: object) -> None:
    for name in ("item_ids", "sums", "sumsq", "counts"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


# --- the same content under another model or task ------------------------------------------


def test_same_content_for_another_model_is_stored_with_a_warning(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    first = store.ingest(path, model="A", task="quiz")
    assert first.sources[0].warnings == ()
    second = store.ingest(path, model="C", task="quiz")
    (source,) = second.sources
    assert (source.status, source.n_rows, source.models) == ("ingested", 40, ("C",))
    assert source.warnings == (
        f"model 'C' on task 'quiz' has the same 40 scores as model 'A' on task 'quiz', stored "
        f"from {path} (the same content); identical results under two names are unusual: "
        "check that each model and task was given its own results file.",
    )
    assert f"          warning: {source.warnings[0]}" in str(second).splitlines()
    assert store.models("quiz") == ("A", "C")  # before: 'C' was skipped and missing
    _same(store.table("C", "quiz"), load(path))
    _same(store.table("A", "quiz"), load(path))
    assert [s.sha256 for s in store.sources()] == [source.sha256] * 2


def test_same_content_for_another_task_is_stored_with_a_warning(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    store.ingest(path, model="A", task="quiz")
    (source,) = store.ingest(path, model="A", task="quiz-copy").sources
    assert source.status == "ingested"
    assert source.warnings[0].startswith(
        "model 'A' on task 'quiz-copy' has the same 40 scores as model 'A' on task 'quiz'"
    )
    assert store.tasks() == ("quiz", "quiz-copy")


def test_other_rows_of_one_multi_model_file_are_not_flagged(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = tmp_path / "long.csv"
    rows = [f"{m},q{i},{int((i + k) % 3 == 0)}" for k, m in enumerate("xy") for i in range(9)]
    path.write_text("model,id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    store.ingest(path, model_column="model", task="t", where={"model": "x"})
    (source,) = store.ingest(path, model_column="model", task="t", where={"model": "y"}).sources
    assert (source.status, source.models, source.warnings) == ("ingested", ("y",), ())
    assert store.models("t") == ("x", "y")


def test_identical_scores_in_one_multi_model_file_are_stored_without_a_warning(
    store: ResultsStore, tmp_path: Path
) -> None:
    """Only a file stored before is compared: two models of one new file are not."""
    path = tmp_path / "long.csv"
    rows = [f"{m},q{i},{int(i % 2 == 0)}" for m in "xy" for i in range(6)]
    path.write_text("model,id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (source,) = store.ingest(path, model_column="model", task="t").sources
    assert (source.models, source.warnings) == (("x", "y"), ())


# --- the same content under the same model and task ----------------------------------------


def test_same_file_same_model_and_task_is_skipped_whatever_its_run_label(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    store.ingest(path, model="A", task="quiz")
    copy = shutil.copyfile(path, tmp_path / "copy.csv")
    again = store.ingest([path, copy], model="A", task="quiz", run_label="seed2")
    assert [(s.status, s.duplicate_of, s.format) for s in again.sources] == [
        ("skipped", str(path), "csv"),  # read (the options differ), then found stored
        ("skipped", str(path), "csv"),
    ]
    assert again.sources[0].warnings == (
        "it was stored before with other options (model, task, columns, run label ...); to "
        "store it as read now, pass --replace (replace=True)",
    )
    assert store.table("A", "quiz").n_runs == 2  # not four: the copy is not a further run
    assert len(store.sources()) == 1


def test_same_options_are_skipped_unread(
    store: ResultsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    store.ingest(path, model="A", task="quiz")

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was read again")

    monkeypatch.setattr(write_module, "collect_files", never)
    (source,) = store.ingest(path, model="A", task="quiz").sources
    assert (source.status, source.format, source.duplicate_of) == ("skipped", "", str(path))


def test_replace_rereads_a_stored_file_with_other_options(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    store.ingest(path, model="A", task="quiz")
    assert store.table("A", "quiz").clusters is None
    (source,) = store.ingest(
        path, model="A", task="quiz", cluster_column="subject", replace=True
    ).sources
    assert source.status == "ingested"
    assert source.replaced == (f"40 scores of model 'A' on task 'quiz' from {path}",)
    assert source.warnings == ()  # replacing its own earlier copy is not a duplicate
    table = store.table("A", "quiz")
    _same(table, load(path, cluster_column="subject"))
    assert table.clusters is not None
    assert len(store.sources()) == 1


def test_replace_with_another_run_label_does_not_count_the_file_twice(
    store: ResultsStore, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    store.ingest(path, model="A", task="quiz")
    store.ingest(path, model="A", task="quiz", run_label="seed1", replace=True)
    table = store.table("A", "quiz")
    assert table.counts.tolist() == [2] * 20  # the file's two runs, once
    _same(table, load(path))


def test_a_further_metric_of_a_stored_file_is_added(store: ResultsStore, tmp_path: Path) -> None:
    run = _lm_eval(tmp_path / "out", "org/alpha")
    first = store.ingest(run, metric="acc").sources[0]
    assert first.n_rows == 12
    report = store.ingest(run)  # every metric: acc is stored, acc_norm is not
    (source,) = report.sources
    assert (source.status, source.n_rows) == ("ingested", 12)
    assert source.already_stored == (
        f"model 'org/alpha' on task 'arc_easy', metric 'acc' (filter 'none'): already stored "
        f"from {run} (the same content)",
    )
    assert f"          {source.already_stored[0]}" in str(report).splitlines()
    assert store.ingest(run).sources[0].status == "skipped"  # now every metric is stored
    for metric in ("acc", "acc_norm"):
        _same(store.table("org/alpha", "arc_easy", metric=metric), load(run, metric=metric))


def test_replace_drops_only_the_metrics_it_replaces(store: ResultsStore, tmp_path: Path) -> None:
    old = _lm_eval(tmp_path / "old", "org/alpha")
    new = _lm_eval(tmp_path / "new", "org/alpha", offset=1)
    store.ingest(old)
    (source,) = store.ingest(new, metric="acc", replace=True).sources
    assert source.replaced == (f"12 scores of model 'org/alpha' on task 'arc_easy' from {old}",)
    _same(store.table("org/alpha", "arc_easy", metric="acc"), load(new, metric="acc"))
    # acc_norm was not in the new file: the old one's is kept (it used to be dropped too)
    _same(store.table("org/alpha", "arc_easy", metric="acc_norm"), load(old, metric="acc_norm"))
    assert [s.n_rows for s in store.sources()] == [12, 12]


def test_a_different_file_for_the_same_model_task_and_items_is_a_conflict(
    store: ResultsStore, tmp_path: Path
) -> None:
    first = _csv(tmp_path / "a.csv", _scores(1))
    second = _csv(tmp_path / "b.csv", _scores(2))
    store.ingest(first, model="A", task="quiz")
    with pytest.raises(DataError, match=r"scores for the same model, task, metric, item and run"):
        store.ingest(second, model="A", task="quiz")
    assert [s.path for s in store.sources()] == [str(first)]


def test_a_file_that_changes_while_it_is_read_stores_nothing(
    store: ResultsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _csv(tmp_path / "a.csv", _scores(1))
    read = write_module.collect_files

    def read_then_append(*args: object, **kwargs: object) -> object:
        collector = read(*args, **kwargs)  # type: ignore[arg-type]
        with path.open("a", encoding="utf-8") as f:
            f.write("q99,1,0.5,s0\n")  # a harness still writing the file
        return collector

    monkeypatch.setattr(write_module, "collect_files", read_then_append)
    with pytest.raises(DataError) as info:
        store.ingest(path, model="A", task="quiz")
    assert str(info.value) == (
        f"{path}: its content changed while it was being read (is a harness still writing "
        "it?); nothing was stored. Ingest it again once it is complete."
    )
    assert store.sources() == ()


# --- stores written by the previous version -----------------------------------------------

_V1_SOURCES = """CREATE TABLE sources (
        source_id INTEGER PRIMARY KEY, path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL UNIQUE,
        kind VARCHAR NOT NULL, format VARCHAR NOT NULL, ingested_at TIMESTAMP NOT NULL,
        n_rows BIGINT NOT NULL)"""
"""The sources table as schema version 1 created it (the other tables are unchanged)."""


def _as_version_1(path: Path) -> None:
    """Turn a store into the layout evalsig wrote before schema version 2."""
    import duckdb

    with duckdb.connect(str(path)) as con:
        rows = con.execute(
            "SELECT source_id, path, sha256, kind, format, ingested_at, n_rows FROM sources"
        ).fetchall()
        con.execute("DROP TABLE sources")
        con.execute(_V1_SOURCES)
        con.executemany("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute("UPDATE evalsig_store SET value = '1' WHERE key = 'schema_version'")


def _version(path: Path) -> str:
    import duckdb

    with duckdb.connect(str(path), read_only=True) as con:
        return str(con.execute("SELECT value FROM evalsig_store").fetchall()[0][0])


def test_a_version_1_store_is_read_as_it_is_and_migrated_to_write(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    path = _csv(tmp_path / "a.csv", _scores(1))
    other = _csv(tmp_path / "b.csv", _scores(2))
    with ResultsStore(db) as store:
        store.ingest(path, model="A", task="quiz")
        store.ingest(other, model="B", task="quiz")
    _as_version_1(db)
    with ResultsStore(db, read_only=True) as store:
        assert store.models("quiz") == ("A", "B")
        _same(store.table("A", "quiz"), load(path))
    assert _version(db) == "1"  # reading changes nothing
    with ResultsStore(db) as store:  # opened to write: migrated at once
        pass
    assert _version(db) == str(SCHEMA_VERSION)
    with ResultsStore(db) as store:
        skipped = store.ingest(path, model="A", task="quiz").sources[0]
        assert (skipped.status, skipped.warnings) == ("skipped", ())  # no options recorded
        stored = store.ingest(path, model="C", task="quiz").sources[0]  # was a UNIQUE clash
        assert stored.status == "ingested"
        assert stored.warnings[0].startswith("model 'C' on task 'quiz' has the same 40 scores")
        assert store.models("quiz") == ("A", "B", "C")
        assert [s.path for s in store.sources()] == [str(path), str(other), str(path)]
        _same(store.table("B", "quiz"), load(other))


def test_a_store_of_a_newer_version_is_refused(tmp_path: Path) -> None:
    import duckdb

    db = tmp_path / "new.duckdb"
    with ResultsStore(db) as store:
        store.ingest(_csv(tmp_path / "a.csv", _scores(1)), model="A", task="quiz")
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE evalsig_store SET value = '3' WHERE key = 'schema_version'")
    for read_only in (True, False):
        with pytest.raises(DataError) as info:
            ResultsStore(db, read_only=read_only)
        assert str(info.value) == (
            f"{db}: a results store of schema version '3'; this evalsig reads versions 1, 2. "
            "Upgrade evalsig to read it."
        )


# --- a crash in the middle of an ingest -----------------------------------------------------

_CRASH = """
import os, signal, sys
from evalsig.store import ResultsStore
from evalsig.store._write import Writer

where = sys.argv[1]
original = getattr(Writer, where)

def crash(self, *args, **kwargs):
    result = original(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # no rollback, no close: as if the power went
    return result

setattr(Writer, where, crash)
with ResultsStore(sys.argv[2]) as store:
    store.ingest(sys.argv[3:], model="B", task="quiz")
"""


@pytest.mark.parametrize("where", ["_add_items", "ingest_one"])
def test_a_crash_during_an_ingest_stores_none_of_it(tmp_path: Path, where: str) -> None:
    db = tmp_path / "results.duckdb"
    kept = _csv(tmp_path / "a.csv", _scores(1))
    with ResultsStore(db) as store:
        store.ingest(kept, model="A", task="quiz")
    paths = [_csv(tmp_path / f"b{i}.csv", _scores(2 + i)) for i in range(2)]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CRASH), where, str(db), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    with ResultsStore(db) as store:  # opens (DuckDB replays its log), holds what was committed
        assert [s.path for s in store.sources()] == [str(kept)]
        assert store.models() == ("A",)
        _same(store.table("A", "quiz"), load(kept))
        for number, path in enumerate(paths):
            report = store.ingest(path, model="B", task="quiz", run_label=f"r{number}")
            assert report.sources[0].status == "ingested"
        assert store.table("B", "quiz").n_runs == 4


_KILLED_AFTER_COMMIT = """
import os, signal, sys
from evalsig.store import ResultsStore

store = ResultsStore(sys.argv[1])
store.ingest(sys.argv[2], model="B", task="quiz")  # committed
os.kill(os.getpid(), signal.SIGKILL)  # before close: the rows may be in DuckDB's log only
"""


def test_a_committed_ingest_survives_a_crash_before_close(tmp_path: Path) -> None:
    db = tmp_path / "results.duckdb"
    path = _csv(tmp_path / "b.csv", _scores(2))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_KILLED_AFTER_COMMIT), str(db), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    with ResultsStore(db, read_only=True) as store:  # a reader replays the log too
        assert [s.path for s in store.sources()] == [str(path)]
        _same(store.table("B", "quiz"), load(path))
