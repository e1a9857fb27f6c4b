"""A leaderboard that says which differences are real: all pairs, tie groups, rank intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.models import ModelScores, align_models, check_clusters, load_models
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import Provenance, provenance
from evalsig.data.readers.base import ReaderKeywordsExceptTask, ReadOptions, read_options
from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level
from evalsig.inference._ttest import ADJUSTED_BELOW
from evalsig.inference.allpairs import PairTests, model_means, model_shapes, pair_tests
from evalsig.inference.multiplicity import adjust
from evalsig.inference.ranking import rank_intervals, tie_groups
from evalsig.inference.stratified import check_strata
from evalsig.leaderboard.intervals import ScoreIntervals, score_intervals
from evalsig.power._common import check_alpha, check_power, z_alpha, z_power
from evalsig.result import Result

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "Leaderboard",
    "check_clusters",
    "check_correction",
    "leaderboard",
    "leaderboard_from_sums",
    "leaderboard_from_tests",
]

Correction = Literal["holm", "bh"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Leaderboard(Result):
    """Models ranked by score, with every pairwise test and the ranks the data support."""

    kind: ClassVar[str] = "leaderboard"

    models: tuple[str, ...]
    """Ranked best first."""
    means: np.ndarray
    """``(M,)`` scores in ranking order."""
    score_low: np.ndarray
    score_high: np.ndarray
    """``(M,)`` each score's interval at ``confidence_level``, by the interval
    :func:`evalsig.score` chooses for the data (NaN where undefined)."""
    score_method: str
    """That interval: 'clopper-pearson', 'wilson', 't', 'cluster-cr2' or 'aggregate-normal'
    (the notes say why)."""
    n_items: np.ndarray
    """``(M,)`` items each model was compared on (the same for every model of one task)."""
    n_input: np.ndarray
    """``(M,)`` items each model had in its input, before items were dropped."""
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
    seed: int | None = None
    """Entropy of the bootstrap's SeedSequence: ``rng=seed`` reproduces the result (None
    without a bootstrap)."""
    confidence_level: float = 0.95
    on_missing: str = "error"
    """How items some models lack were handled: 'error' (none lacked any) or 'intersect'."""
    on_mismatch: str = "error"
    """How items with differing content keys were handled: 'error' (none), 'exclude', 'keep'."""
    n_mismatched: int = 0
    """Items whose content keys differ between models (excluded or kept, as asked)."""
    task: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    provenance: Provenance | None = None
    """Where each model's scores came from (files, hashes, task, metric), the seed, the
    evalsig version and the time."""

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

    def _no_seed(self) -> str:
        if not self.n_resamples:
            return "no bootstrap"
        return (
            "the bootstrap's SeedSequence has no single integer seed (spawned, or a list of "
            "integers); keep that SeedSequence to reproduce the result"
        )

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
                "score_low": json_safe(
                    float(self.score_low[k]), f"rows[{k}].score_low", nulls, "undefined"
                ),
                "score_high": json_safe(
                    float(self.score_high[k]), f"rows[{k}].score_high", nulls, "undefined"
                ),
                "n_items": int(self.n_items[k]),
                "n_input": int(self.n_input[k]),
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
            "score_method": self.score_method,
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
            "seed": self.seed,
            "on_missing": self.on_missing,
            "on_mismatch": self.on_mismatch,
            "n_mismatched": self.n_mismatched,
            "difference": matrix(self.difference, "difference"),
            "pvalue": matrix(self.pvalue, "pvalue"),
            "p_adjusted": matrix(self.p_adjusted, "p_adjusted"),
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls | ({} if self.seed is not None else {"seed": self._no_seed()}),
        }

    def to_frame(self) -> Any:
        """One row per model, best first: rank, model, score, score_low, score_high (its
        interval at ``confidence_level``), n_items, n_input, group, rank_low, rank_high (and
        bootstrap_rank_low, bootstrap_rank_high with a bootstrap)."""
        from evalsig._frame import data_frame

        group = np.zeros(self.n_models, dtype=np.int64)
        for k, members in enumerate(self.groups):
            group[list(members)] = k + 1
        columns: dict[str, Any] = {
            "rank": np.arange(1, self.n_models + 1),
            "model": list(self.models),
            "score": self.means,
            "score_low": self.score_low,
            "score_high": self.score_high,
            "n_items": self.n_items,
            "n_input": self.n_input,
            "group": group,
            "rank_low": self.rank_low,
            "rank_high": self.rank_high,
        }
        if self.bootstrap_low is not None and self.bootstrap_high is not None:
            columns["bootstrap_rank_low"] = self.bootstrap_low
            columns["bootstrap_rank_high"] = self.bootstrap_high
        return data_frame(columns)

    def pairs_frame(self) -> Any:
        """Every pair in ranking order (model_a ranked above model_b): model_a, model_b,
        difference (a minus b on their shared items), pvalue, p_adjusted."""
        from evalsig._frame import data_frame

        a, b = np.triu_indices(self.n_models, 1)
        return data_frame(
            {
                "model_a": [self.models[i] for i in a],
                "model_b": [self.models[j] for j in b],
                "difference": self.difference[a, b],
                "pvalue": self.pvalue[a, b],
                "p_adjusted": self.p_adjusted[a, b],
            }
        )


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
    read: ReadOptions | None = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    executor: Any = None,
    strata: str | bool | None = None,
    **keywords: Unpack[ReaderKeywordsExceptTask],
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
        Seed of the bootstrap. When None, a seed is drawn from the operating system's
        entropy and recorded as ``seed`` in the result: ``rng=result.seed`` reproduces it.
    model_column : str, default "model"
        The model column of a long table (see :func:`evalsig.data.load_models`).
    read : ReadOptions, optional
        How to read files: columns, harness choices, limits; see
        :class:`~evalsig.data.ReadOptions`.
    on_missing : {"error", "intersect"}
        Items some models lack: an error naming them, or rank and test every model on the
        items all models have (the notes give the items dropped per model).
    on_mismatch : {"error", "exclude", "keep"}
        Items whose content key (gold answer, target, document hash) differs between two
        models: an error, drop them for every model, or compare them anyway.
    executor : evalsig.distributed.Executor, optional
        Runs the pairwise sums and the bootstrap on a Dask cluster, with identical results.
    strata : str or True, optional
        A column of strata (fixed groups that make up the population: subjects), or True
        for the groups the data carry: stratified tests and intervals
        (:mod:`evalsig.inference.stratified`); the bootstrap resamples items within each stratum.
    **keywords
        The fields of :class:`~evalsig.data.ReadOptions` but ``task`` (which here names
        the task) as keywords, a shorthand for ``read`` (``cluster_column="subject"``). A
        field given both here and in ``read`` is an error.

    Raises
    ------
    AlignmentError
        Models with different items or content keys, unless ``on_missing`` /
        ``on_mismatch`` say what to do with them.
    DataError
        Bad options; a single cluster (a cluster-robust test needs at least 2).
    TypeError
        A keyword that is not a field of ReadOptions; a field given twice.

    Notes
    -----
    Each pair uses the test :func:`evalsig.compare` would choose (clusters: CR2; one run of
    0/1 scores: McNemar; otherwise the paired t-test on per-item means), on the same
    items for every pair; the sufficient statistics of all pairs come from matrix products
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

    alpha, power, level = _checked(alpha, power, confidence_level, correction, n_resamples)
    seed = _seed_sequence(rng)
    options = _with_strata(read_options(read, **keywords), strata)
    scores = _models(data, task, model_column, options, on_missing, on_mismatch)
    notes, stratified = list(scores.notes), strata is not None and strata is not False
    _check_strata(scores, notes, stratified)
    run = executor or local()
    sums = run.pair_sums(scores.scores, scores.cluster_codes)
    boot, recorded = _bootstrap_ranks(run, scores, stratified, n_resamples, seed, level, notes)
    board = leaderboard_from_sums(
        sums,
        names=scores.names,
        n_input=scores.input_counts,
        binary=scores.binary,
        clustered=scores.cluster_codes is not None and not stratified,
        stratified=stratified,
        correction=correction,
        alpha=alpha,
        power=power,
        boot=boot,
        seed=recorded,
        confidence_level=level,
        task=task,
        notes=tuple(notes),
        on_missing=scores.on_missing,
        on_mismatch=scores.on_mismatch,
        n_mismatched=scores.n_mismatched,
        shapes=model_shapes(scores.n_runs, scores.scores),
    )
    return replace(board, provenance=models_provenance(scores, seed=recorded))


def _models(
    data: Any,
    task: str | None,
    model_column: str,
    read: ReadOptions,
    on_missing: OnMissing,
    on_mismatch: OnMismatch,
) -> ModelScores:
    """The models' scores aligned on their items (ModelScores as given, or read), with
    clusters fit for a cluster-robust test."""
    scores = (
        align_models(data, on_missing=on_missing, on_mismatch=on_mismatch)
        if isinstance(data, ModelScores)
        else load_models(
            data,
            model_column=model_column,
            read=read,
            on_missing=on_missing,
            on_mismatch=on_mismatch,
        )
    )
    check_clusters(scores, task)
    return scores


def _checked(
    alpha: float, power: float, confidence_level: float, correction: object, n_resamples: object
) -> tuple[float, float, float]:
    """The checked alpha, power and confidence level (correction and resamples checked)."""
    check_correction(correction)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise DataError(f"`n_resamples` must be a non-negative integer; got {n_resamples!r}.")
    return check_alpha(alpha), check_power(power), check_confidence_level(confidence_level)


def _with_strata(options: ReadOptions, strata: str | bool | None) -> ReadOptions:
    """The read options with a stratum column read as the items' groups."""
    if not isinstance(strata, str):
        return options
    if options.cluster_column is not None:
        raise DataError(
            "give `cluster_column` or `strata`, not both: strata are fixed groups that make "
            "up the population (subjects), clusters groups sampled from a larger set "
            "(passages)."
        )
    return replace(options, cluster_column=strata)


def _check_strata(scores: ModelScores, notes: list[str], stratified: bool) -> None:
    """With ``stratified``, check the scores' groups as strata (each of at least 2 items)
    and note what strata estimate and what clusters would."""
    if not stratified:
        return
    if scores.cluster_codes is None:
        raise DataError(
            "strata=True reads the groups the data carry as strata, but the scores have "
            "none: name the stratum column (strata='category')."
        )
    sizes = np.bincount(scores.cluster_codes).astype(np.float64)
    check_strata(sizes, scores.cluster_labels)
    notes.append(
        f"{sizes.size} strata (sizes {int(sizes.min()):,} to {int(sizes.max()):,}): each "
        "pair's standard error leaves out the variance between strata, as they make up the "
        "population; read as clusters (groups sampled from a larger set) they would give "
        "cluster-robust CR2 over "
        f"{sizes.size} clusters, wider, and without them items are independent"
    )


def _bootstrap_ranks(
    run: Any,
    scores: ModelScores,
    stratified: bool,
    n_resamples: int,
    seed: np.random.SeedSequence,
    level: float,
    notes: list[str],
) -> tuple[np.ndarray | None, int | None]:
    """The bootstrap's ranks, resampling items (or clusters; with ``stratified``, items
    within each stratum), and the seed that rebuilds them, with a note saying how; None
    for both without resamples."""
    if not n_resamples:
        return None, None
    recorded = _recorded_seed(seed)  # before spawning children changes it
    strata = scores.cluster_codes if stratified else None
    if stratified:  # the units are the items
        scores = replace(scores, cluster_codes=None, cluster_labels=None)
    unit_sums, unit_counts = _units(scores)
    boot: np.ndarray = run.bootstrap_ranks(
        unit_sums, unit_counts, n_resamples=n_resamples, rng=seed, strata=strata
    )
    units = "clusters" if scores.cluster_codes is not None else "items"
    if strata is not None:
        units = f"items within each of the {int(strata.max()) + 1} strata"
    notes.append(
        f"bootstrap rank intervals: {n_resamples:,} resamples of {units}"
        + f", marginal {100 * level:g}% percentile intervals"
        + ("" if recorded is None else f" (seed {recorded})")
    )
    return boot, recorded


def models_provenance(scores: ModelScores, *, seed: int | None) -> Provenance:
    """The provenance of a benchmark view: each model's origin (None where unknown)."""
    origins = scores.origins or (None,) * scores.n_models
    return provenance(zip(scores.names, origins, strict=True), seed=seed)


def leaderboard_from_sums(
    sums: np.ndarray,
    /,
    *,
    names: tuple[str, ...],
    n_input: np.ndarray,
    binary: bool,
    clustered: bool,
    correction: Correction,
    alpha: float,
    power: float,
    confidence_level: float,
    task: str | None,
    notes: tuple[str, ...],
    on_missing: str,
    on_mismatch: str,
    n_mismatched: int,
    boot: np.ndarray | None = None,
    seed: int | None = None,
    shapes: tuple[np.ndarray, np.ndarray] | None = None,
    stratified: bool = False,
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from the ``(G, 4, M, M)`` pairwise sums (over
    clusters, strata with ``stratified``, or blocks of independent items).

    Each model's score is ``xm[a, a] / n[a, a]`` and its items compared ``n[a, a]``, summed
    over clusters; every pair is tested by
    :func:`evalsig.inference.allpairs.pair_tests`.
    """
    a_idx, b_idx = np.triu_indices(len(names), 1)
    tests = pair_tests(
        sums, b_idx, a_idx, binary=binary, clustered=clustered, shapes=shapes, stratified=stratified
    )
    if 0 < tests.n_adjusted < len(a_idx):
        notes = (
            *notes,
            f"{tests.n_adjusted:,} of {len(a_idx):,} pairs (a model with several runs of "
            f"scores in [0, 1], under {ADJUSTED_BELOW:,} items) are tested with Agresti-Min "
            "pseudo-items, as compare tests them; the others with the plain paired t",
        )
    total = sums[0] if len(sums) == 1 else sums.sum(axis=0)
    intervals = score_intervals(
        sums,
        binary=binary,
        clustered=clustered,
        confidence_level=confidence_level,
        stratified=stratified,
    )
    return leaderboard_from_tests(
        names=names,
        intervals=intervals,
        means=model_means(total),
        n_items=np.rint(np.diagonal(total[0])).astype(np.int64),
        n_input=n_input,
        tests=tests,
        binary=binary and not clustered and not stratified,
        correction=correction,
        alpha=alpha,
        power=power,
        boot=boot,
        seed=seed,
        confidence_level=confidence_level,
        task=task,
        notes=notes,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
        n_mismatched=n_mismatched,
    )


def check_correction(correction: object) -> None:
    """``correction`` is 'holm' or 'bh'."""
    if correction not in ("holm", "bh"):
        raise DataError(f"`correction` must be 'holm' or 'bh'; got {correction!r}.")


def _seed_sequence(rng: object) -> np.random.SeedSequence:
    """The bootstrap's SeedSequence; a fresh one (from OS entropy) when ``rng`` is None."""
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if rng is None:
        return np.random.SeedSequence(np.random.SeedSequence().entropy)
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)) or rng < 0:
        raise DataError(
            f"`rng` must be a non-negative integer seed, a numpy.random.SeedSequence or None; "
            f"got {rng!r}."
        )
    return np.random.SeedSequence(int(rng))


def _recorded_seed(seed: np.random.SeedSequence) -> int | None:
    """The integer that rebuilds ``seed``, or None when none does (spawned, list entropy)."""
    if seed.spawn_key or seed.n_children_spawned or not isinstance(seed.entropy, int):
        return None
    return int(seed.entropy)


def leaderboard_from_tests(
    *,
    names: tuple[str, ...],
    means: np.ndarray,
    intervals: ScoreIntervals,
    n_items: np.ndarray,
    n_input: np.ndarray | None = None,
    tests: PairTests,
    binary: bool,
    correction: Correction,
    alpha: float,
    power: float,
    boot: np.ndarray | None,
    seed: int | None = None,
    confidence_level: float,
    task: str | None,
    notes: tuple[str, ...],
    on_missing: str = "error",
    on_mismatch: str = "error",
    n_mismatched: int = 0,
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from the tests of pairs ``(b, a)``, ``a < b``.

    ``tests`` covers ``np.triu_indices(M, 1)`` with candidate a (row) and baseline b;
    ``intervals`` are the models' score intervals, in the order of ``names``.
    """
    m = len(names)
    a_idx, b_idx = np.triu_indices(m, 1)
    p = tests.pvalue
    finite = np.isfinite(p)
    p_adj = np.full(len(p), np.nan)
    if finite.any():
        p_adj[finite] = adjust(p[finite], method=correction, alpha=alpha).p_adjusted
    extra = [*notes, intervals.reason]
    if not finite.all():
        extra.append(
            f"{int((~finite).sum())} pairs have no defined p-value (zero variance with a "
            "difference, or no shared items); they count as not separated"
        )
    order = np.argsort(-means, kind="stable")
    position = np.empty(m, dtype=np.int64)
    position[order] = np.arange(m)  # each model's place in the ranking
    a_pos, b_pos = position[a_idx], position[b_idx]
    diff = _square(m, a_pos, b_pos, tests.estimate, antisymmetric=True)
    pv = _square(m, a_pos, b_pos, p)
    adj = _square(m, a_pos, b_pos, p_adj)
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
        score_low=intervals.low[order],
        score_high=intervals.high[order],
        score_method=intervals.method,
        n_items=np.asarray(n_items)[order],
        n_input=np.asarray(n_items if n_input is None else n_input)[order],
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
        seed=None if boot is None else seed,
        confidence_level=confidence_level,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
        n_mismatched=n_mismatched,
        task=task,
        notes=tuple(extra),
    )


def _square(
    m: int, a: np.ndarray, b: np.ndarray, values: np.ndarray, *, antisymmetric: bool = False
) -> np.ndarray:
    """An M x M matrix with ``values`` at ``(a, b)`` and mirrored at ``(b, a)`` (negated when
    antisymmetric); the diagonal is 0 when antisymmetric, else NaN."""
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
