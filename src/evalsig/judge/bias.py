r"""Probes of two known biases of pairwise LLM judges: the position of a response and its
length.

**Position bias** is :math:`P(\text{the judge prefers the response shown first}) - 1/2`,
among the judgments that prefer a response: ties (a tie label, or a third choice that is
neither response) are counted apart and left out, as in a sign test.
With independent judgments its interval is the exact (Clopper-Pearson) interval of the
proportion, shifted by 1/2, and its test the exact binomial test of 1/2. When the same
pair was judged in both orders (``pair`` ids), the judgments of a pair are not independent:
the interval and z-test then use a cluster-robust variance with pairs as clusters,

.. math:: \widehat{\mathrm{Var}}(\hat p) = \frac{C}{C - 1} \sum_c \frac{(k_c - \hat p\,n_c)^2}{n^2},

and the **consistency rate** (the share of pairs judged in both orders where the judge chose
the same response every time) gets a Wilson interval.

**Length bias** is the association between the judge's preference for response A
(:math:`y = 1`) and the length difference :math:`x = \mathrm{len}(A) - \mathrm{len}(B)`: the
Pearson correlation (point-biserial; Fisher-z interval) and the slope :math:`\beta` of the
logistic regression :math:`\mathrm{logit}\,P(y = 1) = \alpha + \beta x` with a sandwich
(heteroskedasticity-robust) standard error :math:`A^{-1} B A^{-1}`, :math:`A = \sum_i
p_i(1 - p_i) z_i z_i^\top`, :math:`B = \sum_i (y_i - p_i)^2 z_i z_i^\top`. With human
preferences on some or all of the items, the same is computed for the humans, and the slope
difference judge - human gets a joint sandwich variance (both fits stacked as one
M-estimator, so the items the two share are accounted for).

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena.
*NeurIPS 2023 Datasets and Benchmarks*.
Dubois, Y. et al. (2024). Length-controlled AlpacaEval: a simple way to debias automatic
evaluators. arXiv:2404.04475.
White, H. (1980). A heteroskedasticity-consistent covariance matrix estimator and a direct
test for heteroskedasticity. *Econometrica* 48(4), 817-838.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.errors import DataError
from evalsig.inference._common import ConfidenceInterval, check_confidence_level
from evalsig.inference.proportion import proportion_interval
from evalsig.judge._input import finite_numbers
from evalsig.judge.agreement import Rate
from evalsig.judge.result import NormalEstimate, normal_interval
from evalsig.result import Result

if TYPE_CHECKING:
    pass

__all__ = [
    "TIE_LABELS",
    "Association",
    "LengthBias",
    "PositionBias",
    "length_bias",
    "length_difference",
    "position_bias",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PositionBias(Result):
    """The judge's preference for the first-shown response (JSON kind
    ``"judge-position-bias"``)."""

    kind: ClassVar[str] = "judge-position-bias"

    estimate: float
    """P(prefers the first shown) - 1/2: positive when the first position wins too often."""
    ci: ConfidenceInterval
    pvalue: float
    """Two-sided test of no position bias (exact binomial, or z with pairs as clusters)."""
    first_preferred: int
    n: int
    """Judgments that prefer a response (ties left out): the test's sample size."""
    ties: int = 0
    """Judgments that are ties (a tie label, or a third choice), left out of the test."""
    n_pairs: int | None
    """Pairs (``pair`` ids) when given, else None."""
    consistency: Rate | None
    """Share of pairs judged in both orders with the same choice every time."""
    method: str
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        if self.consistency is None:
            nulls["consistency"] = "no pair was judged in both orders"
        if self.n_pairs is None:
            nulls["n_pairs"] = "no pair ids given: judgments taken as independent"
        return {
            "kind": "judge-position-bias",
            "schema_version": SCHEMA_VERSION,
            "estimate": self.estimate,
            "ci": _ci(self.ci, "ci", nulls),
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, "undefined"),
            "first_preferred": self.first_preferred,
            "n": self.n,
            "ties": self.ties,
            "n_pairs": self.n_pairs,
            "consistency": None if self.consistency is None else self.consistency.to_dict(),
            "method": self.method,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row for the position bias, and one for the consistency rate when pairs were
        judged in both orders: estimate, ci_low, ci_high, pvalue (NaN for the rate),
        successes and n (first-shown wins of the judgments; consistent pairs of the pairs)."""
        from evalsig._frame import data_frame, floats, ints

        rows = [
            ("position bias", self.estimate, self.ci, self.pvalue, self.first_preferred, self.n)
        ]
        if self.consistency is not None:
            rate = self.consistency
            rows.append(("consistency", rate.estimate, rate.ci, math.nan, rate.successes, rate.n))
        return data_frame(
            {
                "quantity": [row[0] for row in rows],
                "estimate": floats(row[1] for row in rows),
                "ci_low": floats(row[2].low for row in rows),
                "ci_high": floats(row[2].high for row in rows),
                "pvalue": floats(row[3] for row in rows),
                "successes": ints(row[4] for row in rows),
                "n": ints(row[5] for row in rows),
            },
            attrs={"method": self.method, "n_pairs": self.n_pairs},
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Association:
    """Preference against length difference for one rater (the judge or the humans)."""

    n: int
    correlation: float
    correlation_ci: ConfidenceInterval
    slope: NormalEstimate
    """Logistic-regression slope per unit of length difference, sandwich SE."""
    pvalue: float
    """Two-sided z-test of slope = 0."""

    def to_dict(self, where: str, nulls: dict[str, str]) -> dict[str, Any]:
        return {
            "n": self.n,
            "correlation": json_safe(self.correlation, f"{where}.correlation", nulls, "undefined"),
            "correlation_ci": _ci(self.correlation_ci, f"{where}.correlation_ci", nulls),
            "slope": self.slope.to_dict(f"{where}.slope", nulls),
            "pvalue": json_safe(self.pvalue, f"{where}.pvalue", nulls, "undefined"),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LengthBias(Result):
    kind: ClassVar[str] = "judge-length-bias"
    """How the judge's preference follows the length difference, beside the humans'
    (JSON kind ``"judge-length-bias"``)."""

    judge: Association
    human: Association | None
    slope_difference: NormalEstimate | None
    """Judge slope - human slope, with the joint sandwich SE."""
    difference_pvalue: float | None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        if self.human is None:
            nulls["human"] = "no human preferences were given"
            nulls["slope_difference"] = "no human preferences were given"
        return {
            "kind": "judge-length-bias",
            "schema_version": SCHEMA_VERSION,
            "judge": self.judge.to_dict("judge", nulls),
            "human": None if self.human is None else self.human.to_dict("human", nulls),
            "slope_difference": None
            if self.slope_difference is None
            else self.slope_difference.to_dict("slope_difference", nulls),
            "difference_pvalue": json_safe(
                self.difference_pvalue, "difference_pvalue", nulls, "undefined"
            ),
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per rater (judge; human when given) and for the slope difference judge -
        human: n, correlation with its Fisher-z interval, logistic slope with its sandwich
        SE and interval, and the slope's p-value (NaN where not defined: the difference
        has no correlation, and its n is the judge's)."""
        from evalsig._frame import data_frame, floats, ints

        nan = math.nan
        level = self.judge.slope.ci.confidence_level
        raters = [("judge", self.judge)]
        if self.human is not None:
            raters.append(("human", self.human))
        rows = [(who, a.n, a.correlation, a.correlation_ci, a.slope, a.pvalue) for who, a in raters]
        if self.slope_difference is not None:
            blank = ConfidenceInterval(low=nan, high=nan, confidence_level=level)
            p = nan if self.difference_pvalue is None else self.difference_pvalue
            rows.append(("judge - human", self.judge.n, nan, blank, self.slope_difference, p))
        return data_frame(
            {
                "rater": [row[0] for row in rows],
                "n": ints(row[1] for row in rows),
                "correlation": floats(row[2] for row in rows),
                "correlation_ci_low": floats(row[3].low for row in rows),
                "correlation_ci_high": floats(row[3].high for row in rows),
                "slope": floats(row[4].estimate for row in rows),
                "slope_se": floats(row[4].se for row in rows),
                "slope_ci_low": floats(row[4].ci.low for row in rows),
                "slope_ci_high": floats(row[4].ci.high for row in rows),
                "pvalue": floats(row[5] for row in rows),
            }
        )


TIE_LABELS = ("tie", "draw", "tie (bothbad)", "tie (both bad)", "both", "neither", "equal")
"""Choices read as a tie by default (compared without case or surrounding spaces)."""


def position_bias(
    choice: Any,
    shown_first: Any,
    /,
    *,
    pair: Any = None,
    ties: Sequence[Any] = TIE_LABELS,
    confidence_level: float = 0.95,
) -> PositionBias:
    """How often a pairwise judge prefers the response it was shown first, minus 1/2.

    Parameters
    ----------
    choice, shown_first : sequence
        Per judgment, the response the judge preferred and the response shown first, in
        one vocabulary (``"A"``/``"B"``, model names, response ids).
    pair : sequence, optional
        Per judgment, the id of the pair judged; a pair judged in both orders gives a
        consistency rate, and pairs become clusters of the variance.
    ties : sequence, optional
        The choices that mean a tie (by default :data:`TIE_LABELS`; text compared without
        case). A third choice is a tie too: a choice that is neither response shown, when
        the responses are known (two values of ``shown_first`` in all, or a pair judged in
        both orders); a note names it.
    confidence_level : float

    Returns
    -------
    PositionBias
        Ties are counted (``ties``) and left out of the estimate and the test, as in a
        sign test: the estimate is P(first shown preferred | a response preferred) - 1/2.

    Raises
    ------
    DataError
        Missing values, sequences of different lengths, every judgment a tie, several
        unknown choices besides the first shown when the second response cannot be told,
        or one pair id for every judgment.

    Examples
    --------
    >>> first = ["A", "B", "A", "B", "A", "B", "A", "B"]
    >>> choice = ["A", "B", "A", "A", "A", "B", "B", "B"]
    >>> result = position_bias(choice, first)
    >>> result.estimate, result.first_preferred, result.n
    (0.25, 6, 8)
    >>> position_bias([*choice, "tie"], [*first, "A"]).ties
    1
    """
    level = check_confidence_level(confidence_level)
    chosen, first, ids = _judgments(choice, shown_first, pair)
    notes: list[str] = []
    tied = _ties(chosen, first, ids, ties, notes)
    total, n_ties = len(chosen), int(tied.sum())
    if n_ties == total:
        raise DataError(
            f"all {total} judgments are ties: position bias is read from judgments that "
            "prefer a response; give those (or check the tie labels, `ties`)."
        )
    if n_ties:
        notes.append(
            f"{n_ties:,} of {total:,} judgments are ties ({n_ties / total:.1%}): they are "
            "left out of the estimate and the test, as in a sign test; the estimate is "
            "P(first shown preferred | a response preferred) - 1/2."
        )
    decisive = np.flatnonzero(~tied)
    hits = np.array([chosen[i] == first[i] for i in decisive], dtype=float)
    if ids is None:
        return _exact_position_bias(hits, n_ties, level, notes)
    consistency = _consistency(chosen, first, ids, tied, level, notes)
    return _clustered_position_bias(hits, decisive, ids, n_ties, consistency, level, notes)


def _judgments(
    choice: Any, shown_first: Any, pair: Any
) -> tuple[list[Any], list[Any], list[Any] | None]:
    """The choices, the responses shown first and the pair ids, one per judgment."""
    chosen, first = _labels(choice, "choice"), _labels(shown_first, "shown_first")
    if len(chosen) != len(first):
        raise DataError(
            f"`choice` has {len(chosen)} judgments but `shown_first` has {len(first)}: give "
            "both for every judgment, in one order."
        )
    if len(chosen) < 1:
        raise DataError("no judgments: `choice` is empty.")
    ids = None if pair is None else _labels(pair, "pair")
    if ids is not None and len(ids) != len(chosen):
        raise DataError(
            f"`pair` has {len(ids)} ids but there are {len(chosen)} judgments: give one pair "
            "id per judgment."
        )
    return chosen, first, ids


def _exact_position_bias(
    hits: np.ndarray, n_ties: int, level: float, notes: list[str]
) -> PositionBias:
    """Independent judgments: the exact binomial test and Clopper-Pearson interval."""
    from scipy import stats

    n, k = len(hits), int(hits.sum())
    exact = proportion_interval(k, n, method="clopper-pearson", confidence_level=level)
    return PositionBias(
        estimate=k / n - 0.5,
        ci=ConfidenceInterval(low=exact.low - 0.5, high=exact.high - 0.5, confidence_level=level),
        pvalue=float(stats.binomtest(k, n, 0.5).pvalue),
        first_preferred=k,
        n=n,
        ties=n_ties,
        n_pairs=None,
        consistency=None,
        method="exact binomial (Clopper-Pearson)",
        notes=tuple(notes),
    )


def _consistency(
    chosen: list[Any],
    first: list[Any],
    ids: list[Any],
    tied: np.ndarray,
    level: float,
    notes: list[str],
) -> Rate | None:
    """The share of pairs judged in both orders that got the same verdict every time."""
    every: dict[Any, list[int]] = {}
    for i, key in enumerate(ids):
        every.setdefault(key, []).append(i)
    both = [g for g in every.values() if len({first[i] for i in g}) > 1]
    verdict = [_TIE if tied[i] else chosen[i] for i in range(len(chosen))]
    consistent = sum(len({verdict[i] for i in g}) == 1 for g in both)
    if not both:
        notes.append("no pair was judged in both orders: the consistency rate is undefined.")
        return None
    ci = proportion_interval(consistent, len(both), method="wilson", confidence_level=level)
    return Rate(estimate=consistent / len(both), successes=consistent, n=len(both), ci=ci)


def _clustered_position_bias(
    hits: np.ndarray,
    decisive: np.ndarray,
    ids: list[Any],
    n_ties: int,
    consistency: Rate | None,
    level: float,
    notes: list[str],
) -> PositionBias:
    """Pairs as clusters: the cluster-robust variance, normal interval and z-test."""
    n, k = len(hits), int(hits.sum())
    groups: dict[Any, list[int]] = {}
    for j, i in enumerate(decisive.tolist()):
        groups.setdefault(ids[i], []).append(j)
    clusters = len(groups)
    if clusters < 2:
        raise DataError(
            f"all {n} judgments that prefer a response share one `pair` id: a "
            "cluster-robust variance needs at least 2 pairs. Give each pair its own id."
        )
    p = k / n
    sums = np.array([hits[g].sum() - p * len(g) for g in groups.values()])
    se = math.sqrt(clusters / (clusters - 1.0) * float(np.sum(sums**2))) / n
    pvalue = float(2.0 * special.ndtr(-abs(p - 0.5) / se)) if se > 0 else math.nan
    if se == 0:
        notes.append("every pair has the same share of first-shown wins: the variance is zero.")
    return PositionBias(
        estimate=p - 0.5,
        ci=normal_interval(p - 0.5, se, level, bounds=(-0.5, 0.5)),
        pvalue=pvalue,
        first_preferred=k,
        n=n,
        ties=n_ties,
        n_pairs=clusters,
        consistency=consistency,
        method="normal, cluster-robust with pairs as clusters",
        notes=tuple(notes),
    )


_TIE = object()
"""A tie, as one choice (every tie label alike) when consistency compares choices."""


def _ties(
    chosen: list[Any],
    first: list[Any],
    ids: list[Any] | None,
    ties: Sequence[Any],
    notes: list[str],
) -> np.ndarray:
    """Which judgments are ties: a tie label, or a third choice (neither response shown,
    when the two responses are known: all of ``first``, or the pair's in both orders)."""
    if isinstance(ties, str) or not hasattr(ties, "__iter__"):
        raise DataError(f"`ties` must be a sequence of tie labels; got {ties!r:.60}.")
    try:
        named = {_folded(t) for t in ties}
        tied = np.array([_folded(c) in named for c in chosen], dtype=bool)
        responses = set(first)
    except TypeError:
        raise DataError(
            "`choice`, `shown_first` and `ties` must hold labels (text or numbers), one per "
            "judgment."
        ) from None
    shown: dict[Any, set[Any]] = {}
    for i, key in enumerate(ids or ()):
        shown.setdefault(key, set()).add(first[i])
    third: dict[Any, int] = {}
    unknown: set[Any] = set()
    for i, c in enumerate(chosen):
        if tied[i] or c == first[i]:
            continue
        known = responses if len(responses) == 2 else None
        if ids is not None and len(shown[ids[i]]) == 2:
            known = shown[ids[i]]
        if known is not None and c not in known:
            tied[i] = True
            third[c] = third.get(c, 0) + 1
        elif known is None:
            unknown.add(c)
    if third:
        values = ", ".join(
            f"{v!r} ({count:,} judgment{'' if count == 1 else 's'})"
            for v, count in list(third.items())[:3]
        )
        notes.append(
            f"the choice {values} is neither response shown: read as a tie (a third choice)."
            if len(third) == 1
            else f"the choices {values} are neither response shown: read as ties (a third choice)."
        )
    if len(responses) == 1 and len(unknown) > 1:
        raise DataError(
            f"`choice` has {len(unknown)} values besides the response shown first "
            f"({next(iter(responses))!r}), e.g. {sorted(map(repr, unknown))[:3]}, and the "
            "second response cannot be told from a tie: name the tie labels with `ties` "
            "(or show each response first in some judgments)."
        )
    return tied


def _folded(value: Any) -> Any:
    """Text compared without case or surrounding spaces; other values as they are."""
    return value.strip().casefold() if isinstance(value, str) else value


def length_bias(
    preference: Any,
    length_difference: Any,
    /,
    *,
    human: Any = None,
    confidence_level: float = 0.95,
) -> LengthBias:
    """How the judge's preference for response A follows len(A) - len(B), beside the humans'.

    Parameters
    ----------
    preference : sequence of 0/1
        Per item, 1 if the judge preferred response A, 0 if it preferred B.
    length_difference : sequence of numbers
        Per item, the length of A minus the length of B (in tokens, words or characters:
        the slope is per unit of it).
    human : sequence of 0/1 or None, optional
        The human preference per item (None or NaN where humans did not judge).
    confidence_level : float

    Returns
    -------
    LengthBias

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> diff = rng.normal(0, 100, 2000)
    >>> judge = (rng.random(2000) < 1 / (1 + np.exp(-diff / 50))).astype(int)
    >>> result = length_bias(judge, diff)
    >>> result.judge.slope.ci.contains(1 / 50)
    True
    """
    level = check_confidence_level(confidence_level)
    y = _binary(preference, "preference", allow_missing=False)
    x = _numbers(length_difference, "length_difference")
    if len(x) != len(y):
        raise DataError(
            f"`preference` has {len(y)} items but `length_difference` has {len(x)}: give "
            "both for every item, in one order."
        )
    scale = float(np.std(x))
    if not scale > 0:
        raise DataError(
            "`length_difference` is the same for every item: there is no length variation to "
            "relate the preference to."
        )
    notes: list[str] = []
    rows: list[tuple[np.ndarray, np.ndarray]] = [(y, np.ones(len(y), dtype=bool))]
    if human is not None:
        h = _binary(human, "human", allow_missing=True)
        if len(h) != len(y):
            raise DataError(
                f"`human` has {len(h)} items but `preference` has {len(y)}: give one human "
                "preference per item (None where there is none)."
            )
        rows.append((np.nan_to_num(h), ~np.isnan(h)))
    fits = [
        _logistic(yy, x / scale, mask, who, notes)
        for (yy, mask), who in zip(rows, WHO[: len(rows)], strict=True)
    ]
    scores = np.hstack([f[2] for f in fits])
    bread = np.zeros((2 * len(fits), 2 * len(fits)))
    for j, f in enumerate(fits):
        bread[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = f[1]
    cov = _sandwich(bread, scores) / scale**2
    associations = []
    for j, ((yy, mask), (beta, _, _)) in enumerate(zip(rows, fits, strict=True)):
        slope, se = float(beta[1]) / scale, math.sqrt(float(cov[2 * j + 1, 2 * j + 1]))
        associations.append(_association(yy[mask], x[mask], slope, se, level))
    difference = difference_p = None
    if len(fits) == 2:
        est = associations[0].slope.estimate - associations[1].slope.estimate
        var = cov[1, 1] + cov[3, 3] - 2.0 * cov[1, 3]
        se = math.sqrt(max(var, 0.0))
        difference = NormalEstimate(estimate=est, se=se, ci=normal_interval(est, se, level))
        difference_p = _two_sided(est, se)
    return LengthBias(
        judge=associations[0],
        human=associations[1] if len(associations) == 2 else None,
        slope_difference=difference,
        difference_pvalue=difference_p,
        notes=tuple(notes),
    )


def length_difference(length_a: Any, length_b: Any, /) -> np.ndarray:
    """``len(A) - len(B)`` per item, from the two responses' lengths (tokens, words or
    characters), each a finite number >= 0.

    Raises
    ------
    DataError
        A missing, infinite or negative length, or sequences of different lengths,
        naming the position and the value.

    >>> length_difference([120, 80], [100, 95]).tolist()
    [20.0, -15.0]
    """
    a, b = _numbers(length_a, "length_a"), _numbers(length_b, "length_b")
    if len(a) != len(b):
        raise DataError(
            f"`length_a` has {len(a)} items but `length_b` has {len(b)}: give both lengths "
            "of every item, in one order."
        )
    for name, values in (("length_a", a), ("length_b", b)):
        bad = np.flatnonzero(values < 0)
        if len(bad):
            raise DataError(
                f"`{name}` has {len(bad)} negative length(s) (position {int(bad[0])}: "
                f"{values[bad[0]]:g}); a length counts tokens, words or characters, so it "
                "is 0 or more. Check the column."
            )
    difference: np.ndarray = a - b
    return difference


WHO = ("judge", "human")


def _logistic(
    y: np.ndarray, x: np.ndarray, mask: np.ndarray, who: str, notes: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Newton fit of logit P(y) = a + b x on the masked items: (beta, bread, per-item
    scores, zero off the mask)."""
    z = np.column_stack([np.ones(len(x)), x]) * mask[:, None]
    yy, n = y[mask], int(mask.sum())
    if n < 3 or yy.min() == yy.max():
        raise DataError(
            f"the {who} preferences ({n} items) are all {int(yy[0]) if n else '-'} or fewer "
            "than 3: a logistic slope needs both preferences on at least 3 items."
        )
    beta = np.zeros(2)
    converged = False
    for _ in range(100):
        prob = special.expit(z @ beta)
        hessian = (z * (prob * (1.0 - prob) * mask)[:, None]).T @ z
        try:
            step = np.linalg.solve(hessian, z.T @ ((y - prob) * mask))
        except np.linalg.LinAlgError:
            break
        beta = beta + step
        if float(np.max(np.abs(step))) < 1e-10:
            converged = True
            break
    if not converged or float(np.max(np.abs(beta))) > 30.0:
        raise DataError(
            f"the {who} preferences are (almost) perfectly separated by `length_difference`: "
            "the logistic slope is infinite. Report the correlation, or add items where the "
            "shorter response wins."
        )
    prob = special.expit(z @ beta)
    bread = (z * (prob * (1.0 - prob) * mask)[:, None]).T @ z
    scores = z * ((y - prob) * mask)[:, None]
    if n < len(y):
        notes.append(f"the {who} slope uses the {n:,} of {len(y):,} items with a {who} preference.")
    return beta, bread, scores


def _sandwich(bread: np.ndarray, scores: np.ndarray) -> np.ndarray:
    inverse = np.linalg.inv(bread)
    result: np.ndarray = inverse @ (scores.T @ scores) @ inverse.T
    return result


def _association(
    y: np.ndarray, x: np.ndarray, slope: float, se: float, level: float
) -> Association:
    r = float(np.corrcoef(y, x)[0, 1])
    if len(y) > 3 and abs(r) < 1.0:
        half = float(special.ndtri(0.5 + level / 2.0)) / math.sqrt(len(y) - 3.0)
        ci = ConfidenceInterval(
            low=math.tanh(math.atanh(r) - half),
            high=math.tanh(math.atanh(r) + half),
            confidence_level=level,
        )
    else:
        ci = ConfidenceInterval(low=math.nan, high=math.nan, confidence_level=level)
    return Association(
        n=len(y),
        correlation=r,
        correlation_ci=ci,
        slope=NormalEstimate(estimate=slope, se=se, ci=normal_interval(slope, se, level)),
        pvalue=_two_sided(slope, se),
    )


def _two_sided(estimate: float, se: float) -> float:
    return float(2.0 * special.ndtr(-abs(estimate) / se)) if se > 0 else math.nan


def _ci(ci: ConfidenceInterval, where: str, nulls: dict[str, str]) -> dict[str, Any]:
    return {
        "low": json_safe(ci.low, f"{where}.low", nulls, "undefined"),
        "high": json_safe(ci.high, f"{where}.high", nulls, "undefined"),
        "confidence_level": ci.confidence_level,
    }


def _labels(values: Any, name: str) -> list[Any]:
    if isinstance(values, str) or not hasattr(values, "__len__"):
        raise DataError(f"`{name}` must be a sequence; got {values!r:.60}.")
    out = [v.item() if hasattr(v, "item") else v for v in values]
    bad = [i for i, v in enumerate(out) if v is None or v != v]
    if bad:
        raise DataError(
            f"`{name}` has {len(bad)} missing value(s) (positions {bad[:3]}); give a value "
            "for every judgment or leave those judgments out."
        )
    return out


def _numbers(values: Any, name: str) -> np.ndarray:
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise DataError(f"`{name}` must be numbers; {error}.") from None
    return finite_numbers(x, name, per="item", fix="give a finite number for every item")


def _binary(values: Any, name: str, *, allow_missing: bool) -> np.ndarray:
    if isinstance(values, str) or not hasattr(values, "__len__"):
        raise DataError(f"`{name}` must be a sequence of 0/1; got {values!r:.60}.")
    raw = [v.item() if hasattr(v, "item") else v for v in values]
    out = np.full(len(raw), np.nan)
    for i, v in enumerate(raw):
        if v is None or v != v:
            if not allow_missing:
                raise DataError(
                    f"`{name}` has a missing value at position {i}; give 0 or 1 for every item."
                )
            continue
        if v not in (0, 1):
            raise DataError(
                f"`{name}` has {v!r} at position {i}; use 1 when response A is preferred and "
                "0 when B is."
            )
        out[i] = float(v)
    return out
