r"""Unbiased per-task estimators of pass@k, pass^k and majority@k, and their variances.

A task was attempted ``n`` times (samples), ``c`` of them correct (0/1 scores). Each
estimator is the average, over all ``C(n, k)`` subsets of ``k`` of the task's samples, of
a kernel of the subset: a U-statistic of degree ``k``, unbiased for the task's true value
when the samples are independent draws. With ``x`` correct samples in the subset:

* pass@k: ``h = 1[x >= 1]``, some sample is correct (Chen et al. 2021);
* pass^k: ``h = 1[x = k]``, every sample is correct (Yao et al. 2024, tau-bench);
* majority@k: ``h = 1[x > k/2]``, most samples are correct; a tie (``x = k/2``, even k)
  counts 1/2 (``ties="half"``: a tie broken at random) or 0 (``ties="fail"``).

Averaging over subsets is averaging over ``x ~ Hypergeometric(n, c, k)``; pass@k and
pass^k have the closed forms ``1 - C(n-c, k)/C(n, k)`` and ``C(c, k)/C(n, k)``, computed
here as products of ``k`` (or ``c``) ratios of integers, never from factorials.

The sampling variance of a task's estimator (Hoeffding 1948) is

.. math::

    \operatorname{Var}_n(\hat p) = \sum_{j=1}^{k}
        \frac{\binom{k}{j}\binom{n-k}{k-j}}{\binom{n}{k}}\, \zeta_j,
    \qquad \zeta_j = \operatorname{Cov}\{h(S_1), h(S_2)\},\ |S_1 \cap S_2| = j,

and ``zeta_j = E[h(S_1) h(S_2)] - theta^2``. Each ``E[h(S_1) h(S_2)]`` is itself the mean
of a kernel of ``2k - j`` samples, so it has an unbiased U-statistic estimate whenever the
task has ``n >= 2k`` samples (and none exists below: ``theta^2`` is a polynomial of degree
``2k`` in the task's success rate). From those, :func:`within_task_variance` estimates the
variance at the task's own ``n`` without bias (``hat p^2`` minus the estimate of
``theta^2``), and :func:`overlap_covariances` with :func:`u_statistic_variance` projects it
to any other number of samples.

References
----------
Chen, M. et al. (2021). Evaluating large language models trained on code.
arXiv:2107.03374 (the unbiased pass@k estimator and its numpy implementation).

Yao, S., Shinn, N., Razavi, P. & Narasimhan, K. (2024). tau-bench: a benchmark for
tool-agent-user interaction in real-world domains. arXiv:2406.12045 (pass^k).

Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution.
*Annals of Mathematical Statistics* 19(3), 293-325.

Lee, A. J. (1990). *U-Statistics: Theory and Practice*. Marcel Dekker (Section 1.3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Literal, cast, get_args

import numpy as np

from evalsig.errors import DataError, examples
from evalsig.inference._common import check_choice
from evalsig.inference.passk_tasks import (
    Interval,
    PairedMethod,
    TaskMean,
    mean_over_tasks,
    paired_over_tasks,
    spread_notes,
    standard_error_parts,
)

__all__ = [
    "ESTIMATORS",
    "Estimator",
    "Interval",
    "PairedMethod",
    "TaskMean",
    "Ties",
    "check_counts",
    "check_estimator",
    "check_k",
    "counts_from_samples",
    "kernel",
    "majority_at_k",
    "mean_over_tasks",
    "overlap_covariances",
    "overlap_weights",
    "paired_over_tasks",
    "pass_at_k",
    "pass_hat_k",
    "spread_notes",
    "standard_error_parts",
    "task_estimates",
    "u_statistic_variance",
    "within_task_variance",
]

Estimator = Literal["pass@k", "pass^k", "majority@k"]
"""pass@k: some of k samples is correct; pass^k: all k are; majority@k: most of k are."""
ESTIMATORS: tuple[str, ...] = get_args(Estimator)

Ties = Literal["half", "fail"]
"""How majority@k counts a tie (k/2 of k samples correct, k even): 1/2 or 0."""
TIES: tuple[str, ...] = get_args(Ties)


# --- validation ----------------------------------------------------------------------------


def check_estimator(estimator: object) -> Estimator:
    return cast(Estimator, check_choice(estimator, ESTIMATORS, "`estimator`"))


def check_ties(ties: object) -> Ties:
    if ties not in TIES:
        raise DataError(
            f"`ties` must be 'half' (a tie of majority@k counts 1/2) or 'fail' (counts 0); "
            f"got {ties!r}."
        )
    return ties  # type: ignore[return-value]


def check_k(k: object) -> int:
    """A number of samples per subset: a positive integer."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise DataError(f"`k` must be a positive integer (samples per attempt); got {k!r}.")
    return int(k)


def check_counts(n: object, c: object, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` and ``c`` as int64 arrays of one length, with ``k <= n`` and ``0 <= c <= n``."""
    sizes, correct = _integers(n, "n"), _integers(c, "c")
    if sizes.shape != correct.shape:
        raise DataError(
            f"`n` and `c` must have one entry per task each; got {sizes.size} and "
            f"{correct.size} entries."
        )
    bad = np.flatnonzero((correct < 0) | (correct > sizes))
    if bad.size:
        i = int(bad[0])
        raise DataError(
            f"task {i} has c = {correct[i]} correct of n = {sizes[i]} samples; c must lie in "
            f"0..n ({bad.size} task(s) do not)."
        )
    short = np.flatnonzero(sizes < k)
    if short.size:
        i = int(short[0])
        raise DataError(
            f"task {i} has n = {sizes[i]} samples, fewer than k = {k} ({short.size} task(s) "
            "do); an estimate of k attempts needs at least k samples of each task."
        )
    return sizes, correct


def _integers(values: object, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise DataError(f"`{name}` must be one count per task (1-D); got shape {array.shape}.")
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
        return array.astype(np.int64)
    raise DataError(f"`{name}` must hold whole numbers of samples; got {array[:3]!r}...")


# --- closed forms --------------------------------------------------------------------------


def _avoid(n: np.ndarray, marked: np.ndarray, m: int) -> np.ndarray:
    """``C(n - marked, m) / C(n, m)``: the chance that ``m`` of ``n`` samples, drawn without
    replacement, miss all ``marked`` ones (``m <= n``).

    A product of ratios of integers, ``prod_{i<m} (n - marked - i) / (n - i)`` (m terms) or
    ``prod_{t<marked} (n - t - m) / (n - t)`` (marked terms, Chen et al.'s form), whichever
    is shorter; each ratio is exact to half an ulp. Zero when ``n - marked < m``.
    """
    return _products(n, marked, m)[0]


def _hit(n: np.ndarray, marked: np.ndarray, m: int) -> np.ndarray:
    """``1 - C(n - marked, m) / C(n, m)``: the chance that ``m`` draws hit a marked sample.

    Summed as ``sum_i x_i prod_{l<i} (1 - x_l)`` (``1 - prod (1 - x_i)`` telescoped), a sum
    of terms that are never negative: no cancellation, so pass@1 is ``c / n`` to the last bit
    and a small pass@k keeps its relative precision.
    """
    return _products(n, marked, m)[1]


def _products(n: np.ndarray, marked: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(avoid, hit)`` of :func:`_avoid` and :func:`_hit`, in one pass of the shorter form."""
    avoid, hit = np.ones(n.shape), np.zeros(n.shape)
    most = int(marked.max()) if marked.size else 0
    if m <= most:  # draw i: miss with (n - marked - i) / (n - i), hit with marked / (n - i)
        for i in range(m):
            hit += avoid * (marked / (n - i))
            avoid *= (n - marked - i) / (n - i)
    else:  # marked sample t is missed with (n - t - m) / (n - t), its first hit m / (n - t)
        for t in range(most):
            live = t < marked
            width = np.maximum(n - t, 1)
            hit += np.where(live, avoid * (m / width), 0.0)
            avoid *= np.where(live, (n - t - m) / width, 1.0)
    certain = n - marked < m
    avoid[certain], hit[certain] = 0.0, 1.0
    np.minimum(hit, 1.0, out=hit)  # a sum of terms adding up to at most 1, up to rounding
    return avoid, hit


def _by_pair(
    n: np.ndarray, c: np.ndarray, compute: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """``compute(n, c)``, on the distinct ``(n, c)`` pairs only when tasks repeat them (a
    benchmark of 100,000 tasks with 100 samples each has at most 5,151), spread back to
    every task: the same numbers, since each task's are computed alone."""
    if n.size < 1024:
        return compute(n, c)
    width = int(c.max()) + 1
    key = n * width + c  # one integer per pair (c <= n)
    top = int(key.max()) + 1
    if top <= max(4 * n.size, 1 << 16):  # a table of the keys: no sort
        seen = np.zeros(top, dtype=bool)
        seen[key] = True
        distinct = np.flatnonzero(seen)
        inverse = (np.cumsum(seen) - 1)[key]
    else:
        distinct, inverse = np.unique(key, return_inverse=True)
    if 2 * distinct.size > n.size:
        return compute(n, c)
    spread: np.ndarray = compute(distinct // width, distinct % width)[inverse]
    return spread


def pass_at_k(n: object, c: object, k: int) -> np.ndarray:
    """Per-task pass@k, ``1 - C(n - c, k) / C(n, k)`` (Chen et al. 2021).

    Examples
    --------
    >>> pass_at_k([10, 10, 10], [3, 3, 3], 1).tolist()
    [0.3, 0.3, 0.3]
    >>> [round(float(pass_at_k([10], [3], k)[0]), 6) for k in (1, 5, 10)]
    [0.3, 0.916667, 1.0]
    """
    k = check_k(k)
    sizes, correct = check_counts(n, c, k)
    return _by_pair(sizes, correct, lambda n, c: _hit(n, c, k))


def pass_hat_k(n: object, c: object, k: int) -> np.ndarray:
    """Per-task pass^k, ``C(c, k) / C(n, k)``: all of k samples correct (tau-bench).

    Examples
    --------
    >>> [round(float(pass_hat_k([10], [7], k)[0]), 6) for k in (1, 2, 8)]
    [0.7, 0.466667, 0.0]
    """
    k = check_k(k)
    sizes, correct = check_counts(n, c, k)
    return _by_pair(sizes, correct, lambda n, c: _avoid(n, n - c, k))


def kernel(estimator: Estimator, k: int, ties: Ties = "half") -> np.ndarray:
    """``h(x)`` for ``x = 0 .. k`` correct samples of a k-subset.

    >>> kernel("majority@k", 4).tolist()
    [0.0, 0.0, 0.5, 1.0, 1.0]
    """
    x = np.arange(k + 1)
    h: np.ndarray
    if estimator == "pass@k":
        h = (x >= 1).astype(float)
        return h
    if estimator == "pass^k":
        h = (x == k).astype(float)
        return h
    h = (2 * x > k).astype(float)
    if ties == "half":
        h[2 * x == k] = 0.5
    return h


def _hypergeometric_mean(
    n: np.ndarray, c: np.ndarray, draws: int, values: np.ndarray
) -> np.ndarray:
    """``sum_x P(X = x) values[x]`` for ``X ~ Hypergeometric(n, c, draws)``, per task.

    The pmf at each task's mode comes from scipy (Boost); the others follow from it by the
    ratios ``P(x + 1) / P(x) = (c - x)(draws - x) / ((x + 1)(n - c - draws + x + 1))``, up
    and down, so each is within a few ulps per step and no (tasks x draws) array is made.
    """
    from scipy import stats

    low = np.maximum(0, draws - (n - c))
    high = np.minimum(draws, c)
    mode = np.clip((draws + 1) * (c + 1) // (n + 2), low, high)
    at_mode = stats.hypergeom.pmf(mode, n, c, draws)
    total = at_mode * values[mode]
    p, x = at_mode.copy(), mode.copy()
    for _ in range(draws):  # upwards from the mode; past the support p is 0
        p *= np.maximum(c - x, 0) * np.maximum(draws - x, 0) / ((x + 1) * (n - c - draws + x + 1))
        x += 1
        total += p * values[np.minimum(x, draws)]
    p, x = at_mode.copy(), mode.copy()
    for _ in range(draws):  # downwards
        p *= (
            np.maximum(x, 0)
            * np.maximum(n - c - draws + x, 0)
            / (np.maximum(c - x + 1, 1) * np.maximum(draws - x + 1, 1))
        )
        x -= 1
        total += p * values[np.maximum(x, 0)]
    mean: np.ndarray = total
    return mean


def majority_at_k(n: object, c: object, k: int, *, ties: Ties = "half") -> np.ndarray:
    """Per-task majority@k: the chance that most of k samples drawn without replacement
    are correct, ``sum_x P(X = x) h(x)`` with ``X ~ Hypergeometric(n, c, k)``.

    Examples
    --------
    >>> round(float(majority_at_k([10], [6], 3)[0]), 6)   # P(X >= 2)
    0.666667
    >>> majority_at_k([4], [2], 2).tolist(), majority_at_k([4], [2], 2, ties="fail").tolist()
    ([0.5], [0.16666666666666666])
    """
    k, ties = check_k(k), check_ties(ties)
    sizes, correct = check_counts(n, c, k)
    h = kernel("majority@k", k, ties)
    return _by_pair(sizes, correct, lambda n, c: _hypergeometric_mean(n, c, k, h))


def task_estimates(
    n: object, c: object, k: int, *, estimator: Estimator = "pass@k", ties: Ties = "half"
) -> np.ndarray:
    """Per-task estimates of ``estimator`` (see the module's docstring)."""
    estimator = check_estimator(estimator)
    if estimator == "pass@k":
        return pass_at_k(n, c, k)
    if estimator == "pass^k":
        return pass_hat_k(n, c, k)
    return majority_at_k(n, c, k, ties=ties)


# --- variances -----------------------------------------------------------------------------


def _avoid_sequence(n: np.ndarray, marked: np.ndarray, k: int) -> np.ndarray:
    """``(T, k + 1)``: ``C(n - marked, m) / C(n, m)`` for ``m = k .. 2k`` (tasks with
    ``n >= 2k``; others get NaN)."""
    ok = n >= 2 * k
    safe_n = np.where(ok, n, 2 * k)
    safe_marked = np.where(ok, marked, 0)
    out = np.empty((n.size, k + 1))
    running = np.ones(n.shape)
    for i in range(2 * k):
        if i >= k:
            out[:, i - k] = running
        running *= (safe_n - safe_marked - i) / (safe_n - i)
    out[:, k] = running
    np.maximum(out, 0.0, out=out)  # a ratio past n - marked is negative: the product is 0
    out[~ok] = np.nan
    return out


@cache
def _pair_table(estimator: Estimator, k: int, ties: Ties, j: int) -> np.ndarray:
    """``G_j[y]``, ``y = 0 .. 2k - j``: the mean of ``h(x_1) h(x_2)`` over two k-subsets
    sharing ``j`` samples, drawn from ``2k - j`` samples of which ``y`` are correct.

    Of the ``y`` correct samples, ``a`` fall in the shared ``j``, ``b`` in the first
    subset's own ``k - j`` and ``y - a - b`` in the second's (multivariate hypergeometric),
    so ``x_1 = a + b`` and ``x_2 = y - b``.
    """
    h = kernel(estimator, k, ties)
    m, own = 2 * k - j, k - j
    y = np.arange(m + 1)[:, None, None]
    a = np.arange(j + 1)[None, :, None]
    b = np.arange(own + 1)[None, None, :]
    # log C(., .) is -inf where a count is impossible (e < 0 or e > own): weight 0
    log_p = _log_comb(j, a) + _log_comb(own, b) + _log_comb(own, y - a - b) - _log_comb(m, y)
    possible = np.isfinite(log_p)
    weight = np.exp(np.where(possible, log_p, -np.inf))
    x1 = np.where(possible, a + b, 0)
    x2 = np.where(possible, y - b, 0)  # a + e <= k where possible
    table: np.ndarray = (weight * h[x1] * h[x2]).sum(axis=(1, 2))
    return table


def _log_comb(n: int | np.ndarray, r: np.ndarray) -> np.ndarray:
    """``log C(n, r)``, ``-inf`` outside ``0 <= r <= n``."""
    from scipy import special

    n_arr = np.broadcast_to(np.asarray(n, dtype=float), np.shape(r))
    r_arr = np.asarray(r, dtype=float)
    inside = (r_arr >= 0) & (r_arr <= n_arr)
    rr = np.where(inside, r_arr, 0.0)
    value = special.gammaln(n_arr + 1) - special.gammaln(rr + 1) - special.gammaln(n_arr - rr + 1)
    return np.where(inside, value, -np.inf)


def _pair_means(
    n: np.ndarray,
    c: np.ndarray,
    k: int,
    estimator: Estimator,
    ties: Ties,
    *,
    disjoint_only: bool = False,
) -> np.ndarray:
    """``(T, k + 1)``: unbiased estimates of ``E[h(S_1) h(S_2)]`` for overlaps ``j = 0 .. k``
    (tasks with ``n >= 2k``; others NaN). ``disjoint_only``: only ``j = 0`` is wanted (the
    other columns of majority@k are then left NaN)."""
    ok = n >= 2 * k
    out = np.full((n.size, k + 1), np.nan)
    if not ok.any():
        return out
    sizes, correct = n[ok], c[ok]
    if estimator == "pass^k":  # E[h h] = chance that the 2k - j samples are all correct
        avoid = _avoid_sequence(sizes, sizes - correct, k)
        out[ok] = avoid[:, ::-1]
    elif estimator == "pass@k":  # E[h h] = 1 - 2 r_k + r_{2k-j}
        avoid = _avoid_sequence(sizes, correct, k)
        out[ok] = 1.0 - 2.0 * avoid[:, :1] + avoid[:, ::-1]
    else:
        for j in range(1 if disjoint_only else k + 1):
            table = _pair_table(estimator, k, ties, j)
            out[ok, j] = _hypergeometric_mean(sizes, correct, 2 * k - j, table)
    return out


def within_task_variance(
    n: object, c: object, k: int, *, estimator: Estimator = "pass@k", ties: Ties = "half"
) -> np.ndarray:
    """Unbiased estimate of each task's sampling variance ``Var_n(hat p)`` at its own n.

    ``hat p^2`` minus the U-statistic estimate of ``theta^2`` (the mean of ``h(S_1)
    h(S_2)`` over disjoint pairs of k-subsets); it needs ``n >= 2k`` samples, and tasks with
    fewer get NaN. For pass@k this is ``r_k^2 - r_{2k}``, ``r_m = C(n-c, m)/C(n, m)``, never
    negative; majority@k's estimate may be slightly negative for a task (it is unbiased).

    Examples
    --------
    >>> v = within_task_variance([10, 1], [3, 1], 1)   # c (n - c) / (n^2 (n - 1)), and NaN
    >>> round(float(v[0]), 12), bool(np.isnan(v[1]))
    (0.023333333333, True)
    """
    k, ties = check_k(k), check_ties(ties)
    estimator = check_estimator(estimator)
    sizes, correct = check_counts(n, c, k)
    estimate = task_estimates(sizes, correct, k, estimator=estimator, ties=ties)

    def disjoint(n: np.ndarray, c: np.ndarray) -> np.ndarray:
        return _pair_means(n, c, k, estimator, ties, disjoint_only=True)[:, 0]

    variance: np.ndarray = estimate**2 - _by_pair(sizes, correct, disjoint)
    return variance


def overlap_covariances(
    n: object, c: object, k: int, *, estimator: Estimator = "pass@k", ties: Ties = "half"
) -> np.ndarray:
    """``(T, k)``: unbiased estimates of ``zeta_j``, ``j = 1 .. k``, per task (NaN rows for
    tasks with fewer than 2k samples); see :func:`u_statistic_variance`."""
    k, ties = check_k(k), check_ties(ties)
    estimator = check_estimator(estimator)
    sizes, correct = check_counts(n, c, k)
    pairs = _by_pair(sizes, correct, lambda n, c: _pair_means(n, c, k, estimator, ties))
    zeta: np.ndarray = pairs[:, 1:] - pairs[:, :1]
    return zeta


def overlap_weights(k: int, n_samples: int) -> np.ndarray:
    """``C(k, j) C(n - k, k - j) / C(n, k)`` for ``j = 1 .. k``: the chance that two
    k-subsets of n samples drawn independently share exactly j samples.

    >>> overlap_weights(2, 4).tolist()
    [0.6666666666666666, 0.16666666666666666]
    """
    k = check_k(k)
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
        raise DataError(f"`n_samples` must be a whole number; got {n_samples!r}.")
    if n_samples < k:
        raise DataError(f"`n_samples` = {n_samples} is fewer than k = {k}.")
    total = math.comb(int(n_samples), k)
    return np.array(
        [math.comb(k, j) * math.comb(int(n_samples) - k, k - j) / total for j in range(1, k + 1)]
    )


def u_statistic_variance(zeta: np.ndarray, k: int, n_samples: int) -> np.ndarray:
    """``sum_j w_j(n) zeta_j``: the variance of the estimator from ``n_samples`` samples,
    given ``zeta`` (``(..., k)``, e.g. from :func:`overlap_covariances` or their mean over
    tasks). Unbiased when ``zeta`` is; it falls roughly as ``k^2 zeta_1 / n``.

    >>> zeta = overlap_covariances([10], [3], 1)
    >>> round(float(u_statistic_variance(zeta, 1, 10)[0]), 12)    # at the observed n
    0.023333333333
    >>> round(float(u_statistic_variance(zeta, 1, 40)[0]), 12)    # with 4x the samples
    0.005833333333
    """
    weights = overlap_weights(k, n_samples)
    variance: np.ndarray = np.asarray(zeta, dtype=float) @ weights
    return variance


# --- samples -------------------------------------------------------------------------------


def counts_from_samples(samples: Any, *, source: str = "`scores`") -> tuple[np.ndarray, np.ndarray]:
    """``(n, c)`` per task from a ``tasks x samples`` array of 0/1 scores, or one sequence
    of sample scores per task (tasks may have different numbers of them).

    A 1-D array is one sample per task. NaN (a missing sample) and scores other than 0 and
    1 are errors naming the task.

    >>> counts_from_samples([[1, 0, 1], [0, 0]])
    (array([3, 2]), array([2, 0]))
    """
    rows = _sample_rows(samples, source)
    n = np.array([row.size for row in rows], dtype=np.int64)
    empty = np.flatnonzero(n == 0)
    if empty.size:
        raise DataError(f"{source}: task(s) at position {examples(empty)} have no samples.")
    c = np.array([_correct(row, i, source) for i, row in enumerate(rows)], dtype=np.int64)
    return n, c


def _sample_rows(samples: Any, source: str) -> list[np.ndarray]:
    def nested(x: object) -> bool:
        return isinstance(x, (np.ndarray, Sequence)) and not isinstance(x, (str, bytes))

    if isinstance(samples, np.ndarray) or not any(nested(x) for x in samples):
        matrix = np.asarray(samples)
        if matrix.ndim == 1:
            matrix = matrix[:, None]  # one sample per task
        if matrix.ndim != 2 or matrix.size == 0:
            raise DataError(
                f"{source} must be tasks x samples (2-D) with at least one task and sample; "
                f"got shape {matrix.shape}."
            )
        return list(matrix)
    if not all(nested(x) for x in samples):
        raise DataError(
            f"{source} mixes scores and lists of scores; give one list of sample scores per task."
        )
    return [np.asarray(x) for x in samples]


def _correct(row: np.ndarray, task: int, source: str) -> int:
    """Correct samples of one task's 0/1 scores; NaN or other values are errors."""
    if row.dtype.kind == "b":
        return int(row.sum())
    try:
        values = row.astype(np.float64)
    except (TypeError, ValueError):
        raise DataError(
            f"{source}: task {task} has non-numeric sample scores ({examples(row)}); pass 0/1 "
            "scores."
        ) from None
    missing = np.isnan(values)
    if missing.any():
        raise DataError(
            f"{source}: task {task} has {int(missing.sum())} missing (NaN) sample score(s). "
            "pass@k needs every drawn sample scored: score the missing ones (a failed "
            "attempt is a 0), or give tasks different numbers of samples with a list of "
            "lists or a mapping {task: [scores]} instead of padding with NaN."
        )
    bad = (values != 0) & (values != 1)
    if bad.any():
        raise DataError(
            f"{source}: task {task} has sample scores other than 0 and 1 "
            f"({examples(values[bad])}); pass@k counts correct samples: turn scores into "
            "0/1 first (e.g. score >= threshold)."
        )
    return int(values.sum())
