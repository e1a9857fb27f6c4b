"""Brent's root finder, step for step as ``scipy.optimize.brentq``: on one bracket, and on
many brackets at once.

Importing ``scipy.optimize`` costs 0.1-0.2 s (it loads scipy.linalg and scipy.sparse), most of
what a binary ``evalsig compare`` spends outside reading; one scalar root finder does not
need it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Roots", "brentq", "brentq_rows"]

RTOL = 4.0 * float(np.finfo(float).eps)
"""scipy's default (and smallest allowed) relative tolerance of ``brentq``."""

MAXITER = 100
"""scipy's default iteration limit of ``brentq``."""

RowFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``f(rows, x)``: the functions of the rows ``rows`` (indices), each at its own ``x``."""


@dataclass(frozen=True, slots=True)
class Roots:
    """One root per bracket, whether it converged and the iterations (scipy's count)."""

    x: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray


@dataclass(slots=True)
class _State:
    """Brent's variables for the rows still iterating (scipy's names)."""

    rows: np.ndarray
    xpre: np.ndarray
    xcur: np.ndarray
    xblk: np.ndarray
    fpre: np.ndarray
    fcur: np.ndarray
    fblk: np.ndarray
    spre: np.ndarray
    scur: np.ndarray
    xtol: np.ndarray

    def keep(self, mask: np.ndarray) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name)[mask])


def brentq(
    f: Callable[[float], float],
    a: float,
    b: float,
    *,
    xtol: float = 2e-12,
    rtol: float = RTOL,
    maxiter: int = MAXITER,
) -> float:
    """The root of ``f`` in ``[a, b]``, where ``f`` changes sign: the iterates of scipy's
    ``brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=maxiter)`` (Brent 1973, ch. 4), so the
    same number to the last bit. Stops when ``|xblk - xcur| / 2 < (xtol + rtol |xcur|) / 2``
    or ``f = 0``; raises ``ValueError`` without a sign change and ``RuntimeError`` when
    ``maxiter`` steps do not converge, as scipy does.
    """
    xpre, xcur = float(a), float(b)
    fpre, fcur = f(xpre), f(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError("f(a) and f(b) must have different signs")
    xblk = fblk = spre = scur = 0.0
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2.0
        sbis = (xblk - xcur) / 2.0
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        stry = _interpolated(xpre, xcur, xblk, fpre, fcur, fblk)
        if (
            abs(spre) > delta
            and abs(fcur) < abs(fpre)
            and 2.0 * abs(stry) < min(abs(spre), 3.0 * abs(sbis) - delta)
        ):
            spre, scur = scur, stry
        else:
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = f(xcur)
    raise RuntimeError(f"Brent's method did not converge in {maxiter} iterations")


def _interpolated(
    xpre: float, xcur: float, xblk: float, fpre: float, fcur: float, fblk: float
) -> float:
    """The secant step (two points) or inverse quadratic interpolation step (three); NaN
    where a difference vanishes, which the caller reads as "bisect"."""
    try:
        if xpre == xblk:
            return -fcur * (xcur - xpre) / (fcur - fpre)
        dpre = (fpre - fcur) / (xpre - xcur)
        dblk = (fblk - fcur) / (xblk - xcur)
        return -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
    except ZeroDivisionError:
        return math.nan


def brentq_rows(
    f: RowFunction, a: np.ndarray, b: np.ndarray, *, xtol: np.ndarray, maxiter: int
) -> Roots:
    """Roots of ``f(i, .)`` in ``[a_i, b_i]`` (``f`` changes sign there) for every row i.

    Each row follows the iterates of scipy's ``brentq(f_i, a_i, b_i, xtol=xtol_i,
    rtol=4 eps, maxiter=maxiter)`` (Brent 1973, ch. 4: inverse quadratic interpolation
    and secant steps, a bisection whenever a step is not short enough), with the
    functions evaluated for all unfinished rows in one call. A row stops when
    ``|xblk - xcur| / 2 < (xtol + rtol |xcur|) / 2`` or ``f = 0``.

    References
    ----------
    Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*. Prentice-Hall.
    """
    n = a.size
    everyone = np.arange(n)
    fa, fb = f(everyone, a), f(everyone, b)
    x, iterations = b.astype(np.float64), np.zeros(n, dtype=np.int64)
    x[fa == 0] = a[fa == 0]
    converged = (fa == 0) | (fb == 0)
    unbracketed = ~converged & (np.signbit(fa) == np.signbit(fb))
    x[unbracketed] = np.nan  # scipy raises ValueError: f(a) and f(b) must differ in sign
    s = _State(
        *(everyone, a, b, np.zeros(n), fa, fb, np.zeros(n), np.zeros(n), np.zeros(n)),
        xtol=np.broadcast_to(xtol, (n,)).astype(np.float64),
    )
    s.keep(~converged & ~unbracketed)
    for _ in range(maxiter):
        if s.rows.size == 0:
            break
        iterations[s.rows] += 1
        delta, sbis = _bracket(s)
        done = (s.fcur == 0) | (np.abs(sbis) < delta)
        x[s.rows[done]], converged[s.rows[done]] = s.xcur[done], True
        s.keep(~done)
        delta, sbis = delta[~done], sbis[~done]
        _step(s, delta, sbis)
        s.fcur = f(s.rows, s.xcur)
    x[s.rows] = s.xcur
    return Roots(x=x, converged=converged, iterations=iterations)


def _bracket(s: _State) -> tuple[np.ndarray, np.ndarray]:
    """Keep the root between ``xcur`` and ``xblk`` with ``|f(xcur)|`` the smaller."""
    flip = (s.fpre != 0) & (s.fcur != 0) & (np.signbit(s.fpre) != np.signbit(s.fcur))
    s.xblk, s.fblk = np.where(flip, s.xpre, s.xblk), np.where(flip, s.fpre, s.fblk)
    s.spre = np.where(flip, s.xcur - s.xpre, s.spre)
    s.scur = np.where(flip, s.xcur - s.xpre, s.scur)
    swap = np.abs(s.fblk) < np.abs(s.fcur)
    s.xpre, s.fpre = np.where(swap, s.xcur, s.xpre), np.where(swap, s.fcur, s.fpre)
    s.xcur, s.fcur = np.where(swap, s.xblk, s.xcur), np.where(swap, s.fblk, s.fcur)
    s.xblk, s.fblk = np.where(swap, s.xpre, s.xblk), np.where(swap, s.fpre, s.fblk)
    return (s.xtol + RTOL * np.abs(s.xcur)) / 2.0, (s.xblk - s.xcur) / 2.0


def _step(s: _State, delta: np.ndarray, sbis: np.ndarray) -> None:
    """An interpolation step where it is short enough, else a bisection; then move xcur."""
    with np.errstate(divide="ignore", invalid="ignore"):
        secant = -s.fcur * (s.xcur - s.xpre) / (s.fcur - s.fpre)
        dpre = (s.fpre - s.fcur) / (s.xpre - s.xcur)
        dblk = (s.fblk - s.fcur) / (s.xblk - s.xcur)
        quadratic = -s.fcur * (s.fblk * dblk - s.fpre * dpre) / (dblk * dpre * (s.fblk - s.fpre))
    stry = np.where(s.xpre == s.xblk, secant, quadratic)
    tried = (np.abs(s.spre) > delta) & (np.abs(s.fcur) < np.abs(s.fpre))
    short = tried & (2.0 * np.abs(stry) < np.minimum(np.abs(s.spre), 3.0 * np.abs(sbis) - delta))
    s.spre = np.where(short, s.scur, sbis)
    s.scur = np.where(short, stry, sbis)
    s.xpre, s.fpre = s.xcur, s.fcur
    s.xcur = s.xcur + np.where(np.abs(s.scur) > delta, s.scur, np.where(sbis > 0, delta, -delta))
