"""Binomial tails and point masses, the numbers ``scipy.stats.binom`` gives, without it.

Importing ``scipy.stats`` costs about 0.4 s, most of a command's start-up. Its ``binom``
evaluates Boost's binomial functions, which scipy (1.15 and later) keeps as ufuncs in
``scipy.special._ufuncs``; this module calls those same ufuncs with the same handling of
the support's edges, so the values are the same to the last bit (the test suite checks
them against ``scipy.stats.binom`` on a grid). With a scipy that lacks them it asks
``scipy.stats.binom`` itself.
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["binomial_cdf", "binomial_pmf", "binomial_sf"]


def binomial_cdf(k: int, n: int, p: float) -> float:
    r""":math:`P(X \le k)` for :math:`X \sim \mathrm{Binomial}(n, p)`: ``binom.cdf(k, n, p)``.

    0 below the support (:math:`k < 0`), 1 at and above its top (:math:`k \ge n`).
    """
    return _tail("cdf", k, n, p, below=0.0)


def binomial_sf(k: int, n: int, p: float) -> float:
    r""":math:`P(X > k)` for :math:`X \sim \mathrm{Binomial}(n, p)`: ``binom.sf(k, n, p)``.

    1 below the support (:math:`k < 0`), 0 at and above its top (:math:`k \ge n`).
    """
    return _tail("sf", k, n, p, below=1.0)


def binomial_pmf(k: int, n: int, p: float) -> float:
    r""":math:`P(X = k) = \binom{n}{k} p^k (1 - p)^{n - k}`: ``binom.pmf(k, n, p)``.

    0 outside :math:`0 \le k \le n`.
    """
    if k < 0 or k > n:
        return 0.0
    return _clipped(_boost()["pmf"](float(k), float(n), p))


def _tail(kind: str, k: int, n: int, p: float, *, below: float) -> float:
    r"""``binom.<kind>(k, n, p)`` of a tail that is ``below`` under the support (:math:`k < 0`)
    and ``1 - below`` at and above its top (:math:`k \ge n`)."""
    if k < 0:
        return below
    if k >= n:
        return 1.0 - below
    return _clipped(_boost()[kind](float(k), float(n), p))


def _clipped(value: Any) -> float:
    """As ``scipy.stats`` returns a probability: clipped to [0, 1]."""
    return min(max(float(value), 0.0), 1.0)


UFUNCS = {"cdf": "_binom_cdf", "sf": "_binom_sf", "pmf": "_binom_pmf"}
"""The names in ``scipy.special._ufuncs`` of what ``scipy.stats.binom`` evaluates."""


@cache
def _boost() -> dict[str, Any]:
    """The ufuncs ``scipy.stats.binom`` evaluates in its support: from ``scipy.special``
    when this scipy has them there, else ``binom``'s own methods (which import
    ``scipy.stats``)."""
    from scipy.special import _ufuncs

    found = {kind: getattr(_ufuncs, name, None) for kind, name in UFUNCS.items()}
    if all(found.values()):
        return found
    from scipy import stats  # an older scipy: its binom calls them elsewhere

    return {kind: getattr(stats.binom, kind) for kind in UFUNCS}
