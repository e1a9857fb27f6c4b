"""decision_study: the projected SE by hand, against a seeded simulation of the projected
design, its bootstrap intervals, and the designs it refuses."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from evalsig.errors import DataError
from evalsig.facets import decision_study, variance_sources


def test_projection_by_hand_and_at_the_current_design(crossed: Callable[..., pd.DataFrame]) -> None:
    """Balanced: at today's levels the projection is the SE variance_sources reports; with
    other levels each term's variance is divided by the product of its facets' levels."""
    sources = variance_sources(
        crossed(0, items=40), facets=["item", "prompt", "run"], n_resamples=0
    )
    study = decision_study(sources, designs=[{}, {"item": 80, "prompt": 10, "run": 1}])
    assert study.designs[0].se == pytest.approx(sources.se, rel=1e-12)
    levels = {"item": 80, "prompt": 10, "run": 1}
    expected = 0.0
    for row in sources.terms:
        facets = ["item", "prompt", "run"] if row.term == "residual" else row.term.split(":")
        expected += row.variance / math.prod(levels[f] for f in facets)
    assert study.designs[1].se == pytest.approx(math.sqrt(expected), rel=1e-12)
    assert study.designs[1].scores == 800
    assert study.designs[1].mde is None  # one model's score
    assert study.designs[1].se_low is None


def test_projected_se_matches_a_simulation_of_the_projected_design(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    """Scores drawn from the fitted components on the projected grid (20 items x 8 prompts
    x 3 runs): the SD of their mean over 4,000 seeded draws equals the projected SE within
    its Monte Carlo error (the SD of an SD of R normal draws is about SE / sqrt(2 R))."""
    a, b = crossed(1, items=40), crossed(2, items=40)
    sources = variance_sources(b, facets=["item", "prompt", "run"], baseline=a, n_resamples=0)
    study = decision_study(sources, designs=[{"item": 20, "prompt": 8, "run": 3}])
    projected = study.designs[0].se
    shape = (20, 8, 3)
    axes = {"item": (0,), "prompt": (1,), "run": (2,), "residual": (0, 1, 2)}
    rng = np.random.default_rng(5)
    reps = 4000
    means = np.zeros(reps)
    for row in sources.terms:
        span = axes.get(row.term) or tuple(axes[f][0] for f in row.term.split(":"))
        size = [shape[i] if i in span else 1 for i in range(3)]
        draws = rng.normal(0.0, math.sqrt(row.variance), (reps, *size))
        means += np.broadcast_to(draws, (reps, *shape)).mean(axis=(1, 2, 3))
    simulated = means.std(ddof=1)
    assert simulated == pytest.approx(projected, abs=4 * projected / math.sqrt(2 * reps))
    multiplier = study.designs[0].mde / projected
    assert multiplier == pytest.approx(1.959963984540054 + 0.8416212335729143, rel=1e-12)


def test_intervals_come_from_the_resamples_and_hold_the_point(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    sources = variance_sources(
        crossed(3, items=40), facets=["item", "prompt"], n_resamples=100, rng=4
    )
    study = decision_study(sources)
    assert len(study.designs) == 7  # items and prompts at 0.5, 1, 2, 4 times, today once
    for design in study.designs:
        assert design.se_low is not None
        assert design.se_high is not None
        assert design.se_low <= design.se_high
    now = next(d for d in study.designs if d.levels == study.current)
    assert now.se_low < now.se < now.se_high
    frame = study.to_frame()
    assert list(frame.columns[:2]) == ["item", "prompt"]
    assert len(frame) == 7


def test_designs_that_name_no_facet_are_refused(crossed: Callable[..., pd.DataFrame]) -> None:
    sources = variance_sources(crossed(0, items=40), facets=["item", "prompt"], n_resamples=0)
    with pytest.raises(DataError, match="names 'judge', not a facet of the study"):
        decision_study(sources, designs=[{"judge": 3}])
    with pytest.raises(DataError, match="fewer than 1 level"):
        decision_study(sources, designs=[{"item": 0}])
    with pytest.raises(DataError, match="alpha"):
        decision_study(sources, alpha=1.5)
