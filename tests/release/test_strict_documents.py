"""YAML 1.1 surprises, overlong numbers and damaged records: refused in one line, never guessed."""

from __future__ import annotations

import json
import math
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig import compare
from evalsig._documents import MAX_DIGITS, load_document, load_yaml, short
from evalsig.cli import app
from evalsig.errors import DataError, EvalsigError
from evalsig.release import GatePolicy, gate, load_policy, read_registration, register

runner = CliRunner()

LmEvalDir = Callable[[Path, np.ndarray], Path]
"""The ``lm_eval_dir`` fixture of conftest.py: a one-task lm-eval folder."""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def results(tmp_path: Path, lm_eval_dir: LmEvalDir) -> tuple[Path, Path]:
    rng = np.random.default_rng(11)
    base = lm_eval_dir(tmp_path / "base", (rng.random(300) < 0.6).astype(float))
    cand = lm_eval_dir(tmp_path / "cand", (rng.random(300) < 0.6).astype(float))
    return base, cand


# --- YAML readings that would change a setting silently ------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "tasks:\n  - name: t\n    claim: non-inferiority\n    margin: 1:30\n",
            "line 4: '1:30' is a base-60 number in YAML 1.1 (1:30 reads as 90); quote it",
        ),
        ("alpha: 0:0.05\ntasks: [t]\n", "line 1: '0:0.05' is a base-60 number in YAML 1.1"),
        ("rule: at-least\nat_least: 010\ntasks: [t]\n", "line 2: '010' is an octal number"),
        ("<<: {alpha: 0.5}\nalpha: 0.05\ntasks: [t]\n", "line 1: merge keys (<<) are not"),
        ("tasks:\n  - <<: {name: t}\n    claim: superiority\n", "line 2: merge keys (<<)"),
        ("name: " + "7" * 5000 + "\ntasks: [t]\n", "line 1: an integer of 5,000 digits"),
        ("alpha: 0.05\ntasks: [t]\nalpha: 0.01\n", "line 3: key 'alpha' appears twice"),
    ],
)
def test_the_gate_cli_refuses_ambiguous_yaml(
    tmp_path: Path, results: tuple[Path, Path], text: str, message: str
) -> None:
    policy = _write(tmp_path, "gate.yaml", text)
    outcome = runner.invoke(app, ["gate", "--policy", str(policy), *map(str, results)])
    assert outcome.exit_code == 4
    assert outcome.stderr.startswith(f"evalsig: error: {policy}: {message}")
    assert outcome.stderr.count("\n") == 1
    assert len(outcome.stderr) < 300


def test_plain_yaml_numbers_still_load() -> None:
    text = "a: 0\nb: -12\nc: 0x1F\nd: 1_000\ne: 0.05\nf: -1.5e+3\ng: .inf\nh: 0b11\n"
    assert load_yaml(text, "p.yaml") == {
        "a": 0,
        "b": -12,
        "c": 31,
        "d": 1000,
        "e": 0.05,
        "f": -1500.0,
        "g": math.inf,
        "h": 3,
    }
    assert load_yaml("n: " + "9" * MAX_DIGITS + "\n", "p.yaml") == {"n": int("9" * MAX_DIGITS)}
    assert load_yaml("t: '1:30'\n", "p.yaml") == {"t": "1:30"}  # quoted: text, as written


def test_a_json_policy_is_read_as_json(tmp_path: Path) -> None:
    """Tab-indented JSON (which YAML refuses) loads; NaN and overflowing numbers do not."""
    text = '{\n\t"alpha": 0.05,\n\t"tasks": [{"name": "t", "margin": 0.02, '
    text += '"claim": "non-inferiority"}]\n}\n'
    policy = load_policy(_write(tmp_path, "gate.json", text))
    assert (policy.alpha, policy.tasks[0].margin) == (0.05, 0.02)
    for body, message in (
        ('{"alpha": NaN, "tasks": ["t"]}', "not strict JSON (NaN is not valid"),
        ('{"alpha": 1e400, "tasks": ["t"]}', "1e400 overflows to infinity"),
        ('{"alpha": ' + "1" * 400 + ', "tasks": ["t"]}', "an integer of 400 digits"),
    ):
        path = _write(tmp_path, "bad.json", body)
        with pytest.raises(DataError, match=re.escape(message)) as info:
            load_policy(path)
        assert str(info.value).startswith(f"{path}: ")


def test_load_document_picks_the_parser_by_suffix(tmp_path: Path) -> None:
    assert load_document(_write(tmp_path, "a.json", '{"x": 1}'), what="x") == {"x": 1}
    assert load_document(_write(tmp_path, "a.yml", "x: 1\n"), what="x") == {"x": 1}
    with pytest.raises(DataError, match="not strict JSON"):
        load_document(_write(tmp_path, "b.json", "x: 1\n"), what="x")


def test_short_never_prints_a_huge_integer() -> None:
    assert short(10**5000) == "an integer of about 5001 digits"
    assert short(-(10**400)) == "an integer of about 401 digits"
    assert short(10**20) == "100000000000000000000"
    assert short("x" * 1000) == "'" + "x" * 56 + "..."


# --- values no parser produces, from Python mappings ---------------------------------------


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            {"tasks": [{"name": "t", "claim": "non-inferiority", "margin": 10**400}]},
            "'margin' must be a finite, non-negative number on the score scale (0.01 is 1 "
            "point of accuracy); got an integer of about 401 digits.",
        ),
        ({"tasks": [{"name": "t", "method": ["bootstrap"]}]}, "unknown 'method' a list of 1"),
        (
            {"tasks": [{"name": "t", "method": "bootstrap", "variant": {}}]},
            "'variant' a dict of 0 entries needs a method that has it",
        ),
        ({"correction": ["holm"], "tasks": ["t"]}, "'correction' a list of 1 entries does"),
        ({"name": 10**5000, "tasks": ["t"]}, "'name' must be a string; got an integer of about"),
        (
            {"rule": "at-least", "at_least": 10**500, "tasks": ["t"]},
            "'at_least' is an integer of about 501 digits but the family has 1 tasks",
        ),
        (
            {"rule": "at-least", "at_least": 2.0, "tasks": ["t", "u"]},
            "needs 'at_least: k', a whole number of tasks between 1 and 2; got 2.0.",
        ),
        ({"rule": "all", "at_least": 1, "tasks": ["t"]}, "remove it or set 'rule: at-least'"),
        ({"alpha": 10**400, "tasks": ["t"]}, "got an integer of about 401 digits"),
        ({10**5000: 1, "tasks": ["t"]}, "unknown policy key(s) an integer of about 5001"),
    ],
)
def test_hostile_python_values_are_refused_briefly(policy: Any, message: str) -> None:
    with pytest.raises(DataError) as info:
        load_policy(policy)
    assert message in str(info.value)
    assert len(str(info.value)) < 300


# --- registration records ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: [d], "not a gate registration record (written by evalsig register); got a"),
        (lambda d: {**d, "kind": "comparison"}, "not a gate registration record"),
        (lambda d: {**d, "family": "t"}, "field 'family' of the registration record is"),
        (lambda d: {**d, "settings": [["a", "b"]]}, "field 'settings' of the registration"),
        (lambda d: {**d, "family": [["t"]]}, "field 'family' of the registration record must"),
        (lambda d: {k: v for k, v in d.items() if k != "policy_digest"}, "'policy_digest'"),
    ],
)
def test_a_damaged_registration_stops_the_gate(
    tmp_path: Path, results: tuple[Path, Path], edit: Any, message: str
) -> None:
    policy = _write(tmp_path, "gate.yaml", "tasks: [t]\n")
    _, record = register(load_policy(policy))
    data = json.loads(record.read_text(encoding="utf-8"))
    assert read_registration(record).family == ("t",)
    record.write_text(json.dumps(edit(data)), encoding="utf-8")
    with pytest.raises(DataError, match=re.escape(message)):
        read_registration(record)
    outcome = runner.invoke(app, ["gate", "--policy", str(policy), *map(str, results)])
    assert outcome.exit_code == 4
    assert outcome.stderr.startswith(f"evalsig: error: {record}: ")
    assert message in outcome.stderr
    assert outcome.stderr.count("\n") == 1


# --- report, monitor and meta --------------------------------------------------------------


def _gate_result() -> dict[str, Any]:
    rng = np.random.default_rng(8)
    base = {"t": rng.random(80), "u": rng.random(80)}
    cand = {"t": base["t"] + 0.05, "u": base["u"]}
    policy = {"tasks": ["t", {"name": "u", "claim": "non-inferiority", "margin": 0.1}]}
    data: dict[str, Any] = json.loads(json.dumps(gate(base, cand, policy=policy).to_dict()))
    return data


GATE_RESULT = _gate_result()


def test_report_checks_every_renderer(tmp_path: Path) -> None:
    """A value only the markdown renderer looks up was a KeyError traceback there."""
    rng = np.random.default_rng(5)
    data = compare(rng.normal(size=40), rng.normal(size=40)).to_dict()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    fine = runner.invoke(app, ["report", str(path), "--format", "markdown"])
    assert fine.exit_code == 0
    assert "| Claim tested | the candidate and the baseline differ (two-sided) |" in fine.stdout
    data["alternative"] = "sideways"
    path.write_text(json.dumps(data), encoding="utf-8")
    for fmt in ("markdown", "text", "html", "json"):
        outcome = runner.invoke(app, ["report", str(path), "--format", fmt])
        assert outcome.exit_code == 4
        assert outcome.stderr == (
            f"evalsig: error: {path}: an incomplete or edited comparison result (a field or "
            "value 'sideways' is missing or not one evalsig writes); re-create it with "
            "--format json rather than editing it.\n"
        )


def test_monitor_names_the_file_and_clips_the_value(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    long = "0." + "5" * 5000
    path.write_text(
        f'{{"baseline": 1, "candidate": 0}}\n{{"baseline": 1, "candidate": "{long}x"}}\n'
    )
    outcome = runner.invoke(app, ["monitor", str(path)])
    assert outcome.exit_code == 4
    assert outcome.stderr == (
        f"evalsig: error: {path}: line 2: field 'candidate' is '0.{'5' * 54}..., not a score "
        "in [0, 1]; fix or remove the row (evalsig never skips rows).\n"
    )
    path.write_text(
        f'{{"baseline": 1, "candidate": 0}}\n{{"baseline": {"9" * 120}, "candidate": 1}}\n'
    )
    outcome = runner.invoke(app, ["monitor", str(path)])
    assert outcome.exit_code == 4
    assert outcome.stderr == (
        f"evalsig: error: {path}: line 2: not strict JSON (an integer of 120 digits; the limit "
        "is 100).\n"
    )
    path.write_text('{"baseline": 1, "candidate": 0}\n{"baseline": 1e999, "candidate": 1}\n')
    outcome = runner.invoke(app, ["monitor", str(path)])
    assert outcome.exit_code == 4
    assert outcome.stderr.startswith(f"evalsig: error: {path}: line 2: not strict JSON (1e999")


def test_meta_refuses_containers_as_names_and_overflowing_numbers(tmp_path: Path) -> None:
    row = {"model": ["a"], "benchmark": "b", "source": "s", "score": 0.5, "se": 0.1}
    path = tmp_path / "reports.json"
    path.write_text(json.dumps([row]), encoding="utf-8")
    outcome = runner.invoke(app, ["meta", str(path)])
    assert outcome.exit_code == 4
    assert outcome.stderr == (
        f"evalsig: error: {path} row 1: `model` is a list of 1 entries; give a name (text), "
        "not a list.\n"
    )
    csv = tmp_path / "reports.csv"
    csv.write_text("model,benchmark,source,score,se\na,b,s,0.5," + "9" * 400 + "\n")
    outcome = runner.invoke(app, ["meta", str(csv)])
    assert outcome.exit_code == 4
    assert "`se` is '99999" in outcome.stderr
    assert "...; give a finite number." in outcome.stderr
    assert len(outcome.stderr) < 300


# --- property tests ------------------------------------------------------------------------

KEYS = ["name", "alpha", "tasks", "rule", "at_least", "margin", "claim", "correction", "method"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # unbounded: beyond the float range too
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(["t", "at-least", "holm", "non-inferiority", "bootstrap", "0.05"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=12,
)
policies = st.fixed_dictionaries(
    {"tasks": st.one_of(values, st.lists(st.sampled_from(["t", "u"]), min_size=1, max_size=3))},
    optional={key: values for key in KEYS if key != "tasks"},
)


@given(policy=policies)
def test_any_policy_mapping_with_any_number_is_valid_or_one_short_error(policy: Any) -> None:
    message = ""
    try:
        assert isinstance(load_policy(policy), GatePolicy)
    except DataError as exc:
        message = str(exc)
    assert len(message) < 600
    assert "\n" not in message


FRAGMENTS = [
    "alpha: 0.05",
    "alpha: 0.5",
    "alpha: &a 0.05",
    "beta: *a",
    "<<: {alpha: 0.1}",
    "margin: 1:30",
    "at_least: 010",
    "name: !!python/object/apply:os.system [ls]",
    "name: !!timestamp 2024-01-01",
    "name: !!binary aGk=",
    "name: 2024-01-01",
    "rule: at-least",
    "at_least: 2",
    "at_least: " + "9" * 150,
    "tasks: [t, u]",
    "tasks: [t, t]",
    "tasks: " + "[" * 70 + "t" + "]" * 70,
    "tasks:\n  - name: t\n    claim: non-inferiority\n    margin: .nan",
    "tasks:\n  - name: t\n    claim: non-inferiority\n    margin: .inf",
    "tasks:\n  - name: t\n    claim: non-inferiority\n    margin: 0.02",
    "? [a]\n: 1",
    "error_rate: fdr",
    "correction: bh",
    "shared_items: yes",
    "{",
    "- x",
    "tasks:\n\t- t",
]


@settings(max_examples=80)
@given(parts=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6))
def test_any_mix_of_hostile_yaml_is_valid_or_one_line_naming_the_file(parts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gate.yaml"
        path.write_text("\n".join(parts) + "\n", encoding="utf-8")
        start = time.perf_counter()
        policy, message = None, ""
        try:
            policy = load_policy(path)
        except EvalsigError as exc:
            message = str(exc)
        assert time.perf_counter() - start < 5
        if policy is None:
            assert message.startswith(f"{path}: ")
            assert "\n" not in message
            assert len(message) < 400
        else:
            for refused in ("&", "<<", "!!", "1:30", "010", "999"):
                assert refused not in "\n".join(parts)
            assert policy.alpha in (0.05, 0.5)
            # the settings read are the ones written, once each
            assert len(yaml.safe_load(path.read_text(encoding="utf-8"))) == len(parts)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _paths(v, (*prefix, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _paths(v, (*prefix, i))]
    return [prefix]


LEAVES = _paths(GATE_RESULT)


@settings(max_examples=40)
@given(
    where=st.sampled_from(LEAVES),
    value=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**90), 10**90),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=3000),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    ),
    fmt=st.sampled_from(["html", "text", "markdown", "json"]),
)
def test_any_damaged_gate_result_renders_or_fails_in_one_line(
    where: tuple[Any, ...], value: Any, fmt: str
) -> None:
    data = json.loads(json.dumps(GATE_RESULT))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = value
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        outcome = runner.invoke(app, ["report", str(path), "--format", fmt])
    assert outcome.exit_code in (0, 4), outcome.exception
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    if outcome.exit_code == 4:
        assert outcome.stderr.startswith(f"evalsig: error: {path}: ")
        assert outcome.stderr.count("\n") == 1
        assert len(outcome.stderr) < 600


@settings(max_examples=40)
@given(
    cells=st.lists(
        st.one_of(
            st.integers(),
            st.floats(),
            st.booleans(),
            st.none(),
            st.text(max_size=200),
            st.lists(st.integers(0, 1), max_size=2),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_monitor_stream_ends_in_a_verdict_or_one_line(cells: list[Any]) -> None:
    lines = ['{"baseline": 1, "candidate": 0}']
    for cell in cells:
        lines.append(f'{{"baseline": {json.dumps(cell, allow_nan=True)}, "candidate": 1}}')
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        outcome = runner.invoke(app, ["monitor", str(path)])
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    assert outcome.exit_code in (0, 1, 3, 4)
    if outcome.exit_code == 4:
        assert outcome.stderr.startswith(f"evalsig: error: {path}: line ")
        assert outcome.stderr.count("\n") == 1
        assert len(outcome.stderr) < 400
    assert (outcome.exit_code == 4) == (not all(map(_a_score, cells)))


def _a_score(cell: Any) -> bool:
    """The plain reading of a monitor cell: a number (or numeric text) in [0, 1]."""
    if isinstance(cell, (bool, int)):
        return 0 <= cell <= 1
    if isinstance(cell, (float, str)):
        try:
            value = float(cell)
        except ValueError:
            return False
        return math.isfinite(value) and 0 <= value <= 1
    return False
