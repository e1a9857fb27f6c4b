"""What pass@k reads: per-task sample counts from any accepted input, the two models' tasks
aligned, tasks with too few samples, the tasks' clusters, and the checks of ``k``."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from evalsig.data.loading import UNNAMED, load
from evalsig.data.paired import (
    OnMismatch,
    OnMissing,
    PairedScores,
    pair,
    table_cluster_codes,
)
from evalsig.data.provenance import in_memory_origin
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError
from evalsig.inference.passk import (
    Estimator,
    Ties,
    check_counts,
    check_estimator,
    check_k,
    check_ties,
    counts_from_samples,
)

__all__ = [
    "RAGGED_NOTE_END",
    "SampleCounts",
    "TooFewSamples",
    "check_estimation",
    "check_ks",
    "check_too_few",
    "counts",
    "estimator_name",
    "labeller",
    "paired_counts",
    "task_clusters",
    "task_table",
    "usable",
    "usable_on_both",
    "used_clusters",
]

TooFewSamples = Literal["error", "drop"]

RAGGED_NOTE_END = "per-item means are compared, each item weighing the same."
"""The end of :func:`evalsig.pair`'s note on ragged runs: true of per-item means, not of
pass@k (tasks with different numbers of samples are natural here), so it is left out."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleCounts:
    """Per task: ``n`` samples drawn, ``c`` of them correct (and the tasks' names).

    >>> from evalsig.passk import pass_at_k
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


def task_table(data: Any, name: str, *, cluster_column: str | None = None) -> ScoreTable:
    """Any accepted input as a :class:`ScoreTable` whose runs are samples (a file or
    DataFrame read with its ``cluster_column`` when one is named)."""
    if isinstance(data, SampleCounts):
        table = data.table(name)
    else:
        paths = isinstance(data, (str, os.PathLike)) or (
            isinstance(data, (list, tuple))
            and bool(data)
            and all(isinstance(p, (str, os.PathLike)) for p in data)
        )
        if not paths and (isinstance(data, np.ndarray) or _is_sequence(data)):
            n, c = counts_from_samples(data, source=f"`{name}`")
            table = SampleCounts(n=n, c=c).table(name, kind="array")
        elif cluster_column is not None:
            return load(data, name=name, cluster_column=cluster_column)
        else:
            return load(data, name=name)
    if cluster_column is not None:
        raise DataError(
            f"`cluster`={cluster_column!r} names a column, but `{name}` has no columns (an "
            "array, a list of lists or SampleCounts); pass one cluster label per task, or a "
            "mapping task id -> label."
        )
    return table


def _is_sequence(data: object) -> bool:
    return isinstance(data, Sequence) and not isinstance(data, (str, bytes, Mapping))


def paired_counts(
    baseline: Any,
    candidate: Any,
    on_missing: OnMissing,
    on_mismatch: OnMismatch,
    *,
    cluster: Any = None,
) -> tuple[PairedScores, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Both models' tables aligned by task (:func:`evalsig.pair`, which also takes the
    tasks' clusters: a column name, labels in the baseline's task order, or a mapping task
    id -> label), and each side's ``(n, c)`` in that order."""
    column = cluster if isinstance(cluster, str) else None
    paired = pair(
        task_table(baseline, "baseline", cluster_column=column),
        task_table(candidate, "candidate", cluster_column=column),
        clusters=None if column is not None else cluster,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
    )
    return paired, counts(paired.baseline), counts(paired.candidate)


def task_clusters(table: ScoreTable, cluster: Any) -> np.ndarray | None:
    """Integer cluster codes ``0..G-1`` of the table's tasks, from its cluster column or
    ``cluster`` (labels in task order, or a mapping task id -> label); None without any."""
    return table_cluster_codes(table, cluster, unit="task", drop="`cluster` (CLI: --cluster)")


def used_clusters(codes: np.ndarray, label: Callable[[int], str], used: np.ndarray) -> np.ndarray:
    """Cluster codes ``0..G-1`` of the tasks used (dropping tasks may empty a cluster); an
    error when they fall in one cluster."""
    _, recoded = np.unique(codes, return_inverse=True)
    if used.size and int(recoded.max()) < 1:
        raise DataError(
            f"the {used.size} task(s) with enough samples (e.g. {label(int(used[0]))}) are all "
            "in one cluster: a cluster-robust interval needs at least 2 clusters. Draw more "
            "samples of the tasks left out, or lower k."
        )
    return np.asarray(recoded, dtype=np.int64).reshape(-1)


def counts(table: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
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
        f"planning {estimator_name(estimator, plan)} (the within-task variance needs two "
        "disjoint sets of k samples)"
        if plan is not None
        else f"{estimator_name(estimator, k)}"
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


def usable_on_both(
    nb: np.ndarray,
    nc: np.ndarray,
    k: int,
    policy: TooFewSamples,
    label: Callable[[int], str],
    sources: tuple[str, str],
    estimator: Estimator,
    *,
    plan: int | None = None,
) -> tuple[np.ndarray, list[str]]:
    """The tasks (positions) with at least ``k`` samples on both sides, and the notes on
    those left out of either (:func:`usable` of the baseline's ``nb``, then the candidate's
    ``nc``)."""
    used_b, note_b = usable(nb, k, policy, label, sources[0], estimator, plan=plan)
    used_c, note_c = usable(nc, k, policy, label, sources[1], estimator, plan=plan)
    return np.flatnonzero(used_b & used_c), [n for n in (note_b, note_c) if n]


def check_ks(k: int | Sequence[int]) -> tuple[int, ...]:
    values = [k] if isinstance(k, (int, np.integer)) else list(k)
    if not values:
        raise DataError("`k` is empty; pass a number of samples, e.g. k=1 or k=[1, 5, 10].")
    checked = tuple(check_k(v) for v in values)
    if len(set(checked)) != len(checked):
        raise DataError(f"`k` lists a value twice ({list(checked)}); give each k once.")
    return checked


def check_estimation(
    k: int | Sequence[int], estimator: object, ties: object
) -> tuple[tuple[int, ...], Estimator, Ties]:
    """The checked ``k`` values, estimator and tie rule that every pass@k workflow takes."""
    return check_ks(k), check_estimator(estimator), check_ties(ties)


def check_too_few(policy: object) -> None:
    if policy not in ("error", "drop"):
        raise DataError(f"`too_few_samples` must be 'error' or 'drop'; got {policy!r}.")


def labeller(ids: np.ndarray | None) -> Callable[[int], str]:
    """How a message names the task at a position: its id, or its position."""
    if ids is None:
        return lambda i: f"task {i}"
    return lambda i: repr(str(ids[i]))


def estimator_name(estimator: str, k: int) -> str:
    """'pass@5', 'pass^5', 'majority@5'."""
    return estimator.replace("k", str(k))
