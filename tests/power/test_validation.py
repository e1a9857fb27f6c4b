"""Prospective validation: simulate at the planned N* and find the target power.

Each simulation is seeded; the asserted count is the one this seed gives, and it must also
lie in the 99.9% binomial band around the target power (Monte Carlo error only).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.inference import mcnemar_from_table
from evalsig.power import (
    design_effect,
    mcnemar_power,
    mcnemar_sample_size,
    paired_t_power,
    paired_t_sample_size,
    runs_tradeoff,
)


def _band(n_sims: int, rate: float) -> tuple[int, int]:
    return int(stats.binom.ppf(0.0005, n_sims, rate)), int(stats.binom.ppf(0.9995, n_sims, rate))


def test_mcnemar_at_n_star_has_the_target_power() -> None:
    """The seed design: 1-point uplift, 14% discordance; N* = 10,987 by Connor's formula."""
    n = mcnemar_sample_size(0.075, 0.065).n_items
    assert n is not None
    rng = np.random.default_rng(20261122)
    sims = 2000
    counts = rng.multinomial(n, [0.075, 0.065, 0.86], size=sims)
    rejected = 0
    for n01, n10, _ in counts:
        table = [[0, n01], [n10, n - n01 - n10]]
        rejected += mcnemar_from_table(table, method="asymptotic").pvalue <= 0.05
    lo, hi = _band(sims, 0.8)
    assert lo <= rejected <= hi
    assert rejected == 1598


def test_exact_design_at_small_n() -> None:
    """p01 = .45, p10 = .05: the exact test needs 25 items; simulate the exact test there."""
    n = mcnemar_sample_size(0.45, 0.05, method="exact").n_items
    assert n == 25
    target = mcnemar_power(n, 0.45, 0.05, method="exact")
    rng = np.random.default_rng(7)
    sims = 4000
    counts = rng.multinomial(n, [0.45, 0.05, 0.5], size=sims)
    rejected = sum(
        mcnemar_from_table([[0, a], [b, n - a - b]], method="exact").pvalue <= 0.05
        for a, b, _ in counts
    )
    lo, hi = _band(sims, target)
    assert lo <= rejected <= hi
    assert rejected == 3285


def test_paired_t_at_n_star() -> None:
    n = paired_t_sample_size(0.5, 1.0).n_items
    assert n == 34
    rng = np.random.default_rng(11)
    sims = 4000
    d = rng.normal(0.5, 1.0, size=(sims, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    rejected = int(np.sum(np.abs(t) > stats.t.isf(0.025, n - 1)))
    lo, hi = _band(sims, paired_t_power(n, 0.5, 1.0))
    assert lo <= rejected <= hi
    assert rejected == 3255


def test_runs_design_at_n_star() -> None:
    """Item effects (sd_between) plus decoding noise (sd_within) averaged over R runs."""
    effect, between, within, runs = 0.05, 0.3, 0.6, 4
    n = int(np.ceil(runs_tradeoff(effect, between, within, runs=(runs,)).n_required[0]))
    rng = np.random.default_rng(5)
    sims = 2000
    items = rng.normal(effect, between, size=(sims, n, 1))
    noise = rng.normal(0.0, within, size=(sims, n, runs))
    d = (items + noise).mean(axis=2)
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    rejected = int(np.sum(np.abs(t) > stats.t.isf(0.025, n - 1)))
    lo, hi = _band(sims, 0.8)
    assert lo <= rejected <= hi
    assert rejected == 1597


def test_design_effect_matches_the_variance_inflation() -> None:
    """Clusters with icc 0.05 and 40 items each: deff = 2.95; the estimate and the
    simulated variance of the mean agree."""
    rng = np.random.default_rng(3)
    g, m, icc = 60, 40, 0.05
    clusters = np.repeat(np.arange(g), m)
    sims = 600
    means, estimates = [], []
    for _ in range(sims):
        shared = rng.normal(0, np.sqrt(icc), size=g)[clusters]
        d = shared + rng.normal(0, np.sqrt(1 - icc), size=g * m)
        means.append(d.mean())
        estimates.append(design_effect(d, clusters).design_effect)
    truth = 1 + (m - 1) * icc
    empirical = np.var(means, ddof=1) / (1 / (g * m))
    assert empirical == pytest.approx(truth, rel=0.15)
    assert np.mean(estimates) == pytest.approx(truth, rel=0.1)
