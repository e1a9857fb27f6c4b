"""Multiple-testing corrections on 1,000,000 p-values: evalsig vs statsmodels' multipletests.

Target: at least as fast as ``statsmodels.stats.multitest.multipletests`` with the matching
method, on the same p-values in the same run. statsmodels' Hommel is quadratic, so it is
timed at a size where it finishes in about ten seconds, beside evalsig at the same size;
evalsig's Hommel is then timed at 100,000 and 1,000,000 p-values.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests

from _util import best_time, row
from evalsig.inference.multiplicity import adjust

N = 1_000_000
N_HOMMEL_STATSMODELS = 65_000
ALPHA = 0.05

MATCHING = {
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "holm": "holm",
    "holm-sidak": "holm-sidak",
    "hochberg": "simes-hochberg",
    "bh": "fdr_bh",
    "by": "fdr_by",
    "storey": "fdr_bh",  # statsmodels has no Storey q-values; BH is the same sort and scan
}


def _compare(method: str, p: np.ndarray, statsmodels_method: str, repeat: int) -> float:
    ours, r = best_time(lambda: adjust(p, method=method, alpha=ALPHA), repeat)  # type: ignore[arg-type]
    theirs, (_, adjusted, _, _) = best_time(
        lambda: multipletests(p, alpha=ALPHA, method=statsmodels_method), repeat
    )
    ratio = theirs / ours
    agree = (
        "" if method == "storey" else f"max |diff| {np.max(np.abs(r.p_adjusted - adjusted)):.1e}"
    )
    print(row(f"evalsig adjust(method={method!r})", ours, f"{r.n_rejected:,} rejected"))
    print(row(f"statsmodels multipletests(method={statsmodels_method!r})", theirs, agree))
    print(f"  -> evalsig is {ratio:,.2f}x as fast (target >= 1x)")
    return ratio


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    p = rng.random(N)
    p[: N // 100] *= 1e-6  # 1% real effects, so that the corrections reject something
    rng.shuffle(p)

    print(f"Multiple-testing corrections: {N:,} p-values (1% with p < 1e-6), alpha = {ALPHA}")
    ratios = {}
    with np.errstate(divide="ignore"):  # statsmodels' Sidak takes log1p(-1) for p = 1
        for method, theirs in MATCHING.items():
            ratios[method] = _compare(method, p, theirs, repeat=3)

    small = p[:N_HOMMEL_STATSMODELS]
    print(f"Hommel: statsmodels is O(m^2), compared at {N_HOMMEL_STATSMODELS:,} p-values")
    ratios["hommel"] = _compare("hommel", small, "hommel", repeat=1)
    for n in (100_000, N):
        seconds, r = best_time(lambda n=n: adjust(p[:n], method="hommel", alpha=ALPHA), 3)
        print(
            row(
                f"evalsig adjust(method='hommel'), {n:,} p-values",
                seconds,
                f"{r.n_rejected:,} rejected",
            )
        )
    return ratios


if __name__ == "__main__":
    main()
