"""Small-study and publication bias: Egger's regression, Begg's rank test, trim and fill."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import special, stats

from evalsig._json import json_safe
from evalsig.errors import DataError
from evalsig.inference import ConfidenceInterval
from evalsig.inference._common import check_choice
from evalsig.meta._validate import (
    MetaConvergenceWarning,
    Method,
    Test,
    check_fit,
    effect_vectors,
)
from evalsig.meta.model import MetaResult, critical, interval_of, random_effects
from evalsig.meta.regression import fit_design

__all__ = [
    "EggerResult",
    "RankTestResult",
    "TrimFillResult",
    "egger_test",
    "rank_test",
    "trim_and_fill",
]

EggerModel = Literal["rma", "lm"]
Side = Literal["left", "right"]

_FEW = (
    "k = {k} < 10: funnel-asymmetry tests have little power with fewer than 10 reports "
    "(Sterne et al. 2011); a non-significant result is weak evidence of symmetry."
)


def _json_interval(
    ci: ConfidenceInterval, name: str, nulls: dict[str, str], reason: str
) -> dict[str, Any]:
    return {
        "low": json_safe(ci.low, f"{name}.low", nulls, reason),
        "high": json_safe(ci.high, f"{name}.high", nulls, reason),
        "confidence_level": ci.confidence_level,
    }


# --- Egger -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EggerResult:
    """Egger's regression test for funnel-plot asymmetry."""

    statistic: float
    """z (``model="rma"``, test "z") or t of the standard-error coefficient."""
    pvalue: float
    df: int | None
    bias: float
    """Coefficient of the standard error: Egger's intercept in the standardized form
    ``y/se = b + a/se``; positive when imprecise reports are higher."""
    bias_se: float
    limit_estimate: float
    """The estimate as the standard error goes to 0 (NaN with ``groups``)."""
    limit_ci: ConfidenceInterval
    k: int
    n_groups: int
    model: str
    method: str | None
    """tau^2 estimator of the ``rma`` model (None for ``lm``)."""
    test: str
    tau2: float | None
    converged: bool
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        reason = "the tau^2 estimator did not converge" if not self.converged else "undefined"
        limit = reason if self.n_groups == 1 else "no common limit estimate with groups"
        return {
            "statistic": json_safe(self.statistic, "statistic", nulls, reason),
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, reason),
            "df": self.df,
            "bias": json_safe(self.bias, "bias", nulls, reason),
            "bias_se": json_safe(self.bias_se, "bias_se", nulls, reason),
            "limit_estimate": json_safe(self.limit_estimate, "limit_estimate", nulls, limit),
            "limit_ci": _json_interval(self.limit_ci, "limit_ci", nulls, limit),
            "k": self.k,
            "n_groups": self.n_groups,
            "model": self.model,
            "method": self.method,
            "test": self.test,
            "tau2": json_safe(self.tau2, "tau2", nulls, reason),
            "converged": self.converged,
            "notes": list(self.notes),
            "nulls": nulls,
        }


def _group_design(groups: Any, k: int) -> tuple[np.ndarray, int]:
    """One indicator column per distinct group (in order of first appearance)."""
    labels = list(groups)
    if len(labels) != k:
        raise DataError(f"`groups` has {len(labels)} labels for {k} reports; give one per report.")
    order = list(dict.fromkeys(labels))
    index = {g: j for j, g in enumerate(order)}
    x = np.zeros((k, len(order)))
    x[np.arange(k), [index[g] for g in labels]] = 1.0
    return x, len(order)


def egger_test(
    estimates: Any,
    variances: Any,
    /,
    *,
    model: EggerModel = "rma",
    method: Method = "reml",
    test: Test = "z",
    groups: Any = None,
    confidence_level: float = 0.95,
) -> EggerResult:
    r"""Egger's regression test: do less precise reports show larger (or smaller) estimates?

    Parameters
    ----------
    estimates, variances : array_like
        The reports' estimates and sampling variances.
    model : {"rma", "lm"}, default "rma"
        ``"lm"``: Egger et al. (1997), the ordinary regression of :math:`y_i/s_i` on
        :math:`1/s_i` testing the intercept, t(k - 2). ``"rma"``: metafor's ``regtest``
        default, the mixed-effects meta-regression of :math:`y_i` on :math:`s_i` with
        tau^2 estimated by ``method`` and inference by ``test``.
    method, test
        tau^2 estimator and inference of the ``"rma"`` model (ignored for ``"lm"``).
    groups : sequence, optional
        A label per report (e.g. the model, within one benchmark): each group gets its own
        intercept, so the test uses only the within-group relation between estimate and
        standard error (a common slope and, for ``"rma"``, a common tau^2).
    confidence_level : float, default 0.95
        Level of the interval of the limit estimate.

    Returns
    -------
    EggerResult

    Raises
    ------
    DataError
        With fewer than ``p + 1`` reports (p = 2 without groups), all standard errors
        equal, or invalid input.

    Notes
    -----
    The two forms agree: :math:`y_i/s_i = b_0 + b_1/s_i + \epsilon_i` is the weighted
    regression :math:`y_i = b_1 + b_0 s_i` with weights :math:`1/s_i^2`, so the Egger
    intercept :math:`b_0` is the coefficient of :math:`s_i` (reported as ``bias``) and
    :math:`b_1` is the limit estimate at :math:`s_i \to 0`.

    References
    ----------
    Egger, M., Davey Smith, G., Schneider, M. & Minder, C. (1997). Bias in meta-analysis
    detected by a simple, graphical test. *BMJ* 315, 629-634.
    Sterne, J. A. C. & Egger, M. (2005). Regression methods to detect publication and
    other bias in meta-analysis. In *Publication Bias in Meta-Analysis*, Wiley.

    Examples
    --------
    >>> y = [0.8, 0.9, 1.1, 1.6, 1.9, 2.4]
    >>> v = [0.01, 0.02, 0.04, 0.09, 0.16, 0.25]
    >>> res = egger_test(y, v, model="lm")
    >>> round(res.bias, 3), res.df
    (3.835, 4)
    """
    chosen = check_choice(model, ("rma", "lm"), "`model`", "Use 'rma' (metafor's default).")
    spec = check_fit(method, test, confidence_level)
    method, test, level = spec.method, spec.test, spec.level
    y, v = effect_vectors(estimates, variances)
    k = y.size
    x, n_groups = _egger_design(v, groups)
    notes = [_FEW.format(k=k)] if k < 10 else []
    df: int | None
    tau2: float | None = None
    converged = True
    if chosen == "lm":
        beta, cov, df = _egger_lm(y, v, x)
    else:
        fit = fit_design(y, v, x, method=method, test=test)
        beta, cov, df, tau2, converged = fit.beta, fit.cov, fit.df, fit.tau2, fit.converged
        notes += list(fit.notes)
        if not converged:
            message = f"Egger's test: the {method.upper()} estimator did not converge."
            warnings.warn(message, MetaConvergenceWarning, stacklevel=2)
            notes.append(message)
    bias, bias_se = float(beta[-1]), math.sqrt(float(cov[-1, -1]))
    stat = bias / bias_se if bias_se > 0 else math.nan
    if df is None:
        pvalue = float(2.0 * special.ndtr(-abs(stat)))
    else:
        pvalue = float(2.0 * special.stdtr(df, -abs(stat)))
    limit, limit_ci = math.nan, interval_of(math.nan, math.nan, level)
    if groups is None:
        limit, limit_se = float(beta[0]), math.sqrt(float(cov[0, 0]))
        c = critical(level, df)
        limit_ci = interval_of(limit - c * limit_se, limit + c * limit_se, level)
    return EggerResult(
        statistic=stat,
        pvalue=pvalue,
        df=df,
        bias=bias,
        bias_se=bias_se,
        limit_estimate=limit,
        limit_ci=limit_ci,
        k=k,
        n_groups=n_groups,
        model=chosen,
        method=None if chosen == "lm" else method,
        test="t" if chosen == "lm" else test,
        tau2=tau2,
        converged=converged,
        notes=tuple(notes),
    )


def _egger_design(v: np.ndarray, groups: Any) -> tuple[np.ndarray, int]:
    """The design (an intercept per group, then the standard error) and the group count."""
    k = v.size
    base, n_groups = (np.ones((k, 1)), 1) if groups is None else _group_design(groups, k)
    x = np.column_stack([base, np.sqrt(v)])
    p = x.shape[1]
    if k <= p:
        raise DataError(
            f"Egger's test needs more reports than coefficients ({p}); got k = {k}. "
            "It is not defined for so few reports."
        )
    if np.linalg.matrix_rank(x) < p:
        raise DataError(
            "Egger's test: the standard errors do not vary (within groups); the slope on the "
            "standard error cannot be estimated."
        )
    return x, n_groups


def _egger_lm(y: np.ndarray, v: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Weighted least squares with an estimated residual variance: coefficients, cov, df."""
    k, p = x.shape
    w = 1.0 / v
    wx = x * w[:, None]
    cov = np.linalg.inv(x.T @ wx)
    beta = cov @ (wx.T @ y)
    sigma2 = float(w @ (y - x @ beta) ** 2) / (k - p)
    return beta, cov * sigma2, k - p


# --- Begg and Mazumdar -------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RankTestResult:
    """Begg and Mazumdar's rank correlation test for funnel-plot asymmetry."""

    statistic: float
    """Kendall's tau (tau-b when there are ties) between standardized estimates and variances."""
    pvalue: float
    k: int
    method: str
    """'exact' (no ties) or 'asymptotic' (normal approximation with the ties correction)."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        reason = "all standardized estimates or variances are tied"
        return {
            "statistic": json_safe(self.statistic, "statistic", nulls, reason),
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, reason),
            "k": self.k,
            "method": self.method,
            "notes": list(self.notes),
            "nulls": nulls,
        }


def rank_test(estimates: Any, variances: Any, /) -> RankTestResult:
    r"""Begg and Mazumdar's rank correlation test (metafor's ``ranktest``).

    Parameters
    ----------
    estimates, variances : array_like
        The reports' estimates and sampling variances (k >= 3).

    Returns
    -------
    RankTestResult

    Raises
    ------
    DataError
        With fewer than 3 reports or invalid input.

    Notes
    -----
    With the fixed-effect estimate :math:`\hat\theta` and its variance
    :math:`v_\cdot = 1/\sum v_i^{-1}`, the standardized estimates
    :math:`y_i^* = (y_i - \hat\theta)/\sqrt{v_i - v_\cdot}` are correlated with
    :math:`v_i` by Kendall's tau. Without ties the p-value is exact (as R's
    ``cor.test(..., exact=TRUE)``); with ties, tau-b and the normal approximation with the
    tie-corrected variance.

    References
    ----------
    Begg, C. B. & Mazumdar, M. (1994). Operating characteristics of a rank correlation
    test for publication bias. *Biometrics* 50, 1088-1101.

    Examples
    --------
    >>> res = rank_test([0.8, 0.9, 1.1, 1.6, 1.9, 2.4], [0.01, 0.02, 0.04, 0.09, 0.16, 0.25])
    >>> round(res.statistic, 3), res.method
    (1.0, 'exact')
    """
    y, v = effect_vectors(estimates, variances)
    k = y.size
    if k < 3:
        raise DataError(f"the rank test needs at least 3 reports; got k = {k}.")
    w = 1.0 / v
    theta = float(w @ y) / float(w.sum())
    standardized = (y - theta) / np.sqrt(v - 1.0 / float(w.sum()))
    ties = np.unique(standardized).size < k or np.unique(v).size < k
    method = "asymptotic" if ties else "exact"
    res = stats.kendalltau(standardized, v, method=method)
    notes = [_FEW.format(k=k)] if k < 10 else []
    return RankTestResult(
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        k=k,
        method=method,
        notes=tuple(notes),
    )


# --- trim and fill -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TrimFillResult:
    """Duval and Tweedie's trim and fill: reports imputed to make the funnel symmetric."""

    k0: int
    """Estimated number of missing reports (L0 estimator)."""
    se_k0: float
    side: str
    """Side of the funnel where reports were imputed ('left': low estimates)."""
    filled_estimates: np.ndarray
    filled_variances: np.ndarray
    original: MetaResult
    adjusted: MetaResult
    """The model refitted to the observed and imputed reports."""
    iterations: int
    converged: bool
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        return {
            "k0": self.k0,
            "se_k0": json_safe(self.se_k0, "se_k0", nulls, "undefined"),
            "side": self.side,
            "filled": [
                {"estimate": float(y), "se": math.sqrt(float(v))}
                for y, v in zip(self.filled_estimates, self.filled_variances, strict=True)
            ],
            "mu": json_safe(self.original.mu, "mu", nulls, "the model did not converge"),
            "adjusted_mu": json_safe(
                self.adjusted.mu, "adjusted_mu", nulls, "the model did not converge"
            ),
            "adjusted_ci": _json_interval(
                self.adjusted.ci, "adjusted_ci", nulls, "the model did not converge"
            ),
            "iterations": self.iterations,
            "converged": self.converged,
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """The imputed reports (``k0`` rows): estimate, se. ``frame.attrs`` holds k0, side,
        mu (before), adjusted_mu, adjusted_ci_low and adjusted_ci_high."""
        from evalsig._frame import data_frame

        summary = {
            "k0": self.k0, "side": self.side, "mu": self.original.mu,
            "adjusted_mu": self.adjusted.mu, "adjusted_ci_low": self.adjusted.ci.low,
            "adjusted_ci_high": self.adjusted.ci.high,
        }  # fmt: skip
        return data_frame(
            {
                "estimate": np.asarray(self.filled_estimates, dtype=np.float64),
                "se": np.sqrt(np.asarray(self.filled_variances, dtype=np.float64)),
            },
            attrs=summary,
        )


def _pooled(y: np.ndarray, v: np.ndarray, method: Method) -> float:
    if y.size == 1:
        return float(y[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaConvergenceWarning)
        return random_effects(y, v, method=method).mu


def trim_and_fill(
    estimates: Any,
    variances: Any,
    /,
    *,
    method: Method = "reml",
    test: Test = "z",
    side: Side | None = None,
    confidence_level: float = 0.95,
    max_iter: int = 100,
) -> TrimFillResult:
    r"""Trim and fill (Duval & Tweedie 2000) with the L0 estimator, as metafor's ``trimfill``.

    Parameters
    ----------
    estimates, variances : array_like
        The reports' estimates and sampling variances (k >= 3 when ``side`` is not given).
    method : str, default "reml"
        tau^2 estimator used in every fit (trimmed and filled).
    test : {"z", "hksj"}, default "z"
        Inference of the final fit (metafor's final fit uses its default, "z").
    side : {"left", "right"}, optional
        Where reports are missing. By default chosen as metafor does: "right" if the slope
        of the ``rma`` Egger regression (on the standard error) is negative, else "left".
    confidence_level : float, default 0.95
    max_iter : int, default 100
        Cap on trim-and-fill iterations (metafor's default).

    Returns
    -------
    TrimFillResult

    Raises
    ------
    DataError
        With too few reports or invalid input.

    Notes
    -----
    On the side's orientation (estimates negated for "right"), sorted ascending: fit the
    model to the ``k - k0`` smallest estimates, centre all k at that estimate
    :math:`\hat\mu_t`, rank the absolute centred values (ties by position) and with
    :math:`S_r` the sum of the ranks of the positive ones,
    :math:`L_0 = (4 S_r - k(k+1)) / (2k - 1)`, rounded half to even and truncated at 0
    (R's ``round``); repeat until k0 is stable. The k0 largest estimates are mirrored
    around :math:`\hat\mu_t` (:math:`2\hat\mu_t - y_i`, same variances) and the model is
    refitted to all ``k + k0``. Trim and fill is a sensitivity analysis, not a correction.

    References
    ----------
    Duval, S. & Tweedie, R. (2000). Trim and fill: a simple funnel-plot-based method of
    testing and adjusting for publication bias in meta-analysis. *Biometrics* 56, 455-463.

    Examples
    --------
    >>> y = [0.8, 0.9, 1.1, 1.6, 1.9, 2.4]
    >>> v = [0.01, 0.02, 0.04, 0.09, 0.16, 0.25]
    >>> res = trim_and_fill(y, v, method="fe")
    >>> res.side, res.k0, res.adjusted.mu < res.original.mu
    ('left', 3, True)
    """
    spec = check_fit(method, test, confidence_level, max_iter=max_iter)
    method, test, level, max_iter = spec.method, spec.test, spec.level, spec.max_iter
    y, v = effect_vectors(estimates, variances)
    k = y.size
    notes: list[str] = []
    chosen = _choose_side(y, v, side, method)
    sign = -1.0 if chosen == "right" else 1.0
    order = np.argsort(sign * y, kind="stable")
    ys, vs = sign * y[order], v[order]
    k0, se_k0, beta, iterations, converged = _l0_iterations(ys, vs, method, max_iter)
    if not converged:
        notes.append(f"Trim and fill did not settle on k0 in {max_iter} iterations.")
        warnings.warn(notes[-1], MetaConvergenceWarning, stacklevel=2)
    filled_y = sign * (2.0 * beta - ys[k - k0 :]) if k0 > 0 else np.empty(0)
    filled_v = vs[k - k0 :].copy() if k0 > 0 else np.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaConvergenceWarning)
        original = random_effects(y, v, method=method, test=test, confidence_level=level)
        adjusted = (
            random_effects(
                np.concatenate([y, filled_y]),
                np.concatenate([v, filled_v]),
                method=method,
                test=test,
                confidence_level=level,
                labels=[*original.labels, *(f"filled {i + 1}" for i in range(k0))],
            )
            if k0 > 0
            else original
        )
    if k0 > 0:
        notes.append(
            f"{k0} report{'s' if k0 > 1 else ''} imputed on the {chosen}: the pooled estimate "
            f"moves from {original.mu:.4g} to {adjusted.mu:.4g}."
        )
    return TrimFillResult(
        k0=k0,
        se_k0=se_k0,
        side=chosen,
        filled_estimates=filled_y,
        filled_variances=filled_v,
        original=original,
        adjusted=adjusted,
        iterations=iterations,
        converged=converged,
        notes=tuple(notes),
    )


def _choose_side(y: np.ndarray, v: np.ndarray, side: Side | None, method: Method) -> str:
    """The side given, or metafor's choice: "right" when the Egger slope is negative."""
    k = y.size
    if side is not None:
        chosen = check_choice(side, ("left", "right"), "`side`", "Or leave it out.")
        if k < 2:
            raise DataError("trim and fill needs at least 2 reports.")
        return chosen
    if k < 3:
        raise DataError(
            f"trim and fill with k = {k}: choosing the side needs 3 reports; pass "
            "side='left' or side='right'."
        )
    x = np.column_stack([np.ones(k), np.sqrt(v)])
    if np.linalg.matrix_rank(x) < 2:
        raise DataError(
            "trim and fill: all standard errors are equal, so the side cannot be chosen "
            "from the Egger regression; pass side='left' or side='right'."
        )
    fit = fit_design(y, v, x, method=method, test="z")
    if not fit.converged:
        raise DataError(
            f"trim and fill: the {method.upper()} fit that chooses the side did not "
            "converge; pass side='left' or side='right'."
        )
    return "right" if fit.beta[1] < 0 else "left"


def _l0_iterations(
    ys: np.ndarray, vs: np.ndarray, method: Method, max_iter: int
) -> tuple[int, float, float, int, bool]:
    """L0 iterations on sorted, oriented reports: k0, se, trimmed mean, iterations, settled."""
    k = ys.size
    k0, previous, se_k0, beta = 0, -1, math.nan, math.nan
    iterations = 0
    while k0 != previous:
        if iterations == max_iter:
            return k0, se_k0, beta, iterations, False
        previous, iterations = k0, iterations + 1
        beta = _pooled(ys[: k - k0], vs[: k - k0], method)
        centred = ys - beta
        ranks = stats.rankdata(np.abs(centred), method="ordinal")
        s_r = float(ranks[centred > 0].sum())
        raw = (4.0 * s_r - k * (k + 1)) / (2 * k - 1)
        var_sr = (
            k * (k + 1) * (2 * k + 1)
            + 10 * raw**3
            + 27 * raw**2
            + 17 * raw
            - 18 * k * raw**2
            - 18 * k * raw
            + 6 * k**2 * raw
        ) / 24.0
        se_k0 = max(0.0, 4.0 * math.sqrt(var_sr) / (2 * k - 1)) if var_sr >= 0 else math.nan
        k0 = max(0, int(np.round(raw)))
    return k0, se_k0, beta, iterations, True
