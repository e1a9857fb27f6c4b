"""Simultaneous inference over many tasks: Romano-Wolf step-down p-values and max-T intervals.

On which of K tasks (subtasks, subgroups, metrics) does the candidate beat the baseline?
Bonferroni and Holm pay for every task even when tasks share items and carry nearly the same
evidence. Resampling the items jointly keeps that dependence; the Romano-Wolf step-down then
spends the error rate on the effective number of tests, and the bootstrap maximum of the
studentized statistics gives max-T intervals that cover all K differences at once.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe, seed_null
from evalsig.data.provenance import Provenance, provenance
from evalsig.data.validate import check_scores, numeric_array
from evalsig.errors import DataError, examples
from evalsig.inference._common import UNKNOWN_SEED, Alternative
from evalsig.inference._seeded import Resampling, resampling_options
from evalsig.inference.resampling import bootstrap_totals
from evalsig.result import Result

__all__ = ["Scheme", "SimultaneousResult", "romano_wolf"]

Scheme = Literal["joint", "independent"]
"""``"joint"``: the union of items is resampled; ``"independent"``: each task's items alone."""

ZERO_VARIANCE = 1e-12
"""A resample's sum of squared deviations at most this share of its sum of squares is 0."""

TIE_TOLERANCE = 1e-10
"""Bootstrap statistics within this relative distance of the observed one count as ties."""

_SCALARS = (
    "scheme", "alternative", "confidence_level", "alpha", "n_resamples", "seed", "n_rejected",
)  # fmt: skip
_FLAT = "zero standard error: every item of the task has the same difference"


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SimultaneousResult(Result):
    """Romano-Wolf adjusted p-values and max-T simultaneous intervals, one entry per task.

    Arrays follow the order of ``tasks``: ``estimate`` (mean difference, candidate minus
    baseline), ``se = sd / sqrt(n_items)``, the hypothesised ``null``, ``statistic``
    ``t = (estimate - null) / se`` (signed), unadjusted bootstrap-t ``pvalues``, Romano-Wolf
    ``p_adjusted``, ``reject = p_adjusted <= alpha``, and the simultaneous intervals
    ``estimate -/+ critical_value * se``. ``correlation`` is the ``(K, K)`` correlation of
    the task estimates across bootstrap resamples.
    """

    kind: ClassVar[str] = "simultaneous"
    tasks: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    n_items: np.ndarray
    null: np.ndarray
    statistic: np.ndarray
    pvalues: np.ndarray
    p_adjusted: np.ndarray
    reject: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    critical_value: float
    correlation: np.ndarray
    mean_abs_correlation: float
    scheme: Scheme
    alternative: Alternative
    confidence_level: float
    alpha: float
    n_resamples: int
    seed: int | None = None
    """``rng=seed`` reproduces the result exactly (None: ``rng`` was a Generator)."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """The seed, the evalsig version and the time (differences passed in Python name no
    input file)."""

    @property
    def n_rejected(self) -> int:
        return int(np.count_nonzero(self.reject))

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: non-finite values become null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        unbounded = "unbounded: a one-sided interval, or too few resamples for the level"
        reasons = dict.fromkeys(("estimate", "se", "null"), "overflow") | {"statistic": _FLAT}
        reasons |= {"pvalues": f"undefined: {_FLAT}", "p_adjusted": f"undefined: {_FLAT}"}
        reasons |= {"ci_low": unbounded, "ci_high": unbounded}
        columns = {
            name: [json_safe(float(v), f"{name}[{i}]", nulls, why) for i, v in enumerate(array)]
            for name, why in reasons.items()
            for array in [getattr(self, name)]
        }
        why_c = "too few resamples for the level" if math.isinf(self.critical_value) else _FLAT
        seed_null(nulls, self.seed, drew=True)
        constant = "an estimate does not vary across resamples"
        return {
            "kind": "simultaneous",
            "schema_version": SCHEMA_VERSION,
            "method": "romano-wolf",
            **{name: getattr(self, name) for name in _SCALARS},
            "tasks": list(self.tasks),
            "n_items": self.n_items.tolist(),
            **columns,
            "reject": self.reject.tolist(),
            "critical_value": json_safe(self.critical_value, "critical_value", nulls, why_c),
            "correlation": [
                [json_safe(float(v), f"correlation[{i}][{j}]", nulls, constant) for j, v in row]
                for i, row in enumerate(map(enumerate, self.correlation))
            ],
            "mean_abs_correlation": json_safe(
                self.mean_abs_correlation, "mean_abs_correlation", nulls, "fewer than two tasks"
            ),
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """Every task in order: task, estimate, se, n_items, null, statistic, pvalue,
        p_adjusted, reject, ci_low, ci_high (the simultaneous interval)."""
        from evalsig._frame import data_frame

        return data_frame(
            {
                "task": list(self.tasks),
                "estimate": self.estimate,
                "se": self.se,
                "n_items": self.n_items,
                "null": self.null,
                "statistic": self.statistic,
                "pvalue": self.pvalues,
                "p_adjusted": self.p_adjusted,
                "reject": self.reject,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
            }
        )


def romano_wolf(
    differences: Mapping[str, object],
    /,
    *,
    item_ids: Mapping[str, Sequence[Hashable] | np.ndarray] | None = None,
    null: float | Mapping[str, float] = 0.0,
    alternative: Alternative = "two-sided",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> SimultaneousResult:
    r"""Romano-Wolf step-down test and max-T simultaneous intervals for K task differences.

    Parameters
    ----------
    differences : mapping task name -> array_like (n_k,)
        Per-item differences of each task, candidate minus baseline (means over runs when
        there are several); at least 2 items per task.
    item_ids : mapping task name -> sequence of ids, optional
        The item of each difference (no repeats within a task). Tasks that share items
        (metrics on the same questions, overlapping subsets) are resampled jointly, which
        keeps their dependence; without ids the tasks are taken to be on disjoint items.
    null : float or mapping task name -> float
        The hypothesised difference (of each task). Non-inferiority with margin m: ``-m``
        and ``alternative="greater"``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the candidate is better (H0: difference <= null).
    n_resamples : int
        Bootstrap resamples B (at least 100).
    confidence_level : float
        Of the simultaneous intervals; ``alpha = 1 - confidence_level`` is the family-wise
        error rate of the decisions ``reject = p_adjusted <= alpha``.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    SimultaneousResult

    Raises
    ------
    DataError
        Non-numeric or NaN differences, a task with fewer than 2 items, ids of the wrong
        length or repeated, a ``null`` mapping missing a task, or a bad option.

    Notes
    -----
    Task k has :math:`n_k` differences with mean :math:`\bar d_k`, standard error
    :math:`s_k = \mathrm{sd}(d_k) / \sqrt{n_k}` and statistic
    :math:`t_k = (\bar d_k - \delta_k) / s_k`. A bootstrap resample gives
    :math:`t^*_k = (\bar d^*_k - \bar d_k) / s^*_k`, with :math:`s^*_k` from the resample's
    own items (:math:`s_k` when they do not vary; :math:`t^*_k = 0` when none is drawn).
    Tests are oriented: :math:`T_k = |t_k|` (two-sided), :math:`t_k` ("greater") or
    :math:`-t_k` ("less"), likewise :math:`T^*_k`; the unadjusted p-value is
    :math:`(1 + \#\{b : T^*_{k,b} \ge T_k\}) / (B + 1)`. Romano-Wolf step-down, with the
    hypotheses ordered :math:`T_{(1)} \ge \dots \ge T_{(K)}`:

    .. math:: p_{(j)} = \max_{i \le j} \frac{1 + \#\{b : \max_{m \ge i} T^*_{(m),b}
              \ge T_{(i)}\}}{B + 1}.

    It controls the family-wise error rate asymptotically under any dependence that the
    resampling reproduces and, unlike Bonferroni or Holm, does not pay for tasks that carry
    the same information (two identical tasks cost nothing). Max-T intervals
    :math:`\bar d_k \pm c\, s_k` (one-sided: one infinite end) use the single-step
    :math:`c = M_{(\lceil (1 - \alpha)(B + 1) \rceil)}`, an order statistic of
    :math:`M_b = \max_k T^*_{k,b}`, and cover all K differences with probability
    :math:`1 - \alpha`. The largest statistic is rejected exactly when its interval
    excludes its null; the step-down may reject more.

    Scheme ``"joint"`` (some item in several tasks): the N distinct items, in order of
    first appearance, are drawn with replacement, each bringing its difference in every
    task that has it; the engine sums rows :math:`(e_{i1..iK}, e^2_{i1..iK}, 1_{i1..iK})`,
    :math:`e_{ik} = d_{ik} - \bar d_k` (0 where item i is not in task k), so a task's mean
    is :math:`\bar d_k + E_k / C_k` with its own random count :math:`C_k`.
    ``"independent"``: each task's rows :math:`(e_{ik}, e^2_{ik})` on their own, in task
    order. The engine is exact and never holds a B x N matrix.

    References
    ----------
    Romano, J. P. & Wolf, M. (2005). Stepwise multiple testing as formalized data
    snooping. *Econometrica* 73(4), 1237-1282.
    Romano, J. P. & Wolf, M. (2016). Efficient computation of adjusted p-values for
    resampling-based stepdown multiple testing. *Statistics & Probability Letters* 113,
    38-40.
    Westfall, P. H. & Young, S. S. (1993). *Resampling-Based Multiple Testing*. Wiley.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> shared = g.normal(size=300)
    >>> d = {m: 0.25 + shared + 0.5 * g.normal(size=300) for m in ("em", "f1", "rouge")}
    >>> r = romano_wolf(d, item_ids={m: range(300) for m in d}, n_resamples=2000, rng=1)
    >>> r.scheme, r.n_rejected, bool(r.mean_abs_correlation > 0.7)
    ('joint', 3, True)
    """
    options = resampling_options(
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    tasks, values, ids, nulls = _romano_wolf_iv(differences, item_ids, null)
    return _romano_wolf(tasks, values, ids, nulls, options)


def _romano_wolf(
    tasks: tuple[str, ...],
    values: list[np.ndarray],
    ids: tuple[list[Hashable], ...] | None,
    nulls: np.ndarray,
    options: Resampling,
) -> SimultaneousResult:
    """The step-down test and max-T intervals of validated differences (see :func:`romano_wolf`)."""
    alternative, level, b = options.alternative, options.confidence_level, options.n_resamples
    seed = options.seed
    estimate, se, t, centred = _observed(values, nulls)
    degenerate = np.isinf(t)
    union = _union(ids)
    e1, e2, counts = _resampled_sums(centred, ids, union, b, options.rng)
    shift, t_star, guarded = _studentize(e1, e2, counts, se)
    oriented, oriented_star = _orient(t, alternative), _orient(t_star, alternative)
    active = np.flatnonzero(~degenerate)
    pvalues, p_adjusted = _step_down(oriented, oriented_star, active)
    alpha = round(1.0 - level, 12)
    maxima = np.sort(oriented_star[:, active].max(axis=1)) if active.size else np.empty(0)
    low, high, critical = _intervals(estimate, se, maxima, level, alternative)
    correlation, mean_abs = _correlation(shift)
    notes = [_scheme_note(union, ids is not None, counts.shape)]
    notes += _task_notes(tasks, estimate, degenerate, counts, guarded & (se > 0))
    if math.isinf(critical):
        notes.append(f"too few resamples for {level:.1%} intervals (unbounded); use more.")
    notes.append(
        "max-T intervals are single-step: the step-down may reject a task whose interval "
        "contains its null; for the largest statistic the two agree."
    )
    return SimultaneousResult(
        tasks=tasks,
        estimate=estimate,
        se=se,
        n_items=np.array([len(v) for v in values], dtype=np.int64),
        null=nulls,
        statistic=t,
        pvalues=pvalues,
        p_adjusted=p_adjusted,
        reject=np.asarray(p_adjusted <= alpha),
        ci_low=low,
        ci_high=high,
        critical_value=critical,
        correlation=correlation,
        mean_abs_correlation=mean_abs,
        scheme="independent" if union is None else "joint",
        alternative=alternative,
        confidence_level=level,
        alpha=alpha,
        n_resamples=b,
        seed=seed,
        notes=tuple(notes) + ((UNKNOWN_SEED,) if seed is None else ()),
        provenance=provenance(seed=seed),
    )


def _observed(
    values: list[np.ndarray], null: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Estimates, standard errors, t statistics and centred differences ``e = d - mean``.

    A task whose differences are all equal has ``se = 0``, ``e = 0`` exactly, and
    ``t = +-inf`` (0 when its estimate is the null).
    """
    flat = [bool(np.ptp(v) == 0) for v in values]
    estimate = np.array([v[0] if f else np.mean(v) for v, f in zip(values, flat, strict=True)])
    sd = np.array([0.0 if f else np.std(v, ddof=1) for v, f in zip(values, flat, strict=True)])
    se = sd / np.sqrt([len(v) for v in values])
    deviation = estimate - null
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, deviation / se, np.sign(deviation) * np.inf)
    t = np.where((se == 0) & (deviation == 0), 0.0, t)
    centred = [0.0 * v if f else v - m for v, f, m in zip(values, flat, estimate, strict=True)]
    return estimate, se, t, centred


def _resampled_sums(
    centred: list[np.ndarray],
    ids: tuple[list[Hashable], ...] | None,
    union: dict[Hashable, int] | None,
    b: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(B, K)`` resampled sums of e and e^2, and counts of each task's items."""
    k = len(centred)
    if union is None or ids is None:  # each task on its own, one engine call per task
        e1, e2 = np.empty((b, k)), np.empty((b, k))
        for j, e in enumerate(centred):
            e1[:, j], e2[:, j] = bootstrap_totals(np.column_stack([e, e * e]), b, rng).T
        return e1, e2, np.broadcast_to(np.array([len(e) for e in centred], np.float64), (b, k))
    rows = np.zeros((len(union), 3 * k))  # per item: e, e^2 and membership of every task
    for j, (e, task_ids) in enumerate(zip(centred, ids, strict=True)):
        where = [union[i] for i in task_ids]
        rows[where, j], rows[where, k + j], rows[where, 2 * k + j] = e, e * e, 1.0
    totals = bootstrap_totals(rows, b, rng)
    return totals[:, :k], totals[:, k : 2 * k], totals[:, 2 * k :]


def _studentize(
    e1: np.ndarray, e2: np.ndarray, counts: np.ndarray, se: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(mean* - mean, t*, guarded)``; guarded resamples' items do not vary (se* = se)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(counts > 0, e1 / counts, 0.0)
        squares = e2 - e1 * shift
        guarded = (counts < 2) | (squares <= ZERO_VARIANCE * e2)
        se_star = np.where(guarded, se, np.sqrt(squares / (counts * (counts - 1))))
        t_star = np.where(se_star > 0, shift / se_star, 0.0)
    return shift, t_star, guarded


def _step_down(
    oriented: np.ndarray, oriented_star: np.ndarray, active: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Unadjusted and Romano-Wolf adjusted p-values of the ``active`` tasks (NaN elsewhere)."""
    b, k = oriented_star.shape
    finite = np.where(np.isin(np.arange(k), active), oriented, 0.0)
    threshold = finite - TIE_TOLERANCE * np.maximum(1.0, np.abs(finite))
    pvalues, p_adjusted = np.full(k, np.nan), np.full(k, np.nan)
    pvalues[active] = (1 + np.sum(oriented_star[:, active] >= threshold[active], axis=0)) / (b + 1)
    order = active[np.argsort(-oriented[active], kind="stable")]
    if order.size:  # per resample, the largest statistic among the hypotheses still standing
        tail_max = np.maximum.accumulate(oriented_star[:, order[::-1]], axis=1)[:, ::-1]
        exceed = np.sum(tail_max >= threshold[order], axis=0)
        p_adjusted[order] = np.maximum.accumulate((1 + exceed) / (b + 1))
    return pvalues, p_adjusted


def _orient(t: np.ndarray, alternative: Alternative) -> np.ndarray:
    """Statistics whose large values are evidence for ``alternative``."""
    if alternative == "two-sided":
        return np.asarray(np.abs(t), dtype=np.float64)
    return t if alternative == "greater" else -t


def _intervals(
    estimate: np.ndarray, se: np.ndarray, maxima: np.ndarray, level: float, alternative: Alternative
) -> tuple[np.ndarray, np.ndarray, float]:
    """``estimate -/+ c se`` with ``c`` the ``ceil(level (B + 1))``-th smallest maximum."""
    rank = math.ceil(round(level * (len(maxima) + 1), 9))
    critical = float(maxima[rank - 1]) if rank <= len(maxima) else math.inf
    critical = critical if maxima.size else math.nan
    with np.errstate(invalid="ignore"):
        width = np.where(se > 0, critical * se, 0.0)
    low = estimate - width if alternative != "less" else np.full(len(se), -np.inf)
    high = estimate + width if alternative != "greater" else np.full(len(se), np.inf)
    return low, high, critical


def _correlation(shift: np.ndarray) -> tuple[np.ndarray, float]:
    """Correlation of the resampled task estimates, and its mean absolute off-diagonal."""
    z = shift - shift.mean(axis=0)
    cov = z.T @ z
    sd = np.sqrt(np.diag(cov))
    scale = np.outer(sd, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.clip(cov / scale, -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    corr[scale == 0] = np.nan
    off = corr[~np.eye(len(corr), dtype=bool)]
    off = off[np.isfinite(off)]
    return corr, float(np.mean(np.abs(off))) if off.size else math.nan


def _union(ids: tuple[list[Hashable], ...] | None) -> dict[Hashable, int] | None:
    """Row of every distinct item, in order of first appearance, when tasks share any."""
    if ids is None:
        return None
    items = dict.fromkeys(itertools.chain.from_iterable(ids))
    union = {item: row for row, item in enumerate(items)}
    return union if sum(map(len, ids)) > len(union) else None  # ids are unique per task


def _scheme_note(union: dict[Hashable, int] | None, has_ids: bool, shape: tuple[int, int]) -> str:
    b, k = shape
    if union is not None:
        return (
            f"joint resampling of the {len(union):,} distinct items of the {k} tasks ({b:,} "
            "resamples), keeping shared items' dependence; a task's resampled mean is its "
            "resampled total over its resampled count of items."
        )
    note = f"independent resampling of each task's items on their own ({b:,} resamples)."
    if not has_ids and k > 1:
        note += " No item ids given: tasks taken to be on disjoint items (else pass `item_ids`)."
    return note


def _task_notes(
    tasks: tuple[str, ...],
    estimate: np.ndarray,
    degenerate: np.ndarray,
    counts: np.ndarray,
    flat: np.ndarray,
) -> list[str]:
    """Tasks without a test, and resamples that drew none or one distinct value of a task."""
    notes = []
    empty, flat_count = np.sum(counts == 0, axis=0), np.sum(flat & (counts > 0), axis=0)
    for j, task in enumerate(tasks):
        if degenerate[j]:
            notes.append(
                f"task {task!r}: every item has the difference {estimate[j]:+.6g}, so the test "
                "is undefined (p = nan; left out of the step-down and the critical value)."
            )
        if empty[j]:
            notes.append(f"task {task!r}: {empty[j]:,} resamples drew none of its items (t* = 0).")
        if flat_count[j]:
            notes.append(
                f"task {task!r}: {flat_count[j]:,} resamples had fewer than two distinct values "
                "(their t* uses the observed standard error)."
            )
    return notes


# --- input validation ----------------------------------------------------------------------


def _romano_wolf_iv(
    differences: object, item_ids: object, null: object
) -> tuple[tuple[str, ...], list[np.ndarray], tuple[list[Hashable], ...] | None, np.ndarray]:
    """Validate the data arguments of :func:`romano_wolf`: tasks, values, ids and nulls."""
    if not isinstance(differences, Mapping):
        raise DataError(
            "`differences` must be a mapping task name -> per-item differences; got "
            f"{type(differences).__name__}."
        )
    if not differences:
        raise DataError("`differences` is empty: give the per-item differences of each task.")
    tasks = tuple(differences)
    bad = [task for task in tasks if not isinstance(task, str)]
    if bad:
        raise DataError(f"`differences` keys must be task names (strings); got {examples(bad)}.")
    ids = _ids_iv(item_ids, tasks)
    values = [
        _values_iv(task, differences[task], None if ids is None else ids[j])
        for j, task in enumerate(tasks)
    ]
    return tasks, values, ids, _null_iv(null, tasks)


def _keys_iv(mapping: Mapping[Any, Any], tasks: tuple[str, ...], what: str, fix: str) -> None:
    missing = [task for task in tasks if task not in mapping]
    if missing:
        raise DataError(f"{what} has no entry for task(s) {examples(missing)}; {fix}")
    unknown = [key for key in mapping if key not in tasks]
    if unknown:
        raise DataError(
            f"{what} has unknown task(s) {examples(unknown)}; the tasks are {examples(tasks)}."
        )


def _ids_iv(item_ids: object, tasks: tuple[str, ...]) -> tuple[list[Hashable], ...] | None:
    if item_ids is None:
        return None
    if not isinstance(item_ids, Mapping):
        raise DataError(
            f"`item_ids` must be a mapping task name -> ids; got {type(item_ids).__name__}."
        )
    _keys_iv(item_ids, tasks, "`item_ids`", "give the item ids of every task, or none.")
    out = []
    for task in tasks:
        raw, what = item_ids[task], f"`item_ids[{task!r}]`"
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
            raise DataError(f"{what} must be a sequence of item ids, one per value; got {raw!r}.")
        ids = raw.tolist() if isinstance(raw, np.ndarray) else list(raw)
        try:
            repeated = [item for item, count in Counter(ids).items() if count > 1]
        except TypeError:
            repeated = None
        if repeated is None or any(item is None for item in ids):
            raise DataError(f"{what} has missing (None) or unhashable ids; use strings or ints.")
        if repeated:
            raise DataError(
                f"{what} has {len(repeated)} repeated id(s) ({examples(repeated)}); each item "
                "may appear once per task: average repeated runs into one difference first."
            )
        out.append(ids)
    return tuple(out)


def _values_iv(task: str, raw: object, ids: list[Hashable] | None) -> np.ndarray:
    what = f"`differences[{task!r}]`"
    size = len(raw) if isinstance(raw, Sized) else -1

    def label(positions: np.ndarray) -> list[object]:
        if ids is not None and len(ids) == size:
            return [ids[int(p)] for p in positions]
        return [f"position {int(p)}" for p in positions]

    array = numeric_array(raw, what=what, label=label)
    if array.ndim != 1:
        raise DataError(
            f"{what} must be one-dimensional, one difference per item; got shape {array.shape}. "
            "Average several runs into per-item means first."
        )
    check_scores(array, what=what, label=label)
    if len(array) < 2:
        raise DataError(f"{what} has {len(array)} item(s); each task needs at least 2 items.")
    if ids is not None and len(ids) != len(array):
        raise DataError(
            f"`item_ids[{task!r}]` has {len(ids)} ids but {what} has {len(array)} values; give "
            "one id per difference, in the same order."
        )
    return array.astype(np.float64)


def _null_iv(null: object, tasks: tuple[str, ...]) -> np.ndarray:
    if isinstance(null, Mapping):
        _keys_iv(null, tasks, "`null`", "give one hypothesised difference per task, or one number.")
    raw = [null[task] for task in tasks] if isinstance(null, Mapping) else [null] * len(tasks)
    for task, value in zip(tasks, raw, strict=True):
        number = isinstance(value, (int, float, np.integer, np.floating))
        if isinstance(value, bool) or not number or not math.isfinite(cast(float, value)):
            raise DataError(
                f"`null` for task {task!r} must be a finite number (the hypothesised "
                f"difference); got {value!r}."
            )
    return np.array(raw, dtype=np.float64)
