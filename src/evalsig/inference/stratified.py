r"""Stratified means: a score (or a paired difference) over fixed strata, and its t-test.

Items fall in :math:`H` strata (an exam's subjects, a suite's subtasks) that are the whole
population of interest, not a sample of groups. With :math:`n_h` items in stratum
:math:`h`, mean :math:`\bar y_h` and variance :math:`s_h^2`, and weights :math:`W_h`
summing to 1,

.. math:: \hat\mu = \sum_h W_h \bar y_h, \qquad
          \widehat{\operatorname{Var}}(\hat\mu) = \sum_h W_h^2 s_h^2 / n_h,

on Satterthwaite's degrees of freedom
:math:`(\sum_h a_h s_h^2)^2 / \sum_h (a_h s_h^2)^2 / (n_h - 1)`, :math:`a_h = W_h^2 / n_h`
(Cochran 1977, *Sampling Techniques*, sec. 5.4 and 5A.7). Proportional weights
:math:`W_h = n_h / n` give the plain mean with the variance between strata taken out of
its standard error (never larger in expectation than the unstratified one; a single
sample's can be); equal weights :math:`W_h = 1/H` give the macro average, the mean of the
strata's means (MMLU's mean of subject means), whose standard error grows with uneven
strata. Items are a sample from each stratum's larger universe of possible items: no
finite-population correction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    make_result,
    t_interval,
    t_pvalue,
)

__all__ = [
    "StratifiedMean",
    "Weights",
    "check_strata",
    "stratified_from_sums",
    "stratified_mean",
    "stratified_t_core",
]

Weights = Literal["proportional", "equal"]


@dataclass(frozen=True, slots=True)
class StratifiedMean:
    """A stratified mean, its standard error and degrees of freedom."""

    estimate: float
    se: float
    df: float
    weights: np.ndarray
    """``(H,)`` each stratum's weight."""
    sizes: np.ndarray
    """``(H,)`` items in each stratum."""
    means: np.ndarray
    """``(H,)`` each stratum's mean."""
    plain_se: float
    """The unstratified SE, ``sd / sqrt(n)``, for comparison."""


def stratified_mean(
    values: np.ndarray,
    codes: np.ndarray,
    *,
    weights: Weights = "proportional",
    labels: np.ndarray | None = None,
) -> StratifiedMean:
    """The stratified mean of ``values`` over strata ``codes`` (``0 .. H-1``), with the
    standard error and Satterthwaite degrees of freedom of the module's docstring.

    >>> y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    >>> m = stratified_mean(y, np.array([0, 0, 0, 0, 1, 1, 1, 1]))
    >>> round(m.estimate, 6), round(m.se, 6), round(m.df, 6)
    (0.5, 0.176777, 6.0)
    """
    y = np.asarray(values, dtype=np.float64)
    codes = np.asarray(codes)
    strata = int(codes.max()) + 1
    sizes = np.bincount(codes, minlength=strata).astype(np.float64)
    check_strata(sizes, labels)
    totals = np.bincount(codes, weights=y, minlength=strata)
    squares = np.bincount(codes, weights=y * y, minlength=strata)
    means = totals / sizes
    estimate, se, df = stratified_from_sums(
        sizes[:, None], totals[:, None], squares[:, None], weights=weights
    )
    n = y.size
    plain = float(np.sqrt(((y - y.mean()) ** 2).sum() / (n - 1) / n))
    w = sizes / sizes.sum() if weights == "proportional" else np.full(strata, 1.0 / strata)
    return StratifiedMean(
        estimate=float(estimate[0]),
        se=float(se[0]),
        df=float(df[0]),
        weights=w,
        sizes=sizes.astype(np.int64),
        means=means,
        plain_se=plain,
    )


def check_strata(sizes: np.ndarray, labels: np.ndarray | None = None) -> None:
    """At least 2 strata, each of at least 2 items (a stratum's variance needs 2)."""
    small = np.flatnonzero(sizes < 2)
    if small.size:
        name = repr(labels[small[0]]) if labels is not None else f"number {small[0]}"
        raise DataError(
            f"stratum {name} has {int(sizes[small[0]])} item(s): a stratum's variance needs "
            "at least 2; merge it with a neighbouring stratum, or leave strata out."
        )
    if sizes.size < 2:
        raise DataError("strata need at least 2 strata; with one, leave strata out.")


def stratified_from_sums(
    sizes: np.ndarray, totals: np.ndarray, squares: np.ndarray, *, weights: Weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The stratified mean, SE and Satterthwaite df of the module's docstring, for many
    series at once, from each stratum's item count :math:`n_h`, total :math:`\sum y` and
    sum of squares :math:`\sum y^2` (each ``(H, P)``: strata by series; every stratum
    at least 2 items). Returns three ``(P,)`` arrays."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means = totals / sizes
        variances = np.maximum(squares - totals * means, 0.0) / (sizes - 1)
    if weights == "proportional":
        w = sizes / sizes.sum(axis=0)
    else:
        w = np.full(sizes.shape, 1.0 / sizes.shape[0])
    parts = w * w * variances / sizes
    variance = parts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(variance > 0, variance**2 / (parts * parts / (sizes - 1)).sum(axis=0), np.nan)
    return (w * means).sum(axis=0), np.sqrt(variance), df


def stratified_t_core(
    d: np.ndarray,
    codes: np.ndarray,
    *,
    weights: Weights,
    alternative: Alternative,
    confidence_level: float,
    labels: np.ndarray | None = None,
) -> InferenceResult:
    """The t-test of a stratified mean of per-item differences ``d`` (strata ``codes``)."""
    variant = weights
    m = stratified_mean(d, codes, weights=variant, labels=labels)
    sizes = m.sizes
    notes = [
        f"stratified over {sizes.size} strata (sizes {int(sizes.min()):,} to "
        f"{int(sizes.max()):,}), {variant} weights; SE {m.se:.4g} against {m.plain_se:.4g} "
        f"unstratified; t on {m.df:.4g} df (Satterthwaite)."
    ]
    if variant == "proportional":
        macro = stratified_mean(d, codes, weights="equal", labels=labels)
        notes.append(
            f"the macro average (each stratum's mean weighted equally) is {macro.estimate:+.4g}, "
            f"SE {macro.se:.4g}: method='stratified', variant='equal' tests it."
        )
    estimate, se, df = m.estimate, m.se, m.df
    if se > 0:
        t = estimate / se
        pvalue = t_pvalue(t, df, alternative)
    elif estimate == 0:
        t, pvalue, df = 0.0, 1.0, math.nan
        notes.append("every per-item difference is 0: no evidence of a difference (p = 1).")
    else:
        t, pvalue, df = math.copysign(math.inf, estimate), math.nan, math.nan
        notes.append(
            "every stratum's differences are constant: the t-test is undefined with zero variance."
        )
    return make_result(
        method=f"stratified-{variant}",
        estimand="mean difference" if variant == "proportional" else "macro-average difference",
        estimate=estimate,
        se=se,
        statistic=t,
        statistic_name="t",
        df=df,
        pvalue=pvalue,
        notes=tuple(notes),
        interval=partial(t_interval, estimate, se, df),
        alternative=alternative,
        confidence_level=confidence_level,
    )
