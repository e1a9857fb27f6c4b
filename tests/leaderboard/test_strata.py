"""A leaderboard over strata: every pair's test and every score's interval equal
``compare(strata=...)`` and ``score(strata=...)`` run one pair (one model) at a time, and
the MMLU-Pro board with ``--strata category`` against its plain and clustered boards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.errors import DataError
from evalsig.leaderboard import leaderboard
from evalsig.score import score


def _long(seed: int = 0, models: int = 5) -> pd.DataFrame:
    """0/1 scores of a few models on 240 items in 4 subjects of unequal size."""
    rng = np.random.default_rng(seed)
    sizes = [30, 50, 70, 90]
    subject = np.repeat(["law", "history", "math", "physics"], sizes)
    ease = np.repeat([0.35, 0.55, 0.7, 0.8], sizes)
    rows = []
    for k in range(models):
        p = np.clip(ease + 0.03 * k + rng.normal(0, 0.05, 240), 0, 1)
        rows.append(
            pd.DataFrame(
                {
                    "model": f"m{k}",
                    "item": [f"q{i}" for i in range(240)],
                    "subject": subject,
                    "correct": (rng.random(240) < p).astype(int),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_every_pair_and_score_is_that_of_compare_and_score() -> None:
    table = _long()
    board = leaderboard(table, strata="subject", id_column="item", score_column="correct")
    assert board.method == "stratified"
    assert board.score_method == "stratified"
    sides = {
        name: table[table["model"] == name].drop(columns="model").set_index("item")
        for name in board.models
    }
    for a, first in enumerate(board.models):
        strata = dict(sides[first]["subject"])
        alone = score(dict(sides[first]["correct"]), strata=strata)
        assert board.score_low[a] == pytest.approx(alone.ci.low, rel=1e-10)
        assert board.score_high[a] == pytest.approx(alone.ci.high, rel=1e-10)
        for b, second in enumerate(board.models):
            if a == b:
                continue
            pair = compare(
                dict(sides[second]["correct"]), dict(sides[first]["correct"]), strata=strata
            )
            assert pair.method == "stratified-proportional"
            assert board.difference[a, b] == pytest.approx(pair.estimate, rel=1e-10, abs=1e-15)
            assert board.pvalue[a, b] == pytest.approx(pair.p_value, rel=1e-8)
    assert any("4 strata (sizes 30 to 90)" in note for note in board.notes)


def test_stratified_weights_keep_each_stratum_and_one_stratum_is_the_plain_draw() -> None:
    from evalsig.inference.ranking import unit_weights

    strata = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0, 2])
    w = unit_weights(np.random.default_rng(4), 10, 300, strata)
    for h in range(3):
        assert (w[strata == h].sum(axis=0) == (strata == h).sum()).all()
    plain = unit_weights(np.random.default_rng(5), 10, 300)
    assert np.array_equal(unit_weights(np.random.default_rng(5), 10, 300, np.zeros(10, int)), plain)


def test_the_stratified_bootstrap_variance_is_cochrans() -> None:
    """Over 4,000 draws the variance of a bootstrapped mean is within 8% of the stratified
    variance sum_h (n_h / n)^2 s_h^2 / n_h, s_h^2 each stratum's variance about its own
    mean (divisor n_h, as the bootstrap draws from the stratum); the unstratified bootstrap
    adds the variance between the strata's means."""
    from evalsig.inference.ranking import unit_weights

    rng = np.random.default_rng(8)
    strata = np.repeat(np.arange(4), [30, 50, 70, 90])
    x = np.repeat([0.2, 0.5, 0.7, 0.9], [30, 50, 70, 90]) + rng.normal(0, 0.2, 240)
    means = x @ unit_weights(np.random.default_rng(9), 240, 4000, strata) / 240
    cochran = sum(
        (np.sum(strata == h) / 240) ** 2 * np.var(x[strata == h]) / np.sum(strata == h)
        for h in range(4)
    )
    assert means.var() == pytest.approx(cochran, rel=0.08)
    plain = x @ unit_weights(np.random.default_rng(9), 240, 4000) / 240
    assert plain.var() == pytest.approx(np.var(x) / 240, rel=0.08)
    assert np.var(x) / 240 > 2 * cochran  # the between-strata variance the strata leave out


def test_a_stratified_board_resamples_items_within_strata() -> None:
    """The board hands its bootstrap each item's stratum, in the order of its items."""
    from evalsig.distributed import Executor

    given: list[np.ndarray | None] = []

    class Recording(Executor):
        def bootstrap_ranks(self, *args: object, **kwargs: object) -> np.ndarray:
            given.append(kwargs.get("strata"))  # type: ignore[arg-type]
            return super().bootstrap_ranks(*args, **kwargs)  # type: ignore[arg-type]

    table = _long(2)
    board = leaderboard(
        table,
        strata="subject",
        id_column="item",
        score_column="correct",
        rng=3,
        n_resamples=400,
        executor=Recording(),
    )
    assert any("resamples of items within each of the 4 strata" in n for n in board.notes)
    (codes,) = given
    assert codes is not None
    subject = table.drop_duplicates("item")["subject"].to_numpy()  # items in the table's order
    pairs = set(zip(codes.tolist(), subject.tolist(), strict=True))
    assert len(pairs) == len(set(subject)) == len(set(codes.tolist())) == 4  # one code a subject
    plain = leaderboard(table, id_column="item", score_column="correct", rng=3, n_resamples=400)
    assert any("resamples of items," in n for n in plain.notes)


def test_refusals() -> None:
    table = _long(1)
    with pytest.raises(DataError, match="not both"):
        leaderboard(table, strata="subject", cluster_column="subject", score_column="correct")
    with pytest.raises(DataError, match="have none"):
        leaderboard(table.drop(columns="subject"), strata=True, score_column="correct")
    lonely = table.copy()
    lonely.loc[lonely["item"] == "q0", "subject"] = "alone"
    with pytest.raises(DataError, match="stratum 'alone' has 1 item"):
        leaderboard(lonely, strata="subject", id_column="item", score_column="correct")


@pytest.mark.shared_data
def test_mmlu_pro_by_category(shared_data: Path) -> None:
    """The 29-model MMLU-Pro board: with its 14 categories as strata the adjacent pairs it
    separates are those of the plain board (the categories' variance between them is
    small next to the items'); taking them as clusters separates none (CR2 over 14
    clusters, Holm over 406 pairs)."""
    table = shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz"
    common = [str(table), "--id", "question_id", "--score", "correct", "--format", "json"]
    common += ["--on-missing", "intersect", "--on-mismatch", "exclude"]
    boards = {}
    runner = CliRunner()
    for name, extra in (
        ("plain", []),
        ("strata", ["--strata", "category"]),
        ("clusters", ["--cluster", "category"]),
    ):
        result = runner.invoke(app, ["leaderboard", *common, *extra])
        assert result.exit_code == 0, result.output
        boards[name] = json.loads(result.stdout)
    assert boards["strata"]["method"] == "stratified"
    assert boards["strata"]["n_separated_adjacent"] >= boards["plain"]["n_separated_adjacent"] - 1
    assert boards["clusters"]["n_separated_adjacent"] == 0
    assert any("14 strata" in note for note in boards["strata"]["notes"])
