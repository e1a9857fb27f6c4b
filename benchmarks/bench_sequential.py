"""Anytime-valid monitoring: 10^5 and 10^6 paired items, streamed in batches of 1,000 or at once.

Target: linear total time (the 10^6 / 10^5 ratio near 10, per-item cost not growing with
the items already seen) and the same result however the stream is cut. Scores are 0/1 with
a 1-point uplift at 14% discordance (p01 = 7.5%, p10 = 6.5%).
"""

from __future__ import annotations

import numpy as np

from _util import best_time, row
from evalsig.sequential import SequentialMonitor, SequentialResult, confidence_sequence

SIZES = (100_000, 1_000_000)
BATCH = 1_000


def _stream(d: np.ndarray, method: str) -> SequentialResult:
    monitor = SequentialMonitor(method=method)  # type: ignore[arg-type]
    for start in range(0, len(d), BATCH):
        state = monitor.update(d[start : start + BATCH])
    return state


def main() -> dict[str, float]:
    u = np.random.default_rng(0).random(max(SIZES))
    data = np.where(u < 0.075, 1.0, np.where(u < 0.14, -1.0, 0.0))
    print(f"Sequential monitoring: {', '.join(f'{n:,}' for n in SIZES)} items")
    figures: dict[str, float] = {}
    for method in ("betting", "bernstein"):
        for n in SIZES:
            d = data[:n]
            streamed, state = best_time(lambda d=d, m=method: _stream(d, m), 1)
            whole, result = best_time(lambda d=d, m=method: confidence_sequence(d, method=m), 1)
            same = "same state" if state == result else "STATES DIFFER"
            print(row(f"{method}, {n:,} items in batches of {BATCH:,}", streamed, same))
            print(
                row(
                    f"{method}, {n:,} items at once (with the path)",
                    whole,
                    f"{result.status}, stopping time {result.resolved_at}",
                )
            )
            figures[f"{method}_{n}_streamed"] = streamed
            figures[f"{method}_{n}_whole"] = whole
        ratio = figures[f"{method}_{SIZES[1]}_streamed"] / figures[f"{method}_{SIZES[0]}_streamed"]
        print(
            f"  {method}: 10x the items took {ratio:.1f}x the time in batches "
            "(linear would be 10x: the work per item does not grow)"
        )
    return figures


if __name__ == "__main__":
    main()
