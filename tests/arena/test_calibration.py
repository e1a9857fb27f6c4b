"""Calibration by simulation: battles drawn from known Bradley-Terry (and Davidson)
strengths, refitted; the intervals must cover the truth at their level.

Every count is seeded (asserted exactly) and must lie in the 99% binomial band of the
nominal level: ``scipy.stats.binom.ppf([0.005, 0.995], reps, 0.95)``. The intervals are
those of ``anchor="m<last>"``, i.e. of the strength differences ``s_i - s_last``. Rank
intervals are simultaneous (max-T over all pairs), so all true ranks must lie in their
intervals together in at least the nominal share (a one-sided band). The naive methods
(battles treated as independent, CR1 with few clusters) are shown to fail, so that the
checks can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig.arena import Battles, battles, bradley_terry, compress
from evalsig.arena.fit import fit

LEVEL = 0.95


def _band(reps: int) -> tuple[float, float]:
    low, high = stats.binom.ppf([0.005, 0.995], reps, LEVEL)
    return float(low), float(high)


def _names(m: int) -> np.ndarray:
    return np.array([f"m{i}" for i in range(m)], dtype=object)


def _pairs(rng: np.random.Generator, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    a = rng.integers(0, m, n)
    return a, (a + rng.integers(1, m, n)) % m


def _covered(result, truth: np.ndarray) -> np.ndarray:
    """Which of the non-anchor models' intervals hold the true difference (logit scale)."""
    rows = [result[f"m{i}"] for i in range(len(truth))]
    return np.array(
        [r["ci"]["low"] <= t <= r["ci"]["high"] for r, t in zip(rows, truth, strict=True)]
    )


def _ranks_covered(result, strengths: np.ndarray) -> bool:
    """Every model's rank interval holds all the ranks its true strength allows (with
    equal strengths, ``1 + #stronger`` to ``M - #weaker``)."""
    m = len(strengths)
    stronger = (strengths[None, :] > strengths[:, None]).sum(axis=1)
    weaker = (strengths[None, :] < strengths[:, None]).sum(axis=1)
    return all(
        result[f"m{i}"]["rank_low"] <= 1 + stronger[i]
        and result[f"m{i}"]["rank_high"] >= m - weaker[i]
        for i in range(m)
    )


# -- independent battles ------------------------------------------------------------------

STRENGTHS = np.array([0.8, 0.4, 0.1, -0.2, -0.6])


def _independent(seed: int, strengths: np.ndarray, n: int) -> Battles:
    rng = np.random.default_rng(seed)
    m = len(strengths)
    a, b = _pairs(rng, m, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(strengths[a] - strengths[b])))) * 1.0
    return battles(_names(m)[a], _names(m)[b], y)


def test_sandwich_covers_strength_differences_and_ranks():
    reps, m = 300, len(STRENGTHS)
    truth = STRENGTHS[:-1] - STRENGTHS[-1]
    hits, ranked = np.zeros(m - 1, dtype=int), 0
    for rep in range(reps):
        data = _independent(rep, STRENGTHS, 800)
        r = bradley_terry(data, scale="logit", anchor=f"m{m - 1}", rng=rep, n_draws=1000)
        hits += _covered(r, truth)
        ranked += _ranks_covered(r, STRENGTHS)
    low, high = _band(reps)
    assert hits.tolist() == [282, 285, 284, 281]
    assert np.all((low <= hits) & (hits <= high)), (hits, low, high)
    # distinct strengths: only a reversed pair breaks a rank interval (conservative)
    assert ranked == 300


def test_rank_intervals_of_equal_models_cover_at_their_simultaneous_level():
    """Five equal models: every rank interval must be 1-5, which holds exactly when no
    pair is declared different, i.e. with probability ``confidence_level`` (max-T)."""
    reps, equal = 300, np.zeros(5)
    ranked = sum(
        _ranks_covered(
            bradley_terry(_independent(30_000 + rep, equal, 800), rng=rep, n_draws=2000), equal
        )
        for rep in range(reps)
    )
    low, high = _band(reps)
    assert ranked == 284
    assert low <= ranked <= high


def _davidson(rng, strengths, nu, n):
    m = len(strengths)
    a, b = _pairs(rng, m, n)
    u = (strengths[a] - strengths[b]) / 2
    denom = np.exp(u) + np.exp(-u) + nu
    draw = rng.random(n)
    p_a, p_tie = np.exp(u) / denom, nu / denom
    y = np.where(draw < p_a, 1.0, np.where(draw < p_a + p_tie, 0.5, 0.0))
    return a, b, y


def test_davidson_intervals_cover_the_strengths_and_the_tie_parameter():
    reps, m, nu = 300, len(STRENGTHS), 0.6
    truth = STRENGTHS[:-1] - STRENGTHS[-1]
    hits, nu_hits = np.zeros(m - 1, dtype=int), 0
    z = stats.norm.ppf(0.975)
    for rep in range(reps):
        rng = np.random.default_rng(10_000 + rep)
        a, b, y = _davidson(rng, STRENGTHS, nu, 800)
        data = battles(_names(m)[a], _names(m)[b], y)
        r = bradley_terry(data, ties="davidson", scale="logit", anchor=f"m{m - 1}", rng=rep,
                          n_draws=1000)  # fmt: skip
        hits += _covered(r, truth)
        estimate, se = r.tie_parameter
        nu_hits += abs(estimate - nu) <= z * se  # delta method on nu itself
    low, high = _band(reps)
    assert hits.tolist() == [286, 281, 290, 285]
    assert np.all((low <= hits) & (hits <= high)), (hits, low, high)
    assert nu_hits == 278
    assert low <= nu_hits <= high


@pytest.mark.slow
def test_battle_bootstrap_covers_strength_differences():
    """The percentile bootstrap (``method="bootstrap"``), 400 resamples per fit (with
    100, the 2.5% and 97.5% order statistics alone make the interval cover about 93%)."""
    reps, m = 100, 4
    s = STRENGTHS[:m]
    truth = s[:-1] - s[-1]
    hits = np.zeros(m - 1, dtype=int)
    for rep in range(reps):
        rng = np.random.default_rng(20_000 + rep)
        a, b = _pairs(rng, m, 600)
        y = (rng.random(600) < 1 / (1 + np.exp(-(s[a] - s[b])))) * 1.0
        data = battles(_names(m)[a], _names(m)[b], y)
        r = bradley_terry(data, scale="logit", anchor=f"m{m - 1}", method="bootstrap",
                          n_resamples=400, rng=rep, n_draws=1000)  # fmt: skip
        hits += _covered(r, truth)
    low, high = _band(reps)
    assert hits.tolist() == [90, 94, 96]
    assert np.all((low <= hits) & (hits <= high)), (hits, low, high)


# -- clustered battles: a prompt effect ---------------------------------------------------

CLUSTER_STRENGTHS = np.array([0.6, 0.2, 0.0, -0.5])
TAU = 1.0
"""sd of each model's prompt-specific deviation (a model x prompt interaction)."""


def _pseudo_truth() -> np.ndarray:
    """The differences the fit targets: Bradley-Terry fitted to the marginal win
    probabilities ``E sigmoid(s_a - s_b + u_a - u_b)``, ``u ~ N(0, TAU^2)``, over the
    balanced design (80-point Gauss-Hermite quadrature)."""
    m = len(CLUSTER_STRENGTHS)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    a, b = np.array([(i, j) for i in range(m) for j in range(m) if i != j]).T
    d = CLUSTER_STRENGTHS[a] - CLUSTER_STRENGTHS[b]
    p = (w / (1 + np.exp(-(d[:, None] + np.sqrt(2) * TAU * x)))).sum(axis=1)
    fitted = fit(compress(battles(_names(m)[a], _names(m)[b], p)), ties="half", anchor=m - 1)
    return np.asarray(fitted.params[: m - 1])


def _clustered(seed: int, n_prompts: int, per_prompt: int, strengths=CLUSTER_STRENGTHS):
    rng = np.random.default_rng(seed)
    m = len(strengths)
    n = n_prompts * per_prompt
    prompts = np.repeat(np.arange(n_prompts), per_prompt)
    a, b = _pairs(rng, m, n)
    u = rng.normal(0, TAU, (n_prompts, m))
    d = strengths[a] - strengths[b] + u[prompts, a] - u[prompts, b]
    y = (rng.random(n) < 1 / (1 + np.exp(-d))) * 1.0
    return _names(m)[a], _names(m)[b], y, prompts


def test_pseudo_truth_is_the_attenuated_strengths():
    truth = _pseudo_truth()
    plain = CLUSTER_STRENGTHS[:-1] - CLUSTER_STRENGTHS[-1]
    assert np.all((0.5 * plain < truth) & (truth < plain))


def test_with_six_prompts_cr2_covers_while_cr1_and_independent_battles_do_not():
    """6 prompts x 80 battles: CR2 (t, Bell-McCaffrey df) covers at its level; CR1 with
    normal quantiles covers too rarely, and treating battles as independent far too rarely.
    """
    reps, m = 400, len(CLUSTER_STRENGTHS)
    truth = _pseudo_truth()
    hits = {key: np.zeros(m - 1, dtype=int) for key in ("CR2", "CR1", "independent")}
    for rep in range(reps):
        a, b, y, prompts = _clustered(rep, 6, 80)
        for key in hits:
            data = battles(a, b, y, cluster=None if key == "independent" else prompts)
            r = bradley_terry(
                data, scale="logit", anchor=f"m{m - 1}", rng=rep, n_draws=1000,
                variant="CR1" if key == "CR1" else "CR2",
            )  # fmt: skip
            hits[key] += _covered(r, truth)
    low, high = _band(reps)
    assert {k: v.tolist() for k, v in hits.items()} == {
        "CR2": [384, 384, 374],
        "CR1": [360, 359, 357],
        "independent": [222, 220, 204],
    }
    assert np.all((low <= hits["CR2"]) & (hits["CR2"] <= high)), hits
    assert np.all(hits["CR1"] < low), hits
    assert np.all(hits["independent"] < low), hits


def test_with_six_prompts_rank_intervals_of_equal_models_hold_with_cr2():
    """Four equal models, 6 prompts: the max-T critical value from studentised CR2 draws
    keeps the simultaneous level; CR1 and independent battles declare differences that
    are not there."""
    reps, equal = 300, np.zeros(4)
    ranked = dict.fromkeys(("CR2", "CR1", "independent"), 0)
    for rep in range(reps):
        a, b, y, prompts = _clustered(40_000 + rep, 6, 80, equal)
        for key in ranked:
            data = battles(a, b, y, cluster=None if key == "independent" else prompts)
            r = bradley_terry(data, rng=rep, n_draws=2000,
                              variant="CR1" if key == "CR1" else "CR2")  # fmt: skip
            ranked[key] += _ranks_covered(r, equal)
    low, high = _band(reps)
    assert ranked == {"CR2": 282, "CR1": 219, "independent": 53}
    assert low <= ranked["CR2"] <= high
    assert ranked["CR1"] < low
    assert ranked["independent"] < low


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_identical_copies_get_identical_bootstrap_intervals(ties):
    """A model and its renamed copy, on the same prompts, battle by battle: the bootstrap
    draws prompts once per resample for every model, so the two agree to rounding."""
    rng = np.random.default_rng(5)
    m, n = 4, 1200
    a, b, y = _davidson(rng, STRENGTHS[:m], 0.5, n)
    prompts = rng.integers(0, 50, n)
    names = _names(m)
    twin_a = np.where(names[a] == "m1", "twin", names[a])
    twin_b = np.where(names[b] == "m1", "twin", names[b])
    keep = (names[a] == "m1") | (names[b] == "m1")
    data = battles(
        np.concatenate([names[a], twin_a[keep]]),
        np.concatenate([names[b], twin_b[keep]]),
        np.concatenate([y, y[keep]]),
        cluster=np.concatenate([prompts, prompts[keep]]),
    )
    r = bradley_terry(data, ties=ties, method="bootstrap", n_resamples=200, rng=3)
    one, two = r["m1"], r["twin"]
    assert (one["ci"]["low"], one["ci"]["high"]) == pytest.approx(
        (two["ci"]["low"], two["ci"]["high"]), abs=1e-6
    )
    assert (one["rank_low"], one["rank_high"]) == (two["rank_low"], two["rank_high"])
    assert one["ci"]["high"] - one["ci"]["low"] > 10  # a real interval, not a degenerate one
