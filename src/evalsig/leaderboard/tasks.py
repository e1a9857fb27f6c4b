"""Multi-task leaderboards: a table per task and an aggregate that keeps the paired structure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION
from evalsig.data.models import ModelScores, align_models
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import provenance
from evalsig.errors import DataError, examples
from evalsig.inference.allpairs import PairTests, model_means, pair_tests
from evalsig.leaderboard.board import (
    Correction,
    Leaderboard,
    check_clusters,
    leaderboard,
    leaderboard_from_tests,
)
from evalsig.leaderboard.intervals import aggregate_intervals, score_intervals
from evalsig.result import Result

__all__ = ["TaskLeaderboards", "leaderboard_tasks"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TaskLeaderboards(Result):
    """One leaderboard per task, and the aggregate over tasks."""

    kind: ClassVar[str] = "leaderboard-tasks"

    tasks: dict[str, Leaderboard]
    aggregate: Leaderboard

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "leaderboard-tasks",
            "schema_version": SCHEMA_VERSION,
            "aggregate": self.aggregate.to_dict(),
            "tasks": [board.to_dict() for board in self.tasks.values()],
        }

    def to_frame(self) -> Any:
        """Each task's leaderboard rows under one another: task, then the columns of
        :meth:`Leaderboard.to_frame`. The aggregate is ``aggregate.to_frame()``."""
        from evalsig._frame import stacked

        frames = [board.to_frame() for board in self.tasks.values()]
        return stacked(frames, column="task", keys=list(self.tasks))

    def pairs_frame(self) -> Any:
        """Each task's pairs under one another: task, then the columns of
        :meth:`Leaderboard.pairs_frame`."""
        from evalsig._frame import stacked

        frames = [board.pairs_frame() for board in self.tasks.values()]
        return stacked(frames, column="task", keys=list(self.tasks))


def leaderboard_tasks(
    tasks: Mapping[str, ModelScores],
    /,
    *,
    correction: Correction = "holm",
    alpha: float = 0.05,
    power: float = 0.8,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    executor: Any = None,
) -> TaskLeaderboards:
    """Per-task leaderboards and their aggregate: the unweighted mean score over tasks.

    ``on_missing`` and ``on_mismatch`` apply to each task's items as in
    :func:`evalsig.leaderboard.leaderboard`: within a task, every model is compared on the
    same items.

    Notes
    -----
    For models a and b, the aggregate difference is ``(1/T) sum_t d_t`` with standard error
    ``sqrt(sum_t se_t^2) / T``, each task's ``d_t, se_t`` from its own paired test on the
    items both models answered (tasks hold different items, so they are independent);
    the aggregate test is the z-test of that ratio. A model must appear in every task.
    The adjacent pairs' resolution is ``q = (|d| / (se (z_a + z_b)))^2``, the normal-theory
    N / N*.
    """
    from evalsig.distributed import local

    names = _same_models(tasks)
    tasks = {
        task: align_models(scores, on_missing=on_missing, on_mismatch=on_mismatch)
        for task, scores in tasks.items()
    }
    for task, scores in tasks.items():
        check_clusters(scores, task)
    boards = {
        task: leaderboard(
            scores,
            task=task,
            correction=correction,
            alpha=alpha,
            power=power,
            on_missing=on_missing,
            on_mismatch=on_mismatch,
            executor=executor,
        )
        for task, scores in tasks.items()
    }
    m = len(names)
    a_idx, b_idx = np.triu_indices(m, 1)
    estimate = np.zeros(len(a_idx))
    variance = np.zeros(len(a_idx))
    means = np.zeros(m)
    score_variance = np.zeros(m)
    n_items = np.zeros(m, dtype=np.int64)
    n_input = np.zeros(m, dtype=np.int64)
    run = executor or local()
    for scores in tasks.values():
        order = [scores.names.index(name) for name in names]  # align models by name
        sums = run.pair_sums(scores.scores[order], scores.cluster_codes)
        clustered = scores.cluster_codes is not None
        tests = pair_tests(sums, b_idx, a_idx, binary=scores.binary, clustered=clustered)
        estimate += tests.estimate
        variance += tests.se**2
        means += model_means(sums.sum(axis=0))
        score_variance += (
            score_intervals(
                sums, binary=scores.binary, clustered=clustered, confidence_level=0.95
            ).se
            ** 2
        )
        n_items += scores.present[order].sum(axis=1)
        n_input += scores.input_counts[order]
    t = len(tasks)
    combined = _aggregate_tests(estimate / t, np.sqrt(variance) / t)
    aggregate = leaderboard_from_tests(
        names=tuple(names),
        means=means / t,
        intervals=aggregate_intervals(
            means / t, np.sqrt(score_variance) / t, n_tasks=t, confidence_level=0.95
        ),
        n_items=n_items,
        n_input=n_input,
        tests=combined,
        binary=False,
        correction=correction,
        alpha=alpha,
        power=power,
        boot=None,
        confidence_level=0.95,
        task=f"mean over {t} tasks",
        notes=(f"aggregate of {', '.join(tasks)}: unweighted mean of per-task scores",),
        on_missing=on_missing,
        on_mismatch=on_mismatch,
        n_mismatched=sum(scores.n_mismatched for scores in tasks.values()),
    )
    inputs = dict.fromkeys(names)  # each task's board has the models' origins
    aggregate = replace(aggregate, provenance=provenance(inputs))
    return TaskLeaderboards(tasks=boards, aggregate=aggregate)


def _same_models(tasks: Mapping[str, ModelScores]) -> list[str]:
    """The models' names, in the first task's order, when every task has the same models."""
    if not tasks:
        raise DataError("no tasks to rank; give a mapping task -> ModelScores.")
    names = list(next(iter(tasks.values())).names)
    for task, scores in tasks.items():
        if set(scores.names) != set(names):
            missing = sorted(set(names) ^ set(scores.names))
            raise DataError(
                f"task {task!r} does not have the same models as the others (differs in "
                f"{examples(missing)}); an aggregate needs every model on every task."
            )
    return names


def _aggregate_tests(estimate: np.ndarray, se: np.ndarray) -> PairTests:
    """The z-tests of the pairs' mean differences over tasks."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z = estimate / se
    pvalue = np.where(se > 0, 2 * special.ndtr(-np.abs(z)), np.where(estimate == 0, 1.0, np.nan))
    return PairTests(
        method="aggregate",
        n=np.full(len(estimate), np.inf),
        estimate=estimate,
        se=se,
        df=np.full(len(estimate), np.inf),
        pvalue=pvalue,
        n01=np.zeros(len(estimate)),
        n10=np.zeros(len(estimate)),
    )
