"""pass@k over 100,000 tasks x 100 samples: evalsig beside a loop of Chen et al.'s function.

The reference is the numerically stable numpy implementation of Chen et al. (2021, Figure 3),
called once per task in a Python loop, as evaluation scripts do; it is timed on the first
10,000 tasks and scaled linearly. evalsig computes the same per-task estimates vectorised
over tasks (``evalsig.inference.passk.pass_at_k``; the largest difference to the loop is
printed; tasks sharing (n, c) are computed once), again with every task's n different
(100 to 20,000 samples, nothing shared), then the whole of ``pass_at_k`` (estimates,
standard error, t interval, unbiased within-task variance) for k = 1, 10 and 50, pass^k,
majority@k, the paired comparison of two models and the cluster-robust (CR2) interval with
the tasks in 1,000 clusters. Target: the vectorised estimates at least 10x the loop.
"""

from __future__ import annotations

import numpy as np

from _util import best_time, row
from evalsig.inference.passk import majority_at_k, pass_at_k, pass_hat_k
from evalsig.passk import SampleCounts, compare_pass_at_k
from evalsig.passk import pass_at_k as pass_at_k_result

TASKS = 100_000
SAMPLES = 100
LOOPED = 10_000
TARGET = 10.0


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), Figure 3."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    n = np.full(TASKS, SAMPLES)
    c = rng.binomial(SAMPLES, rng.beta(0.5, 1.5, TASKS))
    print(f"pass@k: {TASKS:,} tasks x {SAMPLES} samples (success rates ~ Beta(0.5, 1.5))")
    ratios = {}
    pairs = list(zip(n[:LOOPED].tolist(), c[:LOOPED].tolist(), strict=True))
    for k in (1, 10, 50):
        ours, estimates = best_time(lambda k=k: pass_at_k(n, c, k))
        looped, reference = best_time(
            lambda k=k: [chen_pass_at_k(a, b, k) for a, b in pairs], repeat=1
        )
        theirs = looped * TASKS / LOOPED
        gap = float(np.max(np.abs(estimates[:LOOPED] - np.array(reference))))
        ratios[f"k={k}"] = theirs / ours
        print(row(f"evalsig per-task pass@{k} (vectorised)", ours, f"max |diff| {gap:.1e}"))
        print(row(f"Chen et al.'s function in a loop (scaled from {LOOPED:,})", theirs))
        print(f"  -> {theirs / ours:,.0f}x as fast (target >= {TARGET:g}x)")
    spread = rng.integers(100, 20_000, TASKS)  # (n, c) all different: nothing to share
    hits = rng.binomial(spread, rng.beta(0.5, 1.5, TASKS))
    ours, estimates = best_time(lambda: pass_at_k(spread, hits, 10))
    pairs = list(zip(spread[:LOOPED].tolist(), hits[:LOOPED].tolist(), strict=True))
    looped, reference = best_time(lambda: [chen_pass_at_k(a, b, 10) for a, b in pairs], 1)
    theirs = looped * TASKS / LOOPED
    gap = float(np.max(np.abs(estimates[:LOOPED] - np.array(reference))))
    ratios["distinct n"] = theirs / ours
    print(row("evalsig pass@10, n = 100-20,000 samples per task", ours, f"max |diff| {gap:.1e}"))
    print(row(f"Chen et al.'s function in a loop (scaled from {LOOPED:,})", theirs))
    print(f"  -> {theirs / ours:,.0f}x as fast (target >= {TARGET:g}x)")
    counts = SampleCounts(n=n, c=c)
    seconds, result = best_time(lambda: pass_at_k_result(counts, [1, 10, 50]), repeat=1)
    print(row("evalsig pass_at_k(k=[1, 10, 50]): SE, interval, within", seconds,
              f"pass@10 = {result[10].estimate:.4f} +/- {result[10].se:.4f}"))  # fmt: skip
    for name, function in (("pass^10", pass_hat_k), ("majority@10", majority_at_k)):
        seconds, _ = best_time(lambda f=function: f(n, c, 10))
        print(row(f"evalsig per-task {name}", seconds))
    other = rng.binomial(SAMPLES, np.clip(c / SAMPLES + 0.01, 0, 1))
    seconds, paired = best_time(
        lambda: compare_pass_at_k(counts, SampleCounts(n=n, c=other), [1, 10]), repeat=1
    )
    test = paired[10]
    print(row("evalsig compare_pass_at_k(k=[1, 10]), paired t", seconds,
              f"pass@10 difference {test.estimate:+.4f}, p = {test.pvalue:.1e}"))  # fmt: skip
    clusters = np.arange(TASKS) // 100  # 1,000 clusters of 100 tasks
    seconds, result = best_time(
        lambda: pass_at_k_result(counts, [1, 10, 50], cluster=clusters), repeat=1
    )
    print(row("evalsig pass_at_k, 1,000 clusters: CR2 interval", seconds,
              f"pass@10 = {result[10].estimate:.4f} +/- {result[10].se:.4f}"))  # fmt: skip
    return ratios


if __name__ == "__main__":
    main()
