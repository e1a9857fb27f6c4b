"""Paired sign-flip permutation test (randomization test), exact or Monte Carlo."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import cast

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    choose_pvalue,
    invert_test,
    make_result,
    sides_named,
)
from evalsig.inference._paired_input import paired_arrays, paired_differences
from evalsig.inference._seeded import Resampling, resampling_options
from evalsig.inference.resampling import Atoms, atoms, flip_totals, flip_totals_exact

__all__ = ["Statistic", "permutation_test", "statistic_rows"]

Statistic = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``statistic(baseline_totals, candidate_totals)``: arrays ``(..., k)`` -> ``(...)``."""

EXACT_LIMIT = 2**20
"""Enumerate the permutation distribution exactly when it has at most this many points."""


@sides_named
def permutation_test(
    baseline: object,
    candidate: object,
    *,
    statistic: Statistic | None = None,
    n_resamples: int = 10_000,
    exact: bool | None = None,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> InferenceResult:
    r"""Paired permutation test: randomly swap each item's two scores.

    Under the null hypothesis the labels "baseline" and "candidate" are exchangeable
    within each item, so each per-item difference is equally likely to have either sign.

    Parameters
    ----------
    baseline, candidate : array_like (n,), or (n, k) with ``statistic``
        Per-item scores (or means over runs), aligned. With ``statistic``, one row of
        ``k`` sufficient statistics per item (e.g. true positives, false positives and
        false negatives for F1; n-gram matches and totals for BLEU).
    statistic : callable, optional
        ``statistic(baseline_totals, candidate_totals) -> difference``, vectorised over
        leading axes, where the totals are column sums of the rows over items. Default:
        the mean difference.
    n_resamples : int
        Monte Carlo resamples when the distribution is not enumerated.
    exact : bool, optional
        Enumerate every sign pattern (True), sample them (False), or decide by size (None:
        exact when the distribution has at most 2**20 points).
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float
    rng : numpy.random.Generator, int or None

    Returns
    -------
    InferenceResult
        For the mean difference, the interval inverts the test over shifts of the
        differences with the same sign patterns; with a custom ``statistic`` there is no
        interval (use :func:`evalsig.inference.bootstrap`).

    Notes
    -----
    With differences :math:`d_i` and signs :math:`s_i = \pm 1` the permuted statistic is
    :math:`\bar d^* = \frac1n \sum_i s_i d_i`. Items sharing a value are exchangeable, so
    only the number flipped in each group of equal values matters:
    :math:`F_j \sim \mathrm{Binomial}(m_j, 1/2)`. The one-sided p-value is
    :math:`(1 + \#\{\bar d^* \ge \bar d\}) / (B + 1)` by Monte Carlo, or the exact
    probability; the two-sided p-value is twice the smaller one-sided p-value.

    References
    ----------
    Fisher, R. A. (1935). *The Design of Experiments*, section 21.
    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
    *Statistical Applications in Genetics and Molecular Biology* 9(1).
    Riezler, S. & Maxwell, J. T. (2005). On some pitfalls in automatic evaluation and
    significance testing for MT. *ACL Workshop on Intrinsic and Extrinsic Evaluation
    Measures*.

    Examples
    --------
    >>> d = [3, -1, 4, 6, 5, 12, -2, 7, 8, 9]
    >>> permutation_test([0] * 10, d).pvalue
    0.009765625
    """
    options = resampling_options(
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    if exact not in (None, True, False):
        raise DataError(f"`exact` must be True, False or None; got {exact!r}.")
    if statistic is None:
        d = paired_differences(baseline, candidate)
        return options.record(permutation_core(d, exact=exact, **options.keywords))
    function, a, b = statistic_rows(baseline, candidate, statistic)
    return options.record(_permutation_statistic(a, b, function, exact=exact, options=options))


def statistic_rows(
    baseline: object, candidate: object, statistic: object
) -> tuple[Statistic, np.ndarray, np.ndarray]:
    """A custom ``statistic``, checked to be callable, and the ``(n, k)`` rows it totals."""
    if not callable(statistic):
        raise DataError(f"`statistic` must be a callable or None; got {statistic!r}.")
    a, b, _ = paired_arrays(baseline, candidate, ndim=2)
    return cast(Statistic, statistic), a, b


@dataclass(frozen=True, slots=True)
class SignFlips:
    """Sign patterns of the differences, summarised for any shift ``delta``.

    For a pattern flipping items :math:`F`, the flipped sum of :math:`d_i - \\delta` is
    ``(S - n delta) - 2 (FV - delta FN)`` with ``FV`` the flipped values' sum and ``FN``
    their number. ``weights`` is None for Monte Carlo draws (the observed pattern is added
    as one more draw), or the exact probabilities.
    """

    total: float
    n: int
    flipped_sum: np.ndarray
    flipped_count: np.ndarray
    weights: np.ndarray | None
    tolerance: float
    step: float
    """First step of the search for interval bounds (positive)."""

    def pvalues(self, delta: float) -> tuple[float, float]:
        """One-sided p-values (greater, less) for ``H0: mean difference = delta``."""
        # The flipped statistic exceeds the observed one exactly when FV - delta FN <= 0.
        shift = self.flipped_sum - delta * self.flipped_count
        at_most = shift <= self.tolerance
        at_least = shift >= -self.tolerance
        if self.weights is None:
            b = len(shift)
            return (
                (int(at_most.sum()) + 1) / (b + 1),
                (int(at_least.sum()) + 1) / (b + 1),
            )
        return (
            min(1.0, float(self.weights[at_most].sum())),
            min(1.0, float(self.weights[at_least].sum())),
        )

    def pvalue(self, delta: float, alternative: Alternative) -> float:
        return choose_pvalue(*self.pvalues(delta), alternative)

    def interval(self, confidence_level: float, alternative: Alternative) -> tuple[float, float]:
        """Shifts not rejected at ``1 - confidence_level`` (equal tails when two-sided)."""
        return invert_test(
            self.pvalues, self.total / self.n, self.step, confidence_level, alternative
        )


def sign_flips(
    d: np.ndarray, *, n_resamples: int, exact: bool | None, rng: np.random.Generator
) -> SignFlips:
    """Exact or Monte Carlo sign patterns of the differences ``d``."""
    compressed = atoms(d)
    paired = Atoms(
        values=np.column_stack([compressed.values, np.ones(len(compressed.counts))]),
        counts=compressed.counts,
    )
    n = len(d)
    scale = float(np.max(np.abs(d))) if n else 0.0
    tolerance = 1e-10 * scale * max(n, 1) ** 0.5  # relative: scores of any magnitude
    totals, weights = _flip_distribution(
        np.column_stack([d, np.ones(n)]), paired, exact=exact, n_resamples=n_resamples, rng=rng
    )
    return SignFlips(
        total=float(d.sum()),
        n=n,
        flipped_sum=totals[:, 0],
        flipped_count=totals[:, 1],
        weights=weights,
        tolerance=tolerance,
        step=max(float(np.std(d)) / math.sqrt(n), 1e-6 * (scale or 1.0)),
    )


def _flip_distribution(
    data: np.ndarray,
    compressed: Atoms,
    *,
    exact: bool | None,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Flip totals with their exact probabilities, or Monte Carlo draws (weights None)."""
    enumerated = None if exact is False else flip_totals_exact(compressed, EXACT_LIMIT)
    if exact is True and enumerated is None:
        raise DataError(
            "`exact=True`, but the permutation distribution has more than "
            f"{EXACT_LIMIT:,} points; use exact=False (Monte Carlo) or None."
        )
    if enumerated is not None:
        return enumerated
    return flip_totals(data, n_resamples, rng, compressed=compressed), None


def permutation_core(
    d: np.ndarray,
    *,
    n_resamples: int,
    exact: bool | None,
    alternative: Alternative,
    confidence_level: float,
    rng: np.random.Generator,
) -> InferenceResult:
    """The sign-flip test of the mean of validated differences ``d``."""
    flips = sign_flips(d, n_resamples=n_resamples, exact=exact, rng=rng)
    enumerated = flips.weights is not None
    estimate = float(np.mean(d))
    notes = [
        "exact: every sign pattern enumerated."
        if enumerated
        else f"Monte Carlo over {n_resamples:,} sign patterns; p = (k + 1) / (B + 1).",
        "interval: inverts the sign-flip test over shifts of the differences.",
    ]
    if not np.any(d):
        notes.append("every per-item difference is 0: no evidence of a difference (p = 1).")
    elif enumerated:
        notes += _coarse_note(len(d), 0.5 ** np.count_nonzero(d), confidence_level)
    return make_result(
        method="permutation-exact" if enumerated else "permutation",
        estimand="mean difference",
        estimate=estimate,
        se=_standard_error(d),
        statistic=estimate,
        statistic_name="mean difference",
        df=None,
        pvalue=flips.pvalue(0.0, alternative),
        n_resamples=None if enumerated else n_resamples,
        notes=tuple(notes),
        interval=flips.interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


def _permutation_statistic(
    a: np.ndarray,
    b: np.ndarray,
    statistic: Statistic,
    *,
    exact: bool | None,
    options: Resampling,
) -> InferenceResult:
    """Swap each item's rows with probability 1/2 and recompute ``statistic`` on totals."""
    n_resamples = options.n_resamples
    base, cand = a.sum(axis=0), b.sum(axis=0)
    observed = float(statistic(base, cand))
    swap = b - a  # swapping item i moves swap[i] from candidate to baseline totals
    moved, weights = _flip_distribution(
        swap, atoms(swap), exact=exact, n_resamples=n_resamples, rng=options.rng
    )
    with np.errstate(all="ignore"):
        null = np.asarray(statistic(base + moved, cand - moved), dtype=np.float64)
    if not (np.all(np.isfinite(null)) and np.isfinite(observed)):
        raise DataError(
            "the statistic returned NaN or infinite values on the data or on some permuted "
            "data (e.g. a ratio with a zero denominator); make it defined everywhere."
        )
    tolerance = 1e-10 * max(abs(observed), 1.0)
    greater_hits = null >= observed - tolerance
    less_hits = null <= observed + tolerance
    if weights is None:
        greater = (int(greater_hits.sum()) + 1) / (n_resamples + 1)
        less = (int(less_hits.sum()) + 1) / (n_resamples + 1)
    else:
        greater = min(1.0, float(weights[greater_hits].sum()))
        less = min(1.0, float(weights[less_hits].sum()))
    pvalue = choose_pvalue(greater, less, options.alternative)
    return make_result(
        method="permutation-exact" if weights is not None else "permutation",
        estimand="statistic difference",
        estimate=observed,
        se=math.nan,
        statistic=observed,
        statistic_name="statistic",
        df=None,
        pvalue=pvalue,
        n_resamples=None if weights is not None else n_resamples,
        notes=(
            "custom statistic: the permutation test gives a p-value but no interval; use "
            "evalsig.inference.bootstrap for one.",
        ),
        interval=partial(_no_interval),
        alternative=options.alternative,
        confidence_level=options.confidence_level,
    )


def _no_interval(level: float, alternative: Alternative) -> tuple[float, float]:
    return math.nan, math.nan


def _coarse_note(n: int, smallest: float, confidence_level: float) -> list[str]:
    """A note when no sign pattern is extreme enough to reject at the interval's level.

    ``smallest`` is the probability of the most extreme pattern, ``2**-m`` for ``m`` non-zero
    differences (each flips independently).
    """
    if smallest <= (1.0 - confidence_level) / 2:
        return []
    return [
        f"with {n} items the smallest attainable one-sided p-value is {smallest:.3g}: no "
        f"{confidence_level:.0%} interval excludes any shift (it is unbounded), and only a "
        "larger sample can show a difference at this level."
    ]


def _standard_error(d: np.ndarray) -> float:
    """``sd(d) / sqrt(n)``, computed on ``d / max|d|`` so that tiny scores do not underflow."""
    scale = float(np.max(np.abs(d))) or 1.0
    return float(np.std(d / scale, ddof=1) / math.sqrt(len(d))) * scale
