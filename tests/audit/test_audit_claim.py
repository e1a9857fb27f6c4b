"""Auditing a reported claim: each anti-pattern, computed the article's way on the data,
is recognised by its width."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evalsig.audit.claim import RUNS, SQRT_B, UNPAIRED, audit_claim
from evalsig.errors import DataError
from evalsig.simulate import SimulatedModels, simulate_models

Z = 1.959963984540054
B = 30


@pytest.fixture(scope="module")
def sim() -> SimulatedModels:
    return simulate_models(rng=20260504)


def _run_bootstrap(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """The article's ``diff_ci_run_bootstrap_fixed``: per-item resampling of runs."""
    r, n = x.shape
    ix, iy = rng.integers(0, r, size=(B, n)), rng.integers(0, r, size=(B, n))
    d = y[iy, np.arange(n)].mean(axis=1) - x[ix, np.arange(n)].mean(axis=1)
    return float(d.mean()), float(d.std(ddof=1))


def _question_bootstrap(
    x: np.ndarray, y: np.ndarray, rng: np.random.Generator
) -> tuple[float, float]:
    """The article's ``diff_ci_question_bootstrap`` (independent item indices)."""
    mx, my = x.mean(axis=0), y.mean(axis=0)
    n = len(mx)
    ix, iy = rng.integers(0, n, size=(B, n)), rng.integers(0, n, size=(B, n))
    d = my[iy].mean(axis=1) - mx[ix].mean(axis=1)
    return float(my.mean() - mx.mean()), float(d.std(ddof=1))


@pytest.mark.parametrize("candidate", ["clone", "finetune"])
def test_sqrt_b_is_caught(sim: SimulatedModels, candidate: str) -> None:
    y = getattr(sim, candidate)
    estimate, sd = _run_bootstrap(sim.baseline, y, np.random.default_rng(1))
    se = sd / math.sqrt(B)
    claim = (estimate - Z * se, estimate + Z * se)
    result = audit_claim(sim.baseline, y, ci=claim, n_resamples=B)
    assert result.verdict == "too narrow"
    assert result.likely_cause == SQRT_B
    assert result.narrower_by > 1.5
    best = next(c for c in result.candidates if c.name == "run-bootstrap-sqrt-b")
    assert best.matches
    assert abs(best.ratio - 1) < 0.33
    assert "matches the run bootstrap with SE / sqrt(B) at B = 30" in result.explanation
    # without B: the B that would explain the width is about 30, give or take its noise
    blind = audit_claim(sim.baseline, y, ci=claim)
    assert blind.likely_cause == SQRT_B
    implied = next(c for c in blind.candidates if c.name == "run-bootstrap-sqrt-b").resamples
    assert implied is not None
    assert 15 < implied < 70
    assert "give the number of resamples" in blind.explanation


def test_run_bootstrap_and_unpaired_bootstrap_are_recognised(sim: SimulatedModels) -> None:
    rng = np.random.default_rng(2)
    estimate, se = _run_bootstrap(sim.baseline, sim.finetune, rng)
    runs = audit_claim(
        sim.baseline, sim.finetune, half_width=Z * se, estimate=estimate, n_resamples=B
    )
    assert runs.verdict == "wider than needed"
    assert runs.likely_cause == RUNS
    estimate, se = _question_bootstrap(sim.baseline, sim.finetune, rng)
    unpaired = audit_claim(sim.baseline, sim.finetune, half_width=Z * se, n_resamples=B)
    assert unpaired.verdict == "wider than needed"
    assert unpaired.likely_cause == UNPAIRED
    assert unpaired.honest.method == "paired-t"


def test_honest_claims_are_consistent(sim: SimulatedModels) -> None:
    d = sim.finetune.mean(axis=0) - sim.baseline.mean(axis=0)
    se = d.std(ddof=1) / math.sqrt(d.size)
    result = audit_claim(sim.baseline, sim.finetune, ci=(d.mean() - Z * se, d.mean() + Z * se))
    assert result.verdict == "consistent"
    assert result.likely_cause is None
    assert result.narrower_by == pytest.approx(1.0, abs=1e-9)
    # the paired t's p-value (normal) implies the same SE
    p = math.erfc(abs(d.mean() / se) / math.sqrt(2))
    assert audit_claim(sim.baseline, sim.finetune, pvalue=p).verdict == "consistent"
    # a p-value far smaller than the data support is too narrow
    tiny = audit_claim(sim.baseline, sim.finetune, pvalue=1e-30)
    assert tiny.verdict == "too narrow"


def test_estimate_that_does_not_describe_the_data(sim: SimulatedModels) -> None:
    result = audit_claim(sim.baseline, sim.clone, pvalue=0.0001, estimate=0.009)
    assert result.verdict == "estimate differs"
    assert "does not describe these data" in result.explanation
    assert "honest analysis does not" in result.explanation
    assert result.reported_significant
    assert not result.honest_significant


def test_points_units_and_single_run(sim: SimulatedModels) -> None:
    in_points = audit_claim(sim.baseline, sim.clone, half_width=0.19, units="points")
    in_score = audit_claim(sim.baseline, sim.clone, half_width=0.0019)
    assert in_points.reported_se == pytest.approx(in_score.reported_se)
    one = audit_claim(sim.baseline[0], sim.finetune[0], half_width=0.0116)
    names = {c.name for c in one.candidates}
    assert "mcnemar" in names
    assert "run-bootstrap" not in names
    assert one.verdict == "consistent"
    assert one.honest.method.startswith("mcnemar")


def test_json_is_strict(sim: SimulatedModels) -> None:
    result = audit_claim(sim.baseline, sim.clone, half_width=0.0019)
    data = result.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["kind"] == "claim-audit"
    assert data["reported"]["half_width"] == pytest.approx(0.0019)
    assert data["candidates"][0]["name"] == "paired"
    paired_sqrt = next(c for c in data["candidates"] if c["name"] == "paired-sqrt-b")
    assert paired_sqrt["matches"] in (True, False)
    zero = audit_claim(sim.baseline, sim.clone, pvalue=1.0).to_dict()
    json.dumps(zero, allow_nan=False)
    assert zero["verdict"] == "undetermined"
    assert "reported.se" in zero["nulls"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "nothing to audit"),
        ({"ci": (0.0, 0.01), "half_width": 0.01}, "not both"),
        ({"ci": (0.01, 0.0)}, "low <= high"),
        ({"half_width": -1.0}, "half_width"),
        ({"pvalue": 2.0}, "pvalue"),
        ({"half_width": 0.01, "units": "percent"}, "units"),
        ({"half_width": 0.01, "tolerance": 1.5}, "tolerance"),
        ({"half_width": 0.01, "n_resamples": 1}, "n_resamples"),
        ({"half_width": "wide"}, "must be a number"),
    ],
)
def test_validation(sim: SimulatedModels, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(DataError, match=message):
        audit_claim(sim.baseline, sim.clone, **kwargs)  # type: ignore[arg-type]
