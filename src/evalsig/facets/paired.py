r"""The paired test of two models whose scores cross facets beyond the items.

With prompts, runs or judges crossed with the items, the mean difference over the cells
varies with the facets' levels too (every item shares the same five prompt templates), and
a t-test on per-item means leaves that out. Here the difference's variance is that of the
REML components (:func:`evalsig.facets.variance_sources`),

.. math:: t = \bar d / \widehat{\operatorname{SE}}(\bar d), \qquad
          \widehat{\operatorname{SE}}^2 = \sum_k c_k \hat\sigma_k^2 + \hat\sigma^2 / n,

on Satterthwaite's degrees of freedom (:func:`evalsig.inference.components.mean_df`): few
prompts give few degrees of freedom and a wide interval, as they should (Kuznetsova,
Brockhoff and Christensen 2017, *J. Stat. Softw.* 82(13), for lmerTest's test).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

from evalsig.data.paired import OnMissing
from evalsig.data.readers.base import SCORE_NAMES
from evalsig.errors import DataError
from evalsig.facets.sources import Table, VarianceSourcesResult, variance_sources
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    make_result,
    t_interval,
    t_pvalue,
)

__all__ = ["METHOD", "facet_test", "score_column_of"]

METHOD = "facets"


def facet_test(
    baseline: Table,
    candidate: Table,
    *,
    facets: Sequence[str],
    score_column: str,
    on_missing: OnMissing,
    alternative: Alternative,
    confidence_level: float,
) -> tuple[InferenceResult, VarianceSourcesResult]:
    """The t-test of the mean cell-by-cell difference ``candidate - baseline``, and the
    decomposition its standard error comes from."""
    sources = variance_sources(
        candidate,
        facets=facets,
        score_column=score_column,
        baseline=baseline,
        on_missing=on_missing,
        n_resamples=0,
        confidence_level=confidence_level,
    )
    estimate, se, df = sources.mean, sources.se, sources.df  # se > 0: the scores vary
    notes = list(sources.notes)
    t = estimate / se
    pvalue = t_pvalue(t, df, alternative)  # NaN where df is not defined
    top = max(sources.terms, key=lambda row: row.share_of_se)
    notes.append(
        "SE from the REML components of the difference: "
        + ", ".join(f"{row.term} {100 * row.share_of_se:.0f}%" for row in sources.terms)
        + f" of its square (largest: {top.term}); t on {df:.3g} Satterthwaite df"
    )
    return (
        make_result(
            method=METHOD,
            estimand="mean difference over the cells of the facets",
            estimate=estimate,
            se=se,
            statistic=t,
            statistic_name="t",
            df=df if math.isfinite(df) else None,
            pvalue=pvalue,
            notes=tuple(notes),
            interval=partial(_interval, estimate, se, df),
            alternative=alternative,
            confidence_level=confidence_level,
        ),
        sources,
    )


def score_column_of(table: Table, facets: Sequence[str]) -> str:
    """The score column of a long table: the one of the usual names it holds."""
    columns = [str(name) for name in table]  # a DataFrame iterates over its columns
    found = [name for name in SCORE_NAMES if name in columns and name not in facets]
    if len(found) != 1:
        what = "several score columns" if found else "no score column"
        raise DataError(
            f"the baseline table has {what} ({', '.join(map(repr, found or columns))}); "
            f"name its score column one of {', '.join(map(repr, SCORE_NAMES))} "
            "(DataFrame.rename), in both tables."
        )
    return found[0]


def _interval(
    estimate: float, se: float, df: float, level: float, alternative: Alternative
) -> tuple[float, float]:
    """The t interval; undefined (NaN) where Satterthwaite's df is."""
    if not math.isfinite(df):
        return math.nan, math.nan
    return t_interval(estimate, se, df, level, alternative)
