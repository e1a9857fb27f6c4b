"""Leaderboards: pairwise tests against compare(), rank intervals, calibration, real data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalsig import compare
from evalsig.data import load
from evalsig.data.models import ModelScores, load_models, model_scores
from evalsig.errors import AlignmentError, DataError
from evalsig.leaderboard import leaderboard, leaderboard_tasks, rank_intervals, tie_groups


def _binary(rng: np.random.Generator, accuracies: list[float], n: int) -> ModelScores:
    ids = [f"q{i}" for i in range(n)]
    ease = rng.normal(0, 1.0, n)  # shared item difficulty: paired outcomes correlate
    tables = {}
    for k, acc in enumerate(accuracies):
        p = stats.norm.cdf(stats.norm.ppf(acc) * np.sqrt(2) + ease)
        tables[f"model-{k}"] = load(dict(zip(ids, (rng.random(n) < p).astype(int), strict=True)))
    return model_scores(tables)


def test_pairs_match_compare() -> None:
    rng = np.random.default_rng(0)
    scores = _binary(rng, [0.5, 0.52, 0.55, 0.6], 600)
    board = leaderboard(scores)
    for i in range(4):
        for j in range(i + 1, 4):
            a, b = board.models[i], board.models[j]
            x = scores.scores[scores.names.index(b)]
            y = scores.scores[scores.names.index(a)]
            result = compare(x, y)
            assert board.difference[i, j] == pytest.approx(result.estimate)
            assert board.pvalue[i, j] == pytest.approx(result.pvalue, rel=1e-9)
            assert board.pvalue[j, i] == board.pvalue[i, j]
            assert board.difference[j, i] == -board.difference[i, j]


def test_continuous_and_clustered_pairs_match_compare() -> None:
    rng = np.random.default_rng(1)
    n, clusters = 300, np.repeat(np.arange(10), 30)
    base = rng.normal(0, 1, n)
    data = {f"m{k}": base + rng.normal(0.05 * k, 0.5, n) for k in range(3)}
    for cluster in (None, clusters):
        tables = {}
        for name, values in data.items():
            table = load({f"q{i}": v for i, v in enumerate(values)})
            if cluster is not None:
                from dataclasses import replace

                table = replace(table, clusters=np.array([f"c{c}" for c in cluster]))
            tables[name] = table
        board = leaderboard(model_scores(tables))
        for i in range(3):
            for j in range(i + 1, 3):
                x = data[board.models[j]]
                y = data[board.models[i]]
                result = compare(x, y, cluster=None if cluster is None else list(cluster))
                assert board.pvalue[i, j] == pytest.approx(result.pvalue, rel=1e-7)
                assert board.method == ("paired-t" if cluster is None else "cluster")


def test_rank_intervals_and_groups_follow_the_tests() -> None:
    rng = np.random.default_rng(2)
    board = leaderboard(_binary(rng, [0.3, 0.45, 0.5, 0.51, 0.7], 800))
    sig = board.p_adjusted <= board.alpha
    better = sig & (board.difference > 0)
    low, high = rank_intervals(better)
    assert np.array_equal(low, board.rank_low)
    assert np.array_equal(high, board.rank_high)
    assert all(low[k] <= k + 1 <= high[k] for k in range(5))
    assert [list(g) for g in board.groups] == tie_groups(range(5), sig)
    for group in board.groups:  # every member is inseparable from its leader
        assert all(not sig[group[0], k] for k in group)


def test_intervals_contain_the_true_ranks_at_the_stated_rate() -> None:
    """Known true order with near-ties: all true ranks inside their intervals at once in
    at least 95% of boards (Holm, alpha 0.05); seeded, count pinned."""
    truth = [0.45, 0.50, 0.51, 0.52, 0.60, 0.61, 0.70, 0.70]
    true_rank_low = {k: 1 + sum(t > truth[k] for t in truth) for k in range(8)}
    true_rank_high = {k: sum(t >= truth[k] for t in truth) for k in range(8)}
    rng = np.random.default_rng(2026)
    sims, covered = 200, 0
    for _ in range(sims):
        board = leaderboard(_binary(rng, truth, 500))
        ok = True
        for pos, name in enumerate(board.models):
            k = int(name.split("-")[1])
            # a tied true rank may be any rank of its tie: it must overlap the interval
            if board.rank_high[pos] < true_rank_low[k] or board.rank_low[pos] > true_rank_high[k]:
                ok = False
        covered += ok
    assert covered >= stats.binom.ppf(0.001, sims, 0.95)
    assert covered == 200


def test_bootstrap_ranks_are_seeded_and_bracket_the_rank() -> None:
    scores = _binary(np.random.default_rng(3), [0.4, 0.5, 0.6], 400)
    one = leaderboard(scores, n_resamples=500, rng=7)
    two = leaderboard(scores, n_resamples=500, rng=7)
    assert one.bootstrap_low is not None
    assert one.bootstrap_high is not None
    assert np.array_equal(one.bootstrap_low, two.bootstrap_low)
    assert all(one.bootstrap_low[k] <= k + 1 <= one.bootstrap_high[k] for k in range(3))
    assert one.to_dict()["rows"][0]["bootstrap_rank_low"] == 1


def test_adjacent_resolution_uses_connor() -> None:
    from evalsig.power import mcnemar_sample_size

    scores = _binary(np.random.default_rng(4), [0.5, 0.53], 1000)
    board = leaderboard(scores)
    x, y = (scores.scores[scores.names.index(m)] for m in board.models[::-1])
    d = y - x
    n_star = mcnemar_sample_size(np.mean(d > 0), np.mean(d < 0)).n
    assert board.adjacent_q[0] == pytest.approx(1000 / n_star)


def test_multi_task_aggregate_keeps_the_pairing() -> None:
    rng = np.random.default_rng(5)
    tasks = {t: _binary(rng, [0.5, 0.55, 0.6], 400 + 100 * i) for i, t in enumerate("abc")}
    result = leaderboard_tasks(tasks)
    agg = result.aggregate
    i, j = agg.models.index("model-2"), agg.models.index("model-0")
    diffs, variances = [], []
    for scores in tasks.values():
        x = scores.scores[scores.names.index("model-0")]
        y = scores.scores[scores.names.index("model-2")]
        c = compare(x, y)
        diffs.append(c.estimate)
        variances.append(c.se**2)
    estimate = np.mean(diffs)
    se = np.sqrt(np.sum(variances)) / 3
    assert agg.difference[i, j] == pytest.approx(estimate)
    assert agg.pvalue[i, j] == pytest.approx(2 * stats.norm.sf(abs(estimate / se)))
    assert set(result.tasks) == {"a", "b", "c"}
    json.dumps(result.to_dict(), allow_nan=False)


def test_errors() -> None:
    scores = _binary(np.random.default_rng(6), [0.5, 0.6], 100)
    with pytest.raises(DataError, match="correction"):
        leaderboard(scores, correction="bonferroni")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="n_resamples"):
        leaderboard(scores, n_resamples=-1)
    other = _binary(np.random.default_rng(7), [0.5, 0.6, 0.7], 100)
    with pytest.raises(DataError, match="same models"):
        leaderboard_tasks({"a": scores, "b": other})


@pytest.mark.shared_data
def test_mmlu_pro_leaderboard(shared_data: Path) -> None:
    """29 models; three lack questions and 33 questions carry a revised gold answer in some
    models' rows (data/README.md): the board stops until told what to do, then ranks every
    model on the questions all of them have with the same gold answer."""
    path = shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz"
    columns = {"id_column": "question_id", "score_column": "correct"}
    with pytest.raises(AlignmentError, match="3 of 29 models lack some of the 12032 items"):
        load_models(path, **columns)
    with pytest.raises(AlignmentError, match=r"32 item\(s\) have a different content key"):
        load_models(path, on_missing="intersect", **columns)
    scores = load_models(path, on_missing="intersect", on_mismatch="exclude", **columns)
    assert scores.scores.shape == (29, 12_032 - 1_706 - 32)  # 10,326 shared, 32 revised
    board = leaderboard(scores)
    assert board.n_models == 29
    assert board.method == "mcnemar"
    assert board.models[0] == "gemini-1.5-pro-002_5shots"
    assert set(board.n_items.tolist()) == {10_294}
    n_input = dict(zip(board.models, board.n_input.tolist(), strict=True))
    assert n_input["DeepSeek-Coder-V2_5shots"] == 10_351
    assert n_input["gemini-1.5-flash-002_5shots"] == 12_012
    assert board.n_mismatched == 32
    d = board.to_dict()
    assert d["n_pairs"] == 406
    # Raw means put DeepSeek-Coder-V2 (10,351 questions) above Llama-3.1-70B-Instruct, which
    # beats it on the questions both have; on the shared questions the order is right.
    assert board.models.index("Meta-Llama-3_1-70B-Instruct_5shots") < board.models.index(
        "DeepSeek-Coder-V2_5shots"
    )
    for better, worse in (
        ("Meta-Llama-3_1-8B-Instruct_5shots", "Meta-Llama-3_1-8B_5shots"),
        ("Meta-Llama-3_1-70B-Instruct_5shots", "DeepSeek-Coder-V2_5shots"),
    ):
        i, j = board.models.index(better), board.models.index(worse)
        oracle = compare(
            scores.scores[scores.names.index(worse)], scores.scores[scores.names.index(better)]
        )
        assert board.difference[i, j] == pytest.approx(oracle.estimate, rel=1e-12)
        assert board.pvalue[i, j] == pytest.approx(oracle.pvalue, rel=1e-9)
    assert 1 <= board.n_separated_adjacent < 28  # a strict order is not supported
    assert len(board.groups) < 29


@pytest.mark.shared_data
def test_alpaca_eval_leaderboard(shared_data: Path) -> None:
    """58 models' continuous preferences against one baseline; two models' rows are
    duplicated in the long table, which evalsig refuses until the user drops them."""
    pd = pytest.importorskip("pandas")
    path = shared_data / "alpaca_eval" / "alpaca_eval_weighted_long.csv.gz"
    with pytest.raises(DataError, match="appear on several rows"):
        load_models(path, model_column="generator_2", id_column="idx", score_column="preference")
    frame = pd.read_csv(path).drop_duplicates()
    frame["win"] = frame["preference"] - 1.0
    columns = {
        "model_column": "generator_2",
        "id_column": "idx",
        "score_column": "win",
        "cluster_column": "dataset",
    }
    # six models lack a few of the 805 instructions: not comparable as they stand
    with pytest.raises(AlignmentError, match="6 of 58 models lack some of the 805 items"):
        load_models(frame, **columns)
    scores = load_models(frame, on_missing="intersect", **columns)
    assert scores.n_models == 58
    assert scores.n_items == 797
    board = leaderboard(scores)
    assert board.method == "cluster"
    assert set(board.n_items.tolist()) == {797}
    assert dict(zip(board.models, board.n_input.tolist(), strict=True))["claude-2"] == 805
    # the 52 models with every instruction reproduce the published win rates
    complete = frame.groupby("generator_2")["idx"].transform("nunique") == 805
    full = leaderboard(frame[complete], **columns)
    assert full.n_models == 52
    published = pd.read_csv(shared_data / "alpaca_eval" / "leaderboard.csv", index_col="name")
    claude = full.models.index("claude-2")
    assert 100 * full.means[claude] == pytest.approx(published.loc["Claude 2", "win_rate"])


def test_results_match_their_schemas() -> None:
    import json as _json
    from importlib import resources

    from jsonschema import Draft202012Validator

    from evalsig.sequential import confidence_sequence

    def validator(name: str) -> Draft202012Validator:
        text = (resources.files("evalsig.report") / "schemas" / f"{name}.schema.json").read_text()
        return Draft202012Validator(_json.loads(text))

    rng = np.random.default_rng(8)
    tasks = {t: _binary(rng, [0.5, 0.55, 0.6], 300) for t in "ab"}
    board = leaderboard(tasks["a"], n_resamples=200, rng=1).to_dict()
    validator("leaderboard").validate(board)
    validator("leaderboard").validate(leaderboard_tasks(tasks).to_dict())
    broken = dict(board, method="vibes")
    assert list(validator("leaderboard").iter_errors(broken))
    validator("sequential").validate(confidence_sequence([0, 1, 0, 0, 1] * 40).to_dict())
    validator("sequential").validate(confidence_sequence([0.1, -0.1] * 50).to_dict())


def test_mapping_of_arrays_is_aligned_by_position() -> None:
    rng = np.random.default_rng(4)
    scores = {f"m{i}": (rng.random(200) < 0.4 + 0.1 * i).astype(float) for i in range(3)}
    board = leaderboard(scores)
    assert board.n_items.tolist() == [200, 200, 200]
    ids = [str(i) for i in range(200)]
    pd = pytest.importorskip("pandas")
    long = pd.DataFrame(
        [
            {"model": m, "id": i, "score": float(v)}
            for m, values in scores.items()
            for i, v in zip(ids, values, strict=True)
        ]
    )
    by_id = leaderboard(long, id_column="id", score_column="score")
    assert board.models == by_id.models
    np.testing.assert_array_equal(board.p_adjusted, by_id.p_adjusted)
    with pytest.raises(DataError, match=r"aligned by position.*'m0': 200, 'm1': 199"):
        leaderboard({"m0": scores["m0"], "m1": scores["m1"][:199]})
    from evalsig.data import load
    from evalsig.data.models import model_scores

    stacked = model_scores({name: load(values) for name, values in scores.items()})
    assert stacked.item_ids.tolist() == list(range(200))  # positions: no strings made


def test_report_chart_draws_rank_intervals_not_bare_scores() -> None:
    """The chart beside the table shows each model's rank interval, unsigned; a score
    without an interval of its own would be drawn as a zero-width, signed bar."""
    import re

    from evalsig.report.html import fragment

    rng = np.random.default_rng(3)
    board = leaderboard(
        {f"m{i}": (rng.random(500) < 0.4 + 0.1 * i).astype(float) for i in range(3)}
    )
    html = fragment(board.to_dict())
    shown = re.findall(r'class="value"[^>]*>([^<]+)<', html)
    expected = [
        f"{k + 1} [{lo}, {hi}]"
        for k, (lo, hi) in enumerate(zip(board.rank_low, board.rank_high, strict=True))
    ]
    assert shown == expected
    assert "rank intervals (1 = best)" in html
