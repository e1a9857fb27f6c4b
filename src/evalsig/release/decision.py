"""The release gate: every task's claim tested, the family corrected, one decision.

For each task the candidate's improvement (candidate minus baseline; baseline minus
candidate where lower is better) is compared with a paired test, as :func:`evalsig.compare`
would choose. The claim "improvement > threshold" (0 for superiority, minus the margin for
non-inferiority) gets the one-sided p-value that inverts the test's own confidence bound,
so a claim passes exactly when the (multiplicity-adjusted) bound clears the margin, never
on the point estimate. The p-values are corrected over the pre-registered family (Holm by
default, or an FDR procedure), and the policy's rule combines the task verdicts.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from evalsig._documents import short
from evalsig._json import SCHEMA_VERSION, json_safe, seed_null
from evalsig.comparison import ComparisonResult, compare_paired
from evalsig.data import PairedScores, ScoreTable, load_tasks, pair
from evalsig.data.paired import as_strata, paired_id_kinds
from evalsig.data.provenance import Provenance, file_record, provenance
from evalsig.data.readers import ReadOptions, collect_files
from evalsig.data.readers.collect import Collector
from evalsig.errors import DataError, examples
from evalsig.inference._common import UNKNOWN_SEED, Alternative, seeded
from evalsig.inference._roots import brentq
from evalsig.inference.aggregate import (
    Dependence,
    SignTestResult,
    dependence,
    sign_test,
    uncorrected_familywise_error,
)
from evalsig.inference.multiplicity import MultipleTestResult, adjust
from evalsig.inference.simultaneous import romano_wolf
from evalsig.release.policy import GatePolicy, TaskClaim, load_policy
from evalsig.release.registration import (
    Registration,
    RegistrationCheck,
    check_registration,
    read_registration,
)
from evalsig.result import Result

__all__ = ["GateResult", "TaskVerdict", "Verdict", "gate"]

Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]
EXIT_CODES: dict[str, int] = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}
"""Exit codes of ``evalsig gate`` (2: usage error, 4: data error)."""

P_FLOOR = 1e-15


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskVerdict:
    """One task's claim, its test and its verdict."""

    task: TaskClaim
    comparison: ComparisonResult
    """The paired comparison of improvements (one-sided, candidate better)."""
    pvalue: float
    """One-sided p-value of ``improvement <= threshold``, by inverting the test's bound."""
    p_adjusted: float
    lower_bound: float
    """Lower confidence bound of the improvement at level 1 - alpha (unadjusted)."""
    upper_bound: float
    """Upper confidence bound at level 1 - alpha: below the threshold means FAIL."""
    verdict: Verdict
    reason: str
    adjusted_lower_bound: float | None = None
    """The simultaneous lower bound that matches the correction (see
    :attr:`GateResult.bounds`); None when no such bound is computed for it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GateResult(Result):
    """The gate's decision over the family, with everything a reviewer needs to check it."""

    kind: ClassVar[str] = "gate"

    policy: GatePolicy
    tasks: tuple[TaskVerdict, ...]
    correction: MultipleTestResult
    verdict: Verdict
    reason: str
    registration: RegistrationCheck
    sign_test: SignTestResult
    uncorrected_fwer: float
    """What an uncorrected reading of the family would risk: 1 - (1 - alpha)^K."""
    dependence: Dependence | None
    bounds: str | None = None
    """Which simultaneous lower bounds ``adjusted_lower_bound`` holds (``"bonferroni"``,
    ``"sidak"`` or ``"holm"``), or None when the correction has none here (Hochberg,
    Hommel, Holm-Sidak, Romano-Wolf and the FDR procedures): then only the unadjusted
    ``lower_bound`` is given, and reports say so."""
    seed: int | None = None
    """The seed of every random draw (each task's resampling, the Romano-Wolf correction):
    ``rng=seed`` (CLI ``--seed``) reproduces the gate exactly. None when nothing was drawn
    at random, or ``rng`` was a Generator (its seed is unknown)."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """Each task's baseline and candidate origins (files, hashes, model, metric), the
    policy file and its hash, the seed, the evalsig version and the time."""

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 FAIL, 3 INCONCLUSIVE."""
        return EXIT_CODES[self.verdict]

    def task(self, name: str) -> TaskVerdict:
        for verdict in self.tasks:
            if verdict.task.name == name:
                return verdict
        raise DataError(f"no task {name!r} in this gate; tasks: {', '.join(self.policy.family)}.")

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        drew = self.correction.method == "romano-wolf" or any(
            t.comparison.n_resamples is not None for t in self.tasks
        )
        seed_null(nulls, self.seed, drew=drew)
        tasks = []
        for t in self.tasks:
            name = t.task.name
            tasks.append(
                {
                    "task": name,
                    "claim": t.task.claim,
                    "margin": t.task.margin,
                    "direction": t.task.direction,
                    "threshold": t.task.threshold,
                    "verdict": t.verdict,
                    "reason": t.reason,
                    "pvalue": json_safe(t.pvalue, f"{name}.pvalue", nulls, "undefined"),
                    "p_adjusted": json_safe(t.p_adjusted, f"{name}.p_adjusted", nulls, "undefined"),
                    "lower_bound": json_safe(
                        t.lower_bound, f"{name}.lower_bound", nulls, "unbounded"
                    ),
                    "upper_bound": json_safe(
                        t.upper_bound, f"{name}.upper_bound", nulls, "unbounded"
                    ),
                    "adjusted_lower_bound": json_safe(
                        math.nan if t.adjusted_lower_bound is None else t.adjusted_lower_bound,
                        f"{name}.adjusted_lower_bound",
                        nulls,
                        "unbounded" if self.bounds else _NO_BOUNDS.format(self.correction.method),
                    ),
                    "comparison": t.comparison.to_dict(),
                }
            )
        return {
            "kind": "gate",
            "schema_version": SCHEMA_VERSION,
            "policy": {
                "name": self.policy.name,
                "digest": self.policy.digest(),
                **self.policy.content(),
            },
            "verdict": self.verdict,
            "reason": self.reason,
            "tasks": tasks,
            "correction": self.correction.to_dict(),
            "registration": {
                "status": self.registration.status,
                "summary": self.registration.summary(),
                "added": list(self.registration.added),
                "dropped": list(self.registration.dropped),
                "changed_settings": list(self.registration.changed_settings),
                "overridden": self.registration.overridden,
            },
            "sign_test": self.sign_test.to_dict(),
            "uncorrected_fwer": self.uncorrected_fwer,
            "bounds": self.bounds,
            "dependence": None if self.dependence is None else self.dependence.to_dict(),
            "seed": self.seed,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per task of the family: task, claim, margin, direction, threshold,
        verdict, estimate, lower_bound, adjusted_lower_bound (NaN when the correction has
        none), upper_bound, pvalue, p_adjusted, reason."""
        from evalsig._frame import data_frame, floats

        tasks = self.tasks
        return data_frame(
            {
                "task": [t.task.name for t in tasks],
                "claim": [t.task.claim for t in tasks],
                "margin": floats(t.task.margin for t in tasks),
                "direction": [t.task.direction for t in tasks],
                "threshold": floats(t.task.threshold for t in tasks),
                "verdict": [t.verdict for t in tasks],
                "estimate": floats(t.comparison.estimate for t in tasks),
                "lower_bound": floats(t.lower_bound for t in tasks),
                "adjusted_lower_bound": floats(t.adjusted_lower_bound for t in tasks),
                "upper_bound": floats(t.upper_bound for t in tasks),
                "pvalue": floats(t.pvalue for t in tasks),
                "p_adjusted": floats(t.p_adjusted for t in tasks),
                "reason": [t.reason for t in tasks],
            }
        )


def gate(
    baseline: Any,
    candidate: Any,
    /,
    *,
    policy: GatePolicy | Mapping[str, Any] | str | os.PathLike[str],
    registration: Registration | str | os.PathLike[str] | None = None,
    allow_changed_policy: bool = False,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    strata: bool = False,
) -> GateResult:
    """Decide a release over a pre-registered family of tasks.

    Parameters
    ----------
    baseline, candidate : path(s), or mapping task name -> data
        Each model's results on the family: a results directory or files holding the tasks
        (harness outputs are recognised), or a mapping from task name to anything
        :func:`evalsig.load` accepts.
    policy : GatePolicy, mapping or path to a YAML/JSON policy
        The family of task claims, alpha, error rate, correction and decision rule.
    registration : Registration or path, optional
        The pre-registration record (:func:`evalsig.release.register`); when the policy was
        read from a file and this is None, ``<policy stem>.registration.json`` beside it is
        used if it exists.
    allow_changed_policy : bool
        Run even though the policy differs from its registration (the report says so).
    n_resamples, rng
        For resampling methods and the Romano-Wolf correction. Every task and the
        correction draw from one seed: when ``rng`` is None it is drawn from the operating
        system's entropy and recorded as ``seed``, so ``rng=result.seed`` reproduces the
        gate exactly (a Generator passed in has no recoverable seed: recorded as None).
    strata : bool
        Read the groups the tables carry (their cluster column, e.g. the subjects) as
        strata, not clusters: a claim with method "auto" then takes the stratified t-test
        (:mod:`evalsig.inference.stratified`), and "stratified" is available.

    Returns
    -------
    GateResult
        Verdict per task and overall: PASS, FAIL or INCONCLUSIVE (the data cannot resolve
        the claim); raw and adjusted p-values side by side.

    Notes
    -----
    A task PASSES when its adjusted p-value is at most alpha: for Bonferroni exactly when
    the lower confidence bound at level :math:`1 - \\alpha/K` clears the threshold (Holm
    and the FDR procedures step from there). It FAILS when the upper bound at level
    :math:`1 - \\alpha` lies below the threshold (the data show the claim is false), and
    is INCONCLUSIVE otherwise. Rules: ``all`` passes when every task passes and fails when
    any fails; ``at-least`` passes with at least k passes and fails when k can no longer
    be reached; ``sign-test`` passes when the candidate wins significantly more tasks.
    """
    policy = load_policy(policy)
    record = _registration(policy, registration)
    check = check_registration(policy, record, allow_changes=allow_changed_policy)
    notes: list[str] = []
    pairs = _family_pairs(policy, baseline, candidate, notes)
    if strata:
        pairs = {name: _stratified(name, paired) for name, paired in pairs.items()}
    alpha = policy.alpha
    generator, seed = seeded(rng)
    draws = generator if seed is None else seed  # one seed for every task and the correction
    comparisons = {
        claim.name: compare_paired(
            pairs[claim.name],
            method=claim.method,  # validated by the policy
            variant=claim.variant,
            alternative="greater",
            confidence_level=1.0 - alpha,
            n_resamples=n_resamples,
            rng=draws,
        )
        for claim in policy.tasks
    }
    raw = {c.name: _claim_pvalue(comparisons[c.name], c.threshold) for c in policy.tasks}
    if policy.correction == "romano-wolf":
        correction = _romano_wolf(policy, pairs, raw, n_resamples, draws, notes)
    else:
        correction = adjust(raw, method=policy.correction, alpha=alpha)  # type: ignore[arg-type]
    verdicts = tuple(
        _verdict(claim, comparisons[claim.name], raw[claim.name], correction, alpha)
        for claim in policy.tasks
    )
    bounds, verdicts = _simultaneous(policy.correction, verdicts, alpha, notes)
    wins = sign_test({v.task.name: v.comparison.estimate for v in verdicts}, alternative="greater")
    overall, reason = _decide(policy, verdicts, wins)
    resampled = [name for name, c in comparisons.items() if c.n_resamples is not None]
    if policy.correction == "romano-wolf":
        resampled.append("the Romano-Wolf correction")
    drew = bool(resampled)
    if drew:
        notes.append(
            UNKNOWN_SEED
            if seed is None
            else f"random draws from seed {seed} ({', '.join(resampled)}): --seed / rng= "
            "reproduces the gate exactly."
        )
    depend = None
    if policy.shared_items and len(pairs) > 1:
        depend = dependence({name: _by_item(p) for name, p in pairs.items()})
        notes.extend(depend.notes)
    return GateResult(
        policy=policy,
        tasks=verdicts,
        correction=correction,
        verdict=overall,
        reason=reason,
        registration=check,
        sign_test=wins,
        uncorrected_fwer=uncorrected_familywise_error(len(policy.tasks), alpha),
        dependence=depend,
        bounds=bounds,
        seed=seed if drew else None,
        notes=tuple(notes),
        provenance=_provenance(policy, pairs, seed if drew else None),
    )


def _family_pairs(
    policy: GatePolicy, baseline: Any, candidate: Any, notes: list[str]
) -> dict[str, PairedScores]:
    """Each family task's paired scores, its margin checked; notes of tasks outside the
    family and of ids that pair across kinds."""
    sides = [_Results.of(baseline, "baseline"), _Results.of(candidate, "candidate")]
    for side in sides:
        extra = [t for t in side.task_names() if t not in policy.family]
        if extra:
            notes.append(
                f"{side.side} results also hold {', '.join(map(repr, extra))}, outside the "
                "pre-registered family: not tested."
            )
    pairs = {claim.name: _pair(claim, sides[0], sides[1]) for claim in policy.tasks}
    for paired in pairs.values():  # also in each task's notes; shown with the verdicts too
        kinds = paired_id_kinds(paired.baseline, paired.candidate)
        if kinds is not None:
            notes.append(kinds)
    for claim in policy.tasks:
        _check_margin(claim, pairs[claim.name], policy.source)
    return pairs


def _provenance(
    policy: GatePolicy, pairs: Mapping[str, PairedScores], seed: int | None
) -> Provenance:
    """Each task's sides as given (before a 'lower' task swaps them) and the policy file."""
    inputs = []
    for claim in policy.tasks:
        paired = pairs[claim.name]
        sides = (paired.baseline, paired.candidate)
        if claim.direction == "lower":
            sides = sides[::-1]
        inputs += [
            (f"{claim.name} {label}", t.origin) for label, t in zip(SIDES, sides, strict=True)
        ]
    source = Path(policy.source)
    files = {"policy": file_record(source)} if source.is_file() else {}
    return provenance(inputs, files=files, seed=seed)


SIDES = ("baseline", "candidate")


def _registration(
    policy: GatePolicy, registration: Registration | str | os.PathLike[str] | None
) -> Registration | None:
    if isinstance(registration, Registration):
        return registration
    if registration is not None:
        return read_registration(registration)
    if policy.source == "<policy>":
        return None
    from evalsig.release.registration import default_path

    path = default_path(policy)
    return read_registration(path) if path.exists() else None


# --- data ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Results:
    """One side's results: a mapping task -> data, or files read once."""

    side: str
    mapping: Mapping[str, Any] | None
    collector: Collector | None

    @classmethod
    def of(cls, source: Any, side: str) -> _Results:
        if isinstance(source, Mapping):
            return cls(side, source, None)
        if isinstance(source, (str, os.PathLike, list, tuple)):
            return cls(side, None, collect_files(source, ReadOptions()))
        raise DataError(
            f"gate() takes the {side} results as a path (a results directory or files) or as "
            f"a mapping task name -> data; got a {type(source).__name__}."
        )

    def task_names(self) -> list[str]:
        if self.mapping is not None:
            return [str(name) for name in self.mapping]
        return self.collector.task_names() if self.collector is not None else []

    def table(self, claim: TaskClaim) -> ScoreTable:
        names = self.task_names()
        if claim.name not in names:
            raise DataError(
                f"task {short(claim.name)} of the policy's family is missing from the "
                f"{self.side} results (tasks found: {examples(names, 5) or 'none'}); a family "
                "task cannot be dropped after registration."
            )
        if self.mapping is None:
            if self.collector is None:
                raise DataError(f"no {self.side} results were given.")
            return self.collector.select(task=claim.name, metric=claim.metric, filter=claim.filter)
        tables = load_tasks(
            self.mapping[claim.name],
            metric=claim.metric,
            filter=claim.filter,
            name=f"{self.side}[{claim.name!r}]",
        )
        if len(tables) == 1:
            return next(iter(tables.values()))
        if claim.name in tables:
            return tables[claim.name]
        raise DataError(
            f"{self.side}[{claim.name!r}] holds tasks {', '.join(map(repr, tables))}; give one."
        )


def _stratified(task: str, paired: PairedScores) -> PairedScores:
    """The task's pair with its groups read as strata."""
    if paired.cluster_codes is None:
        raise DataError(
            f"task {task!r}: strata=True reads the groups the tables carry as strata, but "
            "they have none; read the stratum column (CLI: --strata COLUMN)."
        )
    return as_strata(paired)


def _pair(claim: TaskClaim, baseline: _Results, candidate: _Results) -> PairedScores:
    base, cand = baseline.table(claim), candidate.table(claim)
    if claim.direction == "lower":  # improvement = baseline - candidate
        base, cand = cand, base
    return pair(base, cand)


def _by_item(paired: PairedScores) -> dict[str, float]:
    ids = paired.item_ids if paired.item_ids is not None else np.arange(paired.n_items).astype(str)
    return dict(zip(ids.tolist(), paired.differences().tolist(), strict=True))


# --- tests and verdicts --------------------------------------------------------------------


def _claim_pvalue(result: ComparisonResult, threshold: float) -> float:
    """One-sided p-value of ``improvement <= threshold``: the smallest alpha at which the
    lower confidence bound exceeds ``threshold`` (inverting the test's own bound)."""
    p = _invert(result, threshold, "greater")
    if p is not None:
        return p
    other = _invert(result, threshold, "less")  # p > 1/2: from the opposite bound
    return 0.5 if other is None else 1.0 - other  # neither bound clears: both 50% bounds sit on it


def _invert(result: ComparisonResult, threshold: float, side: Alternative) -> float | None:
    """The alpha in [1e-15, 1/2] at which the one-sided bound on ``side`` meets ``threshold``;
    None when it is not reached by alpha = 1/2 (intervals are only asked for levels >= 1/2)."""

    def clearance(log_alpha: float) -> float:
        interval = result.confidence_interval(1.0 - math.exp(log_alpha), alternative=side)
        return interval.low - threshold if side == "greater" else threshold - interval.high

    lo, hi = math.log(P_FLOOR), math.log(0.5)
    if clearance(lo) > 0:
        return P_FLOOR  # clears the threshold even at alpha = 1e-15
    if clearance(hi) <= 0:
        return None
    root = brentq(clearance, lo, hi, xtol=1e-12)
    return float(math.exp(root))


def _verdict(
    claim: TaskClaim,
    result: ComparisonResult,
    pvalue: float,
    correction: MultipleTestResult,
    alpha: float,
) -> TaskVerdict:
    p_adjusted, passed = correction.adjusted(claim.name)
    lower = result.confidence_interval(1 - alpha, alternative="greater").low
    upper = result.confidence_interval(1 - alpha, alternative="less").high
    target = f"{claim.threshold:+.4g}" if claim.threshold else "0"
    if passed:
        verdict: Verdict = "PASS"
        reason = f"adjusted p = {p_adjusted:.3g} <= alpha: the improvement clears {target}."
    elif upper <= claim.threshold:
        verdict = "FAIL"
        reason = (
            f"the upper {100 * (1 - alpha):g}% bound {upper:+.4g} is at or below {target}: the "
            f"data show the candidate is {_refuted(claim)}."
        )
    else:
        verdict = "INCONCLUSIVE"
        reason = (
            f"adjusted p = {p_adjusted:.3g} > alpha and the upper bound {upper:+.4g} is above "
            f"{target}: the data cannot resolve the claim (more items or runs are needed)."
        )
    return TaskVerdict(
        task=claim,
        comparison=result,
        pvalue=pvalue,
        p_adjusted=float(p_adjusted),
        lower_bound=lower,
        upper_bound=upper,
        verdict=verdict,
        reason=reason,
    )


_NO_BOUNDS = (
    "no simultaneous bound is computed for the {} correction; lower_bound is the unadjusted bound"
)


def _simultaneous(
    correction: str, verdicts: tuple[TaskVerdict, ...], alpha: float, notes: list[str]
) -> tuple[str | None, tuple[TaskVerdict, ...]]:
    """Lower bounds that hold for every task at once and agree with the correction's
    decisions: each task passes exactly when its bound clears its threshold.

    Bonferroni: each bound at level ``1 - alpha/K``; Sidak: ``(1 - alpha)^(1/K)``. Holm
    (Strassburger and Bretz 2008; Guilbaud 2008): with ``R`` the passing tasks, a task
    outside ``R`` gets its bound at level ``1 - alpha/(K - |R|)``, a task in ``R`` its
    threshold, unless every task passes, when each gets the larger of its threshold and its
    Bonferroni bound. Other corrections: none (None, and the bounds stay unadjusted).

    References
    ----------
    .. [1] K. Strassburger and F. Bretz (2008), "Compatible simultaneous lower confidence
       bounds for the Holm procedure and other Bonferroni-based closed tests", Statistics
       in Medicine 27(24), 4914-4927.
    """
    k = len(verdicts)
    if correction not in ("bonferroni", "sidak", "holm") or not k:
        return None, verdicts

    def bound(t: TaskVerdict, tail: float) -> float:
        return t.comparison.confidence_interval(1.0 - tail, alternative="greater").low

    passed = [t.verdict == "PASS" for t in verdicts]
    if correction == "bonferroni":
        lows = [bound(t, alpha / k) for t in verdicts]
    elif correction == "sidak":
        lows = [bound(t, 1.0 - (1.0 - alpha) ** (1.0 / k)) for t in verdicts]
    elif all(passed):
        lows = [max(t.task.threshold, bound(t, alpha / k)) for t in verdicts]
    else:
        rest = k - sum(passed)
        lows = [
            t.task.threshold if won else bound(t, alpha / rest)
            for t, won in zip(verdicts, passed, strict=True)
        ]
        if any(passed):
            notes.append(
                "The bounds are simultaneous and match Holm's decisions (Strassburger and "
                "Bretz 2008): a task that passes while another does not has its threshold as "
                "its bound; lower_bound in the JSON holds each task's unadjusted bound."
            )
    adjusted = tuple(
        dataclasses.replace(t, adjusted_lower_bound=low)
        for t, low in zip(verdicts, lows, strict=True)
    )
    return correction, adjusted


def _refuted(claim: TaskClaim) -> str:
    """What an upper bound at or below the threshold shows: the claim's negation."""
    return "not better" if claim.claim == "superiority" else f"worse by {claim.margin:g} or more"


def _decide(
    policy: GatePolicy, verdicts: Sequence[TaskVerdict], wins: SignTestResult
) -> tuple[Verdict, str]:
    counts = {v: sum(t.verdict == v for t in verdicts) for v in ("PASS", "FAIL", "INCONCLUSIVE")}
    k = len(verdicts)
    if policy.rule == "sign-test":
        if wins.pvalue <= policy.alpha:
            return "PASS", f"the candidate wins significantly more tasks ({wins})."
        reverse = sign_test(
            {v.task.name: v.comparison.estimate for v in verdicts}, alternative="less"
        )
        if reverse.pvalue <= policy.alpha:
            return "FAIL", f"the baseline wins significantly more tasks ({reverse})."
        return "INCONCLUSIVE", f"neither model wins significantly more tasks ({wins})."
    need = k if policy.rule == "all" else int(policy.at_least or k)
    summary = f"{counts['PASS']} of {k} tasks pass, {counts['FAIL']} fail"
    if counts["PASS"] >= need:
        return "PASS", f"{summary}; the rule needs {need}."
    if counts["PASS"] + counts["INCONCLUSIVE"] < need:
        return "FAIL", f"{summary}; the rule needs {need}, which can no longer be reached."
    return "INCONCLUSIVE", f"{summary}, {counts['INCONCLUSIVE']} unresolved; the rule needs {need}."


def _check_margin(claim: TaskClaim, paired: PairedScores, source: str) -> None:
    """A margin as wide as the scores' range would pass any candidate: refuse it."""
    if not claim.margin:
        return
    means = (paired.baseline.means, paired.candidate.means)
    low, high = min(float(m.min()) for m in means), max(float(m.max()) for m in means)
    unit = low >= 0.0 and high <= 1.0
    span = 1.0 if unit else high - low
    if claim.margin >= span:
        scale = "scores in [0, 1]" if unit else f"scores from {low:g} to {high:g}"
        raise DataError(
            f"{source}: task {claim.name!r}: 'margin' {claim.margin:g} is not below the "
            f"range of the scores ({scale}), so every candidate would pass; give the margin "
            "on the score scale (0.01 is 1 point of accuracy)."
        )


def _romano_wolf(
    policy: GatePolicy,
    pairs: Mapping[str, PairedScores],
    raw: Mapping[str, float],
    n_resamples: int,
    rng: np.random.Generator | int | None,
    notes: list[str],
) -> MultipleTestResult:
    """Romano-Wolf step-down p-values over the family (bootstrap-t of mean improvements)."""
    differences = {name: p.differences() for name, p in pairs.items()}
    ids = (
        {
            name: (p.item_ids if p.item_ids is not None else np.arange(p.n_items).astype(str))
            for name, p in pairs.items()
        }
        if policy.shared_items
        else None
    )
    result = romano_wolf(
        differences,
        item_ids=ids,
        null={c.name: c.threshold for c in policy.tasks},
        alternative="greater",
        n_resamples=n_resamples,
        confidence_level=1.0 - policy.alpha,
        rng=rng,
    )
    notes.append(
        "Romano-Wolf step-down over the family (studentized bootstrap of mean improvements, "
        f"{result.scheme} resampling, {result.n_resamples:,} resamples"
        + ("" if result.seed is None else f", seed {result.seed}: --seed / rng= reproduces it")
        + "); the per-task tests shown are the paired tests."
    )
    return MultipleTestResult(
        method="romano-wolf",
        alpha=policy.alpha,
        pvalues=np.array([raw[t] for t in result.tasks]),
        p_adjusted=np.asarray(result.p_adjusted, dtype=np.float64),
        reject=np.asarray(result.reject, dtype=bool),
        labels=tuple(result.tasks),
        notes=tuple(result.notes),
    )
