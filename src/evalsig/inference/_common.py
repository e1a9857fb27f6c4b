"""Shared vocabulary of the inference layer: alternatives, intervals, p-values, validation."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, ParamSpec, TypeVar, cast, get_args

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.result import Tested

__all__ = [
    "UNKNOWN_SEED",
    "Alternative",
    "ConfidenceInterval",
    "InferenceResult",
    "IntervalAtAnyLevel",
    "PairedDecision",
    "as_generator",
    "check_alternative",
    "check_choice",
    "check_confidence_level",
    "check_count",
    "check_n_resamples",
    "check_number",
    "choose_pvalue",
    "invert_test",
    "normal_pvalue",
    "record_seed",
    "reversed_side_note",
    "seeded",
    "sides_named",
    "t_interval",
    "t_pvalue",
]

Alternative = Literal["two-sided", "less", "greater"]
"""``"greater"``: the candidate scores higher than the baseline; ``"less"``: lower."""

IntervalFn = Callable[[float, Alternative], "tuple[float, float]"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfidenceInterval:
    """A confidence interval; one-sided intervals have an infinite or natural bound."""

    low: float
    high: float
    confidence_level: float

    def __iter__(self) -> Any:
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> float:
        """``ci[0]`` is the low bound and ``ci[1]`` the high one, as with scipy's intervals."""
        return (self.low, self.high)[index]

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the closed interval."""
        return bool(self.low <= value <= self.high)


class IntervalAtAnyLevel:
    """A result's ``confidence_level`` and ``confidence_interval(level, alternative=)``,
    from its ``ci``, ``alternative`` and interval function ``_interval(level, side)``."""

    __slots__ = ()
    ci: ConfidenceInterval
    alternative: Alternative
    _interval: IntervalFn

    @property
    def confidence_level(self) -> float:
        return self.ci.confidence_level

    def confidence_interval(
        self, confidence_level: float = 0.95, *, alternative: Alternative | None = None
    ) -> ConfidenceInterval:
        """The interval at another confidence level (and, if given, for another side)."""
        level = check_confidence_level(confidence_level)
        side = self.alternative if alternative is None else check_alternative(alternative)
        low, high = self._interval(level, side)
        return ConfidenceInterval(low=low, high=high, confidence_level=level)


class PairedDecision(IntervalAtAnyLevel):
    """The decision side of a paired test's result: ``p_value``, ``confidence_level``,
    ``confidence_interval(level, alternative=)`` and ``significant(alpha)``, from its
    ``pvalue``, ``ci``, ``alternative`` and interval function ``_interval``."""

    __slots__ = ()
    pvalue: float

    @property
    def p_value(self) -> float:
        """The p-value (the same number as :attr:`pvalue`)."""
        return self.pvalue

    def significant(self, alpha: float | None = None) -> bool:
        """Whether ``pvalue <= alpha`` (default: 1 - the confidence level)."""
        threshold = 1.0 - self.confidence_level if alpha is None else alpha
        return bool(self.pvalue <= threshold)


@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceResult(PairedDecision, Tested):
    """What one paired test found: estimate, uncertainty and p-value, with the method used.

    ``estimate`` is always candidate minus baseline, on the scale of the scores; ``p_value``,
    ``confidence_interval(level, alternative=)`` and ``significant(alpha)`` as on
    :class:`~evalsig.ComparisonResult`.
    """

    kind: ClassVar[str] = "inference"
    method: str
    estimand: str
    estimate: float
    se: float
    statistic: float
    statistic_name: str
    df: float | None
    pvalue: float
    alternative: Alternative
    ci: ConfidenceInterval
    n_resamples: int | None = None
    seed: int | None = None
    """The seed of the random draws: ``rng=seed`` reproduces the result exactly. None when
    nothing was drawn at random, or when ``rng`` was a Generator (its seed is unknown)."""
    notes: tuple[str, ...] = ()
    _interval: IntervalFn = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: non-finite values become null, with the reason under ``nulls``."""
        from evalsig._json import SCHEMA_VERSION, json_safe

        nulls: dict[str, str] = {}
        bound = "one-sided interval" if self.alternative != "two-sided" else "unbounded"
        if self.seed is None:
            nulls["seed"] = (
                "no random draws" if self.n_resamples is None else "unknown: rng was a Generator"
            )
        return {
            "kind": "inference",
            "schema_version": SCHEMA_VERSION,
            "method": self.method,
            "estimand": self.estimand,
            "estimate": json_safe(self.estimate, "estimate", nulls, "undefined"),
            "se": json_safe(self.se, "se", nulls, "not defined for this method"),
            "statistic": json_safe(self.statistic, "statistic", nulls, "undefined"),
            "statistic_name": self.statistic_name,
            "df": json_safe(self.df, "df", nulls, "undefined"),
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, "undefined (see notes)"),
            "alternative": self.alternative,
            "ci": {
                "low": json_safe(self.ci.low, "ci.low", nulls, bound),
                "high": json_safe(self.ci.high, "ci.high", nulls, bound),
                "confidence_level": self.ci.confidence_level,
            },
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "notes": list(self.notes),
            "nulls": nulls,
        }


P = ParamSpec("P")
R = TypeVar("R")


def sides_named(test: Callable[P, R]) -> Callable[P, R]:
    """Refuse a one-sided test whose two samples are passed by position.

    evalsig reads ``alternative="greater"`` as candidate above baseline, whereas
    ``scipy.stats.ttest_rel(a, b, alternative="greater")`` tests ``a`` above ``b``: the
    opposite order for ``test(x, y)``. A one-sided call must name its sides
    (``baseline=x, candidate=y``), so that the direction cannot be misread.
    """

    @functools.wraps(test)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        side = kwargs.get("alternative", "two-sided")
        if len(args) >= 2 and side != "two-sided":
            name = getattr(test, "__name__", "test")
            raise DataError(
                f"{name}(x, y, alternative={side!r}): name the sides of a one-sided test: "
                f"{name}(baseline=x, candidate=y, alternative={side!r}) tests candidate "
                f"{'above' if side == 'greater' else 'below'} baseline (scipy's "
                f"ttest_rel(a, b, alternative={side!r}) puts a first: the opposite order)."
            )
        return test(*args, **kwargs)

    return call


def make_result(
    *,
    interval: IntervalFn,
    alternative: Alternative,
    confidence_level: float,
    **fields: Any,
) -> InferenceResult:
    """Build an :class:`InferenceResult`, computing its interval at ``confidence_level``
    (with :func:`reversed_side_note` when a one-sided test's data point the other way)."""
    low, high = interval(confidence_level, alternative)
    ci = ConfidenceInterval(low=low, high=high, confidence_level=confidence_level)
    note = reversed_side_note(alternative, interval, confidence_level)
    if note is not None:
        fields["notes"] = (*fields.get("notes", ()), note)
    return InferenceResult(alternative=alternative, ci=ci, _interval=interval, **fields)


def reversed_side_note(
    alternative: Alternative, interval: IntervalFn, confidence_level: float
) -> str | None:
    """A note when a one-sided test's data point significantly the other way, else None.

    The data point the other way when the opposite side's one-sided interval at the same
    level excludes 0: the opposite one-sided test rejects at ``alpha = 1 - confidence_level``
    (p-values and intervals are dual). A one-sided p-value near 1 with such data is most
    often a baseline and a candidate given in swapped order, or the wrong side. This is the
    one rule for every paired result (``compare``, the paired tests, pass@k comparisons).

    >>> from functools import partial
    >>> note = reversed_side_note("greater", partial(t_interval, -0.03, 0.01, 99), 0.95)
    >>> note.startswith("the data point the other way: candidate - baseline")
    True
    >>> reversed_side_note("greater", partial(t_interval, 0.03, 0.01, 99), 0.95) is None
    True
    """
    if alternative == "two-sided":
        return None
    opposite: Alternative = "less" if alternative == "greater" else "greater"
    low, high = interval(confidence_level, opposite)
    bound = high if opposite == "less" else low
    if not (bound < 0.0 if opposite == "less" else bound > 0.0):  # NaN: no note
        return None
    alpha = 1.0 - confidence_level
    where, asks = ("below", "better") if opposite == "less" else ("above", "worse")
    return (
        f"the data point the other way: candidate - baseline is significantly {where} 0 "
        f"(the {100 * confidence_level:g}% bound for alternative={opposite!r} is "
        f"{bound:+.4g}; that test rejects at alpha = {alpha:g}), but "
        f"alternative={alternative!r} asks whether the candidate is {asks}, so its p-value "
        "is near 1. Check that baseline and candidate are not given in swapped order, and "
        "that the side is the one meant (`alternative`; CLI --alternative)."
    )


def check_choice(value: object, choices: Sequence[str], what: str, hint: str = "") -> str:
    """``value`` if it is one of ``choices`` (text), else a DataError naming ``what``
    (e.g. ``"`method`"``), showing the value and the choices; ``hint`` (how to fix it)
    ends the message. The one check of a string option."""
    if not isinstance(value, str) or value not in choices:
        raise DataError(
            f"{what} must be one of {', '.join(map(repr, choices))}; got {value!r}."
            + (f" {hint}" if hint else "")
        )
    return value


def check_alternative(alternative: object) -> Alternative:
    hint = "Use 'greater' to test whether the candidate is better."
    return cast(
        Alternative, check_choice(alternative, get_args(Alternative), "`alternative`", hint)
    )


def check_confidence_level(confidence_level: object) -> float:
    try:
        level = float(confidence_level)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        level = math.nan
    if not 0.0 < level < 1.0:
        raise DataError(
            f"`confidence_level` must be a number strictly between 0 and 1; got "
            f"{confidence_level!r}. Use e.g. 0.95 for a 95% interval."
        )
    return level


def check_number(
    value: object,
    name: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    open_low: bool = False,
    open_high: bool = False,
    fix: str = "",
) -> float:
    """``value`` as a finite float from ``low`` to ``high`` (an end excluded with
    ``open_low``/``open_high``), else a :class:`DataError` that names ``name``, shows the
    value and the range, and ends with ``fix``. NaN, infinities, booleans and text never
    pass: the one check of a number that an argument, an option or a field gives.

    >>> check_number(4, "k", low=0, open_low=True)
    4.0
    >>> check_number(float("nan"), "k", low=0, open_low=True, fix="Use e.g. 4.")
    Traceback (most recent call last):
    ...
    evalsig.errors.DataError: `k` must be a finite number > 0; got nan. Use e.g. 4.
    """
    number = math.nan
    if not isinstance(value, (bool, np.bool_, str, bytes)):
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            number = math.nan
    above = number > low if open_low else number >= low
    below = number < high if open_high else number <= high
    if not (math.isfinite(number) and above and below):
        raise DataError(
            f"`{name}` must be {_number_range(low, high, open_low, open_high)}; got "
            f"{value!r}." + (f" {fix}" if fix else "")
        )
    return number


def check_count(value: object, name: str, *, minimum: int = 1, fix: str = "") -> int:
    """``value`` as an int of at least ``minimum`` (an int or a numpy integer, never a
    bool or a float), else a :class:`DataError` naming ``name`` and the value."""
    count = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        count = int(value)
    if count is None or count < minimum:
        raise DataError(
            f"`{name}` must be a whole number of at least {minimum}; got {value!r}."
            + (f" {fix}" if fix else "")
        )
    return count


def _number_range(low: float, high: float, open_low: bool, open_high: bool) -> str:
    if math.isinf(low) and math.isinf(high):
        return "a finite number"
    if math.isinf(high):
        return f"a finite number {'>' if open_low else '>='} {low:g}"
    if math.isinf(low):
        return f"a finite number {'<' if open_high else '<='} {high:g}"
    return f"a number in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"


def check_n_resamples(n_resamples: object, *, minimum: int = 100) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise DataError(f"`n_resamples` must be an integer; got {n_resamples!r}.")
    if n_resamples < minimum:
        raise DataError(
            f"`n_resamples` must be at least {minimum}; got {n_resamples}. "
            "Use 10_000 (the default) for stable p-values."
        )
    return int(n_resamples)


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """``numpy.random.default_rng`` with an error that names the argument."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            raise DataError(f"`rng` seed must be a non-negative integer; got {rng}.")
        return np.random.default_rng(rng)
    raise DataError(
        f"`rng` must be a numpy.random.Generator, an integer seed or None; got {rng!r}."
    )


def seeded(rng: np.random.Generator | int | None) -> tuple[np.random.Generator, int | None]:
    """A generator and the integer seed that rebuilds it (``default_rng(seed)``).

    ``None`` draws a fresh seed from the operating system's entropy
    (``SeedSequence().entropy``, 128 bits) so that it can be recorded; a Generator passed
    in has no recoverable seed (None).
    """
    if isinstance(rng, np.random.Generator):
        return rng, None
    seed = int(cast(int, np.random.SeedSequence().entropy)) if rng is None else rng
    return as_generator(seed), None if seed is None else int(seed)


UNKNOWN_SEED = (
    "rng was a numpy Generator, so the seed of the random draws is unknown (recorded as "
    "null); pass an integer seed (or none, to have one drawn and recorded) to make the "
    "result reproducible."
)


def record_seed(result: InferenceResult, seed: int | None) -> InferenceResult:
    """``result`` with the seed of its random draws (nothing changes if it drew none)."""
    if result.n_resamples is None:
        return result
    if seed is None:
        return replace(result, notes=(*result.notes, UNKNOWN_SEED))
    return replace(result, seed=seed)


def normal_pvalue(z: float, alternative: Alternative) -> float:
    """P-value of a standard-normal statistic (``"greater"``: large z is evidence)."""
    if math.isnan(z):
        return math.nan
    if alternative == "greater":
        return float(special.ndtr(-z))
    if alternative == "less":
        return float(special.ndtr(z))
    return float(min(1.0, 2.0 * special.ndtr(-abs(z))))


def t_pvalue(t: float, df: float, alternative: Alternative) -> float:
    """P-value of a Student-t statistic with ``df`` degrees of freedom (NaN where either
    is NaN: ``min(1, NaN)`` would read as 1)."""
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if alternative == "greater":
        return float(special.stdtr(df, -t))
    if alternative == "less":
        return float(special.stdtr(df, t))
    return float(min(1.0, 2.0 * special.stdtr(df, -abs(t))))


def critical_value(confidence_level: float, alternative: Alternative, df: float | None) -> float:
    """The multiplier of the standard error: z or t quantile, one- or two-sided."""
    tail = 1.0 - confidence_level
    q = 1.0 - (tail / 2.0 if alternative == "two-sided" else tail)
    return float(special.ndtri(q) if df is None else special.stdtrit(df, q))


def t_interval(
    estimate: float, se: float, df: float | None, confidence_level: float, alternative: Alternative
) -> tuple[float, float]:
    """``estimate +/- c * se`` with c from t(df), or from the normal when ``df`` is None."""
    c = critical_value(confidence_level, alternative, df)
    low = estimate - c * se if alternative != "less" else -math.inf
    high = estimate + c * se if alternative != "greater" else math.inf
    return float(low), float(high)


def choose_pvalue(greater: float, less: float, alternative: Alternative) -> float:
    """The p-value for ``alternative`` from the two one-sided p-values (two-sided: twice the
    smaller, at most 1, which keeps p-values and equal-tailed intervals dual)."""
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2.0 * min(greater, less))


def invert_test(
    pvalues: Callable[[float], tuple[float, float]],
    estimate: float,
    step: float,
    confidence_level: float,
    alternative: Alternative,
) -> tuple[float, float]:
    """Confidence interval by test inversion: the values ``delta`` not rejected.

    ``pvalues(delta)`` gives the one-sided p-values (greater, less) of ``H0: theta = delta``;
    each bound is found by stepping out from the estimate in doubling steps until the test
    rejects at the tail level, then bisecting. Unbounded when it never rejects.
    """
    tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
    low, high = -math.inf, math.inf
    if alternative != "less":
        low = _boundary(lambda x: pvalues(x)[0] > tail, estimate, -step)
    if alternative != "greater":
        high = _boundary(lambda x: pvalues(x)[1] > tail, estimate, step)
    return low, high


def _boundary(accepted: Callable[[float], bool], inside: float, step: float) -> float:
    start = inside
    for _ in range(64):
        outside = start + step
        if not accepted(outside):
            break
        inside, step = outside, 2.0 * step
    else:
        return math.copysign(math.inf, step)
    for _ in range(200):
        middle = (inside + outside) / 2.0
        if middle in (inside, outside):
            break
        if accepted(middle):
            inside = middle
        else:
            outside = middle
    return inside
