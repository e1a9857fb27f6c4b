r"""Bias-reduced cluster-robust covariance (CR2) of the logistic Bradley-Terry fit, with
Bell-McCaffrey (Satterthwaite) degrees of freedom, on compressed rows.

The fit is the weighted least squares of its last IRLS step: with ``W_i = w_i p_i (1 - p_i)``
and working residuals, the standardised design ``Z = W^{1/2} X`` and residuals
``e_i = sqrt(w_i) (y_i - p_i) / sqrt(p_i (1 - p_i))`` give the score ``Z' e`` and the
information ``Z' Z``. With ``B = (Z' Z)^{-1}``, ``H = Z B Z'`` the hat matrix and
``A_g = (I - H_gg)^{-1/2}`` (symmetric; a pseudo-inverse square root where a cluster alone
determines a parameter), CR2 is

``V = B [sum_g Z_g' A_g e_g e_g' A_g Z_g] B``

(unbiased when the working model is right, where CR1 ``G / (G - 1) B [sum_g Z_g' e_g e_g'
Z_g] B`` is biased down when clusters are few). For a contrast ``c``, with
``u_g = A_g Z_g B c`` and ``v_g = Z_g' u_g``, the Bell-McCaffrey degrees of freedom are

``nu = (tr Omega)^2 / ||Omega||_F^2``,  ``Omega_gh = [g = h] u_g' u_g - v_g' B v_h``.

Compression is exact: ``n`` identical battles of a row are one row scaled by ``sqrt(n)``
(the hat matrix of the copies acts on their common value only).

References
----------
Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
regression with multi-stage samples. Survey Methodology 28, 169-181.
Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance
estimation and hypothesis testing in fixed effects models. JBES 36, 672-683 (R package
clubSandwich, ``vcovCR(glm, type = "CR2")``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalsig.arena.battles import Compressed
from evalsig.arena.fit import Design

__all__ = ["CR2", "CR2_BUDGET", "cr2", "cr2_cost", "studentized_maxima"]

CR2_BUDGET = 3e9
"""Floating-point operations (estimated) above which the exact CR2 is not attempted."""


@dataclass(frozen=True, slots=True)
class CR2:
    meat: np.ndarray
    """``sum_g Z_g' A_g e_g e_g' A_g Z_g`` (free parameters)."""
    df: np.ndarray
    """Bell-McCaffrey degrees of freedom of each contrast (inf where its variance is 0)."""
    n_singular: int
    """Clusters with a direction of leverage 1 (left out of their ``A_g``)."""
    z: Any = field(repr=False)
    """The standardised design, rows sorted by cluster (scipy sparse)."""
    bounds: tuple[tuple[int, int], ...] = field(repr=False)
    """Each cluster's first and past-the-last row in ``z``."""
    adjust: tuple[Adjust, ...] = field(repr=False)
    """Each cluster's ``A_g``."""
    bread: np.ndarray = field(repr=False)


@dataclass(frozen=True, slots=True)
class Adjust:
    """``A_g = (I - H_gg)^{-1/2}``: dense (``r_g^3`` to build), or for a cluster with more
    rows than parameters ``I + Y W diag((f(l) - 1) / l) W' Y'`` from the eigenpairs
    ``(l, W)`` of ``Y' Y`` (``Y = Z_g L``, ``B = L L'``; ``f(l) = (1 - l)^{-1/2}``), since
    ``H_gg = Y Y'`` has rank at most ``k`` (``r_g k^2 + k^3`` to build)."""

    dense: np.ndarray | None
    basis: np.ndarray | None = None
    coef: np.ndarray | None = None

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        if self.dense is not None:
            return np.asarray(self.dense @ x, dtype=np.float64)
        if self.basis is None or self.coef is None:
            raise ValueError("an Adjust needs a dense matrix or a basis and coefficients")
        inner = self.basis.T @ x
        inner = inner * (self.coef if x.ndim == 1 else self.coef[:, None])
        return np.asarray(x + self.basis @ inner, dtype=np.float64)


def _low_rank(rows: int, k: int) -> bool:
    return rows > k


def cr2_cost(rows: Compressed, k: int, n_contrasts: int) -> float:
    """Estimated operations of :func:`cr2`: the ``A_g`` (``min(r_g^3, r_g k^2 + k^3)``)
    plus the degrees of freedom ``J G k (k + G)``, and the ``J k G`` floats they keep."""
    if rows.cluster is None:
        raise ValueError("cr2_cost needs clustered rows")
    sizes = np.unique(rows.cluster, return_counts=True)[1].astype(np.float64)
    g = float(len(sizes))
    build = np.minimum(sizes**3, sizes * k * k + k**3)
    return float(np.sum(build) + n_contrasts * g * k * (k + g) + 50 * n_contrasts * k * g)


def cr2(
    design: Design, rows: Compressed, params: np.ndarray, bread: np.ndarray, contrasts: np.ndarray
) -> CR2:
    """The CR2 meat and the degrees of freedom of ``contrasts`` (``k x J``, free
    parameters) at the fitted ``params`` of ``ties="half"`` (``bread`` the inverse
    information)."""
    if rows.cluster is None:
        raise ValueError("cr2 needs clustered rows")
    p = 1.0 / (1.0 + np.exp(-design.times(params)))
    var = p * (1.0 - p)
    scale = np.sqrt(rows.count * rows.weight * var)
    resid = np.sqrt(rows.count * rows.weight) * (rows.outcome - p) / np.sqrt(var)
    order = np.argsort(rows.cluster, kind="stable")
    bounds = np.flatnonzero(np.diff(rows.cluster[order])) + 1
    z_all = design.sparse()
    from scipy import sparse

    z_all = (sparse.diags(scale) @ z_all).tocsr()[order]
    resid = resid[order]
    k, j = contrasts.shape
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(order)]])
    n_g = len(starts)
    meat = np.zeros((k, k))
    u_norm = np.zeros((n_g, j))
    v = np.zeros((j, k, n_g))
    b_c = bread @ contrasts
    n_singular = 0
    adjusts = []
    root_b = np.linalg.cholesky((bread + bread.T) / 2.0)
    for g, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
        z = z_all[lo:hi]
        if _low_rank(hi - lo, k):
            y = np.asarray(z @ root_b, dtype=np.float64)  # r_g x k, H_gg = Y Y'
            values, vectors = np.linalg.eigh(y.T @ y)
            keep = 1.0 - values > 1e-10
            f = np.where(keep, 1.0 / np.sqrt(np.where(keep, 1.0 - values, 1.0)), 0.0)
            tiny = np.abs(values) < 1e-12
            coef = np.where(tiny, 0.5, (f - 1.0) / np.where(tiny, 1.0, values))
            adjust = Adjust(None, y @ vectors, coef)
        else:
            zb = np.asarray((z @ bread), dtype=np.float64)  # r_g x k
            h = np.asarray(z @ zb.T, dtype=np.float64)  # Z_g B Z_g'
            values, vectors = np.linalg.eigh(np.eye(hi - lo) - (h + h.T) / 2.0)
            keep = values > 1e-10
            root = np.where(keep, 1.0 / np.sqrt(np.where(keep, values, 1.0)), 0.0)
            adjust = Adjust((vectors * root) @ vectors.T)  # (I - H_gg)^{-1/2}
        n_singular += int(not np.all(keep))
        adjusts.append(adjust)
        score = z.T @ (adjust @ resid[lo:hi])
        meat += np.outer(score, score)
        u = adjust @ np.asarray(z @ b_c, dtype=np.float64)  # r_g x J
        u_norm[g] = np.sum(u * u, axis=0)
        v[:, :, g] = np.asarray(z.T @ u, dtype=np.float64).T
    df = np.empty(j)
    for c in range(j):
        w = root_b.T @ v[c]  # k x G: v_g' B v_h = w_g' w_h
        gram = w.T @ w if n_g <= k else None
        quad = np.sum(w * w, axis=0)  # v_g' B v_g
        trace = float(np.sum(u_norm[:, c]) - np.sum(quad))
        if gram is not None:
            frob = float(np.sum(gram**2))
        else:
            small = w @ w.T
            frob = float(np.sum(small**2))
        frob += float(np.sum(u_norm[:, c] ** 2) - 2.0 * np.sum(u_norm[:, c] * quad))
        df[c] = trace**2 / frob if trace > 0.0 and frob > 0.0 else np.inf
    return CR2(
        meat=meat, df=df, n_singular=n_singular, z=z_all,
        bounds=tuple(zip(starts.tolist(), ends.tolist(), strict=True)),
        adjust=tuple(adjusts), bread=bread,
    )  # fmt: skip


def maxima_cost(parts: CR2, n_models: int, n_draws: int, chunk: int = 256) -> float:
    """Estimated operations of :func:`studentized_maxima` (a loop step over a cluster
    counted as 1e5, its fixed cost)."""
    r, k = (int(n) for n in parts.z.shape)
    g = len(parts.bounds)
    square = sum(min((hi - lo) ** 2, 2 * (hi - lo) * k) for lo, hi in parts.bounds)
    steps = (n_draws // chunk + 1) * g
    return float(n_draws * (r * k + square + g * n_models * (n_models + k)) + 1e5 * steps)


def studentized_maxima(
    parts: CR2,
    contrasts: np.ndarray,
    use: np.ndarray,
    /,
    *,
    n_draws: int,
    seed: np.random.SeedSequence,
    chunk: int = 256,
) -> np.ndarray:
    r"""Draws of ``max_{i<j} |d_i - d_j| / se*_ij`` over the pairs marked in ``use``, with
    each draw's own CR2 standard errors, under the working model.

    The fit is replaced by its linearisation: standard normal standardised residuals
    ``e*`` give ``beta* = B Z' e*``, residuals ``(I - H) e*`` and CR2 meat
    ``sum_g S_g S_g'``, ``S_g = Z_g' A_g [(I - H) e*]_g``; ``d = C' beta*`` and
    ``se*_ij^2 = sum_g ((c_i - c_j)' B S_g)^2``. The quantile of these maxima is the
    critical value of simultaneous t intervals whose standard errors are themselves
    estimated from few clusters (the max-T analogue of the Bell-McCaffrey t; the
    shared-chi-square multivariate t understates it when clusters are few).

    ``contrasts``: ``k x m`` (free parameters to scores); ``use``: ``m x m`` booleans.
    """
    rng = np.random.default_rng(seed)
    z, bread = parts.z, parts.bread
    m = contrasts.shape[1]
    project = contrasts.T @ bread  # m x k
    upper = np.triu(use, 1)
    left, right = np.nonzero(upper)
    out = np.zeros(n_draws)
    for start in range(0, n_draws, chunk):
        size = min(chunk, n_draws - start)
        e = rng.standard_normal((z.shape[0], size))
        beta = bread @ np.asarray(z.T @ e)
        resid = e - np.asarray(z @ beta)
        est = contrasts.T @ beta  # m x D
        var = np.zeros((len(left), size))
        for (lo, hi), adjust in zip(parts.bounds, parts.adjust, strict=True):
            s = np.asarray(z[lo:hi].T @ (adjust @ resid[lo:hi]))  # k x D
            c = project @ s  # m x D
            var += (c[left] - c[right]) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(est[left] - est[right]) / np.sqrt(var)
        t = np.where(var > 0, t, 0.0)
        out[start : start + size] = t.max(axis=0, initial=0.0) if m > 1 else 0.0
    return out
