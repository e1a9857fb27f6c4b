"""Human labels needed: the closed form against a search over n of the variance formula."""

from __future__ import annotations

import math
from typing import Any

import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.judge import labels_for_half_width, labels_for_power, ppi_mean
from evalsig.judge.planning import ppi_variance


def _search(target_var: float, tuned: bool, **moments: Any) -> int | None:
    """The smallest n whose variance meets the target, by a plain loop."""
    for n in range(1, 200_000):
        if ppi_variance(n, tuned=tuned, **moments)[0] <= target_var:
            return n
    return None


CASES = [
    {"n_unlabeled": 5000, "correlation": 0.8, "human_sd": 0.5, "judge_sd": 0.5},
    {"n_unlabeled": 800, "correlation": 0.95, "human_sd": 0.45, "judge_sd": 0.4},
    {"n_unlabeled": 5000, "correlation": 0.8, "human_sd": 0.5, "judge_sd": 0.1},  # lambda 1
    {"n_unlabeled": 2000, "correlation": -0.3, "human_sd": 0.5, "judge_sd": 0.5},
    {"n_unlabeled": 300, "correlation": 0.5, "human_sd": 1.0, "judge_sd": 2.0},
]


@pytest.mark.parametrize("moments", CASES)
@pytest.mark.parametrize("tuned", [True, False])
def test_closed_form_is_the_smallest_n(moments: dict, tuned: bool) -> None:
    half_width = 0.04
    plan = labels_for_half_width(half_width, tuned=tuned, **moments)
    target = (half_width / stats.norm.ppf(0.975)) ** 2
    assert plan.n_labels == _search(target, tuned, **moments)
    assert plan.n_classical == math.ceil(moments["human_sd"] ** 2 / target)
    if tuned and plan.n_labels is not None:
        assert plan.n_labels <= plan.n_classical


def test_no_finite_number() -> None:
    plan = labels_for_half_width(0.01, n_unlabeled=100, correlation=0.9, human_sd=0.5, tuned=False)
    assert plan.n_labels is None
    assert "exceeds the target" in plan.notes[0]
    assert "no finite number" in str(plan)


def test_power_target() -> None:
    moments = {"n_unlabeled": 4000, "correlation": 0.7, "human_sd": 0.6, "judge_sd": 0.6}
    plan = labels_for_power(0.05, alpha=0.05, power=0.8, **moments)
    se = 0.05 / (stats.norm.ppf(0.975) + stats.norm.ppf(0.8))
    assert plan.target_se == pytest.approx(se)
    assert plan.n_labels == _search(se**2, True, **moments)
    one_sided = labels_for_power(0.05, alternative="greater", **moments)
    assert one_sided.n_labels is not None
    assert plan.n_labels is not None
    assert one_sided.n_labels < plan.n_labels


def test_plan_delivers_its_half_width() -> None:
    """Data simulated at the planned n give intervals close to the target half-width."""
    import numpy as np

    rng = np.random.default_rng(8)
    big_n, rho = 3000, 0.8
    plan = labels_for_half_width(0.05, n_unlabeled=big_n, correlation=rho, human_sd=1.0)
    assert plan.n_labels is not None
    widths = []
    for _ in range(50):
        h = rng.normal(size=plan.n_labels + big_n)
        j = rho * h + math.sqrt(1 - rho**2) * rng.normal(size=h.size)
        r = ppi_mean(j[plan.n_labels :], j[: plan.n_labels], h[: plan.n_labels])
        widths.append((r.ci.high - r.ci.low) / 2)
    assert float(np.mean(widths)) == pytest.approx(0.05, rel=0.05)


def test_errors() -> None:
    with pytest.raises(DataError, match="`half_width` must be a finite number > 0"):
        labels_for_half_width(0, n_unlabeled=10, correlation=0.5, human_sd=1)
    with pytest.raises(DataError, match=r"`correlation` must be a number in \[-1, 1\]"):
        labels_for_half_width(0.1, n_unlabeled=10, correlation=1.5, human_sd=1)
    with pytest.raises(DataError, match="`n_unlabeled` must be"):
        labels_for_half_width(0.1, n_unlabeled=0, correlation=0.5, human_sd=1)
