"""The generator fitted to a model's own runs (zero-one-inflated beta-binomial, EB)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from evalsig.audit import audit
from evalsig.errors import DataError
from evalsig.simulate import FittedDesign, fit_design, simulate_benchmark, simulate_models


@pytest.fixture(scope="module")
def fitted() -> FittedDesign:
    return fit_design(simulate_benchmark(n_items=4000, n_runs=8, rng=0).baseline)


def _loglik(k: np.ndarray, r: int, e: float, h: float, a: float, b: float) -> float:
    """Plain per-item marginal likelihood, the reference for the grouped one."""
    total = 0.0
    for ki in k:
        mid = (1 - e - h) * stats.betabinom.pmf(ki, r, a, b)
        total += math.log(e * (ki == r) + h * (ki == 0) + mid)
    return total


def test_recovers_the_article_mixture(fitted: FittedDesign) -> None:
    # truth: 42% always right, 28% always wrong, the rest uniform(0.2, 0.8)
    assert fitted.share_easy == pytest.approx(0.42, abs=0.015)
    assert fitted.share_hard == pytest.approx(0.28, abs=0.015)
    # uniform(0.2, 0.8) has mean 0.5 and variance 0.03; the fitted beta is close
    a, b = fitted.alpha, fitted.beta
    assert a / (a + b) == pytest.approx(0.5, abs=0.03)
    assert a * b / ((a + b) ** 2 * (a + b + 1)) == pytest.approx(0.03, abs=0.01)
    assert fitted.mean_p == pytest.approx(0.57, abs=0.01)
    assert fitted.mean_pq == pytest.approx(0.066, abs=0.004)
    assert fitted.n_items == 4000
    assert fitted.n_runs == 8
    assert fitted.n_promote == 40


def test_likelihood_is_the_plain_sum_and_a_maximum(fitted: FittedDesign) -> None:
    bench = simulate_benchmark(n_items=4000, n_runs=8, rng=0)
    k = bench.baseline.sum(axis=0)
    best = _loglik(k, 8, fitted.share_easy, fitted.share_hard, fitted.alpha, fitted.beta)
    assert fitted.log_likelihood == pytest.approx(best, rel=1e-10)
    for de, dh, fa in ((0.01, 0, 1), (0, 0.01, 1), (0, 0, 1.1), (-0.01, 0, 0.9)):
        nearby = _loglik(
            k, 8, fitted.share_easy + de, fitted.share_hard + dh, fitted.alpha * fa, fitted.beta
        )
        assert nearby < best


def test_posterior_shrinks_each_item(fitted: FittedDesign) -> None:
    weights = fitted.item_easy + fitted.item_hard
    assert np.all((weights >= 0) & (weights <= 1 + 1e-12))
    rates = fitted.shrunk_rates
    k = np.rint(fitted.item_a - fitted.alpha).astype(int)
    observed = k / 8
    prior_mean = fitted.alpha / (fitted.alpha + fitted.beta)
    middle = (k > 0) & (k < 8)
    # middle items: posterior mean between the observed rate and the prior mean
    lo = np.minimum(observed, prior_mean)[middle]
    hi = np.maximum(observed, prior_mean)[middle]
    assert np.all((rates[middle] >= lo - 1e-12) & (rates[middle] <= hi + 1e-12))
    # an item right in 8 of 8 runs is almost surely always right
    e, h, a, b = fitted.share_easy, fitted.share_hard, fitted.alpha, fitted.beta
    mid = (1 - e - h) * math.exp(special.betaln(a + 8, b) - special.betaln(a, b))
    assert fitted.item_easy[k == 8][0] == pytest.approx(e / (e + mid))
    assert np.all(fitted.item_easy[k < 8] == 0)
    assert np.all(fitted.item_hard[k > 0] == 0)


def test_simulated_benchmarks_look_like_the_data(fitted: FittedDesign) -> None:
    p = fitted.latent_batch(20, np.random.default_rng(1))
    assert p.shape == (20, 4000)
    assert np.mean(p == 1.0) == pytest.approx(fitted.item_easy.mean(), abs=0.01)
    assert np.mean(p == 0.0) == pytest.approx(fitted.hard_share, abs=0.01)
    assert p.mean() == pytest.approx(fitted.mean_p, abs=0.01)
    sim = simulate_models(fitted, rng=2)
    assert sim.finetune.mean() - sim.baseline.mean() == pytest.approx(0.01, abs=0.01)


def test_audit_on_a_fitted_design(fitted: FittedDesign) -> None:
    result = audit(fitted, methods=["paired-t", "run-bootstrap-sqrt-b"], n_simulations=200, rng=3)
    honest = result.method("paired-t")
    assert stats.binom.cdf(honest.false_positive_hits, 200, 0.05) > 0.0005
    assert stats.binom.sf(honest.false_positive_hits - 1, 200, 0.05) > 0.0005
    assert result.method("run-bootstrap-sqrt-b").false_positive_rate > 0.25
    assert result.to_dict()["design"]["generator"] == "fitted"
    assert (honest.false_positive_hits, honest.power_hits) == (8, 194)  # pinned seeded counts


def test_fit_validation() -> None:
    with pytest.raises(DataError, match="one run per item"):
        fit_design(np.array([1, 0, 1, 1]))
    with pytest.raises(DataError, match="other than 0 and 1"):
        fit_design(np.array([[0.5, 1.0], [1.0, 0.0]]))
    runs = np.array([[1, 0, 1, 0], [1, 0, 1, 0]])
    design = fit_design(runs, n_items=200, uplift=0.0)
    assert design.share_easy == pytest.approx(0.5)
    assert design.share_hard == pytest.approx(0.5)
    assert any("answered the same way" in n for n in design.notes)
    with pytest.raises(DataError, match="always-wrong"):
        fit_design(np.ones((3, 50), dtype=int), n_items=100, uplift=0.05)
