"""Inspect AI logs: real fixtures, generated logs, values, runs, clusters, hostile archives."""

from __future__ import annotations

import json
import math
import struct
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import evalsig
from evalsig.data import ReadOptions, ScoreTable, describe, load
from evalsig.data.readers import collect_files, read_tables, register
from evalsig.data.readers.inspect_ai import INSPECT, score_value
from evalsig.errors import AlignmentError, DataError, FormatError

register(INSPECT, first=True)

INSPECT_TESTS = "harness_fixtures/inspect_ai/tests"
EVERY_EVAL = "harness_fixtures/every_eval_ever/tests/data/inspect"
REDUCED = "read each epoch's scores as a run; the log's epoch reductions were ignored"


# --- generated logs ------------------------------------------------------------------------


def _sample(
    item: int | str, epoch: int = 1, value: object = "C", *, scorer: str = "match", **fields: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": item,
        "epoch": epoch,
        "input": f"question {item}",
        "target": "A",
        "messages": [],
        "output": {"completion": "A"},
        "scores": {scorer: {"value": value, "answer": "A"}},
        "metadata": {},
    }
    record.update(fields)
    return record


def _header(task: str = "demo", status: str = "success", **fields: Any) -> dict[str, Any]:
    header: dict[str, Any] = {
        "version": 2,
        "status": status,
        "eval": {"task": task, "model": "mockllm/model", "config": {"epochs": 1}},
        "plan": {"steps": []},
        "results": {"total_samples": 1, "scores": [{"name": "match"}]},
        "stats": {},
    }
    header.update(fields)
    return header


def _eval(
    path: Path,
    samples: list[dict[str, Any]],
    *,
    header: dict[str, Any] | None = None,
    reductions: bool = False,
    members: dict[str, bytes] | None = None,
) -> Path:
    """A .eval archive laid out as Inspect writes it."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
        for sample in samples:
            name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
            archive.writestr(name, json.dumps(sample))
        archive.writestr("summaries.json", "[]")
        if reductions:
            archive.writestr("reductions.json", json.dumps([{"scorer": "match", "samples": []}]))
        for name, data in (members or {}).items():
            archive.writestr(name, data)
        archive.writestr("header.json", json.dumps(_header() if header is None else header))
    return path


def _json_log(path: Path, samples: list[dict[str, Any]], **fields: Any) -> Path:
    path.write_text(json.dumps({**_header(), "samples": samples, **fields}, indent=2), "utf-8")
    return path


def _means(table: ScoreTable) -> dict[str, float]:
    assert table.item_ids is not None
    return dict(zip(table.item_ids.tolist(), table.means.tolist(), strict=True))


def _patch_central(data: bytes, name: str, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite one field of ``name``'s central-directory entry (a lying archive)."""
    entry = data.index(b"PK\x01\x02")
    while True:
        length = struct.unpack_from("<H", data, entry + 28)[0]
        if data[entry + 46 : entry + 46 + length] == name.encode():
            break
        entry = data.index(b"PK\x01\x02", entry + 4)
    patched = bytearray(data)
    struct.pack_into(fmt, patched, entry + offset, value)
    return bytes(patched)


# --- real logs -----------------------------------------------------------------------------

REAL = [
    # path, task, {item: value}, scorer, {item: target}, cluster fields
    (
        f"{INSPECT_TESTS}/log/test_eval_log/log_formats.eval",
        "popularity",
        {"1": 0.0},  # sample 1, scorer 'match', value 'I'
        "match",
        {"1": " Yes"},
        ("label_confidence",),
    ),
    (
        f"{INSPECT_TESTS}/log/test_eval_log/log_formats.json",
        "popularity",
        {"1": 0.0},
        "match",
        {"1": " Yes"},
        ("label_confidence",),
    ),
    (
        f"{INSPECT_TESTS}/log/test_eval_log/log_read_sample.eval",
        "popularity",
        {"1": 1.0},  # 'C'
        "match",
        {"1": " Yes"},
        ("label_confidence",),
    ),
    (
        f"{INSPECT_TESTS}/analysis/test_logs_choices/mmlu-summary-choices.eval",
        "inspect_evals/mmlu_0_shot",
        {"1": 0.0},
        "choice",
        {"1": "A"},
        ("subject",),
    ),
    (
        f"{INSPECT_TESTS}/analysis/test_logs_choices/mmlu-no-summary-choices.eval",
        "inspect_evals/mmlu_0_shot",
        {"1": 0.0},
        "choice",
        {"1": "A"},
        ("subject",),
    ),
    (
        f"{INSPECT_TESTS}/analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json",
        "popularity",
        {"1": 1.0, "2": 1.0, "3": 0.0},
        "match",
        {"1": " Yes", "2": " No", "3": " Yes"},
        ("label_confidence", "nested.foo"),
    ),
    (
        f"{INSPECT_TESTS}/analysis/test_logs/2025-05-12T20-28-26-04-00_security-guide.json",
        "security_guide",
        {"1": 1.0, "2": 1.0, "3": 1.0},
        "model_graded_fact",
        {"1": "use parameterized queries and prepared statements"},
        (),
    ),
    (
        f"{EVERY_EVAL}/data_arc_qwen.json",
        "inspect_evals/arc_easy",
        {"1": 1.0, "2": 0.0, "3": 0.0},
        "choice",
        {"1": "A", "2": "B", "3": "D"},
        (),
    ),
    (
        f"{EVERY_EVAL}/data_arc_sonnet.json",
        "inspect_evals/arc_easy",
        {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0, "5": 1.0},
        "choice",
        {"1": "A", "2": "B", "3": "D"},
        (),
    ),
    (
        f"{EVERY_EVAL}/data_pubmedqa_gpt4o_mini.json",
        "inspect_evals/pubmedqa",
        {"12377809": 1.0, "26163474": 1.0},
        "choice",
        {"12377809": "A", "26163474": "A"},
        (),
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("relative", "task", "values", "scorer", "targets", "clusters"),
    REAL,
    ids=[Path(case[0]).name for case in REAL],
)
def test_real_logs(
    shared_data: Path,
    relative: str,
    task: str,
    values: dict[str, float],
    scorer: str,
    targets: dict[str, str],
    clusters: tuple[str, ...],
) -> None:
    path = shared_data / relative
    assert collect_files(path).formats == ["inspect"]  # detected, not forced
    table = load(path, format="inspect")
    assert _means(table) == values
    assert table.n_runs == 1
    assert table.keys is not None
    assert table.item_ids is not None
    keys = dict(zip(table.item_ids.tolist(), table.keys.tolist(), strict=True))
    assert {item: keys[item] for item in targets} == targets
    assert f"metric {scorer!r}" in " ".join(table.notes)
    d = describe(path, format="inspect")
    assert d.formats == ("inspect",)
    assert [
        (t.name, t.n_items, t.n_observations, t.runs, t.metrics, t.binary) for t in d.tasks
    ] == [(task, len(values), len(values), (1, 1), (scorer,), True)]
    assert (d.cluster_fields, d.key_fields, d.skipped) == (clusters, ("target",), 0)
    has_reductions = path.suffix == ".eval" or "reductions" in json.loads(path.read_bytes())
    assert sum(REDUCED in note for note in d.notes) == int(has_reductions)


@pytest.mark.shared_data
def test_real_cancelled_log_and_nested_metadata(shared_data: Path) -> None:
    path = (
        shared_data / INSPECT_TESTS / "analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json"
    )
    notes = describe(path).notes
    assert any("status is 'cancelled', not 'success'" in note for note in notes)
    # Only sample 1 has metadata.nested.foo ('bar').
    with pytest.raises(
        DataError,
        match=r"column 'metadata.nested.foo' is empty on 2 row\(s\) \('sample 2 \(epoch 1\)'",
    ):
        load(path, cluster_column="nested.foo")


@pytest.mark.shared_data
def test_real_unscored_log(shared_data: Path) -> None:
    """Inspect's own fixture for `inspect score`: ten samples logged without scores."""
    path = shared_data / INSPECT_TESTS / "scorer/logs"
    path = next(path.glob("*_popularity_*.eval"))
    unscored = r"no scores: none of its 10 samples was scored .*\(inspect score "
    with pytest.raises(FormatError, match=unscored):
        load(path)
    with pytest.raises(FormatError, match=unscored):
        load(path, skip_bad_lines=True)  # not an empty table
    d = describe(path, skip_bad_lines=True)  # described as what it is: no scores yet
    assert [(t.n_items, t.n_observations, t.metrics, t.scale) for t in d.tasks] == [
        (10, 0, (), "no scores")
    ]
    assert d.skipped == 0  # the samples are not malformed: the log was never scored
    assert any("no scores: none of its 10 samples was scored" in n for n in d.notes)


# --- detection -----------------------------------------------------------------------------


def test_sniff(tmp_path: Path) -> None:
    log = _json_log(tmp_path / "log.json", [_sample(1)])
    assert INSPECT.sniff(log, log.read_bytes()[:4096])
    minified = {"status": "success", "version": 2, "eval": {"task": "t"}, "samples": []}
    assert INSPECT.sniff(Path("x.json"), b"\xef\xbb\xbf" + json.dumps(minified).encode())
    assert not INSPECT.sniff(Path("x.json"), b'[{"eval": {}, "version": 1}]')
    assert not INSPECT.sniff(Path("x.json"), b'{"eval": {"task": "t"}, "samples": []}')
    assert not INSPECT.sniff(Path("x.json"), b'{"version": 2, "status": "success"}')
    assert INSPECT.sniff(Path("x.eval"), b"PK\x03\x04rest")
    assert not INSPECT.sniff(Path("x.eval"), b"{}")
    assert not INSPECT.sniff(Path("x.zip"), b"PK\x03\x04rest")
    assert collect_files(_eval(tmp_path / "a.eval", [_sample(1)])).formats == ["inspect"]
    records = tmp_path / "records.json"
    records.write_text('[{"id": "a", "score": 1}]', "utf-8")
    assert collect_files(records).formats == ["json"]


# --- values --------------------------------------------------------------------------------

# Inspect's value_to_float (src/inspect_ai/scorer/_metric.py, inspect_ai 499e615): numbers
# and booleans as floats; "C" 1, "P" 0.5, "I" and "N" 0; yes/true 1 and no/false 0 in any
# case; strings holding a finite number as that number.
MAPPING = [
    ("C", 1.0),
    ("I", 0.0),
    ("P", 0.5),
    ("N", 0.0),
    (1, 1.0),
    (0, 0.0),
    (7, 7.0),
    (0.25, 0.25),
    (-2.5, -2.5),
    (True, 1.0),
    (False, 0.0),
    ("yes", 1.0),
    ("No", 0.0),
    ("TRUE", 1.0),
    ("false", 0.0),
    ("0.75", 0.75),
    (" 2 ", 2.0),
    ("1e-1", 0.1),
]


def test_value_mapping(tmp_path: Path) -> None:
    samples = [_sample(i, value=value) for i, (value, _) in enumerate(MAPPING)]
    for path in (_eval(tmp_path / "v.eval", samples), _json_log(tmp_path / "v.json", samples)):
        table = load(path)
        assert _means(table) == {str(i): expected for i, (_, expected) in enumerate(MAPPING)}
        assert not table.binary
    binary = [_sample(i, value=v) for i, v in enumerate(["C", "I", True, 0, "yes", "N"])]
    assert load(_eval(tmp_path / "b.eval", binary)).binary


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_score_value_numbers(x: float) -> None:
    assert score_value(x) == x
    assert score_value(repr(x)) == x


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"accuracy": 1, "f1": 0.5}, r"a dict of values .* \(a multi-value scorer\)"),
        ([1, 0], r"a list of values \[1, 0\]"),
        ("maybe", r"'maybe', which is not a score"),
        ("c", r"'c', which is not a score"),  # Inspect's letters are upper case only
        ("nan", r"'nan', which is not a score"),
        ("inf", r"'inf', which is not a score"),
        (None, r"None, which is not a score"),
        (math.nan, r"NaN, Inspect's mark for a sample the scorer left unscored"),
    ],
)
def test_values_refused(tmp_path: Path, value: object, shown: str) -> None:
    path = _json_log(tmp_path / "bad.json", [_sample(1), _sample("q2", value=value)])
    with pytest.raises(
        FormatError, match=rf"bad.json: sample 'q2' \(epoch 1\): scorer 'match' gave {shown}"
    ) as error:
        load(path)
    assert "evalsig accepts one value per scorer and sample: a number, a boolean" in str(
        error.value
    )
    table = load(path, skip_bad_lines=True)
    assert _means(table) == {"1": 1.0}
    assert any(
        "skipped 1 malformed record(s) (\"sample 'q2' (epoch 1)\")" in n for n in table.notes
    )


def test_content_keys(tmp_path: Path) -> None:
    samples = [
        _sample(1, target=["A", "B"]),
        _sample(2, target=["C"]),
        _sample(3, target="D"),
        _sample(4, target=None),
    ]
    table = load(_eval(tmp_path / "k.eval", samples))
    assert table.keys is not None
    assert table.keys.tolist() == ['["A","B"]', "C", "D", None]


# --- runs, scorers, clusters -----------------------------------------------------------------


def test_epochs_are_runs(tmp_path: Path) -> None:
    values = {1: "CCC", 2: "CIC", 3: "III", 4: "PPC"}  # per sample, epochs 1-3
    samples = [
        _sample(item, epoch, letters[epoch - 1])
        for epoch in (1, 2, 3)
        for item, letters in values.items()
    ]
    path = _eval(tmp_path / "epochs.eval", samples, reductions=True)
    table = load(path, format="inspect")
    assert (table.n_items, table.n_runs, table.ragged) == (4, 3, False)
    assert table.item_ids is not None
    assert table.item_ids.tolist() == ["1", "2", "3", "4"]
    assert table.means.tolist() == pytest.approx([1.0, 2 / 3, 0.0, 2 / 3])
    assert sum(REDUCED in note for note in table.notes) == 1
    d = describe(path)
    assert [(t.n_items, t.n_observations, t.runs, t.binary) for t in d.tasks] == [
        (4, 12, (3, 3), False)
    ]


@pytest.mark.parametrize("epoch", [0, -1])
def test_epochs_count_from_one(tmp_path: Path, epoch: int) -> None:
    """Inspect numbers epochs from 1: an epoch of 0 or below is a damaged sample, named."""
    samples = [_sample(1, 1), _sample(2, epoch)]
    message = rf"2_epoch_{epoch}.json: .*numbers epochs from 1.*got 2 and {epoch}"
    with pytest.raises(FormatError, match=message):
        load(_eval(tmp_path / "e.eval", samples), format="inspect")


def test_ragged_epochs(tmp_path: Path) -> None:
    samples = [_sample(i, e, "C" if e == 1 else "I") for e in (1, 2) for i in (1, 2, 3)]
    table = load(_eval(tmp_path / "r.eval", samples[:-1]))  # sample 3 lacks epoch 2
    assert table.counts.tolist() == [2, 2, 1]
    assert table.ragged
    assert table.runs_summary() == "ragged: 1-2 runs per item (mean 1.67)"
    assert _means(table) == {"1": 0.5, "2": 0.5, "3": 1.0}
    assert describe(tmp_path / "r.eval").tasks[0].runs == (1, 2)


def test_several_scorers(tmp_path: Path) -> None:
    samples = []
    for item, (match, graded) in enumerate([("C", 0.5), ("I", 1.0), ("C", 0.0)], start=1):
        sample = _sample(item, value=match)
        sample["scores"]["model_graded"] = {"value": graded}
        sample["scores"]["breakdown"] = {"value": {"a": 1, "b": 0}}  # multi-value: unused
        samples.append(sample)
    path = _eval(tmp_path / "s.eval", samples)
    with pytest.raises(FormatError, match=r"scorer 'breakdown' gave a dict of values"):
        load(path)
    del samples[0]["scores"]["breakdown"], samples[1]["scores"]["breakdown"]
    del samples[2]["scores"]["breakdown"]
    path = _eval(tmp_path / "s.eval", samples)
    with pytest.raises(
        DataError, match=r"several metrics \('match', 'model_graded'\); choose one with --metric"
    ):
        load(path)
    assert _means(load(path, metric="match")) == {"1": 1.0, "2": 0.0, "3": 1.0}
    assert _means(load(path, metric="model_graded")) == {"1": 0.5, "2": 1.0, "3": 0.0}
    with pytest.raises(DataError, match=r"no metric 'acc'; choose one of 'match', 'model_graded'"):
        load(path, metric="acc")
    assert describe(path).tasks[0].metrics == ("match", "model_graded")


def test_chosen_scorer_ignores_a_multi_value_one(tmp_path: Path) -> None:
    sample = _sample(1)
    sample["scores"]["breakdown"] = {"value": {"a": 1}}
    path = _json_log(tmp_path / "m.json", [sample, _sample(2, value="I")])
    assert _means(load(path, metric="match")) == {"1": 1.0, "2": 0.0}


def test_clusters_from_metadata(tmp_path: Path) -> None:
    subjects = ["law", "law", "math", "bio"]
    samples = [
        _sample(i, metadata={"subject": s, "nested": {"level": i % 2}, "source": None})
        for i, s in enumerate(subjects)
    ]
    path = _eval(tmp_path / "c.eval", samples)
    table = load(path, format="inspect", cluster_column="subject")
    assert table.clusters is not None
    assert table.clusters.tolist() == subjects
    nested = load(path, cluster_column="nested.level").clusters
    assert nested is not None
    assert nested.tolist() == ["0", "1", "0", "1"]
    prefixed = load(path, cluster_column="metadata.subject").clusters
    assert prefixed is not None
    assert prefixed.tolist() == subjects
    assert describe(path).cluster_fields == ("nested.level", "source", "subject")
    with pytest.raises(
        DataError,
        match=r"no cluster field 'topic' in task 'demo'; fields that could be clusters: "
        r"'nested.level', 'source', 'subject'",
    ):
        load(path, cluster_column="topic")


# --- unscored samples and unfinished logs ----------------------------------------------------


def test_errored_sample(tmp_path: Path) -> None:
    broken = _sample(2, scores=None, error={"message": "RuntimeError: boom\nTraceback ..."})
    path = _eval(tmp_path / "e.eval", [_sample(1), broken, _sample(3, value="I")])
    with pytest.raises(
        FormatError,
        match=r"e.eval: sample 2 \(epoch 1\): errored \('RuntimeError: boom'\) and was not "
        r"scored; re-run it, or pass skip_bad_lines=True",
    ):
        load(path)
    table = load(path, skip_bad_lines=True)
    assert _means(table) == {"1": 1.0, "3": 0.0}
    assert any("skipped 1 malformed record(s) ('sample 2 (epoch 1)')" in n for n in table.notes)
    d = describe(path, skip_bad_lines=True)
    assert d.skipped == 1
    assert d.problems[0].startswith("sample 2 (epoch 1): errored ('RuntimeError: boom')")


def test_unscored_and_invalidated_samples(tmp_path: Path) -> None:
    header = _header(status="error", error={"message": "model quota exceeded"})
    samples = [_sample(1), _sample(2, scores={}), _sample(3, invalidation={"reason": "leak"})]
    path = _eval(tmp_path / "u.eval", samples, header=header)
    with pytest.raises(
        FormatError, match=r"sample 2 \(epoch 1\): has no scores \(the log's status"
    ):
        load(path)
    d = describe(path, skip_bad_lines=True)
    assert [problem.split(";")[0] for problem in d.problems] == [
        "sample 2 (epoch 1): has no scores (the log's status is 'error')",
        "sample 3 (epoch 1): was invalidated ('leak')",
    ]
    assert "status is 'error', not 'success' (error: 'model quota exceeded')" in d.notes[0]


def test_unfinished_log_and_legacy_score(tmp_path: Path) -> None:
    """No header.json yet (the run is going): the journal's start record names the task."""
    path = tmp_path / "running.eval"
    with zipfile.ZipFile(path, "w") as archive:
        start = {"version": 2, "eval": {"task": "live"}, "plan": {}}
        archive.writestr("_journal/start.json", json.dumps(start))
        legacy = {"id": 1, "epoch": 1, "target": "A", "score": {"value": "C"}}
        archive.writestr("samples/1_epoch_1.json", json.dumps(legacy))
    table = read_tables(path)["live"]
    assert _means(table) == {"1": 1.0}
    assert any("status is 'started'" in note for note in table.notes)
    assert describe(path).tasks[0].metrics == ("score",)  # no results to name the scorer
    named = _json_log(tmp_path / "legacy.json", [{"id": 1, "epoch": 1, "score": {"value": 0}}])
    assert describe(named).tasks[0].metrics == ("match",)  # results.scores[0].name


def test_empty_samples(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"empty.json: the log holds no samples; evalsig needs"):
        load(_json_log(tmp_path / "empty.json", []))
    with pytest.raises(
        FormatError, match=r"the log holds no samples \(the log's status is 'error'\)"
    ):
        load(_eval(tmp_path / "empty.eval", [], header=_header(status="error")))
    with pytest.raises(FormatError, match="not an Inspect log"):
        load(_json_log(tmp_path / "no-task.json", [_sample(1)], eval={"model": "m"}))


def test_last_entry_of_a_relogged_sample_wins(tmp_path: Path) -> None:
    path = _eval(tmp_path / "requeued.eval", [_sample(1, value="I"), _sample(2)])
    with zipfile.ZipFile(path, "a") as archive, pytest.warns(UserWarning, match="Duplicate"):
        archive.writestr("samples/1_epoch_1.json", json.dumps(_sample(1, value="C")))
    assert _means(load(path)) == {"1": 1.0, "2": 1.0}


# --- hostile and damaged archives --------------------------------------------------------------


@pytest.mark.parametrize("name", ["../evil.json", "samples/../../evil.json", "/etc/evil.json"])
def test_unsafe_member_names(tmp_path: Path, name: str) -> None:
    path = _eval(tmp_path / "evil.eval", [_sample(1)], members={name: b"{}"})
    with pytest.raises(FormatError, match=rf"member '{name}' has an unsafe path"):
        load(path)


def test_decompression_caps(tmp_path: Path) -> None:
    cap = ReadOptions(max_decompressed_bytes=1_000_000)
    bomb = _eval(tmp_path / "bomb.eval", [_sample(1)])
    with zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/3_epoch_1.json", bytes(20_000_000))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(FormatError, match=r"declares 20,000,000 bytes, more than the 1,000,000"):
        collect_files(bomb, cap)
    # The central directory claims 100 bytes; the member really expands to 2 MB.
    liar = _eval(tmp_path / "liar.eval", [_sample(1)])
    with zipfile.ZipFile(liar, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/3_epoch_1.json", bytes(2_000_000))
    liar.write_bytes(_patch_central(liar.read_bytes(), "samples/3_epoch_1.json", 24, "<I", 100))
    with pytest.raises(
        FormatError, match=r"member 'samples/3_epoch_1.json' declares 100 bytes but expands to more"
    ):
        collect_files(liar, cap)
    # Each member is under the cap, together they are over it.
    padded = [_sample(i, metadata={"pad": "x" * 3_000}) for i in range(4)]
    many = _eval(tmp_path / "many.eval", padded)
    with pytest.raises(
        FormatError, match=r"member 'samples/\d_epoch_1.json' would take the archive's decompressed"
    ):
        collect_files(many, ReadOptions(max_decompressed_bytes=10_000))
    assert read_tables(many, ReadOptions(max_decompressed_bytes=20_000))["demo"].n_items == 4


def test_damaged_archives(tmp_path: Path) -> None:
    path = _eval(tmp_path / "bad.eval", [_sample(1)], members={"samples/2_epoch_1.json": b"{no"})
    with pytest.raises(
        FormatError, match=r"bad.eval: member 'samples/2_epoch_1.json' is not valid JSON"
    ):
        load(path)
    good = _eval(tmp_path / "good.eval", [_sample(i) for i in range(20)]).read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(FormatError, match=r"cut.eval: not a readable .eval log: .* truncated"):
        load(cut)
    text = _json_log(tmp_path / "cut.json", [_sample(1)]).read_text("utf-8")
    (tmp_path / "cut.json").write_text(text[: len(text) // 2], "utf-8")
    with pytest.raises(FormatError, match=r"cut.json: not valid JSON .* is the log truncated"):
        load(tmp_path / "cut.json", format="inspect")


def _zstd_eval(path: Path, members: dict[str, bytes], *, declared: int | None = None) -> Path:
    """A zip archive whose members are Zstandard-compressed (method 93), built by hand;
    ``declared`` overrides every member's stated size (a lying archive)."""
    import struct

    import zstandard

    body, central = bytearray(), bytearray()
    for name, data in members.items():
        packed, raw_name, crc = zstandard.ZstdCompressor().compress(data), name.encode(), 0
        crc = zlib.crc32(data)
        offset = len(body)
        body += struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 63, 0, 93, 0, 0, crc, len(packed),
            declared or len(data), len(raw_name), 0,
        ) + raw_name + packed  # fmt: skip
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, 93, 0, 0, crc, len(packed),
            declared or len(data), len(raw_name), 0, 0, 0, 0, 0, offset,
        ) + raw_name  # fmt: skip
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0
    )
    path.write_bytes(bytes(body + central + end))
    return path


def _zstd_members(n: int) -> dict[str, bytes]:
    header = {"version": 2, "status": "success", "eval": {"task": "demo"}}
    members = {"header.json": json.dumps(header).encode()}
    for i in range(1, n + 1):
        members[f"samples/{i}_epoch_1.json"] = json.dumps(_sample(i, value="CI"[i % 2])).encode()
    return members


def test_zstd_members_are_read(tmp_path: Path) -> None:
    table = load(_zstd_eval(tmp_path / "z.eval", _zstd_members(6)))
    assert table.n_items == 6
    assert table.mean == 0.5


def test_zstd_members_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    members = _zstd_members(2)
    good = _zstd_eval(tmp_path / "g.eval", members)
    with pytest.raises(FormatError, match="declares 174 bytes, more than the 100-byte cap"):
        collect_files(good, ReadOptions(max_decompressed_bytes=100))
    liar = _zstd_eval(tmp_path / "l.eval", members, declared=10)  # declares 10, holds 174
    with pytest.raises(FormatError, match="declares 10 bytes but expands to more"):
        collect_files(liar, ReadOptions(max_decompressed_bytes=100))
    from evalsig.data.readers.archive import Archive

    with Archive.open(liar) as archive, pytest.raises(FormatError, match="expands to more"):
        archive.read(archive.members["samples/1_epoch_1.json"], 150)
    corrupt = bytearray(good.read_bytes())
    start = corrupt.index(b"samples/1_epoch_1.json") + len("samples/1_epoch_1.json")
    corrupt[start + 8] ^= 0xFF  # flip a byte inside the compressed data
    (tmp_path / "c.eval").write_bytes(bytes(corrupt))
    with pytest.raises(FormatError, match=r"member 'samples/1_epoch_1.json' is corrupt"):
        load(tmp_path / "c.eval")
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if the package were absent
    with pytest.raises(
        FormatError, match=r"needs the zstandard package: pip install 'evalsig-stats\[inspect\]'"
    ):
        load(good)


# --- end to end ------------------------------------------------------------------------------


def _model_logs(
    tmp_path: Path, name: str, letters: list[str], epochs: int = 1, targets: str = "ABCD"
) -> Path:
    samples = [
        _sample(f"q{i}", e, letters[(i + e - 1) % len(letters)] if epochs > 1 else letters[i])
        | {"target": targets[i % len(targets)], "metadata": {"subject": f"s{i % 5}"}}
        for e in range(1, epochs + 1)
        for i in range(len(letters))
    ]
    return _eval(tmp_path / f"{name}.eval", samples, reductions=epochs > 1)


def test_compare_two_logs(tmp_path: Path) -> None:
    # 30 items: 12 both right, 9 only the candidate right, 3 only the baseline, 6 neither.
    base = ["C"] * 12 + ["I"] * 12 + ["C"] * 3 + ["I"] * 3
    cand = ["C"] * 21 + ["I"] * 9
    a, b = _model_logs(tmp_path, "baseline", base), _model_logs(tmp_path, "candidate", cand)
    result = evalsig.compare(a, b, method="mcnemar", variant="exact")
    assert result.method == "mcnemar-exact"
    assert (result.n_items, result.n01, result.n10) == (30, 9, 3)
    assert (result.baseline_mean, result.candidate_mean) == (0.5, 0.7)
    assert result.estimate == pytest.approx(0.2)
    # scipy.stats.binomtest(9, 12, 0.5).pvalue = 0.14599609375: the exact McNemar p-value
    assert result.pvalue == pytest.approx(stats.binomtest(9, 12, 0.5).pvalue, rel=1e-12)
    assert result.pvalue == pytest.approx(0.14599609375, rel=1e-12)
    clustered = evalsig.compare(a, b, cluster="subject")
    assert (clustered.method, clustered.n_clusters) == ("cluster-cr2", 5)


def test_compare_logs_with_epochs(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    base = ["C" if x else "I" for x in rng.random(40) < 0.5]
    cand = ["C" if x else "I" for x in rng.random(40) < 0.7]
    a = _model_logs(tmp_path, "baseline", base, epochs=3)
    b = _model_logs(tmp_path, "candidate", cand, epochs=3)
    ta, tb = load(a), load(b)
    assert (ta.n_runs, tb.n_runs) == (3, 3)
    result = evalsig.compare(a, b, method="paired-t")
    assert result.method == "paired-t"
    assert result.n_runs == (3, 3)
    # scipy.stats.ttest_rel on the per-item means over the three epochs
    reference = stats.ttest_rel(tb.means, ta.means)
    assert result.estimate == pytest.approx(float(np.mean(tb.means - ta.means)))
    assert result.pvalue == pytest.approx(reference.pvalue)


def test_compare_logs_with_different_targets(tmp_path: Path) -> None:
    letters = ["C", "I"] * 10
    a = _model_logs(tmp_path, "baseline", letters)
    b = _model_logs(tmp_path, "candidate", letters[::-1], targets="ABCE")  # q3, q7, ... differ
    with pytest.raises(
        AlignmentError,
        match=r"5 item\(s\) have a different content key .* \('q11': 'D' vs 'E'; 'q15'",
    ):
        evalsig.compare(a, b)
    result = evalsig.compare(a, b, on_mismatch="exclude")
    assert (result.n_items, result.n_mismatched) == (15, 5)


def test_generated_log_describe(tmp_path: Path) -> None:
    samples = [_sample(i, e, metadata={"subject": "x"}) for e in (1, 2) for i in range(3)]
    d = describe(_json_log(tmp_path / "d.json", samples, reductions=[{"scorer": "match"}]))
    assert d.sources == (str(tmp_path / "d.json"),)
    assert d.formats == ("inspect",)
    assert [(t.name, t.n_items, t.n_observations, t.runs, t.metrics) for t in d.tasks] == [
        ("demo", 3, 6, (2, 2), ("match",))
    ]
    assert (d.cluster_fields, d.key_fields, d.skipped) == (("subject",), ("target",), 0)
    assert d.notes == (f"{tmp_path / 'd.json'}: {REDUCED}.",)


# --- log folders ---------------------------------------------------------------------------


def test_a_log_folder_of_one_model_is_read_whole(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    _json_log(folder / "2025-01-01_demo_a.json", [_sample(1, value="C"), _sample(2, value="I")])
    _eval(folder / "2025-01-02_demo_b.eval", [_sample(1, value="C"), _sample(2, value="C")])
    (folder / "notes.json").write_text('{"not": "a log"}', encoding="utf-8")
    described = describe(folder)
    assert described.formats == ("inspect",)
    assert [(t.name, t.n_items, t.runs) for t in described.tasks] == [("demo", 2, (2, 2))]
    assert _means(load(folder)) == {"1": 1.0, "2": 0.5}


def test_a_log_folder_of_several_models_names_them(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    _json_log(folder / "a.json", [_sample(1)])
    other = {**_header(), "eval": {"task": "demo", "model": "openai/gpt-4o"}}
    (folder / "b.json").write_text(json.dumps({**other, "samples": [_sample(1)]}), "utf-8")
    with pytest.raises(DataError, match=r"holds Inspect logs of 2 models \(mockllm/model: 1"):
        load(folder)


def test_a_folder_with_nothing_known_lists_the_folders_evalsig_reads(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(FormatError, match="an Inspect AI log folder"):
        load(tmp_path)


def test_inspect_names_the_log_format(tmp_path: Path) -> None:
    log = _json_log(tmp_path / "log.json", [_sample(1)])
    assert describe(log).layouts == ("inspect log format 2 (JSON)",)
    archive = _eval(tmp_path / "log.eval", [_sample(1)])
    assert describe(archive).layouts == ("inspect log format 2 (.eval archive)",)
