"""One model's score with an honest interval: :func:`score` and its result.

The interval is chosen by the shape of the data, as :func:`evalsig.compare` chooses its
test, and the result records which and why. ``evalsig.score`` is both this module and,
called, the function :func:`score`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe, record_dict, seed_null
from evalsig.data.loading import load
from evalsig.data.paired import table_cluster_codes
from evalsig.data.provenance import Provenance, in_memory_origin, provenance
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError
from evalsig.inference._bootstrap import MIN_ITEMS as MIN_BOOTSTRAP_ITEMS
from evalsig.inference._bootstrap import bootstrap_core
from evalsig.inference._cluster import cluster_robust_core, few_clusters_notes
from evalsig.inference._common import (
    ConfidenceInterval,
    InferenceResult,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_number,
    seeded,
    t_interval,
)
from evalsig.inference.components import nested_runs
from evalsig.inference.proportion import (
    ProportionMethod,
    check_prior,
    proportion_bounds,
)
from evalsig.inference.stratified import Weights, stratified_mean
from evalsig.result import Result

__all__ = ["FEW_ITEMS", "WILSON_FROM", "ScoreMethod", "ScoreResult", "VarianceComponents", "score"]

ScoreMethod = Literal[
    "auto",
    "wilson",
    "wilson-cc",
    "clopper-pearson",
    "jeffreys",
    "agresti-coull",
    "bayes",
    "t",
    "bootstrap",
    "cluster",
    "stratified",
    "macro",
]
"""``score(method=...)``: "auto", an interval for a proportion (one run of 0/1 scores),
the t interval on per-item means, the bootstrap over items, cluster-robust CR2, or the
stratified mean (items' weights) or macro average (strata weighted equally) over strata."""

PROPORTION_METHODS: tuple[ProportionMethod, ...] = tuple(
    method for method in get_args(ProportionMethod) if method in get_args(ScoreMethod)
)
"""The score methods that are intervals for a proportion (all of ProportionMethod's but
"wald"), in ProportionMethod's order."""

MAX_PRIOR = 1e9
"""The largest parameter of a Beta prior that ``method="bayes"`` takes (beyond it the
posterior's quantiles are not computable, and the prior is all there is)."""

FEW_ITEMS = 30
"""Below this many items an interval that leans on normality (t, bootstrap, cluster-robust)
is noted as approximate."""

WILSON_FROM = 1000
"""Fewest items for which ``method="auto"`` gives one run of 0/1 scores the Wilson interval;
below, the Clopper-Pearson interval.

Chosen from the exact coverage of the 95% Wilson interval (the binomial probability of
the outcomes whose interval holds the true accuracy, summed over every outcome), at true
accuracies from 2% to 98% in steps of 0.05 points. At every size from 900 to 3,000 items
it covers at least 93.9% (its lowest, at 1,035 items); 93.7% is the lower edge of the 99%
band of a 2,000-replication simulation at 95%. Below 900 items it dips to 93.6% at 850
items, 93.4% at 650, 92.6% at 121 and 89.5% at 11, always at accuracies within about 5
points of 0% or 100%. Clopper-Pearson covers at least 95% at every accuracy and size, at
2-9% more width than Wilson (9% at 30 items, 6% at 100, 2.4% at 1,000). The Bayesian
Beta(1, 1) interval (Bowyer et al. 2025) is narrower still but covers only 81.7% at 10
items and 87.9% at 30 when the accuracy is 2%, since one success already puts its lower
bound above 2%; it is available as ``method="bayes"``.
``tests/inference/test_score_coverage.py`` holds these claims."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VarianceComponents:
    r"""Where the variance of the per-item mean scores comes from, with several runs.

    An item's mean over :math:`R_i` runs varies for two reasons: items differ in their
    true score (between-item variance :math:`\sigma_b^2`), and runs of one item differ
    (within-item, run-to-run variance :math:`\sigma_w^2`, averaged by the runs):
    :math:`\operatorname{Var}(\bar x_i) = \sigma_b^2 + \sigma_w^2 / R_i`, and the squared
    standard error of the score is :math:`s^2_{\bar x} / N` (Miller 2024). More runs shrink
    only the within part.
    """

    item_means: float
    r"""Sample variance of the per-item means, :math:`s^2_{\bar x}` (the t interval's
    standard error is :math:`\sqrt{s^2_{\bar x} / N}`)."""
    within_item: float
    r"""Pooled run-to-run variance of one run's score,
    :math:`\hat\sigma_w^2 = \sum_i \sum_r (x_{ir} - \bar x_i)^2 / \sum_i (R_i - 1)`."""
    within_contribution: float
    r""":math:`\hat\sigma_w^2 \cdot \operatorname{mean}_i(1 / R_i)`: the part of
    :math:`s^2_{\bar x}` due to run-to-run noise (``within_item / R`` with R runs each)."""
    between_item: float
    r""":math:`s^2_{\bar x}` minus the within contribution: the variance of the items' true
    scores (0 when the difference is negative: a note then says so)."""
    within_share: float
    """Share of the squared standard error due to run-to-run noise, in [0, 1]."""
    between_share: float
    """Share due to the items' differences (``1 - within_share``)."""

    def to_dict(self) -> dict[str, float]:
        return record_dict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreResult(Result):
    """One model's mean score with its interval, the method used and why.

    ``estimate`` is the mean over items of the per-item mean scores (the accuracy for 0/1
    scores); ``ci`` is its interval (``low, high = result.ci``); call
    :meth:`confidence_interval` for another level.
    """

    kind: ClassVar[str] = "score"

    estimate: float
    ci: ConfidenceInterval
    se: float
    """Standard error of the estimate: binomial :math:`\\sqrt{p (1 - p) / N}` for the
    intervals of a proportion (the number harnesses print as "stderr"; those intervals are
    not ``estimate +/- z se``), :math:`s / \\sqrt{N}` for t, the replicates' standard
    deviation for the bootstrap, the CR2 standard error for clusters."""
    df: float | None
    """Degrees of freedom of the t reference (N - 1, or Bell-McCaffrey's); else None."""
    method: str
    """The interval used: 'wilson', 'clopper-pearson', 'bayes', 't', 'bootstrap-bca',
    'cluster-cr2', ..."""
    method_reason: str
    """Why that interval: the data shape that selected it, or 'requested'."""
    n_items: int
    n_runs: int
    """The largest number of runs of any item (method "facets": the cells of the facets
    an item holds, on average, rounded up)."""
    n_clusters: int | None
    n_correct: int | None
    """Items scored 1, for one run of 0/1 scores; else None."""
    prior: tuple[float, float] | None
    """The Beta(a, b) prior of ``method="bayes"``; else None."""
    variance: VarianceComponents | None
    """With several runs per item: between-item and run-to-run variance; else None."""
    n_resamples: int | None
    n_strata: int | None = None
    """Strata the items fall in (``strata=``), or None."""
    seed: int | None = None
    """The seed of the bootstrap's draws (``rng=seed`` reproduces it); None when nothing was
    drawn at random, or ``rng`` was a Generator."""
    percent_scale: bool
    """Whether every per-item mean lies in [0, 1], so the score reads as a percentage."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """Where the scores came from (files and hashes, model, task, metric), the seed, the
    evalsig version and the time."""
    _interval: Callable[[float], tuple[float, float]] = field(repr=False, compare=False)

    @property
    def confidence_level(self) -> float:
        return self.ci.confidence_level

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """The interval at another confidence level, by the same method."""
        level = check_confidence_level(confidence_level)
        low, high = self._interval(level)
        return ConfidenceInterval(low=low, high=high, confidence_level=level)

    def __iter__(self) -> Any:
        """``estimate, (low, high) = result``: deprecated (only a test result unpacks, as
        ``(statistic, pvalue)``); read ``result.estimate`` and ``result.ci``."""
        warnings.warn(
            "unpacking a score result as (estimate, ci) is deprecated and will be removed in "
            "the next release; read result.estimate and result.ci",
            DeprecationWarning,
            stacklevel=2,
        )
        return iter((self.estimate, self.ci))

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-safe fields: NaN and infinities become null, explained in ``nulls``."""
        nulls: dict[str, str] = {}
        seed_null(nulls, self.seed, drew=self.n_resamples is not None)
        variance = None
        if self.variance is not None:
            variance = {
                name: json_safe(value, f"variance.{name}", nulls, "undefined: no variation")
                for name, value in self.variance.to_dict().items()
            }
        return {
            "kind": "score",
            "schema_version": SCHEMA_VERSION,
            "estimate": self.estimate,
            "ci": {
                "low": json_safe(self.ci.low, "ci.low", nulls, "undefined"),
                "high": json_safe(self.ci.high, "ci.high", nulls, "undefined"),
                "confidence_level": self.ci.confidence_level,
            },
            "se": json_safe(self.se, "se", nulls, "undefined"),
            "df": json_safe(self.df, "df", nulls, "undefined"),
            "method": self.method,
            "method_reason": self.method_reason,
            "n_items": self.n_items,
            "n_runs": self.n_runs,
            "n_clusters": self.n_clusters,
            "n_strata": self.n_strata,
            "n_correct": self.n_correct,
            "prior": None if self.prior is None else {"a": self.prior[0], "b": self.prior[1]},
            "variance": variance,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "percent_scale": self.percent_scale,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row: model, task, estimate, ci_low, ci_high, confidence_level, se, df,
        method, n_items, n_runs, n_clusters, n_correct, and the variance components
        (NaN without several runs); the numbers of :meth:`to_dict`, with NaN for null."""
        from evalsig._frame import Nullable, data_frame

        origin = None if self.provenance is None else dict(self.provenance.inputs).get(LABEL)
        parts = self.variance.to_dict() if self.variance is not None else {}
        components = {
            f"variance_{name}": np.array([parts.get(name, math.nan)], dtype=np.float64)
            for name in (
                "item_means",
                "within_item",
                "within_contribution",
                "between_item",
                "within_share",
                "between_share",
            )
        }
        return data_frame(
            {
                "model": [None if origin is None else origin.model],
                "task": [None if origin is None else origin.task],
                "estimate": np.array([self.estimate]),
                "ci_low": np.array([self.ci.low]),
                "ci_high": np.array([self.ci.high]),
                "confidence_level": np.array([self.ci.confidence_level]),
                "se": np.array([self.se]),
                "df": np.array([math.nan if self.df is None else self.df]),
                "method": [self.method],
                "n_items": np.array([self.n_items], dtype=np.int64),
                "n_runs": np.array([self.n_runs], dtype=np.int64),
                "n_clusters": Nullable([self.n_clusters], "Int64"),
                "n_strata": Nullable([self.n_strata], "Int64"),
                "n_correct": Nullable([self.n_correct], "Int64"),
                **components,
            }
        )


LABEL = "model"
"""The label of the scored input in a result's provenance."""


def score(
    data: Any,
    /,
    *,
    method: ScoreMethod = "auto",
    confidence_level: float = 0.95,
    cluster: Any = None,
    strata: Any = None,
    facets: Sequence[str] | None = None,
    prior: tuple[float, float] | None = None,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> ScoreResult:
    r"""One model's mean score with a confidence interval chosen to cover honestly.

    Parameters
    ----------
    data : array, mapping, DataFrame, file path or ScoreTable
        Per-item scores in any form :func:`evalsig.load` accepts: a 1-D array (one run),
        a 2-D ``runs x items`` array, ``{item_id: score}`` or ``{item_id: [run scores]}``,
        a long-format table or harness output. For a file's options (task, metric,
        columns) read it with :func:`evalsig.load` first and pass the table.
    method : {"auto", "wilson", "wilson-cc", "clopper-pearson", "jeffreys", \
"agresti-coull", "bayes", "t", "bootstrap", "cluster"}
        "auto" chooses by the data: clusters -> cluster-robust CR2 on per-item means; one
        run of 0/1 scores -> Wilson from :data:`WILSON_FROM` (1,000) items, Clopper-Pearson
        below; several runs or continuous scores -> t interval on per-item means. The
        intervals of a proportion (:mod:`evalsig.inference.proportion`) need one run of 0/1
        scores; "bootstrap" resamples items (BCa; at least 50 items, else the t interval
        is used and the reason says so); "cluster" needs cluster labels; with strata "auto"
        is "stratified" (:mod:`evalsig.inference.stratified`), "macro" their means' mean.
    confidence_level : float
    cluster : str, sequence or mapping, optional
        Cluster of each item (subject, passage, source): a column name for a file or
        DataFrame, a sequence in item order, or a mapping ``item_id -> label``. Methods
        other than "cluster" ignore it, and a note says so.
    strata : str, sequence or mapping, optional
        Stratum of each item, as ``cluster``: fixed groups that make up the population
        (subjects), not sampled from a larger set. Not with ``cluster``.
    facets : sequence of str, optional
        Columns of a long table (a score a row, in a column named ``score``, ``correct``,
        ``acc`` ...) crossing the items with other sampled facets (prompts, runs, judges),
        item first: method "facets", the t interval with the SE of every facet's REML
        component (:func:`evalsig.facets.variance_sources`) on Satterthwaite's df.
    prior : (a, b), optional
        The Beta(a, b) prior of ``method="bayes"`` (Beta(1, 1) when not given).
    n_resamples : int
        Resamples of the bootstrap.
    rng : numpy.random.Generator, int or None
        Seed or generator of the bootstrap. When None a seed is drawn from the operating
        system and recorded as ``seed``, so that ``rng=result.seed`` reproduces the result.

    Returns
    -------
    ScoreResult

    Raises
    ------
    DataError
        Invalid scores, an unknown method, a method that does not fit the data (an
        interval for a proportion on continuous scores or several runs, fewer than 2
        items for t, fewer than 2 clusters), a prior without ``method="bayes"``.

    Notes
    -----
    With several runs the interval is
    :math:`\bar x \pm t_{N-1, 1-\alpha/2}\, s_{\bar x} / \sqrt N` over the N per-item means
    :math:`\bar x_i`: items are the independent units and runs only average out decoding
    noise. The result's ``variance`` splits :math:`s^2_{\bar x}` into the items'
    true-score variance and the run-to-run variance divided by the runs
    (:class:`VarianceComponents`). With clusters the standard error is CR2 with
    Bell-McCaffrey degrees of freedom (:func:`evalsig.inference.cluster_robust`), on the
    per-item means. When every per-item mean lies in [0, 1] (accuracies, 0/1 scores) the
    t, bootstrap and cluster intervals are clipped to [0, 1], where the mean lies, so no
    coverage is lost (a note says when they reached outside); with fewer than
    :data:`FEW_ITEMS` (30) items a note names the count and calls them approximate.

    References
    ----------
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
    evaluations. arXiv:2411.00640.
    Bowyer, S., Aitchison, L. & Ivanova, D. R. (2025). Position: Don't use the CLT in LLM
    evals with fewer than a few hundred datapoints. *ICML 2025*.
    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
    proportion. *Statistical Science* 16(2), 101-133.

    Examples
    --------
    >>> result = score([1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
    >>> result.method, result.estimate
    ('clopper-pearson', 0.7)
    >>> low, high = result.ci
    >>> round(low, 4), round(high, 4)
    (0.3475, 0.9333)
    >>> result.method_reason.split(":")[0]
    'small sample'
    >>> score([[1, 0, 1, 1], [1, 1, 0, 1]]).method
    't'
    """
    level = check_confidence_level(confidence_level)
    if facets is not None:
        return _score_facets(data, facets, method, (cluster, strata, prior), level)
    return _score_items(data, method, level, (cluster, strata), prior, n_resamples, rng)


def _score_items(
    data: Any,
    method: ScoreMethod,
    level: float,
    groups: tuple[Any, Any],
    prior: tuple[float, float] | None,
    n_resamples: int,
    rng: np.random.Generator | int | None,
) -> ScoreResult:
    """:func:`score` of per-item scores, their clusters or strata (``groups``)."""
    chosen_method = _check_method(method)
    table, codes, strata_codes = _grouped(data, *groups)
    n_clusters = None if codes is None else int(codes.max()) + 1
    n_strata = None if strata_codes is None else int(strata_codes.max()) + 1
    single_binary = table.binary and table.n_runs == 1 and not table.ragged
    n_correct = _count_correct(table) if single_binary else None
    chosen, reason = _choose(table, chosen_method, n_clusters, single_binary, n_strata)
    notes = _input_notes(table, codes is not None, chosen, n_strata is not None)
    if chosen == "bootstrap" and table.n_items < MIN_BOOTSTRAP_ITEMS:
        chosen, reason = "t", _too_few_for_bootstrap(table.n_items)
    prior_used = check_prior(prior, chosen) if chosen == "bayes" or prior is not None else None
    interval = _fit(table, chosen, (codes, strata_codes), n_correct, prior_used, n_resamples, rng)
    return _result(
        table,
        interval,
        level,
        chosen=chosen,
        reason=reason,
        notes=notes,
        n_clusters=n_clusters,
        n_strata=n_strata,
        n_correct=n_correct,
        prior=prior_used,
    )


def _score_facets(
    data: Any, facets: Sequence[str], method: str, others: tuple[Any, ...], level: float
) -> ScoreResult:
    """:func:`score` of a long table whose items cross other facets (``others``: the
    cluster, strata and prior given, which do not apply)."""
    from evalsig.facets import variance_sources
    from evalsig.facets.paired import (
        METHOD,
        check_request,
        facet_interval,
        score_column_of,
        scores_in_unit_interval,
        se_note,
    )

    check_request(method, dict(zip(("cluster", "strata", "prior"), others, strict=True)))
    column = score_column_of(data, facets)
    sources = variance_sources(
        data, facets=facets, score_column=column, n_resamples=0, confidence_level=level
    )
    estimate, se, df = sources.mean, sources.se, sources.df  # se > 0: the scores vary
    interval = _Interval(
        method=METHOD,
        estimate=estimate,
        se=se,
        df=df if math.isfinite(df) else None,
        bounds=lambda at: facet_interval(estimate, se, df, at, "two-sided"),
        notes=(se_note(sources), *sources.notes),
    )
    unit = scores_in_unit_interval((data,), column)
    if unit:
        interval = _within_unit(interval, level)
    low, high = interval.bounds(level)
    items = sources.facet_levels[0]
    return ScoreResult(
        estimate=estimate,
        ci=ConfidenceInterval(low=low, high=high, confidence_level=level),
        se=se,
        df=interval.df,
        method=METHOD,
        method_reason="the items cross facets: " + ", ".join(sources.facets),
        n_items=items,
        n_runs=math.ceil(sources.n / items),
        n_clusters=None,
        n_correct=None,
        prior=None,
        variance=None,
        n_resamples=None,
        percent_scale=unit,
        notes=interval.notes,
        provenance=provenance({LABEL: in_memory_origin(type(data).__name__)}),
        _interval=interval.bounds,
    )


def _input_notes(
    table: ScoreTable, clustered: bool, chosen: str, stratified: bool = False
) -> list[str]:
    """The table's notes, and what the chosen method makes of ragged runs and clusters."""
    notes = list(table.notes)
    if table.ragged:
        notes.append(
            f"{table.runs_summary()}: the score is the mean of per-item means, each item "
            "weighing the same."
        )
    if clustered and chosen != "cluster":
        notes.append(
            f"cluster labels were given but method={chosen!r} ignores them: its interval "
            "treats items as independent (use method='cluster')."
        )
    if stratified and chosen not in ("stratified", "macro"):
        notes.append(
            f"strata were given but method={chosen!r} ignores them: its interval counts the "
            "variance between strata (use method='stratified')."
        )
    return notes


def _too_few_for_bootstrap(n_items: int) -> str:
    """Why the t interval stands in for a bootstrap requested on too few items."""
    return (
        f"requested the bootstrap, but with {n_items} items (fewer than "
        f"{MIN_BOOTSTRAP_ITEMS}) its interval is too narrow (at 20 items a 95% bootstrap "
        "interval covers about 92.6%); used the t interval instead"
    )


def _fit(
    table: ScoreTable,
    chosen: str,
    groups: tuple[np.ndarray | None, np.ndarray | None],
    n_correct: int | None,
    prior: tuple[float, float] | None,
    n_resamples: int,
    rng: np.random.Generator | int | None,
) -> _Interval:
    """The interval of the chosen method, or why it does not fit the data; ``groups`` are
    the items' cluster codes and strata codes (either may be None)."""
    codes, strata_codes = groups
    if chosen in ("stratified", "macro"):
        return _stratified(table.means, strata_codes, chosen)
    if chosen in PROPORTION_METHODS:
        if n_correct is None:
            raise DataError(_proportion_misfit(table, chosen))
        return _proportion(n_correct, table.n_items, chosen, prior)
    if chosen == "cluster":
        if codes is None:
            raise DataError(
                "method='cluster' needs cluster labels: pass cluster= (a column name, one "
                "label per item, or a mapping item_id -> label)."
            )
        return _clustered(table.means, codes)
    if chosen == "bootstrap":
        return _bootstrap(table.means, n_resamples, rng)
    return _t(table.means)


def _result(
    table: ScoreTable,
    interval: _Interval,
    level: float,
    *,
    chosen: str,
    reason: str,
    notes: list[str],
    n_clusters: int | None,
    n_correct: int | None,
    prior: tuple[float, float] | None,
    n_strata: int | None = None,
) -> ScoreResult:
    """The result: the interval clipped to [0, 1] for bounded scores, with every note."""
    unit = table.binary or _in_unit_interval(table.means)
    if chosen not in PROPORTION_METHODS:
        if unit:
            interval = _within_unit(interval, level)
        notes = notes + _few_items_notes(table.n_items, interval.method, n_correct is not None)
    notes = notes + list(interval.notes)
    variance = None
    if table.n_runs > 1:
        variance, note = _components(table)
        notes += note
    low, high = interval.bounds(level)
    return ScoreResult(
        estimate=interval.estimate,
        ci=ConfidenceInterval(low=low, high=high, confidence_level=level),
        se=interval.se,
        df=interval.df,
        method=interval.method,
        method_reason=reason,
        n_items=table.n_items,
        n_runs=table.n_runs,
        n_clusters=n_clusters,
        n_strata=n_strata,
        n_correct=n_correct,
        prior=prior if chosen == "bayes" else None,
        variance=variance,
        n_resamples=interval.n_resamples,
        seed=interval.seed,
        percent_scale=unit,
        notes=tuple(dict.fromkeys(notes)),
        provenance=provenance({LABEL: table.origin}, seed=interval.seed),
        _interval=interval.bounds,
    )


def _few_items_notes(n_items: int, method: str, single_binary: bool) -> list[str]:
    """A note that an interval on fewer than :data:`FEW_ITEMS` items is approximate."""
    if n_items >= FEW_ITEMS:
        return []
    return [
        f"only {n_items} items: the {method} interval leans on the mean of "
        "the per-item scores being near normal, which so few items cannot show; read it "
        "as approximate, and score more items"
        + (
            " (with one run of 0/1 scores, method='clopper-pearson' is exact)."
            if single_binary
            else "."
        )
    ]


# --- choosing ------------------------------------------------------------------------------


def _check_method(method: object) -> str:
    return str(check_choice(method, get_args(ScoreMethod), "`method`"))


def _choose(
    table: ScoreTable,
    method: str,
    n_clusters: int | None,
    single_binary: bool,
    n_strata: int | None = None,
) -> tuple[str, str]:
    if method != "auto":
        return method, "requested"
    n = table.n_items
    if n_strata is not None:
        return "stratified", (
            f"items fall in {n_strata} strata: stratified mean of per-item means, the "
            "variance between strata out of its standard error (Satterthwaite df)"
        )
    if n_clusters is not None:
        return "cluster", (
            f"items are grouped in {n_clusters} clusters: cluster-robust standard error "
            "(CR2, Bell-McCaffrey degrees of freedom) on per-item means"
        )
    if single_binary and n < WILSON_FROM:
        return "clopper-pearson", (
            f"small sample: asymptotic intervals under-cover below N={WILSON_FROM:,} "
            "(the 95% Wilson interval covers as little as 89.5% at 11 items and 92.6% at 121, "
            "at accuracies near 0% or 100%); "
            f"one run of 0/1 scores on {n:,} items: Clopper-Pearson exact interval, which "
            "covers at least its level at any accuracy"
        )
    if single_binary:
        return "wilson", f"one run of 0/1 scores on {n:,} items: Wilson score interval"
    if table.n_runs > 1:
        return "t", (
            f"several runs per item ({table.runs_summary()}): t interval on per-item means, "
            "with items as the independent units"
        )
    return "t", "continuous scores: t interval on per-item scores"


# --- the intervals -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Interval:
    """What one method found, with its interval at any level."""

    method: str
    estimate: float
    se: float
    df: float | None
    bounds: Callable[[float], tuple[float, float]]
    notes: tuple[str, ...] = ()
    n_resamples: int | None = None
    seed: int | None = None


def _count_correct(table: ScoreTable) -> int:
    """The items scored 1 of one run of 0/1 scores, summed exactly block by block."""
    return sum(round(float(sums.sum())) for _, sums in table.sum_blocks())


def _proportion(k: int, n: int, method: str, prior: tuple[float, float] | None) -> _Interval:
    """An interval for the proportion ``k / n`` (one run of 0/1 scores)."""
    p = k / n

    def bounds(level: float) -> tuple[float, float]:
        low, high = proportion_bounds(
            np.array([k]),
            n,
            method=method,  # type: ignore[arg-type]  # one of PROPORTION_METHODS
            confidence_level=level,
            prior=prior if method == "bayes" else None,
        )
        return float(low[0]), float(high[0])

    notes: list[str] = []
    if method == "bayes":
        a, b = prior or (1.0, 1.0)
        for place, value in enumerate((a, b)):
            check_number(
                value,
                f"prior[{place}]",
                low=0.0,
                high=MAX_PRIOR,
                open_low=True,
                fix="A Beta(a, b) prior counts as a + b items scored before the data; use "
                "(1, 1), the uniform prior, or (0.5, 0.5), Jeffreys'.",
            )
        if a + b > n:
            notes.append(
                f"the Beta({a:g}, {b:g}) prior weighs as much as {a + b:g} items, more than "
                f"the {n:,} scored: the interval shows the prior more than the data."
            )
        notes.append(
            f"Bayesian credible interval of the Beta({k} + {a:g}, {n - k} + {b:g}) posterior "
            f"under a Beta({a:g}, {b:g}) prior (equal-tailed; from the edge when no item or "
            "every item is right): where the accuracy lies given the prior, not a coverage "
            "guarantee (the Beta(1, 1) interval covers 82% at 10 items for an accuracy of 2%)."
        )
    return _Interval(
        method=method,
        estimate=p,
        se=math.sqrt(p * (1.0 - p) / n),
        df=None,
        bounds=bounds,
        notes=tuple(notes),
    )


def _proportion_misfit(table: ScoreTable, method: str) -> str:
    if not table.binary:
        return (
            f"method={method!r} is an interval for a proportion and needs 0/1 scores, but the "
            "scores include other values; use method='t' (or 'bootstrap') for continuous "
            "scores."
        )
    return (
        f"method={method!r} is an interval for a proportion and needs one run of 0/1 scores "
        f"per item, but the data have {table.runs_summary()}; use method='t' on per-item "
        "means (the default), which keeps the items as the independent units."
    )


def _t(means: np.ndarray) -> _Interval:
    """``mean +/- t(N-1) s / sqrt(N)`` over per-item means."""
    n = len(means)
    if n < 2:
        raise DataError(
            f"the t interval needs at least 2 items to estimate the spread between items; "
            f"got {n}. Score more items, or for one item of 0/1 scores use "
            "method='clopper-pearson'."
        )
    estimate = float(np.mean(means))
    top = float(np.max(np.abs(means)))
    se = float(np.std(means, ddof=1)) / math.sqrt(n)
    notes: tuple[str, ...] = ()
    if se <= 1e-12 * top:
        se = 0.0
        notes = (
            f"every item has the same mean score {estimate:.6g}: with no variation between "
            "items the t interval is that single point, which says nothing about items not "
            "scored; score more items (or, with 0/1 scores and one run, use "
            "method='clopper-pearson').",
        )
    df = float(n - 1)
    return _Interval(
        method="t",
        estimate=estimate,
        se=se,
        df=df,
        bounds=lambda level: t_interval(estimate, se, df, level, "two-sided"),
        notes=notes,
    )


def _bootstrap(
    means: np.ndarray, n_resamples: int, rng: np.random.Generator | int | None
) -> _Interval:
    """The BCa bootstrap over items (resampling whole items, all their runs together)."""
    resamples = check_n_resamples(n_resamples)
    generator, seed = seeded(rng)
    result = bootstrap_core(
        np.asarray(means, dtype=np.float64),
        kind="bca",
        n_resamples=resamples,
        alternative="two-sided",
        confidence_level=0.95,
        rng=generator,
    )
    kind = result.method.removeprefix("bootstrap-")
    notes = [f"{resamples:,} bootstrap resamples of items; {kind} interval.", *result.notes[1:]]
    if seed is None:
        notes.append(
            "rng was a numpy Generator, so the seed of the draws is unknown (recorded as "
            "null); pass an integer seed to make the result reproducible."
        )
    return _of_core(result, notes, n_resamples=resamples, seed=seed)


def _stratified(means: np.ndarray, codes: np.ndarray | None, chosen: str) -> _Interval:
    """The stratified mean (items' weights) or macro average (strata weighted equally) of
    per-item means, with the t interval on Satterthwaite's df."""
    if codes is None:
        raise DataError(
            f"method={chosen!r} needs strata: pass strata= (a column name, one label per "
            "item, or a mapping item_id -> label)."
        )
    weights: Weights = "equal" if chosen == "macro" else "proportional"
    m = stratified_mean(np.asarray(means, dtype=np.float64), codes, weights=weights)
    other = stratified_mean(
        np.asarray(means, dtype=np.float64),
        codes,
        weights="proportional" if chosen == "macro" else "equal",
    )
    sizes = m.sizes
    notes = (
        f"{sizes.size} strata (sizes {int(sizes.min()):,} to {int(sizes.max()):,}), "
        f"{weights} weights: SE {m.se:.4g} against {m.plain_se:.4g} unstratified, on "
        f"{m.df:.4g} df (Satterthwaite).",
        (
            "the stratified mean (items' weights) is "
            if chosen == "macro"
            else "the macro average (each stratum's mean weighted equally) is "
        )
        + f"{other.estimate:.4g}, SE {other.se:.4g}: method="
        + ("'stratified'" if chosen == "macro" else "'macro'")
        + " gives it.",
    )
    estimate, se, df = m.estimate, m.se, m.df
    return _Interval(
        method=chosen,
        estimate=estimate,
        se=se,
        df=df,
        bounds=lambda level: t_interval(estimate, se, df, level, "two-sided"),
        notes=notes,
    )


def _clustered(means: np.ndarray, codes: np.ndarray) -> _Interval:
    """CR2 with Bell-McCaffrey df on per-item means (the intercept-only regression)."""
    result = cluster_robust_core(
        np.asarray(means, dtype=np.float64),
        codes,
        variant="cr2",
        alternative="two-sided",
        confidence_level=0.95,
    )
    sizes = np.bincount(codes)
    g = len(sizes)
    notes = [
        f"CR2 (Bell-McCaffrey) standard error on t({result.df:.4g}); {len(means):,} items in "
        f"{g} clusters (sizes {sizes.min()} to {sizes.max()})."
    ]
    notes += few_clusters_notes(g, "interval")
    if result.se == 0.0:
        notes.append(
            f"every cluster has the same mean score {result.estimate:.6g}: the cluster-robust "
            "standard error is 0 and the interval that single point; there is no "
            "between-cluster variation to judge the score's uncertainty by."
        )
    return _of_core(result, notes)


def _of_core(
    result: InferenceResult,
    notes: list[str],
    *,
    n_resamples: int | None = None,
    seed: int | None = None,
) -> _Interval:
    """An inference core's method, estimate, standard error, df and two-sided interval."""
    interval = result._interval
    return _Interval(
        method=result.method,
        estimate=result.estimate,
        se=result.se,
        df=result.df,
        bounds=lambda level: interval(level, "two-sided"),
        notes=tuple(notes),
        n_resamples=n_resamples,
        seed=seed,
    )


def _components(table: ScoreTable) -> tuple[VarianceComponents, list[str]]:
    """Between-item and run-to-run variance of the per-item means (several runs)."""
    moments = nested_runs(table.sums, table.sumsq, table.counts, means=table.means)
    pooled, item_means = moments.run_variance, moments.item_means_variance
    within = pooled * moments.mean_inverse_runs
    between = moments.item_variance
    notes: list[str] = []
    if between < 0:
        notes.append(
            f"the between-item variance estimate is negative ({between:.4g}) and is shown as "
            "0: the items' true scores differ too little to see beside the run-to-run noise."
        )
        between = 0.0
    share = min(1.0, within / item_means) if item_means > 0 else math.nan
    components = VarianceComponents(
        item_means=item_means,
        within_item=pooled,
        within_contribution=within,
        between_item=between,
        within_share=share,
        between_share=1.0 - share,
    )
    return components, notes


def _within_unit(interval: _Interval, level: float) -> _Interval:
    """The interval clipped to [0, 1], the range of the scores (a mean of scores in [0, 1]
    lies there, so clipping loses no coverage), noted when it reached outside at ``level``."""
    raw = interval.bounds

    def bounds(at: float) -> tuple[float, float]:
        low, high = raw(at)
        return max(low, 0.0), min(high, 1.0)

    low, high = raw(level)
    notes = interval.notes
    if low < 0.0 or high > 1.0:
        notes += (
            f"the {interval.method} interval ({low:.4g} to {high:.4g}) reached outside [0, 1], "
            "the range of the scores; it is clipped to [0, 1], where the mean score lies.",
        )
    return dataclasses.replace(interval, bounds=bounds, notes=notes)


def _in_unit_interval(means: np.ndarray) -> bool:
    return bool(len(means) and float(means.min()) >= 0.0 and float(means.max()) <= 1.0)


# --- input ---------------------------------------------------------------------------------


def _load(data: Any, cluster: Any) -> ScoreTable:
    """The scores as a table; a cluster column name is read with the data."""
    if isinstance(cluster, str):
        if isinstance(data, ScoreTable) or not _names_fields(data):
            raise DataError(
                f"`cluster`={cluster!r} names a column, but the data have no columns (an "
                "array, a mapping or a ScoreTable); pass one label per item, or a mapping "
                "item_id -> label."
            )
        return load(data, cluster_column=cluster)
    return load(data)


def _grouped(
    data: Any, cluster: Any, strata: Any
) -> tuple[ScoreTable, np.ndarray | None, np.ndarray | None]:
    """The scores, with the items' cluster codes or their strata codes (one of the two)."""
    if strata is not None and cluster is not None:
        raise DataError(
            "give `cluster` or `strata`, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    grouping = cluster if strata is None else strata
    table = _load(data, grouping)
    codes = _cluster_codes(table, grouping)
    return (table, None, codes) if strata is not None else (table, codes, None)


def _names_fields(data: object) -> bool:
    """Whether the input names its fields: a file path (or several) or a DataFrame."""
    paths = data if isinstance(data, (list, tuple)) and data else [data]
    return hasattr(data, "columns") or all(isinstance(p, (str, os.PathLike)) for p in paths)


def _cluster_codes(table: ScoreTable, cluster: Any) -> np.ndarray | None:
    """Integer cluster codes 0..G-1 of the items, or None without clusters."""
    return table_cluster_codes(table, cluster, count=f"the scores have {table.n_items} items")


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`score`.

    ``evalsig.score`` names the function, but Python sets a package's attribute to a
    submodule whenever the submodule is imported (``from evalsig.score import
    ScoreResult``), so ``evalsig.score`` may be this module: calling it then calls
    :func:`score`, and ``evalsig.score(data)`` works either way.
    """

    def __call__(self, data: Any, /, **options: Any) -> ScoreResult:
        return score(data, **options)


sys.modules[__name__].__class__ = _CallableModule
