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
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

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

__all__ = [
    "METHOD",
    "check_request",
    "facet_interval",
    "facet_test",
    "score_column_of",
    "scores_in_unit_interval",
    "se_note",
]

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
    t = estimate / se
    pvalue = t_pvalue(t, df, alternative)  # NaN where df is not defined
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
            notes=(*sources.notes, se_note(sources)),
            interval=partial(facet_interval, estimate, se, df),
            alternative=alternative,
            confidence_level=confidence_level,
        ),
        sources,
    )


def check_request(method: str, others: Mapping[str, Any]) -> None:
    """Refuse, with ``facets``, another method or the options that do not apply
    (``others``: their names and the values given, None when left out)."""
    if method not in ("auto", METHOD):
        raise DataError(
            f"with `facets`, method={METHOD!r} is the one that applies (REML components, "
            f"Satterthwaite df); got method={method!r}: leave `method` out, or drop `facets`."
        )
    given = [name for name, value in others.items() if value is not None]
    if given:
        raise DataError(
            f"`{given[0]}` does not apply with `facets`: a grouping of the items is a facet "
            "of its own (add its column to `facets`)."
        )


def score_column_of(table: Table, facets: Sequence[str]) -> str:
    """The score column of a long table: the one of the usual names it holds."""
    columns = [str(name) for name in table]  # a DataFrame iterates over its columns
    found = [name for name in SCORE_NAMES if name in columns and name not in facets]
    if len(found) != 1:
        what = "several score columns" if found else "no score column"
        raise DataError(
            f"the table has {what} ({', '.join(map(repr, found or columns))}); name its "
            f"score column one of {', '.join(map(repr, SCORE_NAMES))} (DataFrame.rename)."
        )
    return found[0]


def scores_in_unit_interval(tables: Sequence[Table], column: str) -> bool:
    """Whether every score of the tables lies in [0, 1] (accuracies, 0/1 scores)."""
    values = [np.asarray(table[column], dtype=np.float64) for table in tables]
    return all(v.size and float(v.min()) >= 0.0 and float(v.max()) <= 1.0 for v in values)


def se_note(sources: VarianceSourcesResult) -> str:
    """Each term's share of the squared SE, and the df of the t."""
    top = max(sources.terms, key=lambda row: row.share_of_se)
    return (
        "SE from the REML components"
        + (" of the difference: " if sources.estimand == "difference" else ": ")
        + ", ".join(f"{row.term} {100 * row.share_of_se:.0f}%" for row in sources.terms)
        + f" of its square (largest: {top.term}); t on {sources.df:.3g} Satterthwaite df"
    )


def facet_interval(
    estimate: float, se: float, df: float, confidence_level: float, alternative: Alternative
) -> tuple[float, float]:
    """The t interval; undefined (NaN) where Satterthwaite's df is."""
    if not math.isfinite(df):
        return math.nan, math.nan
    return t_interval(estimate, se, df, confidence_level, alternative)
