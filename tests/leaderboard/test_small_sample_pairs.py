"""Leaderboard pairs with several runs on few items are tested as `compare` tests them:
the t-test on per-item means with Agresti-Min pseudo-items, to the last digits."""

from __future__ import annotations

import numpy as np
import pytest

from evalsig import compare
from evalsig.data import load
from evalsig.data.models import model_scores
from evalsig.inference.allpairs import pair_sums, pair_tests
from evalsig.leaderboard import leaderboard
from evalsig.power import benchmark_resolution


def _runs(rng: np.random.Generator, n_items: int, n_runs: int, m: int) -> dict[str, np.ndarray]:
    """``runs x items`` 0/1 arrays of ``m`` models of different skill on shared items."""
    ease = rng.beta(2, 2, n_items)
    return {
        f"model-{k}": (rng.random((n_runs, n_items)) < np.clip(ease + 0.04 * k, 0, 1)).astype(int)
        for k in range(m)
    }


def _assert_pairs_match_compare(board: object, data: dict[str, np.ndarray]) -> None:
    models = board.models  # type: ignore[attr-defined]
    for i, a in enumerate(models):
        for j, b in enumerate(models):
            if i < j:
                oracle = compare(data[b], data[a])
                assert board.difference[i, j] == pytest.approx(oracle.estimate, rel=1e-12)  # type: ignore[attr-defined]
                assert board.pvalue[i, j] == pytest.approx(oracle.pvalue, rel=1e-9)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("n_items", "method"), [(40, "paired-t-adjusted"), (1200, "paired-t")])
def test_several_runs_on_few_items_take_compares_pseudo_items(n_items: int, method: str) -> None:
    data = _runs(np.random.default_rng(n_items), n_items, 3, 4)
    assert compare(data["model-0"], data["model-1"]).method == method
    board = leaderboard(data)
    assert board.method == method
    _assert_pairs_match_compare(board, data)


def test_a_board_of_some_single_run_models_says_which_pairs_are_adjusted() -> None:
    rng = np.random.default_rng(3)
    data: dict[str, np.ndarray] = dict(_runs(rng, 60, 2, 2))
    data["one-run-a"] = rng.random(60).round(2)  # continuous, one run: the plain t
    data["one-run-b"] = rng.random(60).round(2)
    board = leaderboard(data)
    assert board.method == "paired-t"
    assert any("5 of 6 pairs" in note and "Agresti-Min" in note for note in board.notes)
    _assert_pairs_match_compare(board, data)


def test_scores_outside_the_unit_interval_keep_the_plain_t() -> None:
    data = {k: v * 3.0 for k, v in _runs(np.random.default_rng(5), 50, 3, 3).items()}
    assert compare(data["model-0"], data["model-1"]).method == "paired-t"
    board = leaderboard(data)
    assert board.method == "paired-t"
    _assert_pairs_match_compare(board, data)


def test_without_run_counts_every_pair_takes_the_plain_t() -> None:
    scores = model_scores(
        {k: load(v) for k, v in _runs(np.random.default_rng(6), 30, 4, 3).items()}
    )
    b, c = np.array([0, 0, 1]), np.array([1, 2, 2])
    sums = pair_sums(scores.scores)
    plain = pair_tests(sums, b, c, binary=False, clustered=False)
    assert plain.method == "paired-t"
    assert plain.n_adjusted == 0
    assert np.all(plain.df == 29)


def test_benchmark_resolution_tests_pairs_as_the_board_does() -> None:
    data = _runs(np.random.default_rng(7), 80, 3, 3)
    scores = model_scores({k: load(v) for k, v in data.items()})
    view = benchmark_resolution(scores, pairs="all", correction="holm")
    for row in view.to_dict()["pairs"]:
        oracle = compare(data[row["baseline"]], data[row["candidate"]])
        assert row["pvalue"] == pytest.approx(oracle.pvalue, rel=1e-9)
