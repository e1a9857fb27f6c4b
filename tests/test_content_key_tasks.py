"""Content keys that differ on most items mean different tasks, not a revised answer key
(issue 28): the error says so and offers no ``--on-mismatch keep``; a few differences
still offer it. One wording for two sides (compare, pass@k) and for many models
(leaderboard)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig import compare, pair
from evalsig.cli import app
from evalsig.cli.application import EXIT_DATA_ERROR
from evalsig.data import ScoreTable
from evalsig.data.models import model_scores
from evalsig.errors import AlignmentError

runner = CliRunner()


def _table(keys: list[str | None], seed: int = 0) -> ScoreTable:
    rng = np.random.default_rng(seed)
    n = len(keys)
    scores = (rng.random(n) < 0.5).astype(float)
    return ScoreTable(
        item_ids=np.array([f"q{i}" for i in range(n)], dtype=object),
        keys=np.array(keys, dtype=object),
        sums=scores,
        sumsq=scores,
        counts=np.ones(n, dtype=np.int64),
        binary=True,
        source="t",
    )


def _csv(path: Path, keys: list[str], seed: int) -> str:
    rng = np.random.default_rng(seed)
    path.write_text(
        "id,score,gold\n"
        + "".join(f"q{i},{int(rng.random() < 0.5)},{k}\n" for i, k in enumerate(keys))
    )
    return str(path)


def test_a_different_task_is_named_and_keep_is_not_offered(tmp_path: Path) -> None:
    a = _csv(tmp_path / "a.csv", [f"A{i}" for i in range(40)], 1)
    b = _csv(tmp_path / "b.csv", [f"B{i}" for i in range(40)], 2)
    result = runner.invoke(app, ["compare", a, b, "--key", "gold"])
    assert result.exit_code == EXIT_DATA_ERROR
    assert "40 of the 40 items whose content keys can be compared differ" in result.stderr
    assert "look like different tasks" in result.stderr
    assert "--on-mismatch" not in result.stderr
    assert "'keep'" not in result.stderr


def test_a_few_differences_still_offer_exclude_and_keep(tmp_path: Path) -> None:
    a = _csv(tmp_path / "a.csv", [f"A{i}" for i in range(40)], 1)
    b = _csv(tmp_path / "b.csv", [f"{'C' if i < 3 else 'A'}{i}" for i in range(40)], 2)
    result = runner.invoke(app, ["compare", a, b, "--key", "gold"])
    assert result.exit_code == EXIT_DATA_ERROR
    assert "--on-mismatch exclude" in result.stderr
    assert "'keep'" in result.stderr
    assert "different tasks" not in result.stderr


def test_keep_and_exclude_say_when_most_keys_differ() -> None:
    base, cand = _table([f"A{i}" for i in range(30)]), _table([f"B{i}" for i in range(30)], 1)
    kept = compare(base, cand, on_mismatch="keep")
    assert any("look like different tasks" in n for n in kept.notes)
    few = _table([f"{'B' if i < 2 else 'A'}{i}" for i in range(30)], 1)
    assert not any("different tasks" in n for n in compare(base, few, on_mismatch="keep").notes)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(
    n=st.integers(4, 40),
    differ=st.integers(0, 40),
    missing=st.integers(0, 10),
)
def test_the_task_message_follows_the_share_of_comparable_keys_that_differ(
    n: int, differ: int, missing: int
) -> None:
    differ, missing = min(differ, n), min(missing, n)
    base_keys: list[str | None] = [f"A{i}" for i in range(n)]
    cand_keys: list[str | None] = [f"B{i}" if i < differ else f"A{i}" for i in range(n)]
    for i in range(n - missing, n):  # the last items: no key on one side
        cand_keys[i] = None
    compared = n - missing
    different = sum(1 for i in range(compared) if i < differ)
    if not different:
        pair(_table(base_keys), _table(cand_keys, 1))
        return
    with pytest.raises(AlignmentError) as caught:
        pair(_table(base_keys), _table(cand_keys, 1))
    message = str(caught.value)
    most = 2 * different > compared
    assert ("different tasks" in message) == most
    assert ("on_mismatch='exclude'" in message) == (not most)


def test_many_models_share_the_rule() -> None:
    n = 30
    scores = {m: np.ones(n) for m in ("a", "b", "c")}
    ids = [f"q{i}" for i in range(n)]
    keys = {"a": [f"A{i}" for i in range(n)], "b": [f"B{i}" for i in range(n)]}
    keys["c"] = keys["a"]
    tables = {
        m: ScoreTable(
            item_ids=np.array(ids, dtype=object),
            keys=np.array(keys[m], dtype=object),
            sums=scores[m],
            sumsq=scores[m],
            counts=np.ones(n, dtype=np.int64),
            binary=True,
            source=m,
        )
        for m in scores
    }
    with pytest.raises(AlignmentError, match="look like different tasks") as caught:
        model_scores(tables)
    assert "on_mismatch='exclude'" not in str(caught.value)
