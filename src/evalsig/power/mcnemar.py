"""Power and sample size of McNemar's paired test for two models scored right/wrong.

Convention: ``p01`` = P(baseline wrong, candidate right), ``p10`` = P(baseline right,
candidate wrong); the effect is ``delta = p01 - p10`` (candidate minus baseline accuracy)
and the discordance is ``pi_D = p01 + p10``. ``alternative="greater"`` tests whether the
candidate is better.
"""

from __future__ import annotations

import math

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative
from evalsig.inference._mcnemar import CONTINUITY, CORRECTED_BELOW
from evalsig.inference._roots import brentq
from evalsig.power._common import (
    check_alpha,
    check_n,
    check_power,
    check_rates,
    directed,
    normal_cdf,
    sided_alpha,
    z_alpha,
    z_power,
    z_upper,
)
from evalsig.power.results import Method, SampleSize

__all__ = ["mcnemar_detectable_effect", "mcnemar_power", "mcnemar_sample_size"]

_EXACT_LIMIT = 50_000_000


def mcnemar_sample_size(
    p01: float,
    p10: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    method: Method = "normal",
) -> SampleSize:
    """Items needed for McNemar's test to detect ``delta = p01 - p10`` with the given power.

    Parameters
    ----------
    p01, p10 : float
        Discordance rates: P(baseline wrong, candidate right), P(baseline right, candidate
        wrong). Estimate them from a pilot comparison or take them from a similar pair.
    alpha : float, default 0.05
        False-positive rate of the test.
    power : float, default 0.8
        Chance of rejecting when the rates are true (1 - beta).
    alternative : {"two-sided", "greater", "less"}
        "greater": the test will ask whether the candidate is better.
    method : {"normal", "exact", "score"}
        "normal": Connor's closed form. "exact": the smallest N at which the exact
        conditional (binomial) test on the discordant count reaches the power, averaging
        over the random number of discordant items; use it when N* is small. "score": the
        same for the test :func:`evalsig.compare` runs by default (McNemar's score test,
        with continuity correction 1/2 below 25 discordant items).

    Returns
    -------
    SampleSize
        ``n`` (unrounded for "normal"), ``n_items`` (rounded up) and the power there.

    Notes
    -----
    Connor (1987): ``N* = [z_a sqrt(pi_D) + z_b sqrt(pi_D - delta^2)]^2 / delta^2`` with
    ``z_a = z(1 - alpha/2)`` (two-sided) or ``z(1 - alpha)``, ``z_b = z(power)``. The exact
    power is ``sum_D Bin(D; N, pi_D) P(N01 in R_D | D)``, where ``N01 | D ~ Bin(D, p01/pi_D)``
    and ``R_D`` is the rejection region of the exact binomial test at level alpha
    (two-sided: twice the smaller tail), or for "score" that of
    ``z = (|N01 - N10| - c)_+ / sqrt(D) > z_a`` (``c = 1/2`` below 25 discordant items, else
    0; one-sided, the signed difference less ``c`` in the tested direction). No effect in the
    tested direction gives ``n = inf``.

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43(1), 207-211.

    Examples
    --------
    >>> round(mcnemar_sample_size(0.45, 0.05).n, 6)
    22.011324
    >>> mcnemar_sample_size(0.45, 0.05, method="exact").n_items
    25
    """
    a, b = check_rates(p01, p10)
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    method = _check_method(method)
    delta, disc = a - b, a + b
    inputs = {"p01": a, "p10": b, "delta": delta, "discordance": disc}
    effect = directed(delta, alternative)

    def result(n: float, n_items: int | None, achieved: float | None, note: str = "") -> SampleSize:
        return SampleSize(
            n=n,
            n_items=n_items,
            achieved_power=achieved,
            design="mcnemar",
            method=method,
            alpha=alpha,
            power=power,
            alternative=alternative,
            effect=delta,
            inputs=inputs,
            notes=(note,) if note else (),
        )

    if effect <= 0:
        note = (
            "no difference between the models (p01 = p10): no number of items detects it"
            if delta == 0
            else f"the effect {delta:+.4g} points the other way from alternative={alternative!r}"
        )
        return result(math.inf, None, None, note)
    za, zb = z_alpha(alpha, alternative), z_power(power)
    n_normal = (za * math.sqrt(disc) + zb * math.sqrt(disc - delta**2)) ** 2 / delta**2
    if method == "normal":
        n_items = math.ceil(n_normal - 1e-9)
        achieved = _normal_power(n_items, a, b, alpha, alternative)
        return result(n_normal, n_items, achieved)
    n_exact = _exact_sample_size(n_normal, a, b, alpha, power, alternative, method)
    achieved = _exact_power(n_exact, a, b, alpha, alternative, method)
    return result(float(n_exact), n_exact, achieved)


def mcnemar_power(
    n: float,
    p01: float,
    p10: float,
    /,
    *,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
    method: Method = "normal",
) -> float:
    """Power of McNemar's test on ``n`` items when the discordance rates are ``p01, p10``.

    Notes
    -----
    Normal approximation (Connor 1987; as R's ``MESS::power_mcnemar_test``):
    ``Phi[(sqrt(n) |delta| - z_a sqrt(pi_D)) / sqrt(pi_D - delta^2)]``, the far tail
    ignored; with no difference (``p01 = p10``) the power is the test's size, ``alpha``
    (both tails; the exact methods give their own, at most alpha). ``method="exact"`` sums
    the exact conditional test's power over the binomial number of discordant items (``n``
    rounded down to an integer); ``method="score"`` does the same for compare's default
    test (see :func:`mcnemar_sample_size`).

    Examples
    --------
    >>> round(mcnemar_power(22, 0.45, 0.05), 6)
    0.799768
    """
    a, b = check_rates(p01, p10)
    size = check_n(n)
    alpha = check_alpha(alpha)
    alternative = check_alternative(alternative)
    method = _check_method(method)
    if method != "normal":
        return _exact_power(math.floor(size), a, b, alpha, alternative, method)
    return _normal_power(size, a, b, alpha, alternative)


def mcnemar_detectable_effect(
    n: float,
    discordance: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> float | None:
    """The smallest ``|p01 - p10|`` McNemar's test detects on ``n`` items at this discordance.

    Solves Connor's equation ``sqrt(n) delta = z_a sqrt(pi_D) + z_b sqrt(pi_D - delta^2)``
    for ``delta`` in ``(0, pi_D]`` with the total discordance ``pi_D`` held fixed. Returns
    None when even ``delta = pi_D`` (every disagreement one way) is not detectable.

    Examples
    --------
    >>> round(mcnemar_detectable_effect(4000, 0.14), 5)
    0.01657
    """
    size = check_n(n)
    disc = float(discordance)
    if not 0.0 < disc <= 1.0:
        raise DataError(
            f"`discordance` must be in (0, 1]; got {discordance!r}. It is p01 + p10, the "
            "share of items on which the two models disagree."
        )
    alpha, power = check_alpha(alpha), check_power(power)
    za, zb = z_alpha(alpha, check_alternative(alternative)), z_power(power)

    def gap(delta: float) -> float:
        return math.sqrt(size) * delta - za * math.sqrt(disc) - zb * math.sqrt(disc - delta**2)

    if gap(disc) < 0:
        return None
    return brentq(gap, 0.0, disc, xtol=1e-14, rtol=1e-12)


def _check_method(method: object) -> Method:
    if method not in ("normal", "exact", "score"):
        raise DataError(
            f"`method` must be 'normal' (Connor's formula), 'exact' (binomial test on the "
            f"discordant count) or 'score' (compare's score test); got {method!r}."
        )
    return method


def _normal_power(n: float, p01: float, p10: float, alpha: float, alt: Alternative) -> float:
    delta, disc = p01 - p10, p01 + p10
    effect = directed(delta, alt)
    if disc == 0.0:
        return 0.0
    if delta == 0.0:  # the size: both tails, equal here (elsewhere the far one is negligible)
        return alpha
    numerator = math.sqrt(n) * effect - z_alpha(alpha, alt) * math.sqrt(disc)
    spread = math.sqrt(max(disc - delta**2, 0.0))
    if spread == 0.0:
        return 1.0 if numerator > 0 else 0.0
    return normal_cdf(numerator / spread)


def _exact_power(
    n: int, p01: float, p10: float, alpha: float, alt: Alternative, method: Method = "exact"
) -> float:
    """``sum_D Bin(D; n, pi_D) P(reject | D)``, over the D that carry the probability, for
    the exact binomial test or (``method="score"``) compare's score test."""
    from scipy import stats  # 0.4 s to import: only the exact power needs binom's arrays

    if n > _EXACT_LIMIT:
        raise DataError(
            f"the exact McNemar power is limited to {_EXACT_LIMIT:,} items; got n = {n:,}. "
            "Use method='normal', which is accurate at this size."
        )
    disc = p01 + p10
    if n < 1 or disc == 0.0:
        return 0.0
    spread = 12 * math.sqrt(n * disc * (1 - disc)) + 12
    lo = max(0, math.floor(n * disc - spread))
    hi = min(n, math.ceil(n * disc + spread))
    d = np.arange(max(lo, 1), hi + 1)
    weight = stats.binom.pmf(d, n, disc)
    share = p01 / disc  # P(candidate right | discordant)
    tail = sided_alpha(alpha, alt)
    if method == "score":
        k = _score_critical(d, tail)
    else:
        # Smallest k with P(X >= k | D, 1/2) <= tail; by symmetry the lower region is X <= D - k.
        k = stats.binom.isf(tail, d, 0.5) + 1
        k = np.where(stats.binom.sf(k - 2, d, 0.5) <= tail, k - 1, k)  # guard rounding in isf
        k = np.where(stats.binom.sf(k - 1, d, 0.5) > tail, k + 1, k)
    upper = stats.binom.sf(k - 1, d, share)
    lower = stats.binom.cdf(d - k, d, share)
    if alt == "greater":
        reject = upper
    elif alt == "less":
        reject = lower
    else:
        reject = upper + lower
    return float(min(1.0, np.dot(weight, reject)))


def _score_critical(d: np.ndarray, tail: float) -> np.ndarray:
    """Smallest ``k`` with ``(2k - D - c) / sqrt(D) > z`` (``N01 >= k`` rejects upwards;
    by symmetry ``N01 <= D - k`` downwards), ``c = 1/2`` below 25 discordant items."""
    z = z_upper(tail)
    c = np.where(d < CORRECTED_BELOW, CONTINUITY, 0.0)
    k = np.floor((d + c + z * np.sqrt(d)) / 2) + 1
    k = np.where((2 * (k - 1) - d - c) / np.sqrt(d) > z, k - 1, k)  # guard rounding
    critical: np.ndarray = np.where((2 * k - d - c) / np.sqrt(d) > z, k, k + 1)
    return critical


def _exact_sample_size(
    start: float,
    p01: float,
    p10: float,
    alpha: float,
    power: float,
    alt: Alternative,
    method: Method = "exact",
) -> int:
    """Smallest n whose exact power reaches ``power``: bracket, bisect, then step down."""

    def enough(n: int) -> bool:
        return _exact_power(n, p01, p10, alpha, alt, method) >= power

    hi = max(2, math.ceil(start))
    while not enough(hi):
        hi *= 2
        if hi > _EXACT_LIMIT:
            raise DataError(
                "the exact McNemar sample size exceeds "
                f"{_EXACT_LIMIT:,} items; use method='normal'."
            )
    lo = 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid
    # The exact power saw-tooths slightly in n: take any smaller n just below that also suffices.
    for candidate in range(hi - 1, max(0, hi - 20), -1):
        if enough(candidate):
            hi = candidate
    return hi
