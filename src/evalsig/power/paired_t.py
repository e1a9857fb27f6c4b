"""Power of the paired t-test on per-item mean differences, with repeated runs.

With R runs per item and model, the per-item mean difference has variance
``sigma_b^2 + sigma_w^2 / R``: ``sigma_b`` is the spread of the items' true differences
(between items), ``sigma_w`` the decoding noise of one run's difference within an item
(both models' run-to-run variances added). More runs shrink only the second part, so past
a point more questions buy more than more runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION
from evalsig.data.paired import PairedScores
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative
from evalsig.inference._roots import brentq
from evalsig.power._common import (
    check_alpha,
    check_effect,
    check_n,
    check_power,
    check_runs,
    directed,
    sided_alpha,
    z_upper,
)
from evalsig.power.results import SampleSize, plan_columns, plan_row, planned_calls
from evalsig.result import Result

__all__ = [
    "RunsTradeoff",
    "VarianceComponents",
    "paired_t_detectable_effect",
    "paired_t_power",
    "paired_t_sample_size",
    "runs_tradeoff",
    "variance_components",
]

_MAX_N = 1e12


def paired_t_power(
    n: float,
    effect: float,
    sd: float,
    /,
    *,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> float:
    """Power of the paired t-test on ``n`` items: mean difference ``effect``, SD ``sd``.

    Notes
    -----
    With ``df = n - 1``, noncentrality ``lambda = effect sqrt(n) / sd`` and critical value
    ``t* = t(1 - alpha/2, df)``: power ``= P(T' > t*) + P(T' < -t*)`` for the noncentral
    ``T' ~ t(df, lambda)`` (one tail for a one-sided test), as statsmodels' ``TTestPower``.

    Examples
    --------
    >>> round(paired_t_power(34, 0.5, 1.0), 10)
    0.8077775013
    """
    size = check_n(n, minimum=2.0)
    sd = _check_sd(sd, "sd")
    alpha = check_alpha(alpha)
    alternative = check_alternative(alternative)
    return _power(size, check_effect(effect), sd, alpha, alternative)


def paired_t_sample_size(
    effect: float,
    sd: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> SampleSize:
    """Items the paired t-test needs to detect a mean difference ``effect`` (SD ``sd``).

    Solves :func:`paired_t_power` ``= power`` for a real ``n >= 2`` (as statsmodels'
    ``TTestPower.solve_power``); ``n_items`` rounds it up.

    Examples
    --------
    >>> round(paired_t_sample_size(0.5, 1.0).n, 4)
    33.3671
    """
    sd = _check_sd(sd, "sd")
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    effect = check_effect(effect)
    toward = directed(effect, alternative)

    def result(n: float, n_items: int | None, achieved: float | None, note: str = "") -> SampleSize:
        return SampleSize(
            n=n,
            n_items=n_items,
            achieved_power=achieved,
            design="paired-t",
            method="noncentral-t",
            alpha=alpha,
            power=power,
            alternative=alternative,
            effect=effect,
            inputs={"sd": sd},
            notes=(note,) if note else (),
        )

    if toward <= 0 or sd == 0.0:
        if sd == 0.0 and toward > 0:
            return result(2.0, 2, 1.0, "zero variance: any difference is detected")
        note = (
            "no difference to detect"
            if effect == 0
            else f"the effect {effect:+.4g} points the other way from alternative={alternative!r}"
        )
        return result(math.inf, None, None, note)
    n = _solve_n(effect, sd, alpha, power, alternative)
    if math.isinf(n):
        return result(n, None, None, "the effect is too small for any feasible number of items")
    n_items = math.ceil(n - 1e-9)
    return result(n, n_items, _power(n_items, effect, sd, alpha, alternative))


def paired_t_detectable_effect(
    n: float,
    sd: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> float:
    """The smallest mean difference the paired t-test detects on ``n`` items (SD ``sd``).

    Returned as a positive magnitude; a "less" test detects it as ``-effect``.

    Examples
    --------
    >>> round(paired_t_detectable_effect(33.36713118, 1.0), 6)
    0.5
    """
    size = check_n(n, minimum=2.0)
    sd = _check_sd(sd, "sd")
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    if sd == 0.0:
        return 0.0
    sign = -1.0 if alternative == "less" else 1.0

    def gap(d: float) -> float:
        return _power(size, sign * d * sd, sd, alpha, alternative) - power

    hi = 2.0 * (abs(z_upper(sided_alpha(alpha, alternative))) + 2.0) / math.sqrt(size)
    while gap(hi) < 0:
        hi *= 2
    return brentq(gap, 0.0, hi, xtol=1e-13, rtol=1e-12) * sd


@dataclass(frozen=True, slots=True, kw_only=True)
class VarianceComponents:
    """Between-item and within-item (decoding) spread of per-item differences."""

    sd_between: float
    """SD of the items' true differences (what more questions average out)."""
    sd_within: float | None
    """SD of one run's difference within an item (what more runs average out); None
    when some model has a single run, so decoding noise cannot be separated."""
    sd_observed: float
    """SD of the observed per-item mean differences (both parts, at the runs used)."""
    runs_baseline: float
    runs_candidate: float
    """Mean runs per item of each model."""
    notes: tuple[str, ...] = ()

    def sd_at(self, runs: int) -> float:
        """SD of the per-item mean difference with ``runs`` runs of each model."""
        within = 0.0 if self.sd_within is None else self.sd_within
        return math.sqrt(self.sd_between**2 + within**2 / check_runs(runs))


def variance_components(paired: PairedScores, /) -> VarianceComponents:
    """Split the variance of per-item mean differences into between and within items.

    Notes
    -----
    ``s_w^2 = mean_i s^2_{c,i} + mean_i s^2_{b,i}`` pools each model's run-to-run variance
    (items with two or more runs, ``ddof = 1``); ``sigma_b^2 = Var_i(dbar_i) -
    mean_i(s^2_{c,i}/R_{c,i} + s^2_{b,i}/R_{b,i})``, clipped at 0 (the one-way random-effects
    moment estimator).
    """
    d = paired.differences()
    if len(d) < 2:
        raise DataError(f"variance components need at least 2 items; got {len(d)}.")
    observed = float(np.std(d, ddof=1))
    b, c = paired.baseline, paired.candidate
    notes: list[str] = []
    if b.n_runs < 2 or c.n_runs < 2:
        return VarianceComponents(
            sd_between=observed,
            sd_within=None,
            sd_observed=observed,
            runs_baseline=float(b.counts.mean()),
            runs_candidate=float(c.counts.mean()),
            notes=("one run per item: decoding noise is not separated from item differences",),
        )
    var_b, var_c = _within(b.sums, b.sumsq, b.counts), _within(c.sums, c.sumsq, c.counts)
    share = np.nanmean(var_c / c.counts + var_b / b.counts)
    between = observed**2 - float(share)
    if between < 0:
        notes.append("run-to-run noise explains all the spread between items: sd_between = 0")
        between = 0.0
    return VarianceComponents(
        sd_between=math.sqrt(between),
        sd_within=math.sqrt(float(np.nanmean(var_c) + np.nanmean(var_b))),
        sd_observed=observed,
        runs_baseline=float(b.counts.mean()),
        runs_candidate=float(c.counts.mean()),
        notes=tuple(notes),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunsTradeoff(Result):
    """Items needed at each number of runs, and the evaluations that costs."""

    kind: ClassVar[str] = "runs-tradeoff"

    effect: float
    sd_between: float
    sd_within: float
    runs: tuple[int, ...]
    n_required: tuple[float, ...]
    """N* at each number of runs (inf when undetectable)."""
    n_limit: float
    """N* with infinitely many runs: decoding noise gone, only item spread left."""
    alpha: float
    power: float
    alternative: Alternative

    @property
    def evaluations(self) -> tuple[float, ...]:
        """Model calls per model: ``N* x runs``."""
        return planned_calls(self.n_required, self.runs)

    def to_dict(self) -> dict[str, Any]:
        from evalsig._json import json_safe

        nulls: dict[str, str] = {}
        why = "no number of items detects this effect"
        return {
            "kind": "runs-tradeoff",
            "schema_version": SCHEMA_VERSION,
            "effect": self.effect,
            "sd_between": self.sd_between,
            "sd_within": self.sd_within,
            "alpha": self.alpha,
            "power": self.power,
            "alternative": self.alternative,
            "rows": [
                {"runs": r, **plan_row(i, n, r, "n_items", nulls, why)}
                for i, (r, n) in enumerate(zip(self.runs, self.n_required, strict=True))
            ],
            "n_limit": json_safe(self.n_limit, "n_limit", nulls, why),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per number of runs: runs, n_required (N*, inf when undetectable),
        n_items (N* rounded up; pandas' nullable Int64, <NA> where N* is infinite),
        evaluations (N* x runs)."""
        from evalsig._frame import data_frame

        return data_frame(
            {
                "runs": np.array(self.runs, dtype=np.int64),
                **plan_columns(self.n_required, self.runs, "n_items"),
            }
        )


def runs_tradeoff(
    effect: float,
    sd_between: float,
    sd_within: float,
    /,
    *,
    runs: Sequence[int] = (1, 2, 4, 8, 16),
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> RunsTradeoff:
    """How many items the paired t-test needs with 1, 2, 4 ... runs per item.

    ``N*(R)`` uses ``sd = sqrt(sd_between^2 + sd_within^2 / R)``; the total number of
    model calls is ``N*(R) R``. As ``R`` grows, ``N*`` falls to the limit set by
    ``sd_between`` alone: when ``sd_between`` dominates, more questions are cheaper.

    Examples
    --------
    >>> t = runs_tradeoff(0.01, 0.3, 0.3, runs=(1, 4))
    >>> [round(n) for n in t.n_required]
    [14130, 8832]
    """
    between, within = _check_sd(sd_between, "sd_between"), _check_sd(sd_within, "sd_within")
    chosen = tuple(check_runs(r) for r in runs)
    if not chosen:
        raise DataError("`runs` is empty; pass e.g. runs=(1, 2, 4, 8).")

    def n_at(sd: float) -> float:
        return paired_t_sample_size(effect, sd, alpha=alpha, power=power, alternative=alternative).n

    return RunsTradeoff(
        effect=check_effect(effect),
        sd_between=between,
        sd_within=within,
        runs=chosen,
        n_required=tuple(n_at(math.sqrt(between**2 + within**2 / r)) for r in chosen),
        n_limit=n_at(between) if between > 0 else 2.0,
        alpha=check_alpha(alpha),
        power=check_power(power),
        alternative=check_alternative(alternative),
    )


def _within(sums: np.ndarray, sumsq: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per-item run-to-run variance (ddof 1); NaN for items with one run."""
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (sumsq - sums**2 / counts) / (counts - 1)
    var = np.where(counts > 1, np.maximum(var, 0.0), np.nan)
    return np.asarray(var, dtype=float)


def _check_sd(sd: object, name: str) -> float:
    try:
        value = float(sd)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise DataError(f"`{name}` must be a finite standard deviation >= 0; got {sd!r}.")
    return value


def _power(n: float, effect: float, sd: float, alpha: float, alt: Alternative) -> float:
    df = n - 1
    if sd == 0.0:
        return 1.0 if directed(effect, alt) > 0 else 0.0
    nc = effect * math.sqrt(n) / sd
    crit = -float(special.stdtrit(df, sided_alpha(alpha, alt)))  # t.isf, without its overhead
    upper = _nct_tail(crit, df, nc)
    lower = _nct_tail(crit, df, -nc)  # P(T' < -t) = P(-T' > t), and -T' ~ t(df, -nc)
    if alt == "greater":
        return upper
    if alt == "less":
        return lower
    return upper + lower


def _nct_tail(t: float, df: float, nc: float) -> float:
    """``P(T' > t)`` for ``T' ~ t(df, nc)``; where scipy returns NaN (far tails at large
    noncentrality), the normal approximation ``Phi[(nc - t (1 - 1/(4 df))) /
    sqrt(1 + t^2 / (2 df))]`` (Johnson, Kotz & Balakrishnan 1995, 31.26)."""
    value = float(special.nctdtr(df, -nc, -t))  # P(T' > t) = P(-T' < -t), -T' ~ t(df, -nc)
    if math.isfinite(value):
        return value
    z = (nc - t * (1 - 1 / (4 * df))) / math.sqrt(1 + t * t / (2 * df))
    return float(special.ndtr(z))


def _solve_n(effect: float, sd: float, alpha: float, power: float, alt: Alternative) -> float:
    def gap(n: float) -> float:
        return _power(n, effect, sd, alpha, alt) - power

    hi = 4.0
    while gap(hi) < 0:
        hi *= 2
        if hi > _MAX_N:
            return math.inf
    if gap(2.0) >= 0:
        return 2.0
    return brentq(gap, 2.0, hi, xtol=1e-10, rtol=1e-14)
