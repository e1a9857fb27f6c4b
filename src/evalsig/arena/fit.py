r"""Maximum likelihood of Bradley-Terry models on compressed battles, with the model-based
and the sandwich (cluster-robust) covariance.

The logistic form: with ``d = s_a - s_b + beta . x`` (``x`` the battle's feature
differences),

* ``ties="half"``: ``P(a beats b) = sigmoid(d)``, a tie counts as half a win each way
  (Chatbot Arena's rule); a fractional outcome ``y`` enters as ``y log p + (1 - y) log(1 - p)``.
* ``ties="davidson"``: ``P(a) = e^{d/2} / D``, ``P(b) = e^{-d/2} / D``,
  ``P(tie) = nu / D`` with ``D = e^{d/2} + e^{-d/2} + nu`` (Davidson 1970).

Newton's method on the rows of :class:`~evalsig.arena.battle_arrays.Compressed` (design ``X``:
+1 for a, -1 for b, the anchor's column dropped, then the features; every product is a
sum by model index, so 200 models cost a 199 x 199 solve per step). The information is
``I = sum_r n_r w_r X_r' H_r X_r``; the sandwich is ``I^-1 B I^-1`` with
``B = sum_r n_r w_r^2 U_r U_r'`` (HC0; ``U_r`` the score of one battle), or with clusters
``B = G / (G - 1) sum_g S_g S_g'`` (CR1; ``S_g`` the summed scores of cluster g) or the
bias-reduced CR2 of :mod:`evalsig.arena.cr2`.

References
----------
Bradley, R. A. & Terry, M. E. (1952). Biometrika 39, 324-345.
Davidson, R. R. (1970). JASA 65, 317-328.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from evalsig.arena import cr2 as sandwich
from evalsig.arena.battle_arrays import Compressed
from evalsig.arena.design import Design
from evalsig.errors import DataError

__all__ = [
    "CONVERGED",
    "Correction",
    "Design",
    "Fit",
    "Ties",
    "check_estimable",
    "fit",
    "newton",
    "newton_many",
]

Ties = Literal["half", "davidson"]
Correction = Literal["CR2", "CR1"]


@dataclass(frozen=True, slots=True)
class Fit:
    """Parameters ``[scores (anchor 0), beta, log nu]`` and their covariances."""

    params: np.ndarray
    information: np.ndarray
    """The information matrix of the free parameters (anchor left out)."""
    cov_model: np.ndarray
    """Inverse information, full size (the anchor's row and column zero)."""
    cov_sandwich: np.ndarray
    loglik: float
    iterations: int
    n_clusters: int | None
    correction: Literal["CR2", "CR1"] | None = None
    """The cluster-robust meat actually used (None without clusters)."""
    df: np.ndarray | None = None
    """CR2 only: Bell-McCaffrey degrees of freedom of each of ``contrasts``."""
    notes: tuple[str, ...] = ()
    cr2: Any = None
    """CR2 only: the :class:`evalsig.arena.cr2.CR2` parts (for the rank intervals)."""


def _terms(
    d: np.ndarray, y: np.ndarray, theta: np.ndarray | float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per battle: log-likelihood, score on ``x`` and on log nu, information parts
    ``h_xx``, ``h_xt``, ``h_tt`` (the last three zero without Davidson's parameter)."""
    if theta is None:
        log_p, log_q = -np.logaddexp(0.0, -d), -np.logaddexp(0.0, d)
        p = np.exp(log_p)
        ll = y * log_p + (1.0 - y) * log_q
        zero = np.zeros_like(d)
        return ll, y - p, p * (1.0 - p), zero, zero, zero
    u = d / 2.0
    log_d = np.logaddexp(np.logaddexp(u, -u), theta)
    pa, pb, pt = np.exp(u - log_d), np.exp(-u - log_d), np.exp(theta - log_d)
    win, loss, tie = (y == 1.0), (y == 0.0), (y == 0.5)
    ll = np.where(win, u, 0.0) - np.where(loss, u, 0.0) + np.where(tie, theta, 0.0) - log_d
    diff = pa - pb
    score_x = (win.astype(float) - loss - diff) / 2.0
    score_t = tie - pt
    return ll, score_x, ((pa + pb) - diff**2) / 4.0, -diff * pt / 2.0, score_t, pt * (1 - pt)


def fit(
    rows: Compressed,
    /,
    *,
    ties: Ties,
    anchor: int,
    start: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
    correction: Correction = "CR1",
    contrasts: np.ndarray | None = None,
) -> Fit:
    """Newton's method with step halving; ``start`` (free parameters) warm-starts a refit.

    With clusters, ``correction="CR2"`` gives the bias-reduced meat of
    :mod:`evalsig.arena.cr2` (clubSandwich's) and the degrees of freedom of ``contrasts``
    (``K x J``, free parameters; default the identity) for ``ties="half"``. When its cost
    exceeds :data:`~evalsig.arena.cr2.CR2_BUDGET` the symmetric adjustment is used (a
    note says so); Davidson ties, or a CR2 too costly even so, fall back to CR1 with a
    note.

    Raises
    ------
    DataError
        The information is singular (collinear features) or the fit does not converge.
    """
    design = Design(rows, anchor)
    params, current, iteration = newton(design, rows, ties, start, tol=tol, max_iter=max_iter)
    _grad, info = _gradient_information(
        design, rows.count * rows.weight, rows.outcome, params, ties
    )
    inv = np.linalg.inv(info)
    n_clusters = None if rows.cluster is None else len(np.unique(rows.cluster))
    used: Correction | None = None if n_clusters is None else "CR1"
    df = None
    notes: list[str] = []
    meat = None
    parts = None
    if n_clusters is not None and correction == "CR2":
        c = np.eye(len(params)) if contrasts is None else contrasts
        cost, cheap = sandwich.cr2_cost(rows, len(params), c.shape[1])
        if ties == "davidson":
            notes.append(
                "CR2 is defined here for ties='half' (a logistic model); Davidson ties use "
                "the CR1 cluster-robust covariance with normal intervals."
            )
        elif cheap > sandwich.CR2_BUDGET:
            notes.append(
                f"the exact CR2 covariance would take about {cheap:.1e} operations "
                f"({n_clusters:,} clusters); CR1 is used instead (with this many clusters "
                "the two differ by O(1/G))."
            )
        elif n_clusters >= 2:
            symmetric = cost > sandwich.CR2_BUDGET
            parts = sandwich.cr2(design, rows, params, inv, c, symmetric=symmetric)
            meat, df, used = parts.meat, parts.df, "CR2"
            if symmetric:
                notes.append(
                    "CR2 uses the symmetric adjustment (I - H_gg)^(-1/2) of the standardised "
                    "residuals: clubSandwich's (vcovCR, type 'CR2'), which weights it by "
                    f"the working variances, would take about {cost:.1e} operations on "
                    "these prompts. Both are unbiased under the model; their standard "
                    "errors differ slightly (0.1-0.5% in tests with a dozen prompts)."
                )
            if parts.n_singular:
                notes.append(
                    f"{parts.n_singular:,} clusters alone determine some score (leverage 1): "
                    "their CR2 adjustment uses a pseudo-inverse, and intervals that rest "
                    "on them are too short; add battles of those models on other prompts."
                )
    if meat is None:
        meat = _meat(design, rows, params, ties)
    return Fit(
        params=_full(params, anchor, rows.n_models),
        information=info,
        cov_model=_full_cov(inv, anchor, rows.n_models),
        cov_sandwich=_full_cov(inv @ meat @ inv, anchor, rows.n_models),
        loglik=current,
        iterations=iteration,
        n_clusters=n_clusters,
        correction=used,
        df=df,
        notes=tuple(notes),
        cr2=parts,
    )


CONVERGED, SINGULAR, DIVERGED = 0, 1, 2
"""The outcome of each fit of :func:`newton_many`."""


def newton(
    design: Design,
    rows: Compressed,
    ties: Ties,
    start: np.ndarray | None,
    *,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> tuple[np.ndarray, float, int]:
    """Free parameters, log-likelihood and Newton steps taken (``design`` from
    :class:`Design`): :func:`newton_many` with one set of weights, its failures as errors."""
    params, loglik, steps, status = newton_many(
        design,
        (rows.count * rows.weight)[None],
        rows.outcome,
        ties,
        None if start is None else start[None],
        tol=tol,
        max_iter=max_iter,
    )
    if status[0] == SINGULAR:
        raise DataError(
            "the Bradley-Terry information matrix is singular: a feature is constant or "
            "a copy of another (or of the model codes); drop it."
        )
    if status[0] == DIVERGED:
        raise DataError(
            f"the Bradley-Terry fit did not converge in {max_iter} Newton steps; some score "
            "is probably infinite (a model, or a feature, that separates wins from losses)."
        )
    return params[0], float(loglik[0]), int(steps[0])


def newton_many(
    design: Design,
    weights: np.ndarray,
    outcome: np.ndarray,
    ties: Ties,
    start: np.ndarray | None,
    *,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Newton's method with step halving, for ``n`` fits at once on the same rows with
    their own weights ``(n, R)`` (count times weight: a bootstrap's resamples).

    Each fit stops when its step is below ``tol``. Returns the ``(n, K)`` free parameters,
    the log-likelihoods, the steps taken and the status of each fit (:data:`CONVERGED`,
    :data:`SINGULAR` information, or :data:`DIVERGED` after ``max_iter`` steps).
    """
    n, k = len(weights), design.k
    if start is not None:
        params = np.array(np.broadcast_to(start, (n, start.shape[-1])), dtype=np.float64)
    else:
        params = np.zeros((n, k + (1 if ties == "davidson" else 0)))
        if ties == "davidson":
            share = np.sum(weights * (outcome == 0.5), axis=1) / np.sum(weights, axis=1)
            params[:, k] = np.log(2.0 * share / (1.0 - share))
    current = _loglik(design, weights, outcome, params, ties)
    steps = np.zeros(n, dtype=np.int64)
    status = np.full(n, DIVERGED)
    active = np.arange(n)
    for iteration in range(1, max_iter + 1):
        if not active.size:
            break
        every = active.size == n  # no copies while every fit is still running
        w, p, now = (
            (weights, params, current)
            if every
            else (weights[active], params[active], current[active])
        )
        step, solved = _solve(*_gradient_information(design, w, outcome, p, ties))
        if not solved.all():
            status[active[~solved]] = SINGULAR
            active, w, p, now = active[solved], w[solved], p[solved], now[solved]
            step = step[solved]
        t = np.ones(len(active))
        trial = p + step
        value = _loglik(design, w, outcome, trial, ties)
        short = ~(value >= now - 1e-12 * np.abs(now))
        while np.any(short := short & (t >= 1e-10)):
            t[short] /= 2.0
            trial[short] = p[short] + t[short, None] * step[short]
            value[short] = _loglik(design, w[short], outcome, trial[short], ties)
            short[short] = ~(value[short] >= now[short] - 1e-12 * np.abs(now[short]))
        params[active], current[active], steps[active] = trial, value, iteration
        done = np.max(np.abs(t[:, None] * step), axis=1, initial=0.0) < tol
        status[active[done]] = CONVERGED
        active = active[~done]
    return params, current, steps, status


def _solve(gradient: np.ndarray, information: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Newton steps ``I^-1 g`` of a batch, and which informations were not singular."""
    try:
        return np.linalg.solve(information, gradient[..., None])[..., 0], np.ones(
            len(gradient), dtype=bool
        )
    except np.linalg.LinAlgError:
        pass
    step = np.zeros_like(gradient)
    solved = np.ones(len(gradient), dtype=bool)
    for i in range(len(gradient)):
        try:
            step[i] = np.linalg.solve(information[i], gradient[i])
        except np.linalg.LinAlgError:
            solved[i] = False
    return step, solved


def _theta(params: np.ndarray, k: int, ties: Ties) -> np.ndarray | None:
    """Davidson's log nu of each fit, as a column (None for ``ties="half"``)."""
    return params[..., k : k + 1] if ties == "davidson" else None


def _loglik(
    design: Design, weights: np.ndarray, outcome: np.ndarray, params: np.ndarray, ties: Ties
) -> np.ndarray:
    """The weighted log-likelihood of each fit (``params`` and ``weights`` by row)."""
    ll = _terms(design.times(params), outcome, _theta(params, design.k, ties))[0]
    return np.asarray(np.sum(weights * ll, axis=-1), dtype=np.float64)


def _gradient_information(
    design: Design, weights: np.ndarray, outcome: np.ndarray, params: np.ndarray, ties: Ties
) -> tuple[np.ndarray, np.ndarray]:
    """The score and the information, for one fit or a batch (``params`` ``(..., K)``)."""
    theta = _theta(params, design.k, ties)
    _, sx, hxx, hxt, st, htt = _terms(design.times(params), outcome, theta)
    grad_x = design.t_times(weights * sx)
    info_x = design.gram(weights * hxx)
    if theta is None:
        return grad_x, info_x
    cross = design.t_times(weights * hxt)
    corner = np.sum(weights * htt, axis=-1)[..., None, None]
    info = np.concatenate(
        [np.concatenate([info_x, cross[..., :, None]], axis=-1),
         np.concatenate([cross[..., None, :], corner], axis=-1)],
        axis=-2,
    )  # fmt: skip
    return np.concatenate([grad_x, np.sum(weights * st, axis=-1)[..., None]], axis=-1), info


def _meat(design: Design, rows: Compressed, params: np.ndarray, ties: Ties) -> np.ndarray:
    """Sum of outer products of the battles' (or the clusters') scores."""
    from scipy import sparse

    k = design.k
    theta = float(params[k]) if ties == "davidson" else None
    _, sx, _, _, st, _ = _terms(design.times(params), rows.outcome, theta)
    if rows.cluster is None:
        v = rows.count * rows.weight**2
        if theta is None:
            return design.gram(v * sx**2)
        cross = design.t_times(v * sx * st)
        top = design.gram(v * sx**2)
        return np.block([[top, cross[:, None]], [cross[None, :], np.array([[np.sum(v * st**2)]])]])
    labels, g = np.unique(rows.cluster, return_inverse=True)
    n_g = len(labels)
    if n_g < 2:
        raise DataError(
            "the battles fall in one cluster: a cluster-robust covariance needs at least two "
            "(e.g. several prompts); drop `clusters` or add battles on other prompts."
        )
    v = rows.count * rows.weight
    members = sparse.csr_matrix((v, (g, np.arange(len(g)))), shape=(n_g, len(g)))
    scores = (members @ sparse.diags(sx) @ design.sparse()).toarray()
    if theta is not None:
        scores = np.column_stack([scores, members @ st])
    return np.asarray(n_g / (n_g - 1) * (scores.T @ scores), dtype=np.float64)


def _full(params: np.ndarray, anchor: int, m: int) -> np.ndarray:
    return np.insert(params, anchor, 0.0)


def _full_cov(cov: np.ndarray, anchor: int, m: int) -> np.ndarray:
    out = np.insert(np.insert(cov, anchor, 0.0, axis=0), anchor, 0.0, axis=1)
    return out


def check_estimable(rows: Compressed, models: tuple[str, ...], source: str) -> None:
    """The maximum likelihood exists (all scores finite) only if every model both beats
    and loses to the rest, in the strong-connectivity sense (Ford 1957): else a clear error.
    """
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    m = rows.n_models
    forward = rows.outcome > 0  # a took something from b
    backward = rows.outcome < 1
    src = np.concatenate([rows.a[forward], rows.b[backward]])
    dst = np.concatenate([rows.b[forward], rows.a[backward]])
    graph = sparse.csr_matrix((np.ones(len(src)), (src, dst)), shape=(m, m))
    n_weak, weak = connected_components(graph, directed=True, connection="weak")
    if n_weak > 1:
        sizes = np.bincount(weak)
        lonely = [models[i] for i in np.flatnonzero(weak != np.argmax(sizes))][:3]
        raise DataError(
            f"{source}: the models fall into {n_weak} groups that never met (e.g. "
            f"{', '.join(map(repr, lonely))} never battled the largest group); scores across "
            "groups are not comparable: add battles between the groups."
        )
    n_strong, strong = connected_components(graph, directed=True, connection="strong")
    if n_strong > 1:
        # a component with no edge leaving it never lost to the rest (or never won)
        out = np.zeros(n_strong, dtype=bool)
        out[strong[src[strong[src] != strong[dst]]]] = True
        top = np.flatnonzero(~out)
        names = [models[i] for i in np.flatnonzero(np.isin(strong, top))][:3]
        raise DataError(
            f"{source}: some models never lost to the others, or never won against them "
            f"(e.g. {', '.join(map(repr, names))}), so their scores are infinite: add "
            "battles they lost (or won), or drop them."
        )
