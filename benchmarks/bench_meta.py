"""Random-effects meta-analysis of 10,000 (model, benchmark) cells, side by side.

evalsig's ``random_effects`` (REML, with the Q-profile interval for tau^2, I^2 and the
prediction interval) in a loop over the cells, beside statsmodels' ``combine_effects`` in
the same loop (it has no REML: its Paule-Mandel "iterated" and DerSimonian-Laird "dl"
estimators, without a tau^2 interval), and evalsig's REML tau^2 engine alone on the same
cells. Then the vectorised engine on a cell's bootstrap replicates, and ``synthesize`` on
a table the size of the paper's corpus. All in one run; read the ratios, not the times.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from statsmodels.stats.meta_analysis import combine_effects

from _util import best_time
from evalsig.meta import random_effects, synthesize
from evalsig.meta.estimators import tau2_batch


def _cells(n_cells: int = 10_000) -> list[tuple[np.ndarray, np.ndarray]]:
    """Cells of 2-12 reports on the points scale: true score + paper effect + sampling."""
    rng = np.random.default_rng(0)
    cells = []
    for _ in range(n_cells):
        k = int(rng.integers(2, 13))
        se = rng.uniform(0.5, 3.0, k)
        y = rng.uniform(40, 90) + rng.normal(0, rng.uniform(0.0, 2.5), k) + rng.normal(0, se)
        cells.append((y, se**2))
    return cells


def _loop(cells: list[tuple[np.ndarray, np.ndarray]], fit: object) -> float:
    start = time.perf_counter()
    for y, v in cells:
        fit(y, v)  # type: ignore[operator]
    return time.perf_counter() - start


def _tau2_only(cells: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """REML tau^2 of every cell, one cell at a time, without the rest of the result."""
    for y, v in cells:
        tau2_batch(y[None, :], v, "reml", tol=1e-10, max_iter=1000)


def main() -> None:
    cells = _cells()
    n = len(cells)
    print(f"Meta-analysis: {n:,} cells of 2-12 reports each")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on its own small-k corner cases
        ours, _ = best_time(lambda: _loop(cells, lambda y, v: random_effects(y, v)), repeat=1)
        tau2_only, _ = best_time(lambda: _tau2_only(cells), repeat=1)
        sm_pm, _ = best_time(
            lambda: _loop(cells, lambda y, v: combine_effects(y, v, method_re="iterated")),
            repeat=1,
        )
        sm_dl, _ = best_time(
            lambda: _loop(cells, lambda y, v: combine_effects(y, v, method_re="dl")), repeat=1
        )
    print(
        f"  evalsig random_effects REML (full result)     {ours:7.2f} s  "
        f"{ours / n * 1e6:7.0f} us/cell"
    )
    print(
        f"  evalsig REML tau^2 engine alone                {tau2_only:7.2f} s  "
        f"{tau2_only / n * 1e6:7.0f} us/cell"
    )
    print(
        f"  statsmodels combine_effects iterated (PM)      {sm_pm:7.2f} s  "
        f"{sm_pm / n * 1e6:7.0f} us/cell"
    )
    print(
        f"  statsmodels combine_effects dl                 {sm_dl:7.2f} s  "
        f"{sm_dl / n * 1e6:7.0f} us/cell"
    )
    print(
        f"  ratio evalsig REML / statsmodels PM: {ours / sm_pm:.2f}x; "
        f"tau^2 engine / statsmodels PM: {tau2_only / sm_pm:.2f}x"
    )
    # the same REML estimate from a single vectorised call: 1,000 replicates of one cell
    y, v = cells[0]
    draws = np.random.default_rng(1).normal(y.mean(), 2.0, (1000, y.size))
    batch_s, _ = best_time(lambda: tau2_batch(draws, v, "reml", tol=1e-10, max_iter=1000))
    loop_s, _ = best_time(lambda: [random_effects(row, v) for row in draws], repeat=1)
    print(
        f"  1,000 bootstrap replicates of one cell: vectorised REML {batch_s * 1000:.1f} ms vs "
        f"random_effects loop {loop_s * 1000:.0f} ms ({loop_s / batch_s:.0f}x)"
    )
    table = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth_s, result = best_time(lambda: synthesize(table, rng=0), repeat=1)
    print(
        f"  synthesize: {len(table):,} reports, {len(result.cells)} cells, 7 benchmarks, "
        f"2,000 bootstrap replicates per cell, Egger/Begg/trim-and-fill: {synth_s:.1f} s"
    )


def _table() -> list[dict[str, object]]:
    """47 models x 7 benchmarks, 1-12 reports per cell (about the paper's 2,148 reports)."""
    rng = np.random.default_rng(0)
    rows: list[dict[str, object]] = []
    for b in range(7):
        for m in range(47):
            mu = rng.uniform(40, 90)
            for s in range(int(rng.integers(1, 13))):
                score = float(np.clip(mu + rng.normal(0, 1.5) + rng.normal(0, 1), 0, 100))
                rows.append(
                    {
                        "model": f"m{m}",
                        "benchmark": f"b{b}",
                        "source": f"p{s}",
                        "score": score,
                        "n": int(rng.integers(150, 15000)),
                        "self_reported": s == 0,
                    }
                )
    return rows


if __name__ == "__main__":
    main()
