"""Paired bootstrap, 10,000 resamples of 10,000 binary items: evalsig vs scipy.stats.bootstrap.

Target: at least 1,000x faster than ``scipy.stats.bootstrap(paired=True, vectorized=True)``
on the same data in the same run.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from _util import best_time, row
from evalsig.inference import bootstrap

N, B = 10_000, 10_000


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, N)
    y = np.where(rng.random(N) < 0.14, 1 - x, x)

    def mean_diff(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
        return np.mean(b - a, axis=axis)

    print(f"Paired bootstrap of the mean difference: {N:,} binary items, {B:,} resamples")
    ratios = {}
    for method in ("percentile", "bca"):
        ours, r = best_time(lambda m=method: bootstrap(x, y, method=m, n_resamples=B, rng=1), 5)
        theirs, s = best_time(
            lambda m=method: stats.bootstrap(
                (x, y),
                mean_diff,
                paired=True,
                vectorized=True,
                n_resamples=B,
                method=m,
                rng=np.random.default_rng(2),
            ),
            1,
        )
        ratio = theirs / ours
        ratios[f"bootstrap-{method}"] = ratio
        print(
            row(
                f"evalsig.inference.bootstrap(method={method!r})",
                ours,
                f"CI ({r.ci.low:+.5f}, {r.ci.high:+.5f})",
            )
        )
        ci = s.confidence_interval
        print(
            row(
                f"scipy.stats.bootstrap(method={method!r})",
                theirs,
                f"CI ({ci.low:+.5f}, {ci.high:+.5f})",
            )
        )
        print(f"  -> evalsig is {ratio:,.0f}x faster (target >= 1,000x)")
    return ratios


if __name__ == "__main__":
    main()
