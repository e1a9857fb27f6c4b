"""Wilcoxon signed-rank test, with the Hodges-Lehmann estimate and its distribution-free interval.

The interval is read off the sorted Walsh averages ``(d_i + d_j) / 2``, ``i <= j``. There are
``n (n + 1) / 2`` of them, so for large ``n`` they are never materialised: an order statistic
is found by narrowing a value bracket with vectorised ``O(n log n)`` counts over the sorted
differences, then selecting exactly among the few candidates left.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict, cast, get_args

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    check_alternative,
    check_choice,
    check_confidence_level,
    choose_pvalue,
    make_result,
    normal_pvalue,
    sides_named,
)
from evalsig.inference._paired_input import paired_differences

__all__ = ["WilcoxonMethod", "ZeroMethod", "wilcoxon"]

ZeroMethod = Literal["wilcox", "pratt"]
"""``"wilcox"``: drop zero differences; ``"pratt"``: rank them, then give them no sign."""

WilcoxonMethod = Literal["auto", "exact", "normal"]
"""How the null distribution of the signed-rank statistic is obtained."""

EXACT_AUTO_MAX = 50
"""``method="auto"`` is exact for at most this many differences (scipy's rule)."""

EXACT_MAX = 1000
"""``method="exact"`` refuses more differences than this (the normal is accurate there)."""

DIRECT_MAX = 2000
"""Up to this many differences, order statistics of the Walsh averages are computed directly."""

ROUGH_NORMAL_BELOW = 10
"""A note warns that the normal approximation is rough below this many non-zero differences."""

SELECT_CAP = 1 << 16
"""The fast selection gathers the candidates once at most ``max(4 n, SELECT_CAP)`` remain."""


@sides_named
def wilcoxon(
    baseline: object,
    candidate: object,
    *,
    zero_method: ZeroMethod = "wilcox",
    correction: bool = False,
    method: WilcoxonMethod = "auto",
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
) -> InferenceResult:
    r"""Wilcoxon signed-rank test of per-item differences, candidate minus baseline.

    Tests whether the differences are symmetric about 0, using only the ranks of their
    absolute values and their signs. It estimates the pseudomedian (the Hodges-Lehmann
    estimate) rather than the mean, so a few extreme items cannot dominate the result.

    Parameters
    ----------
    baseline, candidate : array_like (n,)
        Per-item scores (or per-item means over runs) of the two models, aligned.
    zero_method : {"wilcox", "pratt"}
        ``"wilcox"`` drops zero differences from the test, the estimate and the interval
        (scipy's default); ``"pratt"`` ranks them with the others, then drops their ranks
        from the statistic, and keeps them in the estimate and interval.
    correction : bool
        Apply a continuity correction of 1/2 to the normal approximation (no effect on the
        exact test).
    method : {"auto", "exact", "normal"}
        ``"exact"``: the exact null distribution of :math:`W^+` given the ranks (ties and
        zeros included; at most 1000 non-zero differences); ``"normal"``: the normal
        approximation with tie correction; ``"auto"``: exact for at most 50 non-zero
        differences, otherwise normal.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the candidate scores higher.
    confidence_level : float

    Returns
    -------
    InferenceResult
        ``estimate`` is the Hodges-Lehmann estimate and ``ci`` its distribution-free
        interval (one-sided for one-sided alternatives, with an infinite open end).
        ``statistic`` is :math:`\min(W^+, W^-)` for a two-sided test and :math:`W^+` for a
        one-sided test, as scipy reports it. ``se`` is NaN: the interval does not come from
        a standard error. ``method`` is ``"wilcoxon-exact"`` or ``"wilcoxon-normal"``.

    Raises
    ------
    DataError
        A bad option, bad scores, or ``method="exact"`` with more than 1000 non-zero
        differences.

    Notes
    -----
    With :math:`d_i = y_i - x_i` and :math:`R_i` the average rank of :math:`|d_i|`,
    :math:`W^+ = \sum_{d_i > 0} R_i` and :math:`W^- = \sum_{d_i < 0} R_i`. Under the null
    hypothesis each sign is + or - with probability 1/2, independently. With :math:`m`
    differences ranked (zeros included by Pratt's method, :math:`z` of them zero),

    .. math::

        E W^+ = \frac{m(m+1) - z(z+1)}{4}, \quad
        \operatorname{Var} W^+ = \frac{m(m+1)(2m+1) - z(z+1)(2z+1)
        - \frac12 \sum_g (t_g^3 - t_g)}{24},

    where :math:`t_g` are the sizes of the groups of tied non-zero :math:`|d_i|`. The
    normal approximation uses :math:`Z = (W^+ - E W^+ - c) / \sqrt{\operatorname{Var} W^+}`,
    with :math:`c = 0` or, with ``correction``, :math:`c = \pm 1/2` toward the mean (for a
    two-sided test by the sign of the uncorrected :math:`Z`, as in scipy and R). The exact
    null distribution of :math:`W^+ = \sum_i R_i S_i` over the non-zero differences,
    :math:`S_i` independent fair Bernoulli variables, is built by dynamic programming over
    the doubled (mid-)ranks :math:`2R_i`, which are integers: with ties it is the exact
    distribution conditional on the tie pattern (the permutation distribution), and for 0/1
    differences it is the exact sign test. The two-sided exact p-value is
    :math:`\min(1, 2 \min(P(W^+ \ge w), P(W^+ \le w)))`. Without ties or zeros this is
    scipy's exact test; with them, scipy enumerates sign patterns for :math:`n \le 13` and
    otherwise falls back to the normal approximation, where this function stays exact up
    to 50 non-zero differences.

    The estimate is the median of the :math:`M = m(m+1)/2` Walsh averages
    :math:`A_{ij} = (d_i + d_j)/2`, :math:`i \le j`, of the differences used by the test.
    Because :math:`W^+` of :math:`d - \theta` counts the Walsh averages above
    :math:`\theta`, inverting the test gives the interval
    :math:`[A_{(k)}, A_{(M-k+1)}]` with :math:`k` the largest integer such that
    :math:`P(W^+ \le k - 1) \le \alpha/2` (:math:`\alpha` for one side). :math:`k` comes from
    the untied exact distribution when the exact test is used, otherwise from the normal
    approximation with continuity correction and without tie correction,
    :math:`k = \lfloor M/2 + 1/2 - z_{1-\alpha/2} \sqrt{m(m+1)(2m+1)/24} \rfloor`. When
    :math:`k < 1` the data are too few for a bounded interval and it is the whole line.
    Order statistics of the Walsh averages are found without forming them all (Monahan 1984).

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin*
    1(6), 80-83.
    Pratt, J. W. (1959). Remarks on zeros and ties in the Wilcoxon signed rank procedures.
    *Journal of the American Statistical Association* 54(287), 655-667.
    Hodges, J. L. & Lehmann, E. L. (1963). Estimates of location based on rank tests.
    *Annals of Mathematical Statistics* 34(2), 598-611.
    Bauer, D. F. (1972). Constructing confidence sets using rank statistics. *Journal of
    the American Statistical Association* 67(339), 687-690.
    Hollander, M., Wolfe, D. A. & Chicken, E. (2014). *Nonparametric Statistical Methods*,
    3rd ed., sections 3.1-3.3. Wiley.
    Monahan, J. F. (1984). Algorithm 616: fast computation of the Hodges-Lehmann location
    estimator. *ACM Transactions on Mathematical Software* 10(3), 265-270.

    Examples
    --------
    >>> d = [3, -1, 4, 6, 5, 12, -2, 7, 8, 9]
    >>> r = wilcoxon([0] * 10, d)
    >>> r.method, r.statistic, r.pvalue
    ('wilcoxon-exact', 3.0, 0.009765625)
    >>> r.estimate, (r.ci.low, r.ci.high)
    (5.5, (2.0, 8.0))
    """
    options = _wilcoxon_iv(zero_method, correction, method, alternative, confidence_level)
    return wilcoxon_core(paired_differences(baseline, candidate), **options)


class _Options(TypedDict):
    """The checked options of :func:`wilcoxon`, as :func:`wilcoxon_core` takes them."""

    zero_method: ZeroMethod
    correction: bool
    method: WilcoxonMethod
    alternative: Alternative
    confidence_level: float


def _wilcoxon_iv(
    zero_method: object,
    correction: object,
    method: object,
    alternative: object,
    confidence_level: object,
) -> _Options:
    """Check every option of :func:`wilcoxon`, in the order of its signature."""
    check_choice(
        zero_method,
        get_args(ZeroMethod),
        "`zero_method`",
        "Use 'wilcox' to drop zero differences or 'pratt' to rank them.",
    )
    if not isinstance(correction, (bool, np.bool_)):
        raise DataError(
            f"`correction` must be True or False; got {correction!r}. Use True for the "
            "continuity correction of the normal approximation."
        )
    check_choice(
        method,
        get_args(WilcoxonMethod),
        "`method`",
        "Use 'normal' for the normal approximation (scipy's 'asymptotic').",
    )
    return _Options(
        zero_method=cast(ZeroMethod, zero_method),
        correction=bool(correction),
        method=cast(WilcoxonMethod, method),
        alternative=check_alternative(alternative),
        confidence_level=check_confidence_level(confidence_level),
    )


def wilcoxon_core(
    d: np.ndarray,
    *,
    zero_method: ZeroMethod,
    correction: bool,
    method: WilcoxonMethod,
    alternative: Alternative,
    confidence_level: float,
) -> InferenceResult:
    """The signed-rank test on validated differences ``d`` (float64, at least two)."""
    n = len(d)
    is_zero = d == 0
    n_zero = int(np.count_nonzero(is_zero))
    if n_zero == n:
        return _all_zero(n, alternative=alternative, confidence_level=confidence_level)

    used = d[~is_zero] if zero_method == "wilcox" else d
    m = len(used)
    ranks, tie_sizes, tie_values = _average_ranks(np.abs(used))
    nonzero_groups = tie_values != 0
    tied = tie_sizes[nonzero_groups & (tie_sizes > 1)]
    w_plus = float(ranks[used > 0].sum())
    w_minus = float(ranks[used < 0].sum())

    notes: list[str] = []
    if n_zero and zero_method == "wilcox":
        notes.append(
            f"{n_zero} of {n} differences are 0 and were dropped (zero_method='wilcox'); "
            f"the test, estimate and interval use the other {m}."
        )
    elif n_zero:
        notes.append(
            f"{n_zero} of {n} differences are 0: ranked, then left out of W+ and W- "
            "(zero_method='pratt'); the estimate and interval include them."
        )

    signed = ranks[used != 0]
    if method == "exact" and len(signed) > EXACT_MAX:
        raise DataError(
            f"method='exact' handles at most {EXACT_MAX} non-zero differences; got "
            f"{len(signed)}. Use method='normal': with this many differences it is accurate."
        )
    use_exact = method == "exact" or (method == "auto" and len(signed) <= EXACT_AUTO_MAX)
    if method == "auto" and not use_exact:
        notes.append(
            f"more than {EXACT_AUTO_MAX} non-zero differences: used the normal approximation"
            + (" with tie correction." if tied.size else ".")
        )

    cdf: np.ndarray | None = None
    if use_exact:
        # W+ = sum of r_i B_i over signed items, B_i fair coins: exact given the (mid-)ranks
        pmf = _null_pmf(np.rint(2 * signed).astype(np.int64))
        pvalue = _exact_pvalue(pmf, round(2 * w_plus), alternative)
        cdf = np.cumsum(_null_pmf(2 * np.arange(1, m + 1)))[::2]  # untied ranks 1..m
        if tied.size:
            notes.append(
                f"{_ties_and_zeros(0, int(tied.sum()))}: exact p-value given the mid-ranks; "
                "the interval uses the untied distribution."
            )
        if correction:
            notes.append("correction=True has no effect on the exact test.")
    else:
        pvalue = _normal_pvalue(
            w_plus,
            m=m,
            n_zero=n_zero if zero_method == "pratt" else 0,
            tie_term=int(np.sum(tied.astype(np.int64) ** 3 - tied)),
            correction=correction,
            alternative=alternative,
        )
        if correction:
            notes.append("continuity correction of 1/2 applied to the normal approximation.")
        if n - n_zero < ROUGH_NORMAL_BELOW:
            notes.append(
                f"only {n - n_zero} non-zero difference(s): the normal approximation is rough "
                f"with fewer than {ROUGH_NORMAL_BELOW}."
            )

    s = np.sort(used)
    notes.append(
        "se is NaN: the interval inverts the signed-rank test over the Walsh averages; "
        "there is no standard error of the pseudomedian to report."
    )
    if _order_k(m, cdf, confidence_level, alternative) < 1:
        notes.append(
            f"{m} differences are too few for a bounded {confidence_level:.0%} interval: "
            "it is the whole line."
        )
    estimate, interval = _estimate_and_interval(s, cdf, confidence_level, alternative)
    return make_result(
        method="wilcoxon-exact" if use_exact else "wilcoxon-normal",
        estimand="pseudomedian of differences (Hodges-Lehmann)",
        estimate=estimate,
        se=math.nan,
        statistic=min(w_plus, w_minus) if alternative == "two-sided" else w_plus,
        statistic_name="W",
        df=None,
        pvalue=pvalue,
        notes=tuple(notes),
        interval=interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


def _all_zero(n: int, *, alternative: Alternative, confidence_level: float) -> InferenceResult:
    return make_result(
        method="wilcoxon",
        estimand="pseudomedian of differences (Hodges-Lehmann)",
        estimate=0.0,
        se=math.nan,
        statistic=0.0,
        statistic_name="W",
        df=None,
        pvalue=1.0,
        notes=(
            f"every per-item difference is 0 ({n} items): no evidence of a difference "
            "(p = 1); the estimate and interval are 0.",
        ),
        interval=_zero_interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


def _zero_interval(level: float, alternative: Alternative) -> tuple[float, float]:
    low = -math.inf if alternative == "less" else 0.0
    high = math.inf if alternative == "greater" else 0.0
    return low, high


def _ties_and_zeros(n_zero: int, n_tied: int) -> str:
    parts = []
    if n_zero:
        parts.append(f"{n_zero} zero difference(s)")
    if n_tied:
        parts.append(f"{n_tied} differences with tied absolute values")
    return " and ".join(parts)


def _average_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1-based average ranks of ``a``, and the size and value of each group of equal values."""
    order = np.argsort(a, kind="stable")
    sa = a[order]
    starts = np.concatenate(([0], np.flatnonzero(np.diff(sa)) + 1))
    ends = np.append(starts[1:], len(a))
    sizes = ends - starts
    ranks = np.empty(len(a), dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, sizes)
    return ranks, sizes, sa[starts]


def _null_pmf(doubled_ranks: np.ndarray) -> np.ndarray:
    """``P(2 W+ = w)``, ``w = 0..2 sum(r)``, for integer doubled ranks (dynamic programming).

    Each rank enters W+ with probability 1/2, independently, under the null hypothesis.
    """
    pmf = np.ones(1, dtype=np.float64)
    for r in doubled_ranks.tolist():
        grown = np.zeros(len(pmf) + r, dtype=np.float64)
        grown[: len(pmf)] = pmf * 0.5  # rank r negative
        grown[r:] += pmf * 0.5  # rank r positive
        pmf = grown
    return pmf


def _exact_pvalue(pmf: np.ndarray, w: int, alternative: Alternative) -> float:
    return choose_pvalue(float(pmf[w:].sum()), float(pmf[: w + 1].sum()), alternative)


def _normal_pvalue(
    w_plus: float,
    *,
    m: int,
    n_zero: int,
    tie_term: int,
    correction: bool,
    alternative: Alternative,
) -> float:
    mean = (m * (m + 1) - n_zero * (n_zero + 1)) / 4.0
    var = m * (m + 1) * (2 * m + 1) - n_zero * (n_zero + 1) * (2 * n_zero + 1)
    sd = math.sqrt((var - tie_term / 2.0) / 24.0)
    z = (w_plus - mean) / sd
    if correction:
        toward = {"greater": 1.0, "less": -1.0}.get(alternative, float(np.sign(z)))
        z -= toward * 0.5 / sd
    return normal_pvalue(z, alternative)


def _order_k(m: int, cdf: np.ndarray | None, level: float, alternative: Alternative) -> int:
    """The rank ``k`` of the lower end ``A_(k)`` of the interval (``k < 1``: unbounded)."""
    tail = 1.0 - level if alternative != "two-sided" else (1.0 - level) / 2.0
    total = m * (m + 1) // 2
    if cdf is not None:
        k = int(np.searchsorted(cdf, tail, side="right"))
    else:
        sd = math.sqrt(m * (m + 1) * (2 * m + 1) / 24.0)
        k = math.floor(total / 2.0 + 0.5 - float(special.ndtri(1.0 - tail)) * sd)
    return min(k, total)


def _ranks(
    m: int, cdf: np.ndarray | None, level: float, alternative: Alternative
) -> tuple[int, int]:
    """The ranks of the interval's ends among the Walsh averages (0: unbounded)."""
    k = _order_k(m, cdf, level, alternative)
    if k < 1:
        return 0, 0
    return (k if alternative != "less" else 0), (
        m * (m + 1) // 2 - k + 1 if alternative != "greater" else 0
    )


def _interval(
    s: np.ndarray, cdf: np.ndarray | None, level: float, alternative: Alternative
) -> tuple[float, float]:
    low, high = _ranks(len(s), cdf, level, alternative)
    return (
        _kth_walsh(s, low) if low else -math.inf,
        _kth_walsh(s, high) if high else math.inf,
    )


@dataclass(frozen=True)
class _Interval:
    """The interval at any level and side; the ``known`` ones (the result's level, both
    sides) were selected together with the estimate."""

    s: np.ndarray
    cdf: np.ndarray | None
    known: Mapping[tuple[float, Alternative], tuple[float, float]]

    def __call__(self, level: float, alternative: Alternative) -> tuple[float, float]:
        known = self.known.get((level, alternative))
        return known if known is not None else _interval(self.s, self.cdf, level, alternative)


def _estimate_and_interval(
    s: np.ndarray, cdf: np.ndarray | None, level: float, alternative: Alternative
) -> tuple[float, _Interval]:
    """The Hodges-Lehmann estimate and the interval; up to :data:`DIRECT_MAX` differences
    the Walsh averages are built once for the estimate and both one-sided intervals (and
    the two-sided one) at ``level``: one selection of every rank they need."""
    m = len(s)
    if m > DIRECT_MAX:
        return _walsh_median(s), _Interval(s, cdf, {})
    total = m * (m + 1) // 2
    sides: tuple[Alternative, ...] = ("two-sided", "greater", "less")
    ends = {side: _ranks(m, cdf, level, side) for side in sides}
    middle = {(total + 1) // 2, total // 2 + 1}
    wanted = sorted(middle | {rank for pair in ends.values() for rank in pair if rank})
    walsh = np.partition(_walsh_all(s), [rank - 1 for rank in wanted])
    value = {rank: float(walsh[rank - 1]) for rank in wanted}
    below, above = value[(total + 1) // 2], value[total // 2 + 1]  # the middle one or two
    estimate = below if total % 2 else float((below + above) / 2.0)
    known = {
        (level, side): (value[low] if low else -math.inf, value[high] if high else math.inf)
        for side, (low, high) in ends.items()
    }
    return estimate, _Interval(s, cdf, known)


# Order statistics of the Walsh averages (s_i + s_j) / 2, i <= j, of sorted ``s``. Row i
# holds columns j = i..m-1 and is nondecreasing in j, so the averages at most t in a row
# form a prefix and the whole set is counted with one search per row.


def _walsh_median(s: np.ndarray) -> float:
    """Median of the Walsh averages of sorted ``s`` (mean of the middle two if even)."""
    m = len(s)
    total = m * (m + 1) // 2
    if m <= DIRECT_MAX:
        walsh = _walsh_all(s)
        if total % 2:
            return float(np.partition(walsh, total // 2)[total // 2])
        pair = np.partition(walsh, (total // 2 - 1, total // 2))[total // 2 - 1 : total // 2 + 1]
        return float((pair[0] + pair[1]) / 2.0)
    lower = _kth_walsh_fast(s, (total + 1) // 2)
    if total % 2:
        return lower
    return float((lower + _next_walsh(s, lower, (total + 1) // 2)) / 2.0)


def _kth_walsh(s: np.ndarray, k: int) -> float:
    """The ``k``-th smallest (1-based) Walsh average of sorted ``s``."""
    return _kth_walsh_direct(s, k) if len(s) <= DIRECT_MAX else _kth_walsh_fast(s, k)


def _walsh_all(s: np.ndarray) -> np.ndarray:
    return np.concatenate([(s[i] + s[i:]) / 2.0 for i in range(len(s))])


def _kth_walsh_direct(s: np.ndarray, k: int) -> float:
    return float(np.partition(_walsh_all(s), k - 1)[k - 1])


def _kth_walsh_fast(s: np.ndarray, k: int, *, cap: int | None = None) -> float:
    """``k``-th smallest Walsh average in ``O(n log n)`` memory-light passes.

    Each row keeps a window ``[lo, hi)`` of candidate columns. A cut value (the weighted
    median of the rows' middle candidates, so at least a quarter of the candidates go each
    round) splits the candidates; the side holding rank ``k`` is kept. When at most ``cap``
    candidates remain they are gathered and selected exactly.
    """
    m = len(s)
    cap = max(4 * m, SELECT_CAP) if cap is None else cap
    lo = np.arange(m, dtype=np.int64)
    hi = np.full(m, m, dtype=np.int64)
    below = 0  # Walsh averages already known to be smaller than every candidate
    while True:
        width = hi - lo
        remaining = int(width.sum())
        if remaining <= cap:
            return _select_in_windows(s, lo, width, k - below)
        rows = np.flatnonzero(width)
        middle = (s[rows] + s[lo[rows] + (width[rows] - 1) // 2]) / 2.0
        order = np.argsort(middle, kind="stable")
        cumulative = np.cumsum(width[rows][order])
        cut = float(middle[order[np.searchsorted(cumulative, remaining / 2.0)]])
        at_most = np.clip(_row_ends(s, cut, inclusive=True), lo, hi)
        n_at_most = below + int((at_most - lo).sum())
        if k > n_at_most:
            below, lo = n_at_most, at_most
            continue
        less = np.clip(_row_ends(s, cut, inclusive=False), lo, hi)
        if k > below + int((less - lo).sum()):
            return cut
        hi = less


def _select_in_windows(s: np.ndarray, lo: np.ndarray, width: np.ndarray, k: int) -> float:
    rows = np.flatnonzero(width)
    counts = width[rows]
    starts = np.cumsum(counts) - counts
    row_of = np.repeat(rows, counts)
    cols = np.repeat(lo[rows] - starts, counts) + np.arange(int(counts.sum()))
    values = (s[row_of] + s[cols]) / 2.0
    return float(np.partition(values, k - 1)[k - 1])


def _row_ends(s: np.ndarray, t: float, *, inclusive: bool) -> np.ndarray:
    """Per row ``i``, the first ``j`` with ``(s_i + s_j)/2 > t`` (``>= t`` if not inclusive).

    ``searchsorted`` on ``2t - s_i`` gives a first guess; the exact rounded averages then
    decide, moving the guess over whole groups of equal values until it is right.
    """

    def kept(values: np.ndarray) -> np.ndarray:
        return values <= t if inclusive else values < t

    m = len(s)
    side: Literal["left", "right"] = "right" if inclusive else "left"
    ends = np.searchsorted(s, 2.0 * t - s, side=side)
    while True:
        rows = np.flatnonzero(ends > 0)
        wrong = rows[~kept((s[rows] + s[ends[rows] - 1]) / 2.0)]
        if wrong.size == 0:
            break
        ends[wrong] = np.searchsorted(s, s[ends[wrong] - 1], side="left")
    while True:
        rows = np.flatnonzero(ends < m)
        wrong = rows[kept((s[rows] + s[ends[rows]]) / 2.0)]
        if wrong.size == 0:
            break
        ends[wrong] = np.searchsorted(s, s[ends[wrong]], side="right")
    return ends


def _next_walsh(s: np.ndarray, value: float, k: int) -> float:
    """The ``(k+1)``-th smallest Walsh average, given that ``value`` is the ``k``-th."""
    m = len(s)
    first = np.arange(m)
    ends = np.maximum(_row_ends(s, value, inclusive=True), first)
    if int((ends - first).sum()) > k:
        return value
    rows = np.flatnonzero(ends < m)
    return float(np.min((s[rows] + s[ends[rows]]) / 2.0))
