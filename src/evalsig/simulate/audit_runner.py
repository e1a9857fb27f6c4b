"""The method audit: power, false-positive rate and interval width of every method, measured
on the same simulated benchmarks.

Each simulated benchmark holds a baseline, its clone (true difference 0) and a fine-tune
(true uplift ``n_promote / n``). Every method gives an interval for fine-tune minus baseline
(its power is the share of significant intervals) and for clone minus baseline (its
false-positive rate). Simulations are split into chunks of :data:`CHUNK` with their own
child seeds (``SeedSequence(seed).spawn``), and each method draws from its own stream
within a chunk, so results depend only on the seed: not on the executor, the scheduling of
chunks, or which other methods run.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig import plugins
from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance, provenance
from evalsig.distributed import Executor, local
from evalsig.errors import DataError
from evalsig.power import mcnemar_power, paired_t_power
from evalsig.progress import report
from evalsig.result import Result
from evalsig.simulate.audit_article import (
    ARTICLE,
    HitRates,
    PublishedRow,
    agreement_pvalue,
    published_rows,
)
from evalsig.simulate.audit_methods import (
    AuditMethod,
    MethodFunction,
    MethodInput,
    MethodSettings,
    builtin_methods,
    resolve_methods,
)
from evalsig.simulate.batch import SimulationBatch, simulate_batch
from evalsig.simulate.design import MixtureDesign
from evalsig.simulate.fitted import FittedDesign, design_inputs
from evalsig.simulate.models import Design

__all__ = ["CHUNK", "AuditResult", "MethodAudit", "audit", "rejects"]

CHUNK = 100
"""Simulated benchmarks per chunk (each chunk has its own child seed)."""

WAVE = 8
"""Chunks sent to the executor at a time (progress is reported after each wave)."""

AGREEMENT = 0.001
"""Published and new counts disagree when Fisher's exact p-value is below this."""


def rejects(intervals: np.ndarray) -> np.ndarray:
    """Whether each interval ``(estimate, low, high)`` has positive width and excludes 0.

    NaN bounds never reject. For ``estimate +/- z SE`` this is ``SE > 0 and |estimate| /
    SE > z``.

    >>> rejects(np.array([[0.02, 0.01, 0.03], [0.0, -0.01, 0.01], [0.02, 0.02, 0.02]]))
    array([ True, False, False])
    """
    low, high = intervals[..., 1], intervals[..., 2]
    return np.asarray((high > low) & ((low > 0) | (high < 0)))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MethodAudit(HitRates):
    """One method's record over all simulated benchmarks."""

    name: str
    label: str
    category: str
    definition: str
    intervals: np.ndarray
    """``(n_simulations, 2, 3)``: per benchmark, (estimate, low, high) for the fine-tune
    (``[:, 0]``) and for the clone (``[:, 1]``)."""
    true_uplift: float
    confidence_level: float
    analytical_power: float | None = None
    published: PublishedRow | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_simulations(self) -> int:
        return int(self.intervals.shape[0])

    @property
    def power_hits(self) -> int:
        """Benchmarks where the fine-tune's difference was significant."""
        return int(rejects(self.intervals[:, 0]).sum())

    @property
    def false_positive_hits(self) -> int:
        """Benchmarks where the clone's (null) difference was significant."""
        return int(rejects(self.intervals[:, 1]).sum())

    @property
    def power_se(self) -> float:
        """Monte Carlo standard error ``sqrt(p (1 - p) / S)``."""
        return _binomial_se(self.power, self.n_simulations)

    @property
    def false_positive_se(self) -> float:
        return _binomial_se(self.false_positive_rate, self.n_simulations)

    @property
    def half_widths(self) -> np.ndarray:
        """``(n_simulations, 2)`` half-widths ``(high - low) / 2``."""
        return np.asarray((self.intervals[..., 2] - self.intervals[..., 1]) / 2)

    @property
    def median_half_width(self) -> float:
        """Median half-width of the fine-tune's intervals (NaN intervals left out)."""
        return _median(self.half_widths[:, 0])[0]

    @property
    def median_half_width_se(self) -> float:
        """Monte Carlo SE of the median: the distribution-free 95% interval of the median
        (order statistics ``S/2 +/- 1.96 sqrt(S)/2``) divided by 2 x 1.96."""
        return _median(self.half_widths[:, 0])[1]

    @property
    def median_half_width_null(self) -> float:
        return _median(self.half_widths[:, 1])[0]

    @property
    def coverage(self) -> float:
        """Share of the fine-tune's intervals that contain its true uplift."""
        low, high = self.intervals[:, 0, 1], self.intervals[:, 0, 2]
        return float(np.mean((low <= self.true_uplift) & (self.true_uplift <= high)))

    @property
    def mean_estimate(self) -> float:
        """Mean estimate of the fine-tune's uplift (NaN estimates left out)."""
        values = self.intervals[:, 0, 0]
        finite = values[np.isfinite(values)]
        return float(finite.mean()) if finite.size else math.nan

    def to_dict(
        self, nulls: dict[str, str] | None = None, prefix: str = "method"
    ) -> dict[str, Any]:
        """JSON-safe fields; NaN becomes null with its reason in ``nulls`` (when given)."""
        nulls = {} if nulls is None else nulls

        def safe(value: float, name: str, reason: str) -> float | None:
            return json_safe(value, f"{prefix}.{name}", nulls, reason)

        example = {}
        for k, which in enumerate(("uplift", "null")):
            example[which] = [
                safe(float(v), f"example.{which}[{i}]", "the method gave no interval")
                for i, v in enumerate(self.intervals[0, k])
            ]
        published = None
        if self.published is not None:
            p = self.published
            n = self.n_simulations
            published = p.to_dict() | {
                "power_agreement_pvalue": agreement_pvalue(
                    self.power_hits, n, p.power_hits, p.n_simulations
                ),
                "false_positive_agreement_pvalue": agreement_pvalue(
                    self.false_positive_hits, n, p.false_positive_hits, p.n_simulations
                ),
            }
            published["agrees"] = bool(
                min(
                    published["power_agreement_pvalue"],
                    published["false_positive_agreement_pvalue"],
                )
                >= AGREEMENT
            )
        return {
            "name": self.name,
            "label": self.label,
            "category": self.category,
            "definition": self.definition,
            "n_simulations": self.n_simulations,
            "power": self.power,
            "power_hits": self.power_hits,
            "power_se": self.power_se,
            "false_positive_rate": self.false_positive_rate,
            "false_positive_hits": self.false_positive_hits,
            "false_positive_se": self.false_positive_se,
            "median_half_width": safe(self.median_half_width, "median_half_width", "no interval"),
            "median_half_width_se": safe(
                self.median_half_width_se, "median_half_width_se", "too few intervals"
            ),
            "median_half_width_null": safe(
                self.median_half_width_null, "median_half_width_null", "no interval"
            ),
            "coverage": self.coverage,
            "mean_estimate": safe(self.mean_estimate, "mean_estimate", "no estimate"),
            "analytical_power": self.analytical_power,
            "example": example,
            "published": published,
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class AuditResult(Result):
    """Every method's power, false-positive rate and interval width on one set of
    simulated benchmarks."""

    kind: ClassVar[str] = "audit"

    design: Design
    settings: MethodSettings
    n_simulations: int
    seed: int
    """Entropy of the root ``SeedSequence``: ``audit(..., rng=seed)`` repeats the run."""
    methods: tuple[MethodAudit, ...]
    reference: str | None = None
    """The published table the rows are compared with, when the design is the article's."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """The runs a fitted design was fitted to (files and hashes), the seed, the version and
    the time."""

    def method(self, name: str) -> MethodAudit:
        """The row of the method called ``name``."""
        for m in self.methods:
            if m.name == name:
                return m
        known = ", ".join(m.name for m in self.methods)
        raise DataError(f"no method {name!r} in this audit; it has: {known}.")

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-safe fields: NaN and infinities become null, explained in ``nulls``."""
        nulls: dict[str, str] = {}
        rows = [m.to_dict(nulls, f"methods[{i}]") for i, m in enumerate(self.methods)]
        return {
            "kind": "audit",
            "schema_version": SCHEMA_VERSION,
            "design": self.design.to_dict(),
            "n_simulations": self.n_simulations,
            "n_resamples": self.settings.n_resamples,
            "independent_runs": self.settings.independent_runs,
            "confidence_level": self.settings.confidence_level,
            "true_uplift": self.design.true_uplift,
            "seed": self.seed,
            "reference": self.reference,
            "methods": rows,
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """One row per method: name, label, category, n_simulations, power, power_hits,
        power_se, false_positive_rate, false_positive_hits, false_positive_se, coverage,
        median_half_width, median_half_width_se, median_half_width_null, mean_estimate,
        analytical_power (rates with their Monte Carlo standard errors)."""
        from evalsig._frame import data_frame, floats

        def column(name: str) -> Any:
            values = [getattr(m, name) for m in self.methods]
            if name in ("name", "label", "category"):
                return values
            if name in ("n_simulations", "power_hits", "false_positive_hits"):
                return np.array(values, dtype=np.int64)
            return floats(values)

        names: tuple[str, ...] = ("name", "label", "category", "n_simulations", "power")
        names += ("power_hits", "power_se", "false_positive_rate", "false_positive_hits")
        names += ("false_positive_se", "coverage", "median_half_width", "median_half_width_se")
        names += ("median_half_width_null", "mean_estimate", "analytical_power")
        return data_frame({name: column(name) for name in names})


def audit(
    design: Design | None = None,
    /,
    *,
    methods: Iterable[str | AuditMethod | MethodFunction] | None = None,
    n_simulations: int = 500,
    n_resamples: int = 30,
    independent_runs: int = 30,
    confidence_level: float = 0.95,
    rng: np.random.Generator | np.random.SeedSequence | int | None = None,
    executor: Executor | None = None,
) -> AuditResult:
    """Run interval methods on the same simulated benchmarks and measure each one.

    Parameters
    ----------
    design : MixtureDesign or FittedDesign, optional
        What a benchmark looks like; default ``MixtureDesign()``, the article's design
        (4,000 items, 8 runs, 42% always right, 28% always wrong, rest uniform(0.2, 0.8),
        +1 point fine-tune).
    methods : sequence of names, AuditMethod objects or functions, optional
        Default: every built-in method (see :func:`evalsig.audit.builtin_methods`). A
        function is ``f(data: MethodInput, rng) -> (estimate, low, high)``.
    n_simulations : int, default 500
        Simulated benchmarks.
    n_resamples : int, default 30
        B, the resamples of every bootstrap method.
    independent_runs : int, default 30
        J, the fresh runs per model of the independent-runs method.
    confidence_level : float, default 0.95
        Of every interval (critical value ``z = Phi^-1(1 - (1 - level)/2)``).
    rng : int, SeedSequence, Generator or None
        The seed; the result records it so a run without one can be repeated.
    executor : Executor, optional
        Where chunks run: in-process (default) or :func:`evalsig.distributed.dask_executor`;
        the numbers are identical.

    Returns
    -------
    AuditResult

    Notes
    -----
    A method's power is the share of fine-tune intervals that exclude 0, its
    false-positive rate the share of clone intervals that do, each with the Monte Carlo
    SE ``sqrt(p (1 - p) / S)``. The analytical power beside McNemar is Connor's
    ``Phi[(sqrt(n) delta - z sqrt(pi_D)) / sqrt(pi_D - delta^2)]`` with
    ``p10 = E[p (1 - p)]`` and ``p01 = p10 + delta``; beside the paired t it is the
    noncentral-t power with ``sd^2 = 2 E[p (1 - p)] / R + delta (1 - delta)``. Both treat
    the promoted items as a random share, so they understate the power of a design that
    promotes exactly ``n_promote`` items.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43(1), 207-211.

    Examples
    --------
    >>> result = audit(n_simulations=100, rng=1)
    >>> row = result.method("run-bootstrap-sqrt-b")
    >>> row.category, row.false_positive_rate > 0.2
    ('anti-pattern', True)
    """
    design = _check_design(design, n_simulations)
    settings = MethodSettings(
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        independent_runs=independent_runs,
    )
    chosen = resolve_methods(methods)
    root = _seed_sequence(rng)
    n_chunks = -(-int(n_simulations) // CHUNK)
    pieces = [
        (min(CHUNK, n_simulations - k * CHUNK), child)
        for k, child in enumerate(root.spawn(n_chunks))
    ]
    runner = local() if executor is None else executor
    parts = _run_in_waves(runner, (design, chosen, settings), pieces, n_simulations)
    published = published_rows(design, settings)
    rows = _method_audits(chosen, parts, design, settings, published)
    notes: list[str] = []
    if isinstance(design, FittedDesign):
        notes.extend(design.notes)
    seed = int(root.entropy)  # type: ignore[arg-type]
    return AuditResult(
        design=design,
        settings=settings,
        n_simulations=int(n_simulations),
        seed=seed,
        methods=tuple(rows),
        reference=ARTICLE if published else None,
        notes=tuple(notes),
        provenance=provenance(design_inputs(design), seed=seed),
    )


def _check_design(design: Design | None, n_simulations: object) -> Design:
    """The design (the article's by default), once it and ``n_simulations`` are checked."""
    design = MixtureDesign() if design is None else design
    if not isinstance(design, (MixtureDesign, FittedDesign)):
        raise DataError(
            f"`design` must be a MixtureDesign or a FittedDesign; got {type(design).__name__}."
        )
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)):
        raise DataError(f"`n_simulations` must be an integer; got {n_simulations!r}.")
    if n_simulations < 1:
        raise DataError(f"`n_simulations` must be at least 1; got {n_simulations}.")
    return design


def _run_in_waves(
    runner: Executor,
    shared: tuple[Design, Sequence[AuditMethod], MethodSettings],
    pieces: list[tuple[int, np.random.SeedSequence]],
    n_simulations: int,
) -> list[list[np.ndarray]]:
    """Every chunk's intervals, the chunks sent ``WAVE`` at a time with progress between."""
    parts: list[list[np.ndarray]] = []
    done = 0
    report("audit: simulated benchmarks", 0, n_simulations)
    for start in range(0, len(pieces), WAVE):
        wave = pieces[start : start + WAVE]
        parts.extend(runner.map(_chunk, shared, wave))
        done += sum(size for size, _ in wave)
        report("audit: simulated benchmarks", done, n_simulations)
    return parts


def _method_audits(
    chosen: Sequence[AuditMethod],
    parts: list[list[np.ndarray]],
    design: Design,
    settings: MethodSettings,
    published: dict[str, PublishedRow],
) -> list[MethodAudit]:
    """One row per method from its intervals gathered over the chunks."""
    rows = []
    for k, method in enumerate(chosen):
        intervals = np.concatenate([part[k] for part in parts], axis=0)
        rows.append(
            MethodAudit(
                name=method.name,
                label=method.label,
                category=method.category,
                definition=method.definition,
                intervals=intervals,
                true_uplift=design.true_uplift,
                confidence_level=settings.confidence_level,
                analytical_power=_analytical_power(method.name, design, settings),
                published=published.get(method.name),
                notes=_method_notes(intervals),
            )
        )
    return rows


# --- chunks --------------------------------------------------------------------------------


def _chunk(
    shared: tuple[Design, Sequence[AuditMethod], MethodSettings],
    piece: tuple[int, np.random.SeedSequence],
) -> list[np.ndarray]:
    """``(size, 2, 3)`` intervals of every method on one chunk of simulated benchmarks."""
    design, methods, settings = shared
    size, seed = piece
    batch = simulate_batch(design, size, np.random.default_rng(_child(seed, 0)))
    pairs = {which: batch.pair(which) for which in ("finetune", "clone")}
    out = []
    for method in methods:
        rng = np.random.default_rng(_child(seed, 1, zlib.crc32(method.name.encode("utf-8"))))
        if method.batch is not None:
            with _isolated(method):
                up = np.asarray(method.batch(pairs["finetune"], settings, rng), dtype=np.float64)
                null = np.asarray(method.batch(pairs["clone"], settings, rng), dtype=np.float64)
            for name, part in (("fine-tune", up), ("clone", null)):
                if part.shape != (size, 3):
                    raise DataError(
                        f"{_named(method)} returned shape {part.shape} for the "
                        f"{name} pairs; a batch method returns ({size}, 3)."
                    )
                bad = ~(np.isnan(part[:, 0]) | (np.abs(part[:, 0]) <= _MAX_ESTIMATE))
                bad |= part[:, 1] > part[:, 2]
                if bad.any():
                    _check_output(part[int(np.argmax(bad))], method)
            out.append(np.stack([up, null], axis=1))
        else:
            out.append(_one_by_one(method, batch, settings, rng))
    return out


_MAX_ESTIMATE = 1.0 + 1e-9
"""The largest |estimate| a method may return: a difference of two accuracies, with room
for rounding."""


def _named(method: AuditMethod) -> str:
    origin = f" (from {method.origin})" if method.origin else ""
    return f"audit method {method.name!r}{origin}"


def _isolated(method: AuditMethod) -> AbstractContextManager[None]:
    """A method's code: a failure of a method not built in (``sys.exit`` included) is a
    :class:`~evalsig.plugins.PluginError` naming it; a built-in's failure is a bug, and
    raises."""
    if method in builtin_methods():
        return nullcontext()
    return plugins.isolated(_named(method), _fix(method))


def _fix(method: AuditMethod) -> str:
    plugin = " (or uninstall the plugin)" if method.origin else ""
    return f"Fix the method, or audit other methods{plugin}."


def _one_by_one(
    method: AuditMethod,
    batch: SimulationBatch,
    settings: MethodSettings,
    rng: np.random.Generator,
) -> np.ndarray:
    function = method.function
    if function is None:  # pragma: no cover - AuditMethod requires one of the two
        raise DataError(f"method {method.name!r} has no function to call.")
    out = np.empty((batch.size, 2, 3))
    for s in range(batch.size):
        for k, which in enumerate(("finetune", "clone")):
            baseline, candidate, p_b, p_c = batch.expand(s, which)  # type: ignore[arg-type]
            data = MethodInput(
                baseline=baseline,
                candidate=candidate,
                p_baseline=p_b,
                p_candidate=p_c,
                clusters=batch.clusters,
                settings=settings,
            )
            with _isolated(method):
                value = function(data, rng)
            out[s, k] = _check_output(value, method)
    return out


def _check_output(value: object, method: AuditMethod) -> tuple[float, float, float]:
    """``(estimate, low, high)``: an estimate in [-1, 1] (a difference of accuracies) or
    NaN, and low <= high (NaN bounds: no interval)."""
    try:
        estimate, low, high = (float(v) for v in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise DataError(
            f"{_named(method)} returned {value!r:.80}; a method returns (estimate, low, high)."
        ) from None
    if not (math.isnan(estimate) or abs(estimate) <= _MAX_ESTIMATE):
        raise DataError(
            f"{_named(method)} returned the estimate {estimate!r}, outside [-1, 1] where a "
            f"difference of two accuracies lies. {_fix(method)}"
        )
    if low > high:
        raise DataError(
            f"{_named(method)} returned the interval ({low!r}, {high!r}) with low > high; "
            "return (estimate, low, high) with low <= high."
        )
    return estimate, low, high


def _child(seed: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, *key))


def _seed_sequence(
    rng: np.random.Generator | np.random.SeedSequence | int | None,
) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(int(rng.integers(2**63)))
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    raise DataError(
        f"`rng` must be a non-negative integer seed, a SeedSequence, a Generator or None; "
        f"got {rng!r}."
    )


# --- summaries -----------------------------------------------------------------------------


def _binomial_se(p: float, n: int) -> float:
    return math.sqrt(p * (1.0 - p) / n)


def _median(values: np.ndarray) -> tuple[float, float]:
    finite = np.sort(values[np.isfinite(values)])
    n = finite.size
    if n == 0:
        return math.nan, math.nan
    median = float(np.median(finite))
    if n < 10:
        return median, math.nan
    spread = 1.959963984540054 * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - spread))
    hi = min(n - 1, math.ceil(n / 2 + spread))
    return median, float(finite[hi] - finite[lo]) / (2 * 1.959963984540054)


def _method_notes(intervals: np.ndarray) -> tuple[str, ...]:
    missing = ~np.isfinite(intervals[..., 1:]).all(axis=-1)
    notes = []
    for k, which in enumerate(("fine-tune", "clone")):
        count = int(missing[:, k].sum())
        if count:
            notes.append(
                f"{count} {which} comparisons gave no finite interval; they count as not "
                "significant and are left out of the median width"
            )
    return tuple(notes)


def _analytical_power(name: str, design: Design, settings: MethodSettings) -> float | None:
    alpha = 1.0 - settings.confidence_level
    delta = design.true_uplift
    noise = design.mean_pq
    n = design.n_items
    if name == "mcnemar":
        if noise + delta <= 0:
            return None
        return mcnemar_power(n, noise + delta, noise, alpha=alpha)
    if name == "paired-t":
        sd = math.sqrt(2.0 * noise / design.n_runs + delta * (1.0 - delta))
        return paired_t_power(n, delta, sd, alpha=alpha)
    return None
