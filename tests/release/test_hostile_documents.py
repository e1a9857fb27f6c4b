"""Policies, saved results and stream lines from untrusted hands: bounded, strict, one line."""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig import compare
from evalsig._documents import load_json, load_yaml
from evalsig.cli import app
from evalsig.errors import DataError, EvalsigError
from evalsig.release import (
    GatePolicy,
    TaskClaim,
    check_registration,
    gate,
    load_policy,
    read_registration,
)

runner = CliRunner()

LmEvalDir = Callable[[Path, np.ndarray], Path]
"""The ``lm_eval_dir`` fixture of conftest.py: a one-task lm-eval folder."""

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def _policy(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks:\n  - name: t\n    claim: non-inferiority\n    margin: .inf\n", "got inf"),
        ("tasks:\n  - name: t\n    claim: non-inferiority\n    margin: .nan\n", "got nan"),
        ("tasks:\n  - name: t\n    claim: non-inferiority\n    margin: -0.1\n", "got -0.1"),
        ("tasks:\n  - name: t\n    claim: non-inferiority\n    margin: true\n", "got True"),
        ("alpha: true\ntasks: [t]\n", "'alpha' must be a number strictly between 0 and 1"),
        ("alpha: .nan\ntasks: [t]\n", "got nan"),
        ("alpha: 1\ntasks: [t]\n", "got 1"),
        ("alpha: '0.05'\ntasks: [t]\n", "got '0.05'"),
        ("name: [1, 2]\ntasks: [t]\n", "'name' must be a string"),
        ("alpha: 0.05\nalpha: 0.5\ntasks: [t]\n", "line 2: key 'alpha' appears twice"),
        ("tasks:\n  - name: t\n    margin: 0\n    margin: 0.1\n", "line 4: key 'margin' appears"),
        (BOMB + "tasks: [t]\n", "line 1: anchors and aliases (&name, *name) are not accepted"),
        ("x: &anchor 1\ntasks: [t]\n", "anchors and aliases"),
        ("name: !!binary aGVsbG8=\ntasks: [t]\n", "holds a bytes value"),
        ("name: !!set {a, b}\ntasks: [t]\n", "holds a set value"),
        ("name: !!python/object/apply:os.system [ls]\ntasks: [t]\n", "not valid YAML or JSON"),
        ("tasks: " + "[" * 100 + "t" + "]" * 100 + "\n", "nested deeper than 64 levels"),
        ('{"alpha": 0.05, "alpha": 0.5, "tasks": ["t"]}', "key 'alpha' appears twice"),
        ("alpha: 1:30\ntasks: [t]\n", "line 1: '1:30' is a base-60 number in YAML 1.1"),
        ("rule: at-least\nat_least: 010\ntasks: [t, u]\n", "line 2: '010' is an octal number"),
        ("x: {a: 1}\n<<: {alpha: 0.1}\ntasks: [t]\n", "line 2: merge keys (<<) are not"),
        ("alpha: " + "9" * 400 + "\ntasks: [t]\n", "an integer of 400 digits (the limit is 100)"),
        ("alpha: 5e-2\ntasks: [t]\n", "got '5e-2', which is text (YAML 1.1 reads an exponent"),
        ("alpha: '0.05'\ntasks: [t]\n", "got '0.05', which is text (it is quoted): write 0.05"),
        ("rule: at-least\nat_least: 1.0\ntasks: [t]\n", "a whole number of tasks between 1 and"),
        ('name: "\\ud800"\ntasks: [t]\n', "line 1: a string holds an unpaired surrogate escape"),
        ("[1, 2]\n", "a policy is a mapping with 'name', 'alpha', 'tasks' ...; got a list of 2"),
    ],
)
def test_hostile_policies_are_refused_with_a_short_message(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _policy(tmp_path, text)
    start = time.perf_counter()
    with pytest.raises(DataError) as info:
        load_policy(path)
    assert message in str(info.value)
    assert str(info.value).startswith(str(path))
    assert len(str(info.value)) < 400
    assert time.perf_counter() - start < 5


def test_the_alias_bomb_is_tiny_and_would_explode() -> None:
    """The premise: plain safe_load expands 490 bytes into 10^9 leaves when formatted."""
    assert len(BOMB) < 500
    loaded = yaml.safe_load(BOMB)
    assert len(loaded["i"]) == 9  # nine references, each 9^8 leaves deep below


def test_dates_stay_strings_and_plain_values_load() -> None:
    policy = load_yaml("name: 2024-01-01\nstamp: 2024-01-01 10:00:00\nn: 3\n", "p.yaml")
    assert policy == {"name": "2024-01-01", "stamp": "2024-01-01 10:00:00", "n": 3}


def test_size_cap(tmp_path: Path) -> None:
    path = _policy(tmp_path, "tasks: [t]\n# " + "x" * (1 << 20) + "\n")
    with pytest.raises(DataError, match=r"too large for a policy \(the limit is 1,048,576\)"):
        load_policy(path)


@pytest.mark.parametrize(
    ("margin", "code", "message"),
    [
        ("5", 4, "'margin' 5 is not below the range of the scores (scores in [0, 1])"),
        ("1", 4, "so every candidate would pass"),
        (".inf", 4, "'margin' must be a finite, non-negative number"),
        (".nan", 4, "got nan"),
    ],
)
def test_the_gate_cli_refuses_margins_off_the_scale(
    tmp_path: Path, lm_eval_dir: LmEvalDir, margin: str, code: int, message: str
) -> None:
    rng = np.random.default_rng(3)
    a = lm_eval_dir(tmp_path / "a", (rng.random(300) < 0.5).astype(float))
    b = lm_eval_dir(tmp_path / "b", (rng.random(300) < 0.4).astype(float))
    text = f"tasks:\n  - name: t\n    claim: non-inferiority\n    margin: {margin}\n"
    policy = _policy(tmp_path, text)
    result = runner.invoke(app, ["gate", "--policy", str(policy), str(a), str(b)])
    assert result.exit_code == code
    assert result.stderr.startswith(f"evalsig: error: {policy}")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_a_margin_on_a_wider_scale_is_checked_against_the_observed_range() -> None:
    rng = np.random.default_rng(4)
    base = {"t": rng.uniform(20, 80, 200)}
    cand = {"t": base["t"] + rng.normal(0, 1, 200)}
    ok = {"tasks": [{"name": "t", "claim": "non-inferiority", "margin": 5}]}
    assert gate(base, cand, policy=ok).tasks[0].task.margin == 5
    wide = {"tasks": [{"name": "t", "claim": "non-inferiority", "margin": 100}]}
    with pytest.raises(DataError, match=r"'margin' 100 is not below .* \(scores from"):
        gate(base, cand, policy=wide)


def _comparison_json(tmp_path: Path) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    return compare(rng.normal(size=40), rng.normal(size=40)).to_dict()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("percent_scale"), "an incomplete or edited comparison result (a"),
        (lambda d: d.update(n_items="many"), "a comparison result with a field of the wrong"),
        (lambda d: d.update(kind="nonsense"), "unknown result kind 'nonsense'"),
        (lambda d: d.update(kind=["comparison"] * 1000), "unknown result kind a list of 1000"),
    ],
)
def test_report_refuses_damaged_results(tmp_path: Path, edit: Any, message: str) -> None:
    data = _comparison_json(tmp_path)
    edit(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 4
    assert result.stderr.startswith(f"evalsig: error: {path}: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


def test_report_refuses_duplicate_keys_and_deep_nesting(tmp_path: Path) -> None:
    text = json.dumps(_comparison_json(tmp_path))
    dup = tmp_path / "dup.json"
    dup.write_text(text[:-1] + ', "kind": "comparison"}', encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, message in ((dup, "key 'kind' appears twice"), (deep, "nested deeper than 64")):
        result = runner.invoke(app, ["report", str(path)])
        assert result.exit_code == 4
        assert message in result.stderr
        assert "Traceback" not in result.stderr


def test_monitor_lines_refuse_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    path.write_text(
        '{"baseline": 1, "candidate": 0}\n{"baseline": 1, "baseline": 0, "candidate": 1}\n'
    )
    result = runner.invoke(app, ["monitor", str(path)])
    assert result.exit_code == 4
    assert "line 2: key 'baseline' appears twice" in result.stderr


def test_meta_json_refuses_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / "reports.json"
    row = '{"model": "a", "benchmark": "b", "source": "s", "score": 1, "score": 2, "se": 1}'
    path.write_text(f"[{row}]", encoding="utf-8")
    result = runner.invoke(app, ["meta", str(path)])
    assert result.exit_code == 4
    assert "key 'score' appears twice" in result.stderr


# --- property tests ------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["t", "all", "at-least", "holm", "non-inferiority", "fdr", "bh"]),
)
keys = st.sampled_from(
    [
        "name",
        "alpha",
        "tasks",
        "rule",
        "at_least",
        "margin",
        "claim",
        "correction",
        "error_rate",
        "shared_items",
        "method",
        "variant",
        "direction",
        "junk",
    ]
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=6)),
    max_leaves=30,
)


@given(document=documents)
def test_any_policy_mapping_is_valid_or_an_evalsig_error(document: Any) -> None:
    mapping = document if isinstance(document, dict) else {"tasks": document}
    message = ""
    try:
        assert isinstance(load_policy(mapping), GatePolicy)
    except EvalsigError as exc:
        message = str(exc)
    assert len(message) < 1000


@given(document=documents, duplicate=st.booleans(), depth=st.integers(0, 120))
@example(document=[None], duplicate=False, depth=61)  # 64 levels: accepted
@example(document=[None], duplicate=False, depth=62)  # 65 levels: refused
@example(document=None, duplicate=False, depth=61)  # 64 levels, from "tasks": ["t"]
def test_any_policy_text_is_valid_or_an_evalsig_error(
    document: Any, duplicate: bool, depth: int
) -> None:
    text = json.dumps({"tasks": ["t"], "doc": document}, allow_nan=True)
    if duplicate:
        text = text[:-1] + ', "tasks": ["u"]}'
    text = "[" * depth + text + "]" * depth
    # levels, scalars included: the wrapping lists, the object, then its deeper value
    # ("tasks": ["t"] is two levels)
    expected = duplicate or depth + 1 + max(_depth(document), 2) > 64
    for parse in (load_yaml, load_json):
        message = ""
        try:
            parse(text, "p.yaml")
        except DataError as exc:
            message = str(exc)
        if expected:
            assert message.startswith("p.yaml: ")
        elif message:
            assert parse is load_json
            assert "NaN" in text or "Infinity" in text


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 1


@given(raw=st.binary(max_size=200))
def test_any_bytes_as_a_policy_file_are_valid_or_an_evalsig_error(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.yaml"
        path.write_bytes(raw)
        with contextlib.suppress(EvalsigError):
            load_policy(path)


# --- registration records ----------------------------------------------------------------


def _two_runs(tmp_path: Path, lm_eval_dir: LmEvalDir) -> tuple[Path, Path]:
    rng = np.random.default_rng(6)
    a = lm_eval_dir(tmp_path / "a", (rng.random(200) < 0.5).astype(float))
    b = lm_eval_dir(tmp_path / "b", (rng.random(200) < 0.5).astype(float))
    return a, b


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(registered_at="x" * 100_000), "'registered_at' of the registration"),
        (lambda d: d.update(registered_at=None), "field 'registered_at' of the registration"),
        (lambda d: d.update(kind="comparison"), "not a gate registration record (written by"),
    ],
)
def test_a_damaged_registration_record_is_one_line(
    tmp_path: Path, lm_eval_dir: LmEvalDir, edit: Any, message: str
) -> None:
    a, b = _two_runs(tmp_path, lm_eval_dir)
    policy = _policy(tmp_path, "tasks: [t]\n")
    registered = runner.invoke(app, ["register", str(policy)])
    assert registered.exit_code == 0
    record = tmp_path / "p.registration.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    edit(data)
    record.write_text(json.dumps(data), encoding="utf-8")
    for args, code in (
        (["gate", "--policy", str(policy), str(a), str(b)], 4),
        (["register", str(policy)], 4),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == code
        assert result.stderr.startswith(f"evalsig: error: {record}: ")
        assert message in result.stderr
        assert result.stderr.count("\n") == 1
        assert len(result.stderr) < 400


def test_a_changed_family_names_the_policy_and_cuts_long_names(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "tasks: [t]\n")
    register_record = runner.invoke(app, ["register", str(policy)])
    assert register_record.exit_code == 0
    names = [f"{i}" + "n" * 1000 for i in range(8)]
    policy.write_text(json.dumps({"tasks": names}), encoding="utf-8")
    with pytest.raises(DataError) as info:
        gate({n: np.ones(5) for n in names}, {n: np.ones(5) for n in names}, policy=policy)
    message = str(info.value)
    assert message.startswith(f"{policy}: the policy differs from its registration of ")
    assert "(added 0nnnnnnnnn" in message
    assert "... and 3 more; dropped t)" in message
    assert len(message) < 700


record_edits = st.dictionaries(
    st.sampled_from(
        ["kind", "policy_name", "policy_digest", "family", "settings", "registered_at", "x"]
    ),
    documents,
    max_size=4,
)


@given(edits=record_edits, drop=st.booleans())
def test_any_registration_record_is_read_or_refused(edits: dict[str, Any], drop: bool) -> None:
    record = {
        "kind": "gate-registration",
        "policy_name": "p",
        "policy_digest": "0" * 64,
        "family": ["t"],
        "settings": {"alpha": 0.05},
        "registered_at": "2024-01-01T00:00:00+00:00",
        "evalsig_version": "0.1.0",
    }
    if drop and edits:
        for key in edits:
            record.pop(key, None)
    else:
        record.update(edits)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_text(json.dumps(record, allow_nan=True), encoding="utf-8")
        message = ""
        try:
            read = read_registration(path)
        except DataError as exc:
            message = str(exc)
        if message:
            assert message.startswith(f"{path}: ")
            assert len(message) < 600
        else:
            assert read.family == tuple(record["family"])
            policy = GatePolicy(name="p", tasks=(TaskClaim(name="t"),))
            with contextlib.suppress(DataError):
                check_registration(policy, read)
