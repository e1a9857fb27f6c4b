"""pass@k (pass^k, majority@k) of one model over tasks: :func:`pass_at_k`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from evalsig._deprecation import renamed
from evalsig.data.provenance import provenance
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError
from evalsig.inference._common import (
    ConfidenceInterval,
    check_confidence_level,
    check_n_resamples,
    seeded,
)
from evalsig.inference.passk import (
    Estimator,
    Interval,
    Ties,
    mean_over_tasks,
    standard_error_parts,
    task_estimates,
    within_task_variance,
)
from evalsig.passk._input import (
    TooFewSamples,
    check_estimation,
    check_too_few,
    counts,
    estimator_name,
    labeller,
    task_clusters,
    task_table,
    usable,
    used_clusters,
)
from evalsig.passk._results import PassAtKEstimate, PassAtKResult

__all__ = ["pass_at_k"]


@renamed(interval="method")
def pass_at_k(
    data: Any,
    /,
    k: int | Sequence[int],
    *,
    estimator: Estimator = "pass@k",
    method: Interval = "t",
    confidence_level: float = 0.95,
    cluster: Any = None,
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
        Each task's 0/1 scores of its samples (see :mod:`evalsig.passk`); a 2-D array is
        ``tasks x samples``.
    k : int or sequence of int
        Samples per attempt; one row of the result per k.
    estimator : {"pass@k", "pass^k", "majority@k"}
        Some of k samples correct (Chen et al. 2021), all of them (Yao et al. 2024), most of
        them (a tie counts as ``ties`` says).
    method : {"t", "bootstrap"}
        t over tasks (``df = T - 1``), or a BCa bootstrap over tasks (from 50 tasks; with
        fewer the t interval is used, and the row says why).
    confidence_level : float
    cluster : str, sequence or mapping, optional
        The cluster of each task (repository, problem family): a column name of a file or
        DataFrame, labels in task order, or a mapping ``task id -> label``; a table read
        with a cluster column brings its own. The interval is then cluster-robust: CR2 with
        Bell-McCaffrey degrees of freedom, clusters as the units (needs ``method="t"``
        and at least 2 clusters; about 30 for reliable results).
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
        sample, fewer than 2 tasks, bad cluster labels or a single cluster, clusters with
        the bootstrap interval.

    Notes
    -----
    Per task, ``hat p_t`` is the U-statistic of :mod:`evalsig.inference.passk`; the score
    is ``bar p = mean_t hat p_t``, ``se = s / sqrt(T)`` with ``s`` the SD of the ``hat p_t``
    (``E[s^2 / T] = Var(bar p)`` over tasks drawn at random, within-task noise included),
    and the t interval ``bar p +/- t_{T-1} se``, cut to [0, 1] (noted when it is). With
    clusters ``se`` is the CR2 standard error of the intercept-only regression on the
    ``hat p_t`` (:func:`evalsig.inference.passk.mean_over_tasks`), on ``t`` with Bell-McCaffrey
    degrees of freedom: ``s / sqrt(T)`` assumes independent tasks and is too small when
    tasks of a cluster are correlated. ``se_within = sqrt(sum_t hat V_t) / T`` with
    ``hat V_t`` the unbiased within-task variance (tasks with ``n_t >= 2k``), and
    ``se_limit = sqrt(max(0, se^2 - se_within^2))``.

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
    regression with multi-stage samples. *Survey Methodology* 28(2), 169-181.

    Examples
    --------
    >>> base = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 1]] * 5
    >>> row = pass_at_k(base, 1, cluster=[t % 10 for t in range(20)])[1]
    >>> row.method, row.n_clusters, round(row.estimate, 4)
    ('cluster-cr2', 10, 0.5625)
    """
    ks, estimator, ties = check_estimation(k, estimator, ties)
    level = check_confidence_level(confidence_level)
    if method not in ("t", "bootstrap"):
        raise DataError(f"`method` must be 't' or 'bootstrap'; got {method!r}.")
    check_too_few(too_few_samples)
    if method == "bootstrap":
        n_resamples = check_n_resamples(n_resamples)
    table, codes = _tasks(data, cluster, method)
    n, c = counts(table)
    label = labeller(table.item_ids)
    generator, seed = seeded(rng)
    rows = []
    for each in ks:
        keep, note = usable(n, each, too_few_samples, label, table.source, estimator)
        used = np.flatnonzero(keep)
        rows.append(
            _estimate_row(
                each, n[used], c[used], estimator, ties, method, level, n_resamples, generator,
                used=used, n_dropped=len(n) - len(used), note=note,
                codes=None if codes is None else used_clusters(codes[used], label, used),
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


def _tasks(data: Any, cluster: Any, interval: Interval) -> tuple[ScoreTable, np.ndarray | None]:
    """The tasks' samples, and their cluster codes when the interval can use them."""
    table = task_table(data, "scores", cluster_column=cluster if isinstance(cluster, str) else None)
    codes = task_clusters(table, cluster)
    if codes is not None and interval == "bootstrap":
        raise DataError(
            "`method`='bootstrap' resamples tasks as if independent, but the tasks are "
            "clustered (`cluster` or a cluster column); use method='t' (CLI: drop "
            "--interval bootstrap) for the cluster-robust CR2 interval, or drop the clusters."
        )
    return table, codes


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
    codes: np.ndarray | None,
) -> PassAtKEstimate:
    name = estimator_name(estimator, k)
    estimates = task_estimates(n, c, k, estimator=estimator, ties=ties)
    if len(estimates) < 2:
        raise DataError(
            f"{name} over {len(estimates)} task(s): the standard error over tasks needs at "
            "least 2 tasks with k samples or more."
        )
    mean = mean_over_tasks(
        estimates, method=interval, confidence_level=level, n_resamples=n_resamples,
        rng=rng, name=name, codes=codes,
    )  # fmt: skip
    variance = within_task_variance(n, c, k, estimator=estimator, ties=ties)
    within, limit, more = standard_error_parts(
        estimates, variance, name, se=None if codes is None else mean.se
    )
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
        n_clusters=None if codes is None else int(codes.max()) + 1,
        n_resamples=mean.n_resamples,
        notes=tuple([note] if note else []) + mean.notes + tuple(more),
        task_estimates=estimates,
        used=used,
        _interval=mean.interval,
    )
