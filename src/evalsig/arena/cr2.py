r"""Bias-reduced cluster-robust covariance (CR2) of the logistic Bradley-Terry fit, with
Bell-McCaffrey (Satterthwaite) degrees of freedom, as clubSandwich computes them for a
``glm`` (``vcovCR(fit, cluster, type = "CR2")`` and ``coef_test(..., test =
"Satterthwaite")``).

Working model: a battle's outcome has variance ``phi_i = p_i (1 - p_i) / w_i`` (``w`` its
weight). With the standardised design ``Z = sqrt(w p (1 - p)) X`` and residuals
``e = (y - p) / sqrt(phi)``, ``B = (Z' Z)^{-1}`` (the inverse information) and the hat
matrix ``H = Z B Z'``, CR2 is

``V = B [sum_g Z_g' G_g e_g e_g' G_g' Z_g] B``,  ``G_g = [Phi_g (I - H_gg) Phi_g]^{-1/2} Phi_g``

(``Phi = diag(phi)``; the inverse square root symmetric, a pseudo-inverse where a cluster
alone determines a parameter). ``G_g`` is Pustejovsky & Tipton's adjustment
``Phi_g^{1/2} [Phi_g^{1/2} (Phi_g - Xd_g B Xd_g') Phi_g^{1/2}]^{-1/2} Phi_g^{1/2}``
(``Xd = dp/dbeta``), written for the standardised residuals. It satisfies
``G_g (I - H_gg) G_g' = I``, so the estimator is unbiased when the working model holds (CR1,
``G / (G - 1) B [sum_g Z_g' e_g e_g' Z_g] B``, is biased down when clusters are few). The
symmetric ``(I - H_gg)^{-1/2}`` satisfies the same identity; the two agree when ``phi`` is
constant within each cluster and otherwise differ in the third or fourth digit of a
standard error with a dozen clusters.

For a contrast ``c``, with ``q_g = G_g' Z_g B c`` and ``v_g = Z_g' q_g``, the
Bell-McCaffrey degrees of freedom are

``nu = (tr Omega)^2 / ||Omega||_F^2``,  ``Omega_gh = [g = h] q_g' q_g - v_g' B v_h``.

Collapsed rows (exact): within a cluster, the battles of one pair with one weight and
(oriented) features have proportional rows of ``Z`` and one ``phi``. Let ``Q`` hold each
such set's unit vector along those rows (``+-sqrt(n_i / N)`` on its rows). ``Phi`` and
``H`` map the span of ``Q`` into itself, ``G_g`` is the identity on the complement and
``Z_g'`` vanishes there, so every quantity above depends on the residuals only through
``Q' e``: each set is one row (the pair with the lower model code first, the battles'
count ``N``, their mean outcome). A cluster of ``u_g`` collapsed rows costs ``u_g^3``
(``u_g`` is at most the pairs that met on it, without features).

References
----------
Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
regression with multi-stage samples. Survey Methodology 28, 169-181.
Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance
estimation and hypothesis testing in fixed effects models. JBES 36, 672-683 (R package
clubSandwich).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalsig._deprecation import renamed
from evalsig.arena.battle_arrays import Compressed
from evalsig.arena.design import Design

__all__ = ["CR2", "CR2_BUDGET", "Collapsed", "collapse", "cr2", "cr2_cost", "studentized_maxima"]

CR2_BUDGET = 3e9
"""Floating-point operations (estimated) above which the exact CR2 is not attempted."""

_SINGULAR = 1e-12
"""Eigenvalues of ``Phi_g (I - H_gg) Phi_g`` (``Phi_g`` scaled to a largest entry of 1)
at or below which a direction counts as leverage 1."""


@dataclass(frozen=True, slots=True)
class Collapsed:
    """Compressed rows merged by ``(cluster, pair, weight, oriented features)``."""

    rows: Compressed
    """The merged rows, sorted by cluster (``a < b``; the mean outcome of ``a``)."""
    group: np.ndarray
    """Each input row's merged row."""
    scale: np.ndarray
    """Each input row's entry of the orthonormal basis ``Q`` of the merged rows' span
    (``+-sqrt(n_i / N_j)``: minus where the input row had the pair the other way round)."""


def collapse(rows: Compressed) -> Collapsed:
    """Merge, within each cluster, the rows of one pair with one weight and one feature
    vector (oriented: a row of ``b`` against ``a`` is read with its features negated and
    its outcome as ``1 - y``)."""
    if rows.cluster is None:
        raise ValueError("collapse needs clustered rows")
    m = rows.n_models
    flip = rows.a > rows.b
    low, high = np.minimum(rows.a, rows.b), np.maximum(rows.a, rows.b)
    plain = rows.features is None and bool(np.all(rows.weight == rows.weight[:1]))
    if plain:
        key = (rows.cluster.astype(np.int64) * m + low) * m + high
        unique, group = np.unique(key, return_inverse=True)
        rest, high_u = np.divmod(unique, m)
        cluster_u, low_u = np.divmod(rest, m)
        weight = np.full(len(unique), rows.weight[0] if len(rows.weight) else 1.0)
        features = None
    else:
        columns = [rows.cluster, low, high, rows.weight]
        table = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
        if rows.features is not None:
            oriented = np.where(flip[:, None], -rows.features, rows.features)
            table = np.column_stack([table, oriented])
        unique_t, group = np.unique(table, axis=0, return_inverse=True)
        cluster_u = unique_t[:, 0].astype(np.int64)
        low_u, high_u = unique_t[:, 1].astype(np.int64), unique_t[:, 2].astype(np.int64)
        weight = unique_t[:, 3].copy()
        features = unique_t[:, 4:].copy() if rows.features is not None else None
    group = np.asarray(group).ravel()
    n = len(cluster_u)
    count = np.bincount(group, rows.count, n)
    oriented_y = np.where(flip, 1.0 - rows.outcome, rows.outcome)
    outcome = np.bincount(group, rows.count * oriented_y, n) / count
    merged = Compressed(m, low_u, high_u, outcome, count, weight, cluster_u, features)
    scale = np.where(flip, -1.0, 1.0) * np.sqrt(rows.count / count[group])
    return Collapsed(merged, group, scale)


@dataclass(frozen=True, slots=True)
class CR2:
    meat: np.ndarray
    """``sum_g Z_g' G_g e_g e_g' G_g' Z_g`` (free parameters)."""
    df: np.ndarray
    """Bell-McCaffrey degrees of freedom of each contrast (inf where its variance is 0)."""
    n_singular: int
    """Clusters with a direction of leverage 1 (left out of their ``G_g``)."""
    z: Any = field(repr=False)
    """The standardised design of the collapsed rows, sorted by cluster (scipy sparse)."""
    bounds: tuple[tuple[int, int], ...] = field(repr=False)
    """Each cluster's first and past-the-last row in ``z``."""
    columns: tuple[np.ndarray, ...] = field(repr=False)
    """Each cluster's parameters with a non-zero column in ``z``."""
    adjusted: tuple[np.ndarray, ...] = field(repr=False)
    """Each cluster's ``G_g' Z_g`` on its ``columns``."""
    bread: np.ndarray = field(repr=False)


def cr2_cost(rows: Compressed, k: int, n_contrasts: int) -> tuple[float, float]:
    """Estimated operations of :func:`cr2`, with clubSandwich's adjustment and with the
    symmetric one: per cluster of ``u_g`` collapsed rows the eigen-decomposition of
    ``u_g x u_g`` (``u_g^3``; symmetric, of ``k_g x k_g`` when ``u_g > k_g``) and the
    products with ``k_g = min(k, 2 u_g + p)`` parameters, plus the degrees of freedom
    ``J G k (k + G)`` and the ``J k G`` floats they keep."""
    cluster = collapse(rows).rows.cluster
    if cluster is None:
        raise ValueError("cr2_cost needs clustered rows")
    sizes = np.unique(cluster, return_counts=True)[1].astype(np.float64)
    g = float(len(sizes))
    p = 0 if rows.features is None else rows.features.shape[1]
    k_g = np.minimum(float(k), 2.0 * sizes + p)
    dense = sizes**3 + sizes**2 * k_g + sizes * k_g**2
    low_rank = np.where(sizes > k_g, sizes * k_g**2 + k_g**3, dense)
    rest = n_contrasts * g * k * (k + g) + 50 * n_contrasts * k * g
    return float(np.sum(dense) + rest), float(np.sum(low_rank) + rest)


def cr2(
    design: Design,
    rows: Compressed,
    params: np.ndarray,
    bread: np.ndarray,
    contrasts: np.ndarray,
    *,
    symmetric: bool = False,
) -> CR2:
    """The CR2 meat and the degrees of freedom of ``contrasts`` (``k x J``, free
    parameters) at the fitted ``params`` of ``ties="half"`` (``bread`` the inverse
    information).

    ``symmetric``: ``G_g = (I - H_gg)^{-1/2}`` (``phi`` taken as constant within each
    cluster), which for a cluster with more collapsed rows than parameters comes from the
    ``k_g x k_g`` eigenproblem of ``Y' Y`` (``Y = Z_g L``, ``B = L L'``, ``H_gg = Y Y'``):
    ``G_g = I + Y V diag((f(l) - 1) / l) V' Y'``, ``f(l) = (1 - l)^{-1/2}``. The same
    holds without ``symmetric`` in a cluster whose ``phi`` is constant."""
    from scipy import sparse
    from scipy.special import expit

    if rows.cluster is None:
        raise ValueError("cr2 needs clustered rows")
    merged = collapse(rows)
    crows = merged.rows
    cluster = crows.cluster
    if cluster is None:
        raise ValueError("collapsed rows lost their clusters")
    cdesign = Design(crows, design.anchor)
    d = cdesign.times(params)
    var = expit(d) * expit(-d)
    phi = var / crows.weight
    resid = np.sqrt(crows.count * crows.weight / var) * (crows.outcome - expit(d))
    z_all = (sparse.diags(np.sqrt(crows.count * crows.weight * var)) @ cdesign.sparse()).tocsr()
    cut = np.flatnonzero(np.diff(cluster)) + 1
    starts = np.concatenate([[0], cut]).astype(np.int64)
    ends = np.concatenate([cut, [len(crows.count)]]).astype(np.int64)
    k, j = contrasts.shape
    n_g = len(starts)
    meat = np.zeros((k, k))
    q_norm = np.zeros((n_g, j))
    v = np.zeros((j, k, n_g))
    b_c = bread @ contrasts
    n_singular = 0
    columns, adjusted = [], []
    for g, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
        block = z_all[lo:hi]
        cols = np.unique(block.indices)
        z = block[:, cols].toarray()  # u_g x k_g
        gz, singular = _adjust(z, bread[np.ix_(cols, cols)], phi[lo:hi], symmetric)
        n_singular += singular
        columns.append(cols)
        adjusted.append(gz)
        score = gz.T @ resid[lo:hi]
        meat[np.ix_(cols, cols)] += np.outer(score, score)
        q = gz @ b_c[cols]  # u_g x J
        q_norm[g] = np.sum(q * q, axis=0)
        v[:, cols, g] = (z.T @ q).T
    root_b = np.linalg.cholesky((bread + bread.T) / 2.0)
    df = np.empty(j)
    for c in range(j):
        w = root_b.T @ v[c]  # k x G: v_g' B v_h = w_g' w_h
        quad = np.sum(w * w, axis=0)  # v_g' B v_g
        trace = float(np.sum(q_norm[:, c]) - np.sum(quad))
        small = w.T @ w if n_g <= k else w @ w.T  # same Frobenius norm
        frob = float(np.sum(small**2))
        frob += float(np.sum(q_norm[:, c] ** 2) - 2.0 * np.sum(q_norm[:, c] * quad))
        df[c] = trace**2 / frob if trace > 0.0 and frob > 0.0 else np.inf
    return CR2(
        meat=meat, df=df, n_singular=n_singular, z=z_all,
        bounds=tuple(zip(starts.tolist(), ends.tolist(), strict=True)),
        columns=tuple(columns), adjusted=tuple(adjusted), bread=bread,
    )  # fmt: skip


def _adjust(
    z: np.ndarray, bread: np.ndarray, phi: np.ndarray, symmetric: bool
) -> tuple[np.ndarray, bool]:
    """``G_g' Z_g`` of one cluster (``z``: its ``u_g x k_g`` standardised rows) and whether
    a direction of leverage 1 was left out."""
    u, k = z.shape
    f = phi / np.max(phi)  # Phi_g up to a factor, which G_g ignores
    if symmetric or np.all(np.abs(f - 1.0) <= 1e-12):
        if u > k:
            y = z @ np.linalg.cholesky((bread + bread.T) / 2.0)  # H_gg = Y Y'
            values, vectors = np.linalg.eigh(y.T @ y)
            keep = 1.0 - values > _SINGULAR
            root = np.where(keep, 1.0 / np.sqrt(np.where(keep, 1.0 - values, 1.0)), 0.0)
            tiny = np.abs(values) < 1e-12
            coef = np.where(tiny, 0.5, (root - 1.0) / np.where(tiny, 1.0, values))
            basis = y @ vectors
            return z + basis @ (coef[:, None] * (basis.T @ z)), not bool(np.all(keep))
        f = np.ones(u)
    h = z @ bread @ z.T  # H_gg
    t = f[:, None] * (np.eye(u) - (h + h.T) / 2.0) * f[None, :]
    values, vectors = np.linalg.eigh(t)
    keep = values > _SINGULAR
    root = np.where(keep, 1.0 / np.sqrt(np.where(keep, values, 1.0)), 0.0)
    return f[:, None] * ((vectors * root) @ (vectors.T @ z)), not bool(np.all(keep))


def maxima_cost(parts: CR2, n_models: int, n_draws: int, chunk: int = 256) -> float:
    """Estimated operations of :func:`studentized_maxima` (a loop step over a cluster
    counted as 1e5, its fixed cost)."""
    r, k = (int(n) for n in parts.z.shape)
    g = len(parts.bounds)
    adjust = sum(int(a.size) for a in parts.adjusted)
    project = n_models * sum(len(cols) for cols in parts.columns)
    steps = (n_draws // chunk + 1) * g
    return float(
        n_draws * (r + 2 * parts.z.nnz + k * k + adjust + project + g * n_models * n_models)
        + 1e5 * steps
    )


@renamed(seed="rng")
def studentized_maxima(
    parts: CR2,
    contrasts: np.ndarray,
    use: np.ndarray,
    /,
    *,
    n_draws: int,
    rng: np.random.Generator | np.random.SeedSequence | int,
    chunk: int = 256,
) -> np.ndarray:
    r"""Draws of ``max_{i<j} |d_i - d_j| / se*_ij`` over the pairs marked in ``use``, with
    each draw's own CR2 standard errors, under the working model.

    The fit is replaced by its linearisation: standard normal standardised residuals
    ``e*``, one per collapsed row (the sums ``Q' e`` of the battles' independent standard
    normal residuals are again independent standard normal), give ``beta* = B Z' e*``,
    residuals ``(I - H) e*`` and CR2 meat ``sum_g S_g S_g'``,
    ``S_g = Z_g' G_g [(I - H) e*]_g``; ``d = C' beta*`` and
    ``se*_ij^2 = sum_g ((c_i - c_j)' B S_g)^2``. The quantile of these maxima is the
    critical value of simultaneous t intervals whose standard errors are themselves
    estimated from few clusters (the max-T analogue of the Bell-McCaffrey t; the
    shared-chi-square multivariate t understates it when clusters are few).

    ``contrasts``: ``k x m`` (free parameters to scores); ``use``: ``m x m`` booleans.
    """
    rng = np.random.default_rng(rng)
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
        for (lo, hi), cols, gz in zip(parts.bounds, parts.columns, parts.adjusted, strict=True):
            c = project[:, cols] @ (gz.T @ resid[lo:hi])  # m x D
            var += (c[left] - c[right]) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(est[left] - est[right]) / np.sqrt(var)
        t = np.where(var > 0, t, 0.0)
        out[start : start + size] = t.max(axis=0, initial=0.0) if m > 1 else 0.0
    return out
