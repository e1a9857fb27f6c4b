"""Every result kind has a JSON schema, and every result's ``to_dict()`` matches it.

For each kind, small real results are built through the public API (with and without
optional parts: clusters, a bootstrap, one-sided tests, undefined p-values) and validated
against the shipped schema (Draft 2020-12, ``additionalProperties: false`` everywhere, so
a new field without a schema update fails here). The kinds written in the code and the
schemas shipped must be the same set. Every field has a type, and the examples give each
optional part a value (so that its type is checked, not only its null), including results
read from files, whose provenance names them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError
from evalsig.report.schemas import KINDS, registry, schema, schema_id

SRC = Path(__file__).parents[1] / "src" / "evalsig"
HOSTILE = "<script>alert(1)</script> | `x` *y*"


def _scores(n_models: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"m{k}": (rng.random(n_items) < 0.5 + 0.1 * k).astype(int) for k in range(n_models)}


def _long_csv(path: Path, scores: dict[str, np.ndarray], clusters: int = 0) -> Path:
    """A long table: model, item, score (and category, ``clusters`` of them)."""
    head = "model,item,score" + (",category" if clusters else "")
    rows = [
        f"{model},q{i},{int(v)}" + (f",c{i % clusters}" if clusters else "")
        for model, values in scores.items()
        for i, v in enumerate(values)
    ]
    path.write_text("\n".join([head, *rows]) + "\n", "utf-8")
    return path


def _runs_csv(path: Path, runs: np.ndarray) -> Path:
    """Runs x items 0/1 scores as a long table: item, run, correct."""
    rows = [f"q{i},{r},{int(v)}" for r, row in enumerate(runs) for i, v in enumerate(row)]
    path.write_text("\n".join(["item,run,correct", *rows]) + "\n", "utf-8")
    return path


class _Document:
    """A result's JSON as a command wrote it (its ``to_dict()``)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def to_dict(self) -> dict[str, Any]:
        return self.document


def _comparison() -> list[Any]:
    from evalsig import compare

    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 300)
    y = np.where(rng.random(300) < 0.1, 1 - x, x)
    c = rng.random(200)
    return [
        compare(x, y),
        compare(x, y, one_sided=True, method="bootstrap", rng=1, n_resamples=200),
        compare(c, c + rng.normal(0, 0.1, 200), method="wilcoxon"),
        compare([0.1, 0.2, 0.3], [0.2, 0.3, 0.4]),
        compare(x, y, cluster=[i % 7 for i in range(300)]),
        compare(*_crossed_pair(), facets=["item", "prompt"], alternative="greater"),
    ]


def _crossed_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two models' 0/1 scores on 60 items x 4 prompt templates, a long table each."""
    rng = np.random.default_rng(6)
    item, prompt = np.repeat(np.arange(60), 4), np.tile(np.arange(4), 60)
    ease = rng.normal(0, 1, 60)[item] + rng.normal(0, 0.4, 4)[prompt]
    labels = {"item": [f"q{i}" for i in item], "prompt": [f"t{p}" for p in prompt]}
    return tuple(  # type: ignore[return-value]
        {**labels, "correct": (rng.random(240) < 1 / (1 + np.exp(-ease - lift))).astype(int)}
        for lift in (0.0, 0.3)
    )


def _gate(tmp: Path) -> list[Any]:
    from evalsig.release import gate

    rng = np.random.default_rng(1)
    base = {n: rng.random(200) for n in ("a", HOSTILE)}
    cand = {n: v + rng.normal(0.02, 0.05, 200) for n, v in base.items()}
    policy = tmp / "policy.json"
    policy.write_text('{"name": "g", "tasks": ["a", "b"]}', "utf-8")
    files = {n: rng.random(100) for n in ("a", "b")}
    return [
        gate(base, cand, policy={"name": HOSTILE, "tasks": list(base)}),
        gate(files, {n: v + 0.01 for n, v in files.items()}, policy=policy),
    ]


def _registration(tmp: Path) -> list[Any]:
    from evalsig.release import load_policy, register

    policy = tmp / "reg.json"
    policy.write_text(
        '{"name": "g", "tasks": ["a", {"name": "b", "claim": "non-inferiority", "margin": 0.01}]}',
        "utf-8",
    )
    return [register(load_policy(policy))[0]]


def _leaderboard() -> list[Any]:
    from evalsig.leaderboard import leaderboard

    return [
        leaderboard(_scores(3, 200, 2)),
        leaderboard(_scores(3, 100, 3), n_resamples=50, rng=4, task=HOSTILE),
        leaderboard({k: np.stack([v, v[::-1]]) for k, v in _scores(3, 80, 4).items()}),  # runs
    ]


def _leaderboard_tasks() -> list[Any]:
    from evalsig.data.models import load_models
    from evalsig.leaderboard import leaderboard_tasks

    tasks = {t: load_models(_scores(3, 100, seed)) for seed, t in enumerate(("x", HOSTILE))}
    return [leaderboard_tasks(tasks)]


def _inference() -> list[Any]:
    from evalsig.inference import mcnemar, paired_t

    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    return [mcnemar(x, y), paired_t(rng.random(50), rng.random(50))]


def _meta_with_bias_tests() -> Any:
    """Two benchmarks, two models, 12 reports per cell with their own standard errors and
    self-reported flags: funnel tests, trim and fill and the self-report gap all run."""
    from evalsig.meta import synthesize

    rng = np.random.default_rng(13)
    reports = [
        {
            "model": model, "benchmark": bench, "source": f"paper {k}",
            "score": base + rng.normal(0, 0.005 + 0.002 * k) + 0.01 * (k % 3 == 0),
            "se": 0.005 + 0.002 * k, "self_reported": k % 3 == 0,
            "harness": "lm-eval" if k % 2 else None, "prompt": "5-shot",
            "temperature": 0.0 if k % 2 else None,
        }
        for bench in ("mmlu", HOSTILE)
        for model, base in (("a", 0.7), ("b", 0.6))
        for k in range(12)
    ]  # fmt: skip
    return synthesize(reports, n_resamples=0)


def _multiplicity() -> list[Any]:
    from evalsig.inference import adjust

    return [
        adjust({"a": 0.01, "b": 0.04, HOSTILE: 0.3}, method="holm"),
        adjust([0.01, 0.02, 0.5], method="bh"),
    ]


def _sign_test() -> list[Any]:
    from evalsig.inference import sign_test

    return [sign_test({"a": 0.1, "b": -0.02, "c": 0.03}), sign_test([0.0, 0.0])]


def _dependence() -> list[Any]:
    from evalsig.inference import dependence

    rng = np.random.default_rng(6)
    a = {f"q{i}": v for i, v in enumerate(rng.normal(size=60))}
    b = {k: v + rng.normal() for k, v in a.items()}
    return [dependence({"a": a, "b": b})]


def _simultaneous() -> list[Any]:
    from evalsig.inference import romano_wolf

    rng = np.random.default_rng(7)
    tasks = {t: rng.normal(0.02, 0.2, 80) for t in ("a", "b", HOSTILE)}
    return [romano_wolf(tasks, n_resamples=200, rng=2, alternative="greater")]


def _random_effects() -> list[Any]:
    from evalsig.meta import random_effects

    return [
        random_effects([0.1, 0.2, 0.15, 0.3], [0.01, 0.02, 0.01, 0.03], labels=list("abcd")),
        random_effects([0.5], [0.01]),
    ]


def _meta_analysis() -> list[Any]:
    from evalsig.meta import synthesize

    rng = np.random.default_rng(11)
    reports = [
        {"model": model, "benchmark": bench, "source": f"paper {k}", "score": s, "n": 1000}
        for bench in ("mmlu", "gsm8k")
        for model, base in ((HOSTILE, 0.7), ("base", 0.6))
        for k, s in enumerate(base + rng.normal(0, 0.02, 4))
    ] + [{"model": "solo", "benchmark": "mmlu", "source": "one", "score": 0.5, "n": 1000}]
    return [
        synthesize(reports, n_resamples=100, rng=12),
        synthesize(reports, n_resamples=0),
        _meta_with_bias_tests(),
    ]


def _pilot(tmp: Path, *, clusters: int = 0) -> tuple[Path, Path]:
    """Two one-run result files on the same 300 items."""
    scores = _scores(2, 300, 14)
    return (
        _long_csv(tmp / "base.csv", {"base": scores["m0"]}, clusters),
        _long_csv(tmp / "cand.csv", {"cand": scores["m1"]}, clusters),
    )


def _power(tmp: Path) -> list[Any]:
    from evalsig.data import load, pair
    from evalsig.power import power_analysis, power_analysis_paired

    base, cand = _pilot(tmp)
    return [
        power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57),
        power_analysis_paired(pair(load(base), load(cand)), source="pilot"),
    ]


def _sample_size() -> list[Any]:
    from evalsig.power import mcnemar_sample_size

    return [mcnemar_sample_size(0.075, 0.065), mcnemar_sample_size(0.3, 0.05, method="score")]


def _resolution(tmp: Path) -> list[Any]:
    from evalsig.power import resolution, resolution_from_rates

    base, cand = _pilot(tmp, clusters=10)
    return [
        resolution_from_rates(4000, 0.075, 0.065),
        resolution(str(base), str(cand), cluster="category"),
    ]


def _benchmark_resolution(tmp: Path) -> list[Any]:
    from evalsig.data.models import load_models
    from evalsig.power import benchmark_resolution

    table = _long_csv(tmp / "board.csv", _scores(3, 200, 8), clusters=8)
    clustered = load_models(str(table), cluster_column="category")
    return [
        benchmark_resolution(load_models(_scores(3, 200, 8)), pairs="all"),
        benchmark_resolution(clustered, n_resamples=20, rng=3),
    ]


def _runs_tradeoff() -> list[Any]:
    from evalsig.power import runs_tradeoff

    return [runs_tradeoff(0.01, 0.2, 0.3)]


def _unpaired() -> list[Any]:
    from evalsig.power import unpaired_shortcut_sample_size

    return [
        unpaired_shortcut_sample_size(0.70, 0.75),
        unpaired_shortcut_sample_size(0.57, 0.58, p01=0.075, p10=0.065),
    ]


def _sequential(tmp: Path) -> list[Any]:
    from evalsig.cli import app
    from evalsig.sequential import confidence_sequence

    rng = np.random.default_rng(9)
    stream = tmp / "stream.csv"
    pairs = rng.integers(0, 2, (300, 2))
    stream.write_text("baseline,candidate\n" + "".join(f"{a},{b}\n" for a, b in pairs))
    monitored = CliRunner().invoke(app, ["monitor", str(stream), "--format", "json"])
    assert monitored.exit_code in (0, 1, 3), monitored.output
    return [
        confidence_sequence(rng.choice([-1, 0, 0, 1], 400) + 0.0),
        confidence_sequence(rng.choice([-1, 0, 1], 50) + 0.0, method="bernstein"),
        _Document(json.loads(monitored.stdout)),
    ]


def _fitted(tmp: Path) -> Any:
    """A design fitted to a file of one model's runs (its provenance names the file)."""
    from evalsig.simulate import fit_design, simulate_benchmark

    bench = simulate_benchmark(n_items=300, n_runs=4, rng=0)
    return fit_design(str(_runs_csv(tmp / "runs.csv", bench.baseline)), n_items=200)


def _simulation(tmp: Path) -> list[Any]:
    from evalsig.simulate import MixtureDesign, simulation_report

    clustered = MixtureDesign(n_items=300, n_runs=3, n_clusters=10, icc=0.1)
    return [
        simulation_report(rng=3, n_simulations=0),
        simulation_report(rng=3, n_simulations=20),
        simulation_report(rng=20260504, n_simulations=0),  # the article's printout
        simulation_report(clustered, rng=4, n_simulations=0),
        simulation_report(_fitted(tmp), rng=5, n_simulations=0),
    ]


def _audit(tmp: Path) -> list[Any]:
    from evalsig.audit import audit
    from evalsig.simulate import MixtureDesign

    design = MixtureDesign(n_items=100, n_runs=3, uplift=0.02)
    clustered = MixtureDesign(n_items=100, n_runs=3, uplift=0.02, n_clusters=5, icc=0.05)
    return [
        audit(design, methods=["paired-t"], n_simulations=10, rng=1),
        audit(methods=["paired-t"], n_simulations=10, rng=1),  # the article's design and table
        audit(clustered, methods=["paired-t"], n_simulations=10, rng=1),
        audit(_fitted(tmp), methods=["paired-t"], n_simulations=10, rng=1),
    ]


def _claim_audit() -> list[Any]:
    from evalsig.audit import audit_claim

    rng = np.random.default_rng(10)
    base = (rng.random((3, 300)) < 0.6).astype(int)
    cand = (rng.random((3, 300)) < 0.62).astype(int)
    return [audit_claim(base, cand, half_width=0.02)]


def _pass_at_k(tmp: Path) -> list[Any]:
    from evalsig.data import load
    from evalsig.passk import SampleCounts, pass_at_k

    rng = np.random.default_rng(3)
    samples = (rng.random((60, 12)) < rng.beta(0.6, 0.9, (60, 1))).astype(int)
    table = load(_runs_csv(tmp / "runs.csv", samples.T), run_column="run")
    counts = SampleCounts(n=[3, 12, 12, 12], c=[0, 3, 5, 12], tasks=["a", HOSTILE, "c", "d"])
    return [
        pass_at_k(table, [1, 5, 7]),  # from a file; k = 7: no within-task part (12 < 14)
        pass_at_k(samples, 4, estimator="majority@k", method="bootstrap", rng=1, n_resamples=200),
        pass_at_k(counts, [1, 5], estimator="pass^k", too_few_samples="drop"),
        pass_at_k(samples, [1, 5], cluster=[f"r{i // 4}" for i in range(60)]),  # CR2, 15 clusters
    ]


def _pass_at_k_comparison(tmp: Path) -> list[Any]:
    from evalsig.data import load
    from evalsig.passk import compare_pass_at_k

    rng = np.random.default_rng(4)
    base = (rng.random((60, 10)) < rng.beta(0.6, 0.9, (60, 1))).astype(int)
    cand = np.maximum(base, (rng.random((60, 10)) < 0.1).astype(int))
    files = [
        load(_runs_csv(tmp / f"{n}.csv", m.T), run_column="run")
        for n, m in (("b", base), ("c", cand))
    ]
    return [
        compare_pass_at_k(*files, [1, 5, 6]),  # k = 6: no within-task part (10 < 12)
        compare_pass_at_k(
            base,
            cand,
            3,
            method="bootstrap",
            rng=2,
            n_resamples=200,
            alternative="greater",
            estimator="majority@k",
        ),
        compare_pass_at_k(base[:8], cand[:8], 2, method="permutation", alternative="less"),
        compare_pass_at_k(base, base, 1),  # every difference 0
        compare_pass_at_k(
            base, cand, [1, 2], cluster=[i // 3 for i in range(60)], alternative="greater"
        ),  # CR2
    ]


def _pass_at_k_power(tmp: Path) -> list[Any]:
    from evalsig.data import load
    from evalsig.power.passk import pass_at_k_power, plan_from_components

    rng = np.random.default_rng(5)
    base = (rng.random((80, 8)) < rng.beta(0.6, 0.9, (80, 1))).astype(int)
    cand = np.maximum(base, (rng.random((80, 8)) < 0.1).astype(int))
    files = [
        load(_runs_csv(tmp / f"{n}.csv", m.T), run_column="run")
        for n, m in (("b", base), ("c", cand))
    ]
    return [
        pass_at_k_power(*files, 2, effect=0.03),
        pass_at_k_power(base, cand, 2, effect=-0.03, estimator="majority@k", alternative="greater"),
        plan_from_components(
            0.02,
            estimator="pass@k",
            k=1,
            ties=None,
            var_between=0.01,
            zeta=np.array([0.2]),
            samples=[1, 4],
        ),
    ]


def _judge() -> list[Any]:
    from evalsig.judge import ppi_mean, ppi_paired_difference, rogan_gladen

    rng = np.random.default_rng(12)
    j = (rng.random(400) < 0.6).astype(float)
    h = np.where(rng.random(400) < 0.85, j, 1 - j)
    return [
        ppi_mean(j[80:], j[:80], h[:80]),
        ppi_mean(
            j[80:], j[:80], h[:80], tuned=False, cluster=(np.arange(320) % 30, np.arange(80) % 30)
        ),
        ppi_paired_difference(
            (j[80:], j[80:][::-1]),
            (j[:80], j[:80][::-1]),
            (h[:80], h[:80][::-1]),
            alternative="greater",
            baseline=HOSTILE,
            candidate="cand",
        ),
        rogan_gladen(0.02, 0.9, 0.95, 400, n_sensitivity=50, n_specificity=60),
    ]


def _judge_agreement(tmp: Path) -> list[Any]:
    from evalsig.judge import judge_agreement

    return [
        _stamped(judge_agreement([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1]), tmp),
        judge_agreement(["a", "b", "c", "a"], ["a", "b", "b", "a"]),
        judge_agreement([1, 1, 1], [1, 1, 1]),
    ]


def _stamped(result: Any, tmp: Path) -> Any:
    """``result`` with the provenance the command line gives it (its input file, a seed)."""
    from dataclasses import replace

    from evalsig.data.provenance import file_record, provenance

    path = tmp / "judged.csv"
    path.write_text("item,judge,human\n1,1,1\n")
    return replace(result, provenance=provenance(files={"data": file_record(path)}, seed=1))


def _rater_agreement(tmp: Path) -> list[Any]:
    from evalsig.judge import rater_agreement

    complete = [[1, 1, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]]
    missing = [[1, 2, 2], [2, 2, None], [3, 3, 2], [1, None, None], [2, 3, 3]]
    return [
        rater_agreement(complete, raters=[HOSTILE, "b", "c"], n_resamples=50, rng=0),
        _stamped(rater_agreement(missing, metric="ordinal", n_resamples=50, rng=1), tmp),
    ]


def _judge_plan(tmp: Path) -> list[Any]:
    from evalsig.judge import labels_for_half_width, labels_for_power

    return [
        _stamped(labels_for_half_width(0.03, n_unlabeled=5000, correlation=0.8, human_sd=0.5), tmp),
        labels_for_half_width(0.01, n_unlabeled=100, correlation=0.9, human_sd=0.5, tuned=False),
        labels_for_power(0.05, n_unlabeled=4000, correlation=0.7, human_sd=0.6),
    ]


def _score(tmp: Path) -> list[Any]:
    from evalsig import score

    rng = np.random.default_rng(15)
    one_run = (rng.random(120) < 0.6).astype(int)
    runs = (rng.random((4, 150)) < rng.beta(1.5, 1.0, 150)).astype(int)
    path = _long_csv(tmp / "scored.csv", {HOSTILE: one_run}, clusters=6)
    return [
        score(one_run),  # Clopper-Pearson, n_correct
        score((rng.random(1200) < 0.7).astype(int)),  # Wilson
        score(runs),  # t on item means, variance components, df
        score(rng.random(80), method="bootstrap", n_resamples=200, rng=1),  # seed, resamples
        score(one_run, method="bayes", prior=(0.5, 0.5)),  # prior
        score(str(path), cluster="category"),  # clusters; provenance names the file
        score(_crossed_pair()[0], facets=["item", "prompt"]),  # over prompt templates
    ]


def _arena(tmp: Path) -> list[Any]:
    from evalsig.arena import battles, bradley_terry, elo
    from evalsig.arena.readers import read_battles

    rng = np.random.default_rng(8)
    a = rng.integers(0, 3, 600)
    b = (a + rng.integers(1, 3, 600)) % 3
    y = np.where(rng.random(600) < 0.1, 0.5, (rng.random(600) < 0.6) * 1.0)
    names = np.array([HOSTILE, "beta", "gamma"], dtype=object)
    winner = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
    lines = [
        json.dumps(
            {"model_a": names[i], "model_b": names[j], "winner": winner[v], "question_id": k % 40}
        )
        for k, (i, j, v) in enumerate(zip(a, b, y, strict=True))
    ]
    path = tmp / "battles.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    data = battles(names[a], names[b], y)
    from_file = read_battles(path, cluster="question_id")
    return [
        bradley_terry(from_file, rng=1).with_online_elo(elo(from_file)),  # a file, clusters
        bradley_terry(
            data, ties="davidson", method="bootstrap", n_resamples=100, anchor="beta", rng=2
        ),
        bradley_terry(data, scale="logit", covariates={"length": np.linspace(-1, 1, 600)}, rng=3),
    ]


def _benchmark_noise(_: Path) -> list[Any]:
    from evalsig.data.models import load_models
    from evalsig.power.noise import benchmark_noise

    rng = np.random.default_rng(16)
    p = rng.uniform(0.2, 0.9, 60)
    runs = {
        f"m{k}": (rng.random((3, 60)) < np.clip(p + 0.05 * k, 0, 1)).astype(int) for k in range(3)
    }
    return [
        benchmark_noise(runs),  # components, design options, runs trade-off
        benchmark_noise({name: m[0] for name, m in runs.items()}),  # one run: nulls
        benchmark_noise(load_models(runs)),  # per-item means only
    ]


def _judge_position_bias(tmp: Path) -> list[Any]:
    from evalsig.judge import position_bias

    first = ["A", "B"] * 20
    choice = ["A", "A", "B", "B", "A", "B", "A", "A"] * 5
    return [
        _stamped(position_bias(choice, first), tmp),
        position_bias(choice, first, pair=np.repeat(np.arange(20), 2)),
        position_bias(choice, first, pair=np.arange(40)),
    ]


def _judge_length_bias(tmp: Path) -> list[Any]:
    from evalsig.judge import length_bias

    rng = np.random.default_rng(17)
    diff = rng.normal(0, 100, 300)
    judge = (rng.random(300) < 1 / (1 + np.exp(-diff / 80))).astype(int)
    human = np.where(rng.random(300) < 0.8, judge, 1 - judge).astype(float)
    human[::4] = np.nan
    return [_stamped(length_bias(judge, diff), tmp), length_bias(judge, diff, human=human)]


def _ingest(tmp: Path) -> list[Any]:
    """An ingest that stores a table, one that finds its content stored, and one of a
    harness's output folder."""
    from evalsig.store import ResultsStore

    table = tmp / "ingest-a.csv"
    table.write_text("item,correct\n" + "".join(f"q{i},{i % 3 % 2}\n" for i in range(30)))
    folder = Path(__file__).parent / "data" / "fixtures" / "lm_eval" / "v0.4.7"
    with ResultsStore(tmp / "ingest.duckdb") as store:
        stored = store.ingest(table, model="model <a> & 'b'", task="quiz")
        again = store.ingest(table, model="model <a> & 'b'", task="quiz")
        harness = store.ingest(folder / "EleutherAI__pythia-160m")
    return [stored, again, harness]


@functools.cache  # results are immutable; the bootstrap is the slow part
def _variance_sources() -> list[Any]:
    """One model's score over crossed items and prompts, and a paired difference with a
    cell in one table only (a note), with and without resamples."""
    from evalsig.facets import variance_sources

    rng = np.random.default_rng(4)
    item, prompt = np.repeat(np.arange(30), 3), np.tile(np.arange(3), 30)
    a = rng.normal(0, 1, 30)[item] + rng.normal(0, 0.4, 3)[prompt] + rng.normal(0, 0.5, 90)
    b = a + rng.normal(0.2, 0.3, 90)
    table = {"item": item, "prompt": [f"p{p}" for p in prompt], "score": a}
    other = {"item": item[1:], "prompt": [f"p{p}" for p in prompt[1:]], "score": b[1:]}
    return [
        variance_sources(table, facets=["item", "prompt"], n_resamples=100, rng=1),
        variance_sources(other, facets=["item", "prompt"], baseline=table, n_resamples=100, rng=2),
        variance_sources(other, facets=["item", "prompt"], baseline=table, n_resamples=0),
    ]


@functools.cache
def _decision_study() -> list[Any]:
    """A paired difference's study with intervals, a score's (no MDE), one without
    resamples (no intervals), models as the object of measurement (G and Phi), and the
    allocations for a budget and for a target half-width."""
    from evalsig.facets import decision_study, variance_sources

    score, difference, without_resamples = _variance_sources()
    rng = np.random.default_rng(5)
    model, item = np.repeat(np.arange(5), 20), np.tile(np.arange(20), 5)
    y = rng.normal(0, 0.5, 5)[model] + rng.normal(0, 1, 20)[item] + rng.normal(0, 0.5, 100)
    board = variance_sources(
        {"model": model, "item": item, "score": y},
        facets=["model", "item"],
        n_resamples=100,
        rng=3,
    )
    costs = {"item:prompt": 1.0, "prompt": 5.0}
    return [
        decision_study(difference, designs=[{"item": 60}, {"prompt": 6}]),
        decision_study(score),
        decision_study(without_resamples),
        decision_study(board, object_of_measurement="model"),
        decision_study(score, costs=costs, budget=500, max_levels={"prompt": 8}),
        decision_study(difference, costs=costs, half_width=0.3, max_levels={"prompt": 8}),
    ]


BUILDERS: dict[str, Callable[[Path], list[Any]]] = {
    "variance-sources": lambda _: _variance_sources(),
    "decision-study": lambda _: _decision_study(),
    "ingest": _ingest,
    "judge-length-bias": _judge_length_bias,
    "judge-position-bias": _judge_position_bias,
    "benchmark-noise": _benchmark_noise,
    "score": _score,
    "arena": _arena,
    "judge": lambda _: _judge(),
    "judge-agreement": _judge_agreement,
    "rater-agreement": _rater_agreement,
    "judge-plan": _judge_plan,
    "pass-at-k": _pass_at_k,
    "pass-at-k-comparison": _pass_at_k_comparison,
    "pass-at-k-power": _pass_at_k_power,
    "comparison": lambda _: _comparison(),
    "gate": _gate,
    "gate-registration": _registration,
    "leaderboard": lambda _: _leaderboard(),
    "leaderboard-tasks": lambda _: _leaderboard_tasks(),
    "inference": lambda _: _inference(),
    "multiplicity": lambda _: _multiplicity(),
    "sign_test": lambda _: _sign_test(),
    "dependence": lambda _: _dependence(),
    "simultaneous": lambda _: _simultaneous(),
    "random-effects": lambda _: _random_effects(),
    "meta-analysis": lambda _: _meta_analysis(),
    "power": _power,
    "sample-size": lambda _: _sample_size(),
    "resolution": _resolution,
    "benchmark-resolution": _benchmark_resolution,
    "runs-tradeoff": lambda _: _runs_tradeoff(),
    "unpaired-shortcut": lambda _: _unpaired(),
    "sequential": _sequential,
    "simulation": _simulation,
    "audit": _audit,
    "claim-audit": lambda _: _claim_audit(),
}
"""How to build small real results of each kind through the public API."""


def kinds_in_code() -> set[str]:
    """Every ``"kind": "<name>"`` written by a result's ``to_dict()`` (the renderers in
    report/ only read kinds: their own dicts are sections, not results)."""
    found = set()
    for path in SRC.rglob("*.py"):
        if "report" not in path.relative_to(SRC).parts:
            found.update(re.findall(r'"kind": "([a-z_-]+)"', path.read_text("utf-8")))
    return found


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(schema(kind), registry=registry())


def test_every_kind_in_the_code_has_a_schema_and_every_schema_a_kind() -> None:
    assert kinds_in_code() == set(KINDS) == set(BUILDERS)


def test_schemas_are_valid_and_have_a_stable_id() -> None:
    for kind in KINDS:
        document = schema(kind)
        Draft202012Validator.check_schema(document)
        assert document["$id"] == f"urn:evalsig-stats:schema:{kind}:v{SCHEMA_VERSION}"
        assert document["$id"] == schema_id(kind)


def test_a_result_of_another_kind_fails_the_schema() -> None:
    comparison = _comparison()[0].to_dict()
    for kind in KINDS:
        if kind != "comparison":
            assert list(validator(kind).iter_errors(comparison)), kind


def test_every_object_in_a_schema_is_closed() -> None:
    """An object with listed properties refuses others: a new field must be described."""

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                assert node.get("additionalProperties") is False, where
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for kind in KINDS:
        walk(schema(kind), kind)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_results_match_their_schema(kind: str, tmp_path: Path) -> None:
    results = BUILDERS[kind](tmp_path)
    assert results
    check = validator(kind)
    for result in results:
        document = result.to_dict()
        assert document["kind"] == kind
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in check.iter_errors(document)]
        assert not errors, errors


def test_every_field_has_a_type() -> None:
    """No property is left untyped ('null in every example'): each says what it holds."""
    typed = ("type", "const", "enum", "$ref", "anyOf", "oneOf")

    def walk(node: object, where: str) -> Iterator[str]:
        if isinstance(node, dict):
            for name, field in (node.get("properties") or {}).items():
                if not any(key in field for key in typed):
                    yield f"{where}/{name}"
            for key, value in node.items():
                yield from walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, f"{where}/{i}")

    assert [path for kind in KINDS for path in walk(schema(kind), kind)] == []


ONCE_NULL = {
    "ingest": ["sources[].duplicate_of"],
    "variance-sources": ["seed", "terms[].low", "terms[].high"],
    "decision-study": [
        "object_of_measurement",
        "designs[].se_low",
        "designs[].se_high",
        "designs[].mde",
        "designs[].cost",
        "designs[].g",
        "designs[].g_low",
        "designs[].g_high",
        "designs[].phi",
        "budget",
        "half_width",
        "allocation",
        "allocation_low",
        "allocation_high",
        "cost_low",
        "cost_high",
    ],
    "benchmark-noise": [
        "run_variance",
        "noise_sd",
        "noise",
        "snr",
        "gain_per_run",
        "gain_per_item",
        "better",
        "tradeoff",
        "models[].run_variance",
        "models[].noise_sd",
    ],
    "score": ["df", "n_clusters", "n_correct", "prior", "variance", "n_resamples", "seed"],
    "judge-plan": ["n_labels", "lambda", "provenance"],
    "judge-agreement": ["provenance"],
    "judge-position-bias": ["provenance"],
    "judge-length-bias": ["provenance"],
    "rater-agreement": ["fleiss_kappa", "provenance"],
    "audit": ["reference", "methods[].published", "design.n_clusters", "provenance.inputs"],
    "benchmark-resolution": ["bootstrap", "n_clusters", "pairs[].design_effect", "provenance"],
    "meta-analysis": [
        "self_report",
        "cells[].egger",
        "cells[].rank_test",
        "cells[].trim_and_fill",
        "cells[].self_report_gap",
        "leaderboards[].funnel",
    ],
    "simulation": [
        "published",
        "icc.realized_scores",
        "pairs[].icc_differences",
        "provenance.inputs",
    ],
    "unpaired-shortcut": ["paired"],
    "power": ["provenance.inputs"],
    "resolution": ["design_effect", "n_required_clustered", "provenance.inputs"],
    "sequential": ["provenance.inputs"],
}
"""Fields that were null in every example (their types unchecked): each example set must
give them a value, so the schema's type for it is exercised."""


def _values(document: Any, path: str) -> Iterator[Any]:
    """The values at ``path`` ('a.b', 'a[].b': every element of list a) in a document."""
    head, _, rest = path.partition(".")
    many = head.endswith("[]")
    value = document.get(head.removesuffix("[]")) if isinstance(document, dict) else None
    for item in (value or []) if many else [value]:
        if rest:
            yield from _values(item, rest)
        else:
            yield item


@pytest.mark.parametrize("kind", sorted(ONCE_NULL))
def test_the_examples_give_every_optional_field_a_value(kind: str, tmp_path: Path) -> None:
    documents = [result.to_dict() for result in BUILDERS[kind](tmp_path)]
    empty = [
        path
        for path in ONCE_NULL[kind]
        if not any(v not in (None, {}, []) for d in documents for v in _values(d, path))
    ]
    assert empty == []


def test_a_new_field_fails_the_schema() -> None:
    document = _comparison()[0].to_dict()
    document["surprise"] = 1
    assert list(validator("comparison").iter_errors(document))
    document = _comparison()[0].to_dict()
    document["provenance"]["inputs"]["baseline"]["surprise"] = 1
    assert list(validator("comparison").iter_errors(document))


def test_unknown_kind_lists_the_kinds() -> None:
    with pytest.raises(DataError, match="comparison") as info:
        schema("no-such-kind")
    assert "'no-such-kind'" in str(info.value)


def test_schema_returns_a_fresh_copy() -> None:
    first = schema("comparison")
    first["title"] = "changed"
    assert schema("comparison")["title"] != "changed"


WRITTEN_BY_COMMANDS = (
    "comparison",
    "gate",
    "sample-size",
    "power",
    "resolution",
    "benchmark-resolution",
    "leaderboard",
    "leaderboard-tasks",
    "sequential",
    "meta-analysis",
    "random-effects",
    "audit",
    "claim-audit",
    "simulation",
    "score",
    "pass-at-k",
    "pass-at-k-comparison",
    "pass-at-k-power",
    "judge",
    "arena",
    "benchmark-noise",
    "judge-agreement",
    "rater-agreement",
    "judge-position-bias",
    "judge-length-bias",
    "judge-plan",
)
"""The kinds a command writes with ``--format json`` (the rest are parts of results, or
results of the Python API alone)."""


@pytest.mark.parametrize("kind", WRITTEN_BY_COMMANDS)
def test_evalsig_report_renders_every_kind_a_command_writes(kind: str, tmp_path: Path) -> None:
    from evalsig.cli import app

    saved = tmp_path / f"{kind}.json"
    saved.write_text(json.dumps(BUILDERS[kind](tmp_path)[0].to_dict()), encoding="utf-8")
    for fmt in ("text", "markdown", "html"):
        done = CliRunner().invoke(app, ["report", str(saved), "--format", fmt])
        assert done.exit_code == 0, (fmt, done.output)
        assert done.stdout.strip()


# --- one protocol for every result ------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_every_result_keeps_the_protocol(kind: str, tmp_path: Path) -> None:
    """Each kind's results are :class:`evalsig.result.Result`: ``to_dict()`` survives JSON
    and :func:`~evalsig.result.from_dict`, whose saved result renders as the live one does
    (text, markdown, HTML, summary); ``to_frame()`` is a frame with rows; a test result
    unpacks as ``(statistic, pvalue)`` and nothing else unpacks."""
    from evalsig.report.summary import Summary
    from evalsig.result import Result, from_dict

    for result in BUILDERS[kind](tmp_path):
        if isinstance(result, _Document):
            continue  # a command's JSON output: the live result of its kind is checked too
        assert isinstance(result, Result), type(result)
        document = result.to_dict()
        assert result.kind == document["kind"] == kind
        assert json.loads(json.dumps(document, allow_nan=False)) == document
        saved = from_dict(json.loads(json.dumps(document)))
        assert saved.to_dict() == document
        for view in (str, lambda r: r._repr_markdown_(), lambda r: r._repr_html_()):
            shown = view(result)
            assert isinstance(shown, str)
            assert shown.strip()
            assert view(saved) == shown
        table = result.summary()
        assert isinstance(table, Summary)
        assert table == saved.summary()
        for medium in (table.as_text(), table.as_markdown(), table.as_html(), table.as_latex()):
            assert medium.strip()
        frame = result.to_frame()
        assert len(frame) >= 1
        assert len(frame.columns) >= 1
        if "pvalue" in document and "statistic" in document:
            statistic, pvalue = result
            assert (statistic, pvalue) == (result.statistic, result.pvalue)
        elif kind == "score":  # (estimate, ci) until the next release, with a warning
            with pytest.warns(DeprecationWarning, match="unpack"):
                estimate, _ = result
            assert estimate == result.estimate
        else:
            with pytest.raises((TypeError, KeyError, IndexError)):
                _, _ = result  # type: ignore[misc]
