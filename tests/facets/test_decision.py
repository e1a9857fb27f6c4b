"""decision_study: the projected SE by hand, against a seeded simulation of the projected
design, its bootstrap intervals, and the designs it refuses."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from evalsig.errors import DataError
from evalsig.facets import VarianceSourcesResult, decision_study, variance_sources


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


def _board(seed: int, models: int = 12, items: int = 50, prompts: int = 3) -> pd.DataFrame:
    """Models x items x prompts: a model effect (SD 0.5), items (1), prompts (0.2), model x
    item (0.6), model x prompt (0.15) and noise (0.5)."""
    rng = np.random.default_rng(seed)
    m, i, p = np.meshgrid(np.arange(models), np.arange(items), np.arange(prompts), indexing="ij")
    y = (
        rng.normal(0, 0.5, models)[m]
        + rng.normal(0, 1, items)[i]
        + rng.normal(0, 0.2, prompts)[p]
        + rng.normal(0, 0.6, (models, items))[m, i]
        + rng.normal(0, 0.15, (models, prompts))[m, p]
        + rng.normal(0, 0.5, m.shape)
    )
    return pd.DataFrame(
        {"model": m.ravel(), "item": i.ravel(), "prompt": p.ravel(), "score": y.ravel()}
    )


def test_g_and_phi_by_hand_for_models_as_the_object() -> None:
    """G = sigma2_model / (sigma2_model + relative error), Phi with the absolute error,
    each term over its levels per model (Brennan 2001, eq. 4.18-4.22); the MDE is that of
    two models' difference, sqrt(2) times the relative error's root."""
    sources = variance_sources(_board(0), facets=["model", "item", "prompt"], n_resamples=0)
    study = decision_study(
        sources, object_of_measurement="model", designs=[{}, {"item": 200, "prompt": 1}]
    )
    v = {row.term: row.variance for row in sources.terms}
    for design, (n_i, n_p) in zip(study.designs, [(50, 3), (200, 1)], strict=True):
        relative = v["model:item"] / n_i + v["model:prompt"] / n_p + v["residual"] / (n_i * n_p)
        absolute = relative + v["item"] / n_i + v["prompt"] / n_p + v["item:prompt"] / (n_i * n_p)
        assert design.g == pytest.approx(v["model"] / (v["model"] + relative), rel=1e-12)
        assert design.phi == pytest.approx(v["model"] / (v["model"] + absolute), rel=1e-12)
        assert design.se == pytest.approx(math.sqrt(absolute), rel=1e-12)
        mde = (1.959963984540054 + 0.8416212335729143) * math.sqrt(2 * relative)
        assert design.mde == pytest.approx(mde, rel=1e-12)
    assert [
        d.levels[0] for d in decision_study(sources, object_of_measurement="model").designs
    ] == [12] * 7  # the models are not projected: items and prompts at 0.5 to 4 times, today once


def test_g_of_a_models_by_items_table_is_cronbachs_alpha() -> None:
    """Balanced models x items with no negative component: G at today's items is
    1 - MS(residual) / MS(models), Hoyt's ANOVA form of Cronbach's alpha (Brennan 2001,
    sec. 3.5), computed here from the mean squares."""
    table = _board(1, items=80, prompts=1).drop(columns="prompt")
    sources = variance_sources(table, facets=["model", "item"], n_resamples=0)
    study = decision_study(sources, object_of_measurement="model", designs=[{}])
    y = table.pivot(index="model", columns="item", values="score").to_numpy()
    n_m, n_i = y.shape
    model_ms = n_i * ((y.mean(axis=1) - y.mean()) ** 2).sum() / (n_m - 1)
    residual = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0) + y.mean()
    residual_ms = (residual**2).sum() / ((n_m - 1) * (n_i - 1))
    assert min(row.variance for row in sources.terms) > 0
    assert study.designs[0].g == pytest.approx(1 - residual_ms / model_ms, rel=1e-8)


def test_g_intervals_come_from_the_resamples() -> None:
    sources = variance_sources(
        _board(2, models=6, items=20, prompts=2),
        facets=["model", "item", "prompt"],
        n_resamples=100,
        rng=1,
    )
    now = decision_study(sources, object_of_measurement="model", designs=[{}]).designs[0]
    assert now.g_low is not None
    assert now.g_high is not None
    assert 0 <= now.g_low < now.g < now.g_high <= 1


def _brute_force(
    sources: VarianceSourcesResult,
    costs: dict[str, float],
    ranges: dict[str, range],
    **target: float,
) -> tuple[int, ...]:
    """Every design in the ranges, projected one by one and compared in a plain loop: the
    least SE within the budget, or the least cost whose 95% half-width reaches the target."""
    facets = sources.facets
    grid = [
        dict(zip(facets, levels, strict=True))
        for levels in itertools.product(*(ranges[f] for f in facets))
    ]
    best: tuple[float, float, tuple[int, ...]] | None = None
    for d in decision_study(sources, designs=grid, costs=costs).designs:
        assert d.cost is not None
        if "budget" in target:
            key = (d.se, d.cost) if d.cost <= target["budget"] else None
        else:
            reach = 1.959963984540054 * d.se <= target["half_width"] * (1 + 1e-12)
            key = (d.cost, d.se) if reach else None
        if key is not None and (best is None or key < best[:2]):
            best = (*key, d.levels)
    assert best is not None
    return best[2]


@pytest.mark.parametrize("target", [{"budget": 900.0}, {"half_width": 0.3}])
def test_allocation_equals_a_search_of_every_design(
    crossed: Callable[..., pd.DataFrame], target: dict[str, float]
) -> None:
    """The closed form in the items and the search over prompts and runs find the design a
    plain loop over every design finds, on costs where runs are cheap and prompts dear."""
    sources = variance_sources(
        crossed(4, items=40), facets=["item", "prompt", "run"], n_resamples=0
    )
    costs = {"item:prompt:run": 1.0, "item:prompt": 2.0, "prompt": 25.0}
    study = decision_study(
        sources, costs=costs, max_levels={"prompt": 6, "run": 5, "item": 400}, **target
    )
    ranges = {"item": range(1, 401), "prompt": range(1, 7), "run": range(1, 6)}
    levels = _brute_force(sources, costs, ranges, **target)
    assert study.allocation is not None
    assert study.allocation.levels == levels
    if "budget" in target:
        assert study.allocation.cost <= target["budget"]
    else:
        assert 1.959963984540054 * study.allocation.se <= target["half_width"] * (1 + 1e-12)


def test_allocation_ranges_over_the_resamples(crossed: Callable[..., pd.DataFrame]) -> None:
    sources = variance_sources(
        crossed(5, items=40), facets=["item", "prompt"], n_resamples=100, rng=2
    )
    costs = {"item:prompt": 1.0, "prompt": 30.0}
    study = decision_study(sources, costs=costs, half_width=0.4, max_levels={"prompt": 30})
    assert study.allocation is not None
    assert study.allocation_low is not None
    assert study.allocation_high is not None
    assert all(lo <= hi for lo, hi in zip(study.allocation_low, study.allocation_high, strict=True))
    assert study.cost_low is not None
    assert study.cost_high is not None
    assert study.cost_low <= study.allocation.cost <= study.cost_high
    budget = decision_study(sources, costs=costs, budget=2000, max_levels={"prompt": 12})
    assert budget.cost_low is None
    assert budget.allocation_low is not None


def test_allocation_and_object_refusals(crossed: Callable[..., pd.DataFrame]) -> None:
    sources = variance_sources(crossed(0, items=30), facets=["item", "prompt"], n_resamples=0)
    cases = [
        ({"costs": {"item:judge": 1.0}, "budget": 10}, "not a facet or a combination"),
        ({"costs": {"item": -1.0}, "budget": 10}, "finite cost at least 0"),
        ({"costs": {"item": 1.0}, "budget": 10}, "charge nothing for 'prompt'"),
        ({"costs": {"item:prompt": 1.0}, "budget": 10, "half_width": 0.1}, "not both"),
        ({"costs": {"item:prompt": 1.0}, "budget": 0.5}, "buys no design"),
        ({"budget": 10}, "needs `costs`"),
        ({"costs": {"item:prompt": 1.0}, "budget": float("nan")}, "finite number above 0"),
        ({"costs": {"item:prompt": 1.0}, "budget": 10, "max_levels": {"run": 3}}, "max_levels"),
        ({"object_of_measurement": "judge"}, "not a facet of the study"),
        ({"object_of_measurement": "prompt", "designs": [{"prompt": 8}]}, "object of measurement"),
        (
            {"costs": {"item:prompt": 1.0}, "half_width": 1e-6, "max_levels": {"prompt": 2}},
            "shrink",
        ),
        ({"costs": {"item:prompt": 1.0}, "half_width": 0.3, "max_levels": {"item": 2}}, "2 item"),
    ]
    for keywords, message in cases:
        with pytest.raises(DataError, match=message):
            decision_study(sources, **keywords)  # type: ignore[arg-type]
    difference = variance_sources(
        crossed(1, items=30, runs=1),
        facets=["item", "prompt"],
        baseline=crossed(2, items=30, runs=1),
        n_resamples=0,
    )
    with pytest.raises(DataError, match="not for a paired difference"):
        decision_study(difference, object_of_measurement="item")
