"""Intervals: identical models get identical intervals, sandwich intervals cover at their
level, and rank intervals follow from the simultaneous pairwise intervals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.arena import battles, bradley_terry, compress
from evalsig.arena.fit import fit
from evalsig.arena.ranks import simultaneous_ranks

STRENGTHS = np.array([0.8, 0.3, 0.0, -0.6])


def _with_copy(simulate, n: int, seed: int) -> tuple[list[str], list[str], list[float], list[int]]:
    """Battles where 'copy' repeats every battle of 'model-1' on the same prompt."""
    a, b, y = simulate(STRENGTHS, n, seed=seed, tie_share=0.1)
    prompts = np.random.default_rng(seed).integers(0, 60, n)
    names = [f"model-{i}" for i in range(len(STRENGTHS))]
    ma, mb = [names[i] for i in a], [names[j] for j in b]
    out_a, out_b, out_y, out_p = list(ma), list(mb), list(y), list(prompts)
    for i in range(n):
        if ma[i] == "model-1" and mb[i] != "model-1":
            out_a.append("copy"), out_b.append(mb[i]), out_y.append(y[i]), out_p.append(prompts[i])
        elif mb[i] == "model-1":
            out_a.append(ma[i]), out_b.append("copy"), out_y.append(y[i]), out_p.append(prompts[i])
    return out_a, out_b, out_y, out_p


def _row(result, model):
    r = result[model]
    return np.array([r["score"], r["se"], r["ci"]["low"], r["ci"]["high"], r["rank_low"],
                     r["rank_high"], r["group"]])  # fmt: skip


@pytest.mark.parametrize("interval", ["sandwich", "bootstrap"])
def test_identical_copies_get_identical_intervals(simulate, interval):
    a, b, y, prompts = _with_copy(simulate, 1500, seed=11)
    data = battles(a, b, y, cluster=prompts)
    result = bradley_terry(data, method=interval, n_resamples=200, rng=5)
    np.testing.assert_allclose(_row(result, "copy"), _row(result, "model-1"), rtol=0, atol=1e-6)


def _fastchat_bootstrap(data, rounds: int, seed: int) -> np.ndarray:
    """FastChat's way: resample battle indices, refit each round (the jitter we avoid)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(rounds):
        idx = rng.integers(0, len(data), len(data))
        sample = battles(np.array(data.models)[data.model_a[idx]],
                         np.array(data.models)[data.model_b[idx]], data.outcome[idx])  # fmt: skip
        f = fit(compress(sample), ties="half", anchor=0)
        s = f.params - f.params.mean()
        out.append([s[sample.models.index(m)] for m in ("copy", "model-1")])
    return np.array(out)


def test_a_battle_bootstrap_gives_copies_different_intervals(simulate):
    """The contrast: FastChat's battle bootstrap separates the copies by Monte Carlo noise."""
    a, b, y, _prompts = _with_copy(simulate, 1500, seed=11)
    draws = _fastchat_bootstrap(battles(a, b, y), rounds=100, seed=0)
    low = np.quantile(draws, 0.025, axis=0)
    assert abs(low[0] - low[1]) > 1e-3


def test_sandwich_coverage_is_within_the_99_percent_binomial_band(simulate):
    """Seeded: 400 data sets of 600 battles; the 95% interval of the centred score of
    each model must cover the truth in a share inside the 99% binomial band."""
    truth = (STRENGTHS - STRENGTHS.mean()) * 400 / np.log(10) + 1000
    reps, hits = 400, np.zeros(len(STRENGTHS), dtype=int)
    for rep in range(reps):
        a, b, y = simulate(STRENGTHS, 600, seed=1000 + rep)
        names = np.array([f"m{i}" for i in range(len(STRENGTHS))], dtype=object)
        r = bradley_terry(battles(names[a], names[b], y), rng=rep, n_draws=1000)
        for i in range(len(STRENGTHS)):
            row = r[f"m{i}"]
            hits[i] += row["ci"]["low"] <= truth[i] <= row["ci"]["high"]
    low, high = stats.binom.ppf([0.005, 0.995], reps, 0.95)
    assert hits.tolist() == [376, 382, 378, 373]  # the seeded counts
    assert np.all((low <= hits) & (hits <= high)), (hits, low, high)


def test_cluster_robust_coverage_with_prompt_effects(simulate):
    """Battles share prompts whose difficulty shifts every battle on them: the
    cluster-robust interval covers at its level, the battle-level one does not."""
    reps = 200
    covered = {"clusters": 0, "independent": 0}
    names = np.array(["m0", "m1"], dtype=object)
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        prompts = np.repeat(np.arange(40), 15)
        shift = rng.normal(0, 1.5, 40)[prompts]
        y = (rng.random(600) < 1 / (1 + np.exp(-(0.3 + shift)))).astype(float)
        a, b = np.zeros(600, dtype=int), np.ones(600, dtype=int)
        for key, clusters in (("clusters", prompts), ("independent", None)):
            r = bradley_terry(battles(names[a], names[b], y, cluster=clusters),
                              scale="logit", anchor="m1", rng=rep, n_draws=1000)  # fmt: skip
            row = r["m0"]
            # the target: the population log-odds of the marginal win rate
            covered[key] += row["ci"]["low"] <= _marginal_logit() <= row["ci"]["high"]
    low, high = stats.binom.ppf([0.005, 0.995], reps, 0.95)
    assert low <= covered["clusters"] <= high, covered
    assert covered["independent"] < low, covered


def _marginal_logit() -> float:
    """log-odds of the marginal P(m0 wins) with logit 0.3 + N(0, 1.5^2) (numerical)."""
    z = np.linspace(-10, 10, 20001)
    p = np.sum(stats.norm.pdf(z, 0, 1.5) / (1 + np.exp(-(0.3 + z)))) * (z[1] - z[0])
    return float(np.log(p / (1 - p)))


def test_rank_intervals_follow_a_plain_loop_over_pairwise_intervals():
    rng = np.random.default_rng(0)
    scores = np.array([1.0, 0.9, 0.3, 0.25, -0.5, -2.0])
    g = rng.normal(size=(6, 6)) * 0.05
    cov = g @ g.T + np.eye(6) * 0.01
    ranks = simultaneous_ranks(
        scores, cov, confidence_level=0.95, n_draws=4000, rng=np.random.SeedSequence(3)
    )
    c = ranks.critical_value
    low, high = [], []
    for i in range(6):
        better = worse = 0
        for j in range(6):
            if i == j:
                continue
            se = np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
            better += scores[j] - scores[i] > c * se
            worse += scores[i] - scores[j] > c * se
        low.append(1 + better)
        high.append(6 - worse)
    assert ranks.low.tolist() == low
    assert ranks.high.tolist() == high
    # the critical value lies between the pointwise and the Bonferroni values
    assert stats.norm.ppf(0.975) < c < stats.norm.ppf(1 - 0.025 / 15)


def test_simultaneous_critical_value_controls_the_familywise_level():
    """max-T over draws from an independent set of draws: P(max |T| > c) ~ 5%."""
    cov = np.diag([0.02, 0.03, 0.01, 0.05])
    ranks = simultaneous_ranks(np.zeros(4), cov, confidence_level=0.95, n_draws=20000,
                               rng=np.random.SeedSequence(1))  # fmt: skip
    z = np.random.default_rng(99).multivariate_normal(np.zeros(4), cov, size=20000)
    se = np.sqrt(np.diag(cov)[:, None] + np.diag(cov)[None, :])
    np.fill_diagonal(se, np.inf)
    exceed = (np.abs(z[:, :, None] - z[:, None, :]) / se).max(axis=(1, 2)) > ranks.critical_value
    low, high = stats.binom.ppf([0.005, 0.995], 20000, 0.05)
    assert low <= exceed.sum() <= high
