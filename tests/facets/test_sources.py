"""variance_sources: the terms it builds from facet columns, the paired difference, the
share of the SE by hand, and the errors that name the column."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from evalsig.errors import DataError
from evalsig.facets import variance_sources
from evalsig.inference.components import fit_components


def test_terms_are_the_facets_and_their_estimable_combinations(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    result = variance_sources(crossed(), facets=["item", "prompt", "run"], n_resamples=0)
    assert [row.term for row in result.terms] == [
        "item",
        "prompt",
        "run",
        "item:prompt",
        "item:run",
        "prompt:run",
        "residual",
    ]
    nested = pd.DataFrame(
        {
            "passage": np.repeat(["p1", "p2", "p3", "p4"], [6, 6, 9, 9]),
            "item": np.repeat([f"q{i}" for i in range(10)], 3),
            "score": np.random.default_rng(1).normal(size=30),
        }
    )
    result = variance_sources(nested, facets=["passage", "item"], n_resamples=0)
    assert [row.term for row in result.terms] == ["passage", "item", "residual"]


def test_shares_by_hand_on_a_balanced_design(crossed: Callable[..., pd.DataFrame]) -> None:
    """Balanced: a term's part of Var(ybar) is its variance over its levels; the shares
    sum to 1 and the SE is the root of the parts' sum."""
    table = crossed()
    result = variance_sources(table, facets=["item", "prompt", "run"], n_resamples=0)
    levels = {"item": 30, "prompt": 4, "run": 2, "item:prompt": 120, "item:run": 60,
              "prompt:run": 8, "residual": 240}  # fmt: skip
    parts = {row.term: row.variance / levels[row.term] for row in result.terms}
    assert {row.term: row.se_part for row in result.terms} == pytest.approx(parts, rel=1e-12)
    assert result.se == pytest.approx(np.sqrt(sum(parts.values())), rel=1e-12)
    assert sum(row.share_of_se for row in result.terms) == pytest.approx(1.0)
    assert result.mean == pytest.approx(table["score"].mean(), rel=1e-12)
    assert result.reml_mean == pytest.approx(table["score"].mean(), rel=1e-9)  # balanced
    frame = result.to_frame()
    assert list(frame["term"]) == [row.term for row in result.terms]


def test_paired_difference_is_the_fit_of_the_cell_differences(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    a, b = crossed(1), crossed(2)
    b = b.sample(frac=1.0, random_state=3).iloc[5:]  # other order, five cells missing
    result = variance_sources(b, facets=["item", "prompt", "run"], baseline=a, n_resamples=0)
    merged = b.merge(a, on=["item", "prompt", "run"], suffixes=("_b", "_a"))
    y = (merged["score_b"] - merged["score_a"]).to_numpy()
    codes = {f: pd.factorize(merged[f])[0] for f in ("item", "prompt", "run")}
    for name in ("item:prompt", "item:run", "prompt:run"):
        first, second = name.split(":")
        codes[name] = pd.factorize(merged[first].astype(str) + "|" + merged[second].astype(str))[0]
    fit = fit_components(y, codes)
    by_term = {row.term: row.variance for row in result.terms}
    assert by_term == pytest.approx(
        dict(zip(fit.terms, fit.variances, strict=True)) | {"residual": fit.residual}, abs=1e-7
    )  # rows in another order: the optimiser's path differs, its answer to 1e-8
    assert result.estimand == "difference"
    assert result.n == 235
    assert result.mean == pytest.approx(y.mean(), rel=1e-12)
    assert any("0 cells of data and 5 of the baseline" in note for note in result.notes)


def test_bad_input_names_the_column_and_the_fix(crossed: Callable[..., pd.DataFrame]) -> None:
    table = crossed()
    with pytest.raises(DataError, match="`data` has no column 'judge'"):
        variance_sources(table, facets=["item", "judge"])
    with pytest.raises(DataError, match="facet 'one' has one level"):
        variance_sources(table.assign(one="x"), facets=["item", "one"])
    with pytest.raises(DataError, match=r"1 missing or non-finite scores \(first at row 7\)"):
        variance_sources(
            table.assign(score=table["score"].where(table.index != 7)), facets=["item"]
        )
    with pytest.raises(DataError, match="must name the facet columns"):
        variance_sources(table, facets="item")
    with pytest.raises(DataError, match="twice"):
        variance_sources(table, facets=["item", "prompt"], baseline=table)
    other = table.assign(item=table["item"] + 1000)
    with pytest.raises(DataError, match="share no cell"):
        variance_sources(other, facets=["item", "prompt", "run"], baseline=table)


def test_bootstrap_intervals_are_seeded_and_hold_the_estimates(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    """The intervals come from resamples of the fitted model: the same seed gives the same
    intervals, each holds its estimate here (every component is well away from 0), and the
    residual's is narrow (240 scores)."""
    table = crossed(4, items=20, prompts=3, runs=2)
    first = variance_sources(table, facets=["item", "prompt"], n_resamples=100, rng=7)
    again = variance_sources(table, facets=["item", "prompt"], n_resamples=100, rng=7)
    assert first.to_dict() == again.to_dict()
    assert first.seed == 7
    assert first.n_resamples == 100
    for row in first.terms:
        assert row.low is not None
        assert row.high is not None
        assert 0.0 <= row.low <= row.high
    residual = first.terms[-1]
    assert residual.low < residual.variance < residual.high
    assert residual.high - residual.low < residual.variance


def test_missing_labels_and_text_scores_are_refused_not_coerced(
    crossed: Callable[..., pd.DataFrame],
) -> None:
    """A missing facet label is not made a level called "nan"; a score "1" is not 1."""
    table = crossed()
    labels = table.assign(prompt=table["prompt"].where(table.index != 3))
    with pytest.raises(
        DataError, match=r"facet column 'prompt' has 1 missing labels \(first at row 3\)"
    ):
        variance_sources(labels, facets=["item", "prompt"], n_resamples=0)
    text = table.assign(score=table["score"].astype(object))
    text.loc[5, "score"] = "1"
    with pytest.raises(DataError, match=r"holds '1' at row 5, not a number"):
        variance_sources(text, facets=["item", "prompt"], n_resamples=0)
    with pytest.raises(DataError, match="differ in length"):
        variance_sources({"item": [1, 2, 3], "score": [0.1, 0.2]}, facets=["item"], n_resamples=0)
    flags = table.assign(score=table["score"] > 0)  # booleans are 0/1 scores
    assert variance_sources(flags, facets=["item", "prompt"], n_resamples=0).n == len(table)
