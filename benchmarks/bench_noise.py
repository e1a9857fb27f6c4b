"""Noise diagnostics at realistic sizes: evalsig beside the plain numpy a user would write.

1. ``evalsig.power.noise.benchmark_noise`` on 50 models x 10,000 items x 5 runs (0/1
   scores, ``runs x items`` arrays): per-model item and run-to-run variance components,
   pooled, signal-to-noise, the paired MDE, design options and the runs trade-off. The peer
   computes the same components in numpy (per-item means and within-item sums of squares,
   the models' spread, the mean variance of per-item differences over model pairs) and
   nothing else; pandas ``groupby`` on the long table (2.5 million rows) is shown too.
2. One model x 1,000,000 items x 8 runs: ``evalsig.score`` (t interval on per-item means
   and its variance components, :class:`evalsig.score.VarianceComponents`) beside the same
   numbers in numpy; and ``benchmark_noise`` on two such models.

Each figure is checked against the peer (largest relative difference printed). Target:
evalsig within 2x of the plain numpy (it also validates the scores, aligns the items and
computes the design options); pandas is the slower way a user might go.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from _util import best_time, row
from evalsig.power.noise import benchmark_noise
from evalsig.score import score

MODELS, ITEMS, RUNS = 50, 10_000, 5
BIG_ITEMS, BIG_RUNS = 1_000_000, 8
TARGET = 2.0


def components(runs: np.ndarray) -> tuple[float, float, np.ndarray]:
    """One model's ``(s_item^2, s_run^2, item means)`` from a ``runs x items`` array: the
    one-way random-effects ANOVA (method of moments), as a user would write it."""
    reps, n = runs.shape
    means = runs.mean(axis=0)
    within = float(((runs - means) ** 2).sum()) / (n * (reps - 1))
    return float(means.var(ddof=1)) - within / reps, within, means


def numpy_noise(models: dict[str, np.ndarray]) -> dict[str, float]:
    """The pooled components, the models' spread and the paired SD, in plain numpy."""
    parts = [components(x.astype(np.float64)) for x in models.values()]
    means = np.array([m for _, _, m in parts])  # models x items
    scores = means.mean(axis=1)
    m = len(means)
    cov = np.cov(means, ddof=1)
    pair = ((m - 1) * np.trace(cov) - (cov.sum() - np.trace(cov))) / (m * (m - 1) / 2)
    return {
        "item_variance": max(float(np.mean([a for a, _, _ in parts])), 0.0),
        "run_variance": float(np.mean([b for _, b, _ in parts])),
        "spread": float(scores.max() - scores.min()),
        "sd_paired": float(np.sqrt(pair)),
    }


def pandas_noise(long: Any) -> dict[str, float]:
    """The same from a long table (model, item, run, score) with pandas ``groupby``."""
    per_item = long.groupby(["model", "item"], sort=False)["score"].agg(["mean", "var"])
    per_model = per_item.groupby(level="model", sort=False).agg(
        means=("mean", "var"), within=("var", "mean"), score=("mean", "mean")
    )
    item = per_model["means"] - per_model["within"] / RUNS
    return {
        "item_variance": max(float(item.mean()), 0.0),
        "run_variance": float(per_model["within"].mean()),
        "spread": float(per_model["score"].max() - per_model["score"].min()),
    }


def _gap(ours: dict[str, float], theirs: dict[str, float]) -> float:
    return max(abs(ours[k] - v) / abs(v) for k, v in theirs.items())


def _benchmark_figures(result: Any) -> dict[str, float]:
    return {
        name: float(getattr(result, name))
        for name in ("item_variance", "run_variance", "spread", "sd_paired")
    }


def main() -> dict[str, float]:
    import pandas as pd

    rng = np.random.default_rng(0)
    ratios = {}
    p = rng.beta(2.0, 2.0, ITEMS)
    models = {
        f"model-{j}": (rng.random((RUNS, ITEMS)) < np.clip(p + 0.002 * j, 0, 1)).astype(np.int8)
        for j in range(MODELS)
    }
    print(f"noise: {MODELS} models x {ITEMS:,} items x {RUNS} runs (0/1 scores)")
    ours, result = best_time(lambda: benchmark_noise(models))
    peer, reference = best_time(lambda: numpy_noise(models))
    gap = _gap(_benchmark_figures(result), reference)
    print(row("evalsig benchmark_noise (components, SNR, MDE, design)", ours,
              f"max rel diff {gap:.1e}; SNR {result.snr:.3g}"))  # fmt: skip
    print(row("plain numpy: the same variance components", peer))
    ratios["50 models"] = ours / peer
    print(f"  -> evalsig takes {ours / peer:.2f}x the numpy time (target <= {TARGET:g}x)")
    long = pd.DataFrame(
        {
            "model": np.repeat(list(models), RUNS * ITEMS),
            "item": np.tile(np.arange(ITEMS), MODELS * RUNS),
            "run": np.tile(np.repeat(np.arange(RUNS), ITEMS), MODELS),
            "score": np.concatenate([x.ravel() for x in models.values()]),
        }
    )
    slow, grouped = best_time(lambda: pandas_noise(long), repeat=1)
    gap = _gap(_benchmark_figures(result), grouped)
    print(row("pandas groupby on the long table (2.5 M rows)", slow, f"max rel diff {gap:.1e}"))
    print(f"  -> evalsig {slow / ours:.1f}x as fast as pandas")

    q = rng.beta(2.0, 2.0, BIG_ITEMS)
    big = (rng.random((BIG_RUNS, BIG_ITEMS)) < q).astype(np.int8)
    print(f"noise: one model x {BIG_ITEMS:,} items x {BIG_RUNS} runs")
    ours, scored = best_time(lambda: score(big))
    peer, (item, run, means) = best_time(lambda: components(big.astype(np.float64)))
    v = scored.variance
    assert v is not None
    gap = max(abs(v.within_item - run) / run, abs(v.item_means - means.var(ddof=1)) / item)
    print(row("evalsig score: t interval and variance components", ours,
              f"max rel diff {gap:.1e}; run share {v.within_share:.2f}"))  # fmt: skip
    print(row("plain numpy: item means, within-item variance", peer))
    ratios["1 model"] = ours / peer
    print(f"  -> evalsig takes {ours / peer:.2f}x the numpy time (target <= {TARGET:g}x)")
    pair = {"a": big, "b": (rng.random((BIG_RUNS, BIG_ITEMS)) < q).astype(np.int8)}
    ours, result = best_time(lambda: benchmark_noise(pair), repeat=1)
    peer, reference = best_time(lambda: numpy_noise(pair), repeat=1)
    gap = _gap(_benchmark_figures(result), reference)
    print(row("evalsig benchmark_noise, two such models", ours, f"max rel diff {gap:.1e}"))
    print(row("plain numpy: the same variance components", peer))
    ratios["2 x 1e6"] = ours / peer
    print(f"  -> evalsig takes {ours / peer:.2f}x the numpy time (target <= {TARGET:g}x)")
    return ratios


if __name__ == "__main__":
    main()
