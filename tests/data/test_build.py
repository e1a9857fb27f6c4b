"""Building score tables from arrays, mappings, frames: every validation rule, by message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsig.data import load
from evalsig.errors import DataError


class TestArrays:
    def test_one_run(self) -> None:
        t = load(np.array([1, 0, 1, 1]))
        assert (t.n_items, t.n_runs, t.binary, t.item_ids) == (4, 1, True, None)
        assert t.mean == 0.75

    def test_runs_by_items(self) -> None:
        t = load(np.array([[1, 0, 1], [1, 1, 1]]))
        assert (t.n_items, t.n_runs) == (3, 2)
        np.testing.assert_allclose(t.means, [1.0, 0.5, 1.0])
        assert t.runs is not None
        assert t.runs.shape == (2, 3)

    def test_matrix_is_not_copied(self) -> None:
        x = np.random.default_rng(0).random((4, 100))
        assert load(x).runs is x

    def test_continuous_and_bool(self) -> None:
        assert not load([0.5, 0.25]).binary
        assert load(np.array([True, False])).binary

    def test_more_runs_than_items_is_noted(self) -> None:
        t = load(np.zeros((10, 3)))
        assert "transpose" in t.notes[0]

    def test_nan(self) -> None:
        with pytest.raises(
            DataError, match=r"`scores` has 2 NaN value\(s\) \('item 1', 'item 3'\); drop or fill"
        ):
            load([1.0, np.nan, 0.0, np.nan])

    def test_infinite(self) -> None:
        with pytest.raises(DataError, match=r"1 NaN or infinite value\(s\) \('item 0'\)"):
            load(np.array([[np.inf, 1.0], [0.0, 1.0]]))

    def test_non_numeric(self) -> None:
        with pytest.raises(
            DataError,
            match=r"`scores` has 1 non-numeric value\(s\): 'yes' at position 1; scores must be",
        ):
            load([1, "yes", 0])
        with pytest.raises(DataError, match=r"holds no numbers \(dtype <U"):
            load(np.array(["a", "b"]))
        with pytest.raises(DataError, match=r"non-numeric value\(s\): None at position 1"):
            load([1, None, 0])

    def test_empty(self) -> None:
        with pytest.raises(DataError, match="`scores` is empty"):
            load(np.array([]))

    def test_bad_shape(self) -> None:
        with pytest.raises(DataError, match=r"got an array of shape \(2, 2, 2\)"):
            load(np.zeros((2, 2, 2)))

    def test_ragged_nested_sequence(self) -> None:
        with pytest.raises(DataError, match=r"runs have different lengths \(2, 3\)"):
            load([[1, 0, 1], [1, 0]])
        with pytest.raises(DataError, match="mixes scores and lists of scores"):
            load([1, [0, 1]])

    def test_unsupported_type(self) -> None:
        with pytest.raises(DataError, match="`scores` is a set; pass an array"):
            load({1, 0})


class TestMappings:
    def test_scores_by_id(self) -> None:
        t = load({"q1": 1, "q2": 0, "q3": True})
        assert list(t.item_ids) == ["q1", "q2", "q3"]  # type: ignore[arg-type]
        assert t.binary

    def test_runs_by_id_may_be_ragged(self) -> None:
        t = load({"q1": [1, 0, 1], "q2": [1], "q3": [0, 0]})
        assert t.ragged
        np.testing.assert_array_equal(t.counts, [3, 1, 2])
        np.testing.assert_allclose(t.means, [2 / 3, 1, 0])
        assert "ragged: 1-3 runs per item" in t.runs_summary()

    def test_bad_values(self) -> None:
        with pytest.raises(
            DataError, match=r"`scores` has 1 non-numeric value\(s\): 'C' at key 'q2'"
        ):
            load({"q1": 1, "q2": "C"})
        with pytest.raises(DataError, match=r"\[\'q2\'\] is an empty list of run scores"):
            load({"q1": [1], "q2": []})
        with pytest.raises(
            DataError, match=r"`scores` has 1 NaN value\(s\) \(\"item 'q1' \(key 'q1'\)\"\)"
        ):
            load({"q1": float("nan"), "q2": 1.0})


class TestDataFrames:
    def test_long_format_with_runs_and_clusters(self) -> None:
        df = pd.DataFrame(
            {
                "question_id": ["a", "a", "b", "b", "c", "c"],
                "epoch": [1, 2, 1, 2, 1, 2],
                "correct": [1, 0, 1, 1, 0, 0],
                "subject": ["x", "x", "y", "y", "y", "y"],
            }
        )
        t = load(df, cluster_column="subject")
        assert (t.n_items, t.n_runs) == (3, 2)
        np.testing.assert_allclose(t.means, [0.5, 1.0, 0.0])
        assert list(t.clusters) == ["x", "y", "y"]  # type: ignore[arg-type]
        assert t.notes == (
            "`scores`: detected columns: item id 'question_id', score 'correct', run 'epoch'",
        )

    def test_duplicate_item_run(self) -> None:
        df = pd.DataFrame({"item": ["a", "a", "b"], "run": [1, 1, 1], "score": [1, 0, 1]})
        with pytest.raises(
            DataError,
            match=r"1 \(item, run\) pair\(s\) appear more than once: \(item 'a', run '1'\)",
        ):
            load(df)

    def test_repeated_ids_without_run_column(self) -> None:
        df = pd.DataFrame({"item": ["a", "a", "b"], "score": [1, 0, 1]})
        with pytest.raises(
            DataError, match=r"1 item\(s\) appear on several rows \('a'\) but no run"
        ):
            load(df)

    def test_cluster_differs_between_runs_of_an_item(self) -> None:
        df = pd.DataFrame({"item": ["a", "a"], "run": [1, 2], "score": [1, 0], "topic": ["x", "y"]})
        with pytest.raises(DataError, match=r"more than one cluster label across runs \('a'\)"):
            load(df, cluster_column="topic")

    def test_missing_id(self) -> None:
        df = pd.DataFrame({"item": ["a", None], "score": [1, 0]})
        with pytest.raises(DataError, match=r"column 'item' is empty on 1 row\(s\) \('row 2'\)"):
            load(df)

    def test_missing_and_ambiguous_columns(self) -> None:
        df = pd.DataFrame({"q": ["a"], "score": [1]})
        with pytest.raises(
            DataError, match="no column is recognisably the item id column; name it"
        ):
            load(df)
        df = pd.DataFrame({"id": ["a"], "item": ["a"], "score": [1]})
        with pytest.raises(
            DataError, match=r"several columns could be the item id column.*'item', 'id'"
        ):
            load(df)
        with pytest.raises(DataError, match=r"no column 'points' \(the score column\)"):
            load(pd.DataFrame({"item": ["a"], "score": [1]}), score_column="points")

    def test_series(self) -> None:
        t = load(pd.Series([1, 0, 1], index=["a", "b", "c"]))
        assert list(t.item_ids) == ["a", "b", "c"]  # type: ignore[arg-type]
