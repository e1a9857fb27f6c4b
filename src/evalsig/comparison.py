"""Paired comparison of two models on the same items: :func:`compare` and its result."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

import numpy as np

from evalsig import plugins
from evalsig._json import SCHEMA_VERSION, json_safe, seed_null
from evalsig.data.loading import load_pair
from evalsig.data.paired import OnMismatch, OnMissing, PairedScores, as_strata
from evalsig.data.provenance import Provenance, in_memory_origin, provenance
from evalsig.data.table import ScoreTable, items_per_block
from evalsig.errors import DataError
from evalsig.inference._bootstrap import MIN_ITEMS as MIN_BOOTSTRAP_ITEMS
from evalsig.inference._bootstrap import bootstrap_core
from evalsig.inference._cluster import cluster_bootstrap_core, cluster_robust_core
from evalsig.inference._common import (
    Alternative,
    ConfidenceInterval,
    InferenceResult,
    PairedDecision,
    check_alternative,
    check_confidence_level,
    check_n_resamples,
    record_seed,
    seeded,
)
from evalsig.inference._mcnemar import CORRECTED_BELOW, mcnemar_core
from evalsig.inference._permutation import permutation_core
from evalsig.inference._ttest import ADJUSTED_BELOW, adjusted_t_core, paired_t_core
from evalsig.inference._wilcoxon import wilcoxon_core
from evalsig.inference.stratified import stratified_t_core
from evalsig.result import Tested

__all__ = [
    "ComparisonResult",
    "PairedTest",
    "compare",
    "compare_paired",
    "register_test",
    "registered_tests",
    "unregister_test",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonResult(PairedDecision, Tested):
    """Is the candidate better than the baseline on the same items? The answer, checkable.

    ``estimate`` is candidate minus baseline on the scale of the scores (0.0117 is +1.17
    percentage points of accuracy). ``ci`` is the interval at the requested level; call
    :meth:`confidence_interval` for another level.
    """

    kind: ClassVar[str] = "comparison"
    estimate: float
    ci: ConfidenceInterval
    pvalue: float
    statistic: float
    statistic_name: str
    df: float | None
    se: float
    method: str
    """The method actually used, e.g. 'mcnemar-asymptotic', 'paired-t', 'bootstrap-bca'."""
    method_reason: str
    """Why that method: the data shape that selected it, or 'requested'."""
    estimand: str
    alternative: Alternative
    baseline_mean: float
    candidate_mean: float
    n_items: int
    n_runs: tuple[int, int]
    """Largest number of runs per item of the baseline and of the candidate (method
    "facets": the cells of the facets an item holds, on average, rounded up)."""
    n_clusters: int | None
    n01: int | None
    """Items the baseline gets wrong and the candidate right (binary single-run data)."""
    n10: int | None
    """Items the baseline gets right and the candidate wrong."""
    n_resamples: int | None
    seed: int | None = None
    """The seed of the random draws: ``rng=seed`` (CLI ``--seed``) reproduces the result
    exactly. None when the method draws nothing at random, or ``rng`` was a Generator."""
    n_strata: int | None = None
    """Strata the items fall in (``strata=``), or None."""
    n_dropped: tuple[int, int]
    """Items dropped as present only in the baseline, only in the candidate."""
    n_mismatched: int
    """Items whose content keys differ between the sides (see ``on_mismatch`` and the notes)."""
    percent_scale: bool
    """Whether all scores lie in [0, 1], so differences read as percentage points."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """What was compared (each side's files, hashes, model, task, metric), the seed, the
    evalsig version and the time."""
    _interval: Callable[[float, Alternative], tuple[float, float]] = field(
        repr=False, compare=False
    )

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-safe fields: NaN and infinities become null, explained in ``nulls``."""
        nulls: dict[str, str] = {}
        one_sided = "one-sided interval" if self.alternative != "two-sided" else "undefined"
        seed_null(nulls, self.seed, drew=self.n_resamples is not None)
        return {
            "kind": "comparison",
            "schema_version": SCHEMA_VERSION,
            "estimate": json_safe(self.estimate, "estimate", nulls, "undefined"),
            "estimand": self.estimand,
            "ci": {
                "low": json_safe(self.ci.low, "ci.low", nulls, one_sided),
                "high": json_safe(self.ci.high, "ci.high", nulls, one_sided),
                "confidence_level": self.ci.confidence_level,
            },
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, "undefined (see notes)"),
            "statistic": json_safe(self.statistic, "statistic", nulls, "undefined"),
            "statistic_name": self.statistic_name,
            "df": json_safe(self.df, "df", nulls, "undefined"),
            "se": json_safe(self.se, "se", nulls, "not defined for this method"),
            "method": self.method,
            "method_reason": self.method_reason,
            "alternative": self.alternative,
            "baseline_mean": self.baseline_mean,
            "candidate_mean": self.candidate_mean,
            "n_items": self.n_items,
            "n_runs": {"baseline": self.n_runs[0], "candidate": self.n_runs[1]},
            "n_clusters": self.n_clusters,
            "n_strata": self.n_strata,
            "n01": self.n01,
            "n10": self.n10,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "n_dropped": {"only_baseline": self.n_dropped[0], "only_candidate": self.n_dropped[1]},
            "n_mismatched": self.n_mismatched,
            "percent_scale": self.percent_scale,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }


Method = Literal[
    "auto", "mcnemar", "paired-t", "permutation", "bootstrap", "wilcoxon", "cluster", "stratified"
]

VARIANTS: dict[str, tuple[str, ...]] = {
    "mcnemar": ("auto", "score-cc", "exact", "asymptotic", "corrected", "mid-p"),
    "paired-t": (),
    "permutation": ("auto", "exact", "monte-carlo"),
    "bootstrap": ("bca", "percentile", "basic"),
    "wilcoxon": ("auto", "exact", "normal"),
    "cluster": ("cr2", "cr1", "bootstrap", "wild"),
    "stratified": ("proportional", "equal"),
}
"""The ``variant`` values each method accepts (the first is the default)."""

ADJUSTED = "paired-t-adjusted"
"""The default for several runs of scores in [0, 1] on few items (not a ``method`` one can
request: ``method="auto"`` picks it)."""

TestFunction = Callable[..., InferenceResult]
"""``test(d, *, variant, alternative, confidence_level, n_resamples, rng) -> InferenceResult``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedTest:
    """A paired test of your own (or a plugin's), for ``compare(method=name)``.

    ``function(d, *, variant, alternative, confidence_level, n_resamples, rng)`` receives
    ``d``, the per-item differences candidate minus baseline (float64; per-item means when
    there are several runs, items in the aligned order; clusters are not passed), the
    ``variant`` asked for (None when ``variants`` is empty, else one of them, the first by
    default), the checked ``alternative``, ``confidence_level`` and ``n_resamples``, and a
    numpy Generator ``rng`` to draw from. It returns an
    :class:`~evalsig.inference.InferenceResult` for that alternative and level (build it
    with :func:`evalsig.plugins.inference_result`).
    """

    name: str
    function: TestFunction
    description: str = ""
    """What the test does, shown as the reason the method was used."""
    variants: tuple[str, ...] = ()
    """The ``variant`` values it accepts, the default first."""
    origin: str = ""
    """The distribution a plugin's test came from (set when it is loaded)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise DataError(f"a paired test needs a non-empty `name`; got {self.name!r}.")
        if self.name == "auto" or self.name in VARIANTS:
            raise DataError(
                f"{self.name!r} is a built-in method of compare; name your test otherwise."
            )
        if not callable(self.function):
            raise DataError(f"`function` of test {self.name!r} must be callable.")
        if not isinstance(self.variants, tuple) or not all(
            isinstance(v, str) for v in self.variants
        ):
            raise DataError(
                f"`variants` of test {self.name!r} must be a tuple of strings; "
                f"got {self.variants!r}."
            )


_TESTS: dict[str, PairedTest] = {}
"""Paired tests registered in code or by plugins (entry-point group ``evalsig.methods``)."""


def register_test(test: PairedTest, /, *, replace: bool = False) -> PairedTest:
    """Add a paired test, so that ``compare(method=test.name)`` runs it.

    ``replace=True`` replaces a test registered under the same name; built-in methods
    cannot be replaced. Plugins register theirs through the entry-point group
    ``evalsig.methods`` (see :mod:`evalsig.plugins`).

    Examples
    --------
    >>> from dataclasses import replace
    >>> from evalsig.inference import paired_t
    >>> def clipped_t(d, *, variant, alternative, confidence_level, n_resamples, rng):
    ...     'Paired t-test on differences clipped to [-0.5, 0.5].'
    ...     result = paired_t(baseline=0 * d, candidate=d.clip(-0.5, 0.5),
    ...                       alternative=alternative, confidence_level=confidence_level)
    ...     return replace(result, method="clipped-t")
    >>> register_test(PairedTest(name="clipped-t", function=clipped_t)).name
    'clipped-t'
    >>> compare([0.1, 0.4, 0.3, 0.9], [0.3, 0.5, 0.3, 0.2], method="clipped-t").method
    'clipped-t'
    >>> unregister_test("clipped-t")
    """
    if not isinstance(test, PairedTest):
        raise DataError(f"register_test() takes a PairedTest; got {test!r:.60}.")
    if test.name in _TESTS and not replace:
        raise DataError(f"a test {test.name!r} is registered already; pass replace=True.")
    _TESTS[test.name] = test
    return test


def unregister_test(name: str) -> None:
    """Remove a test registered with :func:`register_test`."""
    if name not in _TESTS:
        raise DataError(f"no test {name!r} is registered.")
    del _TESTS[name]


def registered_tests() -> Mapping[str, PairedTest]:
    """Every registered test by name (plugins' included), read-only."""
    load_plugins()
    return MappingProxyType(_TESTS)


def load_plugins() -> tuple[plugins.Plugin, ...]:
    """Register the paired tests of installed plugins (entry-point group
    ``evalsig.methods``), once."""
    return plugins.load_group(plugins.METHODS, _install_plugin)


def _install_plugin(entry: object, plugin: plugins.Plugin) -> str:
    """A plugin's :class:`PairedTest`, or a test function named after the entry point."""
    if isinstance(entry, PairedTest):
        test = entry
    elif callable(entry):
        doc = (getattr(entry, "__doc__", None) or "").strip()
        test = PairedTest(name=plugin.name, function=entry, description=doc.split("\n")[0])
    else:
        raise plugins.PluginError(
            f"it names {type(entry).__name__} {entry!r:.60}, not a PairedTest or a test function."
        )
    if test.name in _TESTS:
        raise plugins.PluginError(
            f"a test {test.name!r} is registered already, and is kept; rename the plugin's."
        )
    register_test(dataclasses.replace(test, origin=plugin.source))
    return f"paired test {test.name!r}"


def compare(
    baseline: Any,
    candidate: Any,
    /,
    *,
    method: Method | str = "auto",
    variant: str | None = None,
    alternative: Alternative = "two-sided",
    one_sided: bool | None = None,
    cluster: Any = None,
    strata: Any = None,
    facets: Sequence[str] | None = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> ComparisonResult:
    """Compare a candidate model with a baseline on the same items, with a paired test.

    Parameters
    ----------
    baseline, candidate : array, mapping, DataFrame, file path or ScoreTable
        Each model's per-item scores, in any form :func:`evalsig.load` accepts: a 1-D array
        (one run), a 2-D ``runs x items`` array, ``{item_id: score}``, a long-format table.
        Items are matched by id when ids exist, never by position.
    method : {"auto", "mcnemar", "paired-t", "permutation", "bootstrap", "wilcoxon", "cluster", \
"stratified"}
        "auto" picks by the data: strata -> the stratified t-test
        (:mod:`evalsig.inference.stratified`); clusters -> cluster-robust (CR2); one run of
        0/1 scores -> McNemar (fewer than 25 discordant items: the score test and interval with
        continuity correction 1/2, "mcnemar-score-cc"; else the z-test with Tango's
        interval); several runs of scores in [0, 1] on fewer than 1,000 items -> the t-test
        on per-item means with Agresti-Min pseudo-items ("paired-t-adjusted"); otherwise
        the paired t-test on per-item means. Every default's p-value is that of the test
        its interval inverts: ``p < alpha`` exactly when the interval excludes 0.
        Or the name of a test added with :func:`register_test` or by a plugin.
    variant : str, optional
        The method's variant: McNemar "score-cc" / "exact" / "asymptotic" / "corrected" /
        "mid-p";
        permutation "auto" / "exact" / "monte-carlo"; bootstrap "bca" / "percentile" / "basic";
        Wilcoxon "exact" / "normal"; cluster "cr2" / "cr1" / "bootstrap" / "wild";
        stratified "proportional" (each stratum by its items: the plain mean difference,
        the variance between strata out of its SE) / "equal" (the macro average: each
        stratum's mean difference weighted equally).
    alternative : {"two-sided", "greater", "less"}
        "greater": the candidate is better.
    one_sided : bool, optional
        ``True`` is ``alternative="greater"`` (the candidate is better).
    cluster : str, sequence or mapping, optional
        Cluster of each item (subject, passage, source): a column name for tables and
        files, a sequence in the baseline's item order, or a mapping ``item_id -> label``.
        Clusters are groups sampled from a larger set (passages, templates, source
        documents).
    strata : str, sequence or mapping, optional
        Stratum of each item, in the forms ``cluster`` takes: fixed groups that are the
        whole population of interest (an exam's subjects, a suite's subtasks). Not with
        ``cluster``.
    facets : sequence of str, optional
        Columns of long tables (DataFrames or mappings, a score a row, in a column named
        ``score``, ``correct``, ``acc`` ...) crossing the items with other sampled facets:
        ``["item", "prompt", "run"]``, item first. Method "facets" (:mod:`evalsig.facets.paired`):
        the mean difference by cell, SE from every facet's REML component, Satterthwaite df.
    on_missing : {"error", "intersect"}
        Items present on one side only: an error (default) or compare the shared items
        and record how many were dropped.
    on_mismatch : {"error", "exclude", "keep"}
        Items whose content key (gold answer, target, document hash, when the files carry
        one) differs between the sides: an error (default), drop them, or keep them; the
        result records how many.
    confidence_level : float
    n_resamples : int
        Resamples for the bootstrap, permutation and cluster-bootstrap methods.
    rng : numpy.random.Generator, int or None
        Seed or generator, for resampling methods. When None a seed is drawn from the
        operating system's entropy and recorded as ``seed`` in the result, so that
        ``rng=result.seed`` reproduces it exactly.

    Returns
    -------
    ComparisonResult

    Raises
    ------
    DataError
        Invalid scores, misaligned items, an unknown method or variant, or a method that
        does not fit the data (McNemar on continuous scores or several runs).

    Examples
    --------
    >>> from evalsig.simulate import simulate_benchmark
    >>> bench = simulate_benchmark(n_items=4000, n_runs=8, uplift=0.01, rng=1)
    >>> result = compare(bench.baseline, bench.candidate, one_sided=True)
    >>> result.method, result.p_value < 0.05
    ('paired-t', True)
    """
    alternative = _resolve_alternative(alternative, one_sided)
    confidence_level = check_confidence_level(confidence_level)
    if facets is not None:
        return _compare_facets(
            baseline,
            candidate,
            facets=facets,
            method=method,
            others={"variant": variant, "cluster": cluster, "strata": strata},
            on_missing=on_missing,
            alternative=alternative,
            confidence_level=confidence_level,
        )
    _check_method(method)
    paired = _pair(baseline, candidate, cluster, strata, on_missing, on_mismatch)
    return compare_paired(
        paired,
        method=method,
        variant=variant,
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )


def _pair(
    baseline: Any,
    candidate: Any,
    cluster: Any,
    strata: Any,
    on_missing: OnMissing,
    on_mismatch: OnMismatch,
) -> PairedScores:
    """The two sides aligned by item, with their clusters or strata."""
    if strata is not None and cluster is not None:
        raise DataError(
            "give `cluster` or `strata`, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    paired = load_pair(
        baseline,
        candidate,
        cluster=cluster if strata is None else strata,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
    )
    return paired if strata is None else as_strata(paired)


def compare_paired(
    paired: PairedScores,
    /,
    *,
    method: Method | str = "auto",
    variant: str | None = None,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> ComparisonResult:
    """:func:`compare` on scores already aligned by :func:`evalsig.pair`.

    For workflows that need the aligned items too (release gates, leaderboards).
    """
    alternative = check_alternative(alternative)
    confidence_level = check_confidence_level(confidence_level)
    _check_method(method)
    chosen, reason = _choose(paired, method)
    chosen_variant = _check_variant("paired-t" if chosen == ADJUSTED else chosen, variant)
    if chosen == "bootstrap" and paired.n_items < MIN_BOOTSTRAP_ITEMS:
        chosen, chosen_variant = "permutation", "auto"
        reason = (
            f"requested the bootstrap, but with {paired.n_items} items (fewer than "
            f"{MIN_BOOTSTRAP_ITEMS}) its interval is too narrow and its p-value too small "
            "(at 20 items it rejects a true null 7% of the time at alpha 0.05); used the "
            "sign-flip permutation test instead, which is calibrated at any size"
        )
    generator, seed = seeded(rng)
    discordant = _discordant(paired) if paired.single_run and paired.binary else None
    test = _run(
        paired,
        chosen,
        chosen_variant,
        discordant=discordant,
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=generator,
    )
    test = record_seed(test, seed)
    notes = list(paired.notes) + list(test.notes)
    if paired.n_clusters is not None and chosen != "cluster":
        notes.append(
            f"cluster labels were given but method={chosen!r} ignores them: its standard "
            "error treats items as independent (use method='cluster')."
        )
    if paired.n_strata is not None and chosen != "stratified":
        notes.append(
            f"strata were given but method={chosen!r} ignores them: its standard error "
            "counts the variance between strata (use method='stratified')."
        )
    ranges = (_mean_range(paired.baseline), _mean_range(paired.candidate))
    values = {value for low_high in ranges for value in low_high}
    if len(values) == 1:
        notes.append(
            f"every score on both sides is {values.pop():g}: the values cannot tell a 0/1 "
            "score from one on another scale (0-100), so read the percentage points as "
            "assuming 0/1 scores."
        )
    n01, n10 = discordant if discordant is not None else (None, None)
    return ComparisonResult(
        **_tested(test),
        method_reason=reason,
        alternative=alternative,
        baseline_mean=paired.baseline.mean,
        candidate_mean=paired.candidate.mean,
        n_items=paired.n_items,
        n_runs=(paired.baseline.n_runs, paired.candidate.n_runs),
        n_clusters=paired.n_clusters,
        n_strata=paired.n_strata,
        n01=n01,
        n10=n10,
        n_dropped=(paired.n_only_baseline, paired.n_only_candidate),
        n_mismatched=paired.n_mismatched,
        percent_scale=_in_unit_interval(paired, ranges),
        notes=tuple(notes),
        provenance=provenance(
            {"baseline": paired.baseline.origin, "candidate": paired.candidate.origin},
            seed=test.seed,
        ),
    )


def _compare_facets(
    baseline: Any,
    candidate: Any,
    *,
    facets: Sequence[str],
    method: str,
    others: Mapping[str, Any],
    on_missing: OnMissing,
    alternative: Alternative,
    confidence_level: float,
) -> ComparisonResult:
    """:func:`compare` of two long tables whose items cross other facets."""
    from evalsig.facets.paired import (
        check_request,
        facet_test,
        score_column_of,
        scores_in_unit_interval,
    )

    check_request(method, others)
    score_column = score_column_of(baseline, facets)
    test, sources = facet_test(
        baseline,
        candidate,
        facets=facets,
        score_column=score_column,
        on_missing=on_missing,
        alternative=alternative,
        confidence_level=confidence_level,
    )
    assert sources.baseline_mean is not None  # a difference has its baseline
    items = sources.facet_levels[0]
    per_item = sources.n / items
    return ComparisonResult(
        **_tested(test),
        method_reason="the items cross facets: " + ", ".join(sources.facets),
        alternative=alternative,
        baseline_mean=sources.baseline_mean,
        candidate_mean=sources.baseline_mean + sources.mean,
        n_items=items,
        n_runs=(math.ceil(per_item), math.ceil(per_item)),
        n_clusters=None,
        n01=None,
        n10=None,
        n_dropped=sources.n_dropped,
        n_mismatched=0,
        percent_scale=scores_in_unit_interval((baseline, candidate), score_column),
        notes=test.notes,
        provenance=provenance(
            {
                "baseline": in_memory_origin(type(baseline).__name__),
                "candidate": in_memory_origin(type(candidate).__name__),
            }
        ),
    )


def _tested(test: InferenceResult) -> dict[str, Any]:
    """The fields a comparison takes from its test."""
    names = ("estimate", "ci", "pvalue", "statistic", "statistic_name", "df", "se", "method")
    fields = (*names, "estimand", "n_resamples", "seed", "_interval")
    return {name: getattr(test, name) for name in fields}


def _check_method(method: object) -> None:
    if isinstance(method, str) and (
        method == "auto" or method in VARIANTS or method in registered_tests()
    ):  # plugins load at the first name that is not built in
        return
    extra = f", or a registered test ({', '.join(map(repr, _TESTS))})" if _TESTS else ""
    raise DataError(
        f"`method` must be 'auto' or one of {', '.join(map(repr, VARIANTS))}{extra}; "
        f"got {method!r}."
    )


def _resolve_alternative(alternative: object, one_sided: object) -> Alternative:
    checked = check_alternative(alternative)
    if one_sided is None or one_sided is False:
        return checked
    if one_sided is not True:
        raise DataError(f"`one_sided` must be True, False or None; got {one_sided!r}.")
    if checked == "less":
        raise DataError(
            "`one_sided=True` tests whether the candidate is better (alternative='greater'), "
            "but alternative='less' was also given; pass only one of them."
        )
    return "greater"


def _choose(paired: PairedScores, method: str) -> tuple[str, str]:
    test = _TESTS.get(method)
    if test is not None:
        origin = f" (from {test.origin})" if test.origin else ""
        return method, f"requested: {test.description or test.name}{origin}"
    if method != "auto":
        return method, "requested"
    if paired.n_strata is not None:
        return "stratified", (
            f"items fall in {paired.n_strata} strata: stratified t-test, proportional weights "
            "(Satterthwaite df)"
        )
    if paired.n_clusters is not None:
        return "cluster", (
            f"items are grouped in {paired.n_clusters} clusters: cluster-robust standard error "
            "(CR2, Bell-McCaffrey degrees of freedom)"
        )
    if paired.binary and paired.single_run:
        return "mcnemar", (
            "one run of 0/1 scores per model: McNemar's test on discordant items (score "
            f"test and interval continuity-corrected below {CORRECTED_BELOW} discordant items)"
        )
    runs = f"{paired.baseline.n_runs} and {paired.candidate.n_runs} runs"
    if (
        not paired.single_run
        and paired.n_items < ADJUSTED_BELOW
        and _scores_in_unit_interval(paired)
    ):
        return ADJUSTED, (
            f"several runs per item ({runs}) of scores in [0, 1] on {paired.n_items} items "
            f"(fewer than {ADJUSTED_BELOW:,}): t-test on per-item means with Agresti-Min "
            "pseudo-items, as the plain t interval covers too little with few items or "
            "many tied ones"
        )
    if paired.binary:
        return "paired-t", (
            f"several runs per item ({runs}): paired t-test on per-item means, with items "
            "as the independent units"
        )
    return "paired-t", "continuous scores: paired t-test on per-item differences"


def _check_variant(method: str, variant: object) -> str | None:
    choices = _TESTS[method].variants if method in _TESTS else VARIANTS[method]
    if variant is None:
        return choices[0] if choices else None
    if variant not in choices:
        allowed = ", ".join(map(repr, choices)) if choices else "none (pass variant=None)"
        raise DataError(
            f"method {method!r} has no variant {variant!r}; its variants are: {allowed}."
        )
    return str(variant)


def _run(
    paired: PairedScores,
    method: str,
    variant: str | None,
    *,
    discordant: tuple[int, int] | None,
    alternative: Alternative,
    confidence_level: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> InferenceResult:
    common: dict[str, Any] = {"alternative": alternative, "confidence_level": confidence_level}
    if method in _TESTS:
        d = paired.differences()
        return _run_registered(
            _TESTS[method], d, variant, n_resamples=n_resamples, rng=rng, **common
        )
    if method == "mcnemar":
        if discordant is None:
            raise DataError(_mcnemar_misfit(paired))
        n01, n10 = discordant
        return mcnemar_core(
            n01,
            n10,
            paired.n_items,
            variant=variant,  # type: ignore[arg-type]  # checked by _check_variant
            **common,
        )
    d = paired.differences()
    if method == "paired-t":
        return paired_t_core(d, overwrite_d=True, **common)  # d is ours, used once
    if method == ADJUSTED:
        return adjusted_t_core(d, **common)
    if method == "wilcoxon":
        return wilcoxon_core(
            d,
            zero_method="wilcox",
            correction=False,
            method=variant,  # type: ignore[arg-type]  # checked by _check_variant
            **common,
        )
    resampling: dict[str, Any] = {
        **common,
        "n_resamples": check_n_resamples(n_resamples),
        "rng": rng,
    }
    if method == "permutation":
        exact = {"auto": None, "exact": True, "monte-carlo": False}[str(variant)]
        return permutation_core(d, exact=exact, **resampling)
    if method == "bootstrap":
        return bootstrap_core(d, kind=variant, **resampling)  # type: ignore[arg-type]
    if method == "stratified":
        if paired.strata_codes is None:
            raise DataError(
                "method='stratified' needs strata: pass strata= (a column name, one label "
                "per item, or a mapping item_id -> label)."
            )
        return stratified_t_core(
            d,
            paired.strata_codes,
            weights=variant,  # type: ignore[arg-type]  # checked by _check_variant
            labels=paired.strata_labels,
            **common,
        )
    if paired.cluster_codes is None:
        raise DataError(
            "method='cluster' needs cluster labels: pass cluster= (a column name, one label "
            "per item, or a mapping item_id -> label)."
        )
    codes = paired.cluster_codes
    if variant in ("bootstrap", "wild"):
        return cluster_bootstrap_core(
            d, codes, variant="pairs" if variant == "bootstrap" else "wild", **resampling
        )
    return cluster_robust_core(d, codes, variant=variant, **common)  # type: ignore[arg-type]


def _run_registered(
    test: PairedTest,
    d: np.ndarray,
    variant: str | None,
    *,
    alternative: Alternative,
    confidence_level: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> InferenceResult:
    """Run a registered test; what it returns must be the result asked for.

    The test's own failures (``sys.exit`` included) and a result outside the ranges of its
    fields (a p-value outside [0, 1], a NaN estimate, an interval with low > high) are a
    :class:`~evalsig.plugins.PluginError` naming the test and the plugin it came from; so
    are the failures of its interval at another level (gate, ``confidence_interval``).
    """
    origin = f" (from {test.origin})" if test.origin else ""
    named = f"test {test.name!r}{origin}"
    fix = f"Fix the test, or choose another method{' (or uninstall the plugin)' if origin else ''}."
    with plugins.isolated(named, fix):
        result = test.function(
            d,
            variant=variant,
            alternative=alternative,
            confidence_level=confidence_level,
            n_resamples=check_n_resamples(n_resamples),
            rng=rng,
        )
    if not isinstance(result, InferenceResult):
        raise plugins.PluginError(
            f"{named} returned {type(result).__name__}, not an "
            "InferenceResult; build its result with evalsig.plugins.inference_result()."
        )
    asked = (alternative, confidence_level)
    given = (result.alternative, result.ci.confidence_level)
    if given != asked:
        raise plugins.PluginError(
            f"{named} returned a result for alternative {given[0]!r} at "
            f"confidence level {given[1]!r}, but {asked[0]!r} at {asked[1]!r} was asked for."
        )
    _check_registered(result, named, fix)
    notes = result.notes
    if math.isnan(result.pvalue) and not notes:
        notes = (f"{named} gave no p-value (NaN) and no note saying why.",)
    interval = result._interval

    def checked(level: float, side: Alternative) -> tuple[float, float]:
        with plugins.isolated(f"the interval of {named} at level {level!r} ({side})", fix):
            low, high = (float(v) for v in interval(level, side))
        _check_bounds(low, high, f"{named} at level {level!r} ({side})", fix)
        return low, high

    return dataclasses.replace(result, notes=notes, _interval=checked)


def _check_registered(result: InferenceResult, named: str, fix: str) -> None:
    """The fields of a registered test's result lie in their ranges."""
    problems = []
    if not math.isfinite(result.estimate):
        problems.append(f"the estimate {result.estimate!r} (a difference is a finite number)")
    if not (math.isnan(result.pvalue) or 0.0 <= result.pvalue <= 1.0):
        problems.append(f"the p-value {result.pvalue!r} (a p-value lies in [0, 1], or NaN)")
    if not (math.isnan(result.se) or 0.0 <= result.se < math.inf):
        problems.append(f"the standard error {result.se!r} (finite and >= 0, or NaN)")
    if result.df is not None and not result.df > 0:
        problems.append(f"the degrees of freedom {result.df!r} (> 0, or None)")
    if problems:
        raise plugins.PluginError(f"{named} returned {'; '.join(problems)}. {fix}")
    _check_bounds(result.ci.low, result.ci.high, named, fix)


def _check_bounds(low: float, high: float, named: str, fix: str) -> None:
    if math.isnan(low) or math.isnan(high) or low > high:
        raise plugins.PluginError(
            f"{named} returned the interval ({low!r}, {high!r}); an interval has "
            f"low <= high, neither NaN. {fix}"
        )


def _mcnemar_misfit(paired: PairedScores) -> str:
    if not paired.binary:
        return (
            "method='mcnemar' needs 0/1 scores, but the scores include other values; use "
            "method='paired-t' (or 'bootstrap') for continuous scores."
        )
    return (
        f"method='mcnemar' needs one run per item, but the data have "
        f"{paired.baseline.n_runs} (baseline) and {paired.candidate.n_runs} (candidate) runs; "
        "use method='paired-t' on per-item means (McNemar on one chosen run throws the "
        "other runs away)."
    )


def _discordant(paired: PairedScores) -> tuple[int, int]:
    """``(n01, n10)`` of one run of 0/1 scores: items only the candidate gets right, and
    items only the baseline gets right (for 0/1 scores ``y > x`` is ``x == 0 and y == 1``).

    Read from the score matrices when they exist (often 1 byte a score, not 8), in blocks.
    """
    x, y = (
        t.runs[0] if t.runs is not None else t.sums for t in (paired.baseline, paired.candidate)
    )
    n01 = n10 = 0
    step = items_per_block(len(x))
    for start in range(0, len(x), step):
        xb, yb = x[start : start + step], y[start : start + step]
        n01 += int(np.count_nonzero(yb > xb))
        n10 += int(np.count_nonzero(xb > yb))
    return n01, n10


def _scores_in_unit_interval(paired: PairedScores) -> bool:
    """Whether every per-item mean of both sides lies in [0, 1]."""
    return _in_unit_interval(paired, (_mean_range(paired.baseline), _mean_range(paired.candidate)))


def _mean_range(table: ScoreTable) -> tuple[float, float]:
    """The lowest and highest per-item mean score.

    With R runs for every item these are ``min(sums) / R`` and ``max(sums) / R``, the same
    numbers as the extremes of ``sums / R`` (rounding a quotient keeps the order), read
    block by block without making the per-item means.
    """
    if table.ragged:
        means = table.means
        return float(means.min()), float(means.max())
    low, high = math.inf, -math.inf
    for _, sums in table.sum_blocks():
        low, high = min(low, float(sums.min())), max(high, float(sums.max()))
    runs = float(table.n_runs)
    return low / runs, high / runs


def _in_unit_interval(
    paired: PairedScores, ranges: tuple[tuple[float, float], tuple[float, float]]
) -> bool:
    """Whether every per-item mean lies in [0, 1], given each side's lowest and highest."""
    return all(
        table.binary or (low >= 0 and high <= 1)
        for table, (low, high) in zip((paired.baseline, paired.candidate), ranges, strict=True)
    )
