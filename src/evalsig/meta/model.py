"""The random-effects model ``y_i = mu + u_i + e_i`` for one set of reports: ``random_effects``."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import optimize, special

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.errors import DataError
from evalsig.inference import ConfidenceInterval
from evalsig.inference._common import check_confidence_level
from evalsig.meta._validate import (
    FitOptions,
    I2Basis,
    MetaConvergenceWarning,
    Method,
    Test,
    check_fit,
    effect_vectors,
)
from evalsig.meta.estimators import generalized_q, tau2_batch
from evalsig.result import Tested

__all__ = ["I2Basis", "MetaResult", "random_effects"]


_NAN_CI = (math.nan, math.nan)

# Notes of a fit, in the order they are added (shared with evalsig.meta.batch).
K1_NOTE = (
    "k = 1: the pooled estimate is the single report with its own standard error; "
    "tau^2, I^2, the Q test and the prediction interval cannot be estimated."
)
RESET_NOTE = (
    "Fisher scoring stopped at a local maximum; tau^2 = 0 has a higher "
    "likelihood and is used (metafor's ll0check)."
)
K2_NOTE = "k = 2: tau^2 rests on a single degree of freedom and is very imprecise."
HKSJ_K1_NOTE = "HKSJ needs k >= 2 (k - 1 degrees of freedom); its interval is undefined."
HKSJ_EQUAL_NOTE = "All reports are equal: the HKSJ scale is 0 (metafor's convention)."
HKSJ_K2_NOTE = "HKSJ with k = 2 uses t(1): the interval is very wide."
HKSJ_FE_NOTE = "HKSJ is meant for random-effects models; applied to the fixed effect."
NULL_SET_NOTE = (
    "Q-profile: even tau^2 = 0 gives a Q below its lower chi-square quantile; the "
    "tau^2 interval is the single point 0 (an empty set in metafor)."
)


def unconverged_note(method: str, max_iter: int) -> str:
    """The note (and warning) of a fit whose tau^2 estimator did not converge."""
    return (
        f"The {method.upper()} estimator of tau^2 did not converge in {max_iter} "
        "iterations; all estimates are reported as undefined. Try method='pm' or 'dl', "
        "or raise max_iter."
    )


def interval_of(low: float, high: float, level: float) -> ConfidenceInterval:
    """The interval ``[low, high]`` at ``level``, its bounds as Python floats."""
    return ConfidenceInterval(low=float(low), high=float(high), confidence_level=level)


def critical(confidence_level: float, df: int | None) -> float:
    """Two-sided multiplier: the normal quantile, or Student's t with ``df`` (NaN if df < 1)."""
    q = 0.5 + confidence_level / 2.0
    if df is None:
        return float(special.ndtri(q))
    return float(special.stdtrit(df, q)) if df >= 1 else math.nan


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MetaResult(Tested):
    """A random-effects (or fixed-effect) meta-analysis of one set of reports.

    Intervals whose ends are NaN could not be computed; ``notes`` says why (and
    ``to_dict()["nulls"]`` names each missing value with its reason).
    """

    kind: ClassVar[str] = "random-effects"

    mu: float
    """The pooled estimate (inverse-variance weighted mean with weights 1/(v_i + tau^2))."""
    se: float
    """Its standard error (HKSJ-scaled when ``test == "hksj"``)."""
    ci: ConfidenceInterval
    statistic: float
    """z (or t) for H0: mu = 0."""
    pvalue: float
    df: int | None
    """Degrees of freedom of the t reference (HKSJ: k - 1); None for z."""
    tau2: float
    """Between-report variance (NaN when it cannot be estimated: k = 1, no convergence)."""
    tau2_ci: ConfidenceInterval
    """Q-profile interval for tau^2 (Viechtbauer 2007)."""
    i2: float
    """Share of the total variance due to heterogeneity, in percent."""
    i2_ci: ConfidenceInterval
    h2: float
    h2_ci: ConfidenceInterval
    i2_basis: str
    q: float
    """Cochran's Q (inverse sampling-variance weights)."""
    q_df: int
    q_pvalue: float
    prediction_interval: ConfidenceInterval
    """Where the true score of a new report's setting is expected: mu +/- c sqrt(se^2 + tau^2)."""
    k: int
    method: str
    test: str
    converged: bool
    iterations: int
    hksj_scale: float | None
    """The HKSJ factor s^2 multiplying the variance of mu (None for test "z")."""
    estimates: np.ndarray
    variances: np.ndarray
    weights: np.ndarray
    """Percent weight of each report in mu."""
    labels: tuple[str, ...]
    confidence_level: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def tau(self) -> float:
        """The between-report standard deviation sqrt(tau^2)."""
        return math.sqrt(self.tau2) if self.tau2 >= 0 else math.nan

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """The interval for mu at another level (same test and standard error)."""
        level = check_confidence_level(confidence_level)
        c = critical(level, self.df)
        return interval_of(self.mu - c * self.se, self.mu + c * self.se, level)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: NaN becomes null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        why = self._reasons()

        def num(name: str, value: float | None) -> float | None:
            return json_safe(value, name, nulls, why.get(name.split(".")[0], "undefined"))

        def interval(name: str, ci: ConfidenceInterval) -> dict[str, Any]:
            return {
                "low": num(f"{name}.low", ci.low),
                "high": num(f"{name}.high", ci.high),
                "confidence_level": ci.confidence_level,
            }

        reports = [
            {
                "label": label,
                "estimate": float(y),
                "se": math.sqrt(float(v)),
                "weight": num(f"reports[{i}].weight", float(w)),
            }
            for i, (label, y, v, w) in enumerate(
                zip(self.labels, self.estimates, self.variances, self.weights, strict=True)
            )
        ]
        return {
            "kind": "random-effects",
            "schema_version": SCHEMA_VERSION,
            "method": self.method,
            "test": self.test,
            "k": self.k,
            "mu": num("mu", self.mu),
            "se": num("se", self.se),
            "ci": interval("ci", self.ci),
            "statistic": num("statistic", self.statistic),
            "pvalue": num("pvalue", self.pvalue),
            "df": self.df,
            "tau2": num("tau2", self.tau2),
            "tau": num("tau", self.tau),
            "tau2_ci": interval("tau2_ci", self.tau2_ci),
            "i2": num("i2", self.i2),
            "i2_ci": interval("i2_ci", self.i2_ci),
            "h2": num("h2", self.h2),
            "h2_ci": interval("h2_ci", self.h2_ci),
            "i2_basis": self.i2_basis,
            "q": num("q", self.q),
            "q_df": self.q_df,
            "q_pvalue": num("q_pvalue", self.q_pvalue),
            "prediction_interval": interval("prediction_interval", self.prediction_interval),
            "converged": self.converged,
            "iterations": self.iterations,
            "hksj_scale": num("hksj_scale", self.hksj_scale),
            "confidence_level": self.confidence_level,
            "reports": reports,
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def _reasons(self) -> dict[str, str]:
        """Why each kind of value may be missing, for ``nulls``."""
        if not self.converged:
            stuck = f"the {self.method.upper()} estimator of tau^2 did not converge"
            return dict.fromkeys(_ALL_FIELDS, stuck)
        one = "k = 1: a single report has no between-report variance to estimate"
        reasons = {}
        if self.k == 1:
            reasons = dict.fromkeys(
                ("tau2", "tau", "tau2_ci", "i2", "i2_ci", "h2", "h2_ci", "q_pvalue"), one
            )
            reasons["prediction_interval"] = one
        if self.method == "fe":
            fixed = "fixed-effect model: tau^2 is assumed 0, not estimated"
            reasons.update(dict.fromkeys(("tau2_ci", "i2_ci", "h2_ci"), fixed))
        elif self.i2_basis == "q":
            reasons.update(dict.fromkeys(("i2_ci", "h2_ci"), "only for tau^2-based I^2"))
        if self.test == "hksj" and self.k == 1:
            none = "HKSJ needs k - 1 >= 1 degrees of freedom"
            reasons.update(dict.fromkeys(("se", "ci", "statistic", "pvalue", "hksj_scale"), none))
        return reasons

    def to_frame(self) -> Any:
        """One row per report, in input order: label, estimate, se, weight (percent).

        The pooled summary is not a row (it is no report): it is in ``frame.attrs`` as
        mu, se, ci_low, ci_high, pvalue, tau2, i2, q, q_pvalue, pi_low, pi_high (the
        prediction interval), k, method, test and confidence_level.
        """
        from evalsig._frame import data_frame

        summary = {
            "mu": self.mu, "se": self.se, "ci_low": self.ci.low, "ci_high": self.ci.high,
            "pvalue": self.pvalue, "tau2": self.tau2, "i2": self.i2, "q": self.q,
            "q_pvalue": self.q_pvalue, "pi_low": self.prediction_interval.low,
            "pi_high": self.prediction_interval.high, "k": self.k, "method": self.method,
            "test": self.test, "confidence_level": self.confidence_level,
        }  # fmt: skip
        return data_frame(
            {
                "label": list(self.labels),
                "estimate": self.estimates,
                "se": np.sqrt(self.variances),
                "weight": self.weights,
            },
            attrs=summary,
        )


_ALL_FIELDS = (
    *("mu", "se", "ci", "statistic", "pvalue", "tau2", "tau", "tau2_ci", "i2", "i2_ci"),
    *("h2", "h2_ci", "q", "q_pvalue", "prediction_interval", "hksj_scale", "reports"),
)


def random_effects(
    estimates: Any,
    variances: Any,
    /,
    *,
    method: Method = "reml",
    test: Test = "z",
    confidence_level: float = 0.95,
    i2_basis: I2Basis = "tau2",
    labels: Sequence[str] | None = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> MetaResult:
    r"""Pool reports of one quantity with a random-effects (or fixed-effect) model.

    Parameters
    ----------
    estimates : array_like
        The reported estimates :math:`y_i` (k >= 1).
    variances : array_like
        Their sampling variances :math:`v_i = \mathrm{SE}_i^2 > 0`.
    method : {"reml", "ml", "dl", "pm", "he", "sj", "hs", "eb", "fe"}, default "reml"
        Estimator of tau^2 (see :func:`evalsig.meta.estimate_tau2`); "fe" is the
        fixed-effect (common-effect) model, tau^2 = 0.
    test : {"z", "hksj"}, default "z"
        Wald z inference for mu, or Hartung-Knapp-Sidik-Jonkman: the variance of mu
        scaled by :math:`s^2 = \sum w_i (y_i - \hat\mu)^2 / (k - 1)` with t(k - 1)
        quantiles (metafor's ``test="knha"``).
    confidence_level : float, default 0.95
        Level of the interval for mu, the prediction interval and the tau^2 interval.
    i2_basis : {"tau2", "q"}, default "tau2"
        I^2 and H^2 from tau^2 (metafor) or from Q (Higgins & Thompson 2002).
    labels : sequence of str, optional
        A name for each report (shown in forest plots); "1", "2", ... by default.
    tol, max_iter
        Convergence tolerance (relative to the mean sampling variance) and iteration cap
        of the iterative estimators. On non-convergence the result has
        ``converged=False``, NaN estimates and a note, and a
        :class:`~evalsig.meta.MetaConvergenceWarning` is issued.

    Returns
    -------
    MetaResult

    Raises
    ------
    DataError
        For non-finite estimates, non-positive variances, mismatched lengths, no reports
        or an unknown option.

    Notes
    -----
    With :math:`w_i = 1/(v_i + \hat\tau^2)`: :math:`\hat\mu = \sum w_i y_i / \sum w_i`,
    :math:`\mathrm{SE} = (\sum w_i)^{-1/2}`, CI :math:`\hat\mu \pm c\,\mathrm{SE}` with
    :math:`c = z_{1-\alpha/2}` (or :math:`t_{k-1, 1-\alpha/2}` and the HKSJ-scaled SE).

    Heterogeneity: :math:`Q = \sum (y_i - \hat\mu_{FE})^2 / v_i` against
    :math:`\chi^2_{k-1}`; with the "typical" sampling variance
    :math:`\tilde v = (k-1) / (\sum 1/v_i - \sum v_i^{-2} / \sum 1/v_i)`,
    :math:`I^2 = 100\,\hat\tau^2 / (\tilde v + \hat\tau^2)` and
    :math:`H^2 = \hat\tau^2/\tilde v + 1` (metafor), or on request
    :math:`I^2 = 100 \max(0, (Q - (k-1))/Q)` and :math:`H^2 = Q/(k-1)`. The fixed-effect
    model always uses the Q-based forms. The tau^2 interval inverts the generalized Q
    statistic against :math:`\chi^2_{k-1}` quantiles (Q-profile, Viechtbauer 2007);
    when even tau^2 = 0 gives a Q below the lower quantile the interval is [0, 0] (a
    null set in metafor) and a note says so. I^2 and H^2 intervals map its ends.

    The prediction interval follows metafor's ``predict.rma``:
    :math:`\hat\mu \pm c \sqrt{\mathrm{SE}^2 + \hat\tau^2}` with the same c as the
    confidence interval (z, or t(k - 1) under HKSJ). It covers the true score under a
    new report's setting (its own sampling error excluded). Higgins, Thompson &
    Spiegelhalter (2009) use t(k - 2) instead, which is wider for small k.

    With k = 1 the pooled estimate is the report itself with its own SE (tau^2 taken as
    0, as metafor does); tau^2, I^2, H^2, the Q test and the prediction interval are
    undefined (NaN). With k = 2, tau^2 rests on one degree of freedom and HKSJ uses
    t(1); notes say so.

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials. *Controlled
    Clinical Trials* 7, 177-188.
    Hartung, J. & Knapp, G. (2001). A refined method for the meta-analysis of controlled
    clinical trials with binary outcome. *Stat. Med.* 20, 3875-3889.
    Higgins, J. P. T. & Thompson, S. G. (2002). Quantifying heterogeneity in a
    meta-analysis. *Stat. Med.* 21, 1539-1558.
    Viechtbauer, W. (2007). Confidence intervals for the amount of heterogeneity in
    meta-analysis. *Stat. Med.* 26, 37-52.
    Viechtbauer, W. (2010). Conducting meta-analyses in R with the metafor package.
    *J. Stat. Softw.* 36(3).

    Examples
    --------
    >>> y = [61.00, 61.40, 62.21, 62.30, 62.34, 62.60, 62.70, 62.84, 65.90]
    >>> v = [0.2025, 1.2100, 0.0900, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225]
    >>> res = random_effects(y, v, method="pm")
    >>> round(res.mu, 6), round(res.tau2, 6), round(res.i2, 4)
    (62.40762, 0.705395, 83.7219)
    >>> hk = random_effects(y, v, method="dl", test="hksj")
    >>> [round(x, 6) for x in hk.ci]
    [61.710384, 63.069893]
    """
    spec = check_fit(method, test, confidence_level, i2_basis=i2_basis, tol=tol, max_iter=max_iter)
    y, v = effect_vectors(estimates, variances)
    names = _labels(labels, y.size)
    q, q_p = _cochran_q(y, v)
    tau2, converged, iterations, notes = _estimate_tau2(y, v, spec.method, spec.tol, spec.max_iter)
    if not converged:
        message = unconverged_note(spec.method, spec.max_iter)
        warnings.warn(message, MetaConvergenceWarning, stacklevel=2)
        return _unconverged(y, v, names, spec, q, q_p, iterations, message)
    return _converged(
        y, v, names, spec, q=q, q_p=q_p, tau2=tau2, iterations=iterations, notes=notes
    )


def _cochran_q(y: np.ndarray, v: np.ndarray) -> tuple[float, float]:
    """Cochran's Q about the fixed-effect mean and its chi^2(k - 1) p-value (NaN at k = 1)."""
    k = y.size
    w0 = 1.0 / v
    sw0 = float(w0.sum())
    q = float(w0 @ (y - (w0 @ y) / sw0) ** 2) if k > 1 else 0.0
    q_p = float(special.chdtrc(k - 1, q)) if k > 1 else math.nan
    return q, q_p


def _estimate_tau2(
    y: np.ndarray, v: np.ndarray, method: Method, tol: float, max_iter: int
) -> tuple[float, bool, int, list[str]]:
    """tau^2 (0 for one report or the fixed-effect model), convergence, iterations, notes."""
    k = y.size
    notes: list[str] = []
    tau2, converged, iterations = 0.0, True, 0
    if k == 1:
        notes.append(K1_NOTE)
    elif method != "fe":
        batch = tau2_batch(y[None, :], v, method, tol=tol, max_iter=max_iter)
        tau2, converged = float(batch.tau2[0]), bool(batch.converged[0])
        iterations = int(batch.iterations[0])
        if batch.reset_to_zero[0]:
            notes.append(RESET_NOTE)
        if k == 2:
            notes.append(K2_NOTE)
    return tau2, converged, iterations, notes


@dataclass(frozen=True, slots=True)
class _PooledMean:
    """The pooled mean with its standard error, interval and test."""

    mu: float
    se: float
    ci: ConfidenceInterval
    critical: float
    statistic: float
    pvalue: float
    df: int | None
    hksj_scale: float | None
    weights: np.ndarray
    """Percent weights, ``100 w_i / sum w``."""
    notes: tuple[str, ...]


def _pooled_mean(
    y: np.ndarray, v: np.ndarray, tau2: float, method: Method, test: Test, level: float
) -> _PooledMean:
    """Inverse-variance mean given tau^2, with z or HKSJ inference."""
    k = y.size
    notes: list[str] = []
    w = 1.0 / (v + tau2)
    sw = float(w.sum())
    mu = float(w @ y) / sw
    se = math.sqrt(1.0 / sw)
    df: int | None = None
    scale: float | None = None
    if test == "hksj":
        df = k - 1
        if k == 1:
            se = math.nan
            notes.append(HKSJ_K1_NOTE)
        else:
            rss = float(w @ (y - mu) ** 2)
            scale = 0.0 if rss <= np.finfo(float).eps else rss / (k - 1)
            if scale == 0.0:
                notes.append(HKSJ_EQUAL_NOTE)
            se = math.sqrt(scale / sw)
            if k == 2:
                notes.append(HKSJ_K2_NOTE)
        if method == "fe":
            notes.append(HKSJ_FE_NOTE)
    c = critical(level, df)
    statistic = _statistic(mu, se)
    if df is None:
        pvalue = float(2.0 * special.ndtr(-abs(statistic)))
    else:
        pvalue = float(2.0 * special.stdtr(df, -abs(statistic))) if df >= 1 else math.nan
    return _PooledMean(
        mu=mu,
        se=se,
        ci=interval_of(mu - c * se, mu + c * se, level),
        critical=c,
        statistic=statistic,
        pvalue=pvalue,
        df=df,
        hksj_scale=scale,
        weights=100.0 * w / sw,
        notes=tuple(notes),
    )


def _converged(
    y: np.ndarray,
    v: np.ndarray,
    names: tuple[str, ...],
    spec: FitOptions,
    *,
    q: float,
    q_p: float,
    tau2: float,
    iterations: int,
    notes: list[str],
) -> MetaResult:
    """The result once tau^2 is estimated: pooled mean, prediction and heterogeneity."""
    method, test, level, basis = spec.method, spec.test, spec.level, spec.basis
    k = y.size
    pooled = _pooled_mean(y, v, tau2, method, test, level)
    notes = [*notes, *pooled.notes]
    mu, se, c = pooled.mu, pooled.se, pooled.critical
    tau2_out = math.nan if k == 1 else tau2
    half = c * math.sqrt(se * se + tau2_out)
    prediction = interval_of(mu - half, mu + half, level)
    tau2_ci = interval_of(*_NAN_CI, level)
    if k > 1 and method != "fe":
        tau2_ci, null_set = q_profile(y, v, level, tol=spec.tol)
        if null_set:
            notes.append(NULL_SET_NOTE)
    i2, h2, i2_ci, h2_ci = _heterogeneity(v, k, q, tau2_out, tau2_ci, method, basis, level)
    return MetaResult(
        mu=mu,
        se=se,
        ci=pooled.ci,
        statistic=float(pooled.statistic),
        pvalue=pooled.pvalue,
        df=pooled.df,
        tau2=tau2_out,
        tau2_ci=tau2_ci,
        i2=i2,
        i2_ci=i2_ci,
        h2=h2,
        h2_ci=h2_ci,
        i2_basis=basis,
        q=q,
        q_df=k - 1,
        q_pvalue=q_p,
        prediction_interval=prediction,
        k=k,
        method=method,
        test=test,
        converged=True,
        iterations=iterations,
        hksj_scale=pooled.hksj_scale,
        estimates=read_only(y),
        variances=read_only(v),
        weights=read_only(pooled.weights),
        labels=names,
        confidence_level=level,
        notes=tuple(notes),
    )


def _statistic(estimate: float, se: float) -> float:
    """``estimate / se``; an exact estimate (se 0) gives +/-inf, or NaN at 0."""
    if se > 0:
        return estimate / se
    if se == 0 and estimate != 0:
        return math.copysign(math.inf, estimate)
    return math.nan


def _labels(labels: Sequence[str] | None, k: int) -> tuple[str, ...]:
    if labels is None:
        return tuple(str(i + 1) for i in range(k))
    names = tuple(str(x) for x in labels)
    if len(names) != k:
        raise DataError(f"`labels` has {len(names)} names for {k} reports; give one per report.")
    return names


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only float64 copy (results do not share or expose mutable arrays)."""
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


def _heterogeneity(
    v: np.ndarray,
    k: int,
    q: float,
    tau2: float,
    tau2_ci: ConfidenceInterval,
    method: str,
    basis: str,
    level: float,
) -> tuple[float, float, ConfidenceInterval, ConfidenceInterval]:
    """I^2 (percent), H^2 and their intervals (mapped from the tau^2 interval)."""
    nan_ci = interval_of(*_NAN_CI, level)
    if k == 1:
        return math.nan, math.nan, nan_ci, nan_ci
    if method == "fe" or basis == "q":
        i2 = max(0.0, 100.0 * (q - (k - 1)) / q) if q > 0 else 0.0
        return i2, q / (k - 1), nan_ci, nan_ci
    w0 = 1.0 / v
    typical = (k - 1) / float(w0.sum() - (w0 * w0).sum() / w0.sum())

    def i2_of(t: float) -> float:
        return 100.0 * t / (typical + t)

    def h2_of(t: float) -> float:
        return t / typical + 1.0

    i2_ci = interval_of(i2_of(tau2_ci.low), i2_of(tau2_ci.high), level)
    h2_ci = interval_of(h2_of(tau2_ci.low), h2_of(tau2_ci.high), level)
    return i2_of(tau2), h2_of(tau2), i2_ci, h2_ci


def q_profile(
    y: np.ndarray, v: np.ndarray, confidence_level: float, *, tol: float = 1e-10
) -> tuple[ConfidenceInterval, bool]:
    """Q-profile interval for tau^2 (intercept-only) and whether it is metafor's null set.

    The bounds solve ``Q(tau2) = chi2_{k-1}`` quantiles; ``Q`` decreases in tau^2 and is
    below ``RSS / tau2`` (RSS: unweighted sum of squares), which brackets every root.
    """
    k = y.size
    alpha = 1.0 - confidence_level
    upper_q = float(special.chdtri(k - 1, alpha / 2.0))
    lower_q = float(special.chdtri(k - 1, 1.0 - alpha / 2.0))
    q0 = generalized_q(y, v, 0.0)
    rss = float(((y - y.mean()) ** 2).sum())
    xtol = max(tol * float(v.mean()), 1e-300)

    def root(target: float) -> float:
        return float(
            optimize.brentq(
                lambda t: generalized_q(y, v, t) - target,
                0.0,
                rss / target * (1 + 1e-9),
                xtol=xtol,
                maxiter=500,
            )
        )

    low = 0.0 if q0 < upper_q else root(upper_q)
    null_set = q0 < lower_q
    high = 0.0 if null_set else root(lower_q)
    return interval_of(low, high, confidence_level), null_set


def _unconverged(
    y: np.ndarray,
    v: np.ndarray,
    names: tuple[str, ...],
    spec: FitOptions,
    q: float,
    q_p: float,
    iterations: int,
    message: str,
) -> MetaResult:
    method, test, level, basis = spec.method, spec.test, spec.level, spec.basis
    nan_ci = interval_of(*_NAN_CI, level)
    k = y.size
    return MetaResult(
        mu=math.nan,
        se=math.nan,
        ci=nan_ci,
        statistic=math.nan,
        pvalue=math.nan,
        df=k - 1 if test == "hksj" else None,
        tau2=math.nan,
        tau2_ci=nan_ci,
        i2=math.nan,
        i2_ci=nan_ci,
        h2=math.nan,
        h2_ci=nan_ci,
        i2_basis=basis,
        q=q,
        q_df=k - 1,
        q_pvalue=q_p,
        prediction_interval=nan_ci,
        k=k,
        method=method,
        test=test,
        converged=False,
        iterations=iterations,
        hksj_scale=math.nan if test == "hksj" else None,
        estimates=read_only(y),
        variances=read_only(v),
        weights=read_only(np.full(k, math.nan)),
        labels=names,
        confidence_level=level,
        notes=(message,),
    )
