"""Mixed-effects meta-regression on one moderator: ``y_i = b0 + b1 x_i + u_i + e_i``."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

from evalsig._deprecation import renamed
from evalsig._json import json_safe
from evalsig.errors import DataError
from evalsig.inference import ConfidenceInterval
from evalsig.meta._validate import (
    MetaConvergenceWarning,
    Method,
    Test,
    check_fit,
    effect_vectors,
)
from evalsig.meta.estimators import design_matrix, tau2_design
from evalsig.meta.model import critical

__all__ = ["Fit", "MetaRegressionResult", "fit_design", "meta_regression"]


@dataclass(frozen=True, slots=True)
class Fit:
    """Coefficients of ``y = X beta + u + e`` with their (HKSJ-scaled) covariance."""

    beta: np.ndarray
    cov: np.ndarray
    tau2: float
    df: int | None
    converged: bool
    iterations: int
    q_residual: float
    notes: tuple[str, ...]

    @renamed(level="confidence_level")
    def wald(
        self, j: int, confidence_level: float
    ) -> tuple[float, float, float, float, float, float]:
        """Estimate, SE, statistic, p-value and CI bounds of coefficient ``j``."""
        est, se = float(self.beta[j]), math.sqrt(float(self.cov[j, j]))
        stat = est / se if se > 0 else math.nan
        if self.df is None:
            p = float(2.0 * special.ndtr(-abs(stat)))
        else:
            p = float(2.0 * special.stdtr(self.df, -abs(stat)))
        c = critical(confidence_level, self.df)
        return est, se, stat, p, est - c * se, est + c * se


def fit_design(
    y: np.ndarray,
    v: np.ndarray,
    x: np.ndarray,
    *,
    method: Method,
    test: Test,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> Fit:
    """Fit the mixed-effects model on a full-rank design ``x`` (k > p; inputs trusted).

    ``test="hksj"`` scales the covariance by ``s^2 = sum w_i r_i^2 / (k - p)`` and uses
    t(k - p), as metafor's ``test="knha"``.
    """
    k, p = x.shape
    est = tau2_design(y, v, x, method, tol=tol, max_iter=max_iter)
    notes = list(est.notes)
    w0 = 1.0 / v
    wx0 = x * w0[:, None]
    beta0 = np.linalg.solve(x.T @ wx0, wx0.T @ y)
    q_res = float(w0 @ (y - x @ beta0) ** 2)
    if not est.converged:
        nan = np.full(p, math.nan)
        return Fit(nan, np.full((p, p), math.nan), math.nan, None, False, est.iterations, q_res, ())
    w = 1.0 / (v + est.tau2)
    wx = x * w[:, None]
    cov = np.linalg.inv(x.T @ wx)
    beta = cov @ (wx.T @ y)
    df: int | None = None
    if test == "hksj":
        df = k - p
        rss = float(w @ (y - x @ beta) ** 2)
        cov = cov * (0.0 if rss <= np.finfo(float).eps else rss / df)
    return Fit(beta, cov, est.tau2, df, True, est.iterations, q_res, tuple(notes))


@dataclass(frozen=True, slots=True, kw_only=True)
class MetaRegressionResult:
    """A meta-regression on one moderator: intercept, slope and residual heterogeneity."""

    intercept: float
    intercept_se: float
    intercept_ci: ConfidenceInterval
    slope: float
    """Change in the expected estimate per unit of the moderator (for a 0/1 flag: the gap)."""
    slope_se: float
    slope_ci: ConfidenceInterval
    statistic: float
    """z (or t) of H0: slope = 0."""
    pvalue: float
    df: int | None
    tau2: float
    """Residual between-report variance."""
    q_residual: float
    """Residual heterogeneity Q_E (weights 1/v_i), referred to chi-square(k - 2)."""
    q_residual_df: int
    q_residual_pvalue: float
    k: int
    method: str
    test: str
    converged: bool
    confidence_level: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        reason = "the tau^2 estimator did not converge" if not self.converged else "undefined"

        def num(name: str, value: float) -> float | None:
            return json_safe(value, name, nulls, reason)

        def interval(name: str, ci: ConfidenceInterval) -> dict[str, Any]:
            return {
                "low": num(f"{name}.low", ci.low),
                "high": num(f"{name}.high", ci.high),
                "confidence_level": ci.confidence_level,
            }

        return {
            "intercept": num("intercept", self.intercept),
            "intercept_se": num("intercept_se", self.intercept_se),
            "intercept_ci": interval("intercept_ci", self.intercept_ci),
            "slope": num("slope", self.slope),
            "slope_se": num("slope_se", self.slope_se),
            "slope_ci": interval("slope_ci", self.slope_ci),
            "statistic": num("statistic", self.statistic),
            "pvalue": num("pvalue", self.pvalue),
            "df": self.df,
            "tau2": num("tau2", self.tau2),
            "q_residual": num("q_residual", self.q_residual),
            "q_residual_df": self.q_residual_df,
            "q_residual_pvalue": num("q_residual_pvalue", self.q_residual_pvalue),
            "k": self.k,
            "method": self.method,
            "test": self.test,
            "converged": self.converged,
            "confidence_level": self.confidence_level,
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """The coefficients: term ("intercept", "slope"), estimate, se, ci_low, ci_high.

        The test of the slope and the residual heterogeneity are in ``frame.attrs``:
        statistic, pvalue, df, tau2, q_residual, q_residual_df, q_residual_pvalue, k,
        method, test, confidence_level.
        """
        from evalsig._frame import data_frame, floats

        names: tuple[str, ...] = ("statistic", "pvalue", "df", "tau2", "q_residual")
        names += ("q_residual_df", "q_residual_pvalue", "k", "method", "test", "confidence_level")
        ci = (self.intercept_ci, self.slope_ci)
        return data_frame(
            {
                "term": ["intercept", "slope"],
                "estimate": floats((self.intercept, self.slope)),
                "se": floats((self.intercept_se, self.slope_se)),
                "ci_low": floats(c.low for c in ci),
                "ci_high": floats(c.high for c in ci),
            },
            attrs={name: getattr(self, name) for name in names},
        )


def meta_regression(
    estimates: Any,
    variances: Any,
    moderator: Any,
    /,
    *,
    method: Method = "reml",
    test: Test = "z",
    confidence_level: float = 0.95,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> MetaRegressionResult:
    r"""Regress reported estimates on one moderator with a random effect per report.

    Parameters
    ----------
    estimates, variances : array_like
        The reports' estimates and sampling variances (k >= 3).
    moderator : array_like
        One value per report: a 0/1 flag (e.g. self-reported) or a continuous covariate.
    method : {"reml", "ml", "dl", "pm", "he", "sj", "hs", "eb", "fe"}, default "reml"
        Estimator of the residual tau^2 (metafor's mixed-effects definitions).
    test : {"z", "hksj"}, default "z"
        Wald z, or Knapp-Hartung with t(k - 2).
    confidence_level : float, default 0.95
    tol, max_iter
        As in :func:`~evalsig.meta.random_effects`.

    Returns
    -------
    MetaRegressionResult

    Raises
    ------
    DataError
        If the moderator is constant, k < 3, or the inputs are invalid.

    Notes
    -----
    The model is :math:`y = X\beta + u + e` with :math:`X = [1, x]`,
    :math:`u \sim N(0, \tau^2 I)`, :math:`e \sim N(0, V)`. Given :math:`\hat\tau^2`,
    :math:`\hat\beta = (X'WX)^{-1}X'Wy` with :math:`W = (V + \hat\tau^2 I)^{-1}` and
    covariance :math:`(X'WX)^{-1}` (times the Knapp-Hartung factor
    :math:`\sum w_i r_i^2/(k-2)` under HKSJ). For a 0/1 moderator the slope is the mean gap
    between flagged and unflagged reports, with a common residual tau^2 in both groups.

    References
    ----------
    Thompson, S. G. & Sharp, S. J. (1999). Explaining heterogeneity in meta-analysis: a
    comparison of methods. *Stat. Med.* 18, 2693-2708.
    Knapp, G. & Hartung, J. (2003). Improved tests for a random effects meta-regression
    with a single covariate. *Stat. Med.* 22, 2693-2710.

    Examples
    --------
    >>> y = [80.1, 82.0, 79.5, 84.2, 83.9, 85.0]
    >>> v = [0.5, 0.4, 0.6, 0.5, 0.3, 0.4]
    >>> res = meta_regression(y, v, [0, 0, 0, 1, 1, 1])
    >>> round(res.slope, 3), res.pvalue < 0.001
    (3.741, True)
    """
    spec = check_fit(method, test, confidence_level, tol=tol, max_iter=max_iter)
    method, test, level = spec.method, spec.test, spec.level
    y, v = effect_vectors(estimates, variances)
    x = design_matrix(moderator, y.size)
    if x.shape[1] != 2:
        raise DataError("`moderator` must be one value per report (a single column).")
    fit = fit_design(y, v, x, method=method, test=test, tol=spec.tol, max_iter=spec.max_iter)
    k = y.size
    notes = list(fit.notes)
    if not fit.converged:
        message = f"The {method.upper()} estimator of the residual tau^2 did not converge."
        warnings.warn(message, MetaConvergenceWarning, stacklevel=2)
        notes.append(message)
    b0 = fit.wald(0, level)
    b1 = fit.wald(1, level)
    return MetaRegressionResult(
        intercept=b0[0],
        intercept_se=b0[1],
        intercept_ci=ConfidenceInterval(low=b0[4], high=b0[5], confidence_level=level),
        slope=b1[0],
        slope_se=b1[1],
        slope_ci=ConfidenceInterval(low=b1[4], high=b1[5], confidence_level=level),
        statistic=b1[2],
        pvalue=b1[3],
        df=fit.df,
        tau2=fit.tau2,
        q_residual=fit.q_residual,
        q_residual_df=k - 2,
        q_residual_pvalue=float(stats.chi2.sf(fit.q_residual, k - 2)),
        k=k,
        method=method,
        test=test,
        converged=fit.converged,
        confidence_level=level,
        notes=tuple(notes),
    )
