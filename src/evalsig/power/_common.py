"""Validation and normal quantiles shared by the power calculations."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from evalsig.data.paired import PairedScores
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative

__all__ = [
    "check_alpha",
    "check_effect",
    "check_n",
    "check_power",
    "check_rates",
    "check_runs",
    "directed",
    "discordance_rates",
    "normal_cdf",
    "paired_provenance",
    "sided_alpha",
    "z_alpha",
    "z_power",
    "z_upper",
]


def check_alpha(alpha: object) -> float:
    return _strictly_between(alpha, "alpha", 0.5, "Use e.g. 0.05 for a 5% false-positive rate.")


def check_power(power: object) -> float:
    return _strictly_between(
        power, "power", 1.0, "Use e.g. 0.8 for an 80% chance of detecting the effect."
    )


def _strictly_between(given: object, name: str, high: float, hint: str) -> float:
    """``given`` as a float in the open interval (0, ``high``), else a DataError naming
    ``name`` with the ``hint`` on what to pass."""
    value = _number(given)
    if not 0.0 < value < high:
        raise DataError(
            f"`{name}` must be a number strictly between 0 and {high:g}; got {given!r}. {hint}"
        )
    return value


def check_n(n: object, *, name: str = "n", minimum: float = 1.0) -> float:
    value = _number(n)
    if not math.isfinite(value) or value < minimum:
        raise DataError(
            f"`{name}` must be a finite number of at least {minimum:g}; got {n!r}. "
            "Pass the number of items."
        )
    return value


def check_effect(effect: object, *, name: str = "effect") -> float:
    """A finite difference on the score scale (0.01 is 1 point of accuracy)."""
    value = _number(effect)
    if not math.isfinite(value):
        raise DataError(
            f"`{name}` must be a finite difference on the score scale (0.01 is 1 point); "
            f"got {effect!r}."
        )
    return value


def check_runs(runs: object, *, name: str = "runs") -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise DataError(f"`{name}` must be a positive integer; got {runs!r}.")
    return runs


def check_rates(p01: object, p10: object) -> tuple[float, float]:
    """Discordance rates: each in [0, 1], their sum at most 1."""
    a, b = _number(p01), _number(p10)
    for name, given, value in (("p01", p01, a), ("p10", p10, b)):
        if not 0.0 <= value <= 1.0:
            raise DataError(
                f"`{name}` must be a probability in [0, 1]; got {given!r}. p01 = P(baseline "
                "wrong, candidate right), p10 = P(baseline right, candidate wrong)."
            )
    if a + b > 1.0 + 1e-12:
        raise DataError(
            f"`p01` + `p10` = {a + b:g} exceeds 1; they are the shares of items on which the "
            "models disagree in each direction."
        )
    return a, b


def directed(effect: float, alternative: Alternative) -> float:
    """The effect in the tested direction: ``effect`` for "greater", ``-effect`` for "less",
    ``|effect|`` two-sided. Only a positive directed effect can be detected."""
    if alternative == "greater":
        return effect
    if alternative == "less":
        return -effect
    return abs(effect)


def discordance_rates(d: np.ndarray) -> tuple[float, float]:
    """``p01, p10`` of one run of right/wrong scores from the per-item differences ``d``:
    the shares of items only the candidate gets right (``d > 0``) and only the baseline
    gets right (``d < 0``)."""
    n = len(d)
    return int(np.count_nonzero(d > 0)) / n, int(np.count_nonzero(d < 0)) / n


def sided_alpha(alpha: float, alternative: Alternative) -> float:
    """The tail probability of one rejection region: alpha/2 two-sided, alpha one-sided."""
    return alpha / 2 if alternative == "two-sided" else alpha


def z_alpha(alpha: float, alternative: Alternative) -> float:
    """``z(1 - alpha/2)`` two-sided, ``z(1 - alpha)`` one-sided.

    ``-ndtri(tail) + 0.0``: the operations of ``scipy.stats.norm.isf`` (0.0 is its
    ``loc``), so the same number to the last bit, without importing scipy.stats.
    """
    return z_upper(sided_alpha(alpha, check_alternative(alternative)))


def z_upper(tail: float) -> float:
    """The normal quantile with ``tail`` above it: ``-ndtri(tail) + 0.0``, the operations of
    ``scipy.stats.norm.isf`` (0.0 is its ``loc``), without importing scipy.stats."""
    return float(-special.ndtri(tail) + 0.0)


def normal_cdf(x: float) -> float:
    """``Phi(x)``: ``ndtr(x)``, what ``scipy.stats.norm.cdf`` evaluates for a finite ``x``."""
    return float(special.ndtr(x))


def z_power(power: float) -> float:
    """``z(power)`` = ``z(1 - beta)``: ``ndtri(power) + 0.0``, as ``scipy.stats.norm.ppf``."""
    return float(special.ndtri(power) + 0.0)


def _number(value: object) -> float:
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def paired_provenance(paired: PairedScores) -> Provenance:
    """The provenance of a result estimated from a (pilot) comparison: both sides' origins."""
    return provenance({"baseline": paired.baseline.origin, "candidate": paired.candidate.origin})
