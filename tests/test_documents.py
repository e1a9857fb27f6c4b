"""The strict document parsers: YAML 1.1 surprises refused, JSON numbers bounded."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from evalsig._documents import MAX_DIGITS, load_json, load_yaml
from evalsig.errors import DataError


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("alpha: 1:30\n", "line 1: '1:30' is a base-60 number in YAML 1.1 (1:30 reads as 90)"),
        ("n: -1:00:00\n", "'-1:00:00' is a base-60 number"),
        ("x: 1\nat_least: 010\n", "line 2: '010' is an octal number in YAML 1.1"),
        ("at_least: -0_7\n", "'-07' is an octal number"),
        ("base: {a: 1}\n<<: {a: 2}\n", "line 2: merge keys (<<) are not accepted"),
        (
            "n: " + "9" * (MAX_DIGITS + 1) + "\n",
            f"an integer of 101 digits (the limit is {MAX_DIGITS})",
        ),
        ("n: " + "9" * 5000 + "\n", "an integer of 5,000 digits"),
    ],
)
def test_yaml_readings_that_surprise_are_refused(text: str, message: str) -> None:
    with pytest.raises(DataError) as info:
        load_yaml(text, "p.yaml")
    assert str(info.value).startswith("p.yaml: line ")
    assert message in str(info.value)
    assert len(str(info.value)) < 300


def test_what_plain_yaml_safe_load_would_have_made_of_them() -> None:
    """The premise of the refusals above: PyYAML guesses silently."""
    assert yaml.safe_load("alpha: 1:30") == {"alpha": 90}
    assert yaml.safe_load("k: 010") == {"k": 8}
    assert yaml.safe_load("base: &b {a: 1}\nc:\n  <<: *b\n") == {"base": {"a": 1}, "c": {"a": 1}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"alpha": 1e999}', "not strict JSON (1e999 overflows to infinity"),
        ('{"alpha": -1E400}', "-1E400 overflows to infinity"),
        ('{"alpha": NaN}', "NaN is not valid in strict JSON"),
        ('{"alpha": -Infinity}', "-Infinity is not valid in strict JSON"),
        ('{"n": ' + "9" * 5000 + "}", "an integer of 5,000 digits; the limit is 100"),
        ('{"a": {"b": 1, "b": 2}}', "key 'b' appears twice in one object"),
    ],
)
def test_json_numbers_are_bounded(text: str, message: str) -> None:
    with pytest.raises(DataError) as info:
        load_json(text, "r.json")
    assert str(info.value).startswith("r.json: ")
    assert message in str(info.value)
    assert len(str(info.value)) < 300


def test_json_keeps_small_numbers_exact() -> None:
    assert load_json('{"a": 1e-400, "b": -0.0, "c": 12}', "r.json") == {"a": 0.0, "b": 0.0, "c": 12}


# --- property tests ------------------------------------------------------------------------

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**120), 10**120),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=10),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def _digits(value: Any) -> int:
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int):
        return len(str(abs(value)))
    if isinstance(value, dict):
        return max(map(_digits, value.values()), default=0)
    if isinstance(value, list):
        return max(map(_digits, value), default=0)
    return 0


@given(value=json_values)
def test_json_round_trips_or_refuses_long_integers(value: Any) -> None:
    text = json.dumps(value)
    if _digits(value) > MAX_DIGITS:
        with pytest.raises(DataError, match=r"^d\.json: not strict JSON \(an integer of"):
            load_json(text, "d.json")
    else:
        assert load_json(text, "d.json") == value


@given(value=json_values)
def test_yaml_reads_plain_json_the_same_or_refuses(value: Any) -> None:
    """JSON text through the YAML parser: the same value, or a DataError naming the file
    (YAML 1.1 differs on some numbers and refuses long integers); never another exception."""
    text = json.dumps(value)
    message, loaded = "", None
    try:
        loaded = load_yaml(text, "d.yaml")
    except DataError as exc:
        message = str(exc)
    if message:
        assert message.startswith("d.yaml: ")
    elif _digits(value) <= 15 and not _has_float(value):
        assert loaded == value


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(map(_has_float, value.values()))
    if isinstance(value, list):
        return any(map(_has_float, value))
    return False


def test_escaped_surrogate_pairs_join_and_unpaired_ones_are_refused() -> None:
    """JSON writes U+1F600 as a surrogate pair escape; PyYAML alone keeps the two halves,
    which no UTF-8 file can hold (a report of such a value ended in UnicodeEncodeError)."""
    pair = '{"name": "\\ud83d\\ude00"}'
    assert yaml.safe_load(pair) == {"name": "\ud83d\ude00"}  # the premise: two halves
    assert load_yaml(pair, "p.yaml") == {"name": "\U0001f600"}
    assert load_json(pair, "p.json") == {"name": "\U0001f600"}
    for text in ('{"name": "\\ud800"}', '{"\\udfff": 1}', '[["x\\ud800y"]]'):
        for parse, source in ((load_yaml, "p.yaml"), (load_json, "p.json")):
            with pytest.raises(DataError, match="unpaired surrogate escape"):
                parse(text, source)
