"""Wilcoxon signed-rank test: golden values, scipy oracle, Hodges-Lehmann estimate and interval,
fast order statistics of the Walsh averages, properties, calibration, degenerate and bad input."""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Sequence
from random import Random
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from evalsig.errors import AlignmentError, DataError
from evalsig.inference import _wilcoxon as wilcoxon_module
from evalsig.inference._common import ConfidenceInterval
from evalsig.inference._wilcoxon import (
    _kth_walsh_direct,
    _kth_walsh_fast,
    _null_pmf,
    _walsh_median,
    wilcoxon,
    wilcoxon_core,
)

D = [3, -1, 4, 6, 5, 12, -2, 7, 8, 9]
ZEROS = [0] * len(D)
ALTERNATIVES = ["two-sided", "greater", "less"]


# --- plain-loop references -------------------------------------------------------------


def walsh_averages(d: Sequence[float] | np.ndarray) -> np.ndarray:
    """Every (d_i + d_j) / 2, i <= j, by a double loop, sorted."""
    values = [(d[i] + d[j]) / 2.0 for i in range(len(d)) for j in range(i, len(d))]
    return np.sort(np.array(values, dtype=np.float64))


def enumerated_null(m: int) -> dict[int, float]:
    """P(W+ = w) by listing all 2^m sign patterns of the ranks 1..m."""
    counts: dict[int, int] = {}
    for signs in itertools.product((0, 1), repeat=m):
        w = sum(r for r, s in zip(range(1, m + 1), signs, strict=True) if s)
        counts[w] = counts.get(w, 0) + 1
    return {w: c / 2**m for w, c in counts.items()}


def brute_force_pvalue(d: np.ndarray, zero_method: str, alternative: str) -> float:
    """The exact conditional p-value: every sign pattern of the signed (mid-)ranks."""
    used = d[d != 0] if zero_method == "wilcox" else d
    ranks = stats.rankdata(np.abs(used))[used != 0]
    w = ranks[used[used != 0] > 0].sum()
    totals = np.array(
        [ranks[np.array(s, dtype=bool)].sum() for s in itertools.product((0, 1), repeat=len(ranks))]
    )
    greater = float(np.mean(totals >= w - 1e-9))
    less = float(np.mean(totals <= w + 1e-9))
    return {"greater": greater, "less": less}.get(alternative, min(1.0, 2 * min(greater, less)))


def brute_force_k(null: dict[int, float], tail: float) -> int:
    """The largest k with P(W+ <= k - 1) <= tail."""
    k = 0
    while sum(p for w, p in null.items() if w <= k) <= tail:
        k += 1
    return k


def brute_interval(walsh: np.ndarray, k: int, alternative: str) -> tuple[float, float]:
    if k < 1:
        return -math.inf, math.inf
    low = walsh[k - 1] if alternative != "less" else -math.inf
    high = walsh[len(walsh) - k] if alternative != "greater" else math.inf
    return float(low), float(high)


def count_walsh_at_most(d_int: np.ndarray, twice_t: int) -> int:
    """#{i <= j: d_i + d_j <= twice_t} for integer data, exactly, in O(n log n)."""
    s = np.sort(d_int)
    ends = np.searchsorted(s, twice_t - s, side="right")
    return int(np.maximum(ends - np.arange(len(s)), 0).sum())


def draw(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "continuous":
        return rng.normal(0.3, 1.0, n)
    if kind == "ties":  # integer differences: tied |d| and zeros
        return rng.integers(-4, 6, n).astype(np.float64)
    # accuracy-like scores: means over 4 runs, differences with ties and inexact floats
    baseline = rng.integers(0, 5, n) / 4 + rng.integers(0, 3, n) / 10
    return (rng.integers(0, 5, n) / 4 + rng.integers(0, 3, n) / 10) - baseline


# --- golden values ---------------------------------------------------------------------


class TestGolden:
    # scipy.stats.wilcoxon(D) -> statistic 3.0, pvalue 0.009765625 (exact, scipy 1.17.1)
    def test_exact(self) -> None:
        r = wilcoxon(ZEROS, D)
        assert r.method == "wilcoxon-exact"
        assert r.statistic == 3.0
        assert r.statistic_name == "W"
        assert r.pvalue == pytest.approx(0.009765625, rel=1e-12)
        assert wilcoxon(ZEROS, D, method="exact").pvalue == pytest.approx(0.009765625, rel=1e-12)

    # scipy.stats.wilcoxon(D, method="asymptotic") -> pvalue 0.01251531869
    def test_normal(self) -> None:
        r = wilcoxon(ZEROS, D, method="normal")
        assert r.method == "wilcoxon-normal"
        assert r.statistic == 3.0
        assert r.pvalue == pytest.approx(0.01251531869, rel=1e-9)

    # scipy.stats.wilcoxon(D, method="asymptotic", correction=True) -> pvalue 0.01443282394
    def test_normal_corrected(self) -> None:
        r = wilcoxon(ZEROS, D, method="normal", correction=True)
        assert r.pvalue == pytest.approx(0.01443282394, rel=1e-9)
        assert any("continuity correction" in note for note in r.notes)

    def test_estimate_and_interval(self) -> None:
        # 55 Walsh averages: the median is the 28th; exact k = 9 at 95% since
        # P(W+ <= 8) = 25/1024 <= 0.025 < P(W+ <= 9) = 30/1024.
        r = wilcoxon(ZEROS, D)
        walsh = walsh_averages(D)
        assert r.estimate == walsh[27] == 5.5
        assert (r.ci.low, r.ci.high) == (walsh[8], walsh[55 - 9]) == (2.0, 8.0)
        assert r.estimand == "pseudomedian of differences (Hodges-Lehmann)"
        assert math.isnan(r.se)
        assert r.df is None
        assert r.n_resamples is None
        assert any(note.startswith("se is NaN") for note in r.notes)

    def test_sign_convention(self) -> None:
        # "greater": the candidate scores higher, i.e. d = candidate - baseline > 0
        # scipy.stats.wilcoxon(D, alternative="greater") -> 0.0048828125 (= 5/1024)
        r = wilcoxon(baseline=ZEROS, candidate=D, alternative="greater")
        assert r.pvalue == pytest.approx(0.0048828125, rel=1e-12)
        assert r.statistic == 52.0  # W+ for a one-sided test, as scipy reports
        assert r.ci.high == math.inf
        assert wilcoxon(baseline=D, candidate=ZEROS, alternative="less").pvalue == r.pvalue


# --- oracle: scipy.stats.wilcoxon --------------------------------------------------------


def _scipy(d: np.ndarray, **options: object) -> tuple[float, float]:
    res = stats.wilcoxon(d, **options)
    return float(res.statistic), float(res.pvalue)


@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["continuous", "ties", "runs"])
def test_normal_matches_scipy(
    kind: str, alternative: str, zero_method: str, correction: bool
) -> None:
    rng = np.random.default_rng(
        zlib.crc32(f"{kind} {alternative} {zero_method} {correction}".encode())
    )
    for n in [*rng.integers(3, 40, 10), *rng.integers(40, 600, 10)]:
        d = draw(rng, int(n), kind)
        if not np.any(d):
            continue
        ours = wilcoxon(
            baseline=np.zeros(len(d)),
            candidate=d,
            method="normal",
            zero_method=zero_method,  # type: ignore[arg-type]
            correction=correction,
            alternative=alternative,  # type: ignore[arg-type]
        )
        statistic, pvalue = _scipy(
            d,
            method="asymptotic",
            zero_method=zero_method,
            correction=correction,
            alternative=alternative,
        )
        assert ours.statistic == pytest.approx(statistic, rel=1e-12)
        assert ours.pvalue == pytest.approx(pvalue, rel=1e-10)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(6))
def test_exact_matches_scipy(alternative: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (2, 3, 5, 8, 13, 20, 35, 50, 51, 80, 120):
        d = rng.normal(0.2, 1.0, n)
        ours = wilcoxon_core(
            d,
            zero_method="wilcox",
            correction=False,
            method="exact",
            alternative=alternative,  # type: ignore[arg-type]
            confidence_level=0.95,
        )
        statistic, pvalue = _scipy(d, method="exact", alternative=alternative)
        assert ours.statistic == statistic
        assert ours.pvalue == pytest.approx(pvalue, rel=1e-10)


@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_auto_matches_scipy(alternative: str, zero_method: str, correction: bool) -> None:
    rng = np.random.default_rng(7)
    for kind in ("continuous", "ties", "runs"):
        for n in (4, 9, 14, 30, 50, 51, 200):
            d = draw(rng, n, kind)
            has_ties_or_zeros = len(np.unique(np.abs(d))) < n or not np.all(d)
            ours = wilcoxon(
                baseline=np.zeros(n),
                candidate=d,
                zero_method=zero_method,  # type: ignore[arg-type]
                correction=correction,
                alternative=alternative,  # type: ignore[arg-type]
            )
            exact = np.count_nonzero(d) <= 50
            assert ours.method == ("wilcoxon-exact" if exact else "wilcoxon-normal")
            if exact and has_ties_or_zeros:
                if np.count_nonzero(d) <= 14:  # the conditional exact test, by enumeration
                    expected = brute_force_pvalue(d, zero_method, alternative)
                    assert ours.pvalue == pytest.approx(expected, rel=1e-12)
                continue
            statistic, pvalue = _scipy(
                d, zero_method=zero_method, correction=correction, alternative=alternative
            )
            assert ours.statistic == pytest.approx(statistic, rel=1e-12)
            assert ours.pvalue == pytest.approx(pvalue, rel=1e-10)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_with_ties_and_zeros_is_the_conditional_exact_test(
    zero_method: str, alternative: str
) -> None:
    rng = np.random.default_rng(21)
    for _ in range(20):
        d = rng.integers(-3, 5, size=int(rng.integers(3, 13))).astype(float)
        if not np.any(d):
            continue
        r = wilcoxon(
            baseline=np.zeros(len(d)),
            candidate=d,
            zero_method=zero_method,  # type: ignore[arg-type]
            alternative=alternative,
            method="exact",
        )  # type: ignore[arg-type]
        assert r.pvalue == pytest.approx(brute_force_pvalue(d, zero_method, alternative), rel=1e-12)


def test_small_sample_with_ties_is_exact() -> None:
    d = np.array([1.0, 2.0, -2.0, 3.0, 0.0, 4.0, 5.0])
    r = wilcoxon(np.zeros(7), d)
    assert r.method == "wilcoxon-exact"
    assert r.pvalue == pytest.approx(brute_force_pvalue(d, "wilcox", "two-sided"), rel=1e-12)
    assert any(
        note.startswith("2 differences with tied absolute values: exact p-value given the mid")
        for note in r.notes
    )


def test_binary_differences_give_the_sign_test() -> None:
    """All |d| tied: the exact signed-rank test is the exact sign test (McNemar)."""
    d = np.array([1.0] * 9 + [-1.0] * 3 + [0.0] * 20)
    r = wilcoxon(baseline=np.zeros(len(d)), candidate=d, alternative="greater")
    assert r.pvalue == pytest.approx(stats.binomtest(9, 12, 0.5, alternative="greater").pvalue)


def test_null_distribution_matches_enumeration() -> None:
    for m in range(1, 13):
        null = enumerated_null(m)
        pmf = _null_pmf(2 * np.arange(1, m + 1))[::2]  # doubled ranks; odd totals impossible
        assert len(pmf) == m * (m + 1) // 2 + 1
        np.testing.assert_array_equal(pmf, [null.get(w, 0.0) for w in range(len(pmf))])


# --- Hodges-Lehmann estimate and interval ---------------------------------------------------


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("kind", ["continuous", "ties", "runs"])
def test_estimate_is_the_median_of_walsh_averages(kind: str, zero_method: str) -> None:
    rng = np.random.default_rng(11)
    for n in (2, 3, 4, 7, 10, 31, 64, 150):
        d = draw(rng, n, kind)
        used = d[d != 0] if zero_method == "wilcox" else d
        if used.size == 0:
            continue
        r = wilcoxon(np.zeros(n), d, zero_method=zero_method)  # type: ignore[arg-type]
        assert r.estimate == np.median(walsh_averages(used))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_interval_matches_brute_force(alternative: str) -> None:
    rng = np.random.default_rng(3)
    for m in (2, 3, 4, 6, 8, 10):
        null = enumerated_null(m)
        d = rng.normal(0.5, 1.0, m)
        walsh = walsh_averages(d)
        r = wilcoxon(baseline=np.zeros(m), candidate=d, method="exact", alternative=alternative)  # type: ignore[arg-type]
        for level in (0.5, 0.8, 0.9, 0.95, 0.99):
            tail = 1 - level if alternative != "two-sided" else (1 - level) / 2
            expected = brute_interval(walsh, brute_force_k(null, tail), alternative)
            assert tuple(r.confidence_interval(level)) == expected


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_normal_interval_matches_brute_force(alternative: str, zero_method: str) -> None:
    rng = np.random.default_rng(4)
    for n in (3, 12, 40, 90):
        d = draw(rng, n, "runs")
        used = d[d != 0] if zero_method == "wilcox" else d
        if used.size == 0:
            continue
        m = len(used)
        walsh = walsh_averages(used)
        r = wilcoxon(
            baseline=np.zeros(n),
            candidate=d,
            method="normal",
            zero_method=zero_method,  # type: ignore[arg-type]
            alternative=alternative,  # type: ignore[arg-type]
        )
        for level in (0.8, 0.95, 0.99):
            tail = 1 - level if alternative != "two-sided" else (1 - level) / 2
            sd = math.sqrt(m * (m + 1) * (2 * m + 1) / 24)
            k = math.floor(len(walsh) / 2 + 0.5 - stats.norm.isf(tail) * sd)
            assert tuple(r.confidence_interval(level)) == brute_interval(walsh, k, alternative)


@pytest.mark.parametrize(
    ("method", "scipy_options"),
    [("exact", {"method": "exact"}), ("normal", {"method": "asymptotic", "correction": True})],
)
def test_interval_inverts_the_test(method: str, scipy_options: dict[str, object]) -> None:
    # Shifts just outside the interval are rejected by scipy's test of d - shift at
    # alpha = 0.05, shifts just inside are not (between Walsh averages: no ties, no zeros).
    rng = np.random.default_rng(5)
    for n in (9, 16, 30, 45):
        d = rng.normal(0.4, 1.0, n)
        walsh = walsh_averages(d)
        r = wilcoxon(np.zeros(n), d, method=method)  # type: ignore[arg-type]
        k = int(np.searchsorted(walsh, r.ci.low, side="left")) + 1
        assert walsh[k - 1] == r.ci.low
        assert walsh[len(walsh) - k] == r.ci.high
        outside = ((walsh[k - 2] + walsh[k - 1]) / 2, (walsh[-k] + walsh[-k + 1]) / 2)
        inside = ((walsh[k - 1] + walsh[k]) / 2, (walsh[-k - 1] + walsh[-k]) / 2)
        for shift in outside:
            assert _scipy(d - shift, **scipy_options)[1] <= 0.05
        for shift in inside:
            assert _scipy(d - shift, **scipy_options)[1] > 0.05


def test_confidence_interval_recomputes_at_other_levels() -> None:
    rng = np.random.default_rng(6)
    r = wilcoxon(np.zeros(60), rng.normal(size=60))
    narrow, wide = r.confidence_interval(0.5), r.confidence_interval(0.999)
    assert wide.low < r.ci.low < narrow.low <= r.estimate <= narrow.high < r.ci.high < wide.high
    assert r.confidence_interval(0.95) == r.ci
    assert narrow.confidence_level == 0.5


# --- order statistics of the Walsh averages without forming them -----------------------------


@pytest.mark.parametrize("kind", ["continuous", "ties", "runs", "tiny"])
def test_fast_selection_equals_direct(kind: str) -> None:
    rng = np.random.default_rng(8)
    for m in (1, 2, 5, 40, 300, 1200):
        if kind == "tiny":  # many exact ties, and averages that round
            s = np.sort(rng.choice([-0.3, -0.1, 0.0, 0.1, 0.2, 0.7, 1e-300], m))
        elif kind == "continuous":
            s = np.sort(rng.normal(size=m) * 0.1)
        else:
            s = np.sort(draw(rng, m, kind))
        walsh = np.sort(np.concatenate([(s[i] + s[i:]) / 2 for i in range(m)]))
        total = len(walsh)
        ranks = {1, 2, total, total - 1, (total + 1) // 2, *rng.integers(1, total + 1, 25)}
        for k in ranks:
            k = max(1, min(int(k), total))
            assert _kth_walsh_direct(s, k) == walsh[k - 1]
            assert _kth_walsh_fast(s, k, cap=1) == walsh[k - 1]
            assert _kth_walsh_fast(s, k) == walsh[k - 1]


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("kind", ["continuous", "ties", "runs"])
def test_fast_path_gives_the_same_result(
    kind: str, zero_method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(9)
    for n in (2, 3, 50, 333, 1000):
        d = draw(rng, n, kind)
        if not np.any(d):
            continue
        options = {"zero_method": zero_method, "method": "normal"}
        direct = wilcoxon(np.zeros(n), d, **options)  # type: ignore[arg-type]
        with monkeypatch.context() as patch:
            patch.setattr(wilcoxon_module, "DIRECT_MAX", 0)
            patch.setattr(wilcoxon_module, "SELECT_CAP", 0)
            fast = wilcoxon(np.zeros(n), d, **options)  # type: ignore[arg-type]
        assert fast.estimate == direct.estimate
        assert fast.ci == direct.ci
        for level in (0.5, 0.99):
            assert fast.confidence_interval(level) == direct.confidence_interval(level)


def test_walsh_median_of_odd_and_even_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wilcoxon_module, "SELECT_CAP", 0)
    rng = np.random.default_rng(10)
    for m in (1, 2, 3, 4, 7, 8, 100, 101):  # m(m+1)/2 odd for m = 1, 2, 5, 6, ...; even else
        s = np.sort(np.round(rng.normal(size=m), 1))
        expected = np.median(walsh_averages(s))
        assert _walsh_median(s) == expected
        monkeypatch.setattr(wilcoxon_module, "DIRECT_MAX", 0)
        assert _walsh_median(s) == expected
        monkeypatch.setattr(wilcoxon_module, "DIRECT_MAX", 2000)


def kth_by_counting(d_int: np.ndarray, k: int) -> int:
    """Twice the k-th smallest Walsh average of integer data, by bisection on exact counts."""
    low, high = 2 * int(d_int.min()) - 1, 2 * int(d_int.max())  # count(low) < k <= count(high)
    while high - low > 1:
        middle = (low + high) // 2
        if count_walsh_at_most(d_int, middle) >= k:
            high = middle
        else:
            low = middle
    return high


@pytest.mark.parametrize("kind", ["distinct", "ties"])
def test_hundred_thousand_items(kind: str) -> None:
    # Integer differences, scaled by a power of 2 so that every Walsh average is exact,
    # checked against exact integer counting.
    rng = np.random.default_rng(12)
    n = 100_000
    high = 10**6 if kind == "distinct" else 6
    d_int = rng.integers(-high + 1, high + high // 50 + 1, n)
    scale = 1 / 1024 if kind == "distinct" else 1.0
    r = wilcoxon(np.zeros(n), d_int * scale)
    assert r.method == "wilcoxon-normal"
    assert any(
        note.startswith("more than 50 non-zero differences: used the normal") for note in r.notes
    )
    assert r.pvalue == pytest.approx(_scipy(d_int * scale)[1], rel=1e-10)
    used = d_int[d_int != 0]
    m = len(used)
    total = m * (m + 1) // 2
    middle = [kth_by_counting(used, total // 2 + i) * scale / 2 for i in (0, 1)]
    assert r.estimate == ((middle[0] + middle[1]) / 2 if total % 2 == 0 else middle[1])
    sd = math.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    k = math.floor(total / 2 + 0.5 - stats.norm.isf(0.025) * sd)
    assert r.ci.low == kth_by_counting(used, k) * scale / 2
    assert r.ci.high == kth_by_counting(used, total - k + 1) * scale / 2


# --- properties -------------------------------------------------------------------------------

scores = st.integers(0, 20).map(lambda i: i / 20)
paired_scores = st.lists(st.tuples(scores, scores), min_size=2, max_size=40)
options = st.fixed_dictionaries(
    {
        "zero_method": st.sampled_from(["wilcox", "pratt"]),
        "correction": st.booleans(),
        "method": st.sampled_from(["auto", "normal"]),
    }
)


@given(paired_scores, options)
def test_swapping_models_flips_the_sign(
    pairs: list[tuple[float, float]], opts: dict[str, Any]
) -> None:
    x, y = (np.array(v) for v in zip(*pairs, strict=True))
    forward, backward = wilcoxon(x, y, **opts), wilcoxon(y, x, **opts)
    assert backward.estimate == -forward.estimate
    assert (backward.ci.low, backward.ci.high) == (-forward.ci.high, -forward.ci.low)
    assert backward.pvalue == pytest.approx(forward.pvalue, rel=1e-12)
    assert backward.statistic == forward.statistic
    greater = wilcoxon(baseline=x, candidate=y, alternative="greater", **opts)
    less = wilcoxon(baseline=y, candidate=x, alternative="less", **opts)
    assert greater.pvalue == pytest.approx(less.pvalue, rel=1e-12)
    assert greater.ci.low == -less.ci.high


@given(paired_scores, options, st.sampled_from(ALTERNATIVES))
def test_interval_contains_the_estimate(
    pairs: list[tuple[float, float]], opts: dict[str, Any], alternative: str
) -> None:
    x, y = (np.array(v) for v in zip(*pairs, strict=True))
    r = wilcoxon(baseline=x, candidate=y, alternative=alternative, **opts)  # type: ignore[arg-type]
    assert r.ci.contains(r.estimate)
    wider = r.confidence_interval(0.99)
    assert wider.low <= r.ci.low
    assert r.ci.high <= wider.high


@given(paired_scores, options, st.randoms(use_true_random=False))
def test_reordering_items_changes_nothing(
    pairs: list[tuple[float, float]], opts: dict[str, Any], random: Random
) -> None:
    shuffled = list(pairs)
    random.shuffle(shuffled)
    x, y = (np.array(v) for v in zip(*pairs, strict=True))
    u, v = (np.array(w) for w in zip(*shuffled, strict=True))
    a, b = wilcoxon(x, y, **opts), wilcoxon(u, v, **opts)
    assert (a.estimate, a.ci, a.statistic, a.pvalue) == (b.estimate, b.ci, b.statistic, b.pvalue)
    assert a.notes == b.notes


# --- calibration ---------------------------------------------------------------------------


def _binomial_band(n: int, p: float) -> tuple[int, int]:
    """The central 99% range of Binomial(n, p)."""
    return int(stats.binom.ppf(0.005, n, p)), int(stats.binom.isf(0.005, n, p))


def test_false_positive_rate_under_a_symmetric_null() -> None:
    rng = np.random.default_rng(2024)
    draws = rng.standard_t(3, size=(2000, 200))  # symmetric about 0, heavy tails
    zeros = np.zeros(200)
    rejections = sum(wilcoxon(zeros, d).pvalue < 0.05 for d in draws)
    assert rejections == 103
    low, high = _binomial_band(2000, 0.05)  # (76, 126)
    assert low <= rejections <= high


def test_interval_coverage() -> None:
    rng = np.random.default_rng(2025)
    center = 0.25
    draws = center + rng.logistic(size=(2000, 200))  # symmetric about the pseudomedian
    zeros = np.zeros(200)
    covered = sum(wilcoxon(zeros, d).ci.contains(center) for d in draws)
    assert covered == 1899
    low, high = _binomial_band(2000, 0.95)  # (1874, 1924)
    assert low <= covered <= high


# --- degenerate cases --------------------------------------------------------------------


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("method", ["auto", "exact", "normal"])
def test_all_differences_zero(zero_method: str, method: str) -> None:
    scores = [0.5, 1.0, 0.0, 0.25]
    r = wilcoxon(scores, scores, zero_method=zero_method, method=method)  # type: ignore[arg-type]
    assert r.pvalue == 1.0
    assert r.estimate == 0.0
    assert r.statistic == 0.0
    assert (r.ci.low, r.ci.high) == (0.0, 0.0)
    assert r.confidence_interval(0.5) == ConfidenceInterval(low=0.0, high=0.0, confidence_level=0.5)
    assert "every per-item difference is 0 (4 items)" in r.notes[0]
    greater = wilcoxon(baseline=scores, candidate=scores, alternative="greater")
    assert (greater.ci.low, greater.ci.high) == (0.0, math.inf)


def test_one_nonzero_difference() -> None:
    r = wilcoxon([0, 0, 0, 0, 0], [0, 0, 1, 0, 0])
    assert r.method == "wilcoxon-exact"
    assert r.pvalue == 1.0  # one sign, two equally likely outcomes: 2 * 1/2
    assert r.estimate == 1.0
    assert (r.ci.low, r.ci.high) == (-math.inf, math.inf)
    assert "4 of 5 differences are 0 and were dropped (zero_method='wilcox')" in r.notes[0]
    assert any("1 differences are too few for a bounded 95% interval" in n for n in r.notes)
    pratt = wilcoxon([0, 0, 0, 0, 0], [0, 0, 1, 0, 0], zero_method="pratt")
    assert pratt.pvalue == 1.0
    assert pratt.estimate == 0.0  # the zeros stay in the Walsh averages
    normal = wilcoxon([0, 0, 0, 0, 0], [0, 0, 1, 0, 0], method="normal")
    # scipy.stats.wilcoxon([0, 0, 1, 0, 0], method="asymptotic") -> 0.3173105079
    assert normal.pvalue == pytest.approx(0.3173105079, rel=1e-9)
    assert any(
        "only 1 non-zero difference(s): the normal approximation is rough" in n
        for n in normal.notes
    )


def test_two_items() -> None:
    r = wilcoxon([0, 0], [1, 2])
    assert r.method == "wilcoxon-exact"
    assert r.pvalue == 0.5  # scipy.stats.wilcoxon([1, 2]) -> 0.5
    assert (r.ci.low, r.ci.high) == (-math.inf, math.inf)
    assert r.confidence_interval(0.2) == ConfidenceInterval(low=1.0, high=2.0, confidence_level=0.2)


def test_exact_is_noted_when_correction_is_ignored() -> None:
    r = wilcoxon(ZEROS, D, correction=True)
    assert r.pvalue == pytest.approx(0.009765625, rel=1e-12)
    assert "correction=True has no effect on the exact test." in r.notes


# --- bad input -----------------------------------------------------------------------------


def test_bad_options() -> None:
    with pytest.raises(
        DataError,
        match=r"`zero_method` must be one of 'wilcox', 'pratt'; got 'zsplit'\. Use 'wilcox'",
    ):
        wilcoxon(ZEROS, D, zero_method="zsplit")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`correction` must be True or False; got 'yes'\."):
        wilcoxon(ZEROS, D, correction="yes")  # type: ignore[arg-type]
    with pytest.raises(
        DataError,
        match=r"`method` must be one of 'auto', 'exact', 'normal'; got 'asymptotic'\. Use 'normal'",
    ):
        wilcoxon(ZEROS, D, method="asymptotic")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`alternative` must be one of .*; got 'bigger'"):
        wilcoxon(baseline=ZEROS, candidate=D, alternative="bigger")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"`confidence_level` must be .* got 95\."):
        wilcoxon(ZEROS, D, confidence_level=95)


def test_exact_refuses_large_samples() -> None:
    with pytest.raises(DataError, match=r"handles at most 1000 non-zero differences; got 1001\."):
        wilcoxon(np.zeros(1001), np.arange(1, 1002.0), method="exact")


def test_bad_scores() -> None:
    with pytest.raises(DataError, match=r"`candidate` .*1 NaN value\(s\) .*position 1"):
        wilcoxon([0.1, 0.2], [0.3, math.nan])
    with pytest.raises(AlignmentError, match=r"`baseline` has shape \(3,\) but `candidate`"):
        wilcoxon([0.1, 0.2, 0.3], [0.3, 0.4])
    with pytest.raises(DataError, match=r"a paired test needs at least 2 items; got 1\."):
        wilcoxon([0.1], [0.3])


@pytest.mark.parametrize("m", [1, 2, 7, 40, 401])
def test_the_one_selection_gives_each_order_statistic_on_its_own(m: int) -> None:
    """The estimate and the intervals selected together from one build of the Walsh
    averages equal the median and each end selected alone."""
    rng = np.random.default_rng(m)
    s = np.sort(np.round(rng.normal(0.2, 1.0, m), 1))
    exact = np.cumsum(wilcoxon_module._null_pmf(2 * np.arange(1, m + 1)))[::2]
    for cdf in (None, exact):
        estimate, interval = wilcoxon_module._estimate_and_interval(s, cdf, 0.9, "greater")
        assert estimate == wilcoxon_module._walsh_median(s)
        for side in ("two-sided", "greater", "less"):
            alone = wilcoxon_module._interval(s, cdf, 0.9, side)
            assert interval.known[(0.9, side)] == alone
            assert interval(0.9, side) == alone
        assert interval(0.8, "less") == wilcoxon_module._interval(s, cdf, 0.8, "less")
