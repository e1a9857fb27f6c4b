r"""The decision study: a score's standard error, and the smallest paired difference it
resolves, projected to other numbers of items, prompts, runs or judges.

A term's variance is averaged over its levels, so with :math:`n'_f` levels of each facet
:math:`f` in place of :math:`n_f`, a term over the facets :math:`F_t` with :math:`L_t`
levels today has :math:`L'_t = L_t \prod_{f \in F_t} n'_f / n_f` (the residual runs over
every facet), and

.. math:: \operatorname{SE}' = \sqrt{\sum_t \hat\sigma_t^2 / L'_t}, \qquad
          \operatorname{MDE}' = (z_{1 - \alpha/2} + z_{\text{power}})\, \operatorname{SE}'

for a paired difference (Brennan 2001, *Generalizability Theory*, ch. 4; Cronbach et al.
1972). Components from 3 runs or 5 prompts rest on few degrees of freedom: each projection
is made again from every bootstrap resample of the components, and its percentile interval
is reported beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError
from evalsig.facets._projection import Terms
from evalsig.facets.allocation import Allocation, Costs, allocate, design_costs, parse_costs
from evalsig.facets.sources import VarianceSourcesResult
from evalsig.power._common import check_alpha, check_power, z_upper
from evalsig.result import Result

__all__ = ["DecisionStudyResult", "ProjectedDesign", "decision_study"]

SCALES = (0.5, 1.0, 2.0, 4.0)
"""The default designs: each facet at these multiples of its levels, the others as they
are."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectedDesign:
    """One design: its levels of each facet, and the SE and MDE it would give."""

    levels: tuple[int, ...]
    """Levels of each facet, in the study's ``facets`` order."""
    scores: int
    """Scores the design holds: the product of the levels (a crossed design)."""
    se: float
    """The SE of the score (with an object of measurement: of one object's score)."""
    se_low: float | None
    se_high: float | None
    """The SE's percentile interval over the components' bootstrap resamples."""
    mde: float | None
    """Smallest paired difference detected (two-sided, normal): of the two models'
    difference, or, with an object of measurement, between two objects; None for one
    model's score."""
    cost: float | None = None
    """The design's cost under the study's ``costs`` (None without)."""
    g: float | None = None
    g_low: float | None = None
    g_high: float | None = None
    r"""The generalizability coefficient :math:`E\rho^2 = \sigma_o^2 / (\sigma_o^2 +
    \sigma_\delta^2)` with its interval (None without an object of measurement)."""
    phi: float | None = None
    r"""The dependability coefficient :math:`\Phi = \sigma_o^2 / (\sigma_o^2 +
    \sigma_\Delta^2)` (absolute decisions; None without an object of measurement)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionStudyResult(Result):
    """SE and MDE of a score or a paired difference under other designs; with costs, the
    design that buys the most for a budget, or reaches a target for the least."""

    kind: ClassVar[str] = "decision-study"

    estimand: str
    facets: tuple[str, ...]
    current: tuple[int, ...]
    """Levels of each facet in the data."""
    designs: tuple[ProjectedDesign, ...]
    alpha: float
    power: float
    confidence_level: float
    object_of_measurement: str | None = None
    """The facet whose levels are told apart (``"model"`` on a leaderboard), or None."""
    costs: tuple[tuple[str, float], ...] = ()
    """``(combination of facets, cost of each of its combinations of levels)``."""
    budget: float | None = None
    half_width: float | None = None
    """The target: the half-width of the (1 - alpha) interval of the estimand (with an
    object of measurement: of the difference between two objects)."""
    allocation: ProjectedDesign | None = None
    """The design that minimises the error within ``budget``, or reaches ``half_width``
    for the least cost (None without either)."""
    allocation_low: tuple[int, ...] | None = None
    allocation_high: tuple[int, ...] | None = None
    """The percentile range of each facet's optimal levels over the resamples."""
    cost_low: float | None = None
    cost_high: float | None = None
    """For ``half_width``: the percentile range of the least cost that reaches it."""
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "decision-study",
            "schema_version": SCHEMA_VERSION,
            "estimand": self.estimand,
            "object_of_measurement": self.object_of_measurement,
            "facets": list(self.facets),
            "current": list(self.current),
            "alpha": self.alpha,
            "power": self.power,
            "confidence_level": self.confidence_level,
            "designs": [_design(d) for d in self.designs],
            "costs": dict(self.costs),
            "budget": self.budget,
            "half_width": self.half_width,
            "allocation": None if self.allocation is None else _design(self.allocation),
            "allocation_low": None if self.allocation_low is None else list(self.allocation_low),
            "allocation_high": (
                None if self.allocation_high is None else list(self.allocation_high)
            ),
            "cost_low": self.cost_low,
            "cost_high": self.cost_high,
            "notes": list(self.notes),
            "nulls": _nulls(self),
        }

    def to_frame(self) -> Any:
        """One row a design: each facet's levels, scores, SE (with its interval), MDE,
        cost, and the G and Phi coefficients."""
        from evalsig._frame import data_frame, floats, ints

        columns: dict[str, Any] = {
            facet: ints(d.levels[i] for d in self.designs) for i, facet in enumerate(self.facets)
        }
        columns |= {
            "scores": ints(d.scores for d in self.designs),
            **{
                name: floats(getattr(d, name) for d in self.designs)
                for name in ("se", "se_low", "se_high", "mde", "cost", "g", "g_low", "g_high")
            },
            "phi": floats(d.phi for d in self.designs),
        }
        return data_frame(columns)


def _design(d: ProjectedDesign) -> dict[str, Any]:
    return {
        "levels": list(d.levels),
        "scores": d.scores,
        "se": d.se,
        "se_low": d.se_low,
        "se_high": d.se_high,
        "mde": d.mde,
        "cost": d.cost,
        "g": d.g,
        "g_low": d.g_low,
        "g_high": d.g_high,
        "phi": d.phi,
    }


def _nulls(r: DecisionStudyResult) -> dict[str, str]:
    nulls: dict[str, str] = {}
    no_draws = "no bootstrap resamples of the components (n_resamples=0)"
    if r.designs and r.designs[0].se_low is None:
        nulls["designs[].se_low"] = nulls["designs[].se_high"] = no_draws
    if r.estimand == "score" and r.object_of_measurement is None:
        nulls["designs[].mde"] = (
            "one model's score: the MDE is of a paired difference; decompose the "
            "difference (variance_sources with baseline=) or name the object of measurement"
        )
    if r.object_of_measurement is None:
        nulls["designs[].g"] = nulls["designs[].g_low"] = nulls["designs[].g_high"] = (
            "no object of measurement: G and Phi are for telling models apart "
            "(object_of_measurement='model')"
        )
        nulls["designs[].phi"] = nulls["designs[].g"]
    elif r.designs and r.designs[0].g_low is None:
        nulls["designs[].g_low"] = nulls["designs[].g_high"] = no_draws
    if not r.costs:
        nulls["designs[].cost"] = "no costs given"
    if r.budget is None:
        nulls["budget"] = "no budget given"
    if r.half_width is None:
        nulls["half_width"] = "no target half-width given"
    if r.allocation is None:
        nulls["allocation"] = "no budget or target half-width given"
    if r.allocation_low is None:
        nulls["allocation_low"] = nulls["allocation_high"] = (
            "no allocation" if r.allocation is None else no_draws
        )
    if r.cost_low is None:
        nulls["cost_low"] = "no target half-width" if r.half_width is None else "no resamples"
    if r.cost_high is None:
        nulls["cost_high"] = (
            "no target half-width"
            if r.half_width is None
            else "no resamples, or some resamples need more than the caps allow (see notes)"
        )
    return nulls


def decision_study(
    sources: VarianceSourcesResult,
    /,
    *,
    designs: Sequence[Mapping[str, int]] | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    object_of_measurement: str | None = None,
    costs: Mapping[str, float] | None = None,
    budget: float | None = None,
    half_width: float | None = None,
    max_levels: Mapping[str, int] | None = None,
) -> DecisionStudyResult:
    """Project a score's SE (and a paired difference's MDE) to other designs; with costs,
    find the design that buys the most for a budget or reaches a target for the least.

    Parameters
    ----------
    sources : VarianceSourcesResult
        The components, from :func:`evalsig.facets.variance_sources` (with bootstrap
        resamples, for the intervals).
    designs : sequence of mappings of facet to levels, optional
        Each a design (``{"prompt": 10, "run": 1}``); a facet not named keeps its levels.
        Default: each facet at 0.5, 1, 2 and 4 times its levels, the others as they are.
    alpha, power : float
        Of the MDE (two-sided) and of the target half-width's interval (1 - alpha).
    object_of_measurement : str, optional
        A facet whose levels are to be told apart, not averaged over (``"model"``, when the
        table holds several models' scores with a model column among the facets): each
        design then gets the generalizability coefficient G and the dependability Phi, its
        SE is that of one model's score and its MDE that of the difference between two
        models (on the same items, prompts and runs). Its levels are not projected.
    costs : mapping of str to float, optional
        The cost of each combination of levels of a facet, or of facets joined by ``:``
        (``{"item:prompt:run": 0.01, "item:prompt:run:judge": 0.002}``: a model call for
        every item, prompt and run, a judge call for each of those and every judge). Every
        design gets its cost.
    budget, half_width : float, optional
        With ``costs``, one of the two: the design of least error that costs at most
        ``budget``, or the cheapest whose (1 - alpha) interval has at most this half-width
        (of the score, the paired difference, or two objects' difference). The search is
        repeated on the components' resamples, and the range of the optimum reported.
    max_levels : mapping of str to int, optional
        The most levels of a facet the search may choose (a benchmark's items are finite):
        the facet with the most levels is solved in closed form and unbounded without
        this; the others are searched from 1 to this (default 4 times today's, at least 8).

    Returns
    -------
    DecisionStudyResult

    Notes
    -----
    See the module's docstring; the allocation is described in
    :mod:`evalsig.facets.allocation`. The projection assumes a complete design (every
    combination of the facets' levels scored): on data with missing cells, its SE at the
    current levels is a little below the one :func:`variance_sources` reports.

    Examples
    --------
    >>> import numpy as np
    >>> from evalsig.facets import variance_sources
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(60), 4), np.tile(np.arange(4), 60)
    >>> y = rng.normal(0, 1, 60)[item] + rng.normal(0, 0.3, 4)[prompt] + rng.normal(0, 1, 240)
    >>> sources = variance_sources({"item": item, "prompt": prompt, "score": y},
    ...                            facets=["item", "prompt"], n_resamples=0)
    >>> study = decision_study(sources, costs={"item:prompt": 1.0}, budget=400)
    >>> study.allocation.cost <= 400
    True
    """
    alpha, power = check_alpha(alpha), check_power(power)
    facets = sources.facets
    current = tuple(_levels(sources, facet) for facet in facets)
    obj = _object(object_of_measurement, sources)
    wanted = _designs(designs, facets, current, obj)
    terms = Terms.of(sources)
    project = _Projector(terms, obj, sources.estimand, alpha, power, sources.confidence_level)
    parsed = parse_costs(costs, facets) if costs is not None else ()
    out = [project(levels, parsed, facets) for levels in wanted]
    notes = []
    if terms.draws is None:
        notes.append("no bootstrap resamples of the components: the SEs have no interval")
    found = None
    if budget is not None or half_width is not None:
        found = _allocation(
            terms, project, parsed, facets, obj, budget, half_width, max_levels, costs
        )
        notes += found.notes
    return DecisionStudyResult(
        estimand=sources.estimand,
        facets=facets,
        current=current,
        designs=tuple(out),
        alpha=alpha,
        power=power,
        confidence_level=sources.confidence_level,
        object_of_measurement=object_of_measurement,
        costs=parsed,
        budget=None if budget is None else float(budget),
        half_width=None if half_width is None else float(half_width),
        allocation=None if found is None else project(found.levels, parsed, facets),
        allocation_low=None if found is None else found.levels_low,
        allocation_high=None if found is None else found.levels_high,
        cost_low=None if found is None else found.cost_low,
        cost_high=None if found is None else found.cost_high,
        notes=tuple(notes),
    )


@dataclass(frozen=True, slots=True)
class _Projector:
    """A design's SE, MDE, G and Phi, with their intervals over the resamples."""

    terms: Terms
    obj: int | None
    estimand: str
    alpha: float
    power: float
    confidence_level: float

    def __call__(
        self, levels: tuple[int, ...], costs: Costs, facets: tuple[str, ...]
    ) -> ProjectedDesign:
        terms, obj = self.terms, self.obj
        divisors = terms.divisors(np.array([levels], dtype=np.float64))[0]
        absolute = terms.weights(obj, relative=False) / divisors
        relative = terms.weights(obj, relative=True) / divisors
        v, draws = terms.variances, terms.draws
        tail = (1 - self.confidence_level) / 2
        se = math.sqrt(float(absolute @ v))
        se_low = se_high = None
        if draws is not None:
            resampled = np.sqrt(draws @ absolute)
            se_low, se_high = (float(x) for x in np.quantile(resampled, [tail, 1 - tail]))
        multiplier = z_upper(self.alpha / 2) + z_upper(1 - self.power)
        mde = None
        if obj is not None:
            mde = multiplier * math.sqrt(2 * float(relative @ v))
        elif self.estimand == "difference":
            mde = multiplier * se
        g = g_low = g_high = phi = None
        if obj is not None:
            own, own_draws = terms.object_variance(obj)
            g, phi = _ratio(own, float(relative @ v)), _ratio(own, float(absolute @ v))
            if own_draws is not None and draws is not None:
                drawn = own_draws / (own_draws + draws @ relative)
                g_low, g_high = (float(x) for x in np.nanquantile(drawn, [tail, 1 - tail]))
        return ProjectedDesign(
            levels=tuple(int(n) for n in levels),
            scores=math.prod(int(n) for n in levels),
            se=se,
            se_low=se_low,
            se_high=se_high,
            mde=mde,
            cost=float(design_costs(costs, facets, np.array([levels], float))[0])
            if costs
            else None,
            g=g,
            g_low=g_low,
            g_high=g_high,
            phi=phi,
        )

    def target(self, half_width: float) -> float:
        """The error variance a (1 - alpha) interval of this half-width allows."""
        allowed = (half_width / z_upper(self.alpha / 2)) ** 2
        return allowed / 2 if self.obj is not None else allowed


def _ratio(own: float, error: float) -> float | None:
    return own / (own + error) if own + error > 0 else None


def _allocation(
    terms: Terms,
    project: _Projector,
    costs: Costs,
    facets: tuple[str, ...],
    obj: int | None,
    budget: float | None,
    half_width: float | None,
    max_levels: Mapping[str, int] | None,
    given: Mapping[str, float] | None,
) -> Allocation:
    if given is None:
        raise DataError(
            "a budget or a target half-width needs `costs`, e.g. costs={'item:prompt:run': 0.01}."
        )
    if (budget is None) == (half_width is None):
        raise DataError("give `budget` or `half_width`, not both.")
    for name, value in (("budget", budget), ("half_width", half_width)):
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not value > 0
            or not math.isfinite(value)
        ):
            raise DataError(f"`{name}` is {value!r}; give a finite number above 0.")
    caps = {}
    for name, cap in (max_levels or {}).items():
        if name not in facets or isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise DataError(
                f"`max_levels` {{{name!r}: {cap!r}}}: give a facet of the study "
                f"({list(facets)}) and a whole number of levels at least 1."
            )
        caps[facets.index(name)] = cap
    vary = [i for i in range(len(facets)) if i != obj]
    weights = terms.weights(obj, relative=True)
    return allocate(
        terms,
        weights,
        costs,
        facets,
        vary=vary,
        caps=caps,
        budget=None if budget is None else float(budget),
        target=None if half_width is None else project.target(float(half_width)),
        confidence_level=project.confidence_level,
    )


def _object(name: str | None, sources: VarianceSourcesResult) -> int | None:
    if name is None:
        return None
    if name not in sources.facets:
        raise DataError(
            f"`object_of_measurement` {name!r} is not a facet of the study; the facets are "
            f"{list(sources.facets)}."
        )
    if sources.estimand == "difference":
        raise DataError(
            "`object_of_measurement` is for a table of several objects' scores (a model "
            "column among the facets), not for a paired difference; decompose the table "
            "without `baseline`."
        )
    if len(sources.facets) < 2:
        raise DataError(
            f"with {name!r} the object of measurement, the study needs another facet to "
            "project (items, prompts, runs)."
        )
    return sources.facets.index(name)


def _levels(sources: VarianceSourcesResult, facet: str) -> int:
    return next(row.levels for row in sources.terms if row.term == facet)


def _facets_of(term: str, facets: tuple[str, ...]) -> list[int]:
    """The facets a term runs over (all of them for the residual)."""
    if term == "residual":
        return list(range(len(facets)))
    return [facets.index(name) for name in term.split(":")]


def _designs(
    designs: Sequence[Mapping[str, int]] | None,
    facets: tuple[str, ...],
    current: tuple[int, ...],
    obj: int | None,
) -> list[tuple[int, ...]]:
    if designs is None:
        found: list[tuple[int, ...]] = []
        for i in (i for i in range(len(facets)) if i != obj):
            for scale in SCALES:
                changed = list(current)
                changed[i] = max(1, round(current[i] * scale))
                if tuple(changed) not in found:
                    found.append(tuple(changed))
        return found
    out: list[tuple[int, ...]] = []
    for design in designs:
        unknown = sorted(set(design) - set(facets))
        if unknown:
            raise DataError(
                f"design {dict(design)!r} names {unknown[0]!r}, not a facet of the study; "
                f"the facets are {list(facets)}."
            )
        if obj is not None and facets[obj] in design and design[facets[obj]] != current[obj]:
            raise DataError(
                f"design {dict(design)!r} changes {facets[obj]!r}, the object of measurement: "
                "its levels are what is told apart, not a facet of the design."
            )
        levels = tuple(int(design.get(facet, n)) for facet, n in zip(facets, current, strict=True))
        if min(levels) < 1:
            raise DataError(f"design {dict(design)!r} has a facet with fewer than 1 level.")
        out.append(levels)
    return out
