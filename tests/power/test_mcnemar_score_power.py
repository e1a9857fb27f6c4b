"""The power of the McNemar test compare runs by default (method="score"), checked against
an exact oracle: the multinomial probability of every table (n01, n10) whose p-value from
compare's own test is at most alpha."""

from __future__ import annotations

import math

import pytest

from evalsig.data.paired import pair
from evalsig.inference._mcnemar import mcnemar_core
from evalsig.power import mcnemar_power, mcnemar_sample_size


def _oracle(n: int, p01: float, p10: float, alpha: float, alternative: str) -> float:
    """P(p <= alpha) summed over every (n01, n10), p from mcnemar_core's default."""
    rest = 1.0 - p01 - p10
    total = 0.0
    for n01 in range(n + 1):
        for n10 in range(n - n01 + 1):
            test = mcnemar_core(
                n01, n10, n, variant="auto", alternative=alternative, confidence_level=0.95
            )
            if test.pvalue <= alpha:
                log = (
                    math.lgamma(n + 1)
                    - math.lgamma(n01 + 1)
                    - math.lgamma(n10 + 1)
                    - math.lgamma(n - n01 - n10 + 1)
                    + n01 * math.log(p01)
                    + n10 * math.log(p10)
                    + (n - n01 - n10) * math.log(rest)
                )
                total += math.exp(log)
    return total


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(("n", "p01", "p10"), [(12, 0.3, 0.05), (30, 0.2, 0.1), (60, 0.5, 0.3)])
def test_score_power_is_that_of_compares_default_test(
    n: int, p01: float, p10: float, alternative: str
) -> None:
    want = _oracle(n, p01, p10, 0.05, alternative)
    got = mcnemar_power(n, p01, p10, alternative=alternative, method="score")  # type: ignore[arg-type]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_the_oracle_runs_compares_default() -> None:
    """mcnemar_core with variant='auto' is what compare() picks for one run of 0/1 scores."""
    from evalsig.comparison import compare_paired

    base = [1] * 6 + [0] * 4 + [1] * 10
    cand = [0] * 1 + [1] * 9 + [1] * 10
    result = compare_paired(pair(_table(base), _table(cand)))
    assert result.method == "mcnemar-score-cc"
    assert (result.n01, result.n10) == (4, 1)
    core = mcnemar_core(4, 1, 20, variant="auto", alternative="two-sided", confidence_level=0.95)
    assert result.pvalue == core.pvalue


def _table(scores: list[int]) -> object:
    from evalsig.data import load

    return load(scores)


def test_score_sample_size_is_the_smallest_n_with_the_power() -> None:
    size = mcnemar_sample_size(0.3, 0.05, method="score")
    assert size.method == "score"
    assert size.n_items is not None
    assert size.achieved_power is not None
    assert size.achieved_power >= 0.8
    assert mcnemar_power(size.n_items - 1, 0.3, 0.05, method="score") < 0.8
    # between the exact binomial test's N (more conservative) and Connor's formula
    exact = mcnemar_sample_size(0.3, 0.05, method="exact").n_items
    assert exact is not None
    assert size.n_items <= exact
