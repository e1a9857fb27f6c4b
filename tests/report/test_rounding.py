"""A number strictly between its bounds never prints as a bound (issue 28): q = 0.99999999
is not '1.00 (unresolved)', p = 0.99996 is not 'p = 1', a score of 99.9996% is not
'100.00%', one above 0 is not '0.00'. One helper (``formatting.fixed``) for every report."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.report import formatting as fmt
from evalsig.report import gate, meta, power

runner = CliRunner()


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    value=st.floats(0.0, 1.0, exclude_min=True, exclude_max=True),
    digits=st.integers(0, 4),
)
def test_fixed_never_prints_a_bound_it_does_not_reach(value: float, digits: int) -> None:
    text = fmt.fixed(value, digits)
    assert 0.0 < float(text) < 1.0, (value, text)
    assert abs(float(text) - value) <= max(10.0**-digits, abs(value))  # still close to it
    percent = fmt.score(value, percent=True)
    assert 0.0 < float(percent.rstrip("%")) < 100.0, (value, percent)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.5, "0.50"), (1.0, "1.00"), (0.0, "0.00"), (1.5, "1.50"), (0.999, "0.999"),
     (0.99999999, "0.999999"), (0.004, "0.004"), (3e-12, "3.0e-12")],
)  # fmt: skip
def test_fixed_adds_digits_only_where_needed(value: float, expected: str) -> None:
    assert fmt.fixed(value, 2) == expected


def test_p_values_below_one_are_not_shown_as_one() -> None:
    assert fmt.pvalue(0.99996) == "p > 0.999"
    assert fmt.pvalue(1.0) == "p = 1"
    assert fmt.pvalue(0.5) == "p = 0.500"
    assert gate._p(0.99999) != "1.0000"
    assert meta._p(0.99996) != "1.000"


def test_power_text_never_shows_an_unresolved_q_as_one() -> None:
    assert power._q(0.99999999) == "0.999999"
    assert power._q(1.0) == "1.00"
    assert power._q(0.004) == "0.004"
    assert power._pct(0.999999) != "100.00%"
    result = runner.invoke(app, ["power", "--discordance", "0.14", "--n", "4000"])
    assert result.exit_code == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "q = n/N* = " in line]
    q, state = re.search(r"q = n/N\* = (\S+) \((\w+)\)", line).groups()  # type: ignore[union-attr]
    assert (float(q) >= 1.0) == (state == "resolved"), line
    assert not (state == "unresolved" and q.startswith("1.00")), line


def test_shares_in_percent_below_100_are_not_shown_as_100() -> None:
    assert meta._percent(99.99) == "99.99%"
    assert meta._percent(100.0) == "100.0%"
    assert not math.isclose(float(fmt.score(0.999999, percent=True).rstrip("%")), 100.0)
