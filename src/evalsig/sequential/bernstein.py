r"""The empirical-Bernstein confidence sequence of Howard et al. (2021): O(1) per item.

Notes
-----
For differences :math:`d_i \in [a, b] = [-1, 1]` with mean :math:`\mu`, and any
predictable :math:`\hat d_{i-1} \in [a, b]`, the process
:math:`S_t = \sum_{i \le t} (d_i - \mu)` is sub-exponential with scale :math:`c = b - a = 2`
and variance process :math:`V_t = \sum_{i \le t} (d_i - \hat d_{i-1})^2` (Howard et al.
2021, Theorem 4), hence sub-gamma with the same scale. Its polynomial stitched boundary
(their Theorem 1, eq. (10)),

.. math:: u_\alpha(v) = \sqrt{k_1^2\, v\, \ell(v) + k_2^2 c^2 \ell(v)^2} + k_2 c\, \ell(v),
          \quad \ell(v) = s \log\log\frac{\eta v}{m}
                          + \log\frac{\zeta(s)}{\alpha \log^s \eta},

with :math:`k_1 = (\eta^{1/4} + \eta^{-1/4})/\sqrt 2`, :math:`k_2 = (\sqrt\eta + 1)/2`,
evaluated at :math:`\max(V_t, m)`, is crossed by :math:`S_t` with probability at most
:math:`\alpha`, at any time. So

.. math:: \bar d_t \pm u_{\alpha/2}(V_t \vee m) / t

is a two-sided :math:`1 - \alpha` confidence sequence (one side with :math:`u_\alpha` for a
one-sided one). Here :math:`\hat d_{i-1} = S_{i-1}/i`, the running mean shrunk towards 0 by
one pseudo-item, :math:`\eta = 2`, :math:`s = 1.4` and :math:`m = 10` (about 70 items
scored 0/1 with 14% of them discordant). :math:`S_t` and
:math:`V_t` are running sums, so each item costs O(1). The running intersection is
reported; it is as valid and never widens.

References
----------
Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform, nonparametric,
nonasymptotic confidence sequences. *Annals of Statistics* 49(2), 1055-1080.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from evalsig.inference._common import Alternative
from evalsig.sequential._engine import Engine

__all__ = ["ETA", "S_EXPONENT", "V_MIN", "BernsteinEngine", "stitched_boundary"]

ETA = 2.0
"""Geometric spacing of the stitched epochs."""
S_EXPONENT = 1.4
"""Exponent of the polynomial weights given to the epochs."""
V_MIN = 10.0
"""Intrinsic time (in squared differences) from which the boundary is tight."""
SCALE = 2.0
"""Range of a difference of scores in [0, 1]."""


def stitched_boundary(
    v: object,
    /,
    *,
    alpha: float,
    scale: float,
    v_min: float = V_MIN,
    s: float = S_EXPONENT,
    eta: float = ETA,
) -> np.ndarray:
    r"""Howard et al.'s polynomial stitched boundary :math:`u_\alpha(v \vee m)`.

    Parameters
    ----------
    v : array_like
        Values of the variance process.
    alpha : float
        Crossing probability, in (0, 1).
    scale : float
        Sub-gamma scale :math:`c`.
    v_min, s, eta : float
        :math:`m`, :math:`s` and :math:`\eta` of the construction.

    Returns
    -------
    numpy.ndarray
        The boundary at each ``v`` (at ``v_min`` for smaller values).

    Examples
    --------
    >>> round(float(stitched_boundary(100.0, alpha=0.05, scale=1.0)), 4)
    43.9092
    """
    x = np.maximum(np.asarray(v, dtype=np.float64), v_min)
    k1 = (eta**0.25 + eta**-0.25) / math.sqrt(2.0)
    k2 = (math.sqrt(eta) + 1.0) / 2.0
    ell = s * np.log(np.log(eta * x / v_min)) + math.log(
        float(special.zeta(s)) / (alpha * math.log(eta) ** s)
    )
    linear = k2 * scale * ell
    bound: np.ndarray = np.sqrt(k1 * k1 * x * ell + linear * linear) + linear
    return bound


class BernsteinEngine(Engine):
    """Running sums of the empirical-Bernstein confidence sequence.

    Examples
    --------
    >>> import numpy as np
    >>> engine = BernsteinEngine(confidence_level=0.95, alternative="greater")
    >>> step = engine.update(np.ones(200))
    >>> float(step.lower[-1]) > 0, float(step.upper[-1])
    (True, 1.0)
    """

    def __init__(self, *, confidence_level: float, alternative: Alternative) -> None:
        super().__init__(confidence_level=confidence_level, alternative=alternative)
        self.side_alpha = self.alpha / 2.0 if alternative == "two-sided" else self.alpha
        self._squares = 0.0
        self._lower = -1.0
        self._upper = 1.0

    def _advance(self, d: np.ndarray, sums: np.ndarray, n0: int) -> tuple[np.ndarray, np.ndarray]:
        i = np.arange(n0 + 1, n0 + len(d) + 1, dtype=np.float64)
        centred = d - sums[:-1] / i  # d_i minus the predictable S_{i-1} / i
        squares = np.cumsum(np.concatenate(([self._squares], centred * centred)))
        self._squares = float(squares[-1])
        radius = stitched_boundary(squares[1:], alpha=self.side_alpha, scale=SCALE) / i
        mean = sums[1:] / i
        lower = np.full(len(d), -1.0)
        upper = np.full(len(d), 1.0)
        if self.alternative != "less":
            lower = np.maximum(mean - radius, -1.0)
        if self.alternative != "greater":
            upper = np.minimum(mean + radius, 1.0)
        lower = np.maximum.accumulate(np.concatenate(([self._lower], lower)))[1:]
        upper = np.minimum.accumulate(np.concatenate(([self._upper], upper)))[1:]
        self._lower, self._upper = float(lower[-1]), float(upper[-1])
        empty = lower > upper
        lower[empty] = np.nan
        upper[empty] = np.nan
        return lower, upper
