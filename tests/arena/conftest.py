"""Simulated battles for the arena tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


def simulate_arrays(
    strengths: np.ndarray, n: int, seed: int, tie_share: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` battles between random distinct models under Bradley-Terry ``strengths``;
    with ``tie_share``, that share of battles (at random) is a tie."""
    rng = np.random.default_rng(seed)
    m = len(strengths)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1.0 / (1.0 + np.exp(-(strengths[a] - strengths[b])))
    y = (rng.random(n) < p).astype(float)
    if tie_share:
        y[rng.random(n) < tie_share] = 0.5
    return a, b, y


@pytest.fixture
def simulate() -> Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]:
    return simulate_arrays


@pytest.fixture
def names() -> Callable[[int], np.ndarray]:
    return lambda m: np.array([f"model-{i}" for i in range(m)], dtype=object)
