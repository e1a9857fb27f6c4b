"""The unpaired shortcut many power calculators offer, set beside the paired answer.

Calculators built for two independent groups (Cohen's tables, G*Power, R's ``pwr``) take two
accuracies, give a per-arm N from Cohen's h, and users then multiply by ``(1 - rho)`` to
"account for pairing" or report both arms as the sample size. On a benchmark both models
answer the same questions, and the right number is McNemar's paired N*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative
from evalsig.inference._roots import brentq
from evalsig.power._common import (
    check_alpha,
    check_power,
    check_rates,
    normal_cdf,
    z_alpha,
    z_power,
)
from evalsig.power.mcnemar import mcnemar_sample_size
from evalsig.power.results import ratio
from evalsig.result import Result

__all__ = ["UnpairedShortcut", "cohens_h", "unpaired_shortcut_sample_size"]


def cohens_h(p_baseline: float, p_candidate: float) -> float:
    """``h = 2 asin(sqrt(p_candidate)) - 2 asin(sqrt(p_baseline))`` (Cohen 1988, ch. 6).

    >>> round(cohens_h(0.70, 0.75), 10)
    0.1120819295
    """
    for name, p in (("p_baseline", p_baseline), ("p_candidate", p_candidate)):
        if not 0.0 <= float(p) <= 1.0:
            raise DataError(f"`{name}` must be an accuracy in [0, 1]; got {p!r}.")
    return 2 * math.asin(math.sqrt(p_candidate)) - 2 * math.asin(math.sqrt(p_baseline))


@dataclass(frozen=True, slots=True, kw_only=True)
class UnpairedShortcut(Result):
    """The unpaired calculator's numbers and how far they are from the paired N*."""

    kind: ClassVar[str] = "unpaired-shortcut"

    p_baseline: float
    p_candidate: float
    h: float
    per_arm: float
    """Cohen's per-arm N: ``2 (z_a + z_b)^2 / h^2``."""
    rho: float | None
    """Correlation of the two models' right/wrong outcomes (phi), when known."""
    shortcut: float
    """What the calculator user reports: both arms, ``2 per_arm``, times ``(1 - rho)``."""
    paired: float | None
    """McNemar's N* from the discordance rates, when they are given."""
    alpha: float
    power: float
    alternative: Alternative

    @property
    def ratio(self) -> float | None:
        """``shortcut / paired``: how many times too many (or few) items it asks for."""
        return None if self.paired is None else ratio(self.shortcut, self.paired)

    @property
    def per_arm_ratio(self) -> float | None:
        """``per_arm (1 - rho) / paired`` (or ``per_arm / paired`` without rho)."""
        if self.paired is None:
            return None
        return ratio(self.per_arm * (1.0 - (self.rho or 0.0)), self.paired)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        why = "no difference between the accuracies"
        return {
            "kind": "unpaired-shortcut",
            "schema_version": SCHEMA_VERSION,
            "p_baseline": self.p_baseline,
            "p_candidate": self.p_candidate,
            "h": self.h,
            "per_arm": json_safe(self.per_arm, "per_arm", nulls, why),
            "rho": self.rho,
            "shortcut": json_safe(self.shortcut, "shortcut", nulls, why),
            "paired": None if self.paired is None else json_safe(self.paired, "paired", nulls, why),
            "ratio": None if self.ratio is None else json_safe(self.ratio, "ratio", nulls, why),
            "per_arm_ratio": (
                None
                if self.per_arm_ratio is None
                else json_safe(self.per_arm_ratio, "per_arm_ratio", nulls, why)
            ),
            "alpha": self.alpha,
            "power": self.power,
            "alternative": self.alternative,
            "nulls": nulls,
        }


def unpaired_shortcut_sample_size(
    p_baseline: float,
    p_candidate: float,
    /,
    *,
    p01: float | None = None,
    p10: float | None = None,
    rho: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> UnpairedShortcut:
    """What an unpaired calculator says, and its error against McNemar's paired N*.

    Parameters
    ----------
    p_baseline, p_candidate : float
        The two accuracies.
    p01, p10 : float, optional
        Discordance rates; give them to compare with the paired N* (and to derive ``rho``).
    rho : float, optional
        Correlation of the models' outcomes for the ``(1 - rho)`` correction; by default
        the phi coefficient implied by the accuracies and ``p10``.

    Notes
    -----
    Per arm ``n_h ~ 2 (z_a + z_b)^2 / h^2`` (solved with both tails, as statsmodels'
    ``NormalIndPower`` with ratio 1). The shortcut is ``2 n_h (1 - rho)``: both arms,
    "corrected" for pairing. Since ``h ~ delta / sqrt(pq)`` and ``Var(d) ~ 2pq(1 - rho)``,
    the per-arm ``n_h (1 - rho)`` matches N* to first order, so the shortcut, which counts
    two arms of items that are in fact the same items, asks for about twice the paired N*
    in close comparisons; without ``(1 - rho)`` it is off by ``2 / (1 - rho)``.

    Examples
    --------
    >>> s = unpaired_shortcut_sample_size(0.57, 0.58, p01=0.075, p10=0.065)
    >>> round(s.ratio, 2), round(s.per_arm / s.paired, 2)
    (2.0, 3.49)
    """
    h = cohens_h(p_baseline, p_candidate)
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    per_arm = _per_arm(abs(h), alpha, power, alternative) if h else math.inf
    paired = None
    if (p01 is None) != (p10 is None):
        raise DataError("give both `p01` and `p10` (or neither) to compare with the paired N*.")
    if p01 is not None and p10 is not None:
        a, b = check_rates(p01, p10)
        implied = b - a + float(p_candidate) - float(p_baseline)
        if abs(implied) > 1e-6:
            raise DataError(
                f"`p01` - `p10` = {a - b:.6g} but the accuracies differ by "
                f"{float(p_candidate) - float(p_baseline):.6g}; they must agree."
            )
        paired = mcnemar_sample_size(a, b, alpha=alpha, power=power, alternative=alternative).n
        if rho is None:
            rho = _phi(float(p_baseline), float(p_candidate), b)
    if rho is not None and not -1.0 <= float(rho) <= 1.0:
        raise DataError(f"`rho` must be a correlation in [-1, 1]; got {rho!r}.")
    factor = 1.0 - float(rho) if rho is not None else 1.0
    return UnpairedShortcut(
        p_baseline=float(p_baseline),
        p_candidate=float(p_candidate),
        h=h,
        per_arm=per_arm,
        rho=None if rho is None else float(rho),
        shortcut=2 * per_arm * factor,
        paired=paired,
        alpha=alpha,
        power=power,
        alternative=alternative,
    )


def _per_arm(h: float, alpha: float, power: float, alternative: Alternative) -> float:
    """Solve ``Phi(h sqrt(n/2) - z_a) [+ Phi(-h sqrt(n/2) - z_a)] = power`` for ``n``.

    The far tail counts for two-sided tests, as in statsmodels' ``NormalIndPower``; the
    closed form ``2 (z_a + z_b)^2 / h^2`` ignores it and is the starting bracket.
    """
    za = z_alpha(alpha, alternative)
    start = 2 * (za + z_power(power)) ** 2 / h**2
    if alternative != "two-sided":
        return start

    def gap(n: float) -> float:
        shift = h * math.sqrt(n / 2)
        return normal_cdf(shift - za) + normal_cdf(-shift - za) - power

    if gap(start / 2) >= 0:  # only when power is near alpha: the far tail carries it
        return start / 2
    return brentq(gap, start / 2, start, xtol=1e-12, rtol=1e-14)


def _phi(p_baseline: float, p_candidate: float, p10: float) -> float:
    """Correlation of two right/wrong outcomes: ``(P(both right) - p_b p_c) / sd_b sd_c``."""
    both = p_baseline - p10
    spread = math.sqrt(p_baseline * (1 - p_baseline) * p_candidate * (1 - p_candidate))
    phi = (both - p_baseline * p_candidate) / spread if spread else 0.0
    return min(1.0, max(-1.0, phi))  # rounding puts one-way disagreement just past +-1
