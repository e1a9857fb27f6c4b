"""Claims about a whole suite of tasks: win counts, rank tests, and the cost of not correcting.

"The candidate wins 14 of 22 subtasks" sounds like evidence; as a sign test it is not
(p = 0.286). These functions test such aggregate claims properly, give the family-wise
error that an uncorrected reading of K separate tests would have, and measure how
strongly the per-task differences depend on each other (strong dependence makes
Bonferroni-type corrections conservative; resampling corrections then do better).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.errors import DataError, examples
from evalsig.inference._binomial import binomial_cdf, binomial_sf
from evalsig.inference._common import Alternative, check_alternative, choose_pvalue
from evalsig.result import Result

__all__ = [
    "Dependence",
    "SignTestResult",
    "dependence",
    "sign_test",
    "uncorrected_familywise_error",
]

STRONG_DEPENDENCE = 0.5
"""Mean absolute correlation above which Bonferroni-type corrections are noted as conservative."""


def uncorrected_familywise_error(n_tests: int, alpha: float = 0.05) -> float:
    r"""The chance of at least one false positive among independent tests read uncorrected.

    :math:`1 - (1 - \alpha)^K`: 0.401 for K = 10 and 0.785 for K = 30 at alpha = 0.05.

    Examples
    --------
    >>> round(uncorrected_familywise_error(30), 3)
    0.785
    """
    if isinstance(n_tests, bool) or not isinstance(n_tests, (int, np.integer)) or n_tests < 1:
        raise DataError(f"`n_tests` must be a positive integer; got {n_tests!r}.")
    if not 0.0 < alpha < 1.0:
        raise DataError(f"`alpha` must lie strictly between 0 and 1; got {alpha!r}.")
    return float(-math.expm1(n_tests * math.log1p(-alpha)))


@dataclass(frozen=True, slots=True, kw_only=True)
class SignTestResult(Result):
    """A sign test of "the candidate wins more tasks than the baseline"."""

    kind: ClassVar[str] = "sign_test"
    wins_candidate: int
    wins_baseline: int
    ties: int
    n_tasks: int
    pvalue: float
    alternative: Alternative
    notes: tuple[str, ...] = ()

    @property
    def p_value(self) -> float:
        return self.pvalue

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        return {
            "kind": "sign_test",
            "schema_version": SCHEMA_VERSION,
            "wins_candidate": self.wins_candidate,
            "wins_baseline": self.wins_baseline,
            "ties": self.ties,
            "n_tasks": self.n_tasks,
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, "undefined"),
            "alternative": self.alternative,
            "notes": list(self.notes),
            "nulls": nulls,
        }


def sign_test(
    differences: Sequence[float] | np.ndarray | Mapping[str, float],
    /,
    *,
    alternative: Alternative = "two-sided",
) -> SignTestResult:
    r"""Sign test over tasks: does the candidate win more tasks than chance allows?

    Parameters
    ----------
    differences : sequence or mapping of float
        One candidate-minus-baseline difference per task (a mapping keeps task names).
    alternative : {"two-sided", "greater", "less"}
        "greater": the candidate wins more tasks.

    Returns
    -------
    SignTestResult

    Notes
    -----
    With :math:`W_c` candidate wins and :math:`W_b` baseline wins among the
    :math:`K = W_c + W_b` tasks that are not tied, under the null hypothesis each task is a
    fair coin: :math:`X \sim \mathrm{Binomial}(K, 1/2)` and the two-sided p-value is
    :math:`\min(1, 2\,P[X \ge \max(W_c, W_b)])`. Tied tasks (a difference of exactly 0)
    carry no information about the direction and are left out, as in the classical sign
    test; the result reports how many. A win is the sign of the estimate, not a
    significant difference: significance per task belongs to the multiplicity-corrected
    task tests.

    References
    ----------
    Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. *JASA* 41(236), 557-566.

    Examples
    --------
    >>> r = sign_test([1.0] * 14 + [-1.0] * 8)
    >>> r.wins_candidate, r.wins_baseline, round(r.pvalue, 3)
    (14, 8, 0.286)
    """
    alternative = check_alternative(alternative)
    values = _task_values(differences)
    wins_c = int(np.count_nonzero(values > 0))
    wins_b = int(np.count_nonzero(values < 0))
    ties = len(values) - wins_c - wins_b
    k = wins_c + wins_b
    notes: list[str] = []
    if ties:
        notes.append(f"{ties} tied task(s) (difference exactly 0) left out of the sign test.")
    if k == 0:
        notes.append("every task is tied: no evidence either way (p = 1).")
        pvalue = 1.0
    else:
        greater = binomial_sf(wins_c - 1, k, 0.5)  # P(X >= W_c)
        less = binomial_cdf(wins_c, k, 0.5)  # P(X <= W_c)
        pvalue = choose_pvalue(greater, less, alternative)
    return SignTestResult(
        wins_candidate=wins_c,
        wins_baseline=wins_b,
        ties=ties,
        n_tasks=len(values),
        pvalue=pvalue,
        alternative=alternative,
        notes=tuple(notes),
    )


def _task_values(differences: Sequence[float] | np.ndarray | Mapping[str, float]) -> np.ndarray:
    raw = list(differences.values()) if isinstance(differences, Mapping) else list(differences)
    if not raw:
        raise DataError("`differences` is empty: give one difference per task.")
    bad = [v for v in raw if not isinstance(v, (int, float, np.integer, np.floating))]
    if bad:
        raise DataError(
            f"`differences` has non-numeric value(s) ({examples(bad)}); give one number per task."
        )
    values = np.asarray(raw, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise DataError("`differences` has NaN or infinite values; drop or fix those tasks.")
    return values


@dataclass(frozen=True, slots=True, kw_only=True)
class Dependence(Result):
    """How strongly the per-task differences move together across shared items."""

    kind: ClassVar[str] = "dependence"
    tasks: tuple[str, ...]
    correlation: np.ndarray
    """``(K, K)`` correlation of per-item differences over items shared by each pair."""
    shared_items: np.ndarray
    """``(K, K)`` number of items each pair shares (correlation is NaN below 3)."""
    mean_abs_correlation: float
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        matrix = [
            [json_safe(float(v), f"correlation[{i}][{j}]", nulls, "fewer than 3 shared items")
             for j, v in enumerate(row)]
            for i, row in enumerate(self.correlation)
        ]  # fmt: skip
        return {
            "kind": "dependence",
            "schema_version": SCHEMA_VERSION,
            "tasks": list(self.tasks),
            "correlation": matrix,
            "shared_items": self.shared_items.tolist(),
            "mean_abs_correlation": json_safe(
                self.mean_abs_correlation, "mean_abs_correlation", nulls, "no pair shares items"
            ),
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """Each pair of tasks (i < j, in task order): task_a, task_b, correlation,
        shared_items."""
        from evalsig._frame import data_frame

        a, b = np.triu_indices(len(self.tasks), 1)
        return data_frame(
            {
                "task_a": [self.tasks[i] for i in a],
                "task_b": [self.tasks[j] for j in b],
                "correlation": self.correlation[a, b],
                "shared_items": self.shared_items[a, b],
            }
        )


def dependence(
    differences: Mapping[str, Mapping[str, float]],
    /,
) -> Dependence:
    r"""Correlation of per-item differences between tasks that share items.

    Parameters
    ----------
    differences : mapping task -> mapping item id -> difference
        Per-item candidate-minus-baseline differences of each task.

    Returns
    -------
    Dependence
        Pearson correlation over the items each pair of tasks shares (NaN when fewer than
        3 are shared, or when a difference does not vary); the mean absolute
        off-diagonal correlation; a note when it exceeds 0.5, since Bonferroni, Holm and
        Hochberg then spend alpha on tests that carry nearly the same information and a
        resampling correction (Romano-Wolf) or max-T intervals are less conservative.

    Notes
    -----
    Tasks on disjoint items (subgroups of a benchmark) have no item-level correlation;
    their estimates are independent and the classical corrections are not conservative
    on that account.
    """
    if not differences:
        raise DataError("`differences` is empty: give the per-item differences of each task.")
    tasks = tuple(differences)
    k = len(tasks)
    corr = np.full((k, k), np.nan)
    shared = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        a = differences[tasks[i]]
        shared[i, i] = len(a)
        corr[i, i] = 1.0
        for j in range(i + 1, k):
            b = differences[tasks[j]]
            common = [item for item in a if item in b]
            shared[i, j] = shared[j, i] = len(common)
            if len(common) < 3:
                continue
            x = np.array([a[item] for item in common], dtype=np.float64)
            y = np.array([b[item] for item in common], dtype=np.float64)
            if x.std() > 0 and y.std() > 0:
                corr[i, j] = corr[j, i] = float(np.corrcoef(x, y)[0, 1])
    off = corr[~np.eye(k, dtype=bool)]
    off = off[np.isfinite(off)]
    mean_abs = float(np.mean(np.abs(off))) if off.size else math.nan
    notes: list[str] = []
    if off.size == 0 and k > 1:
        notes.append("no two tasks share enough items: their estimates are independent.")
    elif mean_abs > STRONG_DEPENDENCE:
        notes.append(
            f"strong dependence between tasks (mean |correlation| {mean_abs:.2f}): Bonferroni, "
            "Holm and Hochberg are conservative here; Romano-Wolf or max-T intervals, which "
            "resample the shared items, keep the error rate with more power."
        )
    return Dependence(
        tasks=tasks,
        correlation=corr,
        shared_items=shared,
        mean_abs_correlation=mean_abs,
        notes=tuple(notes),
    )
