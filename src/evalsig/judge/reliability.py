r"""Agreement among several raters per item: Fleiss' kappa and Krippendorff's alpha.

The ratings are an ``items x raters`` table: the judge's samples, several humans, or the
judge beside the humans.

**Fleiss' kappa** (all items rated by the same number :math:`m` of raters). With
:math:`n_{ij}` the raters putting item :math:`i` in category :math:`j`,
:math:`p_j = \sum_i n_{ij} / (N m)`, :math:`P_i = (\sum_j n_{ij}^2 - m) / (m (m - 1))`,

.. math:: \kappa = \frac{\bar P - P_e}{1 - P_e}, \quad P_e = \sum_j p_j^2,

and the large-sample variance under the null of no agreement beyond chance (Fleiss, Nee
and Landis 1979)

.. math:: \mathrm{Var}_0(\hat\kappa) = \frac{2}{N m (m - 1)}
   \frac{(\sum_j p_j q_j)^2 - \sum_j p_j q_j (q_j - p_j)}{(\sum_j p_j q_j)^2},
   \quad q_j = 1 - p_j,

which gives the z-test of kappa = 0. That variance holds only under the null, so the
interval is a percentile bootstrap over items.

**Krippendorff's alpha** (any number of raters per item, missing ratings allowed).
From the coincidence matrix :math:`o_{ck} = \sum_u (\text{c-k pairs in unit } u) / (m_u - 1)`
over the units with :math:`m_u \ge 2` ratings, its margins :math:`n_c` and total :math:`n`,

.. math:: \alpha = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
   {\sum_{c,k} n_c n_k\,\delta^2_{ck}},

with :math:`\delta^2_{ck} = [c \ne k]` (nominal), :math:`(c - k)^2` (interval) or
:math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (ordinal, over the sorted values). Its
interval is a percentile bootstrap over items.

References
----------
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological
Bulletin* 76(5), 378-382.
Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance of kappa in the
case of different sets of raters. *Psychological Bulletin* 86(5), 974-977.
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
Communication, University of Pennsylvania.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.errors import DataError
from evalsig.inference._common import ConfidenceInterval, as_generator, check_confidence_level
from evalsig.judge._input import check_label_set
from evalsig.result import Result

__all__ = [
    "AlphaMetric",
    "RaterAgreement",
    "Reliability",
    "fleiss_kappa",
    "krippendorff_alpha",
    "rater_agreement",
]

AlphaMetric = Literal["nominal", "ordinal", "interval"]
"""Krippendorff's difference functions: categories, ranks, or numbers on an interval scale."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reliability:
    """A multi-rater agreement coefficient with its bootstrap-over-items interval."""

    statistic: Literal["fleiss-kappa", "krippendorff-alpha"]
    metric: AlphaMetric
    estimate: float
    ci: ConfidenceInterval
    """Percentile bootstrap over items (NaN bounds when no resample was defined)."""
    n_items: int
    """Items that entered the coefficient (for alpha: those with two ratings or more)."""
    n_raters: int
    n_ratings: int
    n_resamples: int
    null_se: float | None = None
    """Fleiss' kappa only: the standard error under no agreement beyond chance."""
    zstatistic: float | None = None
    pvalue: float | None = None
    """Fleiss' kappa only: two-sided z-test of kappa = 0 with ``null_se``."""
    notes: tuple[str, ...] = ()

    def to_dict(self, where: str = "", nulls: dict[str, str] | None = None) -> dict[str, Any]:
        """JSON-safe fields; NaN becomes null, explained in ``nulls`` under ``where``."""
        nulls = {} if nulls is None else nulls
        prefix = f"{where}." if where else ""
        return {
            "statistic": self.statistic,
            "metric": self.metric,
            "estimate": json_safe(self.estimate, f"{prefix}estimate", nulls, "undefined"),
            "ci": {
                "low": json_safe(self.ci.low, f"{prefix}ci.low", nulls, "no defined resample"),
                "high": json_safe(self.ci.high, f"{prefix}ci.high", nulls, "no defined resample"),
                "confidence_level": self.ci.confidence_level,
            },
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "n_ratings": self.n_ratings,
            "n_resamples": self.n_resamples,
            "null_se": json_safe(self.null_se, f"{prefix}null_se", nulls, "undefined"),
            "zstatistic": json_safe(self.zstatistic, f"{prefix}zstatistic", nulls, "undefined"),
            "pvalue": json_safe(self.pvalue, f"{prefix}pvalue", nulls, "undefined"),
            "notes": list(self.notes),
        }

    def to_frame(self) -> Any:
        """One row: statistic, metric, estimate, ci_low, ci_high, pvalue (NaN for alpha,
        and where the JSON has null), n_items, n_raters, n_ratings."""
        return _frame([self])

    def __str__(self) -> str:
        name = "Fleiss' kappa" if self.statistic == "fleiss-kappa" else "Krippendorff's alpha"
        if self.statistic == "krippendorff-alpha":
            name += f" ({self.metric})"
        level = f"{100 * self.ci.confidence_level:g}%"
        text = (
            f"{name} = {self.estimate:.4g} ({level} bootstrap CI {self.ci.low:.4g} to "
            f"{self.ci.high:.4g}; {self.n_items:,} items, {self.n_raters} raters)"
        )
        if self.pvalue is not None:
            text += f", z = {self.zstatistic:.4g}, p = {self.pvalue:.4g} (kappa = 0)"
        return "\n".join([text] + [f"note: {note}" for note in self.notes])


def _frame(coefficients: list[Reliability]) -> Any:
    from evalsig._frame import data_frame, floats, ints

    return data_frame(
        {
            "statistic": [c.statistic for c in coefficients],
            "metric": [c.metric for c in coefficients],
            "estimate": floats(c.estimate for c in coefficients),
            "ci_low": floats(c.ci.low for c in coefficients),
            "ci_high": floats(c.ci.high for c in coefficients),
            "pvalue": floats(math.nan if c.pvalue is None else c.pvalue for c in coefficients),
            "n_items": ints(c.n_items for c in coefficients),
            "n_raters": ints(c.n_raters for c in coefficients),
            "n_ratings": ints(c.n_ratings for c in coefficients),
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RaterAgreement(Result):
    """Agreement among several raters per item (JSON kind ``"rater-agreement"``):
    Krippendorff's alpha, and Fleiss' kappa when every item has every rating."""

    kind: ClassVar[str] = "rater-agreement"

    n_items: int
    """Items given (alpha uses those with two ratings or more: its ``n_items``)."""
    raters: tuple[str, ...]
    categories: tuple[str, ...]
    """The values given, in sorted order."""
    fleiss_kappa: Reliability | None
    """None when some ratings are missing (see notes)."""
    krippendorff_alpha: Reliability
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        if self.fleiss_kappa is None:
            nulls["fleiss_kappa"] = "some items lack ratings: Fleiss' kappa needs them all"
        return {
            "kind": "rater-agreement",
            "schema_version": SCHEMA_VERSION,
            "n_items": self.n_items,
            "raters": list(self.raters),
            "categories": list(self.categories),
            "fleiss_kappa": None
            if self.fleiss_kappa is None
            else self.fleiss_kappa.to_dict("fleiss_kappa", nulls),
            "krippendorff_alpha": self.krippendorff_alpha.to_dict("krippendorff_alpha", nulls),
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per coefficient (Fleiss' kappa when defined, Krippendorff's alpha), the
        columns of :meth:`Reliability.to_frame`."""
        return _frame([c for c in (self.fleiss_kappa, self.krippendorff_alpha) if c is not None])


def rater_agreement(
    ratings: Any,
    /,
    *,
    raters: Any = None,
    metric: AlphaMetric = "nominal",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> RaterAgreement:
    """Krippendorff's alpha and (with no missing rating) Fleiss' kappa of an ``items x
    raters`` table, with bootstrap-over-items intervals drawn from one generator.

    Parameters
    ----------
    ratings : array_like, 2-D
        One row per item, one column per rater; None or NaN where a rater did not rate.
    raters : sequence of str, optional
        The raters' names, one per column (default ``rater 1``, ``rater 2``, ...).
    metric : {"nominal", "ordinal", "interval"}
        Krippendorff's alpha's metric (Fleiss' kappa is always nominal).
    confidence_level : float
    n_resamples : int
        Bootstrap resamples of the items, for each coefficient's interval.
    rng : numpy.random.Generator, int or None
        One generator draws both coefficients' resamples (alpha's first).

    Returns
    -------
    RaterAgreement

    Examples
    --------
    >>> ratings = [[1, 1, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0]]
    >>> result = rater_agreement(ratings, rng=0)
    >>> round(result.fleiss_kappa.estimate, 4), round(result.krippendorff_alpha.estimate, 4)
    (0.5556, 0.5802)
    """
    table = _table(ratings, "ratings")
    flat = [v for row in table for v in row if not (v is None or v != v)]
    check_label_set(flat, "ratings", rows=len(flat), scale=metric)
    width = len(table[0])
    names = tuple(f"rater {i + 1}" for i in range(width)) if raters is None else _names(raters)
    if len(names) != width:
        raise DataError(
            f"`raters` names {len(names)} raters but `ratings` has {width} columns; give one "
            "name per column."
        )
    generator = as_generator(rng)
    common: dict[str, Any] = {"confidence_level": confidence_level, "n_resamples": n_resamples}
    alpha = krippendorff_alpha(table, metric=metric, rng=generator, **common)
    missing = sum(any(v is None or v != v for v in row) for row in table)
    notes: list[str] = []
    fleiss = None
    if missing:
        notes.append(
            f"{missing:,} of {len(table):,} item(s) lack some rater's rating: Fleiss' kappa needs "
            "every item rated by every rater, so only Krippendorff's alpha is given."
        )
    else:
        fleiss = fleiss_kappa(table, rng=generator, **common)
    values = sorted(
        {v for row in table for v in row if not (v is None or v != v)},
        key=lambda v: (str(type(v)), v),
    )
    return RaterAgreement(
        n_items=len(table),
        raters=names,
        categories=tuple(str(v) for v in values),
        fleiss_kappa=fleiss,
        krippendorff_alpha=alpha,
        notes=tuple(notes),
    )


def _names(raters: Any) -> tuple[str, ...]:
    if isinstance(raters, str) or not hasattr(raters, "__len__"):
        raise DataError(f"`raters` must be a sequence of names; got {raters!r:.60}.")
    names = tuple(str(r) for r in raters)
    if len(set(names)) != len(names):
        raise DataError(f"`raters` has repeated names ({list(names)!r:.80}); name each once.")
    return names


def fleiss_kappa(
    ratings: Any,
    /,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> Reliability:
    """Fleiss' kappa of an ``items x raters`` table of category labels.

    Parameters
    ----------
    ratings : array_like, 2-D
        One row per item, one column per rating (each item rated the same number of times,
        at least 2; no missing labels: use :func:`krippendorff_alpha` for those).
    confidence_level : float
    n_resamples : int
        Bootstrap resamples of the items for the interval.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    Reliability
        ``estimate``, the bootstrap ``ci``, and ``null_se``, ``zstatistic``, ``pvalue``
        (Fleiss, Nee and Landis 1979).

    Examples
    --------
    >>> ratings = [[1, 1, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0]]
    >>> result = fleiss_kappa(ratings, rng=0)
    >>> round(result.estimate, 4), round(result.null_se, 4)
    (0.5556, 0.2357)
    """
    level = check_confidence_level(confidence_level)
    resamples = _check_resamples(n_resamples)
    table = _table(ratings, "ratings")
    if any(v is None or v != v for row in table for v in row):
        raise DataError(
            "`ratings` has missing labels: Fleiss' kappa needs every item rated the same "
            "number of times. Use krippendorff_alpha, which allows missing ratings."
        )
    categories = sorted({v for row in table for v in row}, key=lambda v: (str(type(v)), v))
    index = {c: i for i, c in enumerate(categories)}
    n_items, m = len(table), len(table[0])
    counts = np.zeros((n_items, len(categories)))
    columns = np.array([index[v] for row in table for v in row], dtype=np.intp)
    np.add.at(counts, (np.repeat(np.arange(n_items), m), columns), 1)
    estimate = _fleiss(counts.sum(axis=0), float(np.sum(counts**2)), n_items, m)
    notes: list[str] = []
    p = counts.sum(axis=0) / (n_items * m)
    spread = float(np.sum(p * (1.0 - p)))
    null_se = z = pvalue = math.nan
    if spread > 0:
        numerator = spread**2 - float(np.sum(p * (1.0 - p) * (1.0 - 2.0 * p)))
        null_se = math.sqrt(2.0 * numerator / (n_items * m * (m - 1))) / spread
        z = estimate / null_se
        pvalue = float(2.0 * special.ndtr(-abs(z)))
    else:
        notes.append("every rating is the same category: kappa is undefined.")
    squares = np.sum(counts**2, axis=1)

    def statistic(idx: np.ndarray) -> float:
        return _fleiss(counts[idx].sum(axis=0), float(squares[idx].sum()), n_items, m)

    ci = _bootstrap(statistic, n_items, resamples, level, rng, notes)
    return Reliability(
        statistic="fleiss-kappa",
        metric="nominal",
        estimate=estimate,
        ci=ci,
        n_items=n_items,
        n_raters=m,
        n_ratings=n_items * m,
        n_resamples=resamples,
        null_se=null_se,
        zstatistic=z,
        pvalue=pvalue,
        notes=tuple(notes),
    )


def krippendorff_alpha(
    ratings: Any,
    /,
    *,
    metric: AlphaMetric = "nominal",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> Reliability:
    """Krippendorff's alpha of an ``items x raters`` table (None or NaN: not rated).

    Parameters
    ----------
    ratings : array_like, 2-D
        One row per item, one column per rater. Items with fewer than two ratings carry
        no information on agreement and do not enter alpha (the notes count them).
    metric : {"nominal", "ordinal", "interval"}
        Ordinal and interval need numbers (ordinal uses only their order).
    confidence_level : float
    n_resamples : int
        Bootstrap resamples of the items for the interval.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    Reliability

    Examples
    --------
    Krippendorff's (2011) worked example, 4 coders and 12 units (rows are units here):

    >>> nan = float("nan")
    >>> coders = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...           [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...           [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...           [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> units = list(zip(*coders))
    >>> [round(krippendorff_alpha(units, metric=m, rng=0).estimate, 3)
    ...  for m in ("nominal", "ordinal", "interval")]
    [0.743, 0.815, 0.849]
    """
    level = check_confidence_level(confidence_level)
    resamples = _check_resamples(n_resamples)
    if metric not in get_args(AlphaMetric):
        raise DataError(
            f"`metric` is {metric!r}; choose one of {', '.join(get_args(AlphaMetric))}."
        )
    table = _table(ratings, "ratings")
    present = [[v for v in row if not (v is None or v != v)] for row in table]
    values = sorted({v for row in present for v in row}, key=lambda v: (str(type(v)), v))
    if metric != "nominal":
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            raise DataError(
                f"`ratings` has non-numeric values ({bad[:3]!r}) but metric={metric!r} needs "
                "numbers; map the labels to numbers or use metric='nominal'."
            )
    index = {v: i for i, v in enumerate(values)}
    units = np.array([i for i, row in enumerate(present) for _ in row], dtype=np.intp)
    codes = np.array([index[v] for row in present for v in row], dtype=np.intp)
    rated = np.bincount(units, minlength=len(table))
    pairable = rated >= 2
    notes: list[str] = []
    if not pairable.all():
        notes.append(
            f"{int((~pairable).sum())} item(s) with fewer than two ratings carry no "
            "information on agreement and do not enter alpha."
        )
    if not pairable.any():
        raise DataError(
            "no item of `ratings` has two ratings or more: alpha needs items rated twice."
        )
    keep = pairable[units]
    renumber = np.cumsum(pairable) - 1
    numbers = np.array(values, dtype=float) if metric != "nominal" else np.zeros(len(values))
    statistic = _alpha_statistic(
        renumber[units[keep]], codes[keep], numbers - numbers.mean(), len(values), metric
    )
    n_items = int(pairable.sum())
    estimate = statistic(np.arange(n_items))
    if math.isnan(estimate):
        notes.append("all ratings agree on one value: there is no variation, alpha is undefined.")
    ci = _bootstrap(statistic, n_items, resamples, level, rng, notes)
    return Reliability(
        statistic="krippendorff-alpha",
        metric=metric,
        estimate=estimate,
        ci=ci,
        n_items=n_items,
        n_raters=len(table[0]),
        n_ratings=int(keep.sum()),
        n_resamples=resamples,
        notes=tuple(notes),
    )


def _fleiss(totals: np.ndarray, squares: float, n_items: int, m: int) -> float:
    p = totals / (n_items * m)
    expected = float(np.sum(p**2))
    if expected >= 1.0:
        return math.nan
    observed = (squares - n_items * m) / (n_items * m * (m - 1))
    return (observed - expected) / (1.0 - expected)


def _alpha_statistic(
    units: np.ndarray, codes: np.ndarray, numbers: np.ndarray, n_values: int, metric: AlphaMetric
) -> Callable[[np.ndarray], float]:
    """Alpha of a resample of the items (given as item indices, repeats allowed).

    ``units`` and ``codes`` give each rating's item (numbered from 0) and value index. Each
    item enters through its value counts :math:`n_{uc}` and its weight in the resample.
    Nominal and interval alpha need only each item's observed disagreement and the
    margins; ordinal alpha needs the coincidence matrix, as its distances depend on the
    margins.
    """
    cell, size = np.unique(units * n_values + codes, return_counts=True)
    unit, code, count = cell // n_values, cell % n_values, size.astype(float)
    n_items = int(unit.max()) + 1
    rated = np.bincount(unit, weights=count, minlength=n_items)
    if metric == "nominal":
        squares = np.bincount(unit, weights=count**2, minlength=n_items)
        observed = (rated**2 - squares) / (rated - 1.0)
    elif metric == "interval":
        x = numbers[code]
        first = np.bincount(unit, weights=count * x, minlength=n_items)
        second = np.bincount(unit, weights=count * x**2, minlength=n_items)
        observed = 2.0 * (rated * second - first**2) / (rated - 1.0)
    else:
        # Ordered pairs of value cells within each item: o_u[c, k] = (n_uc n_uk - [c = k] n_uc)
        # / (m_u - 1).
        cells = np.bincount(unit, minlength=n_items)
        start = np.concatenate([[0], np.cumsum(cells)[:-1]])
        repeats = cells[unit]
        left = np.repeat(np.arange(len(unit)), repeats)
        offset = np.arange(len(left)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        right = start[unit[left]] + offset
        same = (left == right).astype(float)
        pair_weight = (count[left] * count[right] - same * count[left]) / (rated[unit[left]] - 1.0)
        pair_cell = code[left] * n_values + code[right]
        pair_unit = unit[left]

    def statistic(idx: np.ndarray) -> float:
        w = np.bincount(idx, minlength=n_items).astype(float)
        margins = np.bincount(code, weights=w[unit] * count, minlength=n_values)
        n = float(margins.sum())
        if metric == "nominal":
            disagreement = float(w @ observed)
            expected = n**2 - float(margins @ margins)
        elif metric == "interval":
            disagreement = float(w @ observed)
            expected = 2.0 * (n * float(margins @ numbers**2) - float(margins @ numbers) ** 2)
        else:
            o = np.bincount(pair_cell, weights=w[pair_unit] * pair_weight, minlength=n_values**2)
            delta = _ordinal_distances(margins)
            disagreement = float(o @ delta.ravel())
            expected = float(margins @ delta @ margins)
        if not expected > 0.0:
            return math.nan
        return 1.0 - (n - 1.0) * disagreement / expected

    return statistic


def _ordinal_distances(margins: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal distances: (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2."""
    cumulative = np.cumsum(margins)
    positions = np.arange(len(margins))
    low = np.minimum.outer(positions, positions)
    high = np.maximum.outer(positions, positions)
    between = cumulative[high] - cumulative[low] + margins[low]
    distances: np.ndarray = (between - (margins[:, None] + margins[None, :]) / 2.0) ** 2
    return distances


def _bootstrap(
    statistic: Callable[[np.ndarray], float],
    n_items: int,
    n_resamples: int,
    level: float,
    rng: np.random.Generator | int | None,
    notes: list[str],
) -> ConfidenceInterval:
    """Percentile interval over resamples of the items; undefined resamples are counted."""
    generator = as_generator(rng)
    draws = np.array(
        [statistic(generator.integers(0, n_items, n_items)) for _ in range(n_resamples)]
    )
    defined = draws[np.isfinite(draws)]
    if len(defined) == 0:
        notes.append(
            f"all {n_resamples} bootstrap resamples had no variation: the interval is undefined."
        )
    elif len(defined) < n_resamples:
        notes.append(
            f"{n_resamples - len(defined)} of {n_resamples} bootstrap resamples had no "
            "variation (coefficient undefined); the interval uses the others."
        )
    if len(defined) == 0:
        return ConfidenceInterval(low=math.nan, high=math.nan, confidence_level=level)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return ConfidenceInterval(low=float(low), high=float(high), confidence_level=level)


def _check_resamples(n_resamples: int) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise DataError(f"`n_resamples` must be an integer; got {n_resamples!r}.")
    if n_resamples < 1:
        raise DataError(f"`n_resamples` is {n_resamples}; use at least 1 (2000 is typical).")
    return int(n_resamples)


def _table(ratings: Any, name: str) -> list[list[Any]]:
    if isinstance(ratings, str) or not hasattr(ratings, "__len__"):
        raise DataError(f"`{name}` must be an items x raters table; got {ratings!r:.60}.")
    rows = [list(row) if hasattr(row, "__len__") else None for row in ratings]
    if not rows or any(row is None or isinstance(row, str) for row in rows):
        raise DataError(
            f"`{name}` must be a non-empty items x raters table (one row of ratings per item)."
        )
    widths = {len(row) for row in rows if row is not None}
    if len(widths) != 1:
        raise DataError(
            f"`{name}` rows have different lengths ({sorted(widths)[:4]}): give one column "
            "per rater, with None or NaN where a rater did not rate the item."
        )
    if widths.pop() < 2:
        raise DataError(f"`{name}` has one rater per item: agreement needs at least 2 raters.")
    return [[v.item() if hasattr(v, "item") else v for v in row] for row in rows if row is not None]
