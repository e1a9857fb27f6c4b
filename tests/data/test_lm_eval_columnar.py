"""The lm-eval column-by-column fast path gives the row reader's tables, or steps aside.

Oracle: for generated lm-evaluation-harness samples (v0.4.7 with several filters and
metrics, v0.4.3-style, gzip, missing content keys, odd doc_ids, several tasks in a model
folder, results files with document counts, and dirty samples and lines), the fast path's
tables equal the row reader's (``collect_files(...).tables()``) in every field, or the fast path
returns None and ``read_tables`` gives the row reader's answer, its exact error included.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalsig.data.readers import ReadOptions, collect_files, read_tables
from evalsig.data.readers.lm_eval_columnar import BLOCK, read_lm_eval_columnar
from evalsig.data.table import ScoreTable
from evalsig.errors import EvalsigError

pytest.importorskip("pyarrow")

DATE = "2026-01-21T03-44-18.458309"
FILTERS = ("none", "strict-match", "flexible-extract")
METRICS = ("acc", "acc_norm", "exact_match")
SKIPPED = '"__skipped__"'
"""Stands in a skipped field for raw JSON text written as is (tokens, deep nesting)."""


def _same(fast: ScoreTable, slow: ScoreTable) -> None:
    assert fast.source == slow.source
    assert fast.notes == slow.notes
    assert getattr(fast, "origin", None) == getattr(slow, "origin", None)  # files, layout ...
    assert fast.binary == slow.binary
    assert fast.item_ids is not None
    assert slow.item_ids is not None
    assert fast.item_ids.tolist() == slow.item_ids.tolist()
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_array_equal(fast.sums, slow.sums)
    np.testing.assert_array_equal(fast.sumsq, slow.sumsq)
    assert (fast.clusters is None) == (slow.clusters is None)
    assert (fast.keys is None) == (slow.keys is None)
    if fast.keys is not None and slow.keys is not None:
        assert fast.keys.tolist() == slow.keys.tolist()


def _compare(path: Path, options: ReadOptions) -> bool:
    """Check the fast path against the rows; True when the fast path read the files."""
    fast = read_lm_eval_columnar(path, options)
    try:
        slow = collect_files(path, options).tables()
    except EvalsigError as exc:
        refused: EvalsigError | None = exc
    else:
        refused = None
    if refused is not None:
        assert fast is None, f"fast path read files the rows refuse: {refused}"
        with pytest.raises(type(refused)) as again:  # read_tables gives the row reader's answer
            read_tables(path, options)
        assert str(again.value) == str(refused)
        return False
    if fast is None:
        return False
    assert list(fast) == list(slow)
    hooked = read_tables(path, options)
    for task in slow:
        _same(fast[task], slow[task])
        _same(hooked[task], slow[task])
    return True


# --- generated samples ----------------------------------------------------------------------

RECORD_FAULTS = (
    "score_text", "score_null", "score_nan", "score_true", "score_int", "score_past_float",
    "score_past_2_1023",
    "score_corpus", "metrics_reordered", "metrics_dropped", "metrics_extra", "filter_dropped",
    "filter_added",
    "filter_number", "id_float", "id_text", "id_true", "id_past_int64", "id_missing",
    "key_number", "key_null", "key_missing", "extra_number_field", "document_twice",
    "not_an_object",
)  # fmt: skip
LINE_FAULTS = (
    "blank_line", "two_on_a_line", "pretty_printed", "not_utf8", "bom", "crlf",
    "no_final_line_break", "NaN", "Infinity", "nested", "long_integer", "lone_surrogate",
    "unicode",
)  # fmt: skip
RAW = {
    "NaN": "NaN",
    "Infinity": "[Infinity, -Infinity]",
    "nested": "[" * 900 + "]" * 900,
    "long_integer": "9" * 400,
    "lone_surrogate": '"\\udc00"',
}
"""Raw JSON written into a skipped field: what pyarrow and the row parser may disagree on."""


def _score(draw: st.DrawFn) -> float:
    return float(draw(st.sampled_from([0.0, 1.0, 0.5, 0.25, -1.0])))


@st.composite
def designs(draw: st.DrawFn) -> tuple[str, list[str], list[str | None]]:
    """A harness layout, its metrics and filters (None: the unnamed filters before v0.4.7)."""
    layout = draw(st.sampled_from(["v0.4.7", "v0.4.3"]))
    metrics = draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=3, unique=True))
    if layout == "v0.4.7":
        filters: list[str | None] = list(
            draw(st.lists(st.sampled_from(FILTERS), min_size=1, max_size=3, unique=True))
        )
    else:
        filters = [None] * draw(st.sampled_from([1, 1, 1, 2]))  # a second copy: a filter
    return layout, metrics, filters


@st.composite
def tasks(
    draw: st.DrawFn, design: tuple[str, list[str], list[str | None]], *, dirty: bool
) -> tuple[list[Any], list[str]]:
    """One task's samples (dicts, or other JSON values) and the line faults to apply."""
    _, metrics, filters = design
    n_docs = draw(st.integers(1, 6))
    if draw(st.booleans()):
        doc_ids = list(range(n_docs))
    else:
        doc_ids = draw(
            st.lists(
                st.integers(-(2**63), 2**63 - 1), min_size=n_docs, max_size=n_docs, unique=True
            )
        )
    text = draw(st.sampled_from(["x", "The answer is (B).", "réponse: 日本"]))
    samples: list[Any] = []
    for kept in filters:
        for doc_id in doc_ids:
            sample: dict[str, Any] = {
                "doc_id": doc_id,
                "doc": {"question": f"q{doc_id}", "subject": f"s{doc_id % 3}"},
                "target": draw(st.sampled_from(["A", "B"])),
                "arguments": [[f"Question {doc_id}?", " A"]],
                "resps": [[text]],
                "filtered_resps": [text],
            }
            if kept is not None:
                sample |= {"filter": kept, "metrics": list(metrics)}
            if draw(st.integers(0, 4)):  # mostly a content key, sometimes not
                sample["doc_hash"] = f"hash{doc_id}"
            sample |= {metric: _score(draw) for metric in metrics}
            samples.append(sample)
    faults = draw(st.lists(st.sampled_from(RECORD_FAULTS), max_size=2)) if dirty else []
    for fault in faults:
        at = draw(st.integers(0, len(samples) - 1))
        samples[at] = _record_fault(samples[at], fault, metrics, samples)
    lines = draw(st.lists(st.sampled_from(LINE_FAULTS), max_size=2)) if dirty else []
    return samples, lines


def _record_fault(sample: Any, fault: str, metrics: list[str], samples: list[Any]) -> Any:
    if not isinstance(sample, dict):
        return sample
    sample = dict(sample)
    metric = metrics[0]
    changes: dict[str, Any] = {
        "score_text": {metric: "1"},
        "score_null": {metric: None},
        "score_nan": {metric: float("nan")},
        "score_true": {metric: True},
        "score_int": {metric: 1},
        "score_past_float": {metric: 10**400},
        "score_past_2_1023": {metric: int(1.5e308)},  # a float to pyarrow, not to the rows
        "score_corpus": {metric: [["ref"], "pred"]},
        "metrics_reordered": {"metrics": [*reversed(metrics), "acc"]},
        "metrics_extra": {"metrics": [*metrics, "f1"], "f1": 0.5},
        "filter_number": {"filter": 3},
        "filter_added": {"filter": "none"},
        "id_float": {"doc_id": 1.0},
        "id_text": {"doc_id": "3"},
        "id_true": {"doc_id": True},
        "id_past_int64": {"doc_id": 2**70},
        "key_number": {"doc_hash": 7},
        "key_null": {"doc_hash": None},
        "extra_number_field": {"f1": 0.5},
    }
    if fault in changes:
        sample.update(changes[fault])
    elif fault in ("metrics_dropped", "filter_dropped", "id_missing", "key_missing"):
        field = {"metrics_dropped": "metrics", "filter_dropped": "filter", "id_missing": "doc_id"}
        sample.pop(field.get(fault, "doc_hash"), None)
    elif fault == "document_twice":
        samples.append(dict(sample))
    elif fault == "not_an_object":
        return [1, 2]
    return sample


def _lines(samples: list[Any], faults: list[str]) -> bytes:
    """The samples as JSON Lines, with line faults (what the writer could get wrong)."""
    skipped = "resps"
    texts = []
    for sample in samples:
        if isinstance(sample, dict) and any(f in RAW for f in faults) and skipped in sample:
            sample = {**sample, skipped: "__skipped__"}
        texts.append(json.dumps(sample, ensure_ascii="unicode" not in faults))
    for fault in faults:
        if fault in RAW:
            texts = [t.replace(SKIPPED, RAW[fault]) for t in texts]
    body = "\n".join(texts)
    if "two_on_a_line" in faults and len(texts) > 1:
        body = texts[0] + " " + "\n".join(texts[1:])
    if "pretty_printed" in faults:
        body = body.replace(', "doc":', ',\n "doc":', 1)
    if "blank_line" in faults:
        body = body.replace("\n", "\n\n", 1) if "\n" in body else body + "\n"
    data = body.encode("utf-8")
    if "not_utf8" in faults:
        data = data.replace(b'"q', b'"\xff', 1)
    if "bom" in faults:
        data = b"\xef\xbb\xbf" + data
    newline = b"\r\n" if "crlf" in faults else b"\n"
    data = data.replace(b"\n", newline)
    return data if "no_final_line_break" in faults else data + newline


@st.composite
def folders(draw: st.DrawFn) -> tuple[dict[str, bytes], dict[str, Any], str]:
    """Files of one model folder by name, the read options, and what to read."""
    dirty = draw(st.sampled_from([False, False, True]))
    names = draw(st.lists(st.sampled_from(["arc", "gsm8k", "mmlu"]), min_size=1, max_size=3))
    names = list(dict.fromkeys(names))
    gz = draw(st.booleans())
    files: dict[str, bytes] = {}
    counts: dict[str, Any] = {}
    shared = draw(designs())  # the tasks of a folder mostly share metrics and filters
    for name in names:
        design = shared if draw(st.integers(0, 4)) else draw(designs())
        samples, faults = draw(tasks(design, dirty=dirty))
        data = _lines(samples, faults)
        stem = f"samples_{name}_{DATE}.jsonl"
        files[stem + (".gz" if gz else "")] = gzip.compress(data) if gz else data
        documents = {s["doc_id"] for s in samples if isinstance(s, dict) and "doc_id" in s}
        counts[name] = {"effective": len(documents) + draw(st.sampled_from([0, 0, 1]))}
    if draw(st.booleans()):
        summary = {"results": {n: {} for n in names}, "n-samples": counts}
        if draw(st.booleans()):  # the model the tables' origin names
            summary["config"] = {"model_args": "pretrained=org/model,dtype=float16"}
        files[f"results_{DATE}.json"] = json.dumps(summary).encode()
    if dirty and draw(st.booleans()):  # a second run of the first task
        files[f"samples_{names[0]}_2026-02-01T00-00-00.000000.jsonl"] = files[next(iter(files))]
    _, metrics, filters = shared
    named = [f for f in filters if f is not None]
    options = {
        "metric": draw(st.sampled_from([*metrics, *metrics, *metrics, None, "f1", "score"])),
        "filter": draw(st.sampled_from([*named, *named, None, None, "strict-match", "x"])),
        "task": draw(st.sampled_from([None, None, None, *names, "nope"])),
        "key_column": draw(st.sampled_from([None, None, "target", "doc_id"])),
    }
    target = draw(st.sampled_from(["folder", "output path", "first file"]))
    return files, options, target


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=folders())
def test_the_fast_path_matches_the_row_reader(
    case: tuple[dict[str, bytes], dict[str, Any], str],
) -> None:
    files, kwargs, target = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "out" / "model"
        folder.mkdir(parents=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        path = {
            "folder": folder,
            "output path": folder.parent,
            "first file": folder / next(iter(files)),
        }[target]
        _compare(path, ReadOptions(**kwargs))


# --- what the fast path reads, and what it leaves to the rows -------------------------------


def _sample(doc_id: int, **fields: Any) -> dict[str, Any]:
    sample: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}", "subject": f"s{doc_id % 3}"},
        "target": "A",
        "resps": [["a long response"]],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": f"hash{doc_id}",
        "acc": float(doc_id % 2),
        "acc_norm": float(doc_id % 3 == 0),
    }
    sample.update(fields)
    return {k: v for k, v in sample.items() if v is not ...}


def _write(path: Path, samples: list[dict[str, Any]], *, newline: str = "\n") -> Path:
    text = "".join(json.dumps(s, ensure_ascii=False) + newline for s in samples)
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def _v043(doc_id: int, **fields: Any) -> dict[str, Any]:
    return _sample(doc_id, **({"filter": ..., "metrics": ...} | fields))


def test_clean_files_take_the_fast_path(tmp_path: Path) -> None:
    two_filters = [_sample(i) for i in range(8)] + [
        _sample(i, filter="strict-match", acc=1.0) for i in range(8)
    ]
    arc = _write(tmp_path / f"samples_arc_{DATE}.jsonl", two_filters)
    assert _compare(arc, ReadOptions(metric="acc", filter="strict-match"))
    assert _compare(arc, ReadOptions(metric="acc_norm", filter="none", key_column="target"))
    gz = _write(tmp_path / f"samples_gsm_{DATE}.jsonl.gz", [_sample(i) for i in range(5)])
    assert _compare(gz, ReadOptions(metric="acc"))
    older = _write(tmp_path / "older" / "samples_hs.jsonl", [_v043(i) for i in range(5)])
    assert _compare(older, ReadOptions(metric="acc_norm"))
    crlf = [_sample(i, resps=[["réponse 日本", float("nan")]]) for i in range(4)]
    assert _compare(
        _write(tmp_path / "crlf.jsonl", crlf, newline="\r\n"), ReadOptions(metric="acc")
    )
    keyless = [_sample(i, doc_hash=None if i % 2 else ...) for i in range(6)]
    assert _compare(_write(tmp_path / "keys.jsonl", keyless), ReadOptions(metric="acc"))


def test_lines_longer_than_the_check_window(tmp_path: Path) -> None:
    long = [_sample(i, resps=[["x" * ((3 << 20) if i == 1 else 5)]]) for i in range(3)]
    assert _compare(_write(tmp_path / "long.jsonl", long), ReadOptions(metric="acc"))
    path = tmp_path / "long_last.jsonl"
    path.write_bytes(_write(path, long).read_bytes().rstrip(b"\n"))  # no last line break
    assert _compare(path, ReadOptions(metric="acc"))
    longer = [_sample(i, resps=[["x" * (BLOCK + 1 if i == 1 else 5)]]) for i in range(3)]
    assert not _compare(_write(tmp_path / "longer.jsonl", longer), ReadOptions(metric="acc"))


def test_a_model_folder_and_its_results_file(tmp_path: Path) -> None:
    model = tmp_path / "out" / "org__model"
    _write(model / f"samples_arc_{DATE}.jsonl", [_sample(i) for i in range(4)])
    _write(model / f"samples_hellaswag_{DATE}.jsonl.gz", [_sample(i) for i in range(5)])
    summary = {"results": {}, "n-samples": {"arc": {"effective": 4}, "hellaswag": {"effective": 6}}}
    (model / f"results_{DATE}.json").write_text(json.dumps(summary), encoding="utf-8")
    for path in (model, model.parent):
        assert _compare(path, ReadOptions(metric="acc"))
        assert _compare(path, ReadOptions(metric="acc", task="hellaswag"))
    tables = read_tables(model.parent, ReadOptions(metric="acc"))
    assert any("read the samples of its one model folder" in n for n in tables["arc"].notes)
    assert any("holds 5 documents but" in n for n in tables["hellaswag"].notes)


@pytest.mark.parametrize(
    ("name", "samples", "options"),
    [
        ("NaN score", [_sample(0), _sample(1, acc=float("nan"))], {"metric": "acc"}),
        ("text score", [_sample(0), _sample(1, acc_norm="1")], {"metric": "acc"}),
        ("null score", [_sample(0), _sample(1, acc=None)], {"metric": "acc"}),
        ("integer past 2**1023", [_sample(0), _sample(1, acc=int(1.5e308))], {"metric": "acc"}),
        ("corpus metric", [_sample(0, metrics=["acc", "bleu"], bleu=[["a"], "b"])], {}),
        ("metrics vary", [_sample(0), _sample(1, metrics=["acc_norm", "acc"])], {"metric": "acc"}),
        ("metrics absent", [_sample(0), _sample(1, metrics=...)], {"metric": "acc"}),
        ("document twice", [_v043(0), _v043(1), _v043(0), _v043(1)], {"metric": "acc"}),
        (
            "document twice, chosen",
            [_v043(0), _v043(0, acc=1.0)],
            {"metric": "acc", "filter": "filter 2"},
        ),
        ("no metric chosen", [_v043(0), _v043(1, f1=0.5)], {}),
        (
            "a metric named score",
            [_v043(0, score=1.0), _v043(1, score=0.0, f1=0.5)],
            {"metric": "score"},
        ),
        ("several metrics", [_sample(0)], {}),
        ("filter on some", [_sample(0), _sample(1, filter=...)], {"metric": "acc"}),
        ("filter on a later sample", [_v043(0), _v043(1, filter="none")], {"metric": "acc"}),
        ("cluster", [_sample(i) for i in range(6)], {"metric": "acc", "cluster_column": "subject"}),
        ("skip bad lines", [_sample(0)], {"metric": "acc", "skip_bad_lines": True}),
        ("float doc_id", [_sample(0), _sample(1.0)], {"metric": "acc"}),
        ("key a number", [_sample(0), _sample(1, doc_hash=5)], {"metric": "acc"}),
        ("no task", [_sample(0)], {"metric": "acc", "task": "nope"}),
    ],
)
def test_the_fast_path_declines(
    tmp_path: Path, name: str, samples: list[dict[str, Any]], options: dict[str, Any]
) -> None:
    path = _write(tmp_path / f"samples_arc_{DATE}.jsonl", samples)
    assert read_lm_eval_columnar(path, ReadOptions(**options)) is None, name
    assert not _compare(path, ReadOptions(**options))  # and read_tables answers as the rows


LINE = json.dumps(_sample(1, resps="__skipped__"))


@pytest.mark.parametrize(
    ("name", "text", "read"),
    [
        ("two on a line", LINE + " " + LINE.replace('"doc_id": 1', '"doc_id": 2') + "\n", False),
        ("pretty printed", LINE.replace(', "doc"', ',\n"doc"') + "\n", False),
        ("blank line", "\n" + LINE + "\n", False),
        (
            "a line ending inside an object with '}', two objects on a later line",
            LINE.replace(SKIPPED, '{"b": 1}\n')
            + "\n"
            + json.dumps(_sample(2))
            + " "
            + json.dumps(_sample(3))
            + "\n",
            False,
        ),
        (
            "a line ending inside an object, then two objects on a line",  # as many rows as lines
            LINE.replace(SKIPPED, '[\n{"y": 1}]') + " " + json.dumps(_sample(2)) + "\n",
            False,
        ),
        ("byte order mark", "\ufeff" + LINE + "\n", False),
        ("NaN", LINE.replace(SKIPPED, "NaN") + "\n", True),
        ("Infinity", LINE.replace(SKIPPED, "[Infinity, -Infinity]") + "\n", True),
        ("Inf in text", LINE.replace(SKIPPED, '"Information"'), True),
    ],
)
def test_lines_the_row_parser_refuses_are_left_to_it(
    tmp_path: Path, name: str, text: str, read: bool
) -> None:
    path = tmp_path / f"samples_arc_{DATE}.jsonl"
    path.write_text(json.dumps(_sample(0)) + "\n" + text, encoding="utf-8")
    assert _compare(path, ReadOptions(metric="acc")) == read, name


def test_bytes_that_are_not_utf8_are_left_to_the_rows(tmp_path: Path) -> None:
    path = tmp_path / f"samples_arc_{DATE}.jsonl"
    data = (LINE.replace(SKIPPED, '"caf\\u00e9"') + "\n").encode()
    path.write_bytes(data + data.replace(b'"caf\\u00e9"', b'"caf\xe9"').replace(b"1,", b"2,", 1))
    assert not _compare(path, ReadOptions(metric="acc"))


def test_columns_past_what_the_rows_read_are_refused() -> None:
    """Scores the rows do not take as numbers, and repeated documents without a filter
    (table_from_long refuses both today too; the fast path does not rely on it)."""
    import pyarrow as pa

    from evalsig.data.readers.columnar import _NotHere
    from evalsig.data.readers.lm_eval_columnar import _check_columns

    def table(doc_ids: list[int], scores: list[float]) -> Any:
        n = len(doc_ids)
        return pa.table(
            {
                "doc_id": pa.array(doc_ids, pa.int64()),
                "filter": pa.array([None] * n, pa.string()),
                "metrics": pa.array([None] * n, pa.list_(pa.string())),
                "acc": pa.array(scores, pa.float64()),
            }
        )

    first = {"doc_id": 0, "acc": 0.0}
    assert _check_columns(table([0, 1], [0.0, 1.0]), first, ["acc"], False) == 2
    for doc_ids, scores in [
        ([0, 1], [0.0, 1.5e308]),
        ([0, 1], [0.0, float("nan")]),
        ([0, 0], [0.0, 1.0]),
    ]:
        with pytest.raises(_NotHere):
            _check_columns(table(doc_ids, scores), first, ["acc"], False)


def test_the_fast_path_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas (0.2-0.4 s) when numpy or Python values cross to it through
    its converters; the fast path builds arrays from buffers instead."""
    import subprocess
    import sys

    two_filters = [_sample(i) for i in range(8)] + [
        _sample(i, filter="strict-match", acc=1.0) for i in range(8)
    ]
    path = _write(tmp_path / f"samples_arc_{DATE}.jsonl", two_filters)
    script = (
        "import sys, pathlib\n"
        "from evalsig.data.readers.base import ReadOptions\n"
        "from evalsig.data.readers.lm_eval_columnar import read_lm_eval_columnar\n"
        f"found = read_lm_eval_columnar(pathlib.Path({str(path)!r}), "
        "ReadOptions(metric='acc', filter='strict-match'))\n"
        "assert found is not None, 'the fast path declined'\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
