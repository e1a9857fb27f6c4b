r"""The design that buys the smallest error for a budget, or a target half-width for the
least cost.

Costs are given per combination of facets: ``{"item:prompt:run": 0.01}`` is paid once for
every item, prompt and run scored (a model call), ``{"item:prompt:run:judge": 0.002}``
once for every judge call, ``{"item": 2.0}`` once for every item written. A design
:math:`n'` costs :math:`\sum_k c_k \prod_{f \in k} n'_f`. The facet with the most levels
(items, as a rule) is solved in closed form: given the others' levels, the error is
:math:`A + B / n'_s` and the cost :math:`a + b\, n'_s`, so the budget buys
:math:`n'_s = \lfloor (\text{budget} - a) / b \rfloor` and a target error :math:`T` needs
:math:`n'_s = \lceil B / (T - A) \rceil`; the other facets are searched over every level
from 1 to their cap. The search is repeated on every bootstrap resample of the components,
and the spread of the optimal levels (and of the cost a target needs) is reported: few
prompts or runs leave the best design uncertain (Brennan 2001, *Generalizability Theory*,
ch. 6; Marcoulides 1993 on optimal allocation under a budget).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from evalsig.errors import DataError
from evalsig.facets._projection import Terms

__all__ = ["MAX_CANDIDATES", "Allocation", "Costs", "allocate", "design_costs", "parse_costs"]

MAX_CANDIDATES = 200_000
"""Combinations of the searched facets' levels, at most (``max_levels`` narrows them)."""

Costs = tuple[tuple[str, float], ...]
"""``((combination, cost), ...)`` as given, e.g. ``(("item:prompt:run", 0.01),)``."""


@dataclass(frozen=True, slots=True)
class Allocation:
    """The chosen design, and the spread of the optimum over the components' resamples."""

    levels: tuple[int, ...]
    levels_low: tuple[int, ...] | None
    levels_high: tuple[int, ...] | None
    """Percentile range of each facet's optimal levels over the resamples (None without)."""
    cost_low: float | None
    cost_high: float | None
    """For a target: percentile range of the least cost that reaches it (None: no
    resamples, or a budget given; ``cost_high`` None also when some resamples need more
    than the caps allow, said in a note)."""
    notes: tuple[str, ...]


def parse_costs(costs: Mapping[str, float], facets: tuple[str, ...]) -> Costs:
    """The costs checked: each key a facet or a ``:``-joined combination of facets, each
    cost a finite number at least 0."""
    if not isinstance(costs, Mapping) or not costs:
        raise DataError(
            f"`costs` must map facets to a cost, e.g. {{'item:prompt:run': 0.01}}; got {costs!r}."
        )
    out = []
    for key, cost in costs.items():
        names = str(key).split(":")
        unknown = [name for name in names if name not in facets]
        if unknown or len(set(names)) != len(names):
            raise DataError(
                f"`costs` key {key!r} is not a facet or a combination of distinct facets "
                f"joined by ':'; the facets are {list(facets)}."
            )
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not cost >= 0:
            raise DataError(f"`costs[{key!r}]` is {cost!r}; give a finite cost at least 0.")
        if not math.isfinite(cost):
            raise DataError(f"`costs[{key!r}]` is {cost!r}; give a finite cost at least 0.")
        out.append((":".join(names), float(cost)))
    return tuple(out)


def _masks(costs: Costs, facets: tuple[str, ...]) -> list[tuple[np.ndarray, float]]:
    return [(np.isin(facets, key.split(":")), cost) for key, cost in costs]


def design_costs(costs: Costs, facets: tuple[str, ...], designs: np.ndarray) -> np.ndarray:
    """``(D,)`` each design's cost (``(D, F)`` levels)."""
    total = np.zeros(designs.shape[0])
    for mask, cost in _masks(costs, facets):
        total += cost * np.prod(np.where(mask, designs, 1.0), axis=1)
    return total


def allocate(
    terms: Terms,
    weights: np.ndarray,
    costs: Costs,
    facets: tuple[str, ...],
    *,
    vary: list[int],
    caps: Mapping[int, int],
    budget: float | None,
    target: float | None,
    confidence_level: float,
) -> Allocation:
    """The design of the facets ``vary`` (the others at their levels) that minimises the
    error ``weights`` define within ``budget``, or that reaches the error variance
    ``target`` for the least cost."""
    charged = {i for mask, cost in _masks(costs, facets) if cost > 0 for i in np.flatnonzero(mask)}
    free = [facets[i] for i in vary if i not in charged]
    if free:
        raise DataError(
            f"`costs` charge nothing for {free[0]!r}: its levels would be free and the design "
            f"unbounded; give a positive cost to a combination with {free[0]!r} (each score "
            "of it, e.g. 'item:prompt:run')."
        )
    solved = max(vary, key=lambda i: (terms.current[i], -i))
    limits = {i: caps.get(i, max(4 * int(terms.current[i]), 8)) for i in vary if i != solved}
    base = _grid(terms.current, limits, solved, facets)
    a, b = _cost_parts(costs, facets, base, solved)
    coef = weights / terms.divisors(base)  # (C, T) with the solved facet at 1 level
    shrinks = terms.span[:, solved]
    fixed_part, shrinking = coef * ~shrinks, coef * shrinks
    cap = caps.get(solved)
    tail = (1 - confidence_level) / 2

    def levels_of(
        error_fixed: np.ndarray, error_shrinking: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's objective (error, or cost) and its solved facet's levels."""
        if budget is not None:
            n = np.floor((budget - a) / b)
            n = n if cap is None else np.minimum(n, cap)
            n = np.where(n >= 1, n, np.nan)
            error = error_fixed + error_shrinking / n
            error = np.where(np.isnan(error), np.inf, error)
            return error, np.broadcast_to(n, error.shape)
        assert target is not None
        room = target - error_fixed
        with np.errstate(divide="ignore", invalid="ignore"):
            n = np.where(error_shrinking > 0, np.ceil(error_shrinking / room), 1.0)
        n = np.where(room > 0, np.maximum(n, 1.0), np.inf)
        if cap is not None:
            n = np.where(n <= cap, n, np.inf)
        return a + b * n, n  # the cost to minimise

    v = terms.variances
    objective, n = levels_of(fixed_part @ v, shrinking @ v)
    if not np.isfinite(objective).any():
        raise _unreachable(budget, a, b, fixed_part @ v, facets[solved], cap, target)
    best = int(np.argmin(objective))
    levels = base[best].copy()
    levels[solved] = n[best]
    notes = _edge_notes(levels, limits, facets)
    if cap is not None and budget is not None and levels[solved] >= cap:
        notes.append(f"{facets[solved]} at its cap ({cap:,}): part of the budget buys nothing")
    low = high = None
    cost_low = cost_high = None
    if terms.draws is not None:
        drawn, n_drawn = levels_of(terms.draws @ fixed_part.T, terms.draws @ shrinking.T)
        at = np.argmin(drawn, axis=1)
        reached = np.isfinite(drawn[np.arange(at.size), at])
        optimal = base[at].copy()
        optimal[:, solved] = np.where(reached, n_drawn[np.arange(at.size), at], np.nan)
        if not reached.all():
            notes.append(
                f"in {int((~reached).sum())} of {at.size} resamples of the components no "
                "design within the caps meets the " + ("budget" if budget is not None else "target")
            )
        quantiles = np.nanquantile(optimal, [tail, 1 - tail], axis=0, method="inverted_cdf")
        low, high = (tuple(int(x) for x in q) for q in quantiles)
        if target is not None:
            least = drawn[np.arange(at.size), at]
            cost_low, cost_high = (
                float(q) for q in np.quantile(least, [tail, 1 - tail], method="inverted_cdf")
            )
            cost_high = cost_high if math.isfinite(cost_high) else None
            cost_low = cost_low if math.isfinite(cost_low) else None
    return Allocation(
        levels=tuple(int(x) for x in levels),
        levels_low=low,
        levels_high=high,
        cost_low=cost_low,
        cost_high=cost_high,
        notes=tuple(notes),
    )


def _grid(
    current: np.ndarray, limits: Mapping[int, int], solved: int, facets: tuple[str, ...]
) -> np.ndarray:
    """``(C, F)``: every combination of the searched facets' levels (1 to their cap), the
    solved facet at 1, the others at their current levels."""
    searched = list(limits)
    ranges = [range(1, limits[i] + 1) for i in searched]
    count = math.prod(len(r) for r in ranges)
    if count > MAX_CANDIDATES:
        raise DataError(
            f"the search would try {count:,} combinations of "
            f"{', '.join(facets[i] for i in searched)}; give smaller caps with max_levels "
            f"(at most {MAX_CANDIDATES:,} combinations)."
        )
    base = np.tile(current, (count, 1))
    if searched:
        base[:, searched] = np.array(list(itertools.product(*ranges)), dtype=np.float64)
    base[:, solved] = 1.0
    return base


def _cost_parts(
    costs: Costs, facets: tuple[str, ...], base: np.ndarray, solved: int
) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` of each candidate's cost ``a + b n_s``."""
    a, b = np.zeros(base.shape[0]), np.zeros(base.shape[0])
    for mask, cost in _masks(costs, facets):
        part = cost * np.prod(np.where(mask, base, 1.0), axis=1)  # the solved facet at 1
        if mask[solved]:
            b += part
        else:
            a += part
    return a, b


def _unreachable(
    budget: float | None,
    a: np.ndarray,
    b: np.ndarray,
    floor: np.ndarray,
    solved: str,
    cap: int | None,
    target: float | None,
) -> DataError:
    if budget is not None:
        return DataError(
            f"the budget {budget:g} buys no design: the cheapest (1 level of each facet) "
            f"costs {float(np.min(a + b)):g}; raise the budget or lower the costs."
        )
    assert target is not None
    if cap is not None and float(np.min(floor)) < target:
        return DataError(
            f"no design within the caps reaches the target: it needs more than the {cap:,} "
            f"{solved} levels max_levels allows; raise that cap or aim at a wider half-width."
        )
    return DataError(
        f"no design within the caps reaches the target: the terms that more {solved} levels "
        f"do not shrink leave an error variance of {float(np.min(floor)):.3g} against the "
        f"target's {target:.3g}; raise max_levels of the other facets, or aim at a wider "
        "half-width."
    )


def _edge_notes(
    levels: np.ndarray, limits: Mapping[int, int], facets: tuple[str, ...]
) -> list[str]:
    """Say where the optimum sits at the top of a searched facet's range."""
    return [
        f"{facets[i]} at the top of its searched range ({cap:,}): more may be better; raise "
        "its max_levels"
        for i, cap in limits.items()
        if levels[i] >= cap
    ]
