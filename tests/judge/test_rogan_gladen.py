"""Rogan-Gladen prevalence correction: hand values, variance propagation, clipping."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.judge import rogan_gladen


def test_hand_values() -> None:
    # (0.30 + 0.95 - 1) / (0.90 + 0.95 - 1) = 0.25 / 0.85
    result = rogan_gladen(0.30, 0.90, 0.95, 1000)
    assert result.estimate == pytest.approx(0.25 / 0.85, abs=1e-15)
    assert result.se == pytest.approx(math.sqrt(0.3 * 0.7 / 1000) / 0.85, abs=1e-15)
    z = stats.norm.ppf(0.975)
    assert result.ci.low == pytest.approx(0.25 / 0.85 - z * result.se)
    assert result.method == "rogan-gladen"
    assert result.lambda_ is None
    assert result.naive.estimate == 0.30


def test_estimated_sensitivity_and_specificity_widen_the_interval() -> None:
    p, se_, sp, n, n_se, n_sp = 0.30, 0.90, 0.95, 1000, 120, 280
    result = rogan_gladen(p, se_, sp, n, n_sensitivity=n_se, n_specificity=n_sp)
    pi = (p + sp - 1) / (se_ + sp - 1)
    variance = p * (1 - p) / n + pi**2 * se_ * (1 - se_) / n_se
    variance += (1 - pi) ** 2 * sp * (1 - sp) / n_sp
    assert result.se == pytest.approx(math.sqrt(variance) / (se_ + sp - 1), rel=1e-14)
    assert result.se > rogan_gladen(p, se_, sp, n).se
    assert result.n_labeled == n_se + n_sp


def test_delta_method_against_numerical_gradient() -> None:
    """The three partial derivatives, checked by finite differences."""

    def pi(p: float, se_: float, sp: float) -> float:
        return (p + sp - 1) / (se_ + sp - 1)

    point, h = np.array([0.4, 0.8, 0.85]), 1e-6
    grad = [(pi(*(point + h * e)) - pi(*(point - h * e))) / (2 * h) for e in np.eye(3)]
    variances = np.array([0.4 * 0.6 / 500, 0.8 * 0.2 / 90, 0.85 * 0.15 / 110])
    expected = math.sqrt(float(np.sum(np.square(grad) * variances)))
    result = rogan_gladen(0.4, 0.8, 0.85, 500, n_sensitivity=90, n_specificity=110)
    assert result.se == pytest.approx(expected, rel=1e-7)


def test_clipped_with_a_note() -> None:
    result = rogan_gladen(0.02, 0.9, 0.95, 400)  # (0.02 - 0.05) / 0.85 < 0
    assert result.estimate == 0.0
    assert result.ci.low == 0.0
    assert any("clipped to 0" in note for note in result.notes)


def test_coverage_of_a_simulated_judge() -> None:
    """Judge with sensitivity 0.85 and specificity 0.9, estimated from 300 labels: the
    corrected interval covers the true rate 0.3 at about 95%."""
    reps, n, truth, sens, spec = 2000, 2000, 0.3, 0.85, 0.9
    rng = np.random.default_rng(4)
    n_pos = rng.binomial(300, truth, reps)
    se_hat = rng.binomial(n_pos, sens) / n_pos
    sp_hat = rng.binomial(300 - n_pos, spec) / (300 - n_pos)
    p_hat = rng.binomial(n, truth * sens + (1 - truth) * (1 - spec), reps) / n
    hits = 0
    for p, a, b, k in zip(p_hat, se_hat, sp_hat, n_pos, strict=True):
        r = rogan_gladen(float(p), float(a), float(b), n, n_sensitivity=int(k),
                         n_specificity=300 - int(k))  # fmt: skip
        hits += r.ci.contains(truth)
    band = stats.binom.interval(0.99, reps, 0.95)
    assert hits == 1915  # this seed's count
    assert band[0] <= hits <= band[1]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((0.3, 0.5, 0.5, 100), {}, "is not above 1"),
        ((1.3, 0.9, 0.9, 100), {}, r"`judge_positive_rate` must be a number in \[0, 1\]"),
        ((0.3, 0.9, 0.9, 0), {}, "`n` must be a whole number of at least 1"),
        ((0.3, 0.9, 0.9, 100), {"n_sensitivity": 2.5}, "`n_sensitivity` must be"),
    ],
)
def test_errors(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(DataError, match=message):
        rogan_gladen(*args, **kwargs)
