"""Bootstrap of 100,000 continuous per-item differences, 10,000 resamples.

Target: no B x N matrix (it would take 8 GB); peak memory under 500 MB. Shown beside the
memory a naive ``rng.integers(0, n, (B, n))`` resample would need.
"""

from __future__ import annotations

import numpy as np

from _util import best_time, mb, peak_memory, row
from evalsig.inference import bootstrap

N, B = 100_000, 10_000


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    x = rng.random(N)
    y = np.clip(x + rng.normal(0.005, 0.2, N), 0, 1)
    print(f"Continuous paired bootstrap: {N:,} items, {B:,} resamples")
    seconds, r = best_time(lambda: bootstrap(x, y, n_resamples=B, rng=1), 1)
    peak, _ = peak_memory(lambda: bootstrap(x, y, n_resamples=B, rng=1))
    naive = B * N * 8
    print(
        row(
            "evalsig.inference.bootstrap (BCa)",
            seconds,
            f"peak {mb(peak)}; CI ({r.ci.low:+.5f}, {r.ci.high:+.5f})",
        )
    )
    print(f"  a B x N index matrix alone would need {mb(naive)}; target peak < 500 MB")
    return {"seconds": seconds, "peak_mb": peak / 2**20}


if __name__ == "__main__":
    main()
