"""Paired t-test: golden values from scipy, oracle on random data, degenerate cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import AlignmentError, DataError
from evalsig.inference import paired_t

A = [0.82, 0.75, 0.91, 0.66, 0.70, 0.88, 0.79, 0.73, 0.95, 0.61]
B = [0.78, 0.70, 0.92, 0.60, 0.64, 0.85, 0.80, 0.69, 0.90, 0.55]


def test_golden_scipy_ttest_rel() -> None:
    # scipy.stats.ttest_rel(A, B): t = 4.384236406, p = 0.001760240665, df = 9,
    # 95% CI of mean(A - B) = (0.01790891839, 0.05609108161). Here A is the candidate.
    r = paired_t(B, A)
    assert r.statistic == pytest.approx(4.384236406, rel=1e-9)
    assert r.pvalue == pytest.approx(0.001760240665, rel=1e-9)
    assert r.df == 9
    assert r.ci.low == pytest.approx(0.01790891839, rel=1e-9)
    assert r.ci.high == pytest.approx(0.05609108161, rel=1e-9)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(5))
def test_matches_scipy_on_random_data(alternative: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.random(50)
    y = x + rng.normal(0.02, 0.1, 50)
    ours = paired_t(baseline=x, candidate=y, alternative=alternative, confidence_level=0.9)  # type: ignore[arg-type]
    theirs = stats.ttest_rel(y, x, alternative=alternative)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-10)
    ci = theirs.confidence_interval(0.9)
    assert ours.ci.low == pytest.approx(ci.low, rel=1e-10)
    assert ours.ci.high == pytest.approx(ci.high, rel=1e-10)


def test_identical_models_give_p_one() -> None:
    r = paired_t([1, 0, 1], [1, 0, 1])
    assert r.pvalue == 1.0
    assert (r.ci.low, r.ci.high) == (0.0, 0.0)
    assert "every per-item difference is 0" in r.notes[0]


def test_constant_nonzero_difference_has_no_p_value() -> None:
    r = paired_t([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])
    assert math.isnan(r.pvalue)
    assert "method='permutation'" in r.notes[0]


def test_bad_input() -> None:
    with pytest.raises(AlignmentError, match=r"`baseline` has shape \(3,\) but `candidate`"):
        paired_t([1, 2, 3], [1, 2])
    with pytest.raises(DataError, match="at least 2 items; got 1"):
        paired_t([1.0], [2.0])
    with pytest.raises(DataError, match=r"`candidate` has 1 NaN value\(s\) \('position 1'\)"):
        paired_t([1.0, 2.0, 3.0], [1.0, float("nan"), 2.0])
    with pytest.raises(DataError, match="shape"):
        paired_t([[1, 2], [3, 4]], [[1, 2], [3, 4]])
    with pytest.raises(DataError, match="`alternative` must be one of"):
        paired_t(baseline=[1, 2], candidate=[2, 3], alternative="bigger")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="`confidence_level` must be a number strictly between"):
        paired_t([1, 2], [2, 3], confidence_level=95)
