"""Saved results edited by hand or by an adversary: `evalsig report` reads them or refuses
them in one line, never a traceback."""

from __future__ import annotations

import copy
import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.cli.report import read_result
from evalsig.errors import DataError
from evalsig.release import gate

runner = CliRunner()


@cache
def _results() -> tuple[dict[str, Any], ...]:
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=60), rng.normal(0.2, 1, size=60)
    base = {"t": (rng.random(80) < 0.5).astype(float), "u": rng.random(80)}
    cand = {"t": (rng.random(80) < 0.6).astype(float), "u": rng.random(80)}
    policy = {
        "tasks": ["t", {"name": "u", "claim": "non-inferiority", "margin": 0.05}],
        "rule": "at-least",
        "at_least": 1,
    }
    return (
        compare(a, b).to_dict(),
        compare(a, b, method="bootstrap", n_resamples=200, rng=1).to_dict(),
        gate(base, cand, policy=policy).to_dict(),
    )


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location in a document: keys of mappings and indexes of lists."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


hostile = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**40), 10**40),
        st.sampled_from([0, -1, 10**100, 1e308, -1e308, 5e-324, -0.0]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=30),
        st.sampled_from(["PASS", "nan", "holm", "two-sided", "<b>x</b>", "|", "comparison"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    which=st.integers(0, 2),
    picks=st.lists(
        st.tuples(st.integers(0, 10**6), hostile, st.booleans()), min_size=1, max_size=3
    ),
)
def test_any_edited_result_is_read_or_refused_with_a_data_error(
    which: int, picks: list[tuple[int, Any, bool]]
) -> None:
    data = copy.deepcopy(_results()[which])
    for index, value, delete in picks:
        paths = _paths(data)
        if not paths:
            break
        *parents, last = paths[index % len(paths)]
        holder = data
        for step in parents:
            holder = holder[step]
        if delete and isinstance(holder, dict):
            del holder[last]
        else:
            holder[last] = value
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        message = ""
        try:
            read_result(path)
        except DataError as exc:
            message = str(exc)
        if message:
            assert message.startswith(f"{path}: ")
            assert len(message) < 600


def test_an_edited_result_through_the_cli_is_one_line_and_exit_1(tmp_path: Path) -> None:
    data = copy.deepcopy(_results()[2])
    data["tasks"][0]["comparison"] = 10**90
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 4
    assert result.stderr.startswith(f"evalsig: error: {path}: a gate result with a field of ")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "r.html").exists()
