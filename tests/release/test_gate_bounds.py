"""The gate's bound column shows the bound that matches the correction, and says which
(issue 28): under Holm (the default) the simultaneous Holm-compatible bounds
(Strassburger and Bretz 2008), under Bonferroni and Sidak their single-step simultaneous
bounds; a task passes exactly when its bound clears its threshold. Corrections without
such a bound label the unadjusted one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalsig.release import gate
from evalsig.report import gate as gate_text
from evalsig.report.html import fragment


def _suite(seed: int, shifts: dict[str, float], n: int = 300) -> tuple[dict[str, Any], ...]:
    rng = np.random.default_rng(seed)
    base, cand = {}, {}
    for task, shift in shifts.items():
        item = rng.beta(2, 2, n)
        base[task] = np.clip(item + rng.normal(0, 0.05, n), 0, 1)
        cand[task] = np.clip(item + shift + rng.normal(0, 0.05, n), 0, 1)
    return base, cand


POLICY = {
    "name": "release",
    "tasks": [
        {"name": "up"},
        {"name": "flat"},
        {"name": "down"},
        {"name": "near", "claim": "non-inferiority", "margin": 0.02},
    ],
}
SHIFTS = {"up": 0.03, "flat": 0.0, "down": -0.03, "near": -0.005}


def _bound(result: Any, name: str, tail: float) -> float:
    comparison = result.task(name).comparison
    return float(comparison.confidence_interval(1 - tail, alternative="greater").low)


def test_holm_bounds_follow_strassburger_and_bretz() -> None:
    base, cand = _suite(1, SHIFTS)
    result = gate(base, cand, policy=POLICY)
    assert result.bounds == "holm"
    verdicts = {t.task.name: t.verdict for t in result.tasks}
    passed = [name for name, v in verdicts.items() if v == "PASS"]
    assert sorted(passed) == ["near", "up"]
    rest = len(SHIFTS) - len(passed)
    for t in result.tasks:
        name = t.task.name
        if name in passed:  # not every task passes: a passing task's bound is its threshold
            assert t.adjusted_lower_bound == t.task.threshold
        else:
            assert t.adjusted_lower_bound == pytest.approx(_bound(result, name, 0.05 / rest))
            assert t.adjusted_lower_bound < t.lower_bound  # wider than the unadjusted bound
    assert any("Strassburger and Bretz" in n for n in result.notes)


def test_when_every_task_passes_holm_bounds_are_informative() -> None:
    base, cand = _suite(2, {"a": 0.03, "b": 0.04})
    result = gate(base, cand, policy={"tasks": [{"name": "a"}, {"name": "b"}]})
    assert result.verdict == "PASS"
    for t in result.tasks:
        expected = max(t.task.threshold, _bound(result, t.task.name, 0.05 / 2))
        assert t.adjusted_lower_bound == pytest.approx(expected)
        assert t.adjusted_lower_bound > 0


@pytest.mark.parametrize(
    ("correction", "tail"), [("bonferroni", 0.05 / 4), ("sidak", 1 - 0.95 ** (1 / 4))]
)
def test_single_step_bounds(correction: str, tail: float) -> None:
    base, cand = _suite(1, SHIFTS)
    result = gate(base, cand, policy={**POLICY, "correction": correction})
    assert result.bounds == correction
    for t in result.tasks:
        assert t.adjusted_lower_bound == pytest.approx(_bound(result, t.task.name, tail))


@settings(max_examples=12, derandomize=True, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    shifts=st.lists(st.floats(-0.02, 0.03), min_size=2, max_size=4),
    correction=st.sampled_from(["holm", "bonferroni", "sidak"]),
)
def test_a_task_passes_exactly_when_its_bound_clears_its_threshold(
    seed: int, shifts: list[float], correction: str
) -> None:
    named = {f"t{i}": s for i, s in enumerate(shifts)}
    base, cand = _suite(seed, named, n=120)
    policy = {"tasks": [{"name": n} for n in named], "correction": correction}
    result = gate(base, cand, policy=policy)
    for t in result.tasks:
        assert t.adjusted_lower_bound is not None
        clears = t.adjusted_lower_bound >= t.task.threshold - 1e-9
        assert (t.verdict == "PASS") == clears, (t.task.name, t.verdict, t.adjusted_lower_bound)


def test_reports_label_the_bound_they_show() -> None:
    base, cand = _suite(1, SHIFTS)
    holm = gate(base, cand, policy=POLICY)
    text = str(holm)
    assert "(95% simultaneous, Holm)" in text
    assert "(95% lower)" not in text
    document = holm.to_dict()
    assert document["bounds"] == "holm"
    up = next(t for t in document["tasks"] if t["task"] == "up")
    assert up["adjusted_lower_bound"] == 0.0
    assert up["lower_bound"] > 0.0  # the unadjusted bound is still there
    assert "95% simultaneous, Holm" in fragment(document)
    hochberg = gate(base, cand, policy={**POLICY, "correction": "hochberg"})
    assert hochberg.bounds is None
    assert "(95% lower, unadjusted)" in str(hochberg)
    nulls = hochberg.to_dict()["nulls"]
    assert "no simultaneous bound is computed for the hochberg" in nulls["up.adjusted_lower_bound"]
    saved = {k: v for k, v in document.items() if k != "bounds"}  # a result saved before
    assert "(95% lower, unadjusted)" in gate_text.as_text(saved)
