"""Random-effects meta-analysis of many (model, benchmark) cells, side by side.

First 100,000 cells of 5 reports (a leaderboard synthesis): evalsig's batched path
``random_effects_batch`` (REML, and per cell everything ``random_effects`` reports: mu, SE,
CI, test, Q, I^2 and H^2 with intervals, the Q-profile interval for tau^2, the prediction
interval, the notes) beside a loop of statsmodels' ``combine_effects(..., method_re=
"iterated")``, its closest estimator: statsmodels has no REML; "iterated" is Paule-Mandel,
and it computes no tau^2 or prediction interval. The loops are timed on the first 10,000
cells and scaled linearly. Target: the batched path at least 5x the statsmodels loop.

Then 10,000 cells of 2-12 reports: ``random_effects`` in a loop and the batched path,
beside ``combine_effects`` in the same loop (Paule-Mandel "iterated" and DerSimonian-Laird
"dl"), and evalsig's REML tau^2 engine alone on the same cells; the vectorised engine on a
cell's bootstrap replicates; and ``synthesize`` on a table the size of the paper's corpus.
All in one run; read the ratios, not the times.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from statsmodels.stats.meta_analysis import combine_effects

from _util import best_time
from evalsig.meta import random_effects, synthesize
from evalsig.meta.batch import random_effects_batch
from evalsig.meta.estimators import tau2_batch

TARGET = 5.0
"""The batched path versus a statsmodels loop over 100,000 cells of 5 reports."""


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


def _many_cells(n_cells: int = 100_000, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """``(n_cells, k)`` scores and variances: true score + paper effect + sampling."""
    rng = np.random.default_rng(0)
    se = rng.uniform(0.5, 3.0, (n_cells, k))
    truth = rng.uniform(40, 90, (n_cells, 1))
    paper = rng.normal(0, 1, (n_cells, k)) * rng.uniform(0.0, 2.5, (n_cells, 1))
    return truth + paper + rng.normal(0, se), se**2


def _flat(cells: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """All reports in one array each, with the cell number of each report."""
    y = np.concatenate([c[0] for c in cells])
    v = np.concatenate([c[1] for c in cells])
    return y, v, np.repeat(np.arange(len(cells)), [c[0].size for c in cells])


def _batched(sample: int = 10_000) -> None:
    y, v = _many_cells()
    n, k = y.shape
    cells = list(zip(y, v, strict=True))
    flat = (y.ravel(), v.ravel(), np.repeat(np.arange(n), k))
    batch_s, batch = best_time(lambda: random_effects_batch(*flat))
    objects_s, _ = best_time(batch.results)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on its own small-k corner cases
        sm_s, _ = best_time(
            lambda: _loop(cells[:sample], lambda a, b: combine_effects(a, b, method_re="iterated"))
        )
    loop_s, loop = best_time(lambda: [random_effects(a, b) for a, b in cells[:sample]], repeat=1)
    sm_s, loop_s = sm_s * n / sample, loop_s * n / sample  # scaled linearly to n cells
    rel_mu = max(abs(r.mu - batch.mu[i]) / abs(r.mu) for i, r in enumerate(loop))
    rel_tau2 = max(
        abs(r.tau2 - batch.tau2[i]) / max(r.tau2, 1e-10 * r.variances.mean())
        for i, r in enumerate(loop)
    )
    print(f"Meta-analysis, many small cells: {n:,} cells of {k} reports each (REML)")
    rows = [
        ("evalsig random_effects_batch (one call, all results)", batch_s),
        ("  + a MetaResult object per cell (as synthesize uses)", batch_s + objects_s),
        ("statsmodels combine_effects iterated (PM) loop *", sm_s),
        ("evalsig random_effects loop *", loop_s),
    ]
    for label, seconds in rows:
        print(f"  {label:<56} {seconds:7.2f} s  {seconds / n * 1e6:7.1f} us/cell")
    print(f"  * timed on the first {sample:,} cells (best of 3) and scaled linearly to {n:,}")
    print(
        f"  ratio statsmodels loop / batched: {sm_s / batch_s:.1f}x (target >= {TARGET:.0f}x); "
        f"with MetaResult objects: {sm_s / (batch_s + objects_s):.1f}x; "
        f"random_effects loop / batched: {loop_s / batch_s:.0f}x"
    )
    print(
        f"  batched vs random_effects on those {sample:,} cells: max relative difference "
        f"mu {rel_mu:.1e}, tau^2 {rel_tau2:.1e}"
    )


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
    _batched()
    cells = _cells()
    n = len(cells)
    print(f"Meta-analysis: {n:,} cells of 2-12 reports each")
    flat = _flat(cells)
    batched, _ = best_time(lambda: random_effects_batch(*flat))
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
        f"  evalsig random_effects_batch (one call)        {batched:7.2f} s  "
        f"{batched / n * 1e6:7.0f} us/cell"
    )
    print(
        f"  ratio evalsig REML / statsmodels PM: {ours / sm_pm:.2f}x; "
        f"tau^2 engine / statsmodels PM: {tau2_only / sm_pm:.2f}x; "
        f"statsmodels PM / batched: {sm_pm / batched:.1f}x"
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
