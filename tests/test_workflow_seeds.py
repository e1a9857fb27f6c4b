"""Workflows that resample record one seed; passing it back reproduces them exactly.

The release gate, the category bootstrap of benchmark resolution, the meta-analysis
bootstrap, Romano-Wolf and the audit: unseeded runs draw (and record) different seeds,
the recorded seed reproduces the run, and a Generator records null and says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from evalsig.audit import audit
from evalsig.cli import app
from evalsig.data.models import ModelScores, load_models
from evalsig.data.provenance import without_time
from evalsig.inference import romano_wolf
from evalsig.inference._common import UNKNOWN_SEED
from evalsig.meta import synthesize
from evalsig.power import benchmark_resolution
from evalsig.release import gate
from evalsig.release.decision import EXIT_CODES, GateResult
from evalsig.report.power import benchmark_text
from evalsig.simulate import MixtureDesign

runner = CliRunner()
_rng = np.random.default_rng(31)
BASE = {t: _rng.beta(2, 2, 300) for t in ("arc", "gsm")}
CAND = {t: np.clip(v + 0.01 + _rng.normal(0, 0.05, 300), 0, 1) for t, v in BASE.items()}
RESAMPLING_POLICY = {
    "name": "ship",
    "tasks": [{"name": "arc", "method": "bootstrap"}, "gsm"],
    "correction": "romano-wolf",
}


def _gate(policy: dict[str, Any], rng: np.random.Generator | int | None) -> GateResult:
    return gate(BASE, CAND, policy=policy, n_resamples=500, rng=rng)


def test_gate_records_one_seed_that_reproduces_every_draw() -> None:
    first, second = _gate(RESAMPLING_POLICY, None), _gate(RESAMPLING_POLICY, None)
    assert isinstance(first.seed, int)
    assert isinstance(second.seed, int)
    assert first.seed != second.seed
    seed = first.seed
    # every task's resampling and the Romano-Wolf correction drew from this one seed
    assert first.tasks[0].comparison.seed == seed
    assert first.tasks[0].comparison.method == "bootstrap-bca"
    assert first.tasks[1].comparison.seed is None  # paired t
    d = first.to_dict()
    assert d["seed"] == seed
    assert "seed" not in d["nulls"]
    assert any(f"seed {seed}: --seed / rng= reproduces it" in n for n in d["notes"])
    assert (
        f"random draws from seed {seed} (arc, the Romano-Wolf correction): --seed / rng= "
        "reproduces the gate exactly."
    ) in d["notes"]
    again = _gate(RESAMPLING_POLICY, seed)
    assert without_time(again.to_dict()) == without_time(d)
    assert f"random draws from seed {seed} " in str(again)
    # a different seed moves the resampled p-values: the seed really is what was used
    other = _gate(RESAMPLING_POLICY, second.seed).to_dict()
    assert other["tasks"][0]["comparison"]["ci"] != d["tasks"][0]["comparison"]["ci"]


def test_gate_with_a_generator_records_null_and_says_so() -> None:
    r = _gate(RESAMPLING_POLICY, np.random.default_rng(4))
    assert r.seed is None
    assert UNKNOWN_SEED in r.notes
    assert r.to_dict()["nulls"]["seed"] == "unknown: rng was a numpy Generator"


def test_gate_without_random_draws_records_none() -> None:
    r = _gate({"name": "ship", "tasks": ["arc", "gsm"]}, None)  # paired t, Holm
    d = r.to_dict()
    assert d["seed"] is None
    assert d["nulls"]["seed"] == "no random draws"
    assert not any("seed" in n for n in d["notes"])


def _lm_eval_dir(root: Path, scores: dict[str, np.ndarray]) -> Path:
    root.mkdir(parents=True)
    for task, values in scores.items():
        lines = [
            json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": float(v)})
            for i, v in enumerate(values)
        ]
        path = root / f"samples_{task}_2026-01-01T00-00-00.000000.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_gate_cli_prints_the_seed_and_takes_it_back(tmp_path: Path) -> None:
    a, b = _lm_eval_dir(tmp_path / "a", BASE), _lm_eval_dir(tmp_path / "b", CAND)
    policy = tmp_path / "gate.json"
    policy.write_text(json.dumps(RESAMPLING_POLICY), encoding="utf-8")
    args = ["gate", "--policy", str(policy), str(a), str(b), "--resamples", "500"]
    first = runner.invoke(app, [*args, "--format", "json"])
    data = json.loads(first.stdout)
    assert first.exit_code == EXIT_CODES[data["verdict"]], first.output
    seed = data["seed"]
    assert isinstance(seed, int)
    again = runner.invoke(app, [*args, "--seed", str(seed), "--format", "json"])
    assert again.exit_code == first.exit_code
    assert without_time(json.loads(again.stdout)) == without_time(json.loads(first.stdout))
    text = runner.invoke(app, [*args, "--seed", str(seed)])
    assert text.exit_code == first.exit_code
    assert f"random draws from seed {seed} " in text.stdout
    markdown = runner.invoke(app, [*args, "--seed", str(seed), "--format", "markdown"])
    assert f"random draws from seed {seed} " in markdown.stdout


def _models() -> ModelScores:
    rng = np.random.default_rng(8)
    rows = []
    for m, skill in enumerate((0.60, 0.61, 0.63, 0.70)):
        for i in range(240):
            rows.append(
                {
                    "model": f"m{m}",
                    "id": f"q{i}",
                    "subject": f"s{i % 12}",
                    "score": float(rng.random() < skill),
                }
            )
    return load_models(pd.DataFrame(rows), cluster_column="subject")


def test_benchmark_bootstrap_records_its_seed() -> None:
    scores = _models()
    first = benchmark_resolution(scores, n_resamples=100)
    second = benchmark_resolution(scores, n_resamples=100)
    assert first.bootstrap is not None
    assert second.bootstrap is not None
    seed = first.bootstrap["seed"]
    assert isinstance(seed, int)
    assert seed != second.bootstrap["seed"]
    again = benchmark_resolution(scores, n_resamples=100, rng=seed)
    assert without_time(again.to_dict()) == without_time(first.to_dict())
    assert f"clusters, seed {seed})" in benchmark_text(first.to_dict())
    generator = benchmark_resolution(scores, n_resamples=100, rng=np.random.default_rng(1))
    assert generator.bootstrap is not None
    assert generator.bootstrap["seed"] is None
    assert UNKNOWN_SEED in generator.notes
    assert generator.to_dict()["nulls"]["bootstrap.seed"] == "unknown: rng was a numpy Generator"
    assert UNKNOWN_SEED not in first.notes


REPORTS = [
    {"model": "a", "benchmark": "b", "source": f"s{i}", "score": 70.0 + i, "se": 1.0}
    for i in range(4)
]


def test_meta_bootstrap_seed_differs_unseeded_and_a_generator_says_so() -> None:
    first, second = synthesize(REPORTS, n_resamples=200), synthesize(REPORTS, n_resamples=200)
    assert isinstance(first.seed, int)
    assert first.seed != second.seed
    assert "seed" not in first.to_dict()["nulls"]
    generator = synthesize(REPORTS, n_resamples=200, rng=np.random.default_rng(2))
    assert generator.seed is None
    assert UNKNOWN_SEED in generator.notes
    assert generator.to_dict()["nulls"]["seed"] == "unknown: rng was a numpy Generator"
    off = synthesize(REPORTS, n_resamples=0)
    assert off.seed is None
    assert off.to_dict()["nulls"]["seed"] == "no bootstrap"
    assert UNKNOWN_SEED not in off.notes


def test_romano_wolf_unseeded_runs_differ_and_a_generator_says_so() -> None:
    data = {f"t{i}": _rng.normal(size=60) + 0.1 * i for i in range(3)}
    first, second = romano_wolf(data, n_resamples=300), romano_wolf(data, n_resamples=300)
    assert isinstance(first.seed, int)
    assert first.seed != second.seed
    assert "seed" not in first.to_dict()["nulls"]
    generator = romano_wolf(data, n_resamples=300, rng=np.random.default_rng(3))
    assert generator.seed is None
    assert UNKNOWN_SEED in generator.notes
    assert generator.to_dict()["nulls"]["seed"] == "unknown: rng was a numpy Generator"


def test_unseeded_audits_record_different_seeds() -> None:
    n_simulations = 5
    design = MixtureDesign(n_items=200, n_runs=2)
    first = audit(design, methods=["paired-t"], n_simulations=n_simulations)
    second = audit(design, methods=["paired-t"], n_simulations=n_simulations)
    assert first.seed != second.seed
    again = audit(design, methods=["paired-t"], n_simulations=n_simulations, rng=first.seed)
    assert without_time(again.to_dict()) == without_time(first.to_dict())
