"""``random_effects_batch``: the random-effects model of many cells at once.

A leaderboard synthesis fits one model per (model, benchmark) cell: up to 100,000 cells of
a handful of reports each. Here the cells are grouped by their number of reports k and
every step of :func:`~evalsig.meta.random_effects` runs on ``(cells, k)`` arrays: tau^2
by the vectorised estimators of :mod:`evalsig.meta.estimators` (each cell with its own
convergence mask), the Q-profile interval by Brent's method on all cells at once, the
rest in closed form. Each cell gets what ``random_effects`` gives on its reports alone.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from evalsig.errors import DataError, examples
from evalsig.inference._roots import brentq_rows
from evalsig.meta._validate import (
    FitOptions,
    I2Basis,
    MetaConvergenceWarning,
    Method,
    Test,
    check_fit,
    effect_vectors,
)
from evalsig.meta.estimators import generalized_q_rows, tau2_batch
from evalsig.meta.model import (
    HKSJ_EQUAL_NOTE,
    HKSJ_FE_NOTE,
    HKSJ_K1_NOTE,
    HKSJ_K2_NOTE,
    K1_NOTE,
    K2_NOTE,
    NULL_SET_NOTE,
    RESET_NOTE,
    MetaResult,
    critical,
    interval_of,
    read_only,
    unconverged_note,
)

__all__ = ["MetaBatch", "random_effects_batch"]

_EPS = float(np.finfo(float).eps)


class _Cell(NamedTuple):
    """One cell's values of the float columns of a :class:`MetaBatch`."""

    mu: float
    se: float
    ci_low: float
    ci_high: float
    statistic: float
    pvalue: float
    tau2: float
    tau2_ci_low: float
    tau2_ci_high: float
    i2: float
    i2_ci_low: float
    i2_ci_high: float
    h2: float
    h2_ci_low: float
    h2_ci_high: float
    q: float
    q_pvalue: float
    pi_low: float
    pi_high: float
    hksj_scale: float


_COLUMNS = _Cell._fields
"""The float columns of a :class:`MetaBatch`, one value per cell."""
_UNDEFINED_UNCONVERGED = (
    *("tau2_ci_low", "tau2_ci_high", "i2", "i2_ci_low", "i2_ci_high", "h2", "h2_ci_low"),
    "h2_ci_high",
)
"""Columns that do not follow from tau^2 = NaN alone when the estimator did not converge."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MetaBatch:
    """Random-effects fits of many cells: every array has one entry per cell.

    The columns mean what the fields of :class:`~evalsig.meta.MetaResult` of the same
    name mean (``pi_low``/``pi_high``: the prediction interval; ``hksj_scale`` NaN under
    the z test or k = 1); ``result(i)`` is cell i's full ``MetaResult``.
    """

    method: str
    test: str
    confidence_level: float
    i2_basis: str
    k: np.ndarray
    mu: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    tau2: np.ndarray
    tau2_ci_low: np.ndarray
    tau2_ci_high: np.ndarray
    i2: np.ndarray
    i2_ci_low: np.ndarray
    i2_ci_high: np.ndarray
    h2: np.ndarray
    h2_ci_low: np.ndarray
    h2_ci_high: np.ndarray
    q: np.ndarray
    q_pvalue: np.ndarray
    pi_low: np.ndarray
    pi_high: np.ndarray
    hksj_scale: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    notes: tuple[tuple[str, ...], ...]
    estimates: np.ndarray
    """The reports cell by cell (cell 0's first), each cell's in input order."""
    variances: np.ndarray
    weights: np.ndarray
    """Percent weight of each report in its cell's mu (order of ``estimates``)."""
    offsets: np.ndarray
    """Cell i's reports are ``estimates[offsets[i]:offsets[i + 1]]``."""
    labels: tuple[str, ...] | None
    """The reports' labels in the order of ``estimates`` (None: "1", "2", ... per cell)."""

    def __len__(self) -> int:
        return int(self.k.size)

    def result(self, i: int) -> MetaResult:
        """Cell ``i`` as the :class:`~evalsig.meta.MetaResult` ``random_effects`` returns."""
        cell = _Cell._make(float(getattr(self, name)[i]) for name in _COLUMNS)
        return self._result(i, cell, bool(self.converged[i]), int(self.iterations[i]))

    def results(self) -> list[MetaResult]:
        """Every cell's :class:`~evalsig.meta.MetaResult`, in cell order."""
        columns = (getattr(self, name).tolist() for name in _COLUMNS)
        cells = map(_Cell._make, zip(*columns, strict=True))
        flags = zip(self.converged.tolist(), self.iterations.tolist(), strict=True)
        return [
            self._result(i, cell, converged, iterations)
            for i, (cell, (converged, iterations)) in enumerate(zip(cells, flags, strict=True))
        ]

    def _result(self, i: int, cell: _Cell, converged: bool, iterations: int) -> MetaResult:
        start, stop = int(self.offsets[i]), int(self.offsets[i + 1])
        k = stop - start
        level = self.confidence_level
        hksj = self.test == "hksj"
        return MetaResult(
            mu=cell.mu,
            se=cell.se,
            ci=interval_of(cell.ci_low, cell.ci_high, level),
            statistic=cell.statistic,
            pvalue=cell.pvalue,
            df=k - 1 if hksj else None,
            tau2=cell.tau2,
            tau2_ci=interval_of(cell.tau2_ci_low, cell.tau2_ci_high, level),
            i2=cell.i2,
            i2_ci=interval_of(cell.i2_ci_low, cell.i2_ci_high, level),
            h2=cell.h2,
            h2_ci=interval_of(cell.h2_ci_low, cell.h2_ci_high, level),
            i2_basis=self.i2_basis,
            q=cell.q,
            q_df=k - 1,
            q_pvalue=cell.q_pvalue,
            prediction_interval=interval_of(cell.pi_low, cell.pi_high, level),
            k=k,
            method=self.method,
            test=self.test,
            converged=converged,
            iterations=iterations,
            hksj_scale=cell.hksj_scale if hksj and k > 1 else None,
            estimates=self.estimates[start:stop],
            variances=self.variances[start:stop],
            weights=self.weights[start:stop],
            labels=self.labels[start:stop] if self.labels is not None else _default_labels(k),
            confidence_level=level,
            notes=self.notes[i],
        )


@functools.cache
def _default_labels(k: int) -> tuple[str, ...]:
    return tuple(str(j + 1) for j in range(k))


def random_effects_batch(
    estimates: Any,
    variances: Any,
    cells: Any,
    /,
    *,
    method: Method = "reml",
    test: Test = "z",
    confidence_level: float = 0.95,
    i2_basis: I2Basis = "tau2",
    labels: Sequence[str] | None = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> MetaBatch:
    r"""Fit :func:`~evalsig.meta.random_effects` to every cell of a table of reports at once.

    Parameters
    ----------
    estimates, variances : array_like
        All reports' estimates :math:`y_i` and sampling variances :math:`v_i > 0`.
    cells : array_like of int
        The cell of each report, numbered 0, 1, ... without gaps (e.g.
        ``pandas.factorize(keys)[0]``); a cell's reports keep their order.
    method, test, confidence_level, i2_basis, tol, max_iter
        As in :func:`~evalsig.meta.random_effects`, for every cell.
    labels : sequence of str, optional
        A name for each report; "1", "2", ... within each cell by default.

    Returns
    -------
    MetaBatch
        One value per cell in each column; ``result(i)`` gives cell i's
        :class:`~evalsig.meta.MetaResult`. Cells whose tau^2 estimator did not converge
        have NaN estimates, a note, and one :class:`~evalsig.meta.MetaConvergenceWarning`
        counts them.

    Raises
    ------
    DataError
        For non-finite estimates, non-positive variances, cell numbers that are not
        integers from 0 without gaps, mismatched lengths or an unknown option.

    Notes
    -----
    Each cell's result is that of ``random_effects`` on the cell's reports alone (the
    formulas are documented there), to rounding: the cells are grouped by their number
    of reports k and each group is fitted with whole-array operations. The iterative
    tau^2 estimators take, cell by cell, the steps of the one-cell iteration with
    per-cell convergence masks, and the Q-profile bounds are found by Brent's method
    (Brent 1973), step for step as ``scipy.optimize.brentq``, for all cells at once.

    References
    ----------
    Viechtbauer, W. (2007). Confidence intervals for the amount of heterogeneity in
    meta-analysis. *Stat. Med.* 26, 37-52.
    Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*. Prentice-Hall.

    Examples
    --------
    >>> fits = random_effects_batch(
    ...     [81.2, 79.9, 83.0, 70.1, 72.4], [1.2, 0.8, 1.5, 0.9, 1.1], [0, 0, 0, 1, 1]
    ... )
    >>> len(fits), fits.k.tolist()
    (2, [3, 2])
    >>> round(fits.result(1).mu, 4)
    71.2065
    """
    spec = check_fit(method, test, confidence_level, i2_basis=i2_basis, tol=tol, max_iter=max_iter)
    y, v = effect_vectors(estimates, variances)
    codes = _cell_codes(cells, y.size)
    names = _report_labels(labels, y.size)
    order = np.argsort(codes, kind="stable")
    ordered = None if names is None else tuple(names[j] for j in order)
    batch = _fit(y[order], v[order], np.bincount(codes), ordered, spec)
    failed = int((~batch.converged).sum())
    if failed:
        warnings.warn(
            f"In {failed} of {len(batch)} cells the {spec.method.upper()} estimator of tau^2 "
            f"did not converge in {spec.max_iter} iterations; their estimates are reported as "
            "undefined (see `notes`). Try method='pm' or 'dl', or raise max_iter.",
            MetaConvergenceWarning,
            stacklevel=2,
        )
    return batch


def _cell_codes(cells: Any, n: int) -> np.ndarray:
    """``cells`` checked: one integer per report (n >= 1), numbering the cells 0, 1, ...
    without gaps."""
    codes = np.asarray(cells)
    if codes.shape != (n,):
        raise DataError(f"`cells` has shape {codes.shape}; give one cell number per report ({n}).")
    if codes.dtype == bool or not np.issubdtype(codes.dtype, np.integer):
        raise DataError(
            f"`cells` must hold integer cell numbers 0, 1, ...; got dtype {codes.dtype}. "
            "Number the cells with e.g. pandas.factorize(keys)[0]."
        )
    if codes.min() < 0:
        raise DataError(
            f"`cells` has negative numbers ({examples(codes[codes < 0])}); number the cells "
            "0, 1, ... (e.g. pandas.factorize(keys)[0])."
        )
    counts = np.bincount(codes)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise DataError(
            f"`cells` skips the cell numbers {examples(empty)}; number the cells 0 to "
            f"{counts.size - empty.size - 1} without gaps (e.g. pandas.factorize(keys)[0])."
        )
    return codes.astype(np.int64)


def _report_labels(labels: Sequence[str] | None, n: int) -> tuple[str, ...] | None:
    if labels is None:
        return None
    names = tuple(str(x) for x in labels)
    if len(names) != n:
        raise DataError(f"`labels` has {len(names)} names for {n} reports; give one per report.")
    return names


# --- the fit, one group of cells with the same k at a time --------------------------------


def _fit(
    y: np.ndarray,
    v: np.ndarray,
    counts: np.ndarray,
    labels: tuple[str, ...] | None,
    spec: FitOptions,
) -> MetaBatch:
    """All cells; ``y``, ``v`` and ``labels`` hold the reports cell by cell, ``counts``
    each cell's k."""
    n_cells = counts.size
    offsets = np.concatenate([[0], np.cumsum(counts)])
    columns = {name: np.full(n_cells, np.nan) for name in _COLUMNS}
    converged = np.ones(n_cells, dtype=bool)
    iterations = np.zeros(n_cells, dtype=np.int64)
    notes: list[tuple[str, ...]] = [()] * n_cells
    weights = np.empty(y.size)
    for k in np.unique(counts):
        cells = np.flatnonzero(counts == k)
        idx = offsets[cells][:, None] + np.arange(k)
        group = _fit_group(y[idx], v[idx], spec)
        for name, values in group.columns.items():
            columns[name][cells] = values
        converged[cells], iterations[cells] = group.converged, group.iterations
        weights[idx] = group.weights
        for j, text in group.notes.items():
            notes[int(cells[j])] = text
    return MetaBatch(
        method=spec.method,
        test=spec.test,
        confidence_level=spec.level,
        i2_basis=spec.basis,
        k=counts.astype(np.int64),
        **columns,
        converged=converged,
        iterations=iterations,
        notes=tuple(notes),
        estimates=read_only(y),
        variances=read_only(v),
        weights=read_only(weights),
        offsets=offsets,
        labels=labels,
    )


@dataclass(frozen=True, slots=True)
class _Group:
    columns: dict[str, np.ndarray]
    converged: np.ndarray
    iterations: np.ndarray
    weights: np.ndarray
    notes: dict[int, tuple[str, ...]]
    """The notes of the cells that have any, by position in the group."""


def _fit_group(y: np.ndarray, v: np.ndarray, spec: FitOptions) -> _Group:
    """Cells with the same number of reports k: ``y`` and ``v`` are ``(cells, k)``."""
    b, k = y.shape
    q = generalized_q_rows(y, v, np.zeros(b)) if k > 1 else np.zeros(b)
    estimated = k > 1 and spec.method != "fe"
    tau2, converged = np.zeros(b), np.ones(b, dtype=bool)
    iterations, reset = np.zeros(b, dtype=np.int64), np.zeros(b, dtype=bool)
    if estimated:
        method: Any = spec.method
        fit = tau2_batch(y, v, method, tol=spec.tol, max_iter=spec.max_iter)
        tau2, converged, iterations, reset = (
            fit.tau2,
            fit.converged,
            fit.iterations,
            fit.reset_to_zero,
        )
    columns, weights = _pooled(y, v, tau2, spec)
    columns["q"] = q
    columns["q_pvalue"] = special.chdtrc(k - 1, q) if k > 1 else np.full(b, np.nan)
    columns["tau2"] = tau2 if k > 1 else np.full(b, np.nan)
    low, high, null_set = np.full(b, np.nan), np.full(b, np.nan), np.zeros(b, dtype=bool)
    if estimated:
        low, high, null_set = _q_profile(y, v, converged, spec)
    columns["tau2_ci_low"], columns["tau2_ci_high"] = low, high
    columns.update(_heterogeneity(v, q, columns, spec))
    for name in _UNDEFINED_UNCONVERGED:
        columns[name] = np.where(converged, columns[name], np.nan)
    masks = _note_masks(k, estimated, reset, columns["hksj_scale"], null_set, spec)
    return _Group(
        columns=columns,
        converged=converged,
        iterations=iterations,
        weights=weights,
        notes=_notes(masks, converged, unconverged_note(spec.method, spec.max_iter)),
    )


def _pooled(
    y: np.ndarray, v: np.ndarray, tau2: np.ndarray, spec: FitOptions
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """mu, its SE (HKSJ-scaled under "hksj"), interval, test and prediction interval; and
    the reports' percent weights."""
    b, k = y.shape
    w = 1.0 / (v + tau2[:, None])
    sw = w.sum(axis=1)
    mu = (w * y).sum(axis=1) / sw
    se = np.sqrt(1.0 / sw)
    scale = np.full(b, np.nan)
    df: int | None = None
    if spec.test == "hksj":
        df = k - 1
        if k == 1:
            se = np.full(b, np.nan)
        else:
            rss = (w * (y - mu[:, None]) ** 2).sum(axis=1)
            scale = np.where(rss <= _EPS, 0.0, rss / (k - 1))
            se = np.sqrt(scale / sw)
    c = critical(spec.level, df)
    statistic = _statistic(mu, se)
    if df is None:
        pvalue = 2.0 * special.ndtr(-np.abs(statistic))
    else:
        pvalue = 2.0 * special.stdtr(df, -np.abs(statistic)) if df >= 1 else np.full(b, np.nan)
    half = c * np.sqrt(se * se + (tau2 if k > 1 else np.nan))
    columns = {
        "mu": mu,
        "se": se,
        "ci_low": mu - c * se,
        "ci_high": mu + c * se,
        "statistic": statistic,
        "pvalue": pvalue,
        "pi_low": mu - half,
        "pi_high": mu + half,
        "hksj_scale": scale,
    }
    return columns, 100.0 * w / sw[:, None]


def _statistic(estimate: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``estimate / se``; an exact estimate (se 0) gives +/-inf, or NaN at 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = estimate / se
    exact = np.where(estimate != 0, np.copysign(np.inf, estimate), np.nan)
    return np.where(se > 0, ratio, np.where(se == 0, exact, np.nan))


def _q_profile(
    y: np.ndarray, v: np.ndarray, fitted: np.ndarray, spec: FitOptions
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q-profile interval for tau^2 of the cells ``fitted`` (NaN elsewhere) and the null sets.

    As :func:`evalsig.meta.model.q_profile` for each cell: the bounds solve
    ``Q(tau2) = chi2_{k-1}`` quantiles inside ``[0, RSS / quantile]``.
    """
    b, k = y.shape
    alpha = 1.0 - spec.level
    upper_q = float(special.chdtri(k - 1, alpha / 2.0))
    lower_q = float(special.chdtri(k - 1, 1.0 - alpha / 2.0))
    q0 = generalized_q_rows(y, v, np.zeros(b))
    rss = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    xtol = np.maximum(spec.tol * v.mean(axis=1), 1e-300)
    null_set = fitted & (q0 < lower_q)
    low = np.where(fitted, 0.0, np.nan)
    high = np.where(fitted, 0.0, np.nan)
    need_low = np.flatnonzero(fitted & ~(q0 < upper_q))
    need_high = np.flatnonzero(fitted & ~null_set)
    rows = np.concatenate([need_low, need_high])
    target = np.concatenate([np.full(need_low.size, upper_q), np.full(need_high.size, lower_q)])
    roots = brentq_rows(
        lambda j, t: generalized_q_rows(y[rows[j]], v[rows[j]], t) - target[j],
        np.zeros(rows.size),
        rss[rows] / target * (1 + 1e-9),
        xtol=xtol[rows],
        maxiter=500,
    )
    low[need_low] = roots.x[: need_low.size]
    high[need_high] = roots.x[need_low.size :]
    return low, high, null_set


def _heterogeneity(
    v: np.ndarray, q: np.ndarray, columns: dict[str, np.ndarray], spec: FitOptions
) -> dict[str, np.ndarray]:
    """I^2 (percent), H^2 and their intervals (mapped from the tau^2 interval)."""
    b, k = v.shape
    nan = np.full(b, np.nan)
    out = dict.fromkeys(("i2_ci_low", "i2_ci_high", "h2_ci_low", "h2_ci_high"), nan)
    if k == 1:
        return {**out, "i2": nan, "h2": nan}
    if spec.method == "fe" or spec.basis == "q":
        with np.errstate(divide="ignore", invalid="ignore"):
            i2 = np.where(q > 0, np.maximum(0.0, 100.0 * (q - (k - 1)) / q), 0.0)
        return {**out, "i2": i2, "h2": q / (k - 1)}
    w0 = 1.0 / v
    sw0 = w0.sum(axis=1)
    typical = (k - 1) / (sw0 - (w0 * w0).sum(axis=1) / sw0)
    tau2, low, high = columns["tau2"], columns["tau2_ci_low"], columns["tau2_ci_high"]
    return {
        "i2": 100.0 * tau2 / (typical + tau2),
        "h2": tau2 / typical + 1.0,
        "i2_ci_low": 100.0 * low / (typical + low),
        "i2_ci_high": 100.0 * high / (typical + high),
        "h2_ci_low": low / typical + 1.0,
        "h2_ci_high": high / typical + 1.0,
    }


def _note_masks(
    k: int,
    estimated: bool,
    reset: np.ndarray,
    scale: np.ndarray,
    null_set: np.ndarray,
    spec: FitOptions,
) -> list[tuple[str, np.ndarray]]:
    """Which cells get which note, in the order ``random_effects`` adds them."""
    b = reset.size
    every, none = np.ones(b, dtype=bool), np.zeros(b, dtype=bool)
    hksj = spec.test == "hksj"
    return [
        (K1_NOTE, every if k == 1 else none),
        (RESET_NOTE, reset if estimated else none),
        (K2_NOTE, every if estimated and k == 2 else none),
        (HKSJ_K1_NOTE, every if hksj and k == 1 else none),
        (HKSJ_EQUAL_NOTE, (scale == 0.0) if hksj and k > 1 else none),
        (HKSJ_K2_NOTE, every if hksj and k == 2 else none),
        (HKSJ_FE_NOTE, every if hksj and spec.method == "fe" else none),
        (NULL_SET_NOTE, null_set),
    ]


def _notes(
    masks: list[tuple[str, np.ndarray]], converged: np.ndarray, unconverged: str
) -> dict[int, tuple[str, ...]]:
    """Each noted cell's notes; a cell whose estimator did not converge has only that note."""
    any_note = ~converged
    for _, mask in masks:
        any_note = any_note | mask
    notes = {}
    for j in np.flatnonzero(any_note):
        if converged[j]:
            notes[int(j)] = tuple(text for text, mask in masks if mask[j])
        else:
            notes[int(j)] = (unconverged,)
    return notes
