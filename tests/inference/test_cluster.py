"""Cluster-robust tests: golden values, statsmodels and dense oracles, bootstraps, calibration."""

from __future__ import annotations

import itertools
import math
from random import Random
from typing import Any

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from evalsig.errors import AlignmentError, DataError
from evalsig.inference._cluster import (
    _ClusterSummary,
    _pairs_replicates,
    bell_mccaffrey_df,
    cluster_bootstrap,
    cluster_robust,
)
from evalsig.inference._common import InferenceResult
from evalsig.inference.resampling import atoms, bootstrap_totals

# REFERENCE.md, "Cluster-robust standard error of a mean": a mean of S is the paired mean
# difference against an all-zero baseline.
S = [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1]
C = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3]
ZEROS = [0] * 12
FEW = "cluster-robust inference is unreliable with fewer than about 30 clusters"


def _clustered(
    seed: int, sizes: list[int], icc_sd: float = 0.5, shift: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Per-item differences with a shared effect per cluster; returns (d, codes)."""
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    d = shift + rng.normal(0.0, icc_sd, len(sizes))[codes] + rng.normal(0.0, 1.0, codes.size)
    return d, codes


def _cr1_loop(d: np.ndarray, codes: np.ndarray) -> float:
    """CR1 standard error of a mean by plain loops."""
    n, groups = len(d), sorted(set(codes.tolist()))
    mean = sum(d) / n
    meat = 0.0
    for g in groups:
        total = sum(d[i] - mean for i in range(n) if codes[i] == g)
        meat += total * total
    return math.sqrt(len(groups) / (len(groups) - 1) * meat) / n


# --- golden values -------------------------------------------------------------------------


def test_golden_cr1_statsmodels() -> None:
    # statsmodels 0.15: sm.OLS(S, np.ones(12)).fit(cov_type='cluster',
    #     cov_kwds={'groups': C}, use_t=True) -> bse 0.1814436847, conf_int (0.0892318828,
    #     1.2441014505) on t(G - 1 = 3); mean 0.6666666667.
    r = cluster_robust(ZEROS, S, C, method="cr1")
    assert r.method == "cluster-cr1"
    assert r.estimate == pytest.approx(0.6666666667, rel=1e-9)
    assert r.se == pytest.approx(0.1814436847, rel=1e-9)
    assert r.df == 3
    assert r.ci.low == pytest.approx(0.0892318828, rel=1e-9)
    assert r.ci.high == pytest.approx(1.2441014505, rel=1e-9)
    assert (r.statistic_name, r.estimand) == ("t", "mean difference")


def test_golden_cr0() -> None:
    # REFERENCE.md: CR0 0.1571348403 (statsmodels cov_type='cluster' with
    # cov_kwds={'groups': C, 'use_correction': False}); CR1 = CR0 * sqrt(G / (G - 1)), K = 1.
    r = cluster_robust(ZEROS, S, C, method="cr1")
    assert r.se * math.sqrt(3 / 4) == pytest.approx(0.1571348403, rel=1e-9)


def test_golden_cr2_bell_mccaffrey() -> None:
    # REFERENCE.md: CR2 (Bell-McCaffrey) 0.1825741858 for S clustered by C. By hand: residual
    # totals E = (0, 4/3, -4/3, 0), sizes (3, 4, 2, 3), so sqrt((16/9) / (2/3) + (16/9) / (5/6))
    # / 12 = sqrt(4.8) / 12; the dense oracle below checks the general formula.
    r = cluster_robust(ZEROS, S, C)
    assert r.method == "cluster-cr2"
    assert r.se == pytest.approx(0.1825741858, rel=1e-9)
    assert r.se == pytest.approx(math.sqrt(4.8) / 12, rel=1e-14)
    # w = (1/4, 1/3, 1/6, 1/4): 1 / (sum w^2 - sum b^2 + (sum b)^2) = 45 / 16 = 2.8125
    assert r.df == pytest.approx(2.8125, rel=1e-12)


@pytest.mark.parametrize("variant", ["cr1", "cr2"])
def test_golden_naive_se_with_singleton_clusters(variant: str) -> None:
    # REFERENCE.md: naive SE (ddof=1) 0.1421338109, i.e. scipy.stats.sem(S). With every item
    # its own cluster both CR1 and CR2 are the paired t-test.
    r = cluster_robust(ZEROS, S, list(range(12)), method=variant)  # type: ignore[arg-type]
    assert r.se == pytest.approx(0.1421338109, rel=1e-9)
    assert r.df == pytest.approx(11, rel=1e-12)


def test_cluster_labels_of_any_hashable_type_agree() -> None:
    ints = cluster_robust(ZEROS, S, C)
    for labels in (
        ["m", "m", "m", "b", "b", "b", "b", "z", "z", "a", "a", "a"],
        np.array(C, dtype=np.float64) * 0.5,
        tuple((c, "x") for c in C),
        np.array(["p", "p", "p", "q", "q", "q", "q", "r", "r", "s", "s", "s"]),
    ):
        r = cluster_robust(ZEROS, S, labels)
        assert (r.se, r.df, r.pvalue) == pytest.approx((ints.se, ints.df, ints.pvalue), rel=1e-14)


def test_pandas_labels() -> None:
    pd = pytest.importorskip("pandas")
    labels = pd.Series(["s1", "s1", "s1", "s2", "s2", "s2", "s2", "s3", "s3", "s4", "s4", "s4"])
    assert cluster_robust(ZEROS, S, labels).se == pytest.approx(0.1825741858, rel=1e-9)
    categorical = labels.astype("category")
    assert cluster_robust(ZEROS, S, categorical).se == pytest.approx(0.1825741858, rel=1e-9)


# --- CR1: statsmodels oracle ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_cr1_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=int(rng.integers(3, 25))).tolist()
    d, codes = _clustered(seed, sizes, shift=0.2)
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    ours = cluster_robust(np.zeros(len(d)), d, codes, method="cr1", confidence_level=0.9)
    assert ours.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert ours.statistic == pytest.approx(fit.tvalues[0], rel=1e-10)
    assert ours.pvalue == pytest.approx(fit.pvalues[0], rel=1e-8)
    assert ours.df == fit.df_resid_inference == len(sizes) - 1
    low, high = fit.conf_int(alpha=0.1)[0]
    assert (ours.ci.low, ours.ci.high) == pytest.approx((low, high), rel=1e-10)
    # one-sided p-values from the same t and df
    greater = cluster_robust(
        baseline=np.zeros(len(d)), candidate=d, cluster=codes, method="cr1", alternative="greater"
    )
    assert greater.pvalue == pytest.approx(stats.t.sf(fit.tvalues[0], len(sizes) - 1), rel=1e-8)


# --- CR2: dense Bell-McCaffrey oracle ------------------------------------------------------


def _dense_bell_mccaffrey(d: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """CR2 SE and Imbens-Kolesar df of the intercept by the general matrix formulas."""
    n = len(d)
    x = np.ones((n, 1))
    bread = np.linalg.inv(x.T @ x)
    hat = x @ bread @ x.T
    m = np.eye(n) - hat
    e = m @ d
    meat = np.zeros((1, 1))
    columns = []
    for g in np.unique(codes):
        idx = np.flatnonzero(codes == g)
        lam, q = np.linalg.eigh(np.eye(len(idx)) - hat[np.ix_(idx, idx)])
        a = q @ np.diag(lam**-0.5) @ q.T  # (I - H_gg)^(-1/2)
        score = x[idx].T @ a @ e[idx]
        meat += np.outer(score, score)
        columns.append(m[:, idx] @ a @ x[idx] @ bread)
    variance = (bread @ meat @ bread)[0, 0]
    g_matrix = np.hstack(columns)
    eig = np.linalg.eigvalsh(g_matrix.T @ g_matrix)
    return math.sqrt(variance), float(eig.sum() ** 2 / (eig**2).sum())


@pytest.mark.parametrize("seed", range(8))
def test_cr2_matches_dense_bell_mccaffrey(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    sizes = rng.integers(1, 9, size=int(rng.integers(2, 12))).tolist()
    if seed == 0:
        sizes = [1, 30, 2]  # one dominant cluster
    d, codes = _clustered(seed, sizes)
    se, df = _dense_bell_mccaffrey(d, codes)
    r = cluster_robust(np.zeros(len(d)), d, codes)
    assert r.se == pytest.approx(se, rel=1e-10)
    assert r.df == pytest.approx(df, rel=1e-10)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(r.estimate / se), df), rel=1e-8)


@pytest.mark.parametrize("seed", range(10))
def test_bell_mccaffrey_df_closed_form_matches_s_matrix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=int(rng.integers(2, 9)))
    n, codes = int(sizes.sum()), np.repeat(np.arange(len(sizes)), sizes)
    w = sizes / n
    c = np.zeros((n, len(sizes)))
    c[np.arange(n), codes] = 1.0 / (n * np.sqrt(1.0 - w[codes]))
    s = c.T @ (np.eye(n) - np.ones((n, n)) / n) @ c
    u = sizes / (n * np.sqrt(1.0 - w))
    assert s == pytest.approx(np.diag(sizes / (n**2 * (1.0 - w))) - np.outer(u, u) / n)
    assert np.trace(s) == pytest.approx(1.0 / n, rel=1e-12)
    expected = np.trace(s) ** 2 / np.trace(s @ s)
    assert bell_mccaffrey_df(sizes) == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize(("g", "m"), [(2, 1), (2, 7), (5, 3), (40, 25)])
def test_bell_mccaffrey_df_is_g_minus_1_for_balanced_clusters(g: int, m: int) -> None:
    assert bell_mccaffrey_df(np.full(g, m)) == pytest.approx(g - 1, rel=1e-12)


# --- pairs cluster bootstrap ---------------------------------------------------------------


@pytest.mark.parametrize("compressible", [True, False])
def test_pairs_bootstrap_matches_explicit_cluster_resampling(compressible: bool) -> None:
    rng = np.random.default_rng(11)
    if compressible:  # 0/1 differences in equal clusters: few distinct (T_g, n_g) rows
        codes = np.repeat(np.arange(120), 4)
        d = rng.integers(0, 2, codes.size).astype(float) - rng.integers(0, 2, codes.size)
    else:
        d, codes = _clustered(12, rng.integers(2, 9, size=25).tolist())
    summary = _ClusterSummary.of(d, codes)
    rows = np.column_stack([summary.totals, summary.sizes])
    distinct, atom_of = np.unique(rows, axis=0, return_inverse=True)
    assert (len(atoms(rows).counts) * 8 <= len(rows)) is compressible  # the engine's two paths
    # The engine is linear in the rows, so appending one-hot atom columns to the same rows
    # reveals how often each atom was drawn, with the same random stream.
    b = 400
    ours = _pairs_replicates(summary, b, np.random.default_rng(5))
    onehot = np.eye(len(distinct))[atom_of.ravel()]
    counts = bootstrap_totals(np.column_stack([rows, onehot]), b, np.random.default_rng(5))[:, 2:]
    counts = np.rint(counts).astype(int)
    assert (counts.sum(axis=1) == len(rows)).all()
    members = [np.flatnonzero(atom_of.ravel() == j) for j in range(len(distinct))]
    items = [np.flatnonzero(codes == g) for g in range(len(rows))]
    for r in range(b):
        chosen = [
            members[j][k % len(members[j])]
            for j in range(len(distinct))
            for k in range(counts[r, j])
        ]
        index = np.concatenate([items[g] for g in chosen])
        assert ours[r] == pytest.approx(d[index].mean(), rel=1e-12, abs=1e-15)


def test_pairs_bootstrap_distribution_matches_naive_cluster_resampling() -> None:
    # Binary differences in 250 clusters of 3 to 5 items: few distinct (T_g, n_g) rows, so
    # the engine draws multinomial atom counts instead of cluster indices.
    rng = np.random.default_rng(21)
    codes = np.repeat(np.arange(250), rng.integers(3, 6, size=250))
    d = rng.integers(0, 2, codes.size).astype(float) - (rng.random(codes.size) < 0.4)
    summary = _ClusterSummary.of(d, codes)
    n_atoms = len(atoms(np.column_stack([summary.totals, summary.sizes])).counts)
    assert n_atoms * 8 <= 250
    b = 20_000
    engine = _pairs_replicates(summary, b, np.random.default_rng(22))
    drawn = np.random.default_rng(23).integers(0, 250, size=(b, 250))  # naive: cluster indices
    naive = summary.totals[drawn].sum(axis=1) / summary.sizes[drawn].sum(axis=1)
    se = cluster_robust(np.zeros(len(d)), d, codes, method="cr1").se
    # Seeded counts below three thresholds; each pair of counts is two Binomial(B, p) draws,
    # so their difference lies within 4 standard deviations (two-sided 6e-5) if they agree.
    observed = []
    for threshold in (d.mean() - se, d.mean(), d.mean() + se):
        k1, k2 = int(np.sum(engine <= threshold)), int(np.sum(naive <= threshold))
        p = (k1 + k2) / (2 * b)
        assert abs(k1 - k2) <= 4 * math.sqrt(2 * b * p * (1 - p))
        observed.append((k1, k2))
    assert observed == [(3105, 3179), (9925, 10060), (16771, 16852)]
    assert engine.std() == pytest.approx(naive.std(), rel=0.03)


def test_pairs_bootstrap_result() -> None:
    d, codes = _clustered(31, [6] * 40, shift=0.4)
    r = cluster_bootstrap(np.zeros(len(d)), d, codes, n_resamples=4000, rng=32)
    assert (r.method, r.statistic_name, r.df, r.n_resamples) == (
        "cluster-bootstrap",
        "mean difference",
        None,
        4000,
    )
    assert r.statistic == r.estimate == pytest.approx(d.mean())
    assert r.pvalue == pytest.approx(2 / 4001)  # no replicate at or below 0
    assert r.se == pytest.approx(cluster_robust(np.zeros(len(d)), d, codes).se, rel=0.1)
    assert not any(FEW in note for note in r.notes)
    again = cluster_bootstrap(np.zeros(len(d)), d, codes, n_resamples=4000, rng=32)
    assert (again.ci.low, again.ci.high) == (r.ci.low, r.ci.high)
    narrower = r.confidence_interval(0.5)
    assert r.ci.low < narrower.low < r.estimate < narrower.high < r.ci.high


# --- wild cluster bootstrap-t --------------------------------------------------------------


def _wild_brute_force(d: np.ndarray, codes: np.ndarray, delta: float) -> tuple[float, float]:
    """Exact one-sided p-values (greater, less) over all 2^G sign vectors, by loops."""
    groups = len(set(codes.tolist()))
    t_obs = (d.mean() - delta) / _cr1_loop(d, codes)
    greater = less = 0
    for signs in itertools.product([-1.0, 1.0], repeat=groups):
        star = np.array([delta + signs[c] * (x - delta) for x, c in zip(d, codes, strict=True)])
        se = _cr1_loop(star, codes)
        t = (star.mean() - delta) / se if se > 0 else math.copysign(math.inf, star.mean() - delta)
        greater += t >= t_obs - 1e-9
        less += t <= t_obs + 1e-9
    return greater / 2**groups, less / 2**groups


@pytest.mark.parametrize("seed", range(3))
def test_wild_exact_enumeration_matches_brute_force(seed: int) -> None:
    d, codes = _clustered(40 + seed, [3, 5, 2, 4, 6, 3], shift=0.5)
    greater, less = _wild_brute_force(d, codes, 0.0)
    base = np.zeros(len(d))
    r = {
        alt: cluster_bootstrap(
            baseline=base, candidate=d, cluster=codes, method="wild", alternative=alt
        )  # type: ignore[arg-type]
        for alt in ("greater", "less", "two-sided")
    }
    assert r["greater"].pvalue == pytest.approx(greater, rel=1e-12)
    assert r["less"].pvalue == pytest.approx(less, rel=1e-12)
    assert r["two-sided"].pvalue == pytest.approx(min(1.0, 2 * min(greater, less)), rel=1e-12)
    assert r["greater"].n_resamples is None
    assert any("exact enumeration of all 2^6 = 64 sign vectors" in n for n in r["greater"].notes)
    assert r["greater"].statistic == pytest.approx(d.mean() / _cr1_loop(d, codes), rel=1e-12)
    # The interval inverts the same test: at its bounds the brute-force p-value crosses the tail.
    ci = cluster_bootstrap(base, d, codes, method="wild", confidence_level=0.9).ci
    step = 1e-7 * r["greater"].se
    assert _wild_brute_force(d, codes, ci.low)[0] > 0.05
    assert _wild_brute_force(d, codes, ci.low - step)[0] <= 0.05
    assert _wild_brute_force(d, codes, ci.high)[1] > 0.05
    assert _wild_brute_force(d, codes, ci.high + step)[1] <= 0.05


def test_wild_monte_carlo_agrees_with_exact_enumeration() -> None:
    d, codes = _clustered(50, [4, 6, 3, 5, 8, 2, 7, 4, 5, 6, 3, 4], shift=0.8)
    base = np.zeros(len(d))
    exact = cluster_bootstrap(base, d, codes, method="wild", n_resamples=2**12)
    mc = cluster_bootstrap(base, d, codes, method="wild", n_resamples=3000, rng=51)
    assert exact.n_resamples is None
    assert mc.n_resamples == 3000
    assert any("Monte Carlo over 3,000 sign vectors" in n for n in mc.notes)
    k = mc.pvalue * 3001 / 2  # two-sided p = 2 (k + 1) / (B + 1) here
    assert k == pytest.approx(round(k), abs=1e-9)
    assert (exact.pvalue, mc.pvalue) == (38 / 4096, 2 * 15 / 3001)
    band = 4 * math.sqrt(exact.pvalue * (1 - exact.pvalue) / 3000) * 2
    assert abs(mc.pvalue - exact.pvalue) <= band
    assert mc.ci.low == pytest.approx(exact.ci.low, abs=0.1 * mc.se)
    assert mc.ci.high == pytest.approx(exact.ci.high, abs=0.1 * mc.se)


def test_wild_with_very_few_clusters_cannot_reject() -> None:
    r = cluster_bootstrap(ZEROS, S, C, method="wild")
    assert r.pvalue == 0.25  # two of the 16 sign vectors reach t_obs: cluster 2 totals 0
    assert (r.ci.low, r.ci.high) == (-math.inf, math.inf)
    assert any("smallest attainable two-sided p-value is 0.125" in n for n in r.notes)
    assert r.statistic == pytest.approx(cluster_robust(ZEROS, S, C, method="cr1").statistic)


def test_wild_monte_carlo_swap_uses_the_same_sign_vectors() -> None:
    d, codes = _clustered(52, [3] * 16, shift=0.3)
    x, y = np.zeros(len(d)), d
    forward = cluster_bootstrap(x, y, codes, method="wild", n_resamples=999, rng=53)
    backward = cluster_bootstrap(y, x, codes, method="wild", n_resamples=999, rng=53)
    assert forward.n_resamples == 999  # 2^16 sign vectors: Monte Carlo
    assert backward.pvalue == forward.pvalue
    assert backward.statistic == pytest.approx(-forward.statistic, rel=1e-12)
    assert backward.ci.low == pytest.approx(-forward.ci.high, rel=1e-9)
    assert backward.ci.high == pytest.approx(-forward.ci.low, rel=1e-9)
    wider = forward.confidence_interval(0.99)
    assert wider.low <= forward.ci.low < forward.ci.high <= wider.high


# --- properties ----------------------------------------------------------------------------


@st.composite
def clustered_scores(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=7))
    n = sum(sizes)
    value = st.integers(0, 8).map(lambda k: k / 8)  # per-item means over 8 runs
    baseline = np.array(draw(st.lists(value, min_size=n, max_size=n)))
    candidate = np.array(draw(st.lists(value, min_size=n, max_size=n)))
    return baseline, candidate, np.repeat(np.arange(len(sizes)), sizes)


def _run(
    variant: str, x: np.ndarray, y: np.ndarray, labels: object, **options: Any
) -> InferenceResult:
    """One test; at most 7 clusters here, so the wild bootstrap enumerates every sign vector."""
    if variant in ("cr1", "cr2"):
        return cluster_robust(  # type: ignore[misc]
            baseline=x, candidate=y, cluster=labels, method=variant, **options
        )
    return cluster_bootstrap(
        baseline=x,
        candidate=y,
        cluster=labels,
        method=variant,  # type: ignore[arg-type]
        n_resamples=300,
        rng=0,
        **options,
    )


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12)


@given(clustered_scores(), st.sampled_from(["cr1", "cr2", "wild"]))
def test_swapping_models_flips_the_sign(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], variant: str
) -> None:
    x, y, codes = data
    forward, backward = _run(variant, x, y, codes), _run(variant, y, x, codes)
    assert _same(backward.estimate, -forward.estimate)
    assert _same(backward.pvalue, forward.pvalue)
    assert _same(backward.ci.low, -forward.ci.high)
    assert _same(backward.ci.high, -forward.ci.low)


@given(clustered_scores(), st.sampled_from(["cr1", "cr2", "wild"]), st.randoms())
def test_relabelling_clusters_and_reordering_items_changes_nothing(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], variant: str, random: Random
) -> None:
    x, y, codes = data
    order = list(range(len(x)))
    random.shuffle(order)
    names = [f"cluster-{k}" for k in range(codes.max() + 1)]
    random.shuffle(names)
    labels = [names[codes[i]] for i in order]
    a, b = _run(variant, x, y, codes), _run(variant, x[order], y[order], labels)
    for field in ("estimate", "se", "statistic", "pvalue"):
        assert _same(getattr(a, field), getattr(b, field)), field
    assert _same(a.ci.low, b.ci.low)
    assert _same(a.ci.high, b.ci.high)


@given(
    clustered_scores(),
    st.sampled_from(["cr1", "cr2", "wild", "pairs"]),
    st.sampled_from(["two-sided", "greater", "less"]),
)
def test_interval_contains_the_estimate(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], variant: str, alternative: str
) -> None:
    x, y, codes = data
    r = _run(variant, x, y, codes, alternative=alternative)
    assert r.ci.low - 1e-12 <= r.estimate <= r.ci.high + 1e-12


@given(
    clustered_scores(),
    st.sampled_from(["cr1", "cr2"]),
    st.sampled_from(["two-sided", "greater", "less"]),
    st.floats(0.5, 0.99),
)
def test_pvalue_and_interval_are_dual(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], variant: str, alternative: str, level: float
) -> None:
    x, y, codes = data
    r = _run(variant, x, y, codes, alternative=alternative, confidence_level=level)
    if math.isnan(r.pvalue) or r.se == 0 or abs(r.pvalue - (1 - level)) < 1e-9:
        return
    assert (r.pvalue < 1 - level) == (not r.ci.contains(0.0))


# --- calibration ---------------------------------------------------------------------------


@pytest.mark.slow
def test_false_positive_rate_and_coverage_with_50_clusters() -> None:
    # 2000 null data sets of 50 clusters with 5 to 35 items each (20 on average) and an
    # intra-cluster correlation of 0.2 (cluster effect sd 0.5, item noise sd 1).
    rng = np.random.default_rng(20240)
    sizes = rng.integers(5, 36, size=50)
    codes = np.repeat(np.arange(50), sizes)
    base = np.zeros(codes.size)
    rejected = {"cr1": 0, "cr2": 0}
    covered = {"cr1": 0, "cr2": 0}
    for _ in range(2000):
        d = rng.normal(0, 0.5, 50)[codes] + rng.normal(0, 1.0, codes.size)
        for variant in ("cr1", "cr2"):
            r = cluster_robust(base, d, codes, method=variant)  # type: ignore[arg-type]
            rejected[variant] += r.pvalue <= 0.05
            covered[variant] += r.ci.contains(0.0)
    assert rejected == {"cr1": 109, "cr2": 106}
    assert covered == {"cr1": 1891, "cr2": 1894}
    low, high = stats.binom.interval(0.99, 2000, 0.05)  # (76, 126)
    assert all(low <= k <= high for k in rejected.values())
    low, high = stats.binom.interval(0.99, 2000, 0.95)  # (1874, 1924)
    assert all(low <= k <= high for k in covered.values())


@pytest.mark.slow
def test_pairs_bootstrap_over_rejects_with_8_clusters() -> None:
    # 1000 null data sets of 8 unequal clusters (5 to 60 items), same correlation as above.
    sizes = [5, 10, 15, 20, 25, 30, 40, 60]
    rng = np.random.default_rng(8)
    codes = np.repeat(np.arange(8), sizes)
    base = np.zeros(codes.size)
    rejected = dict.fromkeys(("pairs", "wild", "cr2", "cr1"), 0)
    for _ in range(1000):
        d = rng.normal(0, 0.5, 8)[codes] + rng.normal(0, 1.0, codes.size)
        results = {
            "cr2": cluster_robust(base, d, codes),
            "cr1": cluster_robust(base, d, codes, method="cr1"),
            "pairs": cluster_bootstrap(base, d, codes, n_resamples=999, rng=rng),
            "wild": cluster_bootstrap(base, d, codes, method="wild", n_resamples=999, rng=rng),
        }
        for name, r in results.items():
            rejected[name] += r.pvalue <= 0.05
            assert any(note.startswith(f"only 8 clusters: {FEW}") for note in r.notes)
    assert rejected == {"pairs": 128, "wild": 38, "cr2": 49, "cr1": 77}
    low, high = stats.binom.interval(0.99, 1000, 0.05)  # (33, 69)
    assert rejected["pairs"] > high  # 12.8%: far outside the band around 5%
    assert rejected["pairs"] > 2 * rejected["cr2"]
    assert low <= rejected["cr2"] <= high
    assert low <= rejected["wild"] <= high


# --- degenerate cases and notes ------------------------------------------------------------


@pytest.mark.parametrize("variant", ["cr1", "cr2", "pairs", "wild"])
def test_identical_models_give_p_one(variant: str) -> None:
    r = _run(variant, np.array(S, float), np.array(S, float), C)
    assert r.pvalue == 1.0
    assert (r.estimate, r.se, r.ci.low, r.ci.high) == (0.0, 0.0, 0.0, 0.0)
    assert any("every per-item difference is 0" in note for note in r.notes)


@pytest.mark.parametrize("variant", ["cr1", "cr2", "pairs", "wild"])
def test_constant_difference_has_no_p_value(variant: str) -> None:
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    r = _run(variant, x, x + 0.1, [0, 0, 1, 1, 1, 2, 2])
    assert math.isnan(r.pvalue)
    assert r.se == 0.0
    assert r.estimate == pytest.approx(0.1)
    assert any("every cluster has the same mean difference +0.1" in n for n in r.notes)


def test_equal_cluster_means_of_zero_give_p_one() -> None:
    r = cluster_robust(ZEROS[:4], [1.0, -1.0, 0.5, -0.5], ["a", "a", "b", "b"])
    assert (r.pvalue, r.statistic, r.se) == (1.0, 0.0, 0.0)
    assert any("every cluster's mean difference is 0" in n for n in r.notes)


def test_few_clusters_note_only_below_30() -> None:
    d, codes = _clustered(60, [3] * 30)
    assert not any(FEW in n for n in cluster_robust(np.zeros(90), d, codes).notes)
    r = cluster_robust(np.zeros(87), d[:87], codes[:87])
    assert f"only 29 clusters: {FEW}" in " ".join(r.notes)
    assert "90 items in 30 clusters (sizes 3 to 3)." in cluster_robust(np.zeros(90), d, codes).notes


# --- bad input -----------------------------------------------------------------------------


def test_bad_cluster_labels() -> None:
    with pytest.raises(DataError, match=r"`cluster` has 11 labels but there are 12 items"):
        cluster_robust(ZEROS, S, C[:11])
    with pytest.raises(DataError, match=r"2 missing label\(s\) \(None or NaN\) at 'position 1', "):
        cluster_robust(ZEROS, S, [0, None, 0, 1, 1, float("nan"), 1, 2, 2, 3, 3, 3])
    with pytest.raises(DataError, match=r"1 missing label\(s\) \(None or NaN\) at 'position 4'"):
        cluster_robust(ZEROS, S, np.where(np.arange(12) == 4, np.nan, np.array(C, float)))
    with pytest.raises(DataError, match=r"single cluster \('x'\); .* at least 2 clusters"):
        cluster_robust(ZEROS, S, ["x"] * 12)
    with pytest.raises(DataError, match=r"unhashable label \[0\] at position 0"):
        cluster_robust(ZEROS, S, [[0], *C[1:]])
    with pytest.raises(DataError, match=r"one-dimensional, one label per item; got shape"):
        cluster_robust(ZEROS, S, np.zeros((12, 2)))
    with pytest.raises(DataError, match=r"`cluster` must be a sequence of 12 cluster labels"):
        cluster_robust(ZEROS, S, "abcdefghijkl")
    with pytest.raises(DataError, match=r"`cluster` must be a sequence of 12 cluster labels"):
        cluster_robust(ZEROS, S, 3)


def test_pandas_missing_labels() -> None:
    pd = pytest.importorskip("pandas")
    labels = pd.Series(["a"] * 6 + [pd.NA] + ["b"] * 5, dtype="string")
    with pytest.raises(DataError, match=r"1 missing label\(s\) .* 'position 6'"):
        cluster_robust(ZEROS, S, labels)


def test_bad_options_and_scores() -> None:
    with pytest.raises(DataError, match=r"`method` must be one of 'cr2', 'cr1'; got 'CR2'"):
        cluster_robust(ZEROS, S, C, method="CR2")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`method` must be one of 'pairs', 'wild'; got 'cr2'"):
        cluster_bootstrap(ZEROS, S, C, method="cr2")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="`n_resamples` must be at least 100; got 5"):
        cluster_bootstrap(ZEROS, S, C, n_resamples=5)
    with pytest.raises(DataError, match=r"`rng` must be a numpy\.random\.Generator"):
        cluster_bootstrap(ZEROS, S, C, rng="seed")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="`alternative` must be one of"):
        cluster_robust(baseline=ZEROS, candidate=S, cluster=C, alternative="bigger")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="`confidence_level` must be a number strictly between"):
        cluster_bootstrap(ZEROS, S, C, confidence_level=95)
    with pytest.raises(AlignmentError, match=r"`baseline` has shape \(11,\)"):
        cluster_robust(ZEROS[:11], S, C)
    with pytest.raises(DataError, match=r"`candidate` ha(s|ve) 1 NaN value\(s\)"):
        cluster_robust(ZEROS, [math.nan, *S[1:]], C)
