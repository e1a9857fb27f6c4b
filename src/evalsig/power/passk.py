r"""Tasks needed by the paired test of pass@k (pass^k, majority@k), and more samples per task.

The paired test of two models' pass@k works on per-task differences of the estimates,
``d_t = hat p_{cand,t} - hat p_{base,t}``. With ``n`` samples of each task and model,

.. math::

    \operatorname{Var}(d_t) = \sigma_b^2 + V_{\text{base}}(n) + V_{\text{cand}}(n),

``sigma_b`` the spread of the tasks' true differences (what more tasks average out) and
``V(n)`` each model's within-task sampling variance of its estimator (what more samples
per task average out; see :mod:`evalsig.inference.passk`). More samples shrink only the
second part, so past a point more tasks buy more than more samples. ``N*(n)`` is the
paired t-test's sample size (noncentral t) at the SD ``sqrt(sigma_b^2 + V(n))``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative, check_number
from evalsig.inference.passk import (
    Estimator,
    Ties,
    check_estimator,
    check_k,
    check_ties,
    overlap_covariances,
    task_estimates,
    u_statistic_variance,
    within_task_variance,
)
from evalsig.passk._input import (
    TooFewSamples,
    check_too_few,
    labeller,
    paired_counts,
    usable_on_both,
)
from evalsig.power._common import check_alpha, check_effect, check_power
from evalsig.power.paired_t import paired_t_sample_size
from evalsig.power.results import SampleSize, plan_columns, plan_row, planned_calls
from evalsig.result import Result

__all__ = ["PassAtKPlan", "pass_at_k_power", "pass_at_k_sample_size", "plan_from_components"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKPlan(Result):
    """Tasks the paired test of pass@k needs at each number of samples per task, and the
    model calls that costs."""

    kind: ClassVar[str] = "pass-at-k-power"

    estimator: Estimator
    k: int
    ties: Ties | None
    """How majority@k counts a tie; None for the other estimators."""
    effect: float
    """The difference to detect, candidate minus baseline, on the 0-1 scale."""
    alpha: float
    power: float
    alternative: Alternative
    sd_between: float
    """SD of the tasks' true differences (what more tasks average out)."""
    samples: tuple[int, ...]
    """Samples per task and model, planned."""
    sd: tuple[float, ...]
    """SD of a per-task difference at each number of samples."""
    n_required: tuple[float, ...]
    """N* (tasks) at each number of samples; inf when no number of tasks detects the effect."""
    n_limit: float
    """N* with unlimited samples per task: the spread of the tasks alone."""
    pilot_tasks: int | None = None
    """Tasks in the pilot the variances were estimated from (None: given)."""
    pilot_samples: tuple[int, int] | None = None
    """Fewest and most samples per task in the pilot."""
    pilot_effect: float | None = None
    """The difference observed in the pilot (not the one planned for)."""
    sd_observed: float | None = None
    """SD of the pilot's per-task differences (both parts, at the pilot's samples)."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    @property
    def evaluations(self) -> tuple[float, ...]:
        """Model calls per model: ``N* x samples``."""
        return planned_calls(self.n_required, self.samples)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: an infinite N* is null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        why = "no number of tasks detects this effect"
        if self.pilot_tasks is None:
            nulls["pilot_tasks"] = "the variances were given, not estimated from a pilot"
        return {
            "kind": "pass-at-k-power",
            "schema_version": SCHEMA_VERSION,
            "estimator": self.estimator,
            "k": self.k,
            "ties": self.ties,
            "effect": self.effect,
            "alpha": self.alpha,
            "power": self.power,
            "alternative": self.alternative,
            "sd_between": self.sd_between,
            "rows": [
                {"samples": s, "sd": sd, **plan_row(i, n, s, "n_tasks", nulls, why)}
                for i, (s, sd, n) in enumerate(
                    zip(self.samples, self.sd, self.n_required, strict=True)
                )
            ],
            "n_limit": json_safe(self.n_limit, "n_limit", nulls, why),
            "pilot_tasks": self.pilot_tasks,
            "pilot_samples": None
            if self.pilot_samples is None
            else {"min": self.pilot_samples[0], "max": self.pilot_samples[1]},
            "pilot_effect": self.pilot_effect,
            "sd_observed": self.sd_observed,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per number of samples: samples, sd, n_required (N*, inf when
        undetectable), n_tasks (N* rounded up; pandas' nullable Int64, <NA> where N* is
        infinite), evaluations (N* x samples, model calls per model)."""
        from evalsig._frame import data_frame

        return data_frame(
            {
                "samples": np.array(self.samples, dtype=np.int64),
                "sd": np.array(self.sd, dtype=np.float64),
                **plan_columns(self.n_required, self.samples, "n_tasks"),
            },
            attrs={"n_limit": self.n_limit},
        )


def pass_at_k_power(
    baseline: Any,
    candidate: Any,
    /,
    k: int,
    *,
    effect: float,
    estimator: Estimator = "pass@k",
    samples: Sequence[int] | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    too_few_samples: TooFewSamples = "error",
    ties: Ties = "half",
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> PassAtKPlan:
    """Tasks the paired t-test of pass@k needs to detect ``effect``, at each number of
    samples per task, with the variances estimated from a pilot of both models.

    Parameters
    ----------
    baseline, candidate
        Pilot results on the same tasks (as for :func:`evalsig.passk.compare_pass_at_k`); every task
        needs at least 2k samples on each side.
    k : int
    effect : float
        The difference to detect, candidate minus baseline (0.03 is 3 points); not 0,
        which no number of tasks detects (an error says so).
    samples : sequence of int, optional
        Samples per task to plan for; by default k, 2k, 4k, 8k, 16k and the pilot's.
    alpha, power, alternative
        As in :func:`evalsig.power.paired_t_sample_size`.
    too_few_samples : {"error", "drop"}
        Pilot tasks with fewer than 2k samples: an error, or leave them out (noted).

    Returns
    -------
    PassAtKPlan

    Notes
    -----
    ``sigma_b^2 = s_d^2 - mean_t (hat V_{b,t} + hat V_{c,t})`` (clipped at 0), and the
    within-task variance at ``n`` samples is ``sum_j w_j(n) (zeta_{b,j} + zeta_{c,j})``,
    both unbiased (:mod:`evalsig.inference.passk`); N* solves the noncentral-t power at
    the SD ``sqrt(sigma_b^2 + V(n))``.
    """
    _check_effect(effect)
    k = check_k(k)
    estimator = check_estimator(estimator)
    ties = check_ties(ties)
    check_too_few(too_few_samples)
    paired, (nb, cb), (nc, cc) = paired_counts(baseline, candidate, on_missing, on_mismatch)
    label = labeller(paired.item_ids)
    twice = 2 * k
    sources = (paired.baseline.source, paired.candidate.source)
    used, notes = usable_on_both(nb, nc, twice, too_few_samples, label, sources, estimator, plan=k)
    if len(used) < 2:
        raise DataError(f"planning needs at least 2 pilot tasks with 2k = {twice} samples.")
    base, cand = (nb[used], cb[used]), (nc[used], cc[used])
    common: dict[str, Any] = {"estimator": estimator, "ties": ties}
    d = task_estimates(*cand, k, **common) - task_estimates(*base, k, **common)
    within = within_task_variance(*base, k, **common) + within_task_variance(*cand, k, **common)
    observed = float(np.var(d, ddof=1))
    between = observed - float(np.mean(within))
    if between < 0:
        notes.append(
            "sampling within tasks explains all the pilot's spread of differences: the "
            "tasks' true differences are read as equal (sd_between = 0)."
        )
    zeta = np.mean(overlap_covariances(*base, k, **common), axis=0) + np.mean(
        overlap_covariances(*cand, k, **common), axis=0
    )
    pilot_n = int(min(base[0].min(), cand[0].min()))
    planned = samples if samples is not None else [k * 2**i for i in range(5)] + [pilot_n]
    return plan_from_components(
        effect,
        estimator=estimator,
        k=k,
        ties=ties if estimator == "majority@k" else None,
        var_between=max(between, 0.0),
        zeta=zeta,
        samples=planned,
        alpha=alpha,
        power=power,
        alternative=alternative,
        pilot_tasks=len(d),
        pilot_samples=(pilot_n, int(max(base[0].max(), cand[0].max()))),
        pilot_effect=float(np.mean(d)),
        sd_observed=math.sqrt(observed),
        notes=notes,
        provenance=provenance(
            {"baseline": paired.baseline.origin, "candidate": paired.candidate.origin}
        ),
    )


def plan_from_components(
    effect: float,
    /,
    *,
    estimator: Estimator,
    k: int,
    ties: Ties | None,
    var_between: float,
    zeta: np.ndarray,
    samples: Sequence[int],
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    pilot_tasks: int | None = None,
    pilot_samples: tuple[int, int] | None = None,
    pilot_effect: float | None = None,
    sd_observed: float | None = None,
    notes: Sequence[str] = (),
    provenance: Provenance | None = None,
) -> PassAtKPlan:
    """A :class:`PassAtKPlan` from the variance components of per-task differences.

    ``var_between`` is ``sigma_b^2``; ``zeta`` (``(k,)``) the sum of both models' mean
    overlap covariances (:func:`evalsig.inference.passk.overlap_covariances` averaged over
    tasks), from which the within-task variance at ``n`` samples is
    ``sum_j w_j(n) zeta_j``. The ``pilot_*`` fields, ``sd_observed``, ``notes`` and
    ``provenance`` describe where the components came from.

    Examples
    --------
    >>> plan = plan_from_components(0.05, estimator="pass@k", k=1, ties=None,
    ...                             var_between=0.04, zeta=np.array([0.4]), samples=[1, 10])
    >>> [round(sd, 4) for sd in plan.sd], [math.ceil(n) for n in plan.n_required]
    ([0.6633, 0.2828], [1384, 254])
    """
    effect = _check_effect(effect)
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    var_between = check_number(var_between, "var_between", low=0.0, fix="It is a variance.")
    planned = tuple(sorted(set(_check_samples(samples, k))))
    notes = list(notes)
    within = [max(0.0, float(u_statistic_variance(zeta, k, s))) for s in planned]
    if any(float(u_statistic_variance(zeta, k, s)) < 0 for s in planned):
        notes.append(
            "the estimated within-task variance is negative at some number of samples "
            "(an unbiased estimate from a small pilot); read as 0 there."
        )
    sds = tuple(math.sqrt(var_between + w) for w in within)

    def n_star(sd: float) -> float:
        common = {"alpha": alpha, "power": power, "alternative": alternative}
        return paired_t_sample_size(effect, sd, **common).n  # type: ignore[arg-type]

    return PassAtKPlan(
        estimator=estimator,
        k=k,
        ties=ties,
        effect=effect,
        alpha=alpha,
        power=power,
        alternative=alternative,
        sd_between=math.sqrt(var_between),
        samples=planned,
        sd=sds,
        n_required=tuple(n_star(sd) for sd in sds),
        n_limit=n_star(math.sqrt(var_between)) if var_between > 0 else 2.0,
        pilot_tasks=pilot_tasks,
        pilot_samples=pilot_samples,
        pilot_effect=pilot_effect,
        sd_observed=sd_observed,
        notes=tuple(notes),
        provenance=provenance,
    )


def _check_effect(effect: object) -> float:
    """A finite, non-zero difference to plan for: at 0 the power is the test's size (its
    false-positive rate) at every number of tasks, and the tasks needed are infinite."""
    value = check_effect(effect)
    if value == 0:
        raise DataError(
            "`effect` is 0: no number of tasks detects no difference (the power at 0 is the "
            "test's size, alpha, and the tasks needed are infinite); give the smallest "
            "difference worth detecting, e.g. effect=0.03 (3 points of pass@k)."
        )
    return value


def _check_samples(samples: Sequence[int], k: int) -> list[int]:
    values = list(samples)
    if not values:
        raise DataError("`samples` is empty; pass the numbers of samples per task to plan for.")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < k:
            raise DataError(
                f"`samples` must be whole numbers of at least k = {k} (an estimate of k "
                f"attempts needs k samples); got {s!r}."
            )
    return [int(s) for s in values]


def pass_at_k_sample_size(
    effect: float,
    sd: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> SampleSize:
    """Tasks the paired t-test of pass@k needs, given the SD of per-task differences.

    ``sd`` is the standard deviation over tasks of ``hat p_{cand,t} - hat p_{base,t}`` at
    the number of samples you will draw (it includes their within-task noise); the paired
    t-test's N* follows (noncentral t, as
    :func:`evalsig.power.paired_t_sample_size`). To see how N* falls with more samples per
    task, estimate the variance components from a pilot with
    :func:`evalsig.passk.pass_at_k_power`.

    Examples
    --------
    >>> pass_at_k_sample_size(0.05, 0.25).n_items
    199
    """
    result = paired_t_sample_size(effect, sd, alpha=alpha, power=power, alternative=alternative)
    note = "items are tasks; sd is that of per-task differences of the pass@k estimates"
    return dataclasses.replace(result, notes=(*result.notes, note))
