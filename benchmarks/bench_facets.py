"""Variance components of items x prompts x runs: evalsig beside lme4 and statsmodels.

Targets (issue "Where the variance comes from"): 100 models x 10,000 items x 5 prompts x 3
runs, balanced, decomposed in under 2 s (ANOVA on the grid; a model whose mean squares put a
component below 0 is fitted by REML, and that time counts too); the same design with 10% of
the cells missing, per model, at least as fast as lme4's REML on the same data (both timed
from data in memory: reading is not included); statsmodels' MixedLM beside both at a size
it can fit (its crossed random effects are dense). ``EVALSIG_BENCH_FACET_ITEMS`` sets the
items of the unbalanced comparison (default 2,000, to keep ``make bench`` short; the issue's
size is 10,000) and ``EVALSIG_BENCH_FACET_MODELS`` the models of the balanced one (default
100). lme4 runs through ``Rscript`` when R and lme4 are installed (Debian: r-cran-lme4).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from evalsig.inference.components import balanced_components, fit_components

MODELS = int(os.environ.get("EVALSIG_BENCH_FACET_MODELS", "100"))
ITEMS_BALANCED = 10_000
ITEMS_UNBALANCED = int(os.environ.get("EVALSIG_BENCH_FACET_ITEMS", "2000"))
PROMPTS, RUNS = 5, 3
FACETS = ["item", "prompt", "run"]

_R = """
suppressMessages(library(lme4))
d <- read.csv("{path}")
for (f in c("item", "prompt", "run")) d[[f]] <- factor(d[[f]])
t <- system.time(m <- lmer(y ~ 1 + (1 | item) + (1 | prompt) + (1 | run) + (1 | item:prompt) +
  (1 | item:run) + (1 | prompt:run), d, REML = TRUE))[["elapsed"]]
cat(t, as.data.frame(VarCorr(m))$vcov, "\\n")
"""


def _scores(rng: np.random.Generator, models: int, items: int) -> np.ndarray:
    """0/1 scores (models, items, prompts, runs): item difficulty, prompt shift, item x
    prompt interaction, a model's ability."""
    logit = (
        rng.normal(0.0, 1.0, (models, 1, 1, 1))
        + rng.normal(0.3, 1.5, (1, items, 1, 1))
        + rng.normal(0.0, 0.3, (1, 1, PROMPTS, 1))
        + rng.normal(0.0, 0.7, (models, items, PROMPTS, 1))
    )
    return (rng.random((models, items, PROMPTS, RUNS)) < 1 / (1 + np.exp(-logit))).astype(
        np.float64
    )


def _terms(item: np.ndarray, prompt: np.ndarray, run: np.ndarray) -> dict[str, np.ndarray]:
    terms = {"item": item, "prompt": prompt, "run": run}
    for a, b in (("item", "prompt"), ("item", "run"), ("prompt", "run")):
        terms[f"{a}:{b}"] = np.unique(terms[a] * 16 + terms[b], return_inverse=True)[1]
    return terms


def balanced(rng: np.random.Generator) -> dict[str, float]:
    cube = _scores(rng, MODELS, ITEMS_BALANCED)
    start = time.perf_counter()
    balanced_components(cube, FACETS)
    seconds = time.perf_counter() - start
    anova, _ = balanced_components(cube[:10], FACETS, constrained=False)
    negative = int((np.min(np.stack(list(anova.values())), axis=0) < 0).sum())
    print(
        f"  balanced: {MODELS} models x {ITEMS_BALANCED:,} items x {PROMPTS} prompts x {RUNS} "
        f"runs ({cube.size:,} scores): {seconds:.2f} s, REML on the mean squares "
        f"({negative} of the first 10 models have an ANOVA estimate below 0)   target: under 2 s"
    )
    return {"balanced_seconds": seconds}


def intervals(rng: np.random.Generator) -> dict[str, float]:
    """One model's components with 200 bootstrap resamples on the balanced grid: the
    resamples are REML from their mean squares, a batch at a time (no optimiser)."""
    from evalsig.facets import variance_sources

    cube = _scores(rng, 1, ITEMS_BALANCED)[0]
    grid = np.meshgrid(*(np.arange(n) for n in cube.shape), indexing="ij")
    table = {name: g.ravel() for name, g in zip(FACETS, grid, strict=True)} | {
        "score": cube.ravel()
    }
    start = time.perf_counter()
    variance_sources(table, facets=FACETS, n_resamples=200, rng=0)
    seconds = time.perf_counter() - start
    print(
        f"  variance_sources with intervals: 1 model x {ITEMS_BALANCED:,} items x {PROMPTS} "
        f"prompts x {RUNS} runs, point REML + 200 parametric-bootstrap resamples: "
        f"{seconds:.2f} s"
    )
    return {"intervals_seconds": seconds}


def paired_test(rng: np.random.Generator) -> dict[str, float]:
    """compare(..., facets=) of two models on the balanced grid: the components of the
    difference by REML and Satterthwaite's df from the REML criterion's Hessian (lmerTest's
    test of the intercept, which needs R)."""
    from evalsig import compare

    cubes = _scores(rng, 2, ITEMS_BALANCED)
    grid = np.meshgrid(*(np.arange(n) for n in cubes.shape[1:]), indexing="ij")
    columns = {name: g.ravel() for name, g in zip(FACETS, grid, strict=True)}
    base, cand = ({**columns, "score": cube.ravel()} for cube in cubes)
    start = time.perf_counter()
    result = compare(base, cand, facets=FACETS)
    seconds = time.perf_counter() - start
    print(
        f"  compare(facets=): 2 models x {ITEMS_BALANCED:,} items x {PROMPTS} prompts x "
        f"{RUNS} runs ({cubes[0].size:,} cells): {seconds:.2f} s "
        f"(df {result.df:.3g}, p {result.p_value:.3g})"
    )
    return {"paired_test_seconds": seconds}


def unbalanced(rng: np.random.Generator) -> dict[str, float]:
    cube = _scores(rng, 1, ITEMS_UNBALANCED)[0]
    item, prompt, run = (g.ravel() for g in np.meshgrid(*map(np.arange, cube.shape), indexing="ij"))
    keep = rng.random(item.size) >= 0.10
    y, item, prompt, run = cube.ravel()[keep], item[keep], prompt[keep], run[keep]
    terms = _terms(item, prompt, run)
    start = time.perf_counter()
    fit = fit_components(y, terms)
    ours = time.perf_counter() - start
    out = {"unbalanced_seconds": ours}
    line = f"  10% missing, one model, {y.size:,} scores: evalsig {ours:.2f} s"
    if shutil.which("Rscript"):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scores.csv"
            rows = np.column_stack([item, prompt, run, y])
            np.savetxt(path, rows, fmt=["%d", "%d", "%d", "%g"], delimiter=",",
                       header="item,prompt,run,y", comments="")  # fmt: skip
            done = subprocess.run(
                ["Rscript", "-e", _R.format(path=path)], capture_output=True, text=True
            )
        if done.returncode == 0:
            seconds, *theirs = (float(v) for v in done.stdout.split())
            order = ["item:prompt", "item:run", "item", "prompt:run", "prompt", "run"]
            ours_by = dict(zip(fit.terms, fit.variances, strict=True))
            gap = max(abs(ours_by[name] - v) for name, v in zip(order, theirs, strict=False))
            out["lme4_ratio"] = seconds / ours
            line += f", lme4 {seconds:.2f} s (lmer alone): {seconds / ours:.1f}x faster"
            line += f" (largest difference in a variance {gap:.1e})"
        else:
            line += ", lme4 not run (" + (done.stderr.strip().splitlines() or ["?"])[-1] + ")"
    else:
        line += ", lme4 not run (no Rscript)"
    print(line + "   target: at least as fast as lme4")
    return out


def statsmodels_side(rng: np.random.Generator) -> dict[str, float]:
    """MixedLM fits crossed terms as variance components of one group: dense in the items,
    so only at a small size."""
    try:
        import pandas as pd
        import statsmodels.formula.api as smf
    except ImportError:
        print("  statsmodels: not installed")
        return {}
    items = 60
    cube = _scores(rng, 1, items)[0]
    item, prompt, run = (g.ravel() for g in np.meshgrid(*map(np.arange, cube.shape), indexing="ij"))
    frame = pd.DataFrame({"item": item, "prompt": prompt, "run": run, "y": cube.ravel()})
    frame["group"] = 1
    start = time.perf_counter()
    fit_components(frame["y"].to_numpy(), _terms(item, prompt, run))
    ours = time.perf_counter() - start
    model = smf.mixedlm(
        "y ~ 1",
        frame,
        groups="group",
        vc_formula={
            "item": "0 + C(item)",
            "prompt": "0 + C(prompt)",
            "run": "0 + C(run)",
            "item_prompt": "0 + C(item):C(prompt)",
        },
    )
    start = time.perf_counter()
    try:
        model.fit(reml=True)
        theirs = time.perf_counter() - start
        print(
            f"  statsmodels MixedLM, {items} items x {PROMPTS} x {RUNS} (4 of the 6 terms): "
            f"{theirs:.2f} s, evalsig (all 6) {ours:.3f} s: {theirs / ours:.0f}x"
        )
        return {"statsmodels_ratio": theirs / ours}
    except Exception as exc:  # report the peer's failure, not ours
        print(f"  statsmodels MixedLM could not fit {items} items: {type(exc).__name__}")
        return {}


def main() -> dict[str, float]:
    print("Variance components, items x prompts x runs (0/1 scores)")
    rng = np.random.default_rng(0)
    out = balanced(rng)
    out |= intervals(rng)
    out |= paired_test(rng)
    out |= unbalanced(rng)
    out |= statsmodels_side(rng)
    return out


if __name__ == "__main__":
    main()
