"""The audit reproduces the published calibration table, reproducibly.

Published (the article's calibration table, 500 simulations of its design, B = 30, 30
independent runs; its code run as printed gives these counts of 500), power / false
positives / median half-width:

    McNemar one run             179 (35.8%)  29 (5.8%)   +/-1.17 pp   (analytical power 38.9%)
    paired t on 8-run means     497 (99.4%)  29 (5.8%)   +/-0.50 pp   (analytical 97.3%)
    30 independent runs         500 (100%)   34 (6.8%)   +/-0.20 pp
    unpaired question bootstrap   2 (0.4%)    0 (0.0%)   +/-1.89 pp
    run bootstrap, honest SE    214 (42.8%)   0 (0.0%)   +/-1.04 pp
    run bootstrap, SE/sqrt(B)   500 (100%)  210 (42.0%)  +/-0.19 pp

Our simulations use their own seeds, so the counts agree within Monte Carlo error, not
exactly: each pair of counts passes Fisher's exact test at the 99.9% level.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from evalsig.audit import ARTICLE_METHODS, AuditResult, audit
from evalsig.data.provenance import without_time
from evalsig.distributed import Executor
from evalsig.errors import DataError
from evalsig.simulate import MixtureDesign
from evalsig.simulate.audit_article import agreement_pvalue, published_rows
from evalsig.simulate.audit_runner import CHUNK

SEED = 20260504

PUBLISHED = {  # power hits, false-positive hits, median half-width (pp), of 500
    "mcnemar": (179, 29, 1.17),
    "paired-t": (497, 29, 0.50),
    "independent-runs": (500, 34, 0.20),
    "unpaired-bootstrap": (2, 0, 1.89),
    "run-bootstrap": (214, 0, 1.04),
    "run-bootstrap-sqrt-b": (500, 210, 0.19),
}

PINNED = {  # our counts for rng=20260504 (power hits, false-positive hits)
    "mcnemar": (194, 14),
    "paired-t": (494, 36),
    "independent-runs": (500, 24),
    "unpaired-bootstrap": (0, 0),
    "run-bootstrap": (212, 0),
    "run-bootstrap-sqrt-b": (500, 211),
}


@pytest.fixture(scope="module")
def table() -> AuditResult:
    return audit(methods=ARTICLE_METHODS, rng=SEED)  # timed in benchmarks/bench_audit.py


def test_reproduces_the_published_table(table: AuditResult) -> None:
    result = table
    assert result.n_simulations == 500
    for name, (power, false_positives, half_width) in PUBLISHED.items():
        row = result.method(name)
        assert (row.power_hits, row.false_positive_hits) == PINNED[name]
        assert agreement_pvalue(row.power_hits, 500, power, 500) > 0.001
        assert agreement_pvalue(row.false_positive_hits, 500, false_positives, 500) > 0.001
        assert 100 * row.median_half_width == pytest.approx(half_width, abs=0.025)
        assert row.published is not None
        assert row.published.power_hits == power
    assert result.method("mcnemar").analytical_power == pytest.approx(0.389, abs=5e-4)
    assert result.method("paired-t").analytical_power == pytest.approx(0.973, abs=5e-4)
    assert result.reference is not None


def test_result_json_is_strict(table: AuditResult) -> None:
    result = table
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert data["kind"] == "audit"
    assert data["seed"] == SEED
    row = data["methods"][0]
    assert row["name"] == "mcnemar"
    assert row["published"]["agrees"] is True
    assert len(row["example"]["uplift"]) == 3
    assert "Run bootstrap, SE / sqrt(B)" in str(result)


def test_same_seed_same_numbers_and_methods_do_not_interact() -> None:
    design = MixtureDesign(n_items=1000, n_runs=4)
    one = audit(design, n_simulations=2 * CHUNK + 7, rng=9)
    two = audit(design, n_simulations=2 * CHUNK + 7, rng=9)
    alone = audit(design, methods=["run-bootstrap"], n_simulations=2 * CHUNK + 7, rng=9)
    for a, b in zip(one.methods, two.methods, strict=True):
        assert np.array_equal(a.intervals, b.intervals)
    assert np.array_equal(one.method("run-bootstrap").intervals, alone.methods[0].intervals)
    # whole chunks are a prefix of a longer run
    shorter = audit(design, methods=["run-bootstrap"], n_simulations=CHUNK, rng=9)
    assert np.array_equal(shorter.methods[0].intervals, alone.methods[0].intervals[:CHUNK])
    other = audit(design, methods=["run-bootstrap"], n_simulations=CHUNK, rng=10)
    assert not np.array_equal(other.methods[0].intervals, shorter.methods[0].intervals)


class _Backwards(Executor):
    """Runs the pieces last to first (another scheduling), returning them in order."""

    def map(self, func: Any, shared: Any, pieces: list[Any]) -> list[Any]:
        done = [func(shared, piece) for piece in reversed(pieces)]
        return done[::-1]


def test_results_do_not_depend_on_scheduling() -> None:
    design = MixtureDesign(n_items=500, n_runs=2)
    here = audit(design, n_simulations=3 * CHUNK, rng=4)
    there = audit(design, n_simulations=3 * CHUNK, rng=4, executor=_Backwards())
    assert without_time(here.to_dict()) == without_time(there.to_dict())


def test_seed_is_recorded_when_not_given() -> None:
    design = MixtureDesign(n_items=300, n_runs=2)
    first = audit(design, methods=["paired-t"], n_simulations=5)
    again = audit(design, methods=["paired-t"], n_simulations=5, rng=first.seed)
    assert np.array_equal(first.methods[0].intervals, again.methods[0].intervals)
    generator = audit(design, methods=["paired-t"], n_simulations=5, rng=np.random.default_rng(1))
    assert generator.seed >= 0
    sequence = audit(
        design, methods=["paired-t"], n_simulations=5, rng=np.random.SeedSequence(first.seed)
    )
    assert np.array_equal(sequence.methods[0].intervals, first.methods[0].intervals)


def test_honest_methods_are_calibrated_and_sqrt_b_is_not() -> None:
    """Monte Carlo calibration at another design: 1,000 benchmarks of 2,000 items x 5 runs."""
    design = MixtureDesign(n_items=2000, n_runs=5, uplift=0.01)
    result = audit(design, n_simulations=1000, rng=77)
    counts = {m.name: m.false_positive_hits for m in result.methods}
    # 99.9% binomial band around 5% (independent runs and the B = 30 paired bootstrap use a
    # normal critical value with an SE from 30 draws: about 6% by design)
    assert 29 <= counts["paired-t"] <= 75
    assert 29 <= counts["mcnemar"] <= 75
    assert 29 <= counts["paired-bootstrap"] <= 90
    assert 29 <= counts["independent-runs"] <= 90
    assert counts["run-bootstrap-sqrt-b"] > 250  # about 50% at 5 runs
    assert counts == {
        "mcnemar": 50,
        "paired-t": 45,
        "independent-runs": 61,
        "paired-bootstrap": 53,
        "unpaired-bootstrap": 0,
        "run-bootstrap": 1,
        "run-bootstrap-sqrt-b": 515,
    }


def test_published_rows_only_for_the_article_design() -> None:
    from evalsig.audit import MethodSettings

    assert published_rows(MixtureDesign(), MethodSettings())
    assert not published_rows(MixtureDesign(uplift=0.02), MethodSettings())
    assert not published_rows(MixtureDesign(), MethodSettings(n_resamples=100))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_simulations": 0}, "n_simulations"),
        ({"n_simulations": 2.5}, "n_simulations"),
        ({"rng": -1}, "rng"),
        ({"methods": []}, "empty"),
        ({"methods": ["paired-t", "paired-t"]}, "more than once"),
        ({"methods": [3]}, "names, AuditMethod objects or functions"),
        ({"independent_runs": 1}, "independent_runs"),
    ],
)
def test_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(DataError, match=message):
        audit(MixtureDesign(n_items=100, n_runs=2), **kwargs)
    with pytest.raises(DataError, match="MixtureDesign or a FittedDesign"):
        audit("article")  # type: ignore[arg-type]


def test_progress_is_reported() -> None:
    from evalsig.progress import reporting

    seen: list[tuple[str, float, float]] = []
    with reporting(lambda label, done, total: seen.append((label, done, total))):
        audit(MixtureDesign(n_items=200, n_runs=2), methods=["mcnemar"], n_simulations=250, rng=1)
    assert seen[0] == ("audit: simulated benchmarks", 0, 250)
    assert seen[-1] == ("audit: simulated benchmarks", 250, 250)


@pytest.mark.slow
def test_ten_thousand_simulations() -> None:
    """At 10,000 benchmarks the rates are pinned down to about half a point."""
    result = audit(methods=ARTICLE_METHODS, n_simulations=10_000, rng=SEED)
    row = result.method("run-bootstrap-sqrt-b")
    assert 0.38 < row.false_positive_rate < 0.44
    assert abs(result.method("paired-t").false_positive_rate - 0.05) < 0.01
