"""Coverage, size and p-value / interval duality of the methods ``evalsig.compare`` picks by
default, at 10, 30, 100 and 1,000 items and accuracies from 2% to 98%.

One standard for every check, that of tests/inference/test_score_coverage.py: the 99%
binomial band of a 2,000-replication estimate around 95%, ``0.95 +/- z_0.995 sqrt(0.95 *
0.05 / 2000)`` = [93.74%, 96.26%]. Coverage within the band or above it passes (above it is
conservative: the continuity-corrected McNemar interval at 10 and 30 items, and the adjusted
t interval at 10 and 30 items, cover 96% to 100%); below it fails. The false-positive rate
at alpha = 0.05 must not exceed the band's upper edge for 5%, ``0.05 + z_0.995 sqrt(0.05 *
0.95 / 2000)`` = 6.26%.

* One run of 0/1 scores (McNemar): the result depends on the data only through ``(n01,
  n10)``, whose distribution is multinomial, so coverage and size are exact sums over every
  outcome (tails of mass below 1e-12 left out, and their mass counted as not covered), no
  simulation. Pairs of models with phi correlation 0 and 0.5, equal accuracies (size) and
  accuracies 2 or 10 points apart (coverage), two-sided and one-sided. The old default
  (the exact binomial p-value beside Tango's uncorrected interval) fails: the interval
  covers 93.3% at 100 items (its one-sided bound 91.4% at 30), and the p-value and
  interval disagree at ``n01 = 5, n10 = 0``.
* Several runs of 0/1 scores: seeded simulations of 2,000 data sets each, item accuracies
  from a probit model (items differ in difficulty, the models' difficulties correlate);
  the plain paired t interval on per-item means, the old default, covers 81% at 10 items.

The interval bounds are computed here by a plain vectorised re-implementation, checked equal
to ``compare``'s own on a sample of outcomes, so that the whole grid runs in seconds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from evalsig import compare
from evalsig.inference._mcnemar import CONTINUITY, CORRECTED_BELOW
from evalsig.inference._ttest import ADJUSTED_BELOW, PSEUDO_ITEMS

LEVEL = 0.95
REPLICATIONS = 2000
Z99 = float(special.ndtri(0.995))
HALF_BAND = Z99 * math.sqrt(LEVEL * (1 - LEVEL) / REPLICATIONS)
BAND = (LEVEL - HALF_BAND, LEVEL + HALF_BAND)
"""[0.93745, 0.96255]."""
SIZE_EDGE = 0.05 + Z99 * math.sqrt(0.05 * 0.95 / REPLICATIONS)
"""0.06255: the highest false-positive rate at alpha 0.05 that passes."""

ACCURACIES = (0.02, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.98)
SIZES = (10, 30, 100, 1000)
C95 = float(special.ndtri(0.975))
C90 = float(special.ndtri(0.95))


# --- one run of 0/1 scores: exact sums over (n01, n10) --------------------------------------


def tango_scores(
    delta: np.ndarray, n01: np.ndarray, n10: np.ndarray, n: int, cc: np.ndarray
) -> np.ndarray:
    """Tango's score at ``delta``, with ``cc`` taken off the numerator's absolute value."""
    numerator = n01 - n10 - n * delta
    numerator = np.sign(numerator) * np.maximum(np.abs(numerator) - cc, 0.0)
    w = -(n01 + n10) + delta * (2 * n - n01 + n10)
    q = (np.sqrt(np.maximum(w * w + 8.0 * n * n10 * delta * (1 - delta), 0.0)) - w) / (4.0 * n)
    variance = n * (2 * q + delta * (1 - delta))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = numerator / np.sqrt(variance)
        infinite = np.sign(numerator) * np.inf
    return np.where(numerator == 0, 0.0, np.where(variance > 0, z, infinite))


def default_bounds(
    n01: np.ndarray, n10: np.ndarray, n: int, c: float = C95, *, old: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided bounds of the default's interval (``old``: Tango's, uncorrected) by
    bisection on the monotone score, 60 halvings."""
    cc = np.where((n01 + n10 < CORRECTED_BELOW) & (not old), CONTINUITY, 0.0)
    estimate = (n01 - n10) / n
    edge = 1.0 - 1e-12
    lo_out, lo_in = np.full(estimate.shape, -edge), estimate.copy()
    hi_in, hi_out = estimate.copy(), np.full(estimate.shape, edge)
    for _ in range(60):
        middle = (lo_out + lo_in) / 2
        rejected = tango_scores(middle, n01, n10, n, cc) > c
        lo_out, lo_in = np.where(rejected, middle, lo_out), np.where(rejected, lo_in, middle)
        middle = (hi_in + hi_out) / 2
        rejected = tango_scores(middle, n01, n10, n, cc) < -c
        hi_out, hi_in = np.where(rejected, middle, hi_out), np.where(rejected, hi_in, middle)
    low = np.where(tango_scores(np.full_like(lo_in, -edge), n01, n10, n, cc) > c, lo_in, -1.0)
    high = np.where(tango_scores(np.full_like(hi_in, edge), n01, n10, n, cc) < -c, hi_in, 1.0)
    return low, high


def default_pvalues(n01: np.ndarray, n10: np.ndarray) -> np.ndarray:
    """Two-sided p-value of the default: the (corrected below 25) score at delta = 0."""
    m = np.maximum(n01 + n10, 1)
    cc = np.where(n01 + n10 < CORRECTED_BELOW, CONTINUITY, 0.0)
    z = np.maximum(np.abs(n01 - n10) - cc, 0.0) / np.sqrt(m)
    return np.asarray(2 * special.ndtr(-z))


def paired_probabilities(a: float, b: float, rho: float) -> tuple[float, float]:
    """``(p01, p10)`` of a baseline right with probability ``a`` and a candidate right with
    probability ``b``, phi correlation ``rho`` (clipped to what the margins allow)."""
    p11 = a * b + rho * math.sqrt(a * (1 - a) * b * (1 - b))
    p11 = min(max(p11, a + b - 1, 0.0), a, b)
    return b - p11, a - p11


def outcomes(n: int, p01: float, p10: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ``(n01, n10)`` outside tails of mass < 1e-12, with its multinomial probability."""
    ranges = [
        np.arange(int(stats.binom.ppf(1e-13, n, p)), int(stats.binom.ppf(1 - 1e-13, n, p)) + 1)
        for p in (p01, p10)
    ]
    n01, n10 = (g.ravel() for g in np.meshgrid(*ranges, indexing="ij"))
    keep = n01 + n10 <= n
    n01, n10 = n01[keep], n10[keep]
    log_p = (
        special.gammaln(n + 1)
        - special.gammaln(n01 + 1)
        - special.gammaln(n10 + 1)
        - special.gammaln(n - n01 - n10 + 1)
        + special.xlogy(n01, p01)
        + special.xlogy(n10, p10)
        + special.xlogy(n - n01 - n10, 1 - p01 - p10)
    )
    weights = np.exp(log_p)
    assert weights.sum() > 1 - 1e-9
    return n01.astype(float), n10.astype(float), weights


def one_run_designs() -> list[tuple[float, float, float]]:
    """(baseline accuracy, candidate accuracy, phi): equal, 2 points and 10 points apart
    (towards 50%), correlation 0 and 0.5."""
    designs = []
    for a in ACCURACIES:
        toward = 1 if a < 0.5 else -1
        for b in (a, a + toward * 0.02, a + toward * 0.1):
            for rho in (0.0, 0.5):
                designs.append((a, round(b, 2), rho))
    return designs


def one_run(n01: int, n10: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """One run of 0/1 scores on n items with n01 and n10 discordant items."""
    base = np.zeros(n, dtype=np.int8)
    cand = np.zeros(n, dtype=np.int8)
    cand[:n01] = 1
    base[n01 : n01 + n10] = 1
    return base, cand


@pytest.mark.parametrize("n", SIZES)
def test_oracle_bounds_are_compares(n: int) -> None:
    """The vectorised bounds and p-values below are those ``compare`` gives, at outcomes on
    both sides of the switch at 25 discordant items."""
    cells = [(0, 0), (1, 0), (5, 0), (3, 4), (n // 2, 0), (12, 12), (20, 4), (30, 9)]
    for n01, n10 in [(a, b) for a, b in cells if a + b <= n]:
        result = compare(*one_run(n01, n10, n))
        low, high = default_bounds(np.array([float(n01)]), np.array([float(n10)]), n)
        corrected = n01 + n10 < CORRECTED_BELOW
        assert result.method == ("mcnemar-score-cc" if corrected else "mcnemar-asymptotic")
        assert result.ci.low == pytest.approx(low[0], abs=1e-9)
        assert result.ci.high == pytest.approx(high[0], abs=1e-9)
        expected_p = default_pvalues(np.array([n01]), np.array([n10]))[0]
        assert result.pvalue == pytest.approx(expected_p, rel=1e-12)


@pytest.mark.parametrize("n", SIZES)
def test_one_run_default_covers_and_keeps_its_size(n: int) -> None:
    """Exact coverage over the design grid; figures (worst over the grid): 97.6% at 10
    items, 96.4% at 30, 95.0% at 100, 94.9% at 1,000 (conservative at 10 and 30 items);
    size at most 2.4%, 3.4%, 4.9%, 5.0%. One-sided 95% bounds (each side of the two-sided
    90% interval): at least 96.7%, 95.7%, 94.9%, 94.6%."""
    worst_coverage, worst_size, worst_one_sided = 1.0, 0.0, 1.0
    for a, b, rho in one_run_designs():
        p01, p10 = paired_probabilities(a, b, rho)
        n01, n10, weights = outcomes(n, p01, p10)
        truth = p01 - p10
        low, high = default_bounds(n01, n10, n)
        coverage = float(weights[(low <= truth + 1e-12) & (truth - 1e-12 <= high)].sum())
        assert coverage >= BAND[0], (a, b, rho, coverage)
        worst_coverage = min(worst_coverage, coverage)
        low, high = default_bounds(n01, n10, n, C90)
        for side in (low <= truth + 1e-12, truth - 1e-12 <= high):
            one_sided = float(weights[side].sum())
            assert one_sided >= BAND[0], (a, b, rho, one_sided)
            worst_one_sided = min(worst_one_sided, one_sided)
        if a == b:
            size = float(weights[default_pvalues(n01, n10) < 0.05].sum())
            assert size <= SIZE_EDGE, (a, rho, size)
            worst_size = max(worst_size, size)
    expected = {
        10: (0.976, 0.024, 0.967),
        30: (0.964, 0.034, 0.957),
        100: (0.950, 0.049, 0.949),
        1000: (0.949, 0.050, 0.946),
    }
    assert (
        round(worst_coverage, 3),
        round(worst_size, 3),
        round(worst_one_sided, 3),
    ) == expected[n]


def test_old_one_run_interval_under_covers() -> None:
    """The check can fail: Tango's uncorrected interval (the old default's) covers 93.3% at
    100 items when the accuracies are 94% and 98% (phi 0.3: 4.9% and 0.9% discordant);
    the corrected default covers 96.8% there. Its one-sided 95% lower bound covers 91.4%
    at 30 items (accuracies 10% and 20%, phi 0.5)."""
    p01, p10 = paired_probabilities(0.94, 0.98, 0.3)
    n01, n10, weights = outcomes(100, p01, p10)
    truth = p01 - p10
    for old, expected in ((True, 0.933), (False, 0.968)):
        low, high = default_bounds(n01, n10, 100, old=old)
        coverage = float(weights[(low <= truth) & (truth <= high)].sum())
        assert round(coverage, 3) == expected
    assert BAND[0] > 0.933
    worst = 1.0
    for a, b, rho in one_run_designs():
        p01, p10 = paired_probabilities(a, b, rho)
        n01, n10, weights = outcomes(30, p01, p10)
        low, _ = default_bounds(n01, n10, 30, C90, old=True)
        worst = min(worst, float(weights[low <= p01 - p10 + 1e-12].sum()))
    assert round(worst, 3) == 0.914


def test_old_one_run_p_value_and_interval_disagree() -> None:
    """The old default with 5 of 10 items right for the candidate only: exact p 0.0625 beside
    a Tango interval that excludes 0; the default's p-value (0.044) and interval agree."""
    exact = compare(*one_run(5, 0, 10), method="mcnemar", variant="exact")
    assert exact.pvalue == 0.0625
    assert exact.ci.low > 0
    default = compare(*one_run(5, 0, 10))
    assert round(default.pvalue, 3) == 0.044
    assert default.ci.low > 0
    assert default.confidence_interval(0.99).low < 0 < default.pvalue < 0.05


# --- several runs of 0/1 scores: seeded simulation ------------------------------------------

RUNS = 3


def simulate_runs(
    n: int, a: float, b: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """REPLICATIONS data sets of n items x RUNS runs per side. Item difficulty u_i ~ N(0, 1);
    baseline item accuracy Phi(mu_a + u_i), candidate Phi(mu_b + 0.8 u_i + 0.6 v_i), so the
    mean accuracies are a and b and the models' difficulties correlate (0.8). Returns the
    per-item mean differences, the runs of the first data set, and the truth b - a."""
    scale = math.sqrt(2.0)
    mu_a, mu_b = special.ndtri(a) * scale, special.ndtri(b) * scale
    u = rng.standard_normal((REPLICATIONS, n))
    v = rng.standard_normal((REPLICATIONS, n))
    base = rng.binomial(RUNS, special.ndtr(mu_a + u))
    cand = rng.binomial(RUNS, special.ndtr(mu_b + 0.8 * u + 0.6 * v))
    return (cand - base) / RUNS, base[:8], cand[:8], b - a


def adjusted_bounds(d: np.ndarray, level: float = 0.975) -> tuple[np.ndarray, np.ndarray]:
    """The adjusted t interval (pseudo-items) of every row of ``d``, two-sided 95% (each
    bound is a one-sided ``level`` bound)."""
    n_tilde = d.shape[1] + sum(w for _, w in PSEUDO_ITEMS)
    centre = d.sum(axis=1) / n_tilde
    squares = ((d - centre[:, None]) ** 2).sum(axis=1)
    squares += sum(w * (value - centre) ** 2 for value, w in PSEUDO_ITEMS)
    se = np.sqrt(squares / (n_tilde - 1) / n_tilde)
    c = float(stats.t.ppf(level, n_tilde - 1))
    return np.maximum(centre - c * se, -1.0), np.minimum(centre + c * se, 1.0)


def plain_t_bounds(d: np.ndarray, level: float = 0.975) -> tuple[np.ndarray, np.ndarray]:
    """The t interval of every row's mean, ``level`` in each tail's complement."""
    n = d.shape[1]
    se = d.std(axis=1, ddof=1) / math.sqrt(n)
    c = float(stats.t.ppf(level, n - 1))
    return d.mean(axis=1) - c * se, d.mean(axis=1) + c * se


def expand(counts: np.ndarray) -> np.ndarray:
    """Runs x items 0/1 scores with the given per-item number right."""
    return (np.arange(RUNS)[:, None] < counts[None, :]).astype(np.int8)


RUN_DESIGNS = [(0.02, 0.12), (0.1, 0.1), (0.5, 0.4), (0.5, 0.5), (0.9, 0.9), (0.98, 0.88)]
"""(baseline, candidate) mean accuracies: equal (size) and 10 points apart (coverage)."""


@pytest.mark.parametrize("n", SIZES)
def test_several_runs_default_covers_and_keeps_its_size(n: int) -> None:
    """Seeded: the default's coverage is in the band or above it at every design, two-sided
    and one-sided (95% lower and upper bounds), and its false-positive rate at most the
    band's upper edge; the bounds are checked equal to ``compare``'s on the first data sets
    of each design."""
    rng = np.random.default_rng(20261128 + n)
    bounds = adjusted_bounds if n < ADJUSTED_BELOW else plain_t_bounds
    method = "paired-t-adjusted" if n < ADJUSTED_BELOW else "paired-t"
    counts = []
    for a, b in RUN_DESIGNS:
        d, base, cand, truth = simulate_runs(n, a, b, rng)
        low, high = bounds(d)
        for k in range(len(base)):
            result = compare(expand(base[k]), expand(cand[k]))
            assert result.method == method
            assert (result.ci.low, result.ci.high) == pytest.approx((low[k], high[k]), abs=1e-12)
        covered = int(np.count_nonzero((low <= truth) & (truth <= high)))
        assert covered / REPLICATIONS >= BAND[0], (a, b, covered)
        if a == b:
            assert (REPLICATIONS - covered) / REPLICATIONS <= SIZE_EDGE, (a, covered)
        low, high = bounds(d, 0.95)
        sides = (int(np.count_nonzero(low <= truth)), int(np.count_nonzero(truth <= high)))
        assert min(sides) / REPLICATIONS >= BAND[0], (a, b, sides)
        counts.append((covered, *sides))
    expected = {  # conservative at 10 and 30 items (two-sided 96.5% to 100%)
        10: [
            (2000, 1999, 1999),
            (1999, 1998, 1999),
            (1986, 1956, 1995),
            (1984, 1978, 1973),
            (2000, 2000, 1999),
            (2000, 2000, 2000),
        ],
        30: [
            (1953, 1991, 1915),
            (1984, 1979, 1976),
            (1939, 1922, 1938),
            (1930, 1925, 1925),
            (1989, 1979, 1977),
            (1963, 1911, 1992),
        ],
        100: [
            (1928, 1955, 1891),
            (1933, 1919, 1923),
            (1906, 1897, 1921),
            (1898, 1906, 1904),
            (1935, 1925, 1928),
            (1925, 1877, 1962),
        ],
        1000: [
            (1904, 1924, 1891),
            (1910, 1911, 1913),
            (1911, 1881, 1909),
            (1892, 1900, 1898),
            (1902, 1892, 1899),
            (1898, 1890, 1896),
        ],
    }
    assert counts == expected[n]


def test_old_several_runs_t_interval_under_covers() -> None:
    """The check can fail: the plain t interval on per-item means (the old default), on the
    same seeded data sets, covers 93.0% at 10 items and 91.8% at 30 when the accuracies
    are 98% and 88% (most items all right on every run of both models)."""
    for n, expected in ((10, 1861), (30, 1836)):
        rng = np.random.default_rng(20261128 + n)
        for a, b in RUN_DESIGNS:
            d, _, _, truth = simulate_runs(n, a, b, rng)
        assert (a, b) == (0.98, 0.88)
        low, high = plain_t_bounds(d)
        covered = int(np.count_nonzero((low <= truth) & (truth <= high)))
        assert covered == expected
        assert covered / REPLICATIONS < BAND[0]


# --- duality: p < alpha exactly when the interval at 1 - alpha excludes 0 --------------------

ALTERNATIVES = st.sampled_from(["two-sided", "greater", "less"])


def assert_dual(result: object, alpha: float) -> None:
    from evalsig.comparison import ComparisonResult

    assert isinstance(result, ComparisonResult)
    ci = result.confidence_interval(1 - alpha)
    excludes = ci.low > 0 or ci.high < 0
    if excludes != (result.pvalue < alpha):
        assert result.pvalue == pytest.approx(alpha, rel=1e-7), (result.pvalue, ci)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 1500),
    share=st.floats(0, 1),
    tilt=st.floats(0, 1),
    alternative=ALTERNATIVES,
)
def test_one_run_pvalue_and_interval_agree(
    n: int, share: float, tilt: float, alternative: str
) -> None:
    m = round(share * n * (0.05 if share < 0.5 else 1))  # few discordant items often
    n01 = round(tilt * m)
    result = compare(*one_run(n01, m - n01, n), alternative=alternative)  # type: ignore[arg-type]
    assert result.method.startswith("mcnemar-")
    for alpha in (0.05, 0.01):
        assert_dual(result, alpha)


@settings(max_examples=100, deadline=None)
@given(
    n=st.sampled_from([2, 3, 5, 10, 30, 100, 1200]),
    runs=st.integers(2, 5),
    a=st.sampled_from(ACCURACIES),
    b=st.sampled_from(ACCURACIES),
    bounded=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    alternative=ALTERNATIVES,
)
def test_several_runs_pvalue_and_interval_agree(
    n: int, runs: int, a: float, b: float, bounded: bool, seed: int, alternative: str
) -> None:
    rng = np.random.default_rng(seed)
    if bounded:  # scores in [0, 1] that are not 0/1
        base, cand = (
            rng.beta(4 * a, 4 * (1 - a), (runs, n)),
            rng.beta(4 * b, 4 * (1 - b), (runs, n)),
        )
    else:
        base = (rng.random((runs, n)) < a).astype(np.int8)
        cand = (rng.random((runs, n)) < b).astype(np.int8)
    result = compare(base, cand, alternative=alternative)  # type: ignore[arg-type]
    assert result.method == ("paired-t-adjusted" if n < ADJUSTED_BELOW else "paired-t")
    for alpha in (0.05, 0.01):
        assert_dual(result, alpha)


@pytest.mark.parametrize(
    ("base", "cand"),
    [
        one_run(7, 1, 40),
        one_run(40, 22, 300),
        (expand(np.array([0, 1, 2, 3, 3, 3])), expand(np.array([2, 3, 3, 3, 3, 3]))),
    ],
)
def test_pvalue_is_the_level_where_the_interval_touches_zero(
    base: np.ndarray, cand: np.ndarray
) -> None:
    result = compare(base, cand)
    ci = result.confidence_interval(1 - result.pvalue)
    assert min(abs(ci.low), abs(ci.high)) == pytest.approx(0.0, abs=1e-9)
