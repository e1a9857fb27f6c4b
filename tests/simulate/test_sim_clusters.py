"""Clustered items: the copula's ICC by quadrature, and the realised ICC in simulations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from evalsig.errors import DataError
from evalsig.power import design_effect
from evalsig.simulate import (
    MixtureDesign,
    cluster_codes,
    copula_icc,
    copula_rho,
    max_icc,
    simulate_benchmark,
    simulate_models,
)
from evalsig.simulate.clusters import mixture_quantile


def _icc_by_nested_quad(rho: float) -> float:
    """Reference: E[p | a] by adaptive quadrature in z, then Var over a by quadrature."""
    t0, t1 = special.ndtri(0.28), special.ndtri(0.58)
    tau = math.sqrt(1 - rho)

    def h(a: float) -> float:
        c = math.sqrt(rho) * a

        def f(z: float) -> float:
            p = mixture_quantile(np.array([special.ndtr(z)]), 0.42, 0.28, (0.2, 0.8))[0]
            return float(p * stats.norm.pdf(z, c, tau))

        return integrate.quad(f, t0, t1, epsabs=1e-13)[0] + float(stats.norm.sf(t1, c, tau))

    m2 = integrate.quad(lambda a: h(a) ** 2 * stats.norm.pdf(a), -9, 9, epsabs=1e-12, limit=200)
    return (m2[0] - 0.57**2) / (0.57 * 0.43)


def test_copula_icc_matches_nested_quadrature() -> None:
    assert copula_icc(0.3) == pytest.approx(_icc_by_nested_quad(0.3), abs=1e-9)
    assert copula_icc(0.0) == 0.0
    assert copula_icc(0.3) == pytest.approx(0.1753412780887, abs=1e-10)


def test_copula_rho_inverts_and_is_monotone() -> None:
    values = [copula_icc(r) for r in np.linspace(0.0, 0.99, 12)]
    assert all(b > a for a, b in itertools.pairwise(values))
    for target in (0.01, 0.1, 0.5):
        assert copula_icc(copula_rho(target)) == pytest.approx(target, abs=1e-10)
    ceiling = 0.1791 / (0.57 * 0.43)  # Var(p) / (mu (1 - mu)): identical items per cluster
    assert max_icc() < ceiling
    assert max_icc() == pytest.approx(0.712938, abs=1e-6)
    with pytest.raises(DataError, match="largest intra-cluster correlation"):
        copula_rho(0.72)
    with pytest.raises(DataError, match=">= 0"):
        copula_rho(-0.1)


def test_cluster_codes_are_balanced() -> None:
    codes = cluster_codes(4001, 100)
    sizes = np.bincount(codes)
    assert len(sizes) == 100
    assert sizes.min() >= 40
    assert sizes.max() <= 41
    assert np.all(np.diff(codes) >= 0)
    with pytest.raises(DataError, match="n_clusters"):
        cluster_codes(10, 11)


@pytest.mark.parametrize(("icc", "n_clusters", "pinned"), [(0.1, 100, 0.0993), (0.3, 50, 0.2997)])
def test_realised_icc_of_scores_matches_the_target(
    icc: float, n_clusters: int, pinned: float
) -> None:
    """The ANOVA ICC of one run's scores, over 200 benchmarks, is the target within 4 MC SEs."""
    design = MixtureDesign(n_clusters=n_clusters, icc=icc)
    rng = np.random.default_rng(1)
    p = design.latent_batch(200, rng)
    scores = (rng.random(p.shape) < p).astype(float)
    assert design.clusters is not None
    estimates = np.array([design_effect(row, design.clusters).icc for row in scores])
    mc_se = estimates.std(ddof=1) / math.sqrt(len(estimates))
    assert abs(estimates.mean() - icc) < 4 * mc_se
    assert round(float(estimates.mean()), 4) == pinned
    # the marginal mixture is the unclustered one
    assert np.mean(p == 1.0) == pytest.approx(0.42, abs=0.01)
    assert np.mean(p == 0.0) == pytest.approx(0.28, abs=0.01)
    assert p.mean() == pytest.approx(0.57, abs=0.01)


def test_clustered_benchmarks_carry_their_clusters() -> None:
    bench = simulate_benchmark(n_items=1000, n_runs=2, uplift=0.01, rng=0, n_clusters=20, icc=0.2)
    assert bench.clusters is not None
    assert bench.clusters.shape == (1000,)
    assert bench.true_difference == pytest.approx(0.01)
    sim = simulate_models(MixtureDesign(n_items=1000, n_clusters=20, icc=0.2), rng=0)
    assert np.array_equal(sim.clusters, bench.clusters)
    assert np.array_equal(sim.pair("clone").clusters, sim.clusters)
    with pytest.raises(DataError, match="needs clusters"):
        simulate_benchmark(n_items=100, icc=0.1)
