r"""pass@k, pass^k and majority@k over tasks: estimates with intervals, and paired
comparisons of two models (tasks needed: :func:`evalsig.power.passk.pass_at_k_power`).

Each task was attempted ``n`` times, ``c`` of them correct; its estimate is the unbiased
U-statistic of :mod:`evalsig.inference.passk`, and the score is the mean over the ``T``
tasks. Tasks are the independent units: ``se = s / sqrt(T)`` (``s`` the SD of the per-task
estimates) already holds each task's sampling noise; that part is also reported on its own
(``se_within``), beside ``se_limit``, the standard error with unlimited samples per task:
the gap between ``se`` and ``se_limit`` is all that more samples per task can buy.

Data: a :class:`ScoreTable` (runs are samples: Inspect epochs, lm-eval repeats, a run
column), a path or anything else :func:`evalsig.load` reads, a mapping ``{task: [0/1
scores]}``, a 2-D ``tasks x samples`` 0/1 array (note: ``tasks x samples``, the layout of
pass@k results, where :func:`evalsig.load` reads a 2-D array as ``runs x items``), a list
of per-task lists (tasks may have different numbers of samples), or :class:`SampleCounts`
(per-task ``n`` and ``c``).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> samples = (rng.random((200, 10)) < rng.beta(0.5, 1.0, (200, 1))).astype(int)
>>> result = pass_at_k(samples, [1, 5])
>>> [round(row.estimate, 3) for row in result.rows]
[0.277, 0.549]
>>> ci = result[5].ci
>>> round(ci.low, 3), round(ci.high, 3)
(0.488, 0.611)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.load import UNNAMED, load
from evalsig.data.paired import OnMismatch, OnMissing, PairedScores, pair
from evalsig.data.provenance import Provenance, in_memory_origin, provenance
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    ConfidenceInterval,
    check_alternative,
    check_confidence_level,
    check_n_resamples,
    seeded,
)
from evalsig.inference.passk import (
    Estimator,
    Interval,
    PairedMethod,
    Ties,
    check_counts,
    check_estimator,
    check_k,
    check_ties,
    counts_from_samples,
    mean_over_tasks,
    paired_over_tasks,
    spread_notes,
    standard_error_parts,
    task_estimates,
    within_task_variance,
)

__all__ = [
    "PassAtKComparison",
    "PassAtKEstimate",
    "PassAtKResult",
    "PassAtKTest",
    "SampleCounts",
    "compare_pass_at_k",
    "pass_at_k",
]

TooFewSamples = Literal["error", "drop"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleCounts:
    """Per task: ``n`` samples drawn, ``c`` of them correct (and the tasks' names).

    >>> round(pass_at_k(SampleCounts(n=[10, 10, 5], c=[3, 0, 5]), 1)[1].estimate, 4)
    0.4333
    """

    n: Sequence[int] | np.ndarray
    c: Sequence[int] | np.ndarray
    tasks: Sequence[str] | np.ndarray | None = None

    def table(self, name: str = "scores", *, kind: str = "counts") -> ScoreTable:
        """The counts as a :class:`ScoreTable` (counts ``n``, sums ``c``), validated;
        ``kind`` is the Python type its origin records."""
        n, c = check_counts(self.n, self.c, 1)
        ids = None if self.tasks is None else np.array([str(t) for t in self.tasks], dtype=object)
        if ids is not None and (len(ids) != len(n) or len(set(ids.tolist())) != len(ids)):
            raise DataError(
                f"`{name}`.tasks must name each of the {len(n)} tasks once; got {len(ids)} "
                f"names, {len(set(ids.tolist()))} of them different."
            )
        sums = c.astype(np.float64)
        model = None if name in UNNAMED else name
        return ScoreTable(
            item_ids=ids, counts=n, binary=True, sums=sums, sumsq=sums, source=f"`{name}`",
            origin=in_memory_origin(kind, model=model),
        )  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKEstimate:
    """One k of a :class:`PassAtKResult`: the mean over tasks, its interval and its parts."""

    k: int
    estimate: float
    se: float
    """Standard error over tasks, ``s / sqrt(T)`` (it holds the within-task noise)."""
    ci: ConfidenceInterval
    df: float | None
    method: str
    """'t' or 'bootstrap-bca' (or the bootstrap kind used)."""
    method_reason: str
    se_within: float | None
    """The part of ``se`` due to sampling within tasks; None when a task has fewer than
    2k samples (no unbiased estimate exists)."""
    se_limit: float | None
    """``se`` with unlimited samples per task: the spread of the tasks alone."""
    n_tasks: int
    n_dropped: int
    """Tasks left out for having fewer than k samples (``too_few_samples="drop"``)."""
    n_resamples: int | None = None
    notes: tuple[str, ...] = ()
    task_estimates: np.ndarray = field(repr=False, compare=False)
    """Per-task estimates of the tasks used, in the result's task order."""
    used: np.ndarray = field(repr=False, compare=False)
    """Positions of the tasks used among the result's tasks."""
    _interval: Callable[[float], tuple[float, float]] = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """The interval at another confidence level."""
        level = check_confidence_level(confidence_level)
        low, high = self._interval(level)
        return ConfidenceInterval(low=low, high=high, confidence_level=level)


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKTest:
    """One k of a :class:`PassAtKComparison`: the paired test of per-task differences."""

    k: int
    baseline: float
    candidate: float
    estimate: float
    """Candidate minus baseline, mean over tasks."""
    se: float
    ci: ConfidenceInterval
    pvalue: float
    statistic: float
    statistic_name: str
    df: float | None
    method: str
    method_reason: str
    alternative: Alternative
    se_within: float | None
    """The part of ``se`` due to sampling within tasks (both models); None when a task has
    fewer than 2k samples."""
    se_limit: float | None
    """``se`` with unlimited samples per task."""
    n_tasks: int
    n_dropped: int
    n_resamples: int | None = None
    notes: tuple[str, ...] = ()
    _interval: Callable[[float, Alternative], tuple[float, float]] = field(
        repr=False, compare=False
    )

    @property
    def p_value(self) -> float:
        return self.pvalue

    def confidence_interval(
        self, confidence_level: float = 0.95, *, alternative: Alternative | None = None
    ) -> ConfidenceInterval:
        """The interval at another confidence level (and, if given, for another side)."""
        level = check_confidence_level(confidence_level)
        side = self.alternative if alternative is None else check_alternative(alternative)
        low, high = self._interval(level, side)
        return ConfidenceInterval(low=low, high=high, confidence_level=level)

    def significant(self, alpha: float | None = None) -> bool:
        """Whether ``pvalue <= alpha`` (default: 1 - the confidence level)."""
        threshold = 1.0 - self.ci.confidence_level if alpha is None else alpha
        return bool(self.pvalue <= threshold)


class _Rows:
    """What both results share: ``result[k]``, rows as JSON and as a frame, renderings."""

    __slots__ = ()
    rows: tuple[Any, ...]
    seed: int | None
    notes: tuple[str, ...]
    provenance: Provenance | None
    _VIEWS: tuple[str, str] = ("", "")
    """The text and markdown renderers in :mod:`evalsig.report.passk`."""
    to_dict: Callable[[], dict[str, Any]]
    """Each result's JSON document (defined by the result)."""

    def __getitem__(self, k: int) -> Any:
        for row in self.rows:
            if row.k == k:
                return row
        raise KeyError(f"no row for k = {k!r}; the result has k = {[r.k for r in self.rows]}")

    @property
    def ks(self) -> tuple[int, ...]:
        return tuple(row.k for row in self.rows)

    def _document(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The JSON document: ``fields`` (kind first), then the rows, seed, notes,
        provenance and nulls."""
        nulls: dict[str, str] = {}
        rows = [_row_dict(row, f"rows[{i}]", nulls) for i, row in enumerate(self.rows)]
        if self.seed is None:
            drew = any(r.n_resamples for r in self.rows)
            nulls["seed"] = "unknown: rng was a numpy Generator" if drew else "no random draws"
        return {
            **fields,
            "rows": rows,
            "seed": self.seed,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per k: the numbers of ``to_dict()``'s rows (the interval as ci_low and
        ci_high, +/-inf for a one-sided test's open side; NaN where the JSON has null)."""
        from evalsig._frame import data_frame, floats, ints

        columns: dict[str, Any] = {}
        for name in _row_dict(self.rows[0], "", {}):
            if name in ("notes", "method_reason", "statistic_name", "n_resamples"):
                continue
            if name == "ci":
                columns["ci_low"] = floats(r.ci.low for r in self.rows)
                columns["ci_high"] = floats(r.ci.high for r in self.rows)
            elif name in ("k", "n_tasks", "n_dropped"):
                columns[name] = ints(getattr(r, name) for r in self.rows)
            elif name == "method":
                columns[name] = [r.method for r in self.rows]
            else:
                columns[name] = floats(getattr(r, name) for r in self.rows)
        return data_frame(columns)

    def __str__(self) -> str:
        from evalsig.report import passk

        return str(getattr(passk, self._VIEWS[0])(self.to_dict()))

    def _repr_markdown_(self) -> str:
        from evalsig.report import passk

        return str(getattr(passk, self._VIEWS[1])(self.to_dict()))

    def _repr_html_(self) -> str:
        from evalsig.report.html import fragment

        return fragment(self.to_dict())


def _row_dict(row: Any, where: str, nulls: dict[str, str]) -> dict[str, Any]:
    """A row's public fields as strict JSON (NaN and infinities as null, said in ``nulls``)."""
    out: dict[str, Any] = {}
    for item in dataclasses.fields(row):
        name, value = item.name, getattr(row, item.name)
        if name.startswith("_") or name in ("task_estimates", "used", "alternative"):
            continue
        if name == "ci":
            value = {
                "low": json_safe(value.low, f"{where}.ci.low", nulls, "one-sided interval"),
                "high": json_safe(value.high, f"{where}.ci.high", nulls, "one-sided interval"),
                "confidence_level": value.confidence_level,
            }
        elif name in ("se_within", "se_limit") and value is None:
            nulls[f"{where}.{name}"] = f"some task has fewer than 2k = {2 * row.k} samples"
        elif isinstance(value, float):
            value = json_safe(value, f"{where}.{name}", nulls, "undefined (see the notes)")
        elif name == "notes":
            value = list(value)
        out[name] = value
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKResult(_Rows):
    """pass@k (pass^k, majority@k) of one model over tasks, one row per k: ``result[k]``."""

    estimator: Estimator
    ties: Ties | None
    rows: tuple[PassAtKEstimate, ...]
    n_tasks: int
    samples: tuple[int, int]
    """Fewest and most samples per task."""
    seed: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    task_ids: np.ndarray | None = field(default=None, repr=False, compare=False)
    n: np.ndarray = field(repr=False, compare=False)
    c: np.ndarray = field(repr=False, compare=False)
    _VIEWS = ("estimates_text", "estimates_markdown")

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON fields; nulls are explained under ``nulls``."""
        return self._document(
            {
                "kind": "pass-at-k",
                "schema_version": SCHEMA_VERSION,
                "estimator": self.estimator,
                "ties": self.ties,
                "n_tasks": self.n_tasks,
                "samples": {"min": self.samples[0], "max": self.samples[1]},
            }
        )

    def tasks_frame(self) -> Any:
        """One row per task: task (or its position), n, c, then the estimate at each k
        (columns named like 'pass@5'; NaN where a task was dropped for that k)."""
        from evalsig._frame import data_frame

        tasks = np.arange(len(self.n)) if self.task_ids is None else list(self.task_ids)
        columns: dict[str, Any] = {"task": tasks, "n": self.n, "c": self.c}
        for r in self.rows:
            column = np.full(len(self.n), np.nan)
            column[r.used] = r.task_estimates
            columns[_name(self.estimator, r.k)] = column
        return data_frame(columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAtKComparison(_Rows):
    """Candidate minus baseline pass@k (pass^k, majority@k) on the same tasks, a paired test
    per k: ``result[k]``."""

    estimator: Estimator
    ties: Ties | None
    rows: tuple[PassAtKTest, ...]
    alternative: Alternative
    n_tasks: int
    samples: tuple[tuple[int, int], tuple[int, int]]
    """Fewest and most samples per task of the baseline and of the candidate."""
    n_dropped: tuple[int, int]
    """Tasks dropped as present only in the baseline, only in the candidate."""
    n_mismatched: int
    seed: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    _VIEWS = ("comparison_text", "comparison_markdown")

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON fields; nulls are explained under ``nulls``."""
        (b_low, b_high), (c_low, c_high) = self.samples
        return self._document(
            {
                "kind": "pass-at-k-comparison",
                "schema_version": SCHEMA_VERSION,
                "estimator": self.estimator,
                "ties": self.ties,
                "alternative": self.alternative,
                "n_tasks": self.n_tasks,
                "samples": {
                    "baseline": {"min": b_low, "max": b_high},
                    "candidate": {"min": c_low, "max": c_high},
                },
                "n_dropped": {
                    "only_baseline": self.n_dropped[0],
                    "only_candidate": self.n_dropped[1],
                },
                "n_mismatched": self.n_mismatched,
            },
        )


# --- one model -----------------------------------------------------------------------------


def pass_at_k(
    data: Any,
    /,
    k: int | Sequence[int],
    *,
    estimator: Estimator = "pass@k",
    interval: Interval = "t",
    confidence_level: float = 0.95,
    too_few_samples: TooFewSamples = "error",
    ties: Ties = "half",
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> PassAtKResult:
    """pass@k (or pass^k, majority@k) of one model: the mean over tasks of the unbiased
    per-task estimates, with its standard error, interval and within-task part.

    Parameters
    ----------
    data : ScoreTable, path, mapping, array, list of lists or SampleCounts
        Each task's 0/1 scores of its samples (see the module's docstring); a 2-D array is
        ``tasks x samples``.
    k : int or sequence of int
        Samples per attempt; one row of the result per k.
    estimator : {"pass@k", "pass^k", "majority@k"}
        Some of k samples correct (Chen et al. 2021), all of them (Yao et al. 2024), most of
        them (a tie counts as ``ties`` says).
    interval : {"t", "bootstrap"}
        t over tasks (``df = T - 1``), or a BCa bootstrap over tasks (from 50 tasks; with
        fewer the t interval is used, and the row says why).
    confidence_level : float
    too_few_samples : {"error", "drop"}
        A task with fewer than k samples: an error naming it (default), or leave it out of
        that k's row (the row counts it in ``n_dropped`` and its notes name them).
    ties : {"half", "fail"}
        majority@k with an even k: a tie counts 1/2 (broken at random) or 0.
    n_resamples : int
    rng : numpy.random.Generator, int or None
        Seed or generator of the bootstrap; None draws a seed and records it.

    Returns
    -------
    PassAtKResult

    Raises
    ------
    DataError
        Scores other than 0 and 1, a task with fewer than k samples, a missing (NaN)
        sample, fewer than 2 tasks.

    Notes
    -----
    Per task, ``hat p_t`` is the U-statistic of :mod:`evalsig.inference.passk`; the score
    is ``bar p = mean_t hat p_t``, ``se = s / sqrt(T)`` with ``s`` the SD of the ``hat p_t``
    (``E[s^2 / T] = Var(bar p)`` over tasks drawn at random, within-task noise included),
    and the t interval ``bar p +/- t_{T-1} se``, cut to [0, 1] (noted when it is).
    ``se_within = sqrt(sum_t hat V_t) / T`` with ``hat V_t`` the unbiased within-task
    variance (tasks with ``n_t >= 2k``), and ``se_limit = sqrt(max(0, s^2 - mean_t hat
    V_t) / T)``.
    """
    ks = _check_ks(k)
    estimator = check_estimator(estimator)
    ties = check_ties(ties)
    level = check_confidence_level(confidence_level)
    if interval not in ("t", "bootstrap"):
        raise DataError(f"`interval` must be 't' or 'bootstrap'; got {interval!r}.")
    check_too_few(too_few_samples)
    if interval == "bootstrap":
        n_resamples = check_n_resamples(n_resamples)
    table = _table(data, "scores")
    n, c = _counts(table)
    label = labeller(table.item_ids)
    generator, seed = seeded(rng)
    rows = []
    for each in ks:
        keep, note = usable(n, each, too_few_samples, label, table.source, estimator)
        used = np.flatnonzero(keep)
        rows.append(
            _estimate_row(
                each, n[used], c[used], estimator, ties, interval, level, n_resamples, generator,
                used=used, n_dropped=len(n) - len(used), note=note,
            )
        )  # fmt: skip
    seed = seed if any(r.n_resamples for r in rows) else None
    return PassAtKResult(
        estimator=estimator,
        ties=ties if estimator == "majority@k" else None,
        rows=tuple(rows),
        n_tasks=len(n),
        samples=(int(n.min()), int(n.max())),
        seed=seed,
        notes=table.notes,
        provenance=provenance({"scores": table.origin}, seed=seed),
        task_ids=table.item_ids,
        n=n,
        c=c,
    )


def _estimate_row(
    k: int,
    n: np.ndarray,
    c: np.ndarray,
    estimator: Estimator,
    ties: Ties,
    interval: Interval,
    level: float,
    n_resamples: int,
    rng: np.random.Generator,
    *,
    used: np.ndarray,
    n_dropped: int,
    note: str | None,
) -> PassAtKEstimate:
    name = _name(estimator, k)
    estimates = task_estimates(n, c, k, estimator=estimator, ties=ties)
    if len(estimates) < 2:
        raise DataError(
            f"{name} over {len(estimates)} task(s): the standard error over tasks needs at "
            "least 2 tasks with k samples or more."
        )
    mean = mean_over_tasks(
        estimates, interval=interval, confidence_level=level, n_resamples=n_resamples,
        rng=rng, name=name,
    )  # fmt: skip
    variance = within_task_variance(n, c, k, estimator=estimator, ties=ties)
    within, limit, more = standard_error_parts(estimates, variance, name)
    low, high = mean.interval(level)
    return PassAtKEstimate(
        k=k,
        estimate=mean.estimate,
        se=mean.se,
        ci=ConfidenceInterval(low=low, high=high, confidence_level=level),
        df=mean.df,
        method=mean.method,
        method_reason=mean.reason,
        se_within=within,
        se_limit=limit,
        n_tasks=len(estimates),
        n_dropped=n_dropped,
        n_resamples=mean.n_resamples,
        notes=tuple([note] if note else []) + mean.notes + tuple(more),
        task_estimates=estimates,
        used=used,
        _interval=mean.interval,
    )


# --- two models ----------------------------------------------------------------------------


def compare_pass_at_k(
    baseline: Any,
    candidate: Any,
    /,
    k: int | Sequence[int],
    *,
    estimator: Estimator = "pass@k",
    method: PairedMethod = "paired-t",
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    too_few_samples: TooFewSamples = "error",
    ties: Ties = "half",
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> PassAtKComparison:
    """Is the candidate's pass@k (pass^k, majority@k) higher than the baseline's on the same
    tasks? A paired test of the per-task differences, per k.

    Parameters
    ----------
    baseline, candidate : ScoreTable, path, mapping, array, list of lists or SampleCounts
        Each model's per-task 0/1 sample scores (as for :func:`pass_at_k`). Tasks are
        matched by id when both have ids, by position when neither has; the two models
        may have drawn different numbers of samples.
    k : int or sequence of int
    estimator : {"pass@k", "pass^k", "majority@k"}
    method : {"paired-t", "permutation", "bootstrap"}
        Paired t-test of the per-task differences (``df = T - 1``), the sign-flip
        permutation test (exact up to 2^20 sign patterns), or a BCa bootstrap over tasks
        (from 50 tasks; below, the permutation test, and the row says why).
    alternative : {"two-sided", "greater", "less"}
        "greater": the candidate is better.
    confidence_level : float
    too_few_samples : {"error", "drop"}
        A task with fewer than k samples on either side: an error, or leave it out of
        that k's test.
    ties : {"half", "fail"}
    on_missing, on_mismatch
        As in :func:`evalsig.compare`: tasks on one side only, tasks whose content keys
        differ.
    n_resamples : int
    rng : numpy.random.Generator, int or None

    Returns
    -------
    PassAtKComparison

    Notes
    -----
    ``d_t = hat p_{cand,t} - hat p_{base,t}``; the test is on ``mean_t d_t`` with tasks as
    the units, so its standard error holds both models' sampling noise within tasks;
    ``se_within`` reports that part (``sqrt(sum_t (hat V_{b,t} + hat V_{c,t})) / T``).
    p-values are per k, not corrected for testing several k (the tests are strongly
    dependent).

    Examples
    --------
    >>> base = SampleCounts(n=[10] * 60, c=[i % 5 for i in range(60)])
    >>> cand = SampleCounts(n=[10] * 60, c=[i % 5 + (i % 3 == 0) for i in range(60)])
    >>> test = compare_pass_at_k(base, cand, 1)[1]
    >>> round(test.estimate, 4), test.method, test.pvalue < 0.001
    (0.0333, 'paired-t', True)
    """
    ks = _check_ks(k)
    estimator = check_estimator(estimator)
    ties = check_ties(ties)
    alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    if method not in ("paired-t", "permutation", "bootstrap"):
        raise DataError(
            f"`method` must be 'paired-t', 'permutation' or 'bootstrap'; got {method!r}."
        )
    check_too_few(too_few_samples)
    if method != "paired-t":
        n_resamples = check_n_resamples(n_resamples)
    paired, (nb, cb), (nc, cc) = paired_counts(baseline, candidate, on_missing, on_mismatch)
    label = labeller(paired.item_ids)
    sources = (paired.baseline.source, paired.candidate.source)
    generator, seed = seeded(rng)
    rows = []
    for each in ks:
        used_b, note_b = usable(nb, each, too_few_samples, label, sources[0], estimator)
        used_c, note_c = usable(nc, each, too_few_samples, label, sources[1], estimator)
        used = np.flatnonzero(used_b & used_c)
        notes = [n for n in (note_b, note_c) if n]
        rows.append(
            _test_row(
                each, (nb[used], cb[used]), (nc[used], cc[used]), estimator, ties, method,
                alternative, level, n_resamples, generator, len(nb) - len(used), notes,
            )
        )  # fmt: skip
    seed = seed if any(r.n_resamples for r in rows) else None
    return PassAtKComparison(
        estimator=estimator,
        ties=ties if estimator == "majority@k" else None,
        rows=tuple(rows),
        alternative=alternative,
        n_tasks=paired.n_items,
        samples=((int(nb.min()), int(nb.max())), (int(nc.min()), int(nc.max()))),
        n_dropped=(paired.n_only_baseline, paired.n_only_candidate),
        n_mismatched=paired.n_mismatched,
        seed=seed,
        notes=tuple(n for n in paired.notes if not n.endswith(RAGGED_NOTE_END)),
        provenance=provenance(
            {"baseline": paired.baseline.origin, "candidate": paired.candidate.origin},
            seed=seed,
        ),
    )


RAGGED_NOTE_END = "per-item means are compared, each item weighing the same."
"""The end of :func:`evalsig.pair`'s note on ragged runs: true of per-item means, not of
pass@k (tasks with different numbers of samples are natural here), so it is left out."""


def _test_row(
    k: int,
    base: tuple[np.ndarray, np.ndarray],
    cand: tuple[np.ndarray, np.ndarray],
    estimator: Estimator,
    ties: Ties,
    method: PairedMethod,
    alternative: Alternative,
    level: float,
    n_resamples: int,
    rng: np.random.Generator,
    n_dropped: int,
    notes: list[str],
) -> PassAtKTest:
    name = _name(estimator, k)
    p_base = task_estimates(*base, k, estimator=estimator, ties=ties)
    p_cand = task_estimates(*cand, k, estimator=estimator, ties=ties)
    d = p_cand - p_base
    tasks = len(d)
    if tasks < 2:
        raise DataError(
            f"the paired test of {name} needs at least 2 tasks with k samples or more on "
            f"both sides; {tasks} have."
        )
    test, reason = paired_over_tasks(
        d, method=method, alternative=alternative, confidence_level=level,
        n_resamples=n_resamples, rng=rng,
    )  # fmt: skip
    notes = notes + list(test.notes) + spread_notes(d, f"difference of {name}", "test")
    variance = within_task_variance(*base, k, estimator=estimator, ties=ties)
    variance += within_task_variance(*cand, k, estimator=estimator, ties=ties)
    within, limit, more = standard_error_parts(d, variance, f"difference of {name}")
    return PassAtKTest(
        k=k,
        baseline=float(np.mean(p_base)),
        candidate=float(np.mean(p_cand)),
        estimate=test.estimate,
        se=test.se,
        ci=test.ci,
        pvalue=test.pvalue,
        statistic=test.statistic,
        statistic_name=test.statistic_name,
        df=test.df,
        method=test.method,
        method_reason=reason,
        alternative=alternative,
        se_within=within,
        se_limit=limit,
        n_tasks=tasks,
        n_dropped=n_dropped,
        n_resamples=test.n_resamples,
        notes=tuple(notes + more),
        _interval=test._interval,
    )


# --- inputs --------------------------------------------------------------------------------


def _table(data: Any, name: str) -> ScoreTable:
    """Any accepted input as a :class:`ScoreTable` whose runs are samples."""
    if isinstance(data, SampleCounts):
        return data.table(name)
    paths = isinstance(data, (str, os.PathLike)) or (
        isinstance(data, (list, tuple))
        and bool(data)
        and all(isinstance(p, (str, os.PathLike)) for p in data)
    )
    if not paths and (isinstance(data, np.ndarray) or _is_sequence(data)):
        n, c = counts_from_samples(data, source=f"`{name}`")
        return SampleCounts(n=n, c=c).table(name, kind="array")
    return load(data, name=name)


def _is_sequence(data: object) -> bool:
    return isinstance(data, Sequence) and not isinstance(data, (str, bytes, Mapping))


def paired_counts(
    baseline: Any, candidate: Any, on_missing: OnMissing, on_mismatch: OnMismatch
) -> tuple[PairedScores, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Both models' tables aligned by task (:func:`evalsig.pair`), and each side's
    ``(n, c)`` in that order."""
    paired = pair(
        _table(baseline, "baseline"),
        _table(candidate, "candidate"),
        on_missing=on_missing,
        on_mismatch=on_mismatch,
    )
    return paired, _counts(paired.baseline), _counts(paired.candidate)


def _counts(table: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
    """``(n, c)`` per task: samples (the table's runs) and correct ones."""
    if not table.binary:
        means = table.means
        off = np.flatnonzero(np.abs(table.sumsq - table.sums) > 1e-9)
        label = labeller(table.item_ids)
        where = f" (e.g. {label(int(off[0]))}, mean {means[off[0]]:.4g})" if off.size else ""
        raise DataError(
            f"{table.source} holds scores other than 0 and 1{where}; pass@k, pass^k and "
            "majority@k count correct samples: turn the scores into 0/1 first (e.g. score "
            ">= threshold; Inspect's partial credit 'P' is 0.5)."
        )
    n = np.asarray(table.counts, dtype=np.int64).copy()
    c = np.rint(table.sums).astype(np.int64)
    return n, c


def usable(
    n: np.ndarray,
    k: int,
    policy: TooFewSamples,
    label: Callable[[int], str],
    source: str,
    estimator: Estimator,
    *,
    plan: int | None = None,
) -> tuple[np.ndarray, str | None]:
    """Which tasks have at least ``k`` samples (a mask), and a note on those dropped.

    ``plan``: the k of a power calculation, which needs ``2k`` samples (passed as ``k``).
    """
    enough = n >= k
    short = np.flatnonzero(~enough)
    if not short.size:
        return enough, None
    named = ", ".join(f"{label(int(i))}: {int(n[i])} samples" for i in short[:3])
    named += ", ..." if short.size > 3 else ""
    what = (
        f"planning {_name(estimator, plan)} (the within-task variance needs two disjoint sets "
        "of k samples)"
        if plan is not None
        else f"{_name(estimator, k)}"
    )
    if policy == "error":
        raise DataError(
            f"{source}: {short.size} task(s) have fewer than {k} samples ({named}); "
            f"{what} needs at least {k} samples of each task. Draw more samples, lower k, or "
            "pass too_few_samples='drop' (CLI: --too-few-samples drop) to leave those tasks "
            "out (the result records how many)."
        )
    note = f"{source}: left out {short.size} task(s) with fewer than {k} samples ({named})."
    return enough, note


def _check_ks(k: int | Sequence[int]) -> tuple[int, ...]:
    values = [k] if isinstance(k, (int, np.integer)) else list(k)
    if not values:
        raise DataError("`k` is empty; pass a number of samples, e.g. k=1 or k=[1, 5, 10].")
    checked = tuple(check_k(v) for v in values)
    if len(set(checked)) != len(checked):
        raise DataError(f"`k` lists a value twice ({list(checked)}); give each k once.")
    return checked


def check_too_few(policy: object) -> None:
    if policy not in ("error", "drop"):
        raise DataError(f"`too_few_samples` must be 'error' or 'drop'; got {policy!r}.")


def labeller(ids: np.ndarray | None) -> Callable[[int], str]:
    """How a message names the task at a position: its id, or its position."""
    if ids is None:
        return lambda i: f"task {i}"
    return lambda i: repr(str(ids[i]))


def _name(estimator: str, k: int) -> str:
    """'pass@5', 'pass^5', 'majority@5'."""
    return estimator.replace("k", str(k))
