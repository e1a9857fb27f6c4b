"""Seeded Monte Carlo calibration: false-positive rates and interval coverage.

Each scenario simulates data with no true difference and counts how often each method
rejects at alpha = 0.05. The count must lie in the 99% binomial band around 5% of the
simulations; the exact seeded count is asserted too, so any change in behaviour shows.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsig import compare
from evalsig.simulate import simulate_benchmark

ALPHA = 0.05


def band(n_sims: int, rate: float = ALPHA) -> tuple[int, int]:
    """The central 99% range of a Binomial(n_sims, rate) count."""
    return int(stats.binom.ppf(0.005, n_sims, rate)), int(stats.binom.ppf(0.995, n_sims, rate))


def check_rejections(
    datasets: list[tuple[np.ndarray, np.ndarray]], expected: int, seed: int, **kw: object
) -> None:
    """The seeded count equals ``expected`` and lies in the 99% band around 5%."""
    if kw.get("method") in ("permutation", "bootstrap"):
        kw = {"n_resamples": 999, "rng": seed, **kw}
    hits = sum(compare(x, y, **kw).pvalue <= ALPHA for x, y in datasets)  # type: ignore[arg-type]
    lo, hi = band(len(datasets))
    assert lo <= hits <= hi, (hits, lo, hi)
    assert hits == expected


@pytest.fixture(scope="module")
def binary_single_run() -> list[tuple[np.ndarray, np.ndarray]]:
    """Single-run binary scores, N = 4000, clone of the baseline (no true difference)."""
    rng = np.random.default_rng(101)
    out = []
    for _ in range(1000):
        b = simulate_benchmark(n_items=4000, n_runs=1, uplift=0.0, rng=rng)
        out.append((b.baseline[0], b.candidate[0]))
    return out


@pytest.fixture(scope="module")
def multi_run() -> list[tuple[np.ndarray, np.ndarray]]:
    """8 runs per item, items always right, always wrong or uncertain; a clone."""
    rng = np.random.default_rng(202)
    return [
        (b.baseline, b.candidate)
        for b in (simulate_benchmark(n_items=4000, n_runs=8, rng=rng) for _ in range(600))
    ]


@pytest.fixture(scope="module")
def continuous() -> list[tuple[np.ndarray, np.ndarray]]:
    """Continuous scores in [0, 1] with strong item effects and skewed noise; no difference."""
    rng = np.random.default_rng(303)
    out = []
    for _ in range(1000):
        item = rng.beta(0.7, 0.7, 300)
        noise = rng.exponential(0.08, (2, 300)) - 0.08
        out.append((np.clip(item + noise[0], 0, 1), np.clip(item + noise[1], 0, 1)))
    return out


@pytest.mark.parametrize(
    ("method", "variant", "expected"),
    [
        ("mcnemar", "asymptotic", 55),
        ("mcnemar", "exact", 46),
        ("mcnemar", "mid-p", 55),
        ("mcnemar", "corrected", 46),
        ("paired-t", None, 55),
        ("permutation", "monte-carlo", 57),
        ("bootstrap", "bca", 51),
        ("bootstrap", "percentile", 50),
    ],
)
def test_binary_single_run(
    binary_single_run: list[tuple[np.ndarray, np.ndarray]],
    method: str,
    variant: str | None,
    expected: int,
) -> None:
    check_rejections(binary_single_run, expected, 7, method=method, variant=variant)


@pytest.mark.parametrize(
    ("method", "variant", "expected"),
    [
        ("paired-t", None, 40),
        ("bootstrap", "bca", 38),
        ("permutation", "monte-carlo", 38),
        pytest.param("wilcoxon", None, 41, marks=pytest.mark.slow),
    ],
)
def test_multi_run(
    multi_run: list[tuple[np.ndarray, np.ndarray]],
    method: str,
    variant: str | None,
    expected: int,
) -> None:
    check_rejections(multi_run, expected, 8, method=method, variant=variant)


@pytest.mark.parametrize(
    ("method", "variant", "expected"),
    [
        ("paired-t", None, 54),
        ("bootstrap", "bca", 60),
        ("bootstrap", "basic", 55),
        ("permutation", "monte-carlo", 53),
        ("wilcoxon", None, 55),
    ],
)
def test_continuous(
    continuous: list[tuple[np.ndarray, np.ndarray]],
    method: str,
    variant: str | None,
    expected: int,
) -> None:
    check_rejections(continuous, expected, 9, method=method, variant=variant)


def test_interval_coverage_under_a_true_uplift() -> None:
    """Paired t on 8-run means covers a true +1 point uplift in about 95% of benchmarks.

    Each always-wrong item is promoted independently, so a new draw of questions carries
    a new number of promoted items: the population difference is exactly +1 point.
    """
    rng = np.random.default_rng(404)
    covered, n_sims, n = 0, 600, 4000
    for _ in range(n_sims):
        u = rng.random(n)
        p = np.where(u < 0.42, 1.0, np.where(u < 0.70, 0.0, rng.uniform(0.2, 0.8, n)))
        promoted = (p == 0.0) & (rng.random(n) < 0.01 / 0.28)
        q = np.where(promoted, 1.0, p)
        base = (rng.random((8, n)) < p).astype(np.int8)
        cand = (rng.random((8, n)) < q).astype(np.int8)
        covered += compare(base, cand).ci.contains(0.01)
    lo, hi = band(n_sims, 0.95)
    assert covered == 562
    assert lo <= covered <= hi, (covered, lo, hi)


def test_fixed_count_fine_tune_is_covered_conservatively() -> None:
    """With exactly round(u * n) promoted items the true gain has no item-sampling variance;
    the paired-t interval, built for a new draw of questions, then over-covers."""
    rng = np.random.default_rng(405)
    n_sims = 600
    covered = sum(
        compare(b.baseline, b.candidate).ci.contains(b.true_difference)
        for b in (
            simulate_benchmark(n_items=4000, n_runs=8, uplift=0.01, rng=rng) for _ in range(n_sims)
        )
    )
    assert covered >= band(n_sims, 0.95)[1]  # at or above the top of the 95% band
