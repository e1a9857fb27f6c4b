"""REML variance components of crossed and nested facets: lme4's goldens, a dense oracle of
the criterion, the balanced ANOVA closed form, and the checks on what is not estimable.

The goldens come from R 4.2 with lme4 1.1-31 (Debian's r-cran-lme4) on the designs of
the designs below, written out by ``python tests/inference/test_components.py /tmp/facets``
and fitted with lme4's tolerances tightened::

    ctl <- lmerControl(optimizer = "nloptwrap", calc.derivs = FALSE,
      optCtrl = list(algorithm = "NLOPT_LN_BOBYQA", xtol_abs = 1e-14, ftol_abs = 1e-15,
                     xtol_rel = 0, ftol_rel = 0, maxeval = 1e5))
    crossed <- y ~ 1 + (1 | item) + (1 | prompt) + (1 | run) + (1 | item:prompt) +
      (1 | item:run) + (1 | prompt:run)
    d <- read.csv("/tmp/facets/crossed.csv")
    for (f in c("item", "prompt", "run")) d[[f]] <- factor(d[[f]])
    m <- lmer(crossed, d, REML = TRUE, control = ctl)
    as.data.frame(VarCorr(m))$vcov; REMLcrit(m); fixef(m); sqrt(vcov(m)[1, 1])

(the paired cases set ``d$y <- d$y2 - d$y`` first; the nested ones fit
``y ~ 1 + (1 | passage) + (1 | item)``). lme4's own answer moves by about 1e-8 between
runs at these tolerances (the criterion is flat along a facet of 3 or 4 levels), so the
variances are held to 1e-6 absolute (scores of 0/1: variances near 0.1), the criterion
to 1e-9 relative.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from evalsig.errors import DataError
from evalsig.inference import components
from evalsig.inference.components import (
    ComponentFit,
    _Design,
    balanced_components,
    component_intervals,
    fit_components,
    mean_variance_shares,
)

# --- the designs (seeded), as R reads them ------------------------------------------------


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _crossed_grid(items: int, prompts: int, runs: int) -> dict[str, np.ndarray]:
    item, prompt, run = (
        a.ravel() for a in np.meshgrid(np.arange(items), np.arange(prompts), np.arange(runs))
    )
    return {"item": item, "prompt": prompt, "run": run}


def _crossed_scores(rng: np.random.Generator, grid: dict[str, np.ndarray]) -> np.ndarray:
    """0/1 scores: item difficulty, prompt shift, item x prompt interaction, run noise."""
    item, prompt = grid["item"], grid["prompt"]
    logit = (
        rng.normal(0.3, 1.5, item.max() + 1)[item]
        + rng.normal(0.0, 0.4, prompt.max() + 1)[prompt]
        + rng.normal(0.0, 0.8, (item.max() + 1, prompt.max() + 1))[item, prompt]
    )
    return (rng.random(item.size) < _logistic(logit)).astype(np.float64)


def _nested_frame(rng: np.random.Generator) -> dict[str, np.ndarray]:
    sizes = rng.integers(2, 7, 12)  # 12 passages of 2 to 6 items
    passage = np.repeat(np.arange(12), sizes)
    item = np.arange(passage.size)
    runs = rng.integers(2, 5, item.size)  # 2 to 4 runs an item
    return {"passage": np.repeat(passage, runs), "item": np.repeat(item, runs)}


def designs() -> dict[str, dict[str, np.ndarray]]:
    """Each design's columns: its facets' level codes and ``y`` (and ``y2``, a second
    model's scores on the same cells, where a paired case uses it)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    rng = np.random.default_rng(20261207)
    grid = _crossed_grid(24, 4, 3)
    out["crossed"] = {**grid, "y": _crossed_scores(rng, grid)}
    keep = rng.random(grid["item"].size) >= 0.12
    both = {**grid, "y": _crossed_scores(rng, grid), "y2": _crossed_scores(rng, grid)}
    out["crossed_unbalanced"] = {k: v[keep] for k, v in both.items()}
    small = _crossed_grid(10, 3, 2)
    out["crossed_singular"] = {
        **small,
        "y": np.round(
            rng.normal(0.0, 1.0, 10)[small["item"]] + rng.normal(0.0, 1.0, small["item"].size),
            4,
        ),
    }
    nested = _nested_frame(rng)
    n_items = int(nested["item"].max()) + 1
    logit = (
        rng.normal(0.0, 1.0, 12)[nested["passage"]] + rng.normal(0.5, 1.0, n_items)[nested["item"]]
    )
    out["nested"] = {
        **nested,
        "y": (rng.random(logit.size) < _logistic(logit)).astype(np.float64),
        "y2": (rng.random(logit.size) < _logistic(logit + 0.4)).astype(np.float64),
    }
    return out


def with_interactions(design: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The crossed terms: each facet and each pair of facets, as dense level codes."""
    terms = {
        name: np.unique(design[name], return_inverse=True)[1] for name in ("item", "prompt", "run")
    }
    for name in ("item:prompt", "item:run", "prompt:run"):
        a, b = name.split(":")
        pairs = design[a].astype(np.int64) * 1000 + design[b]
        terms[name] = np.unique(pairs, return_inverse=True)[1]
    return terms


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, columns in designs().items():
        keys = list(columns)
        rows = zip(*(columns[k].tolist() for k in keys), strict=True)
        lines = [",".join(keys)] + [",".join(repr(v) for v in row) for row in rows]
        (folder / f"{name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


# lme4's variances by term (as.data.frame(VarCorr(m))$vcov), residual, REMLcrit(m),
# fixef(m) and sqrt(vcov(m)[1, 1]); "paired" fits y2 - y.
LME4 = {
    "crossed": (
        {
            "item": 0.0520330141753,
            "prompt": 0.00147611272563,
            "run": 0.00252193040449,
            "item:prompt": 0.0313861286084,
            "item:run": 0.0,
            "prompt:run": 0.0,
        },
        0.164144740056,
        375.704227904,
        0.552083333333,
        0.0653804233745,
    ),
    "crossed_unbalanced": (
        {
            "item": 0.0840802270102,
            "prompt": 0.00719053943295,
            "run": 0.00370438061153,
            "item:prompt": 0.0144613811043,
            "item:run": 0.0,
            "prompt:run": 0.000634965009629,
        },
        0.136206783369,
        285.71412348,
        0.611230028658,
        0.0854334030604,
    ),
    "crossed_unbalanced paired": (
        {
            "item": 0.169922212803,
            "prompt": 0.00410447462621,
            "run": 0.000927646333267,
            "item:prompt": 0.0315441921675,
            "item:run": 6.43182625885e-18,
            "prompt:run": 0.00110193161808,
        },
        0.311656713916,
        483.648969807,
        -0.159658028372,
        0.100571803897,
    ),
    "crossed_singular": (  # lme4: boundary (singular) fit; only the item term is off 0
        {
            "item": 0.4832989746,
            "prompt": 1.45345765385e-17,
            "run": 1.04792381814e-17,
            "item:prompt": 2.48381676452e-16,
            "item:run": 0.0,
            "prompt:run": 0.0,
        },
        1.08323535166,
        187.965088145,
        0.0665933333333,
        0.257650577309,
    ),
    "nested": (
        {"passage": 0.0424616789563, "item": 0.0193180884503},
        0.193320805323,
        219.97928433,
        0.495642922676,
        0.0721359317153,
    ),
    "nested paired": (  # both components at 0: the fit is ordinary least squares
        {"passage": 1.45187489888e-18, "item": 2.65990792903e-19},
        0.318923652575,
        272.890521618,
        0.100628930818,
        0.0447862605683,
    ),
}


def _case(name: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    design_name, _, paired = name.partition(" ")
    design = designs()[design_name]
    y = design["y2"] - design["y"] if paired else design["y"]
    if design_name.startswith("crossed"):
        return y, with_interactions(design)
    return y, {k: np.unique(design[k], return_inverse=True)[1] for k in ("passage", "item")}


@pytest.mark.parametrize("name", list(LME4))
def test_equals_lme4_reml(name: str) -> None:
    y, terms = _case(name)
    variances, residual, criterion, mean, se = LME4[name]
    fit = fit_components(y, terms)
    assert fit.converged
    assert dict(zip(fit.terms, fit.variances, strict=True)) == pytest.approx(variances, abs=1e-6)
    assert fit.residual == pytest.approx(residual, abs=1e-6)
    assert fit.criterion == pytest.approx(criterion, rel=1e-9)
    assert fit.mean == pytest.approx(mean, abs=1e-7)
    assert fit.mean_se == pytest.approx(se, rel=1e-5)
    zero = [t for t, v in variances.items() if v < 1e-12]
    assert all(fit.variances[fit.terms.index(t)] < 1e-9 for t in zero)


def _dense_criterion(y: np.ndarray, terms: dict[str, np.ndarray], theta: np.ndarray) -> float:
    """The REML criterion from the n x n covariance: log|V| + log|X'V^-1 X| + (n - 1)(1 +
    log(2 pi r'V^-1 r / (n - 1))), V = I + sum_k theta_k^2 Z_k Z_k' (relative to sigma^2)."""
    n = y.size
    v = np.eye(n)
    for t, codes in zip(theta, terms.values(), strict=True):
        z = np.zeros((n, codes.max() + 1))
        z[np.arange(n), codes] = 1.0
        v += t * t * (z @ z.T)
    inv = np.linalg.inv(v)
    ones = np.ones(n)
    xvx = ones @ inv @ ones
    mu = (ones @ inv @ y) / xvx
    r = y - mu
    quad = r @ inv @ r
    return float(
        np.linalg.slogdet(v)[1]
        + math.log(xvx)
        + (n - 1) * (1 + math.log(2 * math.pi * quad / (n - 1)))
    )


@pytest.mark.parametrize("name", ["crossed_unbalanced", "nested", "crossed_singular"])
def test_criterion_equals_the_dense_formula(name: str) -> None:
    """The block and Schur-complement evaluation against the n x n matrix, at random theta
    (zeros included): the algebra, apart from the optimiser."""
    y, terms = _case(name)
    design = _Design.build(y, terms)
    rng = np.random.default_rng(7)
    for _ in range(4):
        theta = rng.uniform(0.0, 1.5, len(terms)) * (rng.random(len(terms)) < 0.8)
        assert design.evaluate(theta)[0] == pytest.approx(
            _dense_criterion(y, terms, theta), rel=1e-11
        )


@pytest.mark.parametrize("name", ["crossed_unbalanced", "nested", "crossed_unbalanced paired"])
def test_gradient_equals_central_differences(name: str) -> None:
    """The exact gradient in the variance ratios against a Richardson-extrapolated central
    difference of the criterion, at ratios off the boundary."""
    y, terms = _case(name)
    design = _Design.build(y, terms)
    rng = np.random.default_rng(2)
    ratios = rng.uniform(0.05, 1.5, len(terms))

    def criterion(s: np.ndarray) -> float:
        return design.evaluate(np.sqrt(s)).deviance

    slope = design.evaluate(np.sqrt(ratios), slope=True).slope
    for k in range(ratios.size):
        step = 1e-3 * ratios[k]

        def central(h: float, k: int = k) -> float:
            up, down = ratios.copy(), ratios.copy()
            up[k] += h
            down[k] -= h
            return (criterion(up) - criterion(down)) / (2 * h)

        estimate = (4 * central(step / 2) - central(step)) / 3
        assert slope[k] == pytest.approx(estimate, rel=1e-7, abs=1e-7)


def _loop_intervals(
    y: np.ndarray, terms: dict[str, np.ndarray], fit: ComponentFit, *, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The 95% percentile intervals of 100 resamples drawn from ``fit`` (the residual's
    draws, then each term's, in order) and fitted one by one with fit_components."""
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(100):
        simulated = fit.mean + math.sqrt(fit.residual) * rng.standard_normal(y.size)
        for codes, variance, levels in zip(terms.values(), fit.variances, fit.levels, strict=True):
            simulated += math.sqrt(variance) * rng.standard_normal(levels)[codes]
        again = fit_components(simulated, terms)
        draws.append([*again.variances, again.residual])
    low, high = np.quantile(np.array(draws), [0.025, 0.975], axis=0)
    return low, high


def test_bootstrap_intervals_equal_a_plain_loop_of_fits() -> None:
    """Each resample is the fitted model's scores drawn anew (the residual's draws, then
    each term's, in order) and fitted from scratch: the percentile intervals of a plain
    loop of fit_components on the same draws."""
    y, terms = _case("nested")
    fit = fit_components(y, terms)
    got = component_intervals(y, terms, fit, n_resamples=100, rng=3)
    low, high = _loop_intervals(y, terms, fit, seed=3)
    assert got.low == pytest.approx(tuple(low), abs=1e-6)
    assert got.high == pytest.approx(tuple(high), abs=1e-6)
    assert got.seed == 3
    assert got.unsettled == 0


def test_balanced_one_way_equals_anova() -> None:
    """Items x runs, balanced, both mean squares apart: REML is the ANOVA estimator,
    sigma_b^2 = (MSB - MSW) / R and sigma_w^2 = MSW."""
    rng = np.random.default_rng(3)
    items, runs = 40, 5
    y = rng.normal(0, 1.0, items).repeat(runs) + rng.normal(0, 0.7, items * runs)
    item = np.arange(items).repeat(runs)
    table = y.reshape(items, runs)
    msb = runs * table.mean(axis=1).var(ddof=1)
    msw = table.var(axis=1, ddof=1).mean()
    fit = fit_components(y, {"item": item})
    assert fit.variances[0] == pytest.approx((msb - msw) / runs, rel=1e-7)
    assert fit.residual == pytest.approx(msw, rel=1e-7)
    assert fit.mean == pytest.approx(y.mean(), rel=1e-12)
    assert fit.mean_se == pytest.approx(math.sqrt(msb / (items * runs)), rel=1e-6)


def test_balanced_crossed_equals_anova() -> None:
    """Items x prompts, balanced, one score a cell: sigma_i^2 = (MS_i - MS_e) / P,
    sigma_p^2 = (MS_p - MS_e) / I, sigma_e^2 = MS_e (all positive here)."""
    rng = np.random.default_rng(11)
    n_i, n_p = 30, 6
    cell = rng.normal(0, 1.0, n_i)[:, None] + rng.normal(0, 0.5, n_p)[None, :]
    table = cell + rng.normal(0, 0.6, (n_i, n_p))
    item, prompt = (a.ravel() for a in np.meshgrid(np.arange(n_i), np.arange(n_p), indexing="ij"))
    grand = table.mean()
    ms_i = n_p * ((table.mean(axis=1) - grand) ** 2).sum() / (n_i - 1)
    ms_p = n_i * ((table.mean(axis=0) - grand) ** 2).sum() / (n_p - 1)
    resid = table - table.mean(axis=1, keepdims=True) - table.mean(axis=0, keepdims=True) + grand
    ms_e = (resid**2).sum() / ((n_i - 1) * (n_p - 1))
    fit = fit_components(table.ravel(), {"item": item, "prompt": prompt})
    assert fit.variances == pytest.approx(((ms_i - ms_e) / n_p, (ms_p - ms_e) / n_i), rel=1e-6)
    assert fit.residual == pytest.approx(ms_e, rel=1e-7)


def test_balanced_grid_equals_reml_and_runs_a_batch() -> None:
    """Items x prompts x runs, one score a cell, a batch of models: each model's REML from
    its mean squares equals fit_components on its scores (models with an ANOVA estimate
    below 0 included: the run term has no variance here); without the constraint, the
    ANOVA estimates, which equal REML where none is negative."""
    rng = np.random.default_rng(12)
    n_i, n_p, n_r = 25, 4, 3
    sd = {"i": 1.0, "p": 0.5, "r": 0.0, "ip": 0.6, "ir": 0.4, "pr": 0.5}
    cubes = np.stack(
        [
            rng.normal(0, sd["i"], (n_i, 1, 1))
            + rng.normal(0, sd["p"], (1, n_p, 1))
            + rng.normal(0, sd["r"], (1, 1, n_r))
            + rng.normal(0, sd["ip"], (n_i, n_p, 1))
            + rng.normal(0, sd["ir"], (n_i, 1, n_r))
            + rng.normal(0, sd["pr"], (1, n_p, n_r))
            + rng.normal(0, 0.5, (n_i, n_p, n_r))
            for _ in range(6)
        ]
    )
    variances, residual = balanced_components(cubes, ["item", "prompt", "run"])
    anova, anova_residual = balanced_components(cubes, ["item", "prompt", "run"], constrained=False)
    grid = np.meshgrid(np.arange(n_i), np.arange(n_p), np.arange(n_r), indexing="ij")
    terms = with_interactions(
        {"item": grid[0].ravel(), "prompt": grid[1].ravel(), "run": grid[2].ravel()}
    )
    below = 0
    for model in range(6):
        fit = fit_components(cubes[model].ravel(), terms)
        got = {name: float(v[model]) for name, v in variances.items()}
        assert got == pytest.approx(dict(zip(fit.terms, fit.variances, strict=True)), abs=1e-6)
        assert float(residual[model]) == pytest.approx(fit.residual, rel=1e-6)
        if min(float(v[model]) for v in anova.values()) < 0:
            below += 1
        else:
            assert {k: float(v[model]) for k, v in anova.items()} == pytest.approx(got, rel=1e-9)
            assert float(anova_residual[model]) == pytest.approx(float(residual[model]))
    assert 0 < below < 6  # both paths ran
    single, _ = balanced_components(cubes[0], ["item", "prompt", "run"])
    assert {k: float(v) for k, v in single.items()} == {
        k: float(v[0]) for k, v in variances.items()
    }


def test_shares_of_the_mean_variance() -> None:
    """The parts sum to Var(ybar) = 1'V1 / n^2 of the fitted model; balanced, a term's part is
    its variance over its levels."""
    y, terms = _case("crossed_unbalanced")
    fit = fit_components(y, terms)
    parts = mean_variance_shares(fit, terms)
    n = y.size
    v = np.eye(n) * fit.residual
    for variance, codes in zip(fit.variances, terms.values(), strict=True):
        same = codes[:, None] == codes[None, :]
        v += variance * same
    assert sum(parts.values()) == pytest.approx(v.sum() / n**2, rel=1e-12)
    y, terms = _case("crossed")
    fit = fit_components(y, terms)
    parts = mean_variance_shares(fit, terms)
    for name, variance, levels in zip(fit.terms, fit.variances, fit.levels, strict=True):
        assert parts[name] == pytest.approx(variance / levels, rel=1e-12, abs=1e-300)
    assert parts["residual"] == pytest.approx(fit.residual / y.size)


def test_order_and_labels_do_not_matter() -> None:
    y, terms = _case("nested")
    rng = np.random.default_rng(5)
    order = rng.permutation(y.size)
    relabel = rng.permutation(terms["item"].max() + 1)
    moved = {"passage": terms["passage"][order], "item": relabel[terms["item"]][order]}
    a, b = fit_components(y, terms), fit_components(y[order], moved)
    assert b.variances == pytest.approx(a.variances, abs=1e-8)
    assert b.criterion == pytest.approx(a.criterion, rel=1e-12)


def test_not_estimable_is_an_error_naming_the_term() -> None:
    y = np.arange(12.0) % 5
    item = np.arange(12) // 3
    with pytest.raises(DataError, match="'prompt' has one level"):
        fit_components(y, {"item": item, "prompt": np.zeros(12, dtype=int)})
    with pytest.raises(DataError, match="'cell' has a level per score"):
        fit_components(y, {"item": item, "cell": np.arange(12)})
    with pytest.raises(DataError, match="'item' and 'copy' group the scores alike"):
        fit_components(y, {"item": item, "copy": 3 - item})
    with pytest.raises(DataError, match="hold 1 NaN or infinite"):
        fit_components(np.where(np.arange(12) == 4, np.nan, y), {"item": item})
    with pytest.raises(DataError, match="integer level codes"):
        fit_components(y, {"item": item.astype(float)})
    with pytest.raises(DataError, match="unused levels"):
        fit_components(y, {"item": item * 2})
    with pytest.raises(DataError, match="at least one random term"):
        fit_components(y, {})


def test_two_large_crossed_facets_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(components, "MAX_CROSSED_LEVELS", 10)
    a, b = (x.ravel() for x in np.meshgrid(np.arange(12), np.arange(12)))
    y = np.random.default_rng(0).normal(size=a.size)
    with pytest.raises(DataError, match="crossed facets hold 12 levels, beyond 10"):
        fit_components(y, {"a": a, "b": b})


if __name__ == "__main__":
    write(Path(sys.argv[1]))


def test_nested_runs_is_the_one_facet_case_of_reml() -> None:
    """Items with 4 runs each: the closed form's components are REML's with the item the one
    term and the runs the residual (a non-negative item component); with ragged runs they
    are the unbiased moments, by hand."""
    from evalsig.inference.components import nested_runs

    rng = np.random.default_rng(11)
    items, runs = 60, 4
    y = np.repeat(rng.normal(0, 0.7, items), runs) + rng.normal(0, 0.5, items * runs)
    codes = np.repeat(np.arange(items), runs)
    grid = y.reshape(items, runs)
    closed = nested_runs(grid.sum(axis=1), (grid**2).sum(axis=1), np.full(items, runs))
    fit = fit_components(y, {"item": codes})
    assert closed.item_variance == pytest.approx(fit.variances[0], rel=1e-6)
    assert closed.run_variance == pytest.approx(fit.residual, rel=1e-6)
    counts = rng.integers(1, 6, items)
    ragged = [rng.normal(rng.normal(), 0.5, k) for k in counts]
    got = nested_runs(
        np.array([r.sum() for r in ragged]), np.array([(r**2).sum() for r in ragged]), counts
    )
    within = sum(((r - r.mean()) ** 2).sum() for r in ragged) / sum(k - 1 for k in counts)
    means = np.array([r.mean() for r in ragged])
    assert got.run_variance == pytest.approx(within, rel=1e-12)
    assert got.item_variance == pytest.approx(
        np.var(means, ddof=1) - within * np.mean(1 / counts), rel=1e-12
    )


HOSTILE_CELLS = (
    "0:1:1 0:2:0 1:2:1 2:2:1 3:1:1 3:2:1 4:1:1 4:2:1 5:1:1 5:2:1 6:1:1 6:2:1 7:1:1 7:2:0 "
    "8:1:1 8:2:1 9:1:0 9:2:0 10:1:1 10:2:1 11:1:1 11:2:1 12:1:1 12:2:1 13:1:1 13:2:1 14:1:1 "
    "14:2:1 15:1:1 15:2:1 16:1:0 16:2:1 17:1:0 17:2:1 18:1:0 18:2:1 19:1:1 19:2:1 20:1:1 "
    "20:2:1 21:1:1 21:2:0 22:1:1 22:2:1 23:1:1 23:2:0 24:1:1 24:2:1 25:1:1 25:2:1 26:1:0 "
    "26:2:0 27:1:1 27:2:1 28:1:1 28:2:1 29:1:1 29:2:1 0:1:1"
)
"""item:run:score of a hostile file: 30 items x 2 runs, two cells missing, one cell given
twice with the same score."""


def test_a_term_nearly_as_fine_as_the_residual_is_a_one_line_error() -> None:
    """item:run has 58 levels for 59 scores and its one replicated cell has no spread: the
    residual cannot be told from it, and REML's factorisations lose definiteness as the
    ratio grows. The fit says so in one line instead of failing inside numpy."""
    from evalsig.facets import variance_sources

    cells = [tuple(int(x) for x in cell.split(":")) for cell in HOSTILE_CELLS.split()]
    table = {
        "item": [c[0] for c in cells],
        "run": [c[1] for c in cells],
        "score": [float(c[2]) for c in cells],
    }
    with pytest.raises(DataError, match=r"broke down numerically|fit all 59 scores exactly"):
        variance_sources(table, facets=["item", "run"], n_resamples=0)


def test_bootstrap_on_a_complete_grid_equals_a_plain_loop_of_fits() -> None:
    """Items x prompts x runs, one score a cell, every combination a term: the resamples
    are fitted from their mean squares in batches; the intervals are those of a plain loop
    of fit_components on the same draws (REML either way)."""
    rng = np.random.default_rng(21)
    n_i, n_p, n_r = 12, 3, 2
    grid = np.meshgrid(np.arange(n_i), np.arange(n_p), np.arange(n_r), indexing="ij")
    item, prompt, run = (g.ravel() for g in grid)
    terms = {
        "item": item,
        "prompt": prompt,
        "run": run,
        "item:prompt": item * n_p + prompt,
        "item:run": item * n_r + run,
        "prompt:run": prompt * n_r + run,
    }
    y = rng.normal(0, 1, n_i)[item] + rng.normal(0, 0.4, (n_i, n_p))[item, prompt]
    y = y + rng.normal(0, 0.5, item.size)
    fit = fit_components(y, terms)
    got = component_intervals(y, terms, fit, n_resamples=100, rng=5)
    low, high = _loop_intervals(y, terms, fit, seed=5)
    assert got.low == pytest.approx(tuple(low), abs=1e-6)
    assert got.high == pytest.approx(tuple(high), abs=1e-6)
    assert got.draws.shape == (100, 7)
