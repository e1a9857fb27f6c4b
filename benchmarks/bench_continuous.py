"""Bootstrap of 100,000 continuous per-item differences, 10,000 resamples, beside evalstats.

Targets (issue 16): at least evalstats' speed on the same interval, side by side in one run;
no B x N matrix (it would take 8 GB), peak memory under 500 MB.

The peer is ``evalstats.pairwise_differences(scores, 0, 1, method="bootstrap")`` (evalstats
0.3.3; its ``method="auto"`` resolves to it at N >= 200): a percentile interval of the mean
difference over ``n_bootstrap`` resamples of the items (default 10,000), drawn one resample
at a time with ``rng.choice(n, n)``. evalsig's ``bootstrap(..., method="percentile")`` with
the same seed draws the same item indices, so the two intervals agree to rounding.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from _util import best_time, mb, peak_memory, row
from evalsig.inference import bootstrap

N, B = 100_000, 10_000
SEED = 1
INSTALL_HINT = "pip install -r benchmarks/requirements.txt (`make bench` does it)"


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    x = rng.random(N)
    y = np.clip(x + rng.normal(0.005, 0.2, N), 0, 1)
    print(f"Continuous paired bootstrap: {N:,} items, {B:,} resamples")
    figures = _beside_evalstats(x, y)
    figures.update(_bca_memory(x, y))
    return figures


def _beside_evalstats(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Percentile interval of the mean difference, evalsig and evalstats in turn, best of 3."""

    def ours() -> tuple[float, float]:
        r = bootstrap(x, y, method="percentile", n_resamples=B, rng=SEED)
        return r.ci.low, r.ci.high

    peer = _evalstats_call(x, y)
    calls = {"evalsig": ours} if peer is None else {"evalsig": ours, "evalstats": peer}
    timings = _interleaved(calls, repeat=3)
    labels = {
        "evalsig": 'evalsig bootstrap(method="percentile")',
        "evalstats": 'evalstats pairwise_differences(method="bootstrap")',
    }
    for name, (seconds, cpu, (low, high)) in timings.items():
        print(row(labels[name], seconds, f"cpu {cpu:.2f} s; CI ({low:+.10f}, {high:+.10f})"))
    seconds = timings["evalsig"][0]
    if peer is None:
        print(f"  evalstats is not installed: no side-by-side ratio; {INSTALL_HINT}")
        return {"percentile_seconds": seconds}
    (low, high), (peer_low, peer_high) = timings["evalsig"][2], timings["evalstats"][2]
    gap = max(abs(low - peer_low), abs(high - peer_high))
    ratio = timings["evalstats"][0] / seconds
    print(f"  -> {ratio:.2f}x evalstats' speed (target >= 1); intervals differ by {gap:.1e}")
    return {"percentile_seconds": seconds, "ratio": ratio}


def _interleaved(
    calls: dict[str, Callable[[], tuple[float, float]]], repeat: int
) -> dict[str, tuple[float, float, tuple[float, float]]]:
    """Best wall and CPU seconds of each call, run in turn so that load drifts hit both."""
    best: dict[str, tuple[float, float, tuple[float, float]]] = {}
    for _ in range(repeat):
        for name, call in calls.items():
            cpu_start = time.process_time()
            seconds, result = best_time(call, 1)
            cpu = time.process_time() - cpu_start
            previous = best.get(name, (float("inf"), float("inf"), result))
            best[name] = (min(seconds, previous[0]), min(cpu, previous[1]), result)
    return best


def _evalstats_call(x: np.ndarray, y: np.ndarray) -> Callable[[], tuple[float, float]] | None:
    """evalstats' paired percentile bootstrap of ``y - x``, or None when it is not installed."""
    try:
        import evalstats
    except ImportError:
        return None
    scores = np.stack([y, x])  # evalstats: one row per system, differences row 0 - row 1

    def call() -> tuple[float, float]:
        r = evalstats.pairwise_differences(
            scores, 0, 1, method="bootstrap", n_bootstrap=B, rng=np.random.default_rng(SEED)
        )
        return float(r.ci_low), float(r.ci_high)

    return call


def _bca_memory(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """evalsig's default (BCa) interval: time and peak memory."""
    seconds, r = best_time(lambda: bootstrap(x, y, n_resamples=B, rng=SEED), 1)
    peak, _ = peak_memory(lambda: bootstrap(x, y, n_resamples=B, rng=SEED))
    naive = B * N * 8
    print(
        row(
            "evalsig bootstrap (BCa, the default)",
            seconds,
            f"peak {mb(peak)}; CI ({r.ci.low:+.5f}, {r.ci.high:+.5f})",
        )
    )
    print(f"  a B x N index matrix alone would need {mb(naive)}; target peak < 500 MB")
    return {"seconds": seconds, "peak_mb": peak / 2**20}


if __name__ == "__main__":
    main()
