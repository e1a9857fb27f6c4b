"""``synthesize``: a random-effects synthesis of every (model, benchmark) cell of a report table,
a leaderboard by synthesized score beside the max-reported one, funnel asymmetry, and the gap
between self-reported and third-party scores."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION
from evalsig.data.provenance import Provenance, file_record, provenance
from evalsig.errors import DataError
from evalsig.inference._common import UNKNOWN_SEED, seeded
from evalsig.meta._validate import (
    I2Basis,
    MetaConvergenceWarning,
    Method,
    Test,
    check_fit,
)
from evalsig.meta.batch import MetaBatch, random_effects_batch
from evalsig.meta.bias import (
    EggerResult,
    RankTestResult,
    TrimFillResult,
    egger_test,
    rank_test,
    trim_and_fill,
)
from evalsig.meta.estimators import tau2_batch
from evalsig.meta.model import MetaResult, random_effects
from evalsig.meta.regression import MetaRegressionResult, meta_regression
from evalsig.meta.reports import ReportTable, Scale, read_reports
from evalsig.result import Result

__all__ = [
    "BenchmarkBoard",
    "BootstrapWidths",
    "CellResult",
    "SelfReportGap",
    "SynthesisResult",
    "bootstrap_widths",
    "synthesize",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapWidths:
    """Parametric-bootstrap CI half-widths: the synthesized mu versus one report."""

    synthesized: float
    """Half-width of the percentile interval of mu* over the replicates."""
    single_report: float
    """Median over reports of the half-width of the interval of one simulated report."""
    n_resamples: int
    n_failed: int
    """Replicates whose tau^2 estimator did not converge (left out, counted here)."""
    confidence_level: float


def bootstrap_widths(
    meta: MetaResult, *, n_resamples: int, rng: np.random.Generator, tol: float, max_iter: int
) -> BootstrapWidths:
    r"""Parametric bootstrap of a fitted random-effects model (k >= 2).

    Replicates draw :math:`y_i^* = \hat\mu + u_i + e_i` with :math:`u_i \sim N(0, \hat\tau^2)`,
    :math:`e_i \sim N(0, v_i)`, re-estimate tau^2 with the same method and pool. The
    synthesized half-width is half the central ``confidence_level`` percentile range of
    :math:`\hat\mu^*`; a single report's is the same for :math:`y_i^*` (which has variance
    :math:`\hat\tau^2 + v_i`: what using one paper's number as the score risks), and the
    median over the reports is returned.
    """
    y, v = meta.estimates, meta.variances
    k = y.size
    draws = rng.standard_normal((n_resamples, k)) * np.sqrt(meta.tau2 + v) + meta.mu
    method: Any = meta.method
    batch = tau2_batch(draws, v, method, tol=tol, max_iter=max_iter)
    ok = batch.converged
    w = 1.0 / (v[None, :] + batch.tau2[ok, None])
    mu_star = (w * draws[ok]).sum(axis=1) / w.sum(axis=1)
    tail = (1.0 - meta.confidence_level) / 2.0
    lo, hi = np.quantile(mu_star, [tail, 1.0 - tail]) if mu_star.size else (math.nan, math.nan)
    single = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    return BootstrapWidths(
        synthesized=float(hi - lo) / 2.0,
        single_report=float(np.median((single[1] - single[0]) / 2.0)),
        n_resamples=n_resamples,
        n_failed=int((~ok).sum()),
        confidence_level=meta.confidence_level,
    )


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CellResult:
    """The synthesis of one (model, benchmark) cell."""

    model: str
    benchmark: str
    meta: MetaResult
    rows: tuple[int, ...]
    """Positions of the cell's reports in the table."""
    max_reported: float
    bootstrap: BootstrapWidths | None
    egger: EggerResult | None
    rank_test: RankTestResult | None
    trim_and_fill: TrimFillResult | None
    self_report_gap: MetaRegressionResult | None
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardRow:
    model: str
    mu: float
    ci_low: float
    ci_high: float
    k: int
    max_reported: float
    rank: int
    """Rank by synthesized mu (1 = best)."""
    rank_max: int
    """Rank by the highest reported score."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchmarkBoard:
    """One benchmark's models ranked by synthesized mu beside the max-reported ranking."""

    benchmark: str
    rows: tuple[BoardRow, ...]
    """In order of synthesized mu."""
    top: int
    top_reordered: bool
    """Whether the top ``top`` (in order) differ between the two rankings."""
    n_moved: int
    """Models whose rank differs between the rankings."""
    swaps: tuple[tuple[str, str, float, float], ...]
    """Pairs (a, b) in the top ``top`` of either ranking that max-reported puts a above b
    but the synthesis puts b above a: (a, b, max(a) - max(b), mu(a) - mu(b))."""
    funnel: EggerResult | None
    """Egger test across the benchmark's cells (one intercept per model)."""
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True, kw_only=True)
class SelfReportGap:
    """Self-reported minus third-party scores: per cell by meta-regression, then pooled."""

    pooled: MetaResult | None
    """Random-effects pool of the per-cell gaps (None when no cell has a gap)."""
    by_benchmark: tuple[tuple[str, MetaResult], ...]
    n_cells: int
    """Cells with a gap estimate (both kinds of report and k >= 3)."""
    n_cells_skipped: int
    """Cells with both kinds of report but only 2 reports (tau^2 not estimable)."""
    n_unknown: int
    """Reports whose self_reported flag is missing (not used for the gap)."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SynthesisResult(Result):
    """The meta-analytic synthesis of a table of published benchmark scores."""

    kind: ClassVar[str] = "meta-analysis"

    cells: tuple[CellResult, ...]
    leaderboards: tuple[BenchmarkBoard, ...]
    self_report: SelfReportGap | None
    table: ReportTable
    method: str
    test: str
    confidence_level: float
    n_resamples: int
    seed: int | None = None
    """``rng=seed`` reproduces the bootstrap exactly (None: no bootstrap, or a Generator)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    provenance: Provenance | None = None
    """The reports file and its hash (when read from a file), the seed, the evalsig version
    and the time."""

    @property
    def n_imputed(self) -> int:
        """Reports whose standard error was imputed from the number of items."""
        return self.table.n_imputed

    def cell(self, model: str, benchmark: str) -> CellResult:
        """The result of one cell."""
        for c in self.cells:
            if c.model == model and c.benchmark == benchmark:
                return c
        raise DataError(f"no reports for model {model!r} on benchmark {benchmark!r}.")

    def overview(self) -> dict[str, float | int | None]:
        """Medians over cells: I^2 (k >= 2) and bootstrap half-widths (k >= 3); the JSON
        form's ``summary`` (:meth:`summary` is the result's table, as for every result)."""
        i2 = [c.meta.i2 for c in self.cells if c.meta.k >= 2 and math.isfinite(c.meta.i2)]
        boot = [c.bootstrap for c in self.cells if c.meta.k >= 3 and c.bootstrap is not None]
        synth = [b.synthesized for b in boot if math.isfinite(b.synthesized)]
        single = [b.single_report for b in boot]
        return {
            "median_i2": float(np.median(i2)) if i2 else None,
            "n_cells_heterogeneity": len(i2),
            "median_half_width": float(np.median(synth)) if synth else None,
            "median_single_half_width": float(np.median(single)) if single else None,
            "n_cells_bootstrap": len(synth),
            "n_benchmarks_reordered": sum(b.top_reordered for b in self.leaderboards),
            "n_benchmarks": len(self.leaderboards),
        }

    def to_dict(self) -> dict[str, Any]:
        from evalsig.meta._serialize import synthesis_dict

        document = synthesis_dict(self, SCHEMA_VERSION)
        nulls = document.pop("nulls")
        provenance = None if self.provenance is None else self.provenance.to_dict()
        return document | {"provenance": provenance, "nulls": nulls}

    def to_frame(self) -> Any:
        """One row per (model, benchmark) cell, in the result's order: model, benchmark, k,
        mu, se, ci_low, ci_high, pvalue, tau2, i2, q, q_pvalue, pi_low, pi_high (prediction
        interval), max_reported, converged, egger_pvalue, synthesized_half_width and
        single_report_half_width (NaN without the test or the bootstrap)."""
        from evalsig._frame import data_frame, floats

        cells = self.cells

        def meta(name: str) -> list[Any]:
            return [getattr(c.meta, name) for c in cells]

        def bootstrap(name: str) -> np.ndarray:
            return floats(
                None if c.bootstrap is None else getattr(c.bootstrap, name) for c in cells
            )

        return data_frame(
            {
                "model": [c.model for c in cells],
                "benchmark": [c.benchmark for c in cells],
                "k": np.array(meta("k"), dtype=np.int64),
                "mu": floats(meta("mu")),
                "se": floats(meta("se")),
                "ci_low": floats(c.meta.ci.low for c in cells),
                "ci_high": floats(c.meta.ci.high for c in cells),
                "pvalue": floats(meta("pvalue")),
                "tau2": floats(meta("tau2")),
                "i2": floats(meta("i2")),
                "q": floats(meta("q")),
                "q_pvalue": floats(meta("q_pvalue")),
                "pi_low": floats(c.meta.prediction_interval.low for c in cells),
                "pi_high": floats(c.meta.prediction_interval.high for c in cells),
                "max_reported": floats(c.max_reported for c in cells),
                "converged": np.array(meta("converged"), dtype=bool),
                "egger_pvalue": floats(None if c.egger is None else c.egger.pvalue for c in cells),
                "synthesized_half_width": bootstrap("synthesized"),
                "single_report_half_width": bootstrap("single_report"),
            }
        )

    def leaderboard_frame(self) -> Any:
        """Each benchmark's models in order of synthesized score: benchmark, rank, model,
        mu, ci_low, ci_high, k, max_reported, rank_max (rank by the highest report)."""
        from evalsig._frame import data_frame, floats

        rows = [(b.benchmark, r) for b in self.leaderboards for r in b.rows]
        return data_frame(
            {
                "benchmark": [name for name, _ in rows],
                "rank": np.array([r.rank for _, r in rows], dtype=np.int64),
                "model": [r.model for _, r in rows],
                "mu": floats(r.mu for _, r in rows),
                "ci_low": floats(r.ci_low for _, r in rows),
                "ci_high": floats(r.ci_high for _, r in rows),
                "k": np.array([r.k for _, r in rows], dtype=np.int64),
                "max_reported": floats(r.max_reported for _, r in rows),
                "rank_max": np.array([r.rank_max for _, r in rows], dtype=np.int64),
            }
        )


def synthesize(
    reports: Any,
    /,
    *,
    method: Method = "reml",
    test: Test = "z",
    confidence_level: float = 0.95,
    scale: Scale = "auto",
    i2_basis: I2Basis = "tau2",
    n_resamples: int = 2000,
    top: int = 10,
    rng: np.random.Generator | int | None = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> SynthesisResult:
    r"""Synthesize published scores: one random-effects model per (model, benchmark) cell.

    Parameters
    ----------
    reports : path, DataFrame, list of dicts or ReportTable
        The reports (see :func:`evalsig.meta.read_reports` for the columns).
    method, test, confidence_level, i2_basis
        As in :func:`evalsig.meta.random_effects`, used for every cell, for the
        self-report meta-regressions and for the pooled gaps.
    scale : {"auto", "points", "proportion"}
        The unit of the scores (see :func:`read_reports`); results are on that scale.
    n_resamples : int, default 2000
        Parametric-bootstrap replicates per cell with k >= 2 (0 to skip).
    top : int, default 10
        The leaderboard depth whose reordering is reported.
    rng : numpy.random.Generator, int or None
        Seed of the bootstrap (cells are bootstrapped in table order). When None one is
        drawn from the operating system's entropy and recorded as ``seed``, so
        ``rng=result.seed`` reproduces the bootstrap exactly (a Generator has no
        recoverable seed: recorded as None, with a note).
    tol, max_iter
        Convergence control of the iterative tau^2 estimators.

    Returns
    -------
    SynthesisResult

    Raises
    ------
    DataError
        For an invalid table (naming the row) or option.

    Notes
    -----
    Cells appear in order of their first report. The cells' random-effects models are
    fitted all at once by :func:`evalsig.meta.batch.random_effects_batch` (each equals
    ``random_effects`` on the cell's reports). Per cell with k >= 3 reports: Egger's
    test (the ``rma`` form), Begg's rank test and trim and fill; with both self-reported
    and third-party reports and k >= 3, the meta-regression on the flag. The gap pooled
    over cells (and per benchmark) is a random-effects meta-analysis of the per-cell
    slopes (a two-stage model: each cell keeps its own mu and tau^2). Per benchmark, a
    funnel test pools the cells with k >= 2 (an intercept per model, a common slope on the
    standard error and a common tau^2). Models are ranked by synthesized mu and by their
    highest reported score (ties by name).

    Examples
    --------
    >>> rows = [
    ...     {"model": "a", "benchmark": "mmlu", "source": s, "score": x, "n": 14042}
    ...     for s, x in [("p1", 70.1), ("p2", 72.4), ("p3", 69.8)]
    ... ] + [{"model": "b", "benchmark": "mmlu", "source": "p4", "score": 71.5, "n": 14042}]
    >>> res = synthesize(rows, n_resamples=200, rng=0)
    >>> [(r.model, r.rank, r.rank_max) for r in res.leaderboards[0].rows]
    [('b', 1, 2), ('a', 2, 1)]
    """
    spec = check_fit(method, test, confidence_level, tol=tol, max_iter=max_iter)
    method, test, level = spec.method, spec.test, spec.level
    tol, max_iter = spec.tol, spec.max_iter
    _check_counts(n_resamples, top)
    generator, seed = seeded(rng)
    table = read_reports(reports, scale=scale)
    variances = table.se**2
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(zip(table.models, table.benchmarks, strict=True)):
        groups.setdefault(key, []).append(i)
    options = {"method": method, "test": test, "confidence_level": level}
    fits = _fit_cells(table, variances, groups, options, i2_basis, tol, max_iter)
    cells, failed = _analyse_cells(
        table, variances, groups, fits, options, n_resamples, generator, tol, max_iter
    )
    notes = _table_notes(table, groups)
    if n_resamples and seed is None:
        notes.append(UNKNOWN_SEED)
    if failed:
        message = (
            f"{failed} fits did not converge (see the cells' notes); their estimates are "
            "undefined and they rank last."
        )
        notes.append(message)
        warnings.warn(message, MetaConvergenceWarning, stacklevel=2)
    boards = tuple(_board(table, variances, cells, b, top, options) for b in _benchmarks(cells))
    gap = _self_report(table, cells, options)
    return SynthesisResult(
        cells=tuple(cells),
        leaderboards=boards,
        self_report=gap,
        table=table,
        method=method,
        test=test,
        confidence_level=level,
        n_resamples=n_resamples,
        seed=seed if n_resamples else None,
        notes=tuple(notes),
        provenance=_provenance(reports, seed if n_resamples else None),
    )


def _check_counts(n_resamples: object, top: object) -> None:
    """``n_resamples`` is 0 or at least 100 and ``top`` a positive integer."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise DataError(f"`n_resamples` must be a non-negative integer; got {n_resamples!r}.")
    if 0 < n_resamples < 100:
        raise DataError(f"`n_resamples` is {n_resamples}; use 0 (no bootstrap) or at least 100.")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise DataError(f"`top` must be a positive integer; got {top!r}.")


def _analyse_cells(
    table: ReportTable,
    variances: np.ndarray,
    groups: Mapping[tuple[str, str], list[int]],
    fits: MetaBatch,
    options: dict[str, Any],
    n_resamples: int,
    generator: np.random.Generator,
    tol: float,
    max_iter: int,
) -> tuple[list[CellResult], int]:
    """Each cell's tests and bootstrap (in table order), and how many fits did not converge."""
    cells = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MetaConvergenceWarning)
        for ((model, benchmark), rows), meta in zip(groups.items(), fits.results(), strict=True):
            cells.append(
                _cell(
                    table,
                    variances,
                    model,
                    benchmark,
                    rows,
                    meta,
                    options,
                    n_resamples,
                    generator,
                    tol,
                    max_iter,
                )
            )
        failed = int((~fits.converged).sum())
        failed += sum(issubclass(w.category, MetaConvergenceWarning) for w in caught)
    return cells, failed


def _provenance(reports: Any, seed: int | None) -> Provenance:
    """The reports file and its hash when ``reports`` names one (none for data in Python)."""
    named = isinstance(reports, (str, os.PathLike)) and os.path.isfile(reports)
    return provenance(files={"reports": file_record(reports)} if named else None, seed=seed)


def _benchmarks(cells: list[CellResult]) -> list[str]:
    return list(dict.fromkeys(c.benchmark for c in cells))


def _table_notes(table: ReportTable, groups: Mapping[tuple[str, str], list[int]]) -> list[str]:
    notes = []
    if table.scale_detected:
        notes.append(f"Scores read as {table.scale} (detected; pass scale= to state it).")
    if table.n_imputed:
        notes.append(
            f"{table.n_imputed} of {table.n_reports} standard errors imputed from the number "
            "of items as binomial, sqrt(p(1-p)/n): this ignores prompt and sampling variance "
            "and clustering of items, so those SEs are lower bounds."
        )
    seen: dict[tuple[str, str, str], int] = {}
    for key in zip(table.models, table.benchmarks, table.sources, strict=True):
        seen[key] = seen.get(key, 0) + 1
    repeated = sum(1 for n in seen.values() if n > 1)
    if repeated:
        notes.append(
            f"{repeated} (model, benchmark, source) triples have several reports; each counts "
            "as a separate report (same-paper reports are not independent)."
        )
    singles = sum(1 for rows in groups.values() if len(rows) == 1)
    if singles:
        notes.append(f"{singles} cells have a single report: no heterogeneity estimate there.")
    return notes


def _fit_cells(
    table: ReportTable,
    variances: np.ndarray,
    groups: Mapping[tuple[str, str], list[int]],
    options: dict[str, Any],
    i2_basis: I2Basis,
    tol: float,
    max_iter: int,
) -> MetaBatch:
    """The random-effects model of every cell, all cells at once (no warnings: the
    caller counts the cells that did not converge)."""
    codes = np.empty(table.n_reports, dtype=np.int64)
    for j, rows in enumerate(groups.values()):
        codes[rows] = j
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaConvergenceWarning)
        return random_effects_batch(
            table.scores,
            variances,
            codes,
            labels=table.sources,
            i2_basis=i2_basis,
            tol=tol,
            max_iter=max_iter,
            **options,
        )


def _cell(
    table: ReportTable,
    variances: np.ndarray,
    model: str,
    benchmark: str,
    rows: list[int],
    meta: MetaResult,
    options: dict[str, Any],
    n_resamples: int,
    rng: np.random.Generator,
    tol: float,
    max_iter: int,
) -> CellResult:
    y, v = table.scores[rows], variances[rows]
    k = len(rows)
    notes: list[str] = []
    boot = None
    if k >= 2 and n_resamples and meta.converged:
        boot = bootstrap_widths(meta, n_resamples=n_resamples, rng=rng, tol=tol, max_iter=max_iter)
    egger = rank = fill = None
    refused = funnel_refusal(k, int(table.imputed[rows].sum()))
    if refused is not None:
        if k >= 3:
            notes.append(f"No Egger test, rank test or trim and fill: {refused}")
    else:
        rank = rank_test(y, v)
        try:
            egger = egger_test(y, v, method=options["method"], test=options["test"])
            fill = trim_and_fill(y, v, **options)
        except DataError as exc:  # equal SEs, or the side-choosing fit failed
            notes.append(f"No Egger test or trim and fill: {exc}")
    flags = [table.self_reported[i] for i in rows]
    gap = None
    if True in flags and False in flags:
        known = [j for j, f in enumerate(flags) if f is not None]
        if len(known) >= 3:
            gap = meta_regression(
                y[known], v[known], [float(bool(flags[j])) for j in known], **options
            )
        else:
            notes.append("Self-reported and third-party reports present, but k < 3: no gap.")
    return CellResult(
        model=model,
        benchmark=benchmark,
        meta=meta,
        rows=tuple(rows),
        max_reported=float(y.max()),
        bootstrap=boot,
        egger=egger,
        rank_test=rank,
        trim_and_fill=fill,
        self_report_gap=gap,
        notes=tuple(notes),
    )


def _ranks(values: list[float], names: list[str]) -> list[int]:
    """1-based ranks, best (highest) first, ties by name; NaN last."""
    order = sorted(
        range(len(values)),
        key=lambda i: (
            math.isnan(values[i]),
            -values[i] if not math.isnan(values[i]) else 0.0,
            names[i],
        ),
    )
    ranks = [0] * len(values)
    for r, i in enumerate(order):
        ranks[i] = r + 1
    return ranks


def _board(
    table: ReportTable,
    variances: np.ndarray,
    cells: list[CellResult],
    benchmark: str,
    top: int,
    options: dict[str, Any],
) -> BenchmarkBoard:
    mine = [c for c in cells if c.benchmark == benchmark]
    names = [c.model for c in mine]
    mus = [c.meta.mu for c in mine]
    maxes = [c.max_reported for c in mine]
    rank, rank_max = _ranks(mus, names), _ranks(maxes, names)
    rows = sorted(
        (
            BoardRow(
                model=c.model,
                mu=c.meta.mu,
                ci_low=c.meta.ci.low,
                ci_high=c.meta.ci.high,
                k=c.meta.k,
                max_reported=c.max_reported,
                rank=r,
                rank_max=rm,
            )
            for c, r, rm in zip(mine, rank, rank_max, strict=True)
        ),
        key=lambda row: row.rank,
    )
    by_max = sorted(rows, key=lambda row: row.rank_max)
    top_mu, top_max = [r.model for r in rows[:top]], [r.model for r in by_max[:top]]
    in_top = set(top_mu) | set(top_max)
    swaps = tuple(
        (a.model, b.model, a.max_reported - b.max_reported, a.mu - b.mu)
        for i, a in enumerate(by_max)
        for b in by_max[i + 1 :]
        if a.model in in_top and b.model in in_top and a.rank > b.rank
    )
    notes = []
    funnel = None
    idx = [i for c in mine if c.meta.k >= 2 for i in c.rows]
    refused = funnel_refusal(len(idx), int(table.imputed[idx].sum()))
    if not idx:
        notes.append("No funnel test: no cell of this benchmark has 2 or more reports.")
    elif refused is not None:
        notes.append(f"No funnel test over the benchmark's cells with k >= 2: {refused}")
    else:
        funnel = _funnel(table, variances, idx, options, notes)
    return BenchmarkBoard(
        benchmark=benchmark,
        rows=tuple(rows),
        top=top,
        top_reordered=top_mu != top_max,
        n_moved=sum(r.rank != r.rank_max for r in rows),
        swaps=swaps,
        funnel=funnel,
        notes=tuple(notes),
    )


MIN_FUNNEL_REPORTS = 10
"""Fewest reports for a funnel-asymmetry test (Egger, Begg's rank test, trim and fill):
below 10 they cannot tell chance from asymmetry (Sterne et al. 2011, BMJ 343:d4002)."""


def funnel_refusal(k: int, n_imputed: int) -> str | None:
    """Why a funnel-asymmetry test would mislead on these reports, or None when it may run.

    A standard error imputed from the number of items, ``sqrt(p (1 - p) / n)``, is a
    function of the score itself: estimate and SE are correlated by construction, which
    such tests read as small-study bias (Peters et al. 2006, JAMA 295:676; Sterne et al.
    2011).
    """
    if n_imputed:
        return (
            f"{n_imputed} of {k} standard errors are imputed from the number of items and "
            "so depend on the score itself, which makes a funnel-asymmetry test meaningless; "
            "give each report's own standard error to run it."
        )
    if k < MIN_FUNNEL_REPORTS:
        return (
            f"{k} reports, fewer than the {MIN_FUNNEL_REPORTS} such tests need to tell "
            "chance from asymmetry (Sterne et al. 2011)."
        )
    return None


def _funnel(
    table: ReportTable,
    variances: np.ndarray,
    idx: list[int],
    options: dict[str, Any],
    notes: list[str],
) -> EggerResult | None:
    try:
        return egger_test(
            table.scores[idx],
            variances[idx],
            method=options["method"],
            test=options["test"],
            groups=[table.models[i] for i in idx],
        )
    except DataError as exc:
        notes.append(f"No funnel test over the benchmark's cells with k >= 2: {exc}")
        return None


def _self_report(
    table: ReportTable, cells: list[CellResult], options: dict[str, Any]
) -> SelfReportGap | None:
    if all(f is None for f in table.self_reported):
        return None
    with_gap = [
        c
        for c in cells
        if c.self_report_gap is not None
        and c.self_report_gap.converged
        and c.self_report_gap.slope_se > 0
    ]
    skipped = sum(
        1
        for c in cells
        if c.self_report_gap is None and {table.self_reported[i] for i in c.rows} >= {True, False}
    )

    def pool(group: list[CellResult]) -> MetaResult:
        gaps = [c.self_report_gap for c in group if c.self_report_gap is not None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MetaConvergenceWarning)
            return random_effects(
                [g.slope for g in gaps],
                [g.slope_se**2 for g in gaps],
                labels=[f"{c.model} / {c.benchmark}" for c in group],
                **options,
            )

    by_benchmark = tuple(
        (b, pool([c for c in with_gap if c.benchmark == b])) for b in _benchmarks(with_gap)
    )
    return SelfReportGap(
        pooled=pool(with_gap) if with_gap else None,
        by_benchmark=by_benchmark,
        n_cells=len(with_gap),
        n_cells_skipped=skipped,
        n_unknown=sum(f is None for f in table.self_reported),
    )
