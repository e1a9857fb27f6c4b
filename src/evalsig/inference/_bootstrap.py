"""Paired bootstrap of a difference: percentile, basic and BCa intervals, p-values by inversion."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, cast, get_args

import numpy as np
from scipy import special

from evalsig._deprecation import renamed
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    check_choice,
    choose_pvalue,
    make_result,
    sides_named,
)
from evalsig.inference._paired_input import paired_differences
from evalsig.inference._permutation import Statistic, statistic_rows
from evalsig.inference._seeded import resampling_options
from evalsig.inference.resampling import Atoms, atoms, bootstrap_totals, jackknife_totals

__all__ = ["MIN_ITEMS", "BootstrapDistribution", "IntervalKind", "bootstrap", "check_size"]

IntervalKind = Literal["bca", "percentile", "basic"]

MIN_ITEMS = 50
"""Fewest items for the paired bootstrap. Below it the bootstrap's interval is too narrow:
its standard error has divisor n, not n - 1, and it uses normal-like rather than t-like
tails, so on normal differences the percentile test rejects a true null about as often as
``|t(n-1)| > 1.96 sqrt((n-1)/n)``: 7.1% at N = 20, 6.4% at 30, 5.8% at 50. Seeded simulations
(2,000 datasets, 999 resamples, alpha 0.05; BCa / percentile) gave 13.4% / 14.8% at N = 5,
10.4% / 11.2% at 10, 7.1% / 7.2% at 20 (95% intervals covering 92.6%), 6.2% / 6.1% at 30,
6.2% / 5.9% at 40 and 4.9% / 4.7% at 50. The exact sign-flip permutation test is calibrated
at any N (5.6% at N = 10 in the same simulation, below 5% where its distribution is coarse)."""


@renamed(interval="method")
@sides_named
def bootstrap(
    baseline: object,
    candidate: object,
    *,
    statistic: Statistic | None = None,
    method: IntervalKind = "bca",
    n_resamples: int = 10_000,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> InferenceResult:
    r"""Paired bootstrap: resample items with replacement, keeping each item's pair together.

    Needs at least :data:`MIN_ITEMS` (50) items: below that it is not calibrated, and a
    :class:`DataError` points to :func:`permutation_test`.

    Parameters
    ----------
    baseline, candidate : array_like (n,), or (n, k) with ``statistic``
        Per-item scores (or means over runs), aligned; with ``statistic``, one row of
        ``k`` sufficient statistics per item, resampled jointly for both models.
    statistic : callable, optional
        ``statistic(baseline_totals, candidate_totals) -> difference``, vectorised over
        leading axes; totals are column sums over the (resampled) items. Default: the
        mean difference. Corpus metrics such as macro-F1 or BLEU are functions of totals.
    method : {"bca", "percentile", "basic"}
        Bias-corrected and accelerated (default), percentile, or basic interval. The
        p-value inverts the same interval: the smallest level at which it excludes 0.
    n_resamples : int
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float
    rng : numpy.random.Generator, int or None

    Returns
    -------
    InferenceResult
        ``se`` is the standard deviation of the bootstrap replicates.

    Notes
    -----
    Resampling n items with replacement gives atom counts
    :math:`W \sim \mathrm{Multinomial}(n, m / n)` over the distinct rows of the data, so
    the engine draws counts per distinct row (three rows for paired binary scores)
    instead of n indices: the same distribution, at a fraction of the cost. BCa uses
    :math:`z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\} + \tfrac12\#\{\theta^* = \hat\theta\})/B`
    and the jackknife acceleration :math:`a = \sum (\bar\theta - \theta_{(i)})^3 /
    (6 [\sum (\bar\theta - \theta_{(i)})^2]^{3/2})`. Percentile p-values are
    :math:`(1 + \#\{\theta^* \le 0\}) / (B + 1)` one-sided, doubled (at most 1) for two.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82(397), 171-185.
    Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*, ch. 14-16.
    Koehn, P. (2004). Statistical significance tests for machine translation evaluation.
    *EMNLP*.

    Examples
    --------
    >>> r = bootstrap([0, 1, 1, 0, 1, 0, 1, 1] * 10, [1, 1, 1, 0, 1, 1, 1, 1] * 10, rng=0)
    >>> r.estimate
    0.25
    """
    options = resampling_options(
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    kind = _check_kind(method)
    if statistic is None:
        d = paired_differences(baseline, candidate)
        check_size(len(d))
        return options.record(bootstrap_core(d, kind=kind, **options.keywords))
    function, a, b = statistic_rows(baseline, candidate, statistic)
    check_size(len(a))
    rows = np.hstack([a, b])
    k = a.shape[1]
    compressed = atoms(rows)

    def difference(totals: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):  # undefined values are reported below, by name
            return np.asarray(function(totals[..., :k], totals[..., k:]), dtype=np.float64)

    theta = float(difference(compressed.total()))
    totals = bootstrap_totals(rows, options.n_resamples, options.rng, compressed=compressed)
    loo, weights = jackknife_totals(compressed)
    distribution = BootstrapDistribution.build(
        theta, difference(totals), kind, difference(loo), weights
    )
    result = _result(
        distribution,
        estimand="statistic difference",
        n_resamples=options.n_resamples,
        alternative=options.alternative,
        confidence_level=options.confidence_level,
    )
    return options.record(result)


def check_size(n: int) -> None:
    """Refuse the bootstrap below :data:`MIN_ITEMS` items, where it is not calibrated."""
    if n < MIN_ITEMS:
        raise DataError(
            f"the paired bootstrap needs at least {MIN_ITEMS} items to be calibrated; got {n} "
            "(at 20 items its 95% interval covers about 92.6% and it rejects a true null 7% "
            "of the time). For the mean difference use permutation_test (the exact sign-flip "
            "test, calibrated at any size) or evalsig.compare(..., method='bootstrap'), which "
            "switches to it."
        )


def _check_kind(kind: object) -> IntervalKind:
    return cast(IntervalKind, check_choice(kind, get_args(IntervalKind), "bootstrap `method`"))


def bootstrap_core(
    d: np.ndarray,
    *,
    kind: IntervalKind,
    n_resamples: int,
    alternative: Alternative,
    confidence_level: float,
    rng: np.random.Generator,
    compressed: Atoms | None = None,
) -> InferenceResult:
    """The paired bootstrap of the mean of validated differences ``d``."""
    n = len(d)
    compressed = compressed if compressed is not None else atoms(d)
    theta = float(compressed.total()) / n
    replicates = bootstrap_totals(d, n_resamples, rng, compressed=compressed) / n
    loo, weights = jackknife_totals(compressed)
    distribution = BootstrapDistribution.build(theta, replicates, kind, loo / (n - 1), weights)
    return _result(
        distribution,
        estimand="mean difference",
        n_resamples=n_resamples,
        alternative=alternative,
        confidence_level=confidence_level,
    )


def _result(
    distribution: BootstrapDistribution,
    *,
    estimand: str,
    n_resamples: int,
    alternative: Alternative,
    confidence_level: float,
) -> InferenceResult:
    notes = [
        f"{n_resamples:,} paired bootstrap resamples of items; {distribution.kind} interval, "
        "p-value by inverting it."
    ]
    notes.extend(distribution.notes)
    return make_result(
        method=f"bootstrap-{distribution.kind}",
        estimand=estimand,
        estimate=distribution.theta,
        se=float(np.std(distribution.replicates, ddof=1)),
        statistic=distribution.theta,
        statistic_name="estimate",
        df=None,
        pvalue=distribution.pvalue(alternative),
        n_resamples=n_resamples,
        notes=tuple(notes),
        interval=distribution.interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


@dataclass(frozen=True, slots=True)
class BootstrapDistribution:
    """Bootstrap replicates of a statistic, with what each interval kind needs."""

    theta: float
    replicates: np.ndarray
    kind: IntervalKind
    z0: float
    acceleration: float
    tolerance: float
    """Replicates within this distance of 0 count as 0 (rounding in sums of fractions)."""
    notes: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        theta: float,
        replicates: np.ndarray,
        kind: IntervalKind,
        jackknife: np.ndarray | None = None,
        weights: np.ndarray | None = None,
    ) -> BootstrapDistribution:
        """Sort replicates and, for BCa, compute bias correction and acceleration.

        ``jackknife`` holds leave-one-out statistics and ``weights`` how many items each
        stands for (needed for BCa only).
        """
        replicates = np.sort(np.asarray(replicates, dtype=np.float64))
        if not np.all(np.isfinite(replicates)):
            raise DataError(
                "the statistic returned NaN or infinite values on some bootstrap resamples "
                "(e.g. a ratio with a zero denominator); make it defined on every resample."
            )
        z0 = acceleration = 0.0
        notes: list[str] = []
        scale = max(abs(theta), float(np.max(np.abs(replicates))))
        if kind == "bca" and (jackknife is None or weights is None):
            raise ValueError("BCa needs jackknife values and their weights")
        if kind == "bca" and jackknife is not None and weights is not None:
            below = np.searchsorted(replicates, theta, side="left")
            ties = np.searchsorted(replicates, theta, side="right") - below
            share = (below + 0.5 * ties) / len(replicates)
            if 0.0 < share < 1.0 and replicates[0] != replicates[-1]:
                z0 = float(special.ndtri(share))
                acceleration = _acceleration(np.asarray(jackknife, np.float64), weights)
            else:
                kind = "percentile"
                notes.append(
                    "BCa is undefined here (every replicate on one side of the estimate); "
                    "used the percentile interval."
                )
        return cls(theta, replicates, kind, z0, acceleration, 1e-12 * scale, tuple(notes))

    def _levels(self, probabilities: np.ndarray) -> np.ndarray:
        """Quantile levels of the replicates for nominal tail probabilities (BCa-adjusted)."""
        if self.kind != "bca":
            return probabilities
        z = special.ndtri(probabilities)
        a = self.acceleration
        with np.errstate(divide="ignore", invalid="ignore"):
            adjusted = special.ndtr(self.z0 + (self.z0 + z) / (1 - a * (self.z0 + z)))
        return np.asarray(np.nan_to_num(adjusted, nan=0.0), dtype=np.float64)

    def interval(self, confidence_level: float, alternative: Alternative) -> tuple[float, float]:
        tail = 1.0 - confidence_level
        if alternative == "two-sided":
            tail /= 2.0
        lo_level, hi_level = self._levels(np.array([tail, 1.0 - tail]))
        q_low, q_high = np.quantile(self.replicates, [lo_level, hi_level])
        if self.kind == "basic":
            q_low, q_high = 2 * self.theta - q_high, 2 * self.theta - q_low
        low = float(q_low) if alternative != "less" else -math.inf
        high = float(q_high) if alternative != "greater" else math.inf
        return low, high

    def pvalue(self, alternative: Alternative) -> float:
        """The smallest tail probability at which the interval excludes 0, by side."""
        b = len(self.replicates)
        if self.kind == "basic":
            at_least = b - np.searchsorted(self.replicates, 2 * self.theta, side="left")
            at_most = np.searchsorted(self.replicates, 2 * self.theta, side="right")
            greater, less = (at_least + 1) / (b + 1), (at_most + 1) / (b + 1)
        else:
            at_most_zero = np.searchsorted(self.replicates, self.tolerance, side="right")
            at_least_zero = b - np.searchsorted(self.replicates, -self.tolerance, side="left")
            greater = (at_most_zero + 1) / (b + 1)
            less = (at_least_zero + 1) / (b + 1)
            if self.kind == "bca":  # the nominal levels whose adjusted quantile is at 0
                greater, less = self._invert(greater), 1.0 - self._invert(1.0 - less)
        greater = float(min(max(greater, 1 / (b + 1)), 1.0))
        less = float(min(max(less, 1 / (b + 1)), 1.0))
        return choose_pvalue(greater, less, alternative)

    def _invert(self, share: float) -> float:
        """The nominal level whose BCa-adjusted quantile level is ``share`` (every replicate
        on one side of 0: ``share`` 0 or 1, the nominal level 0 or 1, never NaN)."""
        if not 0.0 < share < 1.0:
            return 0.0 if share <= 0.0 else 1.0
        w = float(special.ndtri(share)) - self.z0
        a = self.acceleration
        if 1 + a * w <= 0:
            return 0.0 if w < 0 else 1.0
        return float(special.ndtr(w / (1 + a * w) - self.z0))


def _acceleration(jackknife: np.ndarray, weights: np.ndarray) -> float:
    """The BCa acceleration from (weighted) jackknife values."""
    mean = float(np.average(jackknife, weights=weights))
    u = mean - jackknife
    scale = float(np.max(np.abs(u)))
    if scale == 0:
        return 0.0
    u = u / scale  # the ratio is scale-free; this keeps squares and cubes from underflowing
    denominator = 6.0 * float(np.sum(weights * u**2)) ** 1.5
    return float(np.sum(weights * u**3)) / denominator if denominator > 0 else 0.0
