"""The registry of interval methods the audit runs: honest ones and known anti-patterns.

Every method turns a baseline's and a candidate's runs on the same items into an interval
for the accuracy difference (candidate minus baseline); the audit calls the difference
significant when the interval has positive width and excludes 0. For the Wald-type
methods below (interval ``estimate +/- z SE``) that is the article's rule
``SE > 0 and |estimate| / SE > z``.

Built-in methods work on many simulated benchmarks at once through sufficient statistics
(:class:`evalsig.simulate.batch.PairBatch`), exactly, with no per-item resampling:

* a run-bootstrap replicate picks one of an item's R runs at random, so it is right with
  probability ``k/R`` (``k`` = runs right): the replicate's total is
  ``sum_j Binomial(m_j, j/R)`` over the numbers ``m_j`` of items with ``j`` runs right;
* a question-bootstrap replicate draws n items with replacement, so its total is
  ``W @ values`` with atom counts ``W ~ Multinomial(n, m / n)`` (as
  :mod:`evalsig.inference.resampling`);
* fresh independent runs are sums of Bernoulli draws over the random items only; when
  the two models share every random item's ``p`` (the clone, and the fine-tune, whose
  promoted items are deterministic), a run pair differs on item i with probability
  ``2 p_i (1 - p_i)`` and then either way with probability 1/2, so the run difference is
  ``2 Binomial(K, 1/2) - K`` with ``K = sum_i Bernoulli(2 p_i (1 - p_i))``: one uniform
  per item and run pair instead of two.

References
----------
cstorm125 (2026). Benchmaxxing Series: Abuse-Boostrapping-for-Narrower-Confidence-Intervals
no Jutsu (the six methods of its calibration table). Efron, B. & Tibshirani, R. J. (1993).
An Introduction to the Bootstrap. Chapman & Hall.

Your own method is a function ``method(data, rng) -> (estimate, low, high)``; see
:class:`MethodInput` and :func:`register_method`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np
from scipy import special

from evalsig import plugins
from evalsig.errors import DataError
from evalsig.simulate.batch import PairBatch

__all__ = [
    "ARTICLE_METHODS",
    "AuditMethod",
    "BatchFunction",
    "Category",
    "MethodFunction",
    "MethodInput",
    "MethodSettings",
    "available_methods",
    "builtin_methods",
    "get_method",
    "load_plugins",
    "register_method",
    "resolve_methods",
    "unregister_method",
]

Category = Literal["honest", "anti-pattern", "custom"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MethodSettings:
    """Settings every method receives."""

    confidence_level: float = 0.95
    n_resamples: int = 30
    """B, the resamples of every bootstrap method."""
    independent_runs: int = 30
    """J, the fresh runs per model of the independent-runs method."""

    def __post_init__(self) -> None:
        level = float(self.confidence_level)
        if not 0.0 < level < 1.0:
            raise DataError(
                f"`confidence_level` must be strictly between 0 and 1; got "
                f"{self.confidence_level!r}."
            )
        for name in ("n_resamples", "independent_runs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
                raise DataError(f"`{name}` must be an integer of at least 2; got {value!r}.")

    @property
    def z(self) -> float:
        """Two-sided normal critical value, ``Phi^-1(1 - (1 - level)/2)`` (1.96 at 95%)."""
        return float(special.ndtri(1.0 - (1.0 - self.confidence_level) / 2.0))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MethodInput:
    """One simulated comparison, as a method of your own receives it."""

    baseline: np.ndarray
    """``(R, n)`` int8 0/1 runs of the baseline, runs x items."""
    candidate: np.ndarray
    """``(R, n)`` int8 0/1 runs of the candidate on the same items."""
    p_baseline: np.ndarray
    """``(n,)`` true success probabilities of the baseline (to draw fresh runs)."""
    p_candidate: np.ndarray
    """``(n,)`` true success probabilities of the candidate."""
    clusters: np.ndarray | None
    """``(n,)`` cluster code of each item, or None."""
    settings: MethodSettings


MethodFunction = Callable[[MethodInput, np.random.Generator], "tuple[float, float, float]"]
"""``method(data, rng) -> (estimate, low, high)``: one interval for one simulated pair."""

BatchFunction = Callable[[PairBatch, MethodSettings, np.random.Generator], np.ndarray]
"""``method(pairs, settings, rng) -> (S, 3)`` array of (estimate, low, high)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditMethod:
    """A named interval method: what it computes and whether it is honest.

    Give ``function`` (one simulated pair at a time, see :class:`MethodInput`) or
    ``batch`` (many at once, see :class:`evalsig.simulate.batch.PairBatch`).
    """

    name: str
    label: str
    category: Category
    definition: str
    function: MethodFunction | None = None
    batch: BatchFunction | None = None
    origin: str = ""
    """The distribution a plugin's method came from (set when it is loaded)."""

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise DataError(f"a method needs a non-empty `name`; got {self.name!r}.")
        if self.category not in ("honest", "anti-pattern", "custom"):
            raise DataError(
                f"`category` of method {self.name!r} must be 'honest', 'anti-pattern' or "
                f"'custom'; got {self.category!r}."
            )
        if (self.function is None) == (self.batch is None):
            raise DataError(
                f"method {self.name!r} needs exactly one of `function` (one pair at a time) "
                "or `batch` (many pairs at once)."
            )


# --- helpers -------------------------------------------------------------------------------

_BLOCK_BYTES = 2 * 2**20
"""Uniform draws are made in blocks of about this size (cache-sized, reused)."""


def _wald(estimate: np.ndarray, se: np.ndarray, z: float) -> np.ndarray:
    estimate = np.asarray(estimate, dtype=np.float64)
    half = z * np.asarray(se, dtype=np.float64)
    return np.stack([estimate, estimate - half, estimate + half], axis=1)


def _histogram(k: np.ndarray, valid: np.ndarray, bins: int) -> np.ndarray:
    """``(S, bins)`` counts of each value ``0 .. bins-1`` of ``k`` per row, valid slots only."""
    rows = k.shape[0]
    index = k + bins * np.arange(rows, dtype=np.int64)[:, None]
    return np.bincount(index[valid], minlength=rows * bins).reshape(rows, bins)


def _sd(values: np.ndarray) -> np.ndarray:
    """Standard deviation over the last axis, ``ddof = 1``."""
    return np.asarray(values.std(axis=-1, ddof=1))


# --- honest methods ------------------------------------------------------------------------


def _mcnemar(pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator) -> np.ndarray:
    x0 = pairs.baseline[:, 0, :]
    y0 = pairs.candidate[:, 0, :]
    n01 = pairs.fixed[:, 2] + np.count_nonzero(~x0 & y0 & pairs.valid, axis=1)
    n10 = pairs.fixed[:, 3] + np.count_nonzero(x0 & ~y0 & pairs.valid, axis=1)
    n = pairs.n_items
    return _wald((n01 - n10) / n, np.sqrt(n01 + n10) / n, settings.z)


def _paired_t(pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator) -> np.ndarray:
    r, n = pairs.n_runs, pairs.n_items
    diff = pairs.successes("candidate") - pairs.successes("baseline")  # 0 on padding
    total = diff.sum(axis=1) + r * (pairs.fixed[:, 2] - pairs.fixed[:, 3])
    squares = (diff * diff).sum(axis=1) + r * r * (pairs.fixed[:, 2] + pairs.fixed[:, 3])
    mean = total / (r * n)
    var = (squares / (r * r) - n * mean * mean) / (n - 1)
    return _wald(mean, np.sqrt(np.maximum(var, 0.0) / n), settings.z)


def _successes(p: np.ndarray, runs: int, rng: np.random.Generator) -> np.ndarray:
    """``(S, runs)`` successes of ``runs`` fresh runs over items with probabilities ``p``
    (``(S, M)``; 0 on padding): ``sum_i 1{U_i < p_i}``, drawn in cache-sized blocks."""
    size, width = p.shape
    out = np.empty((size, runs), dtype=np.int64)
    step = max(1, _BLOCK_BYTES // max(1, runs * width * 8))
    u = np.empty((min(step, size), runs, width))
    hit = np.empty(u.shape, dtype=bool)
    for start in range(0, size, step):
        stop = min(start + step, size)
        k = stop - start
        rng.random(out=u[:k])
        np.less(u[:k], p[start:stop, None, :], out=hit[:k])
        out[start:stop] = np.count_nonzero(hit[:k], axis=2)
    return out


def _independent_runs(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    j, n = settings.independent_runs, pairs.n_items
    offset = (pairs.ones_candidate - pairs.ones_baseline)[:, None]
    if np.array_equal(pairs.p_baseline, pairs.p_candidate):
        # Same p on every random item (clone, promoted fine-tune): per item the two runs
        # differ with probability 2p(1 - p), and then either way with probability 1/2, so
        # y_j - x_j = 2 Binomial(K_j, 1/2) - K_j with K_j = sum_i Bernoulli(2 p_i (1 - p_i)).
        p = pairs.p_baseline
        differ = _successes(2.0 * p * (1.0 - p), j, rng)
        gap = 2 * rng.binomial(differ, 0.5) - differ
    else:
        gap = _successes(pairs.p_candidate, j, rng) - _successes(pairs.p_baseline, j, rng)
    d = (offset + gap) / n
    return _wald(d.mean(axis=1), _sd(d) / math.sqrt(j), settings.z)


def _atoms_paired(pairs: PairBatch) -> np.ndarray:
    """``(S, 2R + 1)`` numbers of items whose run-mean difference is ``(j - R) / R``."""
    r = pairs.n_runs
    diff = pairs.successes("candidate") - pairs.successes("baseline") + r
    counts = _histogram(diff, pairs.valid, 2 * r + 1)
    counts[:, r] += pairs.fixed[:, 0] + pairs.fixed[:, 1]
    counts[:, 2 * r] += pairs.fixed[:, 2]
    counts[:, 0] += pairs.fixed[:, 3]
    return counts


def _multinomial_means(
    counts: np.ndarray, values: np.ndarray, n: int, b: int, rng: np.random.Generator
) -> np.ndarray:
    """``(S, B)`` means of ``B`` bootstrap resamples of n items, from atom counts."""
    draws = rng.multinomial(n, (counts / n)[:, None, :], size=(counts.shape[0], b))
    return np.asarray(draws @ values) / n


def _paired_bootstrap(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    r, n, b = pairs.n_runs, pairs.n_items, settings.n_resamples
    counts = _atoms_paired(pairs)
    values = (np.arange(2 * r + 1) - r) / r
    replicates = _multinomial_means(counts, values, n, b, rng)
    return _wald(counts @ values / n, _sd(replicates), settings.z)


# --- anti-patterns -------------------------------------------------------------------------


def _atoms_model(pairs: PairBatch, model: Literal["baseline", "candidate"]) -> np.ndarray:
    """``(S, R + 1)`` numbers of items with ``j`` runs right, deterministic items included."""
    r = pairs.n_runs
    counts = _histogram(pairs.successes(model), pairs.valid, r + 1)
    ones = pairs.ones_baseline if model == "baseline" else pairs.ones_candidate
    counts[:, r] += ones
    counts[:, 0] += pairs.n_items - counts.sum(axis=1)
    return counts


def _unpaired_bootstrap(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    r, n, b = pairs.n_runs, pairs.n_items, settings.n_resamples
    values = np.arange(r + 1) / r
    means = []
    replicates = []
    for model in ("baseline", "candidate"):
        counts = _atoms_model(pairs, model)
        means.append(counts @ values / n)
        replicates.append(_multinomial_means(counts, values, n, b, rng))
    return _wald(means[1] - means[0], _sd(replicates[1] - replicates[0]), settings.z)


def _run_replicates(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    """``(S, B)`` accuracy differences of B composite runs (each item: one random run)."""
    r, n, b = pairs.n_runs, pairs.n_items, settings.n_resamples
    share = np.arange(1, r) / r
    totals = []
    for model in ("baseline", "candidate"):
        counts = _histogram(pairs.successes(model), pairs.valid, r + 1)
        ones = pairs.ones_baseline if model == "baseline" else pairs.ones_candidate
        # replicates vary fastest, so numpy reuses each (m_j, j/R) binomial's setup
        picks = rng.binomial(counts[:, 1:r, None], share[:, None], size=(pairs.size, r - 1, b))
        totals.append(ones[:, None] + counts[:, r, None] + picks.sum(axis=1))
    return np.asarray(totals[1] - totals[0]) / n


def _run_bootstrap(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    d = _run_replicates(pairs, settings, rng)
    return _wald(d.mean(axis=1), _sd(d), settings.z)


def _run_bootstrap_sqrt_b(
    pairs: PairBatch, settings: MethodSettings, rng: np.random.Generator
) -> np.ndarray:
    d = _run_replicates(pairs, settings, rng)
    return _wald(d.mean(axis=1), _sd(d) / math.sqrt(settings.n_resamples), settings.z)


_BUILTIN = (
    AuditMethod(
        name="mcnemar",
        label="McNemar, one run",
        category="honest",
        definition=(
            "First run of each model only. n01 = items the baseline gets wrong and the "
            "candidate right, n10 the reverse; estimate (n01 - n10) / n, SE sqrt(n01 + n10) / n "
            "(McNemar's z without continuity correction); interval estimate +/- z SE."
        ),
        batch=_mcnemar,
    ),
    AuditMethod(
        name="paired-t",
        label="Paired t on R-run means",
        category="honest",
        definition=(
            "d_q = candidate's mean over its R runs minus the baseline's, per item; estimate "
            "mean(d), SE sd(d, ddof=1) / sqrt(n); interval estimate +/- z SE."
        ),
        batch=_paired_t,
    ),
    AuditMethod(
        name="independent-runs",
        label="J independent runs",
        category="honest",
        definition=(
            "J fresh runs of each model drawn from the true p (not the R observed ones); "
            "d_j = accuracy of the candidate's run j minus the baseline's run j; estimate "
            "mean(d_j), SE sd(d_j, ddof=1) / sqrt(J); interval estimate +/- z SE."
        ),
        batch=_independent_runs,
    ),
    AuditMethod(
        name="paired-bootstrap",
        label="Paired question bootstrap",
        category="honest",
        definition=(
            "B resamples of n items with replacement, the same items for both models; a "
            "replicate is the mean of d_q (R-run means) over the resampled items; estimate "
            "mean(d), SE sd(replicates, ddof=1); interval estimate +/- z SE."
        ),
        batch=_paired_bootstrap,
    ),
    AuditMethod(
        name="unpaired-bootstrap",
        label="Unpaired question bootstrap",
        category="anti-pattern",
        definition=(
            "Per-item R-run means of each model resampled with independent item indices "
            "for the two models (B resamples); replicate = mean(candidate) - mean(baseline); "
            "estimate = observed difference, SE sd(replicates, ddof=1); interval "
            "estimate +/- z SE. Pairing is lost, so item difficulty inflates the SE."
        ),
        batch=_unpaired_bootstrap,
    ),
    AuditMethod(
        name="run-bootstrap",
        label="Run bootstrap, honest SE",
        category="anti-pattern",
        definition=(
            "B composite runs: each item takes one of its R runs at random, independently "
            "for the two models; replicate = accuracy difference of the composite runs; "
            "estimate mean(replicates), SE sd(replicates, ddof=1); interval estimate +/- z "
            "SE. Resamples decoding runs, not questions: it measures decoding noise only."
        ),
        batch=_run_bootstrap,
    ),
    AuditMethod(
        name="run-bootstrap-sqrt-b",
        label="Run bootstrap, SE / sqrt(B)",
        category="anti-pattern",
        definition=(
            "As the run bootstrap, but SE = sd(replicates, ddof=1) / sqrt(B), as if the B "
            "replicates were B independent runs: the interval shrinks with B, not with data."
        ),
        batch=_run_bootstrap_sqrt_b,
    ),
)

_REGISTRY: dict[str, AuditMethod] = {m.name: m for m in _BUILTIN}

ARTICLE_METHODS = (
    "mcnemar",
    "paired-t",
    "independent-runs",
    "unpaired-bootstrap",
    "run-bootstrap",
    "run-bootstrap-sqrt-b",
)
"""The six methods of the article's calibration table, in its order."""


def builtin_methods() -> tuple[AuditMethod, ...]:
    """The built-in methods, honest ones first."""
    return _BUILTIN


def available_methods() -> Mapping[str, AuditMethod]:
    """Every registered method by name (built-in, registered by you, and plugins'),
    read-only."""
    load_plugins()
    return MappingProxyType(_REGISTRY)


def get_method(name: str) -> AuditMethod:
    """The registered method called ``name``."""
    if name not in _REGISTRY:
        load_plugins()  # at the first name that is not registered
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(_REGISTRY)
        raise DataError(f"unknown audit method {name!r}; choose from: {known}.") from None


def load_plugins() -> tuple[plugins.Plugin, ...]:
    """Register the methods of installed plugins (entry-point group
    ``evalsig.audit_methods``), once."""
    return plugins.load_group(plugins.AUDIT_METHODS, _install_plugin)


def _install_plugin(entry: object, plugin: plugins.Plugin) -> str:
    """A plugin's :class:`AuditMethod`, or a method function named after the entry point."""
    if isinstance(entry, AuditMethod):
        method = dataclasses.replace(entry, origin=plugin.source)
    elif callable(entry):
        doc = (getattr(entry, "__doc__", None) or "").strip()
        method = AuditMethod(
            name=plugin.name,
            label=plugin.name,
            category="custom",
            definition=doc.split("\n")[0],
            function=entry,
            origin=plugin.source,
        )
    else:
        raise plugins.PluginError(
            f"it names {type(entry).__name__} {entry!r:.60}, not an AuditMethod or a "
            "method function."
        )
    if method.name in _REGISTRY:
        owner = "a built-in" if method.name in {m.name for m in _BUILTIN} else "another"
        raise plugins.PluginError(
            f"its method is named {method.name!r}, as {owner} method, which is kept; rename "
            "the plugin's method."
        )
    _REGISTRY[method.name] = method
    return f"audit method {method.name!r}"


def register_method(
    name: str,
    function: MethodFunction,
    /,
    *,
    label: str | None = None,
    category: Category = "custom",
    definition: str = "",
    replace: bool = False,
) -> AuditMethod:
    """Add your own interval method to the registry, so ``audit(methods=[name])`` runs it.

    Parameters
    ----------
    name : str
        The method's key.
    function : callable
        ``function(data: MethodInput, rng: numpy.random.Generator) -> (estimate, low,
        high)``, the interval for the difference candidate minus baseline on one simulated
        benchmark. ``data.baseline`` and ``data.candidate`` are ``(R, n)`` 0/1 runs;
        ``data.p_baseline``/``data.p_candidate`` the true probabilities;
        ``data.settings`` holds the confidence level, B and J. Draw any randomness from
        ``rng`` so the audit stays reproducible. Return NaN bounds for "no interval" (the
        audit counts them as not significant and says how many there were).
    label, category, definition : str, optional
        How reports name and describe the method ("custom" unless you say "honest" or
        "anti-pattern").
    replace : bool, default False
        Allow replacing a method of the same name (built-in methods cannot be replaced).

    Returns
    -------
    AuditMethod

    Examples
    --------
    >>> import numpy as np
    >>> def paired_t_99(data, rng):
    ...     'Paired t on run means with a 99% normal interval.'
    ...     d = data.candidate.mean(axis=0) - data.baseline.mean(axis=0)
    ...     se = d.std(ddof=1) / np.sqrt(d.size)
    ...     return d.mean(), d.mean() - 2.576 * se, d.mean() + 2.576 * se
    >>> register_method("paired-t-99", paired_t_99, category="honest").definition
    'Paired t on run means with a 99% normal interval.'
    >>> unregister_method("paired-t-99")
    """
    if name in {m.name for m in _BUILTIN}:
        raise DataError(f"{name!r} is a built-in method; register yours under another name.")
    if name in _REGISTRY and not replace:
        raise DataError(f"a method {name!r} is registered already; pass replace=True.")
    method = AuditMethod(
        name=name,
        label=label or name,
        category=category,
        definition=definition or (function.__doc__ or "").strip().split("\n")[0],
        function=function,
    )
    _REGISTRY[name] = method
    return method


def unregister_method(name: str) -> None:
    """Remove a method you registered."""
    if name in {m.name for m in _BUILTIN}:
        raise DataError(f"{name!r} is a built-in method and cannot be removed.")
    if name not in _REGISTRY:
        raise DataError(f"no method {name!r} is registered.")
    del _REGISTRY[name]


def resolve_methods(
    methods: Iterable[str | AuditMethod | MethodFunction] | None,
) -> tuple[AuditMethod, ...]:
    """Methods by name, as objects, or plain functions (named after the function)."""
    if methods is None:
        return _BUILTIN
    out: list[AuditMethod] = []
    for m in methods:
        if isinstance(m, AuditMethod):
            out.append(m)
        elif isinstance(m, str):
            out.append(get_method(m))
        elif callable(m):
            name = getattr(m, "__name__", "custom")
            out.append(
                AuditMethod(name=name, label=name, category="custom", definition="", function=m)
            )
        else:
            raise DataError(
                f"`methods` entries must be names, AuditMethod objects or functions; got {m!r}."
            )
    names = [m.name for m in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(f"`methods` lists {', '.join(map(repr, duplicates))} more than once.")
    if not out:
        raise DataError("`methods` is empty; name at least one method (or pass None for all).")
    return tuple(out)
