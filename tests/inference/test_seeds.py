"""Every resampling result records its seed; passing it back reproduces the result exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.data.provenance import without_time
from evalsig.inference import bootstrap, cluster_bootstrap, permutation_test, romano_wolf
from evalsig.inference._common import UNKNOWN_SEED
from evalsig.meta import synthesize
from evalsig.simulate import simulate_benchmark, simulate_models

runner = CliRunner()
rng = np.random.default_rng(12)
X, Y = rng.normal(size=80), rng.normal(size=80) + 0.2
CLUSTERS = np.arange(80) % 16


@pytest.mark.parametrize(
    "run",
    [
        lambda r: compare(X, Y, method="bootstrap", rng=r),
        lambda r: compare(X, Y, method="permutation", variant="monte-carlo", rng=r),
        lambda r: compare(X, Y, method="cluster", variant="bootstrap", cluster=CLUSTERS, rng=r),
        lambda r: compare(X, Y, method="cluster", variant="wild", cluster=CLUSTERS, rng=r),
        lambda r: bootstrap(X, Y, rng=r),
        lambda r: permutation_test(X, Y, exact=False, rng=r),
        lambda r: cluster_bootstrap(X, Y, CLUSTERS, rng=r),
    ],
    ids=[
        "compare-bca",
        "compare-perm",
        "compare-cl-boot",
        "compare-wild",
        "bootstrap",
        "permutation",
        "cluster-bootstrap",
    ],
)
def test_unseeded_runs_record_a_fresh_seed_that_reproduces_them(run: Any) -> None:
    first, second = run(None), run(None)
    assert isinstance(first.seed, int)
    assert isinstance(second.seed, int)
    assert first.seed != second.seed
    again = run(first.seed)
    assert again.seed == first.seed
    assert (again.pvalue, again.ci, again.se) == (first.pvalue, first.ci, first.se)


def test_a_generator_records_no_seed_and_says_so() -> None:
    r = compare(X, Y, method="bootstrap", rng=np.random.default_rng(1))
    assert r.seed is None
    assert UNKNOWN_SEED in r.notes
    assert r.to_dict()["nulls"]["seed"] == "unknown: rng was a numpy Generator"
    assert bootstrap(X, Y, rng=np.random.default_rng(1)).seed is None


def test_methods_without_random_draws_record_none() -> None:
    for method in ("paired-t", "wilcoxon"):
        r = compare(X, Y, method=method)  # type: ignore[arg-type]
        assert r.seed is None
        assert r.to_dict()["nulls"]["seed"] == "no random draws"
    exact = compare(X[:12], Y[:12], method="permutation", variant="exact")
    assert exact.seed is None  # every sign pattern enumerated: nothing random


def test_romano_wolf_synthesis_and_simulations_record_their_seeds() -> None:
    data = {f"t{i}": rng.normal(size=60) + 0.1 * i for i in range(3)}
    rw = romano_wolf(data, n_resamples=500)
    assert isinstance(rw.seed, int)
    assert rw.to_dict()["seed"] == rw.seed
    again = romano_wolf(data, n_resamples=500, rng=rw.seed)
    assert np.array_equal(again.p_adjusted, rw.p_adjusted)
    rows = [
        {"model": "a", "benchmark": "b", "source": f"s{i}", "score": 70.0 + i, "se": 1.0}
        for i in range(4)
    ]
    syn = synthesize(rows, n_resamples=200)
    assert isinstance(syn.seed, int)
    assert synthesize(rows, n_resamples=200, rng=syn.seed).cells[0].bootstrap == (
        syn.cells[0].bootstrap
    )
    bench = simulate_benchmark(n_items=200, n_runs=2)
    assert np.array_equal(
        simulate_benchmark(n_items=200, n_runs=2, rng=bench.seed).baseline, bench.baseline
    )
    models = simulate_models()
    assert np.array_equal(simulate_models(rng=models.seed).finetune, models.finetune)


def test_the_cli_prints_the_seed_and_takes_it_back(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, values in ((a, X), (b, Y)):
        lines = ["id,score", *(f"q{i},{float(v)!r}" for i, v in enumerate(values))]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["compare", str(a), str(b), "--method", "bootstrap", "--format", "json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    seed = json.loads(first.stdout)["seed"]
    again = runner.invoke(app, [*args, "--seed", str(seed)])
    assert without_time(json.loads(again.stdout)) == without_time(json.loads(first.stdout))
    text = runner.invoke(app, [*args[:-2], "--seed", str(seed)])
    assert f"resampling 10,000 resamples, seed {seed}" in text.stdout
    markdown = runner.invoke(app, [*args[:-2], "--seed", str(seed), "--format", "markdown"])
    assert f"| Resampling | 10,000 resamples, seed {seed}" in markdown.stdout
