"""Leaderboards pair models like compare(): shared items, content keys, clusters, seeds.

The oracle throughout is :func:`evalsig.compare` run on each pair of models restricted to
the items the leaderboard says it compared: the board's difference and p-value matrices
must equal it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalsig import compare
from evalsig.data import load
from evalsig.data.models import ModelScores, align_models, load_models, model_scores
from evalsig.data.provenance import without_time
from evalsig.data.table import ScoreTable
from evalsig.errors import AlignmentError, DataError
from evalsig.leaderboard import Leaderboard, leaderboard, leaderboard_tasks
from evalsig.report.leaderboard import as_markdown, as_text


def _table(
    scores: dict[str, float],
    keys: dict[str, str] | None = None,
    clusters: dict[str, str] | None = None,
) -> ScoreTable:
    table = load(scores)
    assert table.item_ids is not None
    ids = table.item_ids.tolist()
    if keys is not None:
        column = np.empty(len(ids), dtype=object)
        column[:] = [keys.get(i) for i in ids]
        table = replace(table, keys=column)
    if clusters is not None:
        table = replace(table, clusters=np.array([clusters[i] for i in ids], dtype=object))
    return table


def _models(
    rng: np.random.Generator,
    *,
    n_models: int = 4,
    n_items: int = 120,
    binary: bool = True,
    lacking: dict[int, int] | None = None,
) -> dict[str, dict[str, float]]:
    """Per-model {item: score}; model k lacks ``lacking[k]`` random items."""
    ease = rng.normal(0, 1, n_items)
    out = {}
    for k in range(n_models):
        raw = ease + rng.normal(0.15 * k, 1, n_items)
        values = (raw > 0.5).astype(float) if binary else raw
        keep = np.ones(n_items, dtype=bool)
        if lacking and k in lacking:
            keep[rng.choice(n_items, lacking[k], replace=False)] = False
        out[f"m{k}"] = {f"q{i}": float(values[i]) for i in np.flatnonzero(keep)}
    return out


def _assert_pairs_match_compare(
    board: Leaderboard, data: dict[str, dict[str, float]], items: list[str], **kwargs: object
) -> None:
    """Every pair of the board equals compare() on exactly ``items``."""
    for i, a in enumerate(board.models):
        for j, b in enumerate(board.models):
            if i >= j:
                continue
            oracle = compare(
                {q: data[b][q] for q in items},
                {q: data[a][q] for q in items},
                **kwargs,  # type: ignore[arg-type]
            )
            assert board.difference[i, j] == pytest.approx(oracle.estimate, rel=1e-12, abs=1e-15)
            assert board.pvalue[i, j] == pytest.approx(oracle.pvalue, rel=1e-9)


# --- items some models lack ----------------------------------------------------------------


def test_missing_items_are_an_error_that_names_each_model() -> None:
    data = _models(np.random.default_rng(0), lacking={1: 7, 3: 2})
    with pytest.raises(AlignmentError) as info:
        leaderboard(data)
    message = str(info.value)
    assert "2 of 4 models lack some of the 120 items" in message
    assert "'m1' lacks 7 (" in message
    assert "'m3' lacks 2 (" in message
    assert "on_missing='intersect' (CLI: --on-missing intersect)" in message
    shared = set.intersection(*(set(d) for d in data.values()))
    assert f"the {len(shared)} items all of them have" in message


@pytest.mark.parametrize("binary", [True, False])
def test_intersect_ranks_every_pair_on_the_items_all_models_have(binary: bool) -> None:
    data = _models(np.random.default_rng(1), binary=binary, lacking={0: 9, 2: 4})
    board = leaderboard(data, on_missing="intersect")
    shared = sorted(set.intersection(*(set(d) for d in data.values())))
    assert board.method == ("mcnemar" if binary else "paired-t")
    assert set(board.n_items.tolist()) == {len(shared)}
    n_input = dict(zip(board.models, board.n_input.tolist(), strict=True))
    assert n_input == {name: len(d) for name, d in data.items()}
    _assert_pairs_match_compare(board, data, shared)
    # the ranking is by the means on the shared items, not on each model's own items
    own = {name: np.mean([data[name][q] for q in shared]) for name in data}
    assert list(board.models) == sorted(own, key=lambda n: -own[n])
    note = next(n for n in board.notes if n.startswith("on_missing='intersect'"))
    assert f"ranked on the {len(shared)} items all 4 models have (of 120)" in note
    assert f"m0 {111 - len(shared)} of 111" in note
    d = board.to_dict()
    assert d["on_missing"] == "intersect"
    assert {row["model"]: row["n_input"] for row in d["rows"]} == n_input


def test_the_drop_per_model_is_in_the_notes() -> None:
    data = _models(np.random.default_rng(2), n_models=6, lacking={5: 10})
    scores = load_models(data, on_missing="intersect")
    (note,) = [n for n in scores.notes if n.startswith("on_missing=")]
    # five models lose the ten items m5 lacks; m5 loses none
    assert "5 models 10 of 120 each ('m0', 'm1', ...)" in note
    assert "m5 0 of 110" in note
    assert scores.input_counts.tolist() == [120] * 5 + [110]


def test_too_few_shared_items_is_an_error() -> None:
    data = {"a": {"q1": 1.0, "q2": 0.0}, "b": {"q2": 1.0, "q3": 0.0}}
    with pytest.raises(AlignmentError, match=r"share only 1 item\(s\) of 3"):
        leaderboard(data, on_missing="intersect")


def test_hand_built_scores_with_gaps_are_checked_too() -> None:
    scores = ModelScores(
        names=("a", "b"),
        item_ids=np.array(["q1", "q2", "q3", "q4"]),
        scores=np.array([[1.0, 0.0, 1.0, 1.0], [1.0, np.nan, 0.0, 0.0]]),
        binary=True,
        n_runs=(1, 1),
    )
    with pytest.raises(AlignmentError, match="'b' lacks 1 \\('q2'\\)"):
        leaderboard(scores)
    board = leaderboard(scores, on_missing="intersect")
    assert board.n_items.tolist() == [3, 3]
    assert sorted(board.n_input.tolist()) == [3, 4]


def test_bad_policies_are_refused() -> None:
    data = _models(np.random.default_rng(3))
    with pytest.raises(DataError, match="`on_missing` must be 'error' or 'intersect'"):
        leaderboard(data, on_missing="union")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="`on_mismatch` must be 'error', 'exclude' or 'keep'"):
        leaderboard(data, on_mismatch="ignore")  # type: ignore[arg-type]


# --- content keys --------------------------------------------------------------------------


def _keyed(rng: np.random.Generator) -> tuple[dict[str, dict[str, float]], dict[str, ScoreTable]]:
    """Four models; m2 and m3 used a revised key for q3 and q7; m3 has no key for q9."""
    data = _models(rng, n_items=80)
    gold = {f"q{i}": "ABCD"[i % 4] for i in range(80)}
    tables = {}
    for name, scores in data.items():
        keys = dict(gold)
        if name in ("m2", "m3"):
            keys["q3"], keys["q7"] = "Z", "Y"
        if name == "m3":
            del keys["q9"]  # no key is never a difference
        tables[name] = _table(scores, keys)
    return data, tables


def test_a_changed_content_key_is_an_error() -> None:
    _, tables = _keyed(np.random.default_rng(4))
    with pytest.raises(AlignmentError) as info:
        model_scores(tables)
    message = str(info.value)
    assert message.startswith("2 item(s) have a different content key")
    assert "'q3': 'D' in 'm0' and 'm1' vs 'Z' in 'm2' and 'm3'" in message
    assert "the models fall into 2 groups that agree on those items" in message
    assert "on_mismatch='exclude' (CLI: --on-mismatch exclude)" in message
    with pytest.raises(AlignmentError, match="different content key"):
        leaderboard(tables)


def test_exclude_drops_the_item_for_every_model() -> None:
    data, tables = _keyed(np.random.default_rng(5))
    board = leaderboard(tables, on_mismatch="exclude")
    items = [f"q{i}" for i in range(80) if i not in (3, 7)]
    assert board.n_mismatched == 2
    assert set(board.n_items.tolist()) == {78}
    assert set(board.n_input.tolist()) == {80}
    _assert_pairs_match_compare(board, data, items)
    assert any("excluded them for every model (on_mismatch='exclude')" in n for n in board.notes)
    assert board.to_dict()["n_mismatched"] == 2


def test_keep_compares_them_and_says_so() -> None:
    data, tables = _keyed(np.random.default_rng(6))
    board = leaderboard(tables, on_mismatch="keep")
    assert board.n_mismatched == 2
    assert set(board.n_items.tolist()) == {80}
    _assert_pairs_match_compare(board, data, [f"q{i}" for i in range(80)])
    assert any("compared them anyway (on_mismatch='keep')" in n for n in board.notes)


def test_the_pairwise_check_agrees_with_compare() -> None:
    """compare() on two of the tables raises exactly when the board sees their keys differ."""
    _, tables = _keyed(np.random.default_rng(7))
    with pytest.raises(AlignmentError, match=r"2 item\(s\) have a different content key"):
        compare(tables["m0"], tables["m3"])
    compare(tables["m2"], tables["m3"])  # the same revised key: no mismatch
    board = leaderboard({k: tables[k] for k in ("m2", "m3")})
    assert board.n_mismatched == 0


def test_mismatches_on_items_already_dropped_are_not_counted() -> None:
    data = _models(np.random.default_rng(8), n_models=3, n_items=40)
    del data["m0"]["q5"]
    keys = {"m0": {}, "m1": {"q5": "A"}, "m2": {"q5": "B"}}
    tables = {name: _table(scores, keys[name]) for name, scores in data.items()}
    scores = model_scores(tables, on_missing="intersect")  # q5 goes, and its clash with it
    assert scores.n_mismatched == 0
    assert scores.n_items == 39


def test_aligning_twice_changes_nothing() -> None:
    _, tables = _keyed(np.random.default_rng(9))
    kept = model_scores(tables, on_mismatch="keep")
    again = align_models(kept)  # the accepted mismatches are not an error the second time
    assert again is kept
    board = leaderboard(kept)
    assert board.n_mismatched == 2
    assert board.on_mismatch == "keep"  # the choice that acted, not the default passed here
    assert sum("on_mismatch='keep'" in n for n in board.notes) == 1
    data = _models(np.random.default_rng(20), lacking={1: 4})
    assert leaderboard(load_models(data, on_missing="intersect")).on_missing == "intersect"
    assert leaderboard(load_models(data, on_missing="intersect")).to_dict()["on_missing"] == (
        "intersect"
    )


@given(st.integers(0, 2**32 - 1))
def test_item_order_does_not_matter(seed: int) -> None:
    """Reordering each model's items on its own gives the same board, bit for bit."""
    rng = np.random.default_rng(seed)
    data = _models(rng, n_models=3, n_items=30, binary=bool(seed % 2), lacking={1: 3})
    shuffled = {
        name: dict(sorted(items.items(), key=lambda _: rng.random()))
        for name, items in data.items()
    }
    one = leaderboard(data, on_missing="intersect")
    two = leaderboard(shuffled, on_missing="intersect")
    assert one.models == two.models
    assert np.array_equal(one.difference, two.difference)
    assert np.array_equal(one.pvalue, two.pvalue, equal_nan=True)
    assert np.array_equal(one.n_input, two.n_input)


# --- clusters ------------------------------------------------------------------------------


def test_one_cluster_is_an_error_that_says_what_would_help() -> None:
    data = _models(np.random.default_rng(10), n_items=60)
    tables = {n: _table(s, clusters=dict.fromkeys(s, "algebra")) for n, s in data.items()}
    with pytest.raises(DataError) as info:
        leaderboard(tables)
    message = str(info.value)
    assert "are all in one cluster ('algebra')" in message
    assert "needs at least 2 clusters" in message
    assert "leave the cluster column out if the items are independent" in message
    with pytest.raises(DataError, match="of task 'x' are all in one cluster"):
        leaderboard_tasks({"x": model_scores(tables), "y": model_scores(tables)})


def test_intersect_can_leave_one_cluster() -> None:
    """Clusters are counted on the compared items: dropping items can drop clusters."""
    data = _models(np.random.default_rng(11), n_models=3, n_items=60)
    for q in [f"q{i}" for i in range(30)]:
        del data["m1"][q]  # m1 lacks the whole first cluster
    labels = {f"q{i}": ("first" if i < 30 else "second") for i in range(60)}
    tables = {n: _table(s, clusters={q: labels[q] for q in s}) for n, s in data.items()}
    with pytest.raises(DataError, match="are all in one cluster \\('second'\\)"):
        leaderboard(tables, on_missing="intersect")


def test_clusters_follow_the_compared_items() -> None:
    data = _models(np.random.default_rng(12), n_models=3, n_items=90)
    labels = {f"q{i}": f"c{i // 10}" for i in range(90)}
    for q in [f"q{i}" for i in range(10)]:
        del data["m2"][q]  # cluster c0 is dropped for every model
    tables = {n: _table(s, clusters={q: labels[q] for q in s}) for n, s in data.items()}
    board = leaderboard(tables, on_missing="intersect", n_resamples=300, rng=1)
    items = [f"q{i}" for i in range(10, 90)]
    assert board.method == "cluster"
    assert "resamples of clusters" in " ".join(board.notes)
    _assert_pairs_match_compare(board, data, items, cluster=[labels[q] for q in items])


# --- the bootstrap's seed -----------------------------------------------------------------


def test_the_seed_is_drawn_recorded_and_reproduces_the_result() -> None:
    data = _models(np.random.default_rng(13), n_models=5, n_items=200)
    board = leaderboard(data, n_resamples=400)
    assert isinstance(board.seed, int)
    assert board.seed >= 0
    again = leaderboard(data, n_resamples=400, rng=board.seed)
    assert again.seed == board.seed
    assert without_time(again.to_dict()) == without_time(board.to_dict())
    other = leaderboard(data, n_resamples=400)
    assert other.seed != board.seed  # 128 bits of entropy: never the same twice
    d = board.to_dict()
    assert d["seed"] == board.seed
    assert json.loads(json.dumps(d, allow_nan=False))["seed"] == board.seed
    assert f"seed {board.seed}" in as_text(d)
    assert f"seed {board.seed} (rng= / --seed reproduces it)" in as_markdown(d)
    assert any(f"(seed {board.seed})" in n for n in board.notes)


def test_no_bootstrap_no_seed() -> None:
    d = leaderboard(_models(np.random.default_rng(14))).to_dict()
    assert d["seed"] is None
    assert d["nulls"]["seed"] == "no bootstrap"
    assert "Bootstrap" not in as_text(d)


def test_a_seed_sequence_is_recorded_when_it_can_be_rebuilt() -> None:
    data = _models(np.random.default_rng(15))
    board = leaderboard(data, n_resamples=200, rng=np.random.SeedSequence(99))
    assert board.seed == 99
    spawned = np.random.SeedSequence(99).spawn(1)[0]
    child = leaderboard(data, n_resamples=200, rng=spawned)
    assert child.seed is None
    assert "spawned" in child.to_dict()["nulls"]["seed"]
    with pytest.raises(DataError, match="`rng` must be a non-negative integer seed"):
        leaderboard(data, n_resamples=200, rng=-1)


# --- the result and its reports -----------------------------------------------------------


def test_reports_say_how_many_items_each_model_had_and_was_compared_on() -> None:
    data = _models(np.random.default_rng(16), lacking={2: 20})
    board = leaderboard(data, on_missing="intersect", n_resamples=200, rng=5)
    d = board.to_dict()
    text, markdown = as_text(d), as_markdown(d)
    assert "items compared (of input)" in text
    assert "100 of 120" in text
    assert "Items compared: 100 per model, of 100-120 in the inputs" in text
    assert "only the items every model has" in markdown
    html = board._repr_html_()
    assert "100 of 120" in html
    assert "seed 5" in html


def test_multi_task_aggregate_sums_inputs_and_applies_the_policy() -> None:
    rng = np.random.default_rng(17)
    a = _models(rng, n_models=3, n_items=50, lacking={1: 5})
    b = _models(rng, n_models=3, n_items=70)
    tasks = {"a": load_models(a, on_missing="intersect"), "b": load_models(b)}
    result = leaderboard_tasks(tasks)
    agg = result.aggregate
    assert dict(zip(agg.models, agg.n_input.tolist(), strict=True)) == {
        "m0": 120,
        "m1": 115,
        "m2": 120,
    }
    assert set(agg.n_items.tolist()) == {45 + 70}
    holed = tasks["a"].scores.copy()
    holed[0, 0] = np.nan  # hand-built scores with a gap: checked like read ones
    gaps = {"a": replace(tasks["a"], scores=holed, n_input=None), "b": tasks["b"]}
    with pytest.raises(AlignmentError, match="lack some of the 45 items"):
        leaderboard_tasks(gaps)
    assert leaderboard_tasks(gaps, on_missing="intersect").tasks["a"].n_items.tolist() == [44] * 3


def test_results_match_the_schema() -> None:
    from jsonschema import Draft202012Validator

    text = (resources.files("evalsig.report") / "schemas" / "leaderboard.schema.json").read_text()
    validator = Draft202012Validator(json.loads(text))
    data = _models(np.random.default_rng(18), lacking={0: 3})
    _, keyed = _keyed(np.random.default_rng(19))
    for result in (
        leaderboard(data, on_missing="intersect", n_resamples=200),
        leaderboard(keyed, on_mismatch="exclude"),
        leaderboard_tasks(
            {
                "a": load_models(keyed, on_mismatch="keep"),
                "b": model_scores(keyed, on_mismatch="exclude"),
            }
        ),
    ):
        validator.validate(result.to_dict())
    broken = leaderboard(data, on_missing="intersect").to_dict()
    del broken["rows"][0]["n_input"]
    assert list(validator.iter_errors(broken))
