"""A leaderboard that says which differences are real: all pairs, tie groups, rank intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.models import ModelScores, load_models
from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level
from evalsig.inference.allpairs import PairTests, model_means, pair_tests
from evalsig.inference.multiplicity import adjust
from evalsig.leaderboard.ranking import rank_intervals, tie_groups
from evalsig.power._common import check_alpha, check_power, z_alpha, z_power

__all__ = ["Leaderboard", "leaderboard", "leaderboard_from_tests"]

Correction = Literal["holm", "bh"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Leaderboard:
    """Models ranked by score, with every pairwise test and the ranks the data support."""

    models: tuple[str, ...]
    """Ranked best first."""
    means: np.ndarray
    """``(M,)`` scores in ranking order."""
    n_items: np.ndarray
    """``(M,)`` items each model answered."""
    difference: np.ndarray
    """``(M, M)``: row model minus column model on their shared items."""
    pvalue: np.ndarray
    """``(M, M)`` two-sided p-values (NaN on the diagonal)."""
    p_adjusted: np.ndarray
    """``(M, M)`` adjusted over the M(M-1)/2 pairs."""
    method: str
    """The paired test: 'mcnemar', 'paired-t', 'cluster' or 'aggregate' (tasks)."""
    correction: str
    alpha: float
    rank_low: np.ndarray
    rank_high: np.ndarray
    """Simultaneous rank intervals from the corrected tests (valid together)."""
    groups: tuple[tuple[int, ...], ...]
    """Tie groups as positions in the ranking."""
    adjacent_q: np.ndarray
    """``(M-1,)`` resolution ratio q = N / N* of each adjacent pair (NaN when undefined)."""
    bootstrap_low: np.ndarray | None = None
    bootstrap_high: np.ndarray | None = None
    """Marginal percentile bootstrap rank intervals, when asked for."""
    n_resamples: int = 0
    confidence_level: float = 0.95
    task: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_unresolved_adjacent(self) -> int:
        """Adjacent pairs whose difference the benchmark cannot resolve (q < 1)."""
        return int(np.sum(~(self.adjacent_q >= 1.0)))

    @property
    def n_separated_adjacent(self) -> int:
        """Adjacent pairs that differ significantly after correction."""
        idx = np.arange(self.n_models - 1)
        return int(np.sum(self.p_adjusted[idx, idx + 1] <= self.alpha))

    def group_of(self, model: str) -> int:
        """1-based tie group of a model."""
        position = self.models.index(model)
        return next(k + 1 for k, g in enumerate(self.groups) if position in g)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}

        def matrix(values: np.ndarray, name: str) -> list[list[float | None]]:
            return [
                [
                    json_safe(float(v), f"{name}[{i}][{j}]", nulls, "not defined")
                    for j, v in enumerate(row)
                ]
                for i, row in enumerate(values)
            ]

        rows = []
        for k, name in enumerate(self.models):
            row: dict[str, Any] = {
                "rank": k + 1,
                "model": name,
                "score": float(self.means[k]),
                "n_items": int(self.n_items[k]),
                "group": self.group_of(name),
                "rank_low": int(self.rank_low[k]),
                "rank_high": int(self.rank_high[k]),
            }
            if self.bootstrap_low is not None and self.bootstrap_high is not None:
                row["bootstrap_rank_low"] = int(self.bootstrap_low[k])
                row["bootstrap_rank_high"] = int(self.bootstrap_high[k])
            rows.append(row)
        adjacent = []
        for k in range(self.n_models - 1):
            adjacent.append(
                {
                    "higher": self.models[k],
                    "lower": self.models[k + 1],
                    "difference": json_safe(
                        float(self.difference[k, k + 1]),
                        f"adjacent[{k}].difference",
                        nulls,
                        "no shared items",
                    ),
                    "p_adjusted": json_safe(
                        float(self.p_adjusted[k, k + 1]),
                        f"adjacent[{k}].p_adjusted",
                        nulls,
                        "no test",
                    ),
                    "q": json_safe(
                        float(self.adjacent_q[k]), f"adjacent[{k}].q", nulls, "undefined"
                    ),
                }
            )
        return {
            "kind": "leaderboard",
            "schema_version": SCHEMA_VERSION,
            "task": self.task,
            "method": self.method,
            "correction": self.correction,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "n_models": self.n_models,
            "n_pairs": self.n_models * (self.n_models - 1) // 2,
            "rows": rows,
            "groups": [[self.models[i] for i in g] for g in self.groups],
            "adjacent": adjacent,
            "n_separated_adjacent": self.n_separated_adjacent,
            "n_unresolved_adjacent": self.n_unresolved_adjacent,
            "n_resamples": self.n_resamples,
            "difference": matrix(self.difference, "difference"),
            "pvalue": matrix(self.pvalue, "pvalue"),
            "p_adjusted": matrix(self.p_adjusted, "p_adjusted"),
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def __str__(self) -> str:
        from evalsig.report.leaderboard import as_text

        return as_text(self.to_dict())

    def _repr_html_(self) -> str:
        from evalsig.report.html import fragment

        return fragment(self.to_dict())


def leaderboard(
    data: Any,
    /,
    *,
    task: str | None = None,
    correction: Correction = "holm",
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 0,
    confidence_level: float = 0.95,
    rng: int | np.random.SeedSequence | None = None,
    model_column: str = "model",
    id_column: str | None = None,
    score_column: str | None = None,
    cluster_column: str | None = None,
    executor: Any = None,
) -> Leaderboard:
    """Rank models on one task with every pairwise paired test, tie groups and rank intervals.

    Parameters
    ----------
    data : ModelScores, mapping or long table
        Per-item scores of every model on the same items: a :class:`ModelScores`, a mapping
        ``{model: scores}``, or a long table (file or DataFrame) with a model column.
    correction : {"holm", "bh"}
        Over the M(M-1)/2 pairs. Holm controls the family-wise error, so the rank
        intervals hold simultaneously; BH controls the false discovery rate only.
    alpha : float
        Level of the pairwise tests (after correction).
    power : float
        Target power of the adjacent pairs' resolution ratio q = N / N*.
    n_resamples : int, default 0
        Bootstrap resamples (of items, or of clusters when there are clusters) for
        marginal percentile rank intervals at ``confidence_level``.
    rng : int or SeedSequence, optional
        Seed of the bootstrap.
    executor : evalsig.distributed.Executor, optional
        Runs the pairwise sums and the bootstrap on a Dask cluster, with identical results.

    Notes
    -----
    Each pair uses the test :func:`evalsig.compare` would choose (clusters: CR2; one run of
    0/1 scores: McNemar; otherwise the paired t-test on per-item means), on the items both
    models answered; the sufficient statistics of all pairs come from matrix products
    (:mod:`evalsig.inference.allpairs`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> scores = {f"m{k}": {f"q{i}": int(rng.random() < 0.5 + 0.1 * k) for i in range(400)}
    ...           for k in range(3)}
    >>> board = leaderboard(scores)
    >>> board.models, [len(g) for g in board.groups]
    (('m2', 'm1', 'm0'), [1, 1, 1])
    """
    from evalsig.distributed import local

    alpha, power = check_alpha(alpha), check_power(power)
    level = check_confidence_level(confidence_level)
    if correction not in ("holm", "bh"):
        raise DataError(f"`correction` must be 'holm' or 'bh'; got {correction!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise DataError(f"`n_resamples` must be a non-negative integer; got {n_resamples!r}.")
    scores = (
        data
        if isinstance(data, ModelScores)
        else load_models(
            data,
            model_column=model_column,
            id_column=id_column,
            score_column=score_column,
            cluster_column=cluster_column,
        )
    )
    run = executor or local()
    sums = run.pair_sums(scores.scores, scores.cluster_codes)
    m = scores.n_models
    a_idx, b_idx = np.triu_indices(m, 1)
    clustered = scores.cluster_codes is not None
    tests = pair_tests(sums, b_idx, a_idx, binary=scores.binary, clustered=clustered)
    means = model_means(sums.sum(axis=0))
    notes = list(scores.notes)
    boot = None
    if n_resamples:
        seed = rng if isinstance(rng, np.random.SeedSequence) else np.random.SeedSequence(rng)
        unit_sums, unit_counts = _units(scores)
        boot = run.bootstrap_ranks(unit_sums, unit_counts, n_resamples=n_resamples, seed=seed)
        notes.append(
            f"bootstrap rank intervals: {n_resamples:,} resamples of "
            + ("clusters" if clustered else "items")
            + f", marginal {100 * level:g}% percentile intervals"
        )
    return leaderboard_from_tests(
        names=scores.names,
        means=means,
        n_items=scores.present.sum(axis=1),
        tests=tests,
        binary=scores.binary and not clustered,
        correction=correction,
        alpha=alpha,
        power=power,
        boot=boot,
        confidence_level=level,
        task=task,
        notes=tuple(notes),
    )


def leaderboard_from_tests(
    *,
    names: tuple[str, ...],
    means: np.ndarray,
    n_items: np.ndarray,
    tests: PairTests,
    binary: bool,
    correction: Correction,
    alpha: float,
    power: float,
    boot: np.ndarray | None,
    confidence_level: float,
    task: str | None,
    notes: tuple[str, ...],
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from the tests of pairs ``(b, a)``, ``a < b``.

    ``tests`` covers ``np.triu_indices(M, 1)`` with candidate a (row) and baseline b.
    """
    m = len(names)
    a_idx, b_idx = np.triu_indices(m, 1)
    p = tests.pvalue
    finite = np.isfinite(p)
    p_adj = np.full(len(p), np.nan)
    if finite.any():
        p_adj[finite] = adjust(p[finite], method=correction, alpha=alpha).p_adjusted
    extra = list(notes)
    if not finite.all():
        extra.append(
            f"{int((~finite).sum())} pairs have no defined p-value (zero variance with a "
            "difference, or no shared items); they count as not separated"
        )
    full_diff = _square(m, a_idx, b_idx, tests.estimate, antisymmetric=True)
    full_p = _square(m, a_idx, b_idx, p)
    full_adj = _square(m, a_idx, b_idx, p_adj)
    order = np.argsort(-means, kind="stable")
    inverse = np.ix_(order, order)
    diff, pv, adj = full_diff[inverse], full_p[inverse], full_adj[inverse]
    significant = adj <= alpha  # NaN compares False
    better = significant & (diff > 0)
    low, high = rank_intervals(better)
    groups = tie_groups(range(m), significant)
    q = _adjacent_q(tests, order, binary, alpha, power, m)
    boot_low = boot_high = None
    if boot is not None:
        tail = (1 - confidence_level) / 2
        ranked = boot[order]
        boot_low = np.floor(np.quantile(ranked, tail, axis=1, method="lower")).astype(np.int64)
        boot_high = np.ceil(np.quantile(ranked, 1 - tail, axis=1, method="higher")).astype(np.int64)
    return Leaderboard(
        models=tuple(names[i] for i in order),
        means=means[order],
        n_items=np.asarray(n_items)[order],
        difference=diff,
        pvalue=pv,
        p_adjusted=adj,
        method=tests.method,
        correction=correction,
        alpha=alpha,
        rank_low=low,
        rank_high=high,
        groups=tuple(tuple(g) for g in groups),
        adjacent_q=q,
        bootstrap_low=boot_low,
        bootstrap_high=boot_high,
        n_resamples=0 if boot is None else boot.shape[1],
        confidence_level=confidence_level,
        task=task,
        notes=tuple(extra),
    )


def _square(
    m: int, a: np.ndarray, b: np.ndarray, values: np.ndarray, *, antisymmetric: bool = False
) -> np.ndarray:
    """An M x M matrix from upper-triangle values (a < b); the lower triangle mirrors it."""
    out = np.full((m, m), np.nan)
    out[a, b] = values
    out[b, a] = -values if antisymmetric else values
    if antisymmetric:
        np.fill_diagonal(out, 0.0)
    return out


def _adjacent_q(
    tests: PairTests, order: np.ndarray, binary: bool, alpha: float, power: float, m: int
) -> np.ndarray:
    """q = N / N* of each adjacent pair in the ranking (McNemar or normal approximation)."""
    za, zb = z_alpha(alpha, "two-sided"), z_power(power)
    out = np.full(max(m - 1, 0), np.nan)
    for k in range(m - 1):
        i, j = int(order[k]), int(order[k + 1])
        lo, hi = min(i, j), max(i, j)
        idx = lo * m - lo * (lo + 1) // 2 + (hi - lo - 1)  # position in np.triu_indices(m, 1)
        n, delta = float(tests.n[idx]), abs(float(tests.estimate[idx]))
        if not (n > 1 and math.isfinite(delta)):
            continue
        if delta == 0:
            out[k] = 0.0
            continue
        if math.isinf(n):  # an aggregate: q from the standard error alone
            out[k] = (delta / (float(tests.se[idx]) * (za + zb))) ** 2
            continue
        if binary:
            disc = float(tests.n01[idx] + tests.n10[idx]) / n
            needed = (za * math.sqrt(disc) + zb * math.sqrt(max(disc - delta**2, 0.0))) ** 2
            needed /= delta**2
        else:
            sd = float(tests.se[idx]) * math.sqrt(n)
            needed = (za + zb) ** 2 * sd**2 / delta**2 + za**2 / 2
        out[k] = n / needed if needed > 0 else math.inf
    return out


def _units(scores: ModelScores) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit score totals and item counts: units are clusters when known, else items."""
    present = scores.present
    x = np.where(present, scores.scores, 0.0)
    if scores.cluster_codes is None:
        return x, present.astype(np.float64)
    g = int(scores.cluster_codes.max()) + 1
    onehot = np.zeros((scores.n_items, g))
    onehot[np.arange(scores.n_items), scores.cluster_codes] = 1.0
    return x @ onehot, present.astype(np.float64) @ onehot
