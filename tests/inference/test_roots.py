"""Brent's method on one bracket follows ``scipy.optimize.brentq`` iterate for iterate: the
same root to the last bit, the same errors. (Many brackets at once: tests/meta/test_batch.py.)"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import optimize

from evalsig.inference import _mcnemar
from evalsig.inference._roots import RTOL, brentq

FUNCTIONS: dict[str, Callable[[float], float]] = {
    "cubic": lambda x: x**3 - 2 * x - 5,
    "exponential": lambda x: math.exp(x) - 3,
    "flat": lambda x: math.atan(x - 0.3),
    "steep": lambda x: (x - 1e-9) * 1e8,
    "step": lambda x: math.copysign(1.0, x - 0.123),
    "root at an end": lambda x: x + 4,
    "infinite": lambda x: math.inf if x > 1 else x - 0.5,
}


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize(("xtol", "rtol"), [(2e-12, RTOL), (1e-14, 1e-12), (1e-3, 1e-6)])
def test_the_root_is_scipys_to_the_last_bit(name: str, xtol: float, rtol: float) -> None:
    f = FUNCTIONS[name]
    assert brentq(f, -4, 4, xtol=xtol, rtol=rtol) == optimize.brentq(f, -4, 4, xtol=xtol, rtol=rtol)


def test_no_sign_change_and_no_convergence_raise_as_scipy() -> None:
    with pytest.raises(ValueError, match="different signs"):
        brentq(lambda x: x * x + 1, -1, 1)
    with pytest.raises(RuntimeError, match="did not converge in 3 iterations"):
        brentq(math.atan, -4, 5, maxiter=3)


def test_tangos_interval_is_what_scipys_brentq_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """McNemar's interval over counts, levels, sides and corrections, from tiny to a
    million pairs: identical bounds with scipy's root finder put in our Brent's place."""
    rng = np.random.default_rng(5)
    cases = []
    for _ in range(400):
        n = int(rng.choice([1, 2, 3, 5, 10, 30, 100, 1000, 12032, 10**6]))
        n01 = int(rng.integers(0, n + 1))
        n10 = int(rng.integers(0, n - n01 + 1))
        level = float(rng.choice([0.5, 0.8, 0.95, 0.999, rng.uniform(0.5, 0.9999)]))
        side = str(rng.choice(["two-sided", "greater", "less"]))
        cases.append((n01, n10, n, level, side, float(rng.choice([0.0, 0.5, 1.0]))))

    def intervals() -> list[tuple[float, float]]:
        return [_mcnemar.tango_interval(*c[:5], correction=c[5]) for c in cases]  # type: ignore[arg-type]

    ours = intervals()
    monkeypatch.setattr(_mcnemar, "brentq", optimize.brentq)
    assert ours == intervals()
