"""Each formula once: the scalar tests and the all-pairs / all-models paths share one kernel.

CR2 with Bell-McCaffrey degrees of freedom (:mod:`evalsig.inference._cr2`) serves
``cluster_robust``, the leaderboard's pair tests and its score intervals; McNemar's z
(:func:`evalsig.inference._mcnemar.mcnemar_z`) serves ``mcnemar`` / ``compare`` and the pair
tests; one seeded set-up (:mod:`evalsig.inference._seeded`) serves every resampling test.
The pair tests must give each pair what the scalar test gives it, bit for bit where the
inputs are the same numbers.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.inference import (
    bootstrap,
    cluster_bootstrap,
    cluster_robust,
    mcnemar,
    permutation_test,
    romano_wolf,
)
from evalsig.inference._common import UNKNOWN_SEED
from evalsig.inference._mcnemar import mcnemar_core
from evalsig.inference.allpairs import pair_sums, pair_tests
from evalsig.leaderboard.intervals import score_intervals


def _binary(seed: int, m: int = 12, n: int = 400, missing: float = 0.05) -> np.ndarray:
    """0/1 scores of near-copies of one answer sheet: pairs on both sides of 25 discordant
    items, some with none."""
    rng = np.random.default_rng(seed)
    x = np.tile((rng.random(n) < 0.7).astype(float), (m, 1))
    for k in range(m):
        flip = rng.choice(n, size=int(rng.integers(0, 80)), replace=False)
        x[k, flip] = 1 - x[k, flip]
    x[1] = x[0]
    x[rng.random((m, n)) < missing] = np.nan
    return x


@pytest.mark.parametrize("seed", range(3))
def test_pair_tests_give_each_pair_mcnemars_bits(seed: int) -> None:
    x = _binary(seed)
    b, c = np.triu_indices(x.shape[0], 1)
    got = pair_tests(pair_sums(x), b, c, binary=True, clustered=False)
    assert got.method == "mcnemar"
    for k in range(len(b)):
        one = mcnemar_core(
            int(got.n01[k]),
            int(got.n10[k]),
            int(got.n[k]),
            variant="auto",
            alternative="two-sided",
            confidence_level=0.95,
        )
        assert (got.se[k], got.pvalue[k]) == (one.se, one.pvalue), (b[k], c[k])


def test_pair_tests_match_mcnemar_on_the_items_a_pair_shares() -> None:
    x = _binary(7, m=5)
    b, c = np.triu_indices(5, 1)
    got = pair_tests(pair_sums(x), b, c, binary=True, clustered=False)
    for k in range(len(b)):
        both = ~np.isnan(x[b[k]]) & ~np.isnan(x[c[k]])
        one = mcnemar(x[b[k], both], x[c[k], both])
        assert (got.estimate[k], got.se[k], got.pvalue[k]) == (one.estimate, one.se, one.pvalue)


def _clustered(seed: int, m: int = 6, n: int = 300, g: int = 9) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, g, n)
    effect = rng.normal(0.0, 0.3, (m, g))[:, codes]
    x = rng.normal(0.5, 0.5, (m, n)) + effect
    x[rng.random((m, n)) < 0.1] = np.nan
    x[0, codes == 0] = np.nan  # model 0 lacks a whole cluster
    return x, codes


@pytest.mark.parametrize("seed", range(3))
def test_pair_tests_and_score_intervals_are_cluster_robust_cr2(seed: int) -> None:
    x, codes = _clustered(seed)
    sums = pair_sums(x, codes)
    b, c = np.triu_indices(x.shape[0], 1)
    pairs = pair_tests(sums, b, c, binary=False, clustered=True)
    for k in range(len(b)):
        both = ~np.isnan(x[b[k]]) & ~np.isnan(x[c[k]])
        one = cluster_robust(x[b[k], both], x[c[k], both], codes[both])
        assert pairs.df[k] == pytest.approx(one.df, rel=1e-12)  # sums in another order
        assert pairs.se[k] == pytest.approx(one.se, rel=1e-12)
        assert pairs.pvalue[k] == pytest.approx(one.pvalue, rel=1e-10)
    intervals = score_intervals(sums, binary=False, clustered=True, confidence_level=0.9)
    for k in range(x.shape[0]):
        have = ~np.isnan(x[k])
        one = cluster_robust(np.zeros(have.sum()), x[k, have], codes[have], confidence_level=0.9)
        assert intervals.se[k] == pytest.approx(one.se, rel=1e-12)
        assert intervals.low[k] == pytest.approx(one.ci.low, rel=1e-12)
        assert intervals.high[k] == pytest.approx(one.ci.high, rel=1e-12)


def test_cr2_kernel_batch_rows_are_the_scalar_call() -> None:
    from evalsig.inference._cr2 import cr2

    rng = np.random.default_rng(0)
    sizes = rng.integers(0, 30, (40, 17))
    sizes[:, :2] += 1  # at least two clusters each
    residual = rng.normal(size=(40, 17)) * (sizes > 0)
    se, df = cr2(sizes, residual)
    for k in range(40):
        one_se, one_df = cr2(sizes[k], residual[k])
        assert (se[k], df[k]) == (one_se, one_df)


@pytest.mark.parametrize(
    "run",
    [
        lambda rng: bootstrap(np.arange(60) % 3, (np.arange(60) + 1) % 3, n_resamples=200, rng=rng),
        lambda rng: permutation_test(
            np.arange(30.0), np.arange(30.0) ** 1.1, n_resamples=200, exact=False, rng=rng
        ),
        lambda rng: cluster_bootstrap(
            np.zeros(40), np.arange(40) % 7 / 7, np.arange(40) % 10, n_resamples=200, rng=rng
        ),
        lambda rng: romano_wolf(
            {"a": np.arange(20.0) % 5, "b": np.arange(20.0) % 3}, n_resamples=200, rng=rng
        ),
    ],
    ids=["bootstrap", "permutation", "cluster_bootstrap", "romano_wolf"],
)
def test_every_resampling_test_records_its_seed_alike(run: Callable[[Any], Any]) -> None:
    seeded = run(5)
    assert seeded.seed == 5
    assert UNKNOWN_SEED not in seeded.notes
    drawn = run(None)
    assert isinstance(drawn.seed, int)
    again = run(drawn.seed)
    assert np.array_equal(
        np.atleast_1d(again.pvalue if hasattr(again, "pvalue") else again.pvalues),
        np.atleast_1d(drawn.pvalue if hasattr(drawn, "pvalue") else drawn.pvalues),
    )
    unknown = run(np.random.default_rng(5))
    assert unknown.seed is None
    assert UNKNOWN_SEED in unknown.notes


def test_no_function_in_the_inference_layer_exceeds_120_lines() -> None:
    import evalsig.inference

    root = Path(evalsig.inference.__file__).parent
    long = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 120:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long
