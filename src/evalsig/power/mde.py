"""The minimum detectable effect (MDE) of a paired design at a given number of items."""

from __future__ import annotations

from evalsig.errors import DataError
from evalsig.inference._common import Alternative
from evalsig.power.mcnemar import mcnemar_detectable_effect
from evalsig.power.paired_t import paired_t_detectable_effect

__all__ = ["minimum_detectable_effect"]


def minimum_detectable_effect(
    n: float,
    /,
    *,
    discordance: float | None = None,
    sd: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> float | None:
    """The smallest difference ``n`` items detect with ``power`` at level ``alpha``.

    Parameters
    ----------
    n : float
        Items in the comparison.
    discordance : float, optional
        ``p01 + p10`` for one run scored right/wrong (McNemar's test); or
    sd : float, optional
        the SD of per-item (mean) differences (the paired t-test).

    Returns
    -------
    float or None
        A magnitude in score units (0.0166 = 1.66 points on the percent scale); None when
        no effect is detectable (McNemar with too few items for even a one-way split).

    Notes
    -----
    McNemar: solves ``sqrt(n) delta = z_a sqrt(pi_D) + z_b sqrt(pi_D - delta^2)`` at fixed
    ``pi_D`` (Connor 1987). Paired t: solves the noncentral-t power equation for the mean.

    Examples
    --------
    >>> round(minimum_detectable_effect(4000, discordance=0.14), 4)
    0.0166
    >>> round(minimum_detectable_effect(4000, sd=0.3), 4)
    0.0133
    """
    if (discordance is None) == (sd is None):
        raise DataError(
            "give exactly one of `discordance` (p01 + p10, McNemar's design) or `sd` (SD of "
            "per-item differences, the paired t-test)."
        )
    if sd is not None:
        return paired_t_detectable_effect(n, sd, alpha=alpha, power=power, alternative=alternative)
    return mcnemar_detectable_effect(
        n, float(discordance or 0.0), alpha=alpha, power=power, alternative=alternative
    )
