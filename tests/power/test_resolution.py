"""Resolution of one pair and of a whole benchmark, against plain-loop oracles and real data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from evalsig.data import load
from evalsig.data.build import factorize
from evalsig.data.models import ModelScores, load_models, model_scores
from evalsig.errors import DataError
from evalsig.inference.allpairs import design_effects, pair_sums
from evalsig.power import (
    benchmark_resolution,
    design_effect,
    mcnemar_sample_size,
    paired_t_sample_size,
    resolution,
    resolution_from_rates,
)
from evalsig.simulate import simulate_benchmark


def test_resolution_from_data_uses_the_observed_rates() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 3000)
    b = a.copy()
    flip = rng.choice(3000, 400, replace=False)
    b[flip[:220]] = 1 - b[flip[:220]]
    r = resolution(a, b)
    d = b - a
    p01, p10 = np.mean(d > 0), np.mean(d < 0)
    assert r.design == "mcnemar"
    assert r.inputs["p01"] == pytest.approx(p01)
    assert r.inputs["p10"] == pytest.approx(p10)
    assert r.n_required == pytest.approx(mcnemar_sample_size(p01, p10).n)
    assert r.q == pytest.approx(3000 / r.n_required)
    assert r.resolved == (r.q >= 1)
    assert r.detectable_effect is not None


def test_resolution_of_runs_uses_the_paired_t() -> None:
    bench = simulate_benchmark(n_items=2000, n_runs=4, uplift=0.02, rng=4)
    r = resolution(bench.baseline, bench.candidate)
    assert r.design == "paired-t"
    assert {"sd", "sd_between", "sd_within", "runs"} <= set(r.inputs)
    assert r.n_required == pytest.approx(paired_t_sample_size(r.effect, r.inputs["sd"]).n)


def test_clusters_inflate_n_star() -> None:
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(20), 100)
    skill = rng.normal(0, 0.15, 20)[g]
    a = (rng.random(2000) < 0.6).astype(int)
    b = (rng.random(2000) < 0.62 + skill).astype(int)
    r = resolution(a, b, cluster=g)
    deff = design_effect((b - a).astype(float), g)
    assert r.design_effect == pytest.approx(deff.design_effect)
    assert r.n_required_clustered == pytest.approx(r.n_required * deff.design_effect)
    assert r.q_clustered == pytest.approx(r.q / deff.design_effect)
    assert r.resolved == (r.q_clustered >= 1)


def test_resolution_from_rates_and_json() -> None:
    r = resolution_from_rates(4000, 0.075, 0.065)
    assert r.q == pytest.approx(4000 / 10986.073459814246)
    assert not r.resolved
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["kind"] == "resolution"
    assert d["resolved"] is False
    tie = resolution_from_rates(4000, 0.07, 0.07).to_dict()
    assert tie["n_required"] is None
    assert tie["q"] == 0.0
    assert "n_required" in tie["nulls"]
    assert "UNRESOLVED" in str(r)


# --- benchmark-level -----------------------------------------------------------------------


def _models(rng: np.random.Generator, m: int = 6, n: int = 900, g: int = 9) -> dict:
    clusters = np.repeat(np.arange(g), n // g)
    skill = rng.normal(0, 0.1, g)
    tables = {}
    for k in range(m):
        p = np.clip(0.5 + 0.02 * k + skill[clusters] * (k % 3), 0.01, 0.99)
        scores = (rng.random(n) < p).astype(float)
        keep = rng.random(n) > (0.05 if k == 2 else 0.0)  # one model lacks some items
        ids = np.array([f"q{i}" for i in range(n)])
        tables[f"model-{k}"] = {
            "item": ids[keep],
            "score": scores[keep],
            "subject": np.array([f"s{c}" for c in clusters])[keep],
        }
    return tables


def _scores(rng: np.random.Generator) -> ModelScores:
    """Six models, one lacking some items (NaN): each pair uses the items both have."""
    import pandas as pd

    tables = {
        name: load(pd.DataFrame(cols), cluster_column="subject", name=name)
        for name, cols in _models(rng).items()
    }
    # model_scores() refuses models with different items unless told to intersect them;
    # the resolution diagnostics accept the gaps, so stack the tables by item id here.
    ids = np.array([f"q{i}" for i in range(900)])
    where = {item: i for i, item in enumerate(ids.tolist())}
    matrix = np.full((len(tables), len(ids)), np.nan)
    subjects = np.empty(len(ids), dtype=object)
    for row, table in enumerate(tables.values()):
        assert table.item_ids is not None
        assert table.clusters is not None
        columns = [where[item] for item in table.item_ids.tolist()]
        matrix[row, columns] = table.means
        subjects[columns] = table.clusters
    codes, labels = factorize(subjects)
    return ModelScores(
        names=tuple(tables),
        item_ids=ids,
        scores=matrix,
        binary=True,
        n_runs=(1,) * len(tables),
        cluster_codes=codes,
        cluster_labels=labels,
    )


def test_benchmark_matches_a_plain_loop() -> None:
    scores = _scores(np.random.default_rng(2))
    result = benchmark_resolution(scores, pairs="all")
    assert len(result.pairs) == 15
    names = list(scores.names)
    for p in result.pairs:
        b, c = scores.scores[names.index(p.baseline)], scores.scores[names.index(p.candidate)]
        both = ~np.isnan(b) & ~np.isnan(c)
        d = c[both] - b[both]
        assert p.n_items == both.sum()
        assert p.p01 == pytest.approx(np.mean(d > 0))
        assert p.p10 == pytest.approx(np.mean(d < 0))
        assert p.effect == pytest.approx(d.mean())
        assert p.sd == pytest.approx(d.std(ddof=1))
        expected = mcnemar_sample_size(np.mean(d > 0), np.mean(d < 0)).n
        assert p.n_required == pytest.approx(expected)
        deff = design_effect(d, scores.cluster_codes[both])
        assert p.design_effect == pytest.approx(deff.design_effect)
        assert p.icc == pytest.approx(deff.icc if deff.design_effect > 1 else p.icc)
    means = np.array(result.means)
    assert np.all(np.diff(means) <= 0)  # ranked best first


def test_bootstrap_weights_equal_duplicated_clusters() -> None:
    """A resample's weighted statistics equal those of the data with clusters copied."""
    scores = _scores(np.random.default_rng(3))
    stats_g = pair_sums(scores.scores, scores.cluster_codes)
    w = np.array([2.0, 0, 1, 0, 3, 1, 0, 1, 1])
    b, c = np.array([0, 1]), np.array([3, 4])
    deff, icc = design_effects(stats_g, b, c, w)
    codes = scores.cluster_codes
    for k in range(2):
        x, y = scores.scores[b[k]], scores.scores[c[k]]
        parts, labels = [], []
        copy = 0
        for cluster, times in enumerate(w.astype(int)):
            for _ in range(times):
                sel = (codes == cluster) & ~np.isnan(x) & ~np.isnan(y)
                parts.append(y[sel] - x[sel])
                labels.append(np.full(sel.sum(), copy))
                copy += 1
        oracle = design_effect(np.concatenate(parts), np.concatenate(labels))
        assert icc[k] == pytest.approx(oracle.icc)
        assert deff[k] == pytest.approx(oracle.design_effect)


def test_benchmark_bootstrap_is_seeded_and_sums_to_one() -> None:
    scores = _scores(np.random.default_rng(4))
    one = benchmark_resolution(scores, n_resamples=200, rng=5).bootstrap
    two = benchmark_resolution(scores, n_resamples=200, rng=5).bootstrap
    assert one == two
    assert one is not None
    assert sum(one["unresolved"].values()) == pytest.approx(1.0)
    plain = model_scores({"a": load({"q1": 0, "q2": 1}), "b": load({"q1": 1, "q2": 1})})
    with pytest.raises(DataError, match="clusters"):
        benchmark_resolution(plain, n_resamples=10)
    with pytest.raises(DataError, match="no item ids while others have them"):
        model_scores({"a": load([0, 1]), "b": load({"q1": 1, "q2": 1})})


def test_benchmark_errors() -> None:
    scores = _scores(np.random.default_rng(5))
    with pytest.raises(DataError, match="top"):
        benchmark_resolution(scores, top=1)
    with pytest.raises(DataError, match="pairs"):
        benchmark_resolution(scores, pairs="neighbours")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="at least 2 models"):
        model_scores({"only": load({"q1": 1, "q2": 0})})


@pytest.mark.shared_data
@pytest.mark.slow
def test_mmlu_pro_top_ten(shared_data: Path) -> None:
    """MMLU-Pro (29 models, 12,032 questions, 14 categories): the top-10 adjacent pairs.

    The published study used a top-10 that includes models absent from this folder, so
    its counts (4 of 9; 6 of 9 clustered) are not the target; these are this data's own.
    """
    # three models lack questions and 32 shared questions carry a revised gold answer in
    # some models' rows: rank and test every model on the 10,294 questions all share
    scores = load_models(
        shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz",
        id_column="question_id",
        score_column="correct",
        cluster_column="category",
        on_missing="intersect",
        on_mismatch="exclude",
    )
    assert scores.n_models == 29
    assert scores.n_items == 10_294
    assert len(scores.cluster_labels) == 14
    r = benchmark_resolution(scores, top=10, n_resamples=1000, rng=1)
    assert r.models[0] == "gemini-1.5-pro-002_5shots"
    assert len(r.pairs) == 9
    assert (r.n_unresolved, r.n_unresolved_clustered, r.n_unresolved_family) == (4, 7, 5)
    pair = r.pairs[4]  # Llama-3-70B vs Llama-3.1-70B: 0.38 points apart on shared questions
    assert (pair.baseline, pair.candidate) == (
        "Meta-Llama-3_1-70B_5shots",
        "Meta-Llama-3-70B_5shots",
    )
    assert pair.effect == pytest.approx(0.0038, abs=1e-4)
    assert not pair.resolved
    boot = r.bootstrap
    assert boot is not None
    assert boot["n_resamples"] == 1000
    assert max(boot["unresolved"], key=boot["unresolved"].get) == "4"
    d = r.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False))["n_pairs"] == 9
    assert all(math.isfinite(p["q"]) for p in d["pairs"])
