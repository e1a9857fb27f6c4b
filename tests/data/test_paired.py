"""Alignment by item id, missing items, clusters, ragged runs."""

from __future__ import annotations

import numpy as np
import pytest

from evalsig.data import load, pair
from evalsig.errors import AlignmentError, DataError


def test_aligns_by_id_not_position() -> None:
    p = pair(load({"a": 1, "b": 0, "c": 1}), load({"c": 0, "a": 1, "b": 1}))
    assert list(p.item_ids) == ["a", "b", "c"]  # type: ignore[arg-type]
    np.testing.assert_array_equal(p.differences(), [0, 1, -1])


def test_missing_items_are_an_error_with_counts_and_examples() -> None:
    base = load({f"q{i}": 1 for i in range(10)})
    cand = load({f"q{i}": 1 for i in range(2, 13)})
    with pytest.raises(
        AlignmentError,
        match=r"baseline has 10 items and candidate has 11; 2 only in baseline \('q0', 'q1'\) "
        r"and 3 only in candidate \('q10', 'q11', 'q12'\).*on_missing='intersect'.*8 shared",
    ):
        pair(base, cand)


def test_intersect_records_the_drop() -> None:
    base = load({f"q{i}": 1 for i in range(10)})
    cand = load({f"q{i}": 0 for i in range(2, 13)})
    p = pair(base, cand, on_missing="intersect")
    assert (p.n_items, p.n_only_baseline, p.n_only_candidate) == (8, 2, 3)
    assert "dropped 2 only in baseline and 3 only in candidate" in p.notes[0]


def test_positional_length_mismatch() -> None:
    with pytest.raises(AlignmentError, match="baseline has 3 items but candidate has 2"):
        pair(load([1, 0, 1]), load([1, 0]))


def test_ids_on_one_side_only() -> None:
    with pytest.raises(
        AlignmentError, match="baseline has item ids but the other side is positional"
    ):
        pair(load({"a": 1, "b": 0}), load([1, 0]))


def test_fewer_than_two_items() -> None:
    with pytest.raises(DataError, match="at least 2 items; got 1"):
        pair(load({"a": 1}), load({"a": 0}))


def test_cluster_labels_must_agree() -> None:
    import pandas as pd

    a = pd.DataFrame({"item": ["x", "y"], "score": [1, 0], "subj": ["math", "law"]})
    b = pd.DataFrame({"item": ["x", "y"], "score": [1, 1], "subj": ["math", "bio"]})
    with pytest.raises(
        DataError, match=r"1 item\(s\) have a different cluster label.*'y': 'law' vs 'bio'"
    ):
        pair(load(a, cluster_column="subj"), load(b, cluster_column="subj"))


def test_cluster_argument_forms() -> None:
    base, cand = load({"a": 1, "b": 0, "c": 1}), load({"c": 1, "b": 1, "a": 0})
    by_map = pair(base, cand, clusters={"a": "m", "b": "n", "c": "m"})
    by_seq = pair(base, cand, clusters=["m", "n", "m"])  # baseline order
    for p in (by_map, by_seq):
        assert p.n_clusters == 2
        np.testing.assert_array_equal(p.cluster_codes, [0, 1, 0])  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`cluster` has no label for 1 item\(s\) \('c'\)"):
        pair(base, cand, clusters={"a": "m", "b": "n"})
    with pytest.raises(DataError, match="`cluster` has 2 labels but the baseline has 3 items"):
        pair(base, cand, clusters=["m", "n"])
    with pytest.raises(DataError, match="`cluster`='subject' names a column"):
        pair(base, cand, clusters="subject")


def test_ragged_runs_are_noted_not_dropped() -> None:
    p = pair(load({"a": [1, 1, 0], "b": [1]}), load({"a": [1], "b": [0, 1]}))
    assert p.baseline.counts.tolist() == [3, 1]
    assert any("per-item means are compared" in n for n in p.notes)


def test_bad_on_missing() -> None:
    with pytest.raises(DataError, match="`on_missing` must be 'error' or 'intersect'; got 'drop'"):
        pair(load([1, 0]), load([1, 1]), on_missing="drop")  # type: ignore[arg-type]
