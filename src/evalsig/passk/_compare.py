"""Paired comparison of two models' pass@k (pass^k, majority@k) on the same tasks:
:func:`compare_pass_at_k`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from evalsig.data.paired import OnMismatch, OnMissing, PairedScores
from evalsig.data.provenance import provenance
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    check_alternative,
    check_confidence_level,
    check_n_resamples,
    seeded,
)
from evalsig.inference.passk import (
    Estimator,
    PairedMethod,
    Ties,
    paired_over_tasks,
    spread_notes,
    standard_error_parts,
    task_estimates,
    within_task_variance,
)
from evalsig.passk._input import (
    RAGGED_NOTE_END,
    TooFewSamples,
    check_estimation,
    check_too_few,
    estimator_name,
    labeller,
    paired_counts,
    usable_on_both,
    used_clusters,
)
from evalsig.passk._results import PassAtKComparison, PassAtKTest

__all__ = ["compare_pass_at_k"]


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
    cluster: Any = None,
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
    cluster : str, sequence or mapping, optional
        The cluster of each task (repository, problem family): a column name of both
        files, labels in the baseline's task order, or a mapping ``task id -> label``;
        tables read with a cluster column bring their own. The test is then the
        cluster-robust CR2 t-test of the differences (Bell-McCaffrey degrees of freedom;
        needs ``method="paired-t"`` and at least 2 clusters).
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
    the units (with clusters, the clusters: CR2 standard error of the ``d_t``, see
    :func:`evalsig.inference.passk.paired_over_tasks`), so its standard error holds both models'
    sampling noise within tasks; ``se_within`` reports that part (``sqrt(sum_t (hat
    V_{b,t} + hat V_{c,t})) / T``). p-values are per k, not corrected for testing several
    k (the tests are strongly dependent).

    Examples
    --------
    >>> from evalsig.passk import SampleCounts
    >>> base = SampleCounts(n=[10] * 60, c=[i % 5 for i in range(60)])
    >>> cand = SampleCounts(n=[10] * 60, c=[i % 5 + (i % 3 == 0) for i in range(60)])
    >>> test = compare_pass_at_k(base, cand, 1)[1]
    >>> round(test.estimate, 4), test.method, test.pvalue < 0.001
    (0.0333, 'paired-t', True)
    >>> clustered = compare_pass_at_k(base, cand, 1, cluster=[i // 4 for i in range(60)])[1]
    >>> clustered.method, clustered.n_clusters, round(clustered.df, 1)
    ('cluster-cr2', 15, 14.0)
    """
    ks, estimator, ties = check_estimation(k, estimator, ties)
    alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    _check_method(method)
    check_too_few(too_few_samples)
    if method != "paired-t":
        n_resamples = check_n_resamples(n_resamples)
    paired, (nb, cb), (nc, cc) = _paired(
        baseline, candidate, on_missing, on_mismatch, cluster=cluster, method=method
    )
    codes = paired.cluster_codes
    label = labeller(paired.item_ids)
    sources = (paired.baseline.source, paired.candidate.source)
    generator, seed = seeded(rng)
    rows = []
    for each in ks:
        used, notes = usable_on_both(nb, nc, each, too_few_samples, label, sources, estimator)
        rows.append(
            _test_row(
                each, (nb[used], cb[used]), (nc[used], cc[used]), estimator, ties, method,
                alternative, level, n_resamples, generator, len(nb) - len(used), notes,
                None if codes is None else used_clusters(codes[used], label, used),
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


def _check_method(method: object) -> None:
    """``method`` is one of the paired tests over tasks."""
    if method not in ("paired-t", "permutation", "bootstrap"):
        raise DataError(
            f"`method` must be 'paired-t', 'permutation' or 'bootstrap'; got {method!r}."
        )


def _paired(
    baseline: Any,
    candidate: Any,
    on_missing: OnMissing,
    on_mismatch: OnMismatch,
    *,
    cluster: Any,
    method: PairedMethod,
) -> tuple[PairedScores, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Both models' sample counts aligned by task; clusters only for the paired t-test."""
    paired, base, cand = paired_counts(
        baseline, candidate, on_missing, on_mismatch, cluster=cluster
    )
    if paired.cluster_codes is not None and method != "paired-t":
        raise DataError(
            f"`method`={method!r} treats tasks as independent, but the tasks are clustered "
            "(`cluster` or a cluster column); use method='paired-t' (CLI: drop --method) for "
            "the cluster-robust CR2 test, or drop the clusters."
        )
    return paired, base, cand


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
    codes: np.ndarray | None,
) -> PassAtKTest:
    name = estimator_name(estimator, k)
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
        n_resamples=n_resamples, rng=rng, codes=codes,
    )  # fmt: skip
    notes = notes + list(test.notes) + spread_notes(d, f"difference of {name}", "test")
    variance = within_task_variance(*base, k, estimator=estimator, ties=ties)
    variance += within_task_variance(*cand, k, estimator=estimator, ties=ties)
    within, limit, more = standard_error_parts(
        d, variance, f"difference of {name}", se=None if codes is None else test.se
    )
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
        n_clusters=None if codes is None else int(codes.max()) + 1,
        n_resamples=test.n_resamples,
        notes=tuple(notes + more),
        _interval=test._interval,
    )
