"""Inputs read at the same time give what a loop gives: results in order, the earliest error,
and the caller's progress reporter."""

from __future__ import annotations

import threading
import time

import pytest

from evalsig.cli.at_once import at_once
from evalsig.progress import report, reporting


def test_results_come_in_the_order_of_the_calls() -> None:
    def slow() -> str:
        time.sleep(0.05)
        return "first"

    assert at_once([slow, lambda: "second", lambda: "third"]) == ["first", "second", "third"]
    assert at_once([]) == []


def test_the_calls_overlap() -> None:
    both = threading.Barrier(2, timeout=5)  # each call waits for the other: a loop would hang
    assert sorted(at_once([both.wait, both.wait])) == [0, 1]  # BrokenBarrierError if not


def test_the_earliest_call_s_error_is_raised_even_when_a_later_one_fails_first() -> None:
    def first() -> None:
        time.sleep(0.05)
        raise ValueError("a.csv: bad")

    def second() -> None:
        raise KeyError("b.csv")

    with pytest.raises(ValueError, match=r"a\.csv: bad"):
        at_once([first, second])
    with pytest.raises(KeyError, match=r"b\.csv"):
        at_once([lambda: 1, second])


def test_every_call_reports_progress_to_the_caller_s_reporter() -> None:
    seen: list[str] = []
    with reporting(lambda label, done, total: seen.append(label)):
        at_once([lambda: report("a", 1, 1), lambda: report("b", 1, 1)])
    assert sorted(seen) == ["a", "b"]


def test_one_call_runs_in_the_caller_s_thread() -> None:
    (name,) = at_once([lambda: threading.current_thread().name])
    assert name == threading.current_thread().name
