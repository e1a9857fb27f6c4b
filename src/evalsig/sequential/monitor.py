"""Streaming, anytime-valid monitoring of a paired comparison, and the one-call version."""

from __future__ import annotations

import math

import numpy as np

from evalsig.data.provenance import provenance
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative, check_confidence_level
from evalsig.progress import report
from evalsig.sequential._engine import Engine, Step
from evalsig.sequential._input import Method, as_differences, check_grid_size, check_method
from evalsig.sequential.bernstein import BernsteinEngine
from evalsig.sequential.betting import DEFAULT_GRID_SIZE, BettingEngine
from evalsig.sequential.results import SequencePath, SequentialResult, Status

__all__ = ["SequentialMonitor", "confidence_sequence"]

BLOCK = 1 << 16
"""Items per progress report of :func:`confidence_sequence`."""


class SequentialMonitor:
    r"""Watch a paired comparison as results arrive; stop as soon as the difference is clear.

    Keeps running sums (and, for ``"betting"``, the wealth of every grid value not yet
    rejected), so each :meth:`update` costs time proportional to its batch, whatever the
    number of items already seen. The state after a stream does not depend on how it was
    cut into batches.

    Parameters
    ----------
    confidence_level : float, default 0.95
        The probability that the sequence covers the true mean difference at every ``n``
        at once; 1 - ``confidence_level`` bounds the chance of ever declaring a
        difference that is not there, however often the monitor is checked.
    alternative : {"two-sided", "greater", "less"}
        "greater": only a lower bound is kept and only "candidate better" can be declared
        (all the error budget on that side); "less": the mirror image.
    method : {"betting", "bernstein"}
        "betting" (default): the hedged-capital confidence sequence of Waudby-Smith &
        Ramdas (2024), see :mod:`evalsig.sequential.betting`; "bernstein": the
        empirical-Bernstein stitched boundary of Howard et al. (2021), wider but O(1) per
        item, see :mod:`evalsig.sequential.bernstein`.
    grid_size : int, default 2000
        ``"betting"`` only: grid intervals on [-1, 1] (even, so 0 is a grid value); the
        bounds are rounded outward to steps of ``2 / grid_size``.

    Raises
    ------
    DataError
        For an invalid option, or a batch with values that are not finite, outside
        [-1, 1] (differences) or [0, 1] (scores), or not one-dimensional.

    Notes
    -----
    A confidence sequence :math:`(L_n, U_n)` satisfies
    :math:`P(\forall n: L_n < \mu < U_n) \ge 1 - \alpha` for the mean difference
    :math:`\mu = E[\text{candidate} - \text{baseline}]` of independent items with a common
    mean (the items may differ in distribution). The status is resolved at the first
    :math:`n` with :math:`L_n \ge 0` or :math:`U_n \le 0` (the bounds themselves are
    excluded values) and stays so, because the running intersection never widens. Unlike a
    fixed-:math:`N` test, this decision may be taken after every item. The price is a wider
    interval at any one :math:`n` than a fixed-:math:`N` confidence interval.

    References
    ----------
    Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by
    betting. *Journal of the Royal Statistical Society Series B* 86(1), 1-27.
    Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform,
    nonparametric, nonasymptotic confidence sequences. *Annals of Statistics* 49(2),
    1055-1080.

    Examples
    --------
    >>> import numpy as np
    >>> u = np.random.default_rng(0).random(4000)
    >>> baseline = (u > 0.45).astype(float)   # right on 55% of the items
    >>> candidate = baseline.copy()
    >>> candidate[u < 0.09] = 1.0             # fixes 9% of the items ...
    >>> candidate[(u > 0.45) & (u < 0.50)] = 0.0   # ... and breaks 5%
    >>> monitor = SequentialMonitor()
    >>> for start in range(0, 4000, 1000):
    ...     state = monitor.update(baseline[start:start + 1000], candidate[start:start + 1000])
    ...     print(state.n, state.status, state.resolved_at, round(state.lower, 3))
    1000 candidate better 837 0.002
    2000 candidate better 837 0.017
    3000 candidate better 837 0.022
    4000 candidate better 837 0.024
    """

    def __init__(
        self,
        *,
        confidence_level: float = 0.95,
        alternative: Alternative = "two-sided",
        method: Method = "betting",
        grid_size: int = DEFAULT_GRID_SIZE,
    ) -> None:
        self._level = check_confidence_level(confidence_level)
        self._alternative = check_alternative(alternative)
        self._method = check_method(method)
        engine: Engine
        if self._method == "betting":
            engine = BettingEngine(
                confidence_level=self._level,
                alternative=self._alternative,
                grid_size=check_grid_size(grid_size),
            )
        else:
            engine = BernsteinEngine(confidence_level=self._level, alternative=self._alternative)
        self._engine = engine
        self._status: Status = "not yet resolved"
        self._resolved_at: int | None = None
        self._notes: list[str] = []
        self._bounds = (-1.0, 1.0)
        self._checkpoints: list[tuple[int, float, float, float]] = []
        self._state = self._snapshot()

    @property
    def n(self) -> int:
        """Items seen so far."""
        return self._engine.n

    @property
    def state(self) -> SequentialResult:
        """The state after the last update (no path)."""
        return self._state

    def update(self, first: object, second: object | None = None, /) -> SequentialResult:
        """Take in a batch of items and return the new state.

        Parameters
        ----------
        first, second : array_like (k,)
            ``update(differences)``: per-item differences candidate - baseline, in
            [-1, 1]; ``update(baseline, candidate)``: the two models' scores on the same
            ``k`` items, in [0, 1]. A scalar is one item; an empty batch changes nothing.

        Returns
        -------
        SequentialResult
            The state after the batch (``path`` is None; see :meth:`result`).
        """
        d = as_differences(first, second, offset=self.n)
        if d.size:
            self._advance(d)
            self._checkpoints.append((self.n, self._state.estimate, *self._bounds))
        return self._state

    def result(self) -> SequentialResult:
        """The current state, with one path checkpoint per non-empty :meth:`update`."""
        points = self._checkpoints
        path = SequencePath(
            n=np.array([p[0] for p in points], dtype=np.int64),
            estimate=np.array([p[1] for p in points], dtype=np.float64),
            lower=np.array([p[2] for p in points], dtype=np.float64),
            upper=np.array([p[3] for p in points], dtype=np.float64),
        )
        return self._snapshot(path)

    def _advance(self, d: np.ndarray) -> Step:
        n0 = self.n
        step = self._engine.update(d)
        self._bounds = (float(step.lower[-1]), float(step.upper[-1]))
        empty = np.isnan(step.lower)
        if empty.any() and not any(note.startswith("the running") for note in self._notes):
            at = n0 + int(np.argmax(empty)) + 1
            self._notes.append(
                f"the running intersection became empty at n = {at:,}: no constant mean "
                "difference fits all the items at this level (the mean may have drifted, or "
                f"an event of probability at most {self._engine.alpha:g} occurred)."
            )
        if self._resolved_at is None:
            self._resolve(step, n0, empty)
        self._state = self._snapshot()
        return step

    def _resolve(self, step: Step, n0: int, empty: np.ndarray) -> None:
        """Record the first item at which 0 left the sequence, and on which side."""
        better = step.lower >= 0.0
        worse = step.upper <= 0.0
        means = step.sums / np.arange(n0 + 1, n0 + len(step.sums) + 1)
        hit = better | worse | (empty & (means != 0.0))
        if not hit.any():
            return
        k = int(np.argmax(hit))
        self._resolved_at = n0 + k + 1
        if better[k] or worse[k]:
            self._status = "candidate better" if better[k] else "baseline better"
            return
        self._status = "candidate better" if means[k] > 0 else "baseline better"
        self._notes.append(
            f"0 left the sequence as it became empty at n = {self._resolved_at:,}; the status "
            "follows the sign of the running mean there."
        )

    def _snapshot(self, path: SequencePath | None = None) -> SequentialResult:
        n = self._engine.n
        return SequentialResult(
            method=self._method,
            alternative=self._alternative,
            confidence_level=self._level,
            n=n,
            estimate=self._engine.total / n if n else math.nan,
            lower=self._bounds[0],
            upper=self._bounds[1],
            status=self._status,
            resolved_at=self._resolved_at,
            grid_size=self._engine.grid_size,
            notes=tuple(self._notes),
            path=path,
            provenance=provenance(),
        )


def confidence_sequence(
    first: object,
    second: object | None = None,
    /,
    *,
    confidence_level: float = 0.95,
    alternative: Alternative = "two-sided",
    method: Method = "betting",
    grid_size: int = DEFAULT_GRID_SIZE,
) -> SequentialResult:
    r"""The anytime-valid confidence sequence of a whole stream, item by item.

    Parameters
    ----------
    first, second : array_like (n,)
        ``confidence_sequence(differences)``: candidate - baseline per item, in [-1, 1],
        in arrival order; ``confidence_sequence(baseline, candidate)``: the two models'
        scores in [0, 1].
    confidence_level : float, default 0.95
        Simultaneous coverage over all ``n``.
    alternative : {"two-sided", "greater", "less"}
        "greater": a lower bound only (the candidate is better); "less": an upper bound.
    method : {"betting", "bernstein"}
        See :class:`SequentialMonitor`.
    grid_size : int, default 2000
        ``"betting"`` only: grid intervals on [-1, 1].

    Returns
    -------
    SequentialResult
        The state after the last item; ``path`` holds the bounds and the running mean
        after every item, and ``resolved_at`` is the stopping time (the first ``n`` at which
        the sequence excluded 0), None if it never did.

    Raises
    ------
    DataError
        For an invalid option, no items, or values that are not finite, outside [-1, 1]
        (differences) or [0, 1] (scores), or not one-dimensional.

    Notes
    -----
    The same computation as feeding the items one at a time to
    :class:`SequentialMonitor`, with the same result; see there and
    :mod:`evalsig.sequential.betting` and :mod:`evalsig.sequential.bernstein` for the
    formulas and references.

    Examples
    --------
    >>> d = [1, 0, 0, 1, 0, 1, 0, 0, 1, 0] * 30   # the candidate fixes 40% of the items
    >>> cs = confidence_sequence(d)
    >>> cs.status, cs.resolved_at, round(cs.lower, 3), round(cs.upper, 3)
    ('candidate better', 24, 0.318, 0.502)
    >>> len(cs.path.lower)
    300
    """
    monitor = SequentialMonitor(
        confidence_level=confidence_level,
        alternative=alternative,
        method=method,
        grid_size=grid_size,
    )
    d = as_differences(first, second)
    if d.size == 0:
        raise DataError("a confidence sequence needs at least one item; got none.")
    parts: list[Step] = []
    for start in range(0, len(d), BLOCK):
        parts.append(monitor._advance(d[start : start + BLOCK]))
        report("confidence sequence", min(start + BLOCK, len(d)), len(d))
    n = np.arange(1, len(d) + 1, dtype=np.int64)
    path = SequencePath(
        n=n,
        estimate=np.concatenate([p.sums for p in parts]) / n,
        lower=np.concatenate([p.lower for p in parts]),
        upper=np.concatenate([p.upper for p in parts]),
    )
    return monitor._snapshot(path)
