"""Property: whatever bytes a data file holds, load() gives a table or an EvalsigError.

Files are generated malformed on purpose: random bytes under every suffix, gzip and zip
archives of valid CSV / JSON Lines cut short or with bytes flipped, CSV with random
separators, quotes, byte order marks and repeated headers, JSON Lines with random nesting
(down to well past orjson's 1024 levels) and random types.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalsig.data import ScoreTable, describe, load
from evalsig.errors import EvalsigError, EvalsigWarning

SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".csv.gz", ".jsonl.gz", ".json.gz", ".zip")
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _outcome(path: Path, data: bytes) -> object:
    """load()'s result on a file holding ``data``: a table or the EvalsigError raised."""
    path.write_bytes(data)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: Hypothesis raises it while tests run
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvalsigWarning)  # a warning is a fine outcome
            return load(path)
    except EvalsigError as exc:
        return exc
    finally:
        sys.setrecursionlimit(limit)


def _check(path: Path, data: bytes) -> None:
    outcome = _outcome(path, data)
    assert isinstance(outcome, (ScoreTable, EvalsigError)), type(outcome)
    if isinstance(outcome, EvalsigError):
        assert str(path.name) in str(outcome) or "separator" in str(outcome), str(outcome)


def _csv_text(rows: list[list[str]], separator: str) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator="\n").writerows(rows)
    return out.getvalue()


VALID_CSV = _csv_text([["item", "score"]] + [[f"q{i}", str(i % 2)] for i in range(40)], ",")
VALID_JSONL = "".join(json.dumps({"item": f"q{i}", "score": i % 2}) + "\n" for i in range(40))


def _deep_text(match: re.Match[str]) -> str:
    """Nesting ``depth`` levels deep, as JSON text (json.dumps itself stops near 1000)."""
    depth, kind = int(match[1]), match[2]
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    return '{"k": ' * depth + "1" + "}" * depth


DEEP = re.compile(r'"@@deep:(\d+):(\w+)@@"')
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(10**400), 10**400)
    | st.floats()
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
depths = st.sampled_from([1, 254, 256, 990, 999, 1023, 1024, 1025]) | st.integers(0, 1500)
deep = st.builds("@@deep:{}:{}@@".format, depths, st.sampled_from(["list", "dict"]))


def _dumps(value: object) -> str:
    return DEEP.sub(_deep_text, json.dumps(value))


@SETTINGS
@given(data=st.binary(max_size=300), suffix=st.sampled_from(SUFFIXES))
def test_random_bytes(tmp_path: Path, data: bytes, suffix: str) -> None:
    _check(tmp_path / f"random{suffix}", data)


@SETTINGS
@given(
    kind=st.sampled_from(["csv", "jsonl"]),
    cut=st.floats(0.0, 1.0),
    flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 255)), max_size=3),
    tail=st.binary(max_size=8),
)
def test_damaged_gzip(
    tmp_path: Path, kind: str, cut: float, flips: list[tuple[float, int]], tail: bytes
) -> None:
    packed = bytearray(gzip.compress((VALID_CSV if kind == "csv" else VALID_JSONL).encode()))
    for where, mask in flips:
        packed[int(where * (len(packed) - 1))] ^= mask
    damaged = bytes(packed[: max(1, int(cut * len(packed)))]) + tail
    _check(tmp_path / f"damaged.{kind}.gz", damaged)


@SETTINGS
@given(
    method=st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2]),
    cut=st.floats(0.0, 1.0),
    flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 255)), max_size=3),
)
def test_damaged_zip(
    tmp_path: Path, method: int, cut: float, flips: list[tuple[float, int]]
) -> None:
    records = [{"item": f"q{i}", "score": i % 2} for i in range(40)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        archive.writestr("results.json", json.dumps(records))
    packed = bytearray(buffer.getvalue())
    for where, mask in flips:
        packed[int(where * (len(packed) - 1))] ^= mask
    _check(tmp_path / "damaged.zip", bytes(packed[: max(1, int(cut * len(packed)))]))


cells = st.text(alphabet=st.sampled_from(list('ab1,;|\t"\n ')), max_size=6)


@SETTINGS
@given(
    header=st.lists(st.sampled_from(["item", "score", "run", "", "x", '"q"']), max_size=5),
    rows=st.lists(st.lists(cells, max_size=5), max_size=6),
    separator=st.sampled_from([",", ";", "\t", "|"]),
    bom=st.booleans(),
    suffix=st.sampled_from([".csv", ".tsv", ".csv.gz"]),
)
def test_odd_csv(
    tmp_path: Path,
    header: list[str],
    rows: list[list[str]],
    separator: str,
    bom: bool,
    suffix: str,
) -> None:
    text = ("\ufeff" if bom else "") + _csv_text([header, *rows], separator)
    data = text.encode()
    _check(tmp_path / f"odd{suffix}", gzip.compress(data) if suffix.endswith(".gz") else data)


@SETTINGS
@given(
    records=st.lists(
        st.fixed_dictionaries(
            {"item": values | deep, "score": values | deep},
            optional={"meta": values | deep, "id": values, "correct": values},
        )
        | values,
        max_size=5,
    ),
    suffix=st.sampled_from([".jsonl", ".json"]),
)
@example(records=[{"item": "@@deep:995:list@@", "score": 1}], suffix=".jsonl")
@example(records=[{"item": "a", "score": "@@deep:1023:dict@@"}], suffix=".json")
@example(records=[{"item": "a", "score": 1, "meta": "@@deep:1200:dict@@"}], suffix=".jsonl")
def test_odd_json_records(tmp_path: Path, records: list[Any], suffix: str) -> None:
    if suffix == ".json":
        data = _dumps(records).encode()
    else:
        data = "".join(_dumps(r) + "\n" for r in records).encode()
    _check(tmp_path / f"odd{suffix}", data)


HARNESS_FIELDS = {
    "samples_arc_2024-01-01T00-00-00.jsonl": (
        "doc_id", "filter", "metrics", "acc", "doc", "doc_hash", "target",
    ),
    "every_eval_ever.jsonl": (
        "evaluation_id", "sample_id", "interaction_type", "evaluation", "evaluation_name",
        "model_id", "metadata", "sample_hash",
    ),
    "openai_evals.jsonl": ("run_id", "sample_id", "type", "data", "final_report"),
    "annotations.json": ("preference", "generator_2", "instruction", "output_1", "dataset"),
    "per_instance_stats.json": ("instance_id", "train_trial_index", "stats", "perturbation"),
    "inspect_log.json": ("id", "epoch", "scores", "score", "target", "metadata", "error"),
}  # fmt: skip
HEADS = {  # a first line that makes the format detectable
    "every_eval_ever.jsonl": {"evaluation_id": 1, "sample_id": 1, "interaction_type": 1},
    "openai_evals.jsonl": {"spec": {"eval_name": "e"}},
}


@SETTINGS
@given(data=st.data())
def test_harness_shaped_records(tmp_path: Path, data: st.DataObject) -> None:
    """Harness logs with fields of random types and nesting: load() and describe() hold."""
    name = data.draw(st.sampled_from(sorted(HARNESS_FIELDS)))
    optional = dict.fromkeys(HARNESS_FIELDS[name], values | deep)
    records = data.draw(st.lists(st.fixed_dictionaries({}, optional=optional) | values, max_size=4))
    if name == "inspect_log.json":
        text = _dumps(
            {"eval": {"task": "t"}, "status": "success", "version": 2, "samples": records}
        )
    elif name.endswith(".jsonl"):
        text = "".join(_dumps(r) + "\n" for r in [HEADS.get(name), *records] if r is not None)
    else:
        text = _dumps(records)
    path = tmp_path / name
    _check(path, text.encode())
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        describe(path, skip_bad_lines=True)
    except EvalsigError:
        pass
    finally:
        sys.setrecursionlimit(limit)
