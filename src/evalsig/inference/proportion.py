r"""Confidence intervals for a binomial proportion: ``k`` successes (items right) of ``n``.

The methods, each a function of ``k``, ``n`` and the confidence level (``z`` is the
standard-normal quantile :math:`\Phi^{-1}(1 - \alpha/2)`, :math:`\hat p = k / n`,
:math:`B(q; a, b)` the ``q`` quantile of the Beta(a, b) distribution):

* ``"wilson"``: the score interval, the values of ``p`` the score test does not reject,
  :math:`\frac{k + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{n \hat p (1 - \hat p) + z^2/4}`
  (Wilson 1927);
* ``"wilson-cc"``: Wilson with continuity correction (Newcombe 1998, method 4);
* ``"clopper-pearson"``: the exact interval, :math:`[B(\alpha/2; k, n - k + 1),
  B(1 - \alpha/2; k + 1, n - k)]`, which covers at least :math:`1 - \alpha` at every
  ``p`` (Clopper & Pearson 1934);
* ``"jeffreys"``: :math:`[B(\alpha/2; k + \tfrac12, n - k + \tfrac12), B(1 - \alpha/2;
  \cdot)]`, the equal-tailed interval of the Jeffreys posterior (Brown, Cai & DasGupta
  2001);
* ``"agresti-coull"``: the Wald interval around :math:`\tilde p = (k + z^2/2) / (n + z^2)`
  with :math:`\tilde n = n + z^2` (Agresti & Coull 1998);
* ``"bayes"``: the credible interval of the posterior Beta(k + a, n - k + b) under the
  prior Beta(a, b), Beta(1, 1) (uniform) by default (Bowyer et al. 2025): equal-tailed,
  except where the posterior density is monotone (see below);
* ``"wald"``: :math:`\hat p \pm z \sqrt{\hat p (1 - \hat p) / n}`, the interval behind
  the "stderr" most evaluation harnesses print. Shown for comparison only: it covers far
  less than its level at small ``n`` or near 0 and 1 (18% at ``n = 10``, ``p = 0.02``),
  and is the single point 0 when ``k = 0``.

Bounds at the edges. With ``k = 0`` the lower bound is 0 and with ``k = n`` the upper bound
is 1, exactly, for every frequentist method (never a rounding residue below 0 or above 1);
the other bound keeps its two-sided definition, :math:`\alpha/2` in its tail, as in scipy
and statsmodels (so Clopper-Pearson keeps its guaranteed coverage). Brown, Cai & DasGupta
set Jeffreys' lower bound to 0 at ``k = 0`` for the same reason (its equal-tailed bound
would exclude the most likely values). The Bayesian interval is a posterior statement:
where the posterior density falls from 0 (``k = 0`` with ``a <= 1``; mirrored, ``k = n``
with ``b <= 1``), the interval holding :math:`1 - \alpha` of the posterior with the most
likely values is one-sided, :math:`[0, B(1 - \alpha; a, n + b)]` (the highest-density
interval), and that is the one given; a prior with ``a > 1`` rules out accuracies near 0
and keeps the equal-tailed interval there. Wilson, Agresti-Coull and Wald bounds are clipped
to [0, 1], as statsmodels clips them.

References
----------
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
*JASA* 22(158), 209-212.
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
illustrated in the case of the binomial. *Biometrika* 26(4), 404-413.
Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion:
comparison of seven methods. *Statistics in Medicine* 17(8), 857-872.
Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
estimation of binomial proportions. *The American Statistician* 52(2), 119-126.
Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
proportion. *Statistical Science* 16(2), 101-133.
Bowyer, S., Aitchison, L. & Ivanova, D. R. (2025). Position: Don't use the CLT in LLM evals
with fewer than a few hundred datapoints. *ICML 2025*.
"""

from __future__ import annotations

import math
from typing import Literal, cast, get_args

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.inference._common import ConfidenceInterval, check_choice, check_confidence_level

__all__ = [
    "UNIFORM_PRIOR",
    "ProportionMethod",
    "check_prior",
    "proportion_bounds",
    "proportion_interval",
]

ProportionMethod = Literal[
    "wilson", "wilson-cc", "clopper-pearson", "jeffreys", "agresti-coull", "bayes", "wald"
]
"""The interval methods for a proportion (see the module's description)."""

UNIFORM_PRIOR = (1.0, 1.0)
"""Beta(1, 1), the uniform prior of ``method="bayes"`` when none is given."""


def proportion_interval(
    successes: int,
    n: int,
    /,
    *,
    method: ProportionMethod = "wilson",
    confidence_level: float = 0.95,
    prior: tuple[float, float] | None = None,
) -> ConfidenceInterval:
    """Two-sided confidence (or credible) interval for a proportion ``successes / n``.

    Parameters
    ----------
    successes : int
        Successes ``k`` (items right), ``0 <= k <= n``.
    n : int
        Trials (items), at least 1.
    method : {"wilson", "wilson-cc", "clopper-pearson", "jeffreys", "agresti-coull", \
"bayes", "wald"}
        See :mod:`evalsig.inference.proportion`.
    confidence_level : float
    prior : (a, b), optional
        Beta(a, b) prior of ``method="bayes"``, both positive; Beta(1, 1) when None.
        Other methods take no prior.

    Returns
    -------
    ConfidenceInterval

    Raises
    ------
    DataError
        ``n`` below 1, ``successes`` outside 0..n or not an integer, an unknown method, a
        prior that is not two positive numbers, or a prior given to another method.

    Examples
    --------
    >>> ci = proportion_interval(3, 20)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.0524, 0.3604)
    >>> exact = proportion_interval(0, 20, method="clopper-pearson")
    >>> exact.low, round(exact.high, 4)
    (0.0, 0.1684)
    >>> round(proportion_interval(0, 20, method="bayes").high, 4)
    0.1329
    """
    k = _check_count(successes, "successes")
    trials = _check_trials(n)
    if k > trials:
        raise DataError(
            f"`successes` is {k} but `n` is {trials}: there cannot be more successes than "
            "trials; pass the number of items right and the number of items."
        )
    low, high = proportion_bounds(
        np.array([k]),
        trials,
        method=method,
        confidence_level=confidence_level,
        prior=prior,
    )
    level = check_confidence_level(confidence_level)
    return ConfidenceInterval(low=float(low[0]), high=float(high[0]), confidence_level=level)


def proportion_bounds(
    successes: np.ndarray,
    n: int,
    *,
    method: ProportionMethod = "wilson",
    confidence_level: float = 0.95,
    prior: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds for every count in ``successes`` (integers in 0..n) at once.

    The vectorised form of :func:`proportion_interval`: ``proportion_bounds(np.arange(n +
    1), n)`` gives the interval of every possible outcome, from which exact coverage is a
    sum of binomial probabilities.
    """
    level = check_confidence_level(confidence_level)
    trials = _check_trials(n)
    chosen = _check_method(method)
    a, b = check_prior(prior, chosen)
    k = np.asarray(successes)
    if k.dtype.kind not in "iu" or (k.size and (int(k.min()) < 0 or int(k.max()) > trials)):
        raise DataError(
            f"`successes` must be integers from 0 to n = {trials}; got {_shown(k, trials)}."
        )
    k = k.astype(np.float64)
    alpha = 1.0 - level
    if chosen == "clopper-pearson":
        low, high = _beta_bounds(k, trials, k, trials - k + 1.0, k + 1.0, trials - k, alpha / 2)
    elif chosen == "jeffreys":
        half = (k + 0.5, trials - k + 0.5)
        low, high = _beta_bounds(k, trials, *half, *half, alpha / 2)
    elif chosen == "bayes":
        low, high = _posterior_bounds(k, trials, a, b, alpha)
    else:
        z = float(special.ndtri(1.0 - alpha / 2.0))
        formula = {"wilson": _wilson, "wilson-cc": _wilson_cc, "agresti-coull": _agresti_coull}
        low, high = formula.get(chosen, _wald)(k, trials, z)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    if chosen != "bayes":  # a posterior's edges depend on its prior: _posterior_bounds
        low, high = np.where(k == 0, 0.0, low), np.where(k == trials, 1.0, high)
    return low, high


def _wilson(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    p = k / n
    denominator = 2.0 * (n + z * z)
    centre = (2.0 * n * p + z * z) / denominator
    half = z / denominator * np.sqrt(4.0 * n * p * (1.0 - p) + z * z)
    return centre - half, centre + half


def _wilson_cc(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's method 4; both square roots are of positive numbers where they are used
    (``k >= 1`` below, ``k <= n - 1`` above), and the other side is replaced by the edge."""
    p = k / n
    q = 1.0 - p
    denominator = 2.0 * (n + z * z)
    centre = (2.0 * n * p + z * z) / denominator
    with np.errstate(invalid="ignore"):  # the unused side at k = 0 or n
        below = (1.0 + z * np.sqrt(z * z - 2.0 - 1.0 / n + 4.0 * p * (n * q + 1.0))) / denominator
        above = (1.0 + z * np.sqrt(z * z + 2.0 - 1.0 / n + 4.0 * p * (n * q - 1.0))) / denominator
    return centre - below, centre + above


def _agresti_coull(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    n_tilde = n + z * z
    p_tilde = (k + z * z / 2.0) / n_tilde
    half = z * np.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde)
    return p_tilde - half, p_tilde + half


def _wald(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    p = k / n
    half = z * np.sqrt(p * (1.0 - p) / n)
    return p - half, p + half


def _beta_bounds(
    k: np.ndarray,
    n: int,
    a_low: np.ndarray,
    b_low: np.ndarray,
    a_high: np.ndarray,
    b_high: np.ndarray,
    tail: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``B(tail; a_low, b_low)`` and ``B(1 - tail; a_high, b_high)``, where defined (the
    Beta parameters are positive), and the edge elsewhere (replaced by the caller)."""
    safe = np.maximum
    low = special.betaincinv(safe(a_low, 0.5), safe(b_low, 0.5), tail)
    high = special.betainccinv(safe(a_high, 0.5), safe(b_high, 0.5), tail)
    return np.where(k == 0, 0.0, low), np.where(k == n, 1.0, high)


def _posterior_bounds(
    k: np.ndarray, n: int, a: float, b: float, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed bounds of Beta(k + a, n - k + b); one-sided (the highest-density
    interval) where the density is monotone from an edge: k = 0 with a <= 1, k = n with b <= 1.
    """
    shape_a, shape_b = k + a, n - k + b
    low = special.betaincinv(shape_a, shape_b, alpha / 2.0)
    high = special.betainccinv(shape_a, shape_b, alpha / 2.0)
    from_zero = (k == 0) & (a <= 1.0)
    to_one = (k == n) & (b <= 1.0)
    high = np.where(from_zero, special.betainccinv(shape_a, shape_b, alpha), high)
    low = np.where(to_one, special.betaincinv(shape_a, shape_b, alpha), low)
    return np.where(from_zero, 0.0, low), np.where(to_one, 1.0, high)


def check_prior(prior: object, method: str = "bayes") -> tuple[float, float]:
    """The prior ``(a, b)`` of ``method="bayes"`` (Beta(1, 1) for None), checked; a prior
    given to any other method is an error (it would be ignored)."""
    if prior is None:
        return UNIFORM_PRIOR
    if method != "bayes":
        raise DataError(
            f"`prior` is used only by method='bayes' (the Beta posterior interval), not by "
            f"method={method!r}; drop `prior` or pass method='bayes'."
        )
    values: list[float] = []
    if isinstance(prior, (tuple, list)) and len(prior) == 2:
        for value in prior:
            try:
                values.append(float(value))
            except (TypeError, ValueError):
                break
    if len(values) != 2 or not all(math.isfinite(v) and v > 0 for v in values):
        raise DataError(
            f"`prior` must be two positive numbers (a, b), the Beta(a, b) prior of the "
            f"accuracy; got {prior!r}. Use (1, 1) for the uniform prior, (0.5, 0.5) for "
            "Jeffreys'."
        )
    return values[0], values[1]


def _check_method(method: object) -> ProportionMethod:
    return cast(ProportionMethod, check_choice(method, get_args(ProportionMethod), "`method`"))


def _check_count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise DataError(f"`{name}` must be a whole number; got {value!r}.")
    if value < 0:
        raise DataError(f"`{name}` must be 0 or more; got {value}.")
    return int(value)


def _check_trials(n: object) -> int:
    trials = _check_count(n, "n")
    if trials == 0:
        raise DataError(
            "`n` is 0: an interval for a proportion needs at least one trial (one scored "
            "item); check that the data are not empty."
        )
    return trials


def _shown(values: np.ndarray, n: int) -> str:
    """The first few offending values of ``successes`` (or of any, when not integers)."""
    flat = values.reshape(-1)
    if flat.dtype.kind in "iu":
        return np.array2string(flat[(flat < 0) | (flat > n)][:5], separator=", ")
    return f"{np.array2string(flat[:5], separator=', ')} (dtype {values.dtype})"
