r"""The betting confidence sequence of Waudby-Smith & Ramdas (2024) on a grid of means.

For each candidate mean difference :math:`\delta` on a grid over [-1, 1], two gamblers bet
against :math:`H_0: E[d_i] = \delta`, one that the mean is higher, one that it is lower.
Their wealth is a nonnegative martingale under :math:`H_0`, so by Ville's inequality it
ever reaches :math:`1/\alpha` with probability at most :math:`\alpha`: the values
:math:`\delta` whose wealth never did form a confidence sequence, valid at every stopping
time.

Notes
-----
With :math:`X_i = (d_i + 1)/2 \in [0, 1]` and :math:`m = (\delta + 1)/2`, the hedged capital
of Waudby-Smith & Ramdas (2024) is

.. math:: K_t(m) = \max\{\theta K_t^+(m), (1 - \theta) K_t^-(m)\}, \quad
          K_t^\pm(m) = \prod_{i \le t} \bigl(1 \pm \lambda_i^\pm(m) (X_i - m)\bigr),

with :math:`\theta = 1/2` (two-sided), :math:`\theta = 1` (``"greater"``: a lower bound
only) or :math:`\theta = 0` (``"less"``). The bets are their predictable plug-in
("predictable mixture") bets, truncated below the bankruptcy limit:

.. math:: \dot\lambda_t = \sqrt{\frac{2\log(1/(\theta^\ast\alpha))}
                                   {\hat\sigma^2_{t-1}\, t \log(1 + t)}}, \quad
          \lambda_t^+(m) = \min(\dot\lambda_t, c/m), \quad
          \lambda_t^-(m) = \min(\dot\lambda_t, c/(1 - m)),

:math:`c = 1/2`, :math:`\theta^\ast = 1/2` two-sided and 1 one-sided,
:math:`\hat\mu_t = (1/2 + \sum_{i \le t} X_i)/(t + 1)` and
:math:`\hat\sigma^2_t = (1/4 + \sum_{i \le t} (X_i - \hat\mu_i)^2)/(t + 1)`. A mean is
rejected once :math:`K_t(m) \ge 1/\alpha`; rejections are kept (the running intersection,
which is just as valid and never widens). :math:`K^+` falls and :math:`K^-` rises with
:math:`m`, so the sequence is an interval at every step.

On the grid :math:`\delta_g = (2g - G)/G`, :math:`g = 0, \dots, G`, the reported bounds are
rounded outward to the nearest *rejected* grid value (or to the natural limit -1 or 1), so
the true confidence set lies inside them and a bound of exactly 0 means 0 is excluded. The
stopping time (the first :math:`t` at which 0 is rejected) depends on the wealth at 0 alone,
not on the grid. Only the grid values not yet rejected are updated, so the work per item is
proportional to the interval's width in grid steps, which shrinks as items arrive. One-sided,
values on the open side whose wealth has fallen below :math:`e^{-30}` are kept in the set but
no longer updated (see ``FLOOR``); this can only widen the sequence.

References
----------
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by
betting. *Journal of the Royal Statistical Society Series B* 86(1), 1-27.
Ville, J. (1939). *Etude critique de la notion de collectif.* Gauthier-Villars.
"""

from __future__ import annotations

import math

import numpy as np

from evalsig.inference._common import Alternative
from evalsig.sequential._engine import Engine

__all__ = ["DEFAULT_GRID_SIZE", "TRUNCATION", "BettingEngine"]

DEFAULT_GRID_SIZE = 2000
"""Grid intervals on [-1, 1]: steps of 0.001 (0.1 percentage points)."""

TRUNCATION = 0.5
"""``c``: a bet risks at most this fraction of the wealth (Waudby-Smith & Ramdas use 1/2)."""

CELLS = 1 << 15
"""Items x grid values computed at once (bounds the memory of a large batch)."""

FLOOR = -30.0
"""One-sided: a value whose log-wealth falls to this is no longer updated (kept, never
rejected). Its wealth is a supermartingale for any true mean at or beyond it, so by Ville's
inequality it would climb back to 1/alpha with probability at most alpha * exp(FLOOR)."""


class BettingEngine(Engine):
    """Running hedged capital on the grid values not yet rejected.

    For ``"less"`` the engine runs ``"greater"`` on the negated differences and mirrors the
    bounds (the grid is symmetric), so the two sides agree exactly.

    Examples
    --------
    >>> import numpy as np
    >>> engine = BettingEngine(confidence_level=0.95, alternative="two-sided", grid_size=200)
    >>> step = engine.update(np.array([1.0] * 40))
    >>> float(step.lower[-1]), float(step.upper[-1])
    (0.67, 1.0)
    """

    def __init__(
        self,
        *,
        confidence_level: float,
        alternative: Alternative,
        grid_size: int = DEFAULT_GRID_SIZE,
    ) -> None:
        super().__init__(confidence_level=confidence_level, alternative=alternative)
        self.grid_size = self._size = grid_size
        self.grid = (2.0 * np.arange(grid_size + 1) - grid_size) / grid_size
        self._two_sided = alternative == "two-sided"
        self._flip = alternative == "less"
        # theta = 1/2 two-sided: K >= 1/alpha iff K+ or K- >= 2/alpha; the bets use the same.
        self.threshold = math.log((2.0 if self._two_sided else 1.0) / self.alpha)
        with np.errstate(divide="ignore"):  # no cap at the edges: m = 0 (plus), m = 1 (minus)
            self._cap_plus = TRUNCATION / (1.0 + self.grid)
            self._cap_minus = TRUNCATION / (1.0 - self.grid)
        # Live (updated) grid values: lo..hi. One-sided, the values from `ceiling` up have
        # fallen to FLOOR: kept in the set, no longer updated.
        self._lo, self._hi, self._ceiling = 0, grid_size, grid_size + 1
        self._log_plus = np.zeros(grid_size + 1)
        self._log_minus = np.zeros(grid_size + 1)
        self._rejected = np.zeros(grid_size + 1, dtype=bool)
        self._dropped = np.zeros(grid_size + 1, dtype=bool)
        self._squares = 0.0

    @property
    def empty(self) -> bool:
        """Whether every grid value has been rejected."""
        return self._lo > self._hi and self._ceiling > self._size

    def log_capital(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""The live grid values with their :math:`\log K^+` and :math:`\log K^-`.

        For ``"less"``, on the negated scale (value ``-g`` of the grid for ``g`` here).
        """
        span = slice(self._lo, self._hi + 1)
        return self.grid[span].copy(), self._log_plus.copy(), self._log_minus.copy()

    def _bets(self, d: np.ndarray, sums: np.ndarray, n0: int) -> np.ndarray:
        r"""Half the plug-in bet, :math:`\dot\lambda_i / 2`, for each item of a batch.

        On the scale of ``d``, :math:`X_i - \hat\mu_i = (d_i - S_i/(i+1))/2` and
        :math:`i \hat\sigma^2_{i-1} = (1 + Q_{i-1})/4` with
        :math:`Q_i = \sum_{j \le i} (d_j - S_j/(j+1))^2`, so
        :math:`\dot\lambda_i / 2 = \sqrt{2 \log(1/(\theta^\ast\alpha)) /
        ((1 + Q_{i-1}) \log(1 + i))}`. Advances the running :math:`Q`.
        """
        i = np.arange(n0 + 1, n0 + len(d) + 1, dtype=np.float64)
        centred = d - sums[1:] / (i + 1.0)
        squares = np.cumsum(np.concatenate(([self._squares], centred * centred)))
        self._squares = float(squares[-1])
        half: np.ndarray = np.sqrt(2.0 * self.threshold / ((1.0 + squares[:-1]) * np.log1p(i)))
        return half

    def _advance(self, d: np.ndarray, sums: np.ndarray, n0: int) -> tuple[np.ndarray, np.ndarray]:
        if self._flip:
            d, sums = -d, -sums
        half = self._bets(d, sums, n0)
        first = np.full(len(d), -1, dtype=np.int64)
        last = np.full(len(d), -1, dtype=np.int64)
        start = 0
        while start < len(d) and self._lo <= self._hi:
            stop = min(len(d), start + max(1, CELLS // (self._hi - self._lo + 1)))
            first[start:stop], last[start:stop] = self._chunk(d[start:stop], half[start:stop])
            start = stop
        if start < len(d) and self._ceiling <= self._size:  # one-sided, every live value gone
            first[start:], last[start:] = self._ceiling, self._size
        lower = self.grid[np.clip(first - 1, 0, self._size)]
        upper = self.grid[np.clip(last + 1, 0, self._size)]
        lower[first < 0] = np.nan
        upper[first < 0] = np.nan
        return (0.0 - upper, 0.0 - lower) if self._flip else (lower, upper)  # no -0.0

    def _chunk(self, d: np.ndarray, half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Advance the live grid values over a few items; first and last survivor per item."""
        lo, hi = self._lo, self._hi
        width = hi - lo + 1
        live = slice(lo, hi + 1)
        diff = d[:, None] - self.grid[live]
        plus = self._wealth(np.minimum(half[:, None], self._cap_plus[live]), diff, self._log_plus)
        self._log_plus = plus[-1].copy()
        rejected = plus >= self.threshold
        if self._two_sided:  # -min(bet, cap) = max(-bet, -cap): the minus gambler's stake
            stake = np.maximum(-half[:, None], -self._cap_minus[live])
            minus = self._wealth(stake, diff, self._log_minus)
            self._log_minus = minus[-1].copy()
            rejected |= minus >= self.threshold
        rejected[0] |= self._rejected
        np.logical_or.accumulate(rejected, axis=0, out=rejected)
        alive = ~rejected
        if self._two_sided:
            any_alive = alive.any(axis=1)
            first = np.where(any_alive, lo + alive.argmax(axis=1), -1)
            last = np.where(any_alive, hi - alive[:, ::-1].argmax(axis=1), -1)
            self._prune(int(first[-1]), int(last[-1]), rejected[-1])
            return first, last
        # One-sided: values whose wealth fell to FLOOR (never rejected) stay in the set but
        # are no longer updated; the first of them caps the live range.
        dropped = plus <= FLOOR
        dropped &= alive
        dropped[0] |= self._dropped
        np.logical_or.accumulate(dropped, axis=0, out=dropped)
        top = np.where(dropped.any(axis=1), dropped.argmax(axis=1), width)
        alive &= np.arange(width) < top[:, None]
        any_alive = alive.any(axis=1)
        first = lo + np.where(any_alive, alive.argmax(axis=1), top)
        first[first > self._size] = -1
        self._dropped = dropped[-1]
        self._ceiling = lo + int(top[-1])
        self._prune(int(first[-1]), self._ceiling - 1, rejected[-1])
        return first, np.full(len(d), self._size)

    @staticmethod
    def _wealth(stake: np.ndarray, diff: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Running log-wealth after each item: ``start`` plus the ``log(1 + stake * diff)``.

        ``start`` is added to the first item's term before the running sum, so the sums are
        accumulated in the same order however the stream is cut into batches.
        """
        stake *= diff
        np.log1p(stake, out=stake)
        stake[0] += start
        np.cumsum(stake, axis=0, out=stake)
        return stake

    def _prune(self, first: int, last: int, rejected: np.ndarray) -> None:
        """Keep the live values from ``first`` to ``last`` (none if ``first`` is -1)."""
        lo = self._lo
        if first < 0 or first > last:
            self._lo, self._hi = self._size + 1, self._size
            keep = slice(0, 0)
        else:
            keep = slice(first - lo, last - lo + 1)
            self._lo, self._hi = first, last
        self._log_plus = self._log_plus[keep].copy()
        self._log_minus = self._log_minus[keep].copy()
        self._rejected = rejected[keep].copy()
        self._dropped = self._dropped[keep].copy()
