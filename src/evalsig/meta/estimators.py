"""Estimators of the between-report variance tau^2 of a random-effects meta-analysis.

Two engines compute the same estimators with metafor's definitions (Viechtbauer 2005, 2010):

* an intercept-only engine, vectorised over many rows of estimates, which share one vector
  of sampling variances (a cell's bootstrap replicates, or one cell) or each have their
  own (many cells with the same number of reports), using the closed forms of the
  projection matrix ``P = W - w w' / sum(w)``;
* a design-matrix engine for meta-regression (``y = X beta + u + e``), with
  ``P = W - W X (X' W X)^-1 X' W`` written out as in metafor's ``rma.uni``.

Every estimate is truncated at 0 (metafor's ``tau2.min = 0``). The iterative estimators
(REML, ML, EB by Fisher scoring; PM by a safeguarded Newton search for the root of the
generalized Q statistic) stop when the change in tau^2 falls below ``tol`` times the mean
sampling variance (scale-free; metafor uses an absolute 1e-5), and report non-convergence.
Fisher scoring carries safeguards metafor does not have (a bracket of the score's root,
Aitken extrapolation of linearly converging runs, Brent's root finder when it
oscillates; see :func:`_fisher_scoring`): they change the path, not the estimate. The
vectorised iterations take, row for row, the steps of the one-row iteration
(:func:`scalar_scoring`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize

from evalsig.errors import DataError
from evalsig.inference._roots import brentq_rows
from evalsig.meta._validate import Method, check_iteration, check_method, effect_vectors

__all__ = [
    "Batch",
    "Tau2Estimate",
    "design_matrix",
    "estimate_tau2",
    "generalized_q",
    "generalized_q_rows",
    "tau2_batch",
    "tau2_design",
]

_LL_TOL = 1e-8
"""Log-likelihood margin by which tau^2 = 0 must beat the Fisher-scoring optimum (ll0check)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Tau2Estimate:
    """An estimate of the between-report variance tau^2."""

    tau2: float
    """The estimate (NaN when an iterative estimator did not converge)."""
    method: str
    converged: bool
    iterations: int
    """Iterations used (0 for the closed-form estimators)."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Batch:
    """Estimates for many rows: tau^2, convergence flags, iterations and ll0check resets."""

    tau2: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    reset_to_zero: np.ndarray


# --- intercept-only engine ---------------------------------------------------------------
# ``y`` is (B, k); ``v`` is (1, k) when the rows share their variances, else (B, k); per-row
# quantities (``atol``) likewise have 1 or B entries.


def _rows(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The rows ``idx`` of a per-row array, or the array itself when every row shares it."""
    return a if a.shape[0] == 1 else a[idx]


def _q_stats(
    y: np.ndarray, v: np.ndarray, tau2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weights, their row sums, residuals from the weighted mean, and generalized Q."""
    w = 1.0 / (v + tau2[:, None])
    sw = w.sum(axis=1)
    mu = (w * y).sum(axis=1) / sw
    r = y - mu[:, None]
    return w, sw, r, (w * r * r).sum(axis=1)


def generalized_q(y: np.ndarray, v: np.ndarray, tau2: float) -> float:
    """``Q(tau2) = sum w_i (y_i - mu_w)^2`` with ``w_i = 1 / (v_i + tau2)``; decreasing."""
    w = 1.0 / (v + tau2)
    r = y - float(w @ y) / float(w.sum())
    return float(w @ (r * r))


def generalized_q_rows(y: np.ndarray, v: np.ndarray, tau2: np.ndarray) -> np.ndarray:
    """:func:`generalized_q` of each row of ``y`` (``(B, k)``) at its own ``tau2`` (``(B,)``);
    ``v`` is ``(k,)`` or ``(B, k)``."""
    return _q_stats(y, np.atleast_2d(v), tau2)[3]


def _step_into_range(tau2: np.ndarray, adj: np.ndarray) -> np.ndarray:
    """metafor's step halving: halve the step until ``tau2 + adj >= 0``."""
    adj = adj.copy()
    adj[(tau2 <= 0) & (adj < 0)] = 0.0
    for _ in range(64):
        low = tau2 + adj < 0
        if not low.any():
            break
        adj[low] /= 2.0
    low = tau2 + adj < 0
    adj[low] = -tau2[low]
    return adj


def _closed_form(y: np.ndarray, v: np.ndarray, method: str) -> np.ndarray:
    b, k = y.shape
    if method == "fe":
        return np.zeros(b)
    if method == "he":
        rss = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        return (rss - v.sum(axis=1) * (k - 1) / k) / (k - 1)  # type: ignore[no-any-return]
    w0 = 1.0 / v
    _, sw, _, q0 = _q_stats(y, v, np.zeros(b))
    if method == "dl":
        return (q0 - (k - 1)) / (sw - (w0 * w0).sum(axis=1) / sw)  # type: ignore[no-any-return]
    if method == "hs":
        return (q0 - k) / w0.sum(axis=1)  # type: ignore[no-any-return]
    if method == "sj":
        start = y.var(axis=1)
        return start * _q_stats(y, v, start)[3] / (k - 1)  # type: ignore[no-any-return]
    raise AssertionError(method)  # pragma: no cover


def _paule_mandel(
    y: np.ndarray, v: np.ndarray, atol: np.ndarray, max_iter: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Root of ``Q(tau2) = k - 1`` by Newton steps kept inside a shrinking bracket."""
    b, k = y.shape
    tau2, iters = np.zeros(b), np.zeros(b, dtype=np.int64)
    q0 = _q_stats(y, v, tau2)[3]
    converged = q0 <= k - 1  # Q(0) <= k - 1: the estimate is 0
    lo, hi = np.zeros(b), y.var(axis=1, ddof=1)  # Q(var(y)) < k - 1 (w_i < 1 / tau2)
    for it in range(1, max_iter + 1):
        idx = np.flatnonzero(~converged)
        if idx.size == 0:
            break
        t = tau2[idx]
        w, _, r, q = _q_stats(y[idx], _rows(v, idx), t)
        f = q - (k - 1)
        lo[idx] = np.where(f > 0, t, lo[idx])
        hi[idx] = np.where(f <= 0, t, hi[idx])
        slope = (w * w * r * r).sum(axis=1)  # -dQ/dtau2
        with np.errstate(divide="ignore", invalid="ignore"):
            new = t + f / slope
        outside = ~((new > lo[idx]) & (new < hi[idx]))
        new[outside] = ((lo[idx] + hi[idx]) / 2.0)[outside]
        done = (np.abs(new - t) <= _rows(atol, idx)) | (f == 0)
        tau2[idx] = np.where(f == 0, t, new)
        iters[idx] = it
        converged[idx[done]] = True
    return tau2, converged, iters


def _fisher_scoring(
    y: np.ndarray, v: np.ndarray, method: str, atol: np.ndarray, max_iter: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """REML, ML or EB by metafor's Fisher scoring, started at max(0, Hedges).

    Safeguards are added to metafor's iteration. Each step's sign shows on which side of
    the current value the root of the score lies, so the iterates keep a bracket
    ``[lo, hi]``; a step that would leave it is replaced by its midpoint, and once the
    steps have changed direction three times without halving in size (Fisher scoring
    oscillating, as it does when the expected information understates the curvature) the
    root is finished by Brent's method inside the bracket. From the fourth iteration on, a
    run converging linearly (successive steps in a ratio r with 0.1 < |r| < 1) is
    extrapolated geometrically (Aitken): the step becomes step / (1 - r). Where metafor
    converges within 3 iterations (as on the BCG data at its 1e-5 threshold), the
    iterates are metafor's; otherwise the limit is the same root, reached sooner. Every
    row takes the steps :func:`scalar_scoring` takes on that row alone.
    """
    b, _ = y.shape
    tau2 = np.maximum(_closed_form(y, v, "he"), 0.0)
    lo, hi = np.zeros(b), np.full(b, np.inf)
    flips, last = np.zeros(b, dtype=np.int64), np.zeros(b)
    converged, iters = np.zeros(b, dtype=bool), np.zeros(b, dtype=np.int64)
    oscillating = np.zeros(b, dtype=bool)
    for it in range(1, max_iter + 1):
        idx = np.flatnonzero(~converged & ~oscillating)
        if idx.size == 0:
            break
        t, vi = tau2[idx], _rows(v, idx)
        raw = _scoring_step(y[idx], vi, t, method)
        flips[idx] += (raw * last[idx] < 0) & (np.abs(raw) > 0.5 * np.abs(last[idx]))
        ratio = np.divide(raw, last[idx], out=np.zeros_like(raw), where=last[idx] != 0)
        linear = (it > 3) & (np.abs(ratio) > 0.1) & (np.abs(ratio) < 1.0)
        step = np.where(linear, raw / (1.0 - ratio), raw)
        last[idx] = raw
        lo[idx] = np.where(raw > 0, np.maximum(lo[idx], t), lo[idx])
        hi[idx] = np.where(raw < 0, np.minimum(hi[idx], t), hi[idx])
        iters[idx] = it
        oscillating[idx] = flips[idx] >= 3  # finished below by Brent's method
        keep = ~oscillating[idx]
        idx, t, step = idx[keep], t[keep], step[keep]
        new = _next_iterate(y[idx], _rows(vi, keep), t, step, lo[idx], hi[idx], method)
        tau2[idx] = new
        converged[idx[np.abs(new - t) <= _rows(atol, idx)]] = True
    stepped = converged.copy()
    rescue = np.flatnonzero(oscillating)  # both ends of the bracket are known
    if rescue.size:
        roots = brentq_rows(
            lambda rows, x: _scoring_step(y[rescue[rows]], _rows(v, rescue[rows]), x, method),
            lo[rescue],
            hi[rescue],
            xtol=np.broadcast_to(_rows(atol, rescue), rescue.shape),
            maxiter=max_iter,
        )
        tau2[rescue], converged[rescue] = roots.x, roots.converged
        iters[rescue] += roots.iterations
    # Steps halved toward the boundary approach 0 geometrically; where the iteration ends
    # within a few tolerances of 0 and the step at 0 points below it, the optimum is 0.
    near = np.flatnonzero(stepped & (tau2 > 0) & (tau2 <= 10.0 * atol))
    if near.size:
        at_zero = _scoring_step(y[near], _rows(v, near), np.zeros(near.size), method)
        tau2[near[at_zero <= 0]] = 0.0
    return tau2, converged, iters


def _next_iterate(
    y: np.ndarray,
    v: np.ndarray,
    t: np.ndarray,
    step: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    method: str,
) -> np.ndarray:
    """``t + step`` halved into ``[0, inf)`` (metafor), or the bracket's midpoint if outside.

    A step overshooting 0 is halved, approaching 0 geometrically; when the step at 0
    points below 0 as well, 0 is that sequence's limit: go there directly.
    """
    new: np.ndarray = t + _step_into_range(t, step)
    outside = (new >= hi) | ((new <= lo) & (lo > 0))
    new[outside] = ((lo + hi) / 2.0)[outside]
    clipped = np.flatnonzero((t + step < 0) & (t > 0) & (lo == 0))
    if clipped.size:
        at_zero = _scoring_step(y[clipped], _rows(v, clipped), np.zeros(clipped.size), method)
        new[clipped[at_zero <= 0]] = 0.0
    return new


def _scoring_step(y: np.ndarray, v: np.ndarray, tau2: np.ndarray, method: str) -> np.ndarray:
    """metafor's Fisher-scoring step for REML, ML or EB at ``tau2``."""
    k = y.shape[1]
    w, sw, r, q = _q_stats(y, v, tau2)
    w2 = w * w
    s2 = w2.sum(axis=1)
    if method == "reml":
        tr_p = sw - s2 / sw
        tr_pp = s2 - 2.0 * (w2 * w).sum(axis=1) / sw + (s2 / sw) ** 2
        return ((w2 * r * r).sum(axis=1) - tr_p) / tr_pp  # type: ignore[no-any-return]
    if method == "ml":
        return ((w2 * r * r).sum(axis=1) - sw) / s2  # type: ignore[no-any-return]
    return (q * k / (k - 1) - k) / sw  # type: ignore[no-any-return]  # empirical Bayes


def _loglik(y: np.ndarray, v: np.ndarray, tau2: np.ndarray, reml: bool) -> np.ndarray:
    """(Restricted) log-likelihood up to a constant that does not depend on tau^2."""
    _, sw, _, q = _q_stats(y, v, tau2)
    ll = -0.5 * (np.log(v + tau2[:, None]).sum(axis=1) + q)
    return ll - 0.5 * np.log(sw) if reml else ll  # type: ignore[no-any-return]


def tau2_batch(
    estimates: np.ndarray, variances: np.ndarray, method: Method, *, tol: float, max_iter: int
) -> Batch:
    """tau^2 for each row of ``estimates`` (shape ``(B, k)``, k >= 2).

    ``variances`` is ``(k,)`` (shared by the rows) or ``(B, k)`` (one row per row of
    estimates). Each row's estimate is the one the row alone would get: the tolerance
    is relative to the row's mean variance and the iterations are those of one row.
    Inputs are trusted (validated by the caller). Non-converged rows have tau^2 NaN.
    """
    y = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    v = np.atleast_2d(np.asarray(variances, dtype=np.float64))
    b = y.shape[0]
    atol = tol * v.mean(axis=1)
    converged = np.ones(b, dtype=bool)
    iters = np.zeros(b, dtype=np.int64)
    reset = np.zeros(b, dtype=bool)
    if method in ("fe", "dl", "he", "hs", "sj"):
        tau2 = _closed_form(y, v, method)
    elif method == "pm":
        tau2, converged, iters = _paule_mandel(y, v, atol, max_iter)
    elif b == 1:  # one row: scalar iterations are much cheaper than masked array updates
        start = max(float(_closed_form(y, v, "he")[0]), 0.0)
        step = _intercept_step(y[0], v[0], method)
        est, ok, n = scalar_scoring(step, start, float(atol[0]), max_iter)
        tau2, converged, iters = np.array([est]), np.array([ok]), np.array([n])
    else:
        tau2, converged, iters = _fisher_scoring(y, v, method, atol, max_iter)
    if method in ("reml", "ml"):  # metafor's ll0check: is tau^2 = 0 better?
        check = converged & (tau2 > 0)
        rows = np.flatnonzero(check)
        if rows.size:
            ll = _loglik(y[rows], _rows(v, rows), tau2[rows], method == "reml")
            ll0 = _loglik(y[rows], _rows(v, rows), np.zeros(rows.size), method == "reml")
            worse = rows[ll0 - ll > _LL_TOL]
            tau2[worse], reset[worse] = 0.0, True
    tau2 = np.maximum(tau2, 0.0)
    tau2[~converged] = np.nan
    return Batch(tau2=tau2, converged=converged, iterations=iters, reset_to_zero=reset)


# --- design-matrix engine (meta-regression) ----------------------------------------------


def _projection(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P = W - W X (X' W X)^-1 X' W``."""
    wx = x * w[:, None]
    return np.diag(w) - wx @ np.linalg.solve(x.T @ wx, wx.T)  # type: ignore[no-any-return]


def tau2_design(
    y: np.ndarray, v: np.ndarray, x: np.ndarray, method: Method, *, tol: float, max_iter: int
) -> Tau2Estimate:
    """tau^2 of the mixed-effects model ``y = X beta + u + e`` (inputs trusted, k > p)."""
    k, p = x.shape
    yc = y - y.mean()  # P annihilates constants when X spans the intercept (metafor: Ymc)
    atol = tol * float(v.mean())
    notes: list[str] = []

    def quad(t: float) -> tuple[np.ndarray, float]:
        pm = _projection(1.0 / (v + t), x)
        return pm, float(yc @ pm @ yc)

    iterations, converged = 0, True
    if method == "fe":
        tau2 = 0.0
    elif method in ("dl", "hs"):
        pm, rss = quad(0.0)
        tau2 = (rss - (k - p)) / np.trace(pm) if method == "dl" else (rss - k) / (1.0 / v).sum()
    elif method in ("he", "reml", "ml", "eb"):
        pm = _projection(np.ones(k), x)
        tau2 = (float(yc @ pm @ yc) - float(np.diag(pm) @ v)) / (k - p)
        if method != "he":
            tau2, converged, iterations = _scoring_design(
                yc, v, x, method, max(tau2, 0.0), atol, max_iter
            )
    elif method == "sj":
        start = float(y.var())
        tau2 = start * quad(start)[1] / (k - p)
    else:  # pm
        target = k - p
        if quad(0.0)[1] <= target:
            tau2 = 0.0
        else:
            pm = _projection(np.ones(k), x)
            hi = float(yc @ pm @ yc) / target
            try:
                tau2, info = optimize.brentq(
                    lambda t: quad(t)[1] - target,
                    0.0,
                    hi,
                    xtol=atol,
                    maxiter=max_iter,
                    full_output=True,
                    disp=False,
                )
                iterations, converged = info.iterations, bool(info.converged)
            except ValueError:  # pragma: no cover - the bracket is proven valid
                converged = False
    if (
        converged
        and method in ("reml", "ml")
        and tau2 > 0
        and _loglik_design(yc, v, x, 0.0, method) - _loglik_design(yc, v, x, tau2, method) > _LL_TOL
    ):
        tau2 = 0.0
        notes.append(_RESET_NOTE)
    tau2 = max(float(tau2), 0.0) if converged else float("nan")
    return Tau2Estimate(
        tau2=tau2, method=method, converged=converged, iterations=iterations, notes=tuple(notes)
    )


def _scoring_design(
    y: np.ndarray,
    v: np.ndarray,
    x: np.ndarray,
    method: str,
    tau2: float,
    atol: float,
    max_iter: int,
) -> tuple[float, bool, int]:
    return scalar_scoring(lambda t: _design_step(y, v, x, t, method), tau2, atol, max_iter)


def scalar_scoring(
    step: Callable[[float], float], start: float, atol: float, max_iter: int
) -> tuple[float, bool, int]:
    """Fisher scoring for one tau^2 with the safeguards of :func:`_fisher_scoring`.

    ``step(t)`` is the scoring step at ``t`` (its sign is the sign of the score). Returns
    the estimate, whether it converged and the iterations used.
    """
    tau2, lo, hi = start, 0.0, math.inf
    flips, last = 0, 0.0
    for it in range(1, max_iter + 1):
        raw = step(tau2)
        flips += raw * last < 0 and abs(raw) > 0.5 * abs(last)
        ratio = raw / last if last != 0 else 0.0
        step_ = raw / (1.0 - ratio) if it > 3 and 0.1 < abs(ratio) < 1.0 else raw
        last = raw
        if raw > 0:
            lo = max(lo, tau2)
        elif raw < 0:
            hi = min(hi, tau2)
        if flips >= 3:
            root, info = optimize.brentq(
                step, lo, hi, xtol=atol, maxiter=max_iter, full_output=True, disp=False
            )
            return float(root), bool(info.converged), it + info.iterations
        if tau2 + step_ >= 0:
            new = tau2 + step_
        elif tau2 > 0 and lo == 0 and step(0.0) <= 0:
            new = 0.0  # the limit of metafor's halved steps
        else:
            new = tau2 + float(_step_into_range(np.array([tau2]), np.array([step_]))[0])
        if new >= hi or (new <= lo and lo > 0):
            new = (lo + hi) / 2.0
        adj, tau2 = new - tau2, new
        if abs(adj) <= atol:
            if 0 < tau2 <= 10.0 * atol and step(0.0) <= 0:
                tau2 = 0.0  # the boundary optimum, approached by halved steps
            return tau2, True, it
    return tau2, False, max_iter


def _intercept_step(y: np.ndarray, v: np.ndarray, method: str) -> Callable[[float], float]:
    """The scoring step of the intercept-only model for one row, on 1-D arrays."""
    k = y.size

    def step(t: float) -> float:
        w = 1.0 / (v + t)
        sw = float(w.sum())
        r = y - float(w @ y) / sw
        if method == "eb":
            return (float(w @ (r * r)) * k / (k - 1) - k) / sw
        w2 = w * w
        s2 = float(w2.sum())
        num = float(w2 @ (r * r))
        if method == "ml":
            return (num - sw) / s2
        tr_pp = s2 - 2.0 * float(w2 @ w) / sw + (s2 / sw) ** 2
        return (num - (sw - s2 / sw)) / tr_pp

    return step


def _design_step(y: np.ndarray, v: np.ndarray, x: np.ndarray, tau2: float, method: str) -> float:
    k, p = (int(n) for n in x.shape)
    w = 1.0 / (v + tau2)
    pm = _projection(w, x)
    py = pm @ y
    if method == "reml":
        return (float(py @ py) - float(np.trace(pm))) / float(np.sum(pm * pm))
    if method == "ml":
        return (float(py @ py) - float(w.sum())) / float((w * w).sum())
    return (float(y @ py) * k / (k - p) - k) / float(w.sum())


def _loglik_design(y: np.ndarray, v: np.ndarray, x: np.ndarray, tau2: float, method: str) -> float:
    w = 1.0 / (v + tau2)
    wx = x * w[:, None]
    xtwx = x.T @ wx
    beta = np.linalg.solve(xtwx, wx.T @ y)
    rss = float(w @ (y - x @ beta) ** 2)
    ll = -0.5 * (float(np.log(v + tau2).sum()) + rss)
    return ll - 0.5 * float(np.linalg.slogdet(xtwx)[1]) if method == "reml" else ll


_RESET_NOTE = (
    "Fisher scoring stopped at a local maximum of the likelihood; tau^2 = 0 has a higher "
    "likelihood and is used instead (metafor's ll0check)."
)


# --- public ------------------------------------------------------------------------------


def estimate_tau2(
    estimates: Any,
    variances: Any,
    /,
    *,
    method: Method = "reml",
    moderators: Any = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> Tau2Estimate:
    r"""Estimate the between-report variance tau^2 of a random-effects model.

    Parameters
    ----------
    estimates, variances : array_like
        The reports' estimates :math:`y_i` and sampling variances :math:`v_i > 0`.
    method : {"reml", "ml", "dl", "pm", "he", "sj", "hs", "eb", "fe"}
        The estimator (see Notes); "fe" returns 0.
    moderators : array_like, optional
        A ``(k,)`` or ``(k, m)`` array of moderators; the model is then the mixed-effects
        meta-regression ``y = X beta + u + e`` with ``X = [1, moderators]`` and tau^2 is
        the residual heterogeneity.
    tol : float, default 1e-10
        Convergence tolerance of the iterative estimators, relative to the mean sampling
        variance: iteration stops when tau^2 changes by less than ``tol * mean(v)``.
    max_iter : int, default 1000
        Iteration cap; an estimator that reaches it is reported as not converged (tau^2
        NaN) rather than returning its last iterate.

    Returns
    -------
    Tau2Estimate
        ``tau2``, ``method``, ``converged``, ``iterations`` and ``notes``.

    Raises
    ------
    DataError
        For non-finite estimates, non-positive variances, fewer than ``p + 1`` reports
        (``p`` coefficients), a rank-deficient design, or an unknown option.

    Notes
    -----
    With :math:`w_i = 1/v_i`, :math:`P = W - WX(X'WX)^{-1}X'W`, Cochran's
    :math:`Q = y'Py` and :math:`P(\tau^2)` the same with :math:`w_i = 1/(v_i + \tau^2)`
    (metafor's definitions; every estimate is truncated at 0):

    * DL: :math:`(Q - (k - p)) / \mathrm{tr}(P)` (DerSimonian & Laird 1986);
    * HE: :math:`(y'P_0 y - \mathrm{tr}(P_0 V)) / (k - p)` with the OLS projection
      :math:`P_0 = I - X(X'X)^{-1}X'` (Hedges 1983);
    * HS: :math:`(Q - k) / \sum w_i` (Hunter & Schmidt 2004);
    * SJ: :math:`\tau_0^2\, y'P(\tau_0^2)y / (k - p)` with :math:`\tau_0^2` the variance of
      :math:`y` with divisor k (Sidik & Jonkman 2005);
    * PM: the root of :math:`y'P(\tau^2)y = k - p`, 0 if :math:`Q < k - p`
      (Paule & Mandel 1982);
    * EB: Fisher-scoring steps :math:`(y'P(\tau^2)y \cdot k/(k-p) - k) / \sum w_i`
      (Morris 1983). Its fixed point solves the PM equation, so EB equals PM (here and in
      metafor) up to the convergence tolerance;
    * ML: steps :math:`(y'P^2y - \sum w_i) / \sum w_i^2`; REML: steps
      :math:`(y'P^2y - \mathrm{tr}\,P) / \mathrm{tr}(P^2)` (Viechtbauer 2005), both from
      max(0, HE), halving a step that would go below 0, and replaced by 0 when the
      (restricted) likelihood at 0 is higher (metafor's ``ll0check``). ML is REML
      without the :math:`-\tfrac12 \log|X'WX|` term and is smaller on average.
      Safeguards keep the iteration from oscillating or crawling (a bracket of the root
      of the score, Aitken extrapolation, a bracketed root finder); they change the path
      to the root of the same score equation, not the estimate.

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials. *Controlled
    Clinical Trials* 7, 177-188.
    Viechtbauer, W. (2005). Bias and efficiency of meta-analytic variance estimators in the
    random-effects model. *J. Educ. Behav. Stat.* 30, 261-293.
    Veroniki, A. A. et al. (2016). Methods to estimate the between-study variance and its
    uncertainty in meta-analysis. *Res. Synth. Methods* 7, 55-79.

    Examples
    --------
    >>> y = [61.00, 61.40, 62.21, 62.30, 62.34, 62.60, 62.70, 62.84, 65.90]
    >>> v = [0.2025, 1.2100, 0.0900, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225]
    >>> round(estimate_tau2(y, v, method="dl").tau2, 6)
    0.288049
    >>> round(estimate_tau2(y, v, method="pm").tau2, 6)
    0.705395
    """
    method = check_method(method)
    tol, max_iter = check_iteration(tol, max_iter)
    y, v = effect_vectors(estimates, variances, minimum=1)
    if moderators is None:
        if y.size < 2:
            raise DataError(f"`estimates` has {y.size} value; tau^2 needs at least 2 reports.")
        batch = tau2_batch(y[None, :], v, method, tol=tol, max_iter=max_iter)
        notes = (_RESET_NOTE,) if batch.reset_to_zero[0] else ()
        return Tau2Estimate(
            tau2=float(batch.tau2[0]),
            method=method,
            converged=bool(batch.converged[0]),
            iterations=int(batch.iterations[0]),
            notes=notes,
        )
    x = design_matrix(moderators, y.size)
    return tau2_design(y, v, x, method, tol=tol, max_iter=max_iter)


def design_matrix(moderators: Any, k: int) -> np.ndarray:
    """``[1, moderators]`` checked: finite, one row per report, full column rank, k > p."""
    try:
        m = np.asarray(moderators, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("`moderators` must be numeric (0/1 for a flag).") from None
    m = m.reshape(-1, 1) if m.ndim == 1 else m
    if m.ndim != 2 or m.shape[0] != k:
        raise DataError(f"`moderators` has shape {m.shape}; give one row per report ({k} rows).")
    if not np.isfinite(m).all():
        raise DataError("`moderators` has non-finite values; fix or drop those reports.")
    x = np.column_stack([np.ones(k), m])
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise DataError(
            "`moderators` is constant or collinear with the intercept (e.g. every report has "
            "the same flag); the coefficient cannot be estimated from these reports."
        )
    if k <= x.shape[1]:
        raise DataError(
            f"{k} reports for {x.shape[1]} coefficients; a meta-regression needs more reports "
            "than coefficients to estimate tau^2."
        )
    return x
