"""Clustered items with a chosen intra-cluster correlation, keeping the difficulty mixture.

Items that share a subject or a source pass or fail together. The simulator puts items in
``G`` contiguous clusters of near-equal size and correlates their difficulty through a
Gaussian copula: item ``i`` of cluster ``g`` has a latent standard-normal difficulty score

``z_i = sqrt(rho) a_g + sqrt(1 - rho) e_i``,  with ``a_g, e_i ~ N(0, 1)`` independent,

and its success probability is the mixture's quantile at ``u_i = Phi(z_i)``:

``p_i = 0`` if ``u_i < s_hard``; ``p_i = low + (high - low) (u_i - s_hard) / s_middle`` in
the middle band; ``p_i = 1`` above it. The shift ``sqrt(rho) a_g`` moves a whole cluster up
or down the difficulty scale (the probit scale of the item's rank), so every item keeps
exactly the marginal mixture of the unclustered design (same shares, same accuracy, same
decoding noise) and only the correlation between items changes.

The target is the intra-cluster correlation of one run's 0/1 scores between two distinct
items of a cluster, ``ICC = Cov(Y_i, Y_j) / Var(Y_i) = Var(E[p | a_g]) / (mu (1 - mu))``,
the quantity that sets the design effect ``1 + (m - 1) ICC`` of a model's accuracy on
clusters of size ``m``. :func:`copula_icc` computes it by quadrature and
:func:`copula_rho` inverts it; the largest reachable value is
``Var(p) / (mu (1 - mu))`` (every item of a cluster alike).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.inference._roots import brentq

__all__ = [
    "RHO_MAX",
    "cluster_codes",
    "copula_icc",
    "copula_rho",
    "max_icc",
    "mixture_quantile",
]

RHO_MAX = 0.99
"""Largest copula correlation used (the quadrature is accurate up to here)."""

_INNER = np.polynomial.legendre.leggauss(64)
_OUTER = np.polynomial.legendre.leggauss(8)
_PANELS = 300
_SPAN = 9.0


def cluster_codes(n_items: int, n_clusters: int) -> np.ndarray:
    """Cluster of each item: ``G`` contiguous blocks whose sizes differ by at most one.

    >>> cluster_codes(7, 3).tolist()
    [0, 0, 0, 1, 1, 2, 2]
    """
    if not 1 <= n_clusters <= n_items:
        raise DataError(
            f"`n_clusters` must be between 1 and n_items ({n_items}); got {n_clusters}."
        )
    return (np.arange(n_items, dtype=np.int64) * n_clusters) // n_items


def mixture_quantile(
    u: np.ndarray, share_easy: float, share_hard: float, middle: tuple[float, float]
) -> np.ndarray:
    """The mixture's quantile function: always-wrong (0) below, always-right (1) above.

    >>> mixture_quantile(np.array([0.1, 0.3, 0.9]), 0.42, 0.28, (0.2, 0.8)).round(2).tolist()
    [0.0, 0.24, 1.0]
    """
    low, high = middle
    share_middle = 1.0 - share_easy - share_hard
    top = share_hard + share_middle
    if share_middle > 0:
        band = low + (high - low) * (u - share_hard) / share_middle
    else:
        band = np.zeros_like(u)
    return np.where(u < share_hard, 0.0, np.where(u < top, band, 1.0))


def _moments(
    share_easy: float, share_hard: float, middle: tuple[float, float]
) -> tuple[float, float]:
    """Mean and variance of the latent p under the mixture."""
    low, high = middle
    share_middle = 1.0 - share_easy - share_hard
    mean_u = (low + high) / 2
    second_u = (low * low + low * high + high * high) / 3
    mean = share_easy + share_middle * mean_u
    second = share_easy + share_middle * second_u
    return mean, second - mean * mean


def _conditional_mean(
    a: np.ndarray, rho: float, share_easy: float, share_hard: float, middle: tuple[float, float]
) -> np.ndarray:
    """``h(a) = E[p | a_g = a]`` for each value of the cluster shift."""
    low, high = middle
    share_middle = 1.0 - share_easy - share_hard
    centre = math.sqrt(rho) * a
    tau = math.sqrt(1.0 - rho)
    t0 = -math.inf if share_hard <= 0 else float(special.ndtri(share_hard))
    top = share_hard + share_middle
    t1 = math.inf if top >= 1 else float(special.ndtri(top))
    y0 = np.clip((t0 - centre) / tau, -_SPAN - 1, _SPAN + 1)
    y1 = np.clip((t1 - centre) / tau, -_SPAN - 1, _SPAN + 1)
    easy = special.ndtr(-y1)
    p_mid = special.ndtr(y1) - special.ndtr(y0)
    if share_middle <= 0:
        return np.asarray(easy)
    nodes, weights = _INNER
    half = (y1 - y0)[:, None] / 2
    y = (y0 + y1)[:, None] / 2 + half * nodes[None, :]
    pdf = np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
    phi_z = special.ndtr(centre[:, None] + tau * y)
    e_phi = (half[:, 0]) * ((phi_z * pdf) @ weights)
    slope = (high - low) / share_middle
    return np.asarray(easy + low * p_mid + slope * (e_phi - share_hard * p_mid))


def copula_icc(
    rho: float,
    /,
    *,
    share_easy: float = 0.42,
    share_hard: float = 0.28,
    middle: tuple[float, float] = (0.2, 0.8),
) -> float:
    """Intra-cluster correlation of one run's scores for copula correlation ``rho``.

    Notes
    -----
    ``ICC(rho) = Var_a(h(a)) / (mu (1 - mu))`` with ``h(a) = E[p | a]``: the outer
    expectation over ``a ~ N(0, 1)`` is composite Gauss-Legendre on [-9, 9], the inner one
    (over the item's own noise, in the middle band) Gauss-Legendre with 64 nodes.

    References
    ----------
    Nelsen, R. B. (2006). An Introduction to Copulas, 2nd ed. Springer (the Gaussian
    copula). Donner, A. & Klar, N. (2000). Design and Analysis of Cluster Randomization
    Trials in Health Research. Arnold (the ICC of binary outcomes and its ANOVA estimator).

    Examples
    --------
    >>> copula_icc(0.0)
    0.0
    >>> round(copula_icc(0.3), 4)
    0.1753
    """
    rho = float(rho)
    if not 0.0 <= rho <= RHO_MAX:
        raise DataError(f"`rho` must be in [0, {RHO_MAX}]; got {rho!r}.")
    if rho == 0.0:
        return 0.0
    mean, _ = _moments(share_easy, share_hard, middle)
    if mean <= 0 or mean >= 1:
        return 0.0
    nodes, weights = _OUTER
    edges = np.linspace(-_SPAN, _SPAN, _PANELS + 1)
    half = np.diff(edges) / 2
    a = ((edges[:-1] + edges[1:]) / 2)[:, None] + half[:, None] * nodes[None, :]
    w = half[:, None] * weights[None, :] * np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
    h = _conditional_mean(a.ravel(), rho, share_easy, share_hard, middle)
    w = w.ravel()
    first = float(w @ h)
    second = float(w @ (h * h))
    return max(0.0, second - first * first) / (mean * (1.0 - mean))


def max_icc(
    *, share_easy: float = 0.42, share_hard: float = 0.28, middle: tuple[float, float] = (0.2, 0.8)
) -> float:
    """The largest ICC the simulator reaches for this mixture (at ``rho = RHO_MAX``).

    The theoretical ceiling, all items of a cluster alike, is ``Var(p) / (mu (1 - mu))``.

    >>> round(max_icc(), 3)
    0.713
    """
    return copula_icc(RHO_MAX, share_easy=share_easy, share_hard=share_hard, middle=middle)


def copula_rho(
    icc: float,
    /,
    *,
    share_easy: float = 0.42,
    share_hard: float = 0.28,
    middle: tuple[float, float] = (0.2, 0.8),
) -> float:
    """The copula correlation ``rho`` whose score ICC is ``icc`` (inverse of
    :func:`copula_icc`).

    Raises
    ------
    DataError
        If ``icc`` is negative or above what the mixture can reach.

    Examples
    --------
    >>> rho = copula_rho(0.1)
    >>> round(copula_icc(rho), 10)
    0.1
    """
    target = float(icc)
    mixture = {"share_easy": share_easy, "share_hard": share_hard, "middle": middle}
    if not math.isfinite(target) or target < 0:
        raise DataError(f"`icc` must be a correlation >= 0; got {icc!r}.")
    if target == 0.0:
        return 0.0
    ceiling = copula_icc(RHO_MAX, **mixture)  # type: ignore[arg-type]
    if target > ceiling:
        raise DataError(
            f"`icc`={target:g} is above the largest intra-cluster correlation this mixture "
            f"reaches ({ceiling:.4f}: clusters of identical items); choose a smaller icc."
        )

    def gap(rho: float) -> float:
        return copula_icc(rho, **mixture) - target  # type: ignore[arg-type]

    return brentq(gap, 0.0, RHO_MAX, xtol=1e-12, rtol=1e-12)
