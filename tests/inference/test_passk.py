"""pass@k, pass^k and majority@k per task: brute force over every k-subset, Chen et al.'s
implementation, exact unbiasedness by binomial enumeration, standard errors against
simulation, and seeded calibration of the interval and of the paired test."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import special, stats

from evalsig.errors import DataError
from evalsig.inference import passk as P

ESTIMATORS = ("pass@k", "pass^k", "majority@k")


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), Figure 3: the numerically stable numpy implementation."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def kernel(estimator: str, k: int, correct: int, ties: str = "half") -> Fraction:
    """The indicator of one k-subset with ``correct`` right samples, as an exact fraction."""
    if estimator == "pass@k":
        return Fraction(int(correct >= 1))
    if estimator == "pass^k":
        return Fraction(int(correct == k))
    if 2 * correct == k:
        return Fraction(1, 2) if ties == "half" else Fraction(0)
    return Fraction(int(2 * correct > k))


def brute_estimate(samples: list[int], k: int, estimator: str, ties: str = "half") -> Fraction:
    """The mean of the kernel over every k-subset of the samples (itertools.combinations)."""
    subsets = list(itertools.combinations(samples, k))
    return sum((kernel(estimator, k, sum(s), ties) for s in subsets), Fraction(0)) / len(subsets)


def brute_pair_mean(samples: list[int], k: int, estimator: str, overlap: int) -> Fraction:
    """The mean of h(S1) h(S2) over ordered pairs of k-subsets sharing ``overlap`` samples."""
    index = range(len(samples))
    total, count = Fraction(0), 0
    for s1 in itertools.combinations(index, k):
        for s2 in itertools.combinations(index, k):
            if len(set(s1) & set(s2)) != overlap:
                continue
            h1 = kernel(estimator, k, sum(samples[i] for i in s1))
            h2 = kernel(estimator, k, sum(samples[i] for i in s2))
            total += h1 * h2
            count += 1
    return total / count


def true_value(estimator: str, k: int, p: float, ties: str = "half") -> float:
    """theta(p): the kernel's mean over k independent Bernoulli(p) samples."""
    x = np.arange(k + 1)
    return float(stats.binom.pmf(x, k, p) @ P.kernel(estimator, k, ties))


# --- estimators against brute force --------------------------------------------------------


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("ties", ["half", "fail"])
def test_every_estimator_is_the_mean_over_all_k_subsets(estimator: str, ties: str) -> None:
    for n in range(1, 9):
        for c in range(n + 1):
            samples = [1] * c + [0] * (n - c)
            for k in range(1, n + 1):
                expected = float(brute_estimate(samples, k, estimator, ties))
                got = P.task_estimates([n], [c], k, estimator=estimator, ties=ties)
                assert got[0] == pytest.approx(expected, rel=1e-13, abs=1e-15), (n, c, k)


def test_vectorised_over_tasks_with_different_n() -> None:
    n = np.array([5, 12, 7, 30, 9])
    c = np.array([0, 7, 7, 11, 4])
    for estimator in ESTIMATORS:
        together = P.task_estimates(n, c, 4, estimator=estimator)
        alone = [
            P.task_estimates([a], [b], 4, estimator=estimator)[0] for a, b in zip(n, c, strict=True)
        ]
        np.testing.assert_allclose(together, alone, rtol=1e-14)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_tasks_sharing_n_and_c_get_the_numbers_they_get_alone(estimator: str) -> None:
    """From 1,024 tasks, repeated (n, c) pairs are computed once and spread back: the same
    numbers, bit for bit, as computing blocks of fewer tasks one by one."""
    rng = np.random.default_rng(8)
    for top in (30, 5000):  # a table of the keys, or a sort of them
        n = rng.integers(12, top, 6000)
        n[:4000] = 20  # many repeats
        c = rng.integers(0, n + 1)
        for k in (1, 6):
            whole = P.task_estimates(n, c, k, estimator=estimator)
            blocks = [
                P.task_estimates(n[i : i + 500], c[i : i + 500], k, estimator=estimator)
                for i in range(0, 6000, 500)
            ]
            assert whole.tobytes() == np.concatenate(blocks).tobytes()
            within = P.within_task_variance(n, c, k, estimator=estimator)
            parts = [
                P.within_task_variance(n[i : i + 500], c[i : i + 500], k, estimator=estimator)
                for i in range(0, 6000, 500)
            ]
            assert within.tobytes() == np.concatenate(parts).tobytes()


def test_chen_et_al_hand_cases_and_their_implementation() -> None:
    # n = 10 samples, c = 3 correct: pass@1 = 3/10, pass@5 = 1 - C(7,5)/C(10,5) = 11/12,
    # pass@10 = 1 (7 < 10 incorrect: every 10-subset holds a correct one)
    got = [float(P.pass_at_k([10], [3], k)[0]) for k in (1, 5, 10)]
    assert got == [pytest.approx(0.3, abs=0), pytest.approx(11 / 12, rel=1e-15), 1.0]
    assert got == pytest.approx([chen_pass_at_k(10, 3, k) for k in (1, 5, 10)], rel=1e-15)
    rng = np.random.default_rng(11)
    n = rng.integers(1, 300, 2000)
    c = rng.integers(0, n + 1)
    k = 7
    keep = n >= k
    ours = P.pass_at_k(n[keep], c[keep], k)
    theirs = [chen_pass_at_k(int(a), int(b), k) for a, b in zip(n[keep], c[keep], strict=True)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def test_pass_at_1_is_the_fraction_correct_to_the_last_bit() -> None:
    n = np.array([10, 7, 200, 3])
    c = np.array([3, 1, 1, 2])
    assert P.pass_at_k(n, c, 1).tolist() == (c / n).tolist()
    assert P.pass_hat_k(n, c, 1).tolist() == pytest.approx((c / n).tolist(), rel=1e-15)
    assert P.majority_at_k(n, c, 1).tolist() == pytest.approx((c / n).tolist(), rel=1e-14)


def test_small_pass_at_k_keeps_its_relative_precision() -> None:
    # 1 correct of 10**6 samples, k = 1..3: pass@k = k / n exactly
    for k in (1, 2, 3):
        assert P.pass_at_k([10**6], [1], k)[0] == pytest.approx(k / 10**6, rel=1e-13)


def test_majority_matches_scipy_hypergeometric_tails_for_large_n() -> None:
    cases = [(10_000, 3_000, 51), (10_000, 5_100, 101), (500, 260, 20), (80, 79, 9)]
    for n, c, k in cases:
        h = P.kernel("majority@k", k)
        expected = float(stats.hypergeom.pmf(np.arange(k + 1), n, c, k) @ h)
        assert P.majority_at_k([n], [c], k)[0] == pytest.approx(expected, rel=1e-12)


def test_ties_count_half_or_fail() -> None:
    # n = 4, c = 2, k = 2: P(X = 2) = 1/6, P(X = 1) = 4/6 (a tie)
    assert P.majority_at_k([4], [2], 2)[0] == pytest.approx(1 / 6 + 0.5 * 4 / 6)
    assert P.majority_at_k([4], [2], 2, ties="fail")[0] == pytest.approx(1 / 6)


# --- unbiasedness, exactly ------------------------------------------------------------------


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_estimators_are_unbiased_by_binomial_enumeration(estimator: str) -> None:
    for n, k in ((6, 1), (9, 4), (20, 7)):
        c = np.arange(n + 1)
        estimates = P.task_estimates(np.full(n + 1, n), c, k, estimator=estimator)
        for p in (0.03, 0.4, 0.77):
            mean = stats.binom.pmf(c, n, p) @ estimates
            assert mean == pytest.approx(true_value(estimator, k, p), abs=1e-13)


def _exact_variance(estimator: str, k: int, n: int, p: float) -> float:
    """Var_n(hat p) by enumerating the binomial number of correct samples."""
    c = np.arange(n + 1)
    estimates = P.task_estimates(np.full(n + 1, n), c, k, estimator=estimator)
    return float(stats.binom.pmf(c, n, p) @ (estimates - true_value(estimator, k, p)) ** 2)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_within_task_variance_is_the_brute_force_u_statistic(estimator: str) -> None:
    for n, k in ((4, 1), (5, 2), (7, 3), (8, 4)):
        for c in range(n + 1):
            samples = [1] * c + [0] * (n - c)
            f = brute_estimate(samples, k, estimator)
            expected = float(f * f - brute_pair_mean(samples, k, estimator, 0))
            got = P.within_task_variance([n], [c], k, estimator=estimator)[0]
            assert got == pytest.approx(expected, abs=1e-13), (n, c, k)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_within_task_variance_is_unbiased(estimator: str) -> None:
    for n, k in ((2, 1), (10, 3), (16, 8), (25, 5)):
        c = np.arange(n + 1)
        variance = P.within_task_variance(np.full(n + 1, n), c, k, estimator=estimator)
        for p in (0.1, 0.5, 0.85):
            expected = _exact_variance(estimator, k, n, p)
            assert stats.binom.pmf(c, n, p) @ variance == pytest.approx(expected, abs=1e-13)


def test_within_task_variance_needs_2k_samples() -> None:
    got = P.within_task_variance([9, 10], [4, 4], 5)
    assert np.isnan(got[0])
    assert not np.isnan(got[1])
    assert P.within_task_variance([3], [1], 1)[0] == pytest.approx(
        1 * 2 / (9 * 2)
    )  # c(n-c)/(n^2(n-1))


def test_pass_at_k_within_variance_is_never_negative() -> None:
    n = np.repeat(np.arange(2, 60), 60)
    c = np.concatenate([np.arange(60) % (m + 1) for m in range(2, 60)])
    for k in (1, 2, 5):
        keep = n >= 2 * k
        assert (P.within_task_variance(n[keep], c[keep], k) >= -1e-16).all()
        assert (P.within_task_variance(n[keep], c[keep], k, estimator="pass^k") >= -1e-16).all()


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_overlap_covariances_are_the_brute_force_ones(estimator: str) -> None:
    for n, k in ((4, 2), (6, 3), (7, 2)):
        for c in range(n + 1):
            samples = [1] * c + [0] * (n - c)
            disjoint = brute_pair_mean(samples, k, estimator, 0)
            expected = [
                float(brute_pair_mean(samples, k, estimator, j) - disjoint) for j in range(1, k + 1)
            ]
            got = P.overlap_covariances([n], [c], k, estimator=estimator)[0]
            np.testing.assert_allclose(got, expected, atol=1e-13)


def test_overlap_weights_are_the_chance_two_subsets_share_j_samples() -> None:
    for n, k in ((5, 2), (7, 3), (6, 6)):
        subsets = list(itertools.combinations(range(n), k))
        shares = [len(set(a) & set(b)) for a in subsets for b in subsets]
        expected = [shares.count(j) / len(shares) for j in range(1, k + 1)]
        np.testing.assert_allclose(P.overlap_weights(k, n), expected, rtol=1e-14)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_projected_variance_is_unbiased_at_any_number_of_samples(estimator: str) -> None:
    """From n samples, sum_j w_j(n') zeta_j estimates Var_{n'} without bias, for n' below
    and above n (and equals the within-task variance at n' = n)."""
    for n, k in ((7, 2), (12, 3)):
        c = np.arange(n + 1)
        zeta = P.overlap_covariances(np.full(n + 1, n), c, k, estimator=estimator)
        at_n = P.u_statistic_variance(zeta, k, n)
        within = P.within_task_variance(np.full(n + 1, n), c, k, estimator=estimator)
        np.testing.assert_allclose(at_n, within, atol=1e-14)
        for planned in (k, k + 1, 2 * n, 50):
            projected = P.u_statistic_variance(zeta, k, planned)
            for p in (0.2, 0.6, 0.93):
                expected = _exact_variance(estimator, k, planned, p)
                assert stats.binom.pmf(c, n, p) @ projected == pytest.approx(expected, abs=1e-13)


# --- errors --------------------------------------------------------------------------------


def test_counts_are_checked() -> None:
    with pytest.raises(DataError, match=r"task 1 has n = 3 samples, fewer than k = 5"):
        P.pass_at_k([10, 3], [1, 1], 5)
    with pytest.raises(DataError, match=r"task 0 has c = 11 correct of n = 10"):
        P.pass_at_k([10], [11], 1)
    with pytest.raises(DataError, match=r"`n` must hold whole numbers"):
        P.pass_at_k([10.5], [1], 1)
    with pytest.raises(DataError, match=r"`k` must be a positive integer"):
        P.pass_at_k([10], [1], 0)
    with pytest.raises(DataError, match=r"`estimator` must be one of"):
        P.task_estimates([10], [1], 1, estimator="pass@K")
    with pytest.raises(DataError, match=r"`ties` must be 'half'"):
        P.majority_at_k([10], [1], 2, ties="coin")


def test_counts_from_samples() -> None:
    n, c = P.counts_from_samples([[1, 0, 1], [0, 0], [True, True, False, True]])
    assert n.tolist() == [3, 2, 4]
    assert c.tolist() == [2, 0, 3]
    n, c = P.counts_from_samples(np.array([1, 0, 1]))  # one sample per task
    assert n.tolist() == [1, 1, 1]
    assert c.tolist() == [1, 0, 1]
    with pytest.raises(DataError, match=r"task 1 has 1 missing \(NaN\) sample score"):
        P.counts_from_samples(np.array([[1.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(DataError, match=r"task 0 has sample scores other than 0 and 1 \(0\.5\)"):
        P.counts_from_samples([[0.5, 1.0]])
    with pytest.raises(DataError, match=r"mixes scores and lists of scores"):
        P.counts_from_samples([[1, 0], 1])
    with pytest.raises(DataError, match=r"position 1 have no samples"):
        P.counts_from_samples([[1], []])


# --- standard errors against simulation -----------------------------------------------------


def _simulate_counts(
    rng: np.random.Generator, p: np.ndarray, n: int, replicates: int
) -> np.ndarray:
    """``(replicates, T)`` correct counts of n Bernoulli samples per task (vectorised)."""
    return rng.binomial(n, np.broadcast_to(p, (replicates, len(p))))


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_se_within_matches_the_spread_of_resampled_samples(estimator: str) -> None:
    """Tasks fixed, samples redrawn: the variance of the mean over tasks is
    (1/T^2) sum_t Var_n(hat p_t), and se_within^2 estimates it without bias."""
    rng = np.random.default_rng(5)
    tasks, n, k, replicates = 40, 12, 3, 4000
    p = rng.beta(0.7, 0.9, tasks)
    exact = sum(_exact_variance(estimator, k, n, float(q)) for q in p) / tasks**2
    c = _simulate_counts(rng, p, n, replicates).ravel()
    sizes = np.full(c.size, n)
    estimates = P.task_estimates(sizes, c, k, estimator=estimator).reshape(replicates, tasks)
    within = P.within_task_variance(sizes, c, k, estimator=estimator).reshape(replicates, tasks)
    simulated = float(np.var(estimates.mean(axis=1), ddof=1))
    # the simulated variance has relative SE about sqrt(2 / R) = 2.2%
    assert simulated == pytest.approx(exact, rel=0.08)
    reported = within.sum(axis=1) / tasks**2
    assert float(reported.mean()) == pytest.approx(exact, rel=0.02)


def test_se_over_tasks_matches_the_spread_of_resampled_benchmarks() -> None:
    """Tasks drawn from a population and samples drawn for each: E[s^2 / T] = Var(mean)."""
    rng = np.random.default_rng(6)
    tasks, n, k, replicates = 50, 10, 5, 4000
    p = rng.beta(0.5, 1.0, (replicates, tasks))
    c = rng.binomial(n, p).ravel()
    estimates = P.pass_at_k(np.full(c.size, n), c, k).reshape(replicates, tasks)
    simulated = float(np.var(estimates.mean(axis=1), ddof=1))
    reported = float(np.mean(np.var(estimates, axis=1, ddof=1) / tasks))
    assert reported == pytest.approx(simulated, rel=0.08)


# --- calibration ---------------------------------------------------------------------------


def _band(count: int, trials: int, rate: float) -> None:
    """The count lies within the two-sided 99% binomial band around ``rate``."""
    low, high = stats.binom.ppf([0.005, 0.995], trials, rate)
    assert low <= count <= high, (count, trials, rate, (low, high))


def test_t_interval_for_pass_at_k_covers_at_the_nominal_rate() -> None:
    rng = np.random.default_rng(2024)
    a, b, tasks, n, k, replicates = 0.6, 0.8, 60, 10, 5, 2000
    truth = 1 - special.beta(a, b + k) / special.beta(a, b)  # E[1 - (1 - p)^k], p ~ Beta(a, b)
    c = rng.binomial(n, rng.beta(a, b, (replicates, tasks))).ravel()
    estimates = P.pass_at_k(np.full(c.size, n), c, k).reshape(replicates, tasks)
    covered = 0
    for row in estimates:
        mean = P.mean_over_tasks(
            row, method="t", confidence_level=0.95, n_resamples=0, rng=rng, name="pass@5"
        )
        low, high = mean.interval(0.95)
        covered += low <= truth <= high
    assert covered == 1903  # seeded: the exact count of this run
    _band(covered, replicates, 0.95)


def test_paired_test_false_positive_rate_at_alpha_5_percent() -> None:
    """Both models share each task's success rate: the null holds task by task."""
    rng = np.random.default_rng(99)
    tasks, n, k, replicates = 40, 8, 3, 2000
    p = rng.beta(0.5, 0.7, (replicates, tasks))
    sizes = np.full(replicates * tasks, n)
    base = P.pass_at_k(sizes, rng.binomial(n, p).ravel(), k).reshape(replicates, tasks)
    cand = P.pass_at_k(sizes, rng.binomial(n, p).ravel(), k).reshape(replicates, tasks)
    rejected = 0
    for d in cand - base:
        test, _ = P.paired_over_tasks(
            d, method="paired-t", alternative="two-sided", confidence_level=0.95,
            n_resamples=0, rng=rng,
        )  # fmt: skip
        rejected += test.pvalue <= 0.05
    assert rejected == 99  # seeded: the exact count of this run
    _band(rejected, replicates, 0.05)


def test_mean_over_tasks_cuts_the_interval_to_the_unit_interval_and_says_so() -> None:
    values = np.array([1.0, 1.0, 1.0, 0.2])
    mean = P.mean_over_tasks(
        values, method="t", confidence_level=0.95, n_resamples=0,
        rng=np.random.default_rng(0), name="pass@5",
    )  # fmt: skip
    low, high = mean.interval(0.95)
    raw = stats.t.interval(0.95, 3, loc=values.mean(), scale=stats.sem(values))
    assert (low, high) == (pytest.approx(raw[0]), 1.0)
    assert any("reaches past [0, 1]; it is cut" in note for note in mean.notes)
    assert any("only 4 tasks" in note for note in mean.notes)


def test_mean_over_tasks_t_interval_is_scipys() -> None:
    values = np.random.default_rng(3).beta(2, 3, 40)
    mean = P.mean_over_tasks(
        values, method="t", confidence_level=0.9, n_resamples=0,
        rng=np.random.default_rng(0), name="pass@1",
    )  # fmt: skip
    expected = stats.t.interval(0.9, 39, loc=values.mean(), scale=stats.sem(values))
    assert mean.interval(0.9) == pytest.approx(expected, rel=1e-12)
    assert mean.se == pytest.approx(float(stats.sem(values)), rel=1e-13)
    assert math.isclose(mean.estimate, float(values.mean()), rel_tol=1e-15)
