"""Judge statistics beside their reference implementations, timed in the same run.

* PPI++ mean, N = 1,000,000 judge-only items and n = 10,000 labeled: evalsig's ``ppi_mean``
  vs ``ppi_py.ppi_mean_ci`` (both power-tuned lambda; the intervals must agree).
* Krippendorff's alpha (interval metric), 10,000 units x 5 coders with 10% missing: evalsig
  vs the ``krippendorff`` package (point estimates must agree; evalsig's bootstrap interval
  timed separately).

Peers not installed are reported as skipped.
"""

from __future__ import annotations

import numpy as np

from _util import best_time, row
from evalsig.judge import krippendorff_alpha, ppi_mean

N_UNLABELED, N_LABELED = 1_000_000, 10_000
UNITS, CODERS = 10_000, 5


def _ppi() -> float | None:
    rng = np.random.default_rng(0)
    human = (rng.random(N_LABELED) < 0.6).astype(float)
    noise = rng.random(N_LABELED)
    judge = np.where(human == 1, noise > 0.05, noise < 0.2).astype(float)
    unlabeled = (rng.random(N_UNLABELED) < 0.65).astype(float)
    print(f"PPI++ mean: {N_UNLABELED:,} unlabeled, {N_LABELED:,} labeled items")
    ours, result = best_time(lambda: ppi_mean(unlabeled, judge, human), 5)
    print(row("evalsig ppi_mean", ours, f"CI ({result.ci.low:.6f}, {result.ci.high:.6f})"))
    try:
        import ppi_py
    except ImportError:
        print("  ppi_py not installed (pip install ppi-python): skipped")
        return None
    theirs, (low, high) = best_time(
        lambda: ppi_py.ppi_mean_ci(human, judge, unlabeled, alpha=0.05), 5
    )
    low, high = np.ravel(low)[0], np.ravel(high)[0]
    print(row("ppi_py ppi_mean_ci", theirs, f"CI ({low:.6f}, {high:.6f})"))
    print(f"  ratio ppi_py / evalsig: {theirs / ours:.2f}x")
    return theirs / ours


def _alpha() -> float | None:
    rng = np.random.default_rng(1)
    truth = rng.normal(0, 1, UNITS)
    ratings = np.round(truth[:, None] + rng.normal(0, 0.5, (UNITS, CODERS)), 1)
    ratings[rng.random((UNITS, CODERS)) < 0.1] = np.nan
    print(f"Krippendorff's alpha (interval): {UNITS:,} units x {CODERS} coders, 10% missing")
    ours, result = best_time(
        lambda: krippendorff_alpha(ratings, metric="interval", n_resamples=1, rng=0), 3
    )
    print(row("evalsig krippendorff_alpha (estimate)", ours, f"alpha {result.estimate:.10f}"))
    boot, full = best_time(
        lambda: krippendorff_alpha(ratings, metric="interval", n_resamples=1000, rng=0), 1
    )
    print(row("evalsig, with a 1,000-resample bootstrap interval", boot, f"CI {tuple(full.ci)}"))
    try:
        import krippendorff
    except ImportError:
        print("  krippendorff not installed (pip install krippendorff): skipped")
        return None
    theirs, value = best_time(
        lambda: krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval"),
        3,
    )
    print(row("krippendorff.alpha", theirs, f"alpha {float(value):.10f}"))
    print(f"  ratio krippendorff / evalsig: {theirs / ours:.2f}x")
    return theirs / ours


def main() -> dict[str, float]:
    ratios = {}
    for name, run in (("ppi_mean", _ppi), ("krippendorff_alpha", _alpha)):
        ratio = run()
        if ratio is not None:
            ratios[name] = ratio
    return ratios


if __name__ == "__main__":
    main()
