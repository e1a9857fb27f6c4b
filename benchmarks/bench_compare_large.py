"""compare() on 1,000,000 items x 8 runs with 10,000 bootstrap resamples, from arrays.

Targets: under 1 s on a 2-core machine; peak memory under 3x the input arrays.
"""

from __future__ import annotations

import numpy as np

from _util import best_time, mb, peak_memory, row
from evalsig import compare

N, R, B = 1_000_000, 8, 10_000


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, N)
    out = {}
    print(f"compare() from arrays: {N:,} items x {R} runs per model, {B:,} resamples")
    for dtype in (np.int8, np.float64):
        base = (rng.random((R, N)) < p).astype(dtype)
        cand = (rng.random((R, N)) < np.clip(p + 0.002, 0, 1)).astype(dtype)
        input_bytes = base.nbytes + cand.nbytes
        for method in ("auto", "bootstrap"):

            def run() -> object:
                return compare(base, cand, method=method, n_resamples=B, rng=1)  # noqa: B023

            seconds, result = best_time(run, 3)
            peak, _ = peak_memory(run)
            ratio = peak / input_bytes
            out[f"{np.dtype(dtype).name}-{method}-seconds"] = seconds
            out[f"{np.dtype(dtype).name}-{method}-memory-ratio"] = ratio
            print(
                row(
                    f"{np.dtype(dtype).name} input ({mb(input_bytes)}), method={method!r}",
                    seconds,
                    f"peak {mb(peak)} = {ratio:.2f}x input; {result.method}",
                )
            )
    print("  targets: < 1,000 ms and peak < 3x the input arrays")
    return out


if __name__ == "__main__":
    main()
