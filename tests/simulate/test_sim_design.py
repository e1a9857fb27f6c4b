"""The mixture design, the three-model simulator and the batched simulator.

Golden values are the article's printed output for its seed design (``SEED = 20260504``,
4,000 questions, 8 runs, 42% / 28% / uniform(0.2, 0.8), +1 point), produced by its code:
``rng = np.random.default_rng(SEED); p_A = sample_p_q(...); p_C = derive_finetune(...);
scores = {name: simulate_runs(p, 8, rng) for name in "ABC"}``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.simulate import (
    MixtureDesign,
    pairwise_consistency,
    promote,
    simulate_batch,
    simulate_benchmark,
    simulate_models,
)

SEED = 20260504


def _article_consistency(s: np.ndarray) -> float:
    """The article's loop over run pairs."""
    n_runs, n_q = s.shape
    agree = total = 0
    for i in range(n_runs):
        for j in range(i + 1, n_runs):
            agree += int((s[i] == s[j]).sum())
            total += n_q
    return agree / total


def test_three_models_reproduce_the_article_printout() -> None:
    sim = simulate_models(rng=SEED)
    printed = {  # true acc, obs acc, per-run SD (pp), pairwise consistency (%)
        "baseline": (sim.p_baseline, sim.baseline, 57.06, 56.88, 0.432, 86.8),
        "clone": (sim.p_baseline, sim.clone, 57.06, 56.87, 0.663, 86.7),
        "finetune": (sim.p_finetune, sim.finetune, 58.06, 58.04, 0.411, 86.6),
    }
    for p, runs, true_acc, obs, sd, consistency in printed.values():
        per_run = runs.mean(axis=1)
        assert round(100 * p.mean(), 2) == true_acc
        assert round(100 * per_run.mean(), 2) == obs
        assert round(100 * per_run.std(ddof=1), 3) == sd
        assert round(100 * pairwise_consistency(runs), 1) == consistency
    assert sim.baseline.shape == (8, 4000)
    assert sim.clusters is None


def test_pairwise_consistency_matches_the_loop() -> None:
    rng = np.random.default_rng(3)
    for runs in (2, 3, 8):
        s = (rng.random((runs, 500)) < rng.random(500)).astype(np.int8)
        assert pairwise_consistency(s) == pytest.approx(_article_consistency(s), abs=1e-15)
    with pytest.raises(DataError, match="2\\+ runs"):
        pairwise_consistency(np.ones((1, 4)))


def test_simulate_benchmark_draws_are_unchanged() -> None:
    """The original simulator's draws (used by compare() doctests and the demo)."""
    bench = simulate_benchmark(n_items=3000, n_runs=3, uplift=0.02, rng=11)
    rng = np.random.default_rng(11)
    u = rng.random(3000)
    p = np.where(u < 0.42, 1.0, np.where(u < 0.70, 0.0, rng.uniform(0.2, 0.8, 3000)))
    cand = p.copy()
    cand[rng.choice(np.flatnonzero(p == 0.0), size=60, replace=False)] = 1.0
    base = (rng.random((3, 3000)) < p).astype(np.int8)
    other = (rng.random((3, 3000)) < cand).astype(np.int8)
    assert np.array_equal(bench.p_baseline, p)
    assert np.array_equal(bench.p_candidate, cand)
    assert np.array_equal(bench.baseline, base)
    assert np.array_equal(bench.candidate, other)
    assert bench.clusters is None
    assert bench.true_difference == pytest.approx(0.02)


def test_design_moments() -> None:
    design = MixtureDesign()
    assert design.n_promote == 40
    assert design.true_uplift == 0.01
    assert design.mean_p == pytest.approx(0.57)
    assert design.mean_pq == pytest.approx(0.3 * 0.22)  # E[U(1-U)] = 0.5 - 0.28
    # the article's expected discordance pi_D = 2 * 0.3 * 0.22 + 0.01
    assert 2 * design.mean_pq + design.true_uplift == pytest.approx(0.142)
    assert "4,000 items x 8 runs" in design.describe()
    assert design.to_dict()["n_promote"] == 40


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_items": 1}, "n_items"),
        ({"n_runs": 0}, "n_runs"),
        ({"share_easy": 0.8, "share_hard": 0.3}, "summing to at most 1"),
        ({"middle": (0.9, 0.1)}, "middle"),
        ({"uplift": -0.1}, "uplift"),
        ({"uplift": 0.29}, "always-wrong items to promote"),
        ({"icc": 0.1}, "needs clusters"),
        ({"n_clusters": 1}, "n_clusters"),
        ({"n_clusters": 50, "icc": 0.9}, "largest intra-cluster correlation"),
    ],
)
def test_design_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(DataError, match=message):
        MixtureDesign(**kwargs)  # type: ignore[arg-type]


def test_promote_refuses_too_few_hard_items() -> None:
    p = np.array([0.0, 1.0, 0.5])
    assert promote(p, 1, np.random.default_rng(0)).tolist() == [1.0, 1.0, 0.5]
    with pytest.raises(DataError, match="needs 2 always-wrong items"):
        promote(p, 2, np.random.default_rng(0))


def test_batch_mixture_shares_are_binomial() -> None:
    design = MixtureDesign(n_items=2000)
    batch = simulate_batch(design, 50, np.random.default_rng(5))
    total = 50 * 2000
    easy = int(batch.ones.sum())
    hard = int(batch.zeros.sum())
    # 99.9% two-sided binomial bands
    for count, share in ((easy, 0.42), (hard, 0.28)):
        lo, hi = stats.binom.ppf([0.0005, 0.9995], total, share)
        assert lo <= count <= hi
    assert (easy, hard) == (41_961, 28_021)  # pinned seeded counts
    middle = batch.p_random[batch.valid]
    assert middle.min() >= 0.2
    assert middle.max() <= 0.8
    assert stats.kstest((middle - 0.2) / 0.6, "uniform").pvalue > 0.001


def test_batch_expands_to_full_matrices() -> None:
    design = MixtureDesign(n_items=500, n_runs=3, uplift=0.02)
    batch = simulate_batch(design, 4, np.random.default_rng(2))
    assert batch.promoted.shape == (4, 10)
    for s in range(4):
        base, tuned, p_b, p_c = batch.expand(s, "finetune")
        _, clone, _, p_clone = batch.expand(s, "clone")
        assert np.array_equal(p_clone, p_b)
        assert np.all(base[:, p_b == 1.0] == 1)
        assert np.all(base[:, p_b == 0.0] == 0)
        assert np.all(tuned[:, batch.promoted[s]] == 1)
        assert np.all(p_b[batch.promoted[s]] == 0.0)
        assert np.all(p_c[batch.promoted[s]] == 1.0)
        assert p_c.sum() - p_b.sum() == pytest.approx(10.0)
        # the compact pair counts agree with the full matrices
        pair = batch.pair("finetune")
        k_base = base.sum(axis=0)
        k_tuned = tuned.sum(axis=0)
        deterministic = (p_b == 0) | (p_b == 1)
        assert pair.fixed[s, 2] == int(np.sum(deterministic & (k_base == 0) & (k_tuned == 3)))
        assert pair.ones_baseline[s] == int(np.sum(p_b == 1.0))
        assert pair.k_baseline[s][pair.valid[s]].sum() == k_base[~deterministic].sum()
        assert pair.k_candidate[s][pair.valid[s]].sum() == k_tuned[~deterministic].sum()
        assert clone.shape == (3, 500)
    with pytest.raises(DataError, match="clone"):
        batch.expand(0, "twin")  # type: ignore[arg-type]


def test_batch_refuses_a_benchmark_without_enough_hard_items() -> None:
    design = MixtureDesign(n_items=100, share_easy=0.0, share_hard=0.5, uplift=0.01)
    object.__setattr__(design, "uplift", 0.45)  # bypass the up-front check on purpose
    with pytest.raises(DataError, match="always-wrong items but the fine-tune promotes 45"):
        simulate_batch(design, 200, np.random.default_rng(0))
