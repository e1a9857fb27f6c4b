"""Seeded coverage of the interval for mu with few reports (k = 5, tau^2 > 0).

The Wald z interval ignores the uncertainty of tau^2 and undercovers with few reports; the
HKSJ interval with t(k - 1) keeps close to its level (IntHout et al. 2014). Each check pins
the exact seeded count and its binomial plausibility.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from evalsig.meta import random_effects

R = 2000
V = np.array([1.0, 2.0, 4.0, 1.5, 3.0])  # sampling variances (SE 1-2 points)
TAU2, MU = 4.0, 70.0  # I^2 about 65%


def _coverage() -> dict[str, int]:
    rng = np.random.default_rng(2024)
    counts = {"dl-z": 0, "dl-hksj": 0, "reml-hksj": 0}
    for _ in range(R):
        y = MU + rng.normal(0.0, np.sqrt(V + TAU2))
        for key in counts:
            method, test = key.split("-")
            res = random_effects(y, V, method=method, test=test)  # type: ignore[arg-type]
            counts[key] += res.ci.contains(MU)
    return counts


def test_coverage_k5() -> None:
    counts = _coverage()
    assert counts == {"dl-z": 1787, "dl-hksj": 1888, "reml-hksj": 1887}
    # DL with z: clearly below 95%
    assert stats.binomtest(counts["dl-z"], R, 0.95, alternative="less").pvalue < 1e-6
    assert counts["dl-z"] / R < 0.92
    # HKSJ: consistent with 95% (two-sided binomial test not rejecting at 0.01)
    for key in ("dl-hksj", "reml-hksj"):
        assert stats.binomtest(counts[key], R, 0.95).pvalue > 0.01
