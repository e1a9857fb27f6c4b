"""Aggregate claims over a suite: sign test of wins, uncorrected error, dependence."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference.aggregate import dependence, sign_test, uncorrected_familywise_error


def test_sign_test_golden() -> None:
    # seed 000, section 6: K = 22, W_A = 14 -> p = 2 P[X >= 14], X ~ Binom(22, 1/2) = 0.286
    r = sign_test([0.01] * 14 + [-0.02] * 8)
    assert r.pvalue == pytest.approx(2 * stats.binom.sf(13, 22, 0.5), rel=1e-12)
    assert round(r.pvalue, 3) == 0.286
    assert (r.wins_candidate, r.wins_baseline, r.ties, r.n_tasks) == (14, 8, 0, 22)


def test_sign_test_matches_binomtest_and_drops_ties() -> None:
    d = {f"t{i}": v for i, v in enumerate([1, 2, -1, 0, 0, 3, 4, 5, -2, 1])}
    for alternative in ("two-sided", "greater", "less"):
        r = sign_test(d, alternative=alternative)  # type: ignore[arg-type]
        expected = stats.binomtest(6, 8, 0.5, alternative=alternative).pvalue
        assert r.pvalue == pytest.approx(expected, rel=1e-12)
    assert sign_test(d).ties == 2
    assert "2 tied task(s)" in sign_test(d).notes[0]


def test_sign_test_all_tied() -> None:
    r = sign_test([0.0, 0.0])
    assert r.pvalue == 1.0
    assert "every task is tied" in r.notes[-1]


def test_uncorrected_familywise_error() -> None:
    # seed 000, section 1: K = 30, alpha = 0.05 -> 0.785
    assert round(uncorrected_familywise_error(30, 0.05), 3) == 0.785
    assert uncorrected_familywise_error(10) == pytest.approx(1 - 0.95**10)
    assert uncorrected_familywise_error(1, 0.05) == pytest.approx(0.05)
    with pytest.raises(DataError, match="`n_tests` must be a positive integer; got 0"):
        uncorrected_familywise_error(0)
    with pytest.raises(DataError, match="`alpha` must lie strictly between 0 and 1"):
        uncorrected_familywise_error(3, 1.5)


def test_dependence_of_tasks_sharing_items() -> None:
    rng = np.random.default_rng(0)
    latent = rng.normal(size=200)
    items = [f"q{i}" for i in range(200)]
    a = dict(zip(items, latent + rng.normal(0, 0.3, 200), strict=True))
    b = dict(zip(items, latent + rng.normal(0, 0.3, 200), strict=True))
    c = {f"other{i}": v for i, v in enumerate(rng.normal(size=50))}
    dep = dependence({"a": a, "b": b, "c": c})
    expected = np.corrcoef(list(a.values()), list(b.values()))[0, 1]
    assert dep.correlation[0, 1] == pytest.approx(expected)
    assert math.isnan(dep.correlation[0, 2])  # no shared items
    assert dep.shared_items[0, 1] == 200
    assert dep.shared_items[0, 2] == 0
    assert dep.mean_abs_correlation == pytest.approx(abs(expected))
    assert any("strong dependence" in n for n in dep.notes)
    data = dep.to_dict()
    assert data["correlation"][0][2] is None
    assert "correlation[0][2]" in data["nulls"]


def test_bad_input() -> None:
    with pytest.raises(DataError, match="`differences` is empty"):
        sign_test([])
    with pytest.raises(DataError, match="non-numeric value"):
        sign_test(["a", 1.0])  # type: ignore[list-item]
    with pytest.raises(DataError, match="NaN or infinite"):
        sign_test([1.0, float("nan")])
    with pytest.raises(DataError, match="`alternative` must be one of"):
        sign_test([1.0], alternative="up")  # type: ignore[arg-type]
