r"""Where a score's variance comes from: REML components of its facets, and their share of
the standard error.

A long table holds one score a row and a column per facet (item, prompt template, sampling
run, judge, few-shot set). Each facet, and each combination of facets that the data can
tell from the residual, is a random term; :func:`evalsig.inference.components.fit_components`
estimates their variances by REML (zero where the data put them at the boundary), and the
variance of the score (the plain mean of the rows) splits into one part a term,

.. math:: \operatorname{Var}(\bar y) = \sum_k \hat\sigma_k^2 \sum_l n_{kl}^2 / n^2
          + \hat\sigma^2 / n,

:math:`\hat\sigma_k^2 / L_k` in a balanced design (Brennan 2001, *Generalizability Theory*,
ch. 4). Given a baseline table too, the terms are those of the paired difference of the
two models' scores on the cells both hold.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe, seed_null
from evalsig.data.paired import OnMissing
from evalsig.errors import DataError
from evalsig.inference._common import ConfidenceInterval, check_confidence_level, t_interval
from evalsig.inference.components import (
    ComponentFit,
    ComponentIntervals,
    component_intervals,
    fit_components,
    mean_df,
    mean_variance_shares,
    same_grouping,
)
from evalsig.result import Result

__all__ = ["SourceRow", "VarianceSourcesResult", "variance_sources"]

METHOD = "REML (random intercepts, components constrained at 0)"

Table = Mapping[str, Sequence[Any] | np.ndarray] | Any
"""A long table: a pandas DataFrame, or a mapping of column name to values."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRow:
    """One random term (or the residual) of the decomposition."""

    term: str
    """A facet (``"prompt"``), a combination (``"item:prompt"``) or ``"residual"``."""
    variance: float
    r""":math:`\hat\sigma_k^2`, the variance of one score due to this term."""
    levels: int
    """Levels of the term (rows, for the residual)."""
    share_of_score_variance: float
    """:math:`\\hat\\sigma_k^2` over the sum of all components: its part of one score's
    variance."""
    se_part: float
    r"""Its part of :math:`\operatorname{Var}(\bar y)`."""
    share_of_se: float
    """``se_part`` over :math:`\\operatorname{Var}(\\bar y)`: its share of the squared
    standard error of the score."""
    low: float | None = None
    high: float | None = None
    """The variance's parametric-bootstrap percentile interval (None without resamples)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VarianceSourcesResult(Result):
    """A score's (or a paired difference's) variance components and their share of its SE."""

    kind: ClassVar[str] = "variance-sources"

    estimand: str
    """``"score"`` (one model) or ``"difference"`` (candidate minus baseline, cell by cell)."""
    facets: tuple[str, ...]
    facet_levels: tuple[int, ...]
    """Each facet's levels over the rows used (a facet with a level a row is the residual,
    not a term, but keeps its count here)."""
    terms: tuple[SourceRow, ...]
    """The random terms, then the residual."""
    mean: float
    """The plain mean of the rows (the score, or the mean paired difference)."""
    baseline_mean: float | None
    """The baseline's mean over the cells both tables hold (None for one model's score);
    the candidate's is ``baseline_mean + mean``."""
    se: float
    r""":math:`\sqrt{\operatorname{Var}(\bar y)}` from the components."""
    df: float
    """Satterthwaite's degrees of freedom of ``se`` (from the REML estimates' covariance;
    NaN where it is not defined: every component at 0 but the residual's, with no
    spread)."""
    ci: ConfidenceInterval
    """The mean's t interval on ``df`` degrees of freedom, at ``confidence_level``."""
    reml_mean: float
    """REML's generalised-least-squares mean (weights rows by the fitted covariance)."""
    reml_se: float
    n: int
    """Rows (cells) used."""
    n_dropped: tuple[int, int] = (0, 0)
    """Cells left out of a difference as in one table only: (the baseline's, data's)."""
    criterion: float
    """The REML criterion at the estimate (lme4's ``REMLcrit``)."""
    converged: bool
    confidence_level: float
    n_resamples: int
    """Parametric-bootstrap resamples behind the components' intervals (0: none)."""
    seed: int | None = None
    """The seed of the resamples (``rng=seed`` reproduces them); None when nothing was
    drawn, or ``rng`` was a Generator."""
    method: str = METHOD
    notes: tuple[str, ...] = ()
    draws: np.ndarray | None = field(default=None, repr=False, compare=False)
    """The bootstrap's resampled variances (n_resamples, terms), residual last; None
    without resamples. Not in ``to_dict()``: a decision study projects them."""

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        seed_null(nulls, self.seed, drew=self.n_resamples > 0)
        if not self.n_resamples:
            nulls["terms[].low"] = nulls["terms[].high"] = "no resamples: n_resamples=0"
        if self.baseline_mean is None:
            nulls["baseline_mean"] = "one model's score: no baseline"
        return {
            "kind": "variance-sources",
            "schema_version": SCHEMA_VERSION,
            "method": self.method,
            "estimand": self.estimand,
            "facets": list(self.facets),
            "facet_levels": list(self.facet_levels),
            "n": self.n,
            "n_dropped": {"only_baseline": self.n_dropped[0], "only_data": self.n_dropped[1]},
            "mean": self.mean,
            "baseline_mean": self.baseline_mean,
            "se": self.se,
            "df": json_safe(self.df, "df", nulls, "undefined: no variance to spread"),
            "ci": {
                "low": json_safe(self.ci.low, "ci.low", nulls, "undefined: no df"),
                "high": json_safe(self.ci.high, "ci.high", nulls, "undefined: no df"),
                "confidence_level": self.ci.confidence_level,
            },
            "reml_mean": self.reml_mean,
            "reml_se": self.reml_se,
            "criterion": self.criterion,
            "converged": self.converged,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "terms": [
                {
                    "term": row.term,
                    "variance": row.variance,
                    "levels": row.levels,
                    "share_of_score_variance": row.share_of_score_variance,
                    "se_part": row.se_part,
                    "share_of_se": row.share_of_se,
                    "low": row.low,
                    "high": row.high,
                }
                for row in self.terms
            ],
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row a term (the residual last): variance, levels, its share of one score's
        variance, its part of the squared SE and its share of it."""
        from evalsig._frame import data_frame, floats, ints

        return data_frame(
            {
                "term": [row.term for row in self.terms],
                "variance": floats(row.variance for row in self.terms),
                "levels": ints(row.levels for row in self.terms),
                "share_of_score_variance": floats(
                    row.share_of_score_variance for row in self.terms
                ),
                "se_part": floats(row.se_part for row in self.terms),
                "share_of_se": floats(row.share_of_se for row in self.terms),
                "low": floats(row.low for row in self.terms),
                "high": floats(row.high for row in self.terms),
            }
        )


def variance_sources(
    data: Table,
    /,
    *,
    facets: Sequence[str],
    score_column: str = "score",
    baseline: Table | None = None,
    on_missing: OnMissing = "intersect",
    n_resamples: int = 200,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> VarianceSourcesResult:
    r"""Split the variance of a score (or of a paired difference) among its facets.

    Parameters
    ----------
    data : DataFrame or mapping of column to values
        A long table, one score a row: the ``score_column`` and one column per facet.
    facets : sequence of str
        The facet columns (``["item", "prompt", "run"]``). Crossed or nested is what the
        labels say: an item label that appears under one passage only is nested in it.
    score_column : str
        The score column.
    baseline : DataFrame or mapping, optional
        A second model's table with the same columns: the decomposition is then of the
        difference ``data - baseline`` on each cell (one row a combination of facet labels
        in both tables); cells in one table only are counted in a note.
    n_resamples : int
        Parametric-bootstrap resamples for the components' percentile intervals (each one
        REML fit; 0 for none).
    confidence_level : float
        Of the intervals.
    rng : numpy.random.Generator, int or None
        The resamples' source; None draws a seed and records it.

    Returns
    -------
    VarianceSourcesResult

    Raises
    ------
    DataError
        A missing column, a non-finite score, a facet with one level, a combination of
        facet labels given twice, or no cell in both tables.

    Notes
    -----
    The terms are each facet and each combination of facets, smallest first, leaving out a
    combination that groups the rows as an earlier term does (nested facets) and a facet
    or combination that has a level a row (it is the residual: runs labelled anew in each
    item). REML by
    :func:`evalsig.inference.components.fit_components`; see the module's docstring for
    the share of the standard error.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(40), 3), np.tile(np.arange(3), 40)
    >>> y = rng.normal(0, 1, 40)[item] + rng.normal(0, 0.5, 3)[prompt] + rng.normal(0, 0.3, 120)
    >>> result = variance_sources({"item": item, "prompt": prompt, "score": y},
    ...                           facets=["item", "prompt"], n_resamples=0)
    >>> [row.term for row in result.terms]
    ['item', 'prompt', 'residual']
    """
    facets = _check_facets(facets, score_column)
    confidence_level = check_confidence_level(confidence_level)
    labels, y = _columns(data, facets, score_column, "data")
    notes: list[str] = []
    if on_missing not in ("intersect", "error"):
        raise DataError(f"`on_missing` must be 'intersect' or 'error'; got {on_missing!r}.")
    estimand, baseline_mean, dropped = "score", None, (0, 0)
    if baseline is not None:
        base_labels, base_y = _columns(baseline, facets, score_column, "baseline")
        labels, y, baseline_mean, dropped = _paired(labels, y, base_labels, base_y, notes)
        if on_missing == "error" and any(dropped):
            raise DataError(
                f"{dropped[1]} cells of `data` and {dropped[0]} of `baseline` are in one "
                "table only; pass on_missing='intersect' to compare the cells in both."
            )
        estimand = "difference"
    terms = _terms(facets, labels, y.shape[0])
    fit = fit_components(y, terms)
    if not fit.converged:
        notes.append(
            "REML stopped before its criterion settled: read the components as approximate"
        )
    intervals = None
    if n_resamples:
        intervals = component_intervals(
            y, terms, fit, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng
        )
        if intervals.failed:
            notes.append(
                f"{intervals.failed} of {n_resamples} bootstrap fits broke down numerically "
                "and are left out of the intervals"
            )
        if intervals.unsettled:
            notes.append(
                f"{intervals.unsettled} of {n_resamples} bootstrap fits stopped before their "
                "criterion settled (kept in the intervals)"
            )
    result = _result(fit, intervals, terms, y, facets, estimand, notes, confidence_level)
    return dataclasses.replace(
        result,
        facet_levels=tuple(int(np.unique(column).size) for column in labels),
        baseline_mean=baseline_mean,
        n_dropped=dropped,
    )


def _check_facets(facets: Sequence[str], score: str) -> tuple[str, ...]:
    names = tuple(facets)
    if isinstance(facets, str) or not names:
        raise DataError(
            f"`facets` must name the facet columns, e.g. facets=['item', 'prompt']; got {facets!r}."
        )
    if len(set(names)) != len(names) or score in names:
        raise DataError(
            f"`facets` {list(names)} must be distinct columns other than the score column "
            f"{score!r}."
        )
    return names


def _columns(
    data: Table, facets: tuple[str, ...], score: str, argument: str
) -> tuple[list[np.ndarray], np.ndarray]:
    """Each facet's labels and the scores, checked."""
    columns = [str(name) for name in data]  # a DataFrame iterates over its columns
    missing = [name for name in (*facets, score) if name not in columns]
    if missing:
        raise DataError(
            f"`{argument}` has no column {missing[0]!r}; its columns are {columns}: name the "
            "facets and the score with facets= and score_column=."
        )
    y = _scores(np.asarray(data[score]), score, argument)
    labels = [_labels(np.asarray(data[name], dtype=object), name, argument) for name in facets]
    if len({y.shape[0], *(column.shape[0] for column in labels)}) != 1:
        raise DataError(f"`{argument}`'s columns {[*facets, score]} differ in length.")
    return labels, y


def _scores(values: np.ndarray, score: str, argument: str) -> np.ndarray:
    """The scores as floats: numbers or booleans only (a text "1" is not read as 1)."""
    if values.dtype.kind not in "biuf":
        text = next(
            (i for i, v in enumerate(values.ravel()) if not isinstance(v, int | float)), None
        )
        if text is not None:
            raise DataError(
                f"`{argument}` column {score!r} holds {values.ravel()[text]!r} at row {text}, "
                "not a number: convert the column to numbers first."
            )
    y = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(y)
    if bad.any():
        raise DataError(
            f"`{argument}` column {score!r} holds {int(bad.sum())} missing or non-finite "
            f"scores (first at row {int(np.flatnonzero(bad)[0])}); drop or fill them first."
        )
    return y


def _labels(values: np.ndarray, name: str, argument: str) -> np.ndarray:
    """A facet's labels as text; a missing label (None, NaN) is refused, not made a level."""
    none = np.equal(values, np.array(None, dtype=object))
    missing = np.flatnonzero(none | (values != values))  # None, or NaN (not equal to itself)
    if missing.size:
        raise DataError(
            f"`{argument}` facet column {name!r} has {missing.size} missing labels (first at "
            f"row {int(missing[0])}); label every row, or drop those rows."
        )
    return values.astype(str)


def _cells(labels: list[np.ndarray]) -> np.ndarray:
    """One code a combination of facet labels."""
    codes = [np.unique(column, return_inverse=True)[1].reshape(-1) for column in labels]
    return np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)[1].reshape(-1)


def _paired(
    labels: list[np.ndarray],
    y: np.ndarray,
    base_labels: list[np.ndarray],
    base_y: np.ndarray,
    notes: list[str],
) -> tuple[list[np.ndarray], np.ndarray, float, tuple[int, int]]:
    """The differences on the cells both tables hold (each cell once in each), the
    baseline's mean over those cells, and the cells of each table left out (baseline's,
    data's)."""
    n = y.shape[0]
    joined = [np.concatenate([a, b]) for a, b in zip(labels, base_labels, strict=True)]
    cell = _cells(joined)
    ours, theirs = cell[:n], cell[n:]
    for side, codes in (("data", ours), ("baseline", theirs)):
        if np.unique(codes).size != codes.size:
            raise DataError(
                f"`{side}` holds a combination of facet labels twice: a paired difference "
                "needs one score a cell; add the facet that tells the rows apart (a run "
                "column)."
            )
    common, at_ours, at_theirs = np.intersect1d(ours, theirs, return_indices=True)
    if not common.size:
        raise DataError(
            "`data` and `baseline` share no cell (combination of facet labels): check that "
            "they label items, prompts and runs alike."
        )
    if common.size < n or common.size < theirs.size:
        notes.append(
            f"{n - common.size} cells of data and {theirs.size - common.size} of the "
            f"baseline are in one table only; the difference is over the {common.size} "
            "cells in both"
        )
    base = base_y[at_theirs]
    dropped = (theirs.size - common.size, n - common.size)
    return [column[at_ours] for column in labels], y[at_ours] - base, float(base.mean()), dropped


def _terms(facets: tuple[str, ...], labels: list[np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Each facet and each combination of facets that is neither a copy of an earlier
    term's grouping nor the residual (a level a row)."""
    terms: dict[str, np.ndarray] = {}
    for name, column in zip(facets, labels, strict=True):
        codes = np.unique(column, return_inverse=True)[1].reshape(-1)
        if codes.max() == 0:
            raise DataError(
                f"facet {name!r} has one level ({column[0]!r}): its variance is not "
                "estimable; leave it out of `facets`."
            )
        if codes.max() + 1 < n:  # a level a row (runs labelled anew in each item): the residual
            terms[name] = codes
    for size in range(2, len(facets) + 1):
        for combo in itertools.combinations(range(len(facets)), size):
            codes = _cells([labels[i] for i in combo])
            levels = int(codes.max()) + 1
            if levels >= n or any(same_grouping(codes, other) for other in terms.values()):
                continue
            terms[":".join(facets[i] for i in combo)] = codes
    if not terms:
        raise DataError(
            f"every facet of {list(facets)} has a level a row: no facet repeats, so no "
            "variance can be told from the residual's; name the facets that rows share "
            "(the item column)."
        )
    return terms


def _result(
    fit: ComponentFit,
    intervals: ComponentIntervals | None,
    terms: dict[str, np.ndarray],
    y: np.ndarray,
    facets: tuple[str, ...],
    estimand: str,
    notes: list[str],
    confidence_level: float,
) -> VarianceSourcesResult:
    parts = mean_variance_shares(fit, terms)
    total_se2 = sum(parts.values())
    df = mean_df(y, terms, fit) if total_se2 > 0 else math.nan
    mean = float(y.mean())
    low, high = (
        t_interval(mean, math.sqrt(total_se2), df, confidence_level, "two-sided")
        if math.isfinite(df)
        else (math.nan, math.nan)
    )
    total = sum(fit.variances) + fit.residual
    rows = [
        SourceRow(
            term=name,
            variance=variance,
            levels=levels,
            share_of_score_variance=variance / total if total > 0 else 0.0,
            se_part=parts[name],
            share_of_se=parts[name] / total_se2 if total_se2 > 0 else 0.0,
        )
        for name, variance, levels in zip(fit.terms, fit.variances, fit.levels, strict=True)
    ]
    rows.append(
        SourceRow(
            term="residual",
            variance=fit.residual,
            levels=fit.n,
            share_of_score_variance=fit.residual / total if total > 0 else 0.0,
            se_part=parts["residual"],
            share_of_se=parts["residual"] / total_se2 if total_se2 > 0 else 0.0,
        )
    )
    if intervals is not None:
        rows = [
            dataclasses.replace(row, low=low, high=high)
            for row, low, high in zip(rows, intervals.low, intervals.high, strict=True)
        ]
    zero = [row.term for row in rows[:-1] if row.variance == 0.0]
    if zero:
        notes.append(
            f"{', '.join(zero)}: estimated at 0 (the boundary): the data show no variance "
            "there beyond the residual's"
        )
    return VarianceSourcesResult(
        estimand=estimand,
        facets=facets,
        facet_levels=(),
        terms=tuple(rows),
        mean=mean,
        baseline_mean=None,
        se=math.sqrt(total_se2),
        df=df,
        ci=ConfidenceInterval(low=low, high=high, confidence_level=confidence_level),
        reml_mean=fit.mean,
        reml_se=fit.mean_se,
        n=fit.n,
        criterion=fit.criterion,
        converged=fit.converged,
        confidence_level=confidence_level if intervals is None else intervals.confidence_level,
        n_resamples=0 if intervals is None else intervals.n_resamples,
        seed=None if intervals is None else intervals.seed,
        notes=tuple(notes),
        draws=None if intervals is None else intervals.draws,
    )
