"""The paired test over crossed facets: Satterthwaite's df against the classical mean-square
form and a dense-matrix oracle, compare(facets=) against the paired t-test where the two
are one test, its calibration where prompts are shared by every item, and its refusals.

Run as a script, it prints the calibration table of the variance guide (more draws)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalsig import compare
from evalsig.errors import DataError
from evalsig.inference import paired_t
from evalsig.inference.components import fit_components, mean_df
from evalsig.score import score


def _crossed(rng: np.random.Generator, items: int, prompts: int, prompt_sd: float) -> tuple:
    item = np.repeat(np.arange(items), prompts)
    prompt = np.tile(np.arange(prompts), items)
    y = (
        rng.normal(0, 1, items)[item]
        + rng.normal(0, prompt_sd, prompts)[prompt]
        + rng.normal(0, 0.7, items * prompts)
    )
    return item, prompt, y


def test_df_is_the_mean_square_form_in_a_balanced_crossed_design() -> None:
    """V = (MS_I + MS_P - MS_E) / (I P); Satterthwaite: V^2 / sum(a_j^2 MS_j^2 / df_j)."""
    items, prompts = 60, 5
    item, prompt, y = _crossed(np.random.default_rng(1), items, prompts, 0.4)
    terms = {"item": item, "prompt": prompt}
    df = mean_df(y, terms, fit_components(y, terms))
    table = y.reshape(items, prompts)
    grand = table.mean()
    ms_i = prompts * ((table.mean(1) - grand) ** 2).sum() / (items - 1)
    ms_p = items * ((table.mean(0) - grand) ** 2).sum() / (prompts - 1)
    residual = table - table.mean(1)[:, None] - table.mean(0)[None, :] + grand
    ms_e = (residual**2).sum() / ((items - 1) * (prompts - 1))
    expected = (ms_i + ms_p - ms_e) ** 2 / (
        ms_i**2 / (items - 1) + ms_p**2 / (prompts - 1) + ms_e**2 / ((items - 1) * (prompts - 1))
    )
    assert df == pytest.approx(expected, rel=1e-5)
    assert df < 10  # five prompts: few degrees of freedom, not the 59 of the items


def test_df_of_runs_nested_in_items_is_items_minus_one() -> None:
    rng = np.random.default_rng(2)
    item = np.repeat(np.arange(40), 3)
    y = rng.normal(0, 1, 40)[item] + rng.normal(0, 0.5, 120)
    df = mean_df(y, {"item": item}, fit_components(y, {"item": item}))
    assert df == pytest.approx(39, rel=1e-6)


def _dense_df(y: np.ndarray, terms: dict[str, np.ndarray]) -> float:
    """The same df from dense matrices: the observed Hessian of -2 log L_REML in the
    variances, -tr(P G_i P G_j) + 2 y'P G_i P G_j P y, with G_k = Z_k Z_k' and G = I for
    the residual; Var(theta) = 2 H^-1; df = 2 V^2 / (g' Var g)."""
    fit = fit_components(y, terms)
    n = y.size
    grams = []
    for codes in terms.values():
        z = np.zeros((n, codes.max() + 1))
        z[np.arange(n), codes] = 1.0
        grams.append(z @ z.T)
    grams.append(np.eye(n))
    variances = [*fit.variances, fit.residual]
    assert min(variances) > 0  # the oracle has no boundary
    v = sum(s * g for s, g in zip(variances, grams, strict=True))
    v_inv = np.linalg.inv(v)
    x = np.ones((n, 1))
    p = v_inv - v_inv @ x @ np.linalg.inv(x.T @ v_inv @ x) @ x.T @ v_inv
    py = p @ y
    k = len(grams)
    hessian = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            pgpg = p @ grams[i] @ p @ grams[j]
            hessian[i, j] = -np.trace(pgpg) + 2.0 * py @ grams[i] @ p @ grams[j] @ py
    coefficients = [
        float(np.bincount(codes) @ np.bincount(codes)) / n**2 for codes in terms.values()
    ]
    g = np.array([*coefficients, 1.0 / n])
    total = float(g @ np.array(variances))
    return 2.0 * total**2 / float(g @ (2.0 * np.linalg.solve(hessian, g)))


def test_df_equals_a_dense_oracle_when_cells_are_missing() -> None:
    rng = np.random.default_rng(5)
    item, prompt, y = _crossed(rng, 30, 4, 0.6)
    keep = rng.random(item.size) > 0.15
    item, prompt, y = item[keep], prompt[keep], y[keep]
    terms = {
        "item": np.unique(item, return_inverse=True)[1],
        "prompt": np.unique(prompt, return_inverse=True)[1],
    }
    df = mean_df(y, terms, fit_components(y, terms))
    assert df == pytest.approx(_dense_df(y, terms), rel=1e-4)


def _tables(
    rng: np.random.Generator, items: int, prompts: int, prompt_sd: float, shift: float = 0.0
) -> tuple[dict, dict]:
    """Two models on items x prompts: the candidate's difference has a per-prompt shift (SD
    ``prompt_sd``) shared by every item, as a template that suits one model does."""
    item, prompt, base = _crossed(rng, items, prompts, 0.3)
    difference = shift + rng.normal(0, prompt_sd, prompts)[prompt] + rng.normal(0, 0.5, item.size)
    labels = {"item": [f"q{i}" for i in item], "prompt": [f"p{j}" for j in prompt]}
    return {**labels, "score": base}, {**labels, "score": base + difference}


def test_compare_with_runs_nested_in_items_is_the_paired_t_test() -> None:
    rng = np.random.default_rng(3)
    item = np.repeat(np.arange(50), 4)
    run = np.tile(np.arange(4), 50)
    base = rng.normal(0, 1, 50)[item] + rng.normal(0, 0.5, 200)
    cand = base + 0.2 + rng.normal(0, 0.4, 50)[item] + rng.normal(0, 0.5, 200)
    labels = {"item": item, "run": [f"{i}-{r}" for i, r in zip(item, run, strict=True)]}
    result = compare(
        {**labels, "score": base},
        {**labels, "score": cand},
        facets=["item", "run"],
        alternative="greater",
    )
    by_item = paired_t(
        baseline=base.reshape(50, 4).mean(1),
        candidate=cand.reshape(50, 4).mean(1),
        alternative="greater",
    )
    assert result.method == "facets"
    assert result.estimate == pytest.approx(by_item.estimate, rel=1e-12)
    assert result.se == pytest.approx(by_item.se, rel=1e-6)
    assert result.df == pytest.approx(by_item.df, rel=1e-6)
    assert result.p_value == pytest.approx(by_item.pvalue, rel=1e-5)
    assert (result.n_items, result.n_runs) == (50, (4, 4))


def test_the_result_reads_as_a_comparison() -> None:
    base, cand = _tables(np.random.default_rng(4), 80, 5, 0.1, shift=0.05)
    result = compare(base, cand, facets=["item", "prompt"])
    assert result.baseline_mean == pytest.approx(np.mean(base["score"]))
    assert result.candidate_mean == pytest.approx(np.mean(cand["score"]))
    low, high = result.ci
    assert low < result.estimate < high
    assert (low > 0) == (result.p_value < 0.05)
    assert result.confidence_interval(0.99).low < low
    assert "[facets, n = 80 items x 5 cells]" in str(result)
    assert any("Satterthwaite" in note for note in result.notes)
    assert result.to_dict()["method"] == "facets"


def test_without_satterthwaite_df_the_interval_and_p_value_are_undefined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the REML covariance is singular (``mean_df`` NaN), no point interval and no
    p-value pretend otherwise; the JSON says why they are null."""
    import evalsig.facets.sources as sources

    monkeypatch.setattr(sources, "mean_df", lambda *args: float("nan"))
    base, cand = _tables(np.random.default_rng(9), 20, 3, 0.1)
    result = compare(base, cand, facets=["item", "prompt"])
    assert np.isnan(result.p_value)
    assert np.isnan(result.ci.low)
    assert result.df is None
    document = result.to_dict()
    assert document["pvalue"] is None
    assert "pvalue" in document["nulls"]
    alone = score(cand, facets=["item", "prompt"])
    assert np.isnan(alone.ci.low)
    assert alone.df is None
    assert "ci.low" in alone.to_dict()["nulls"]


def calibration(reps: int, seed: int = 11) -> dict[str, tuple[float, float]]:
    """``{method: (false-positive rate, coverage)}`` at 95%, two-sided: 60 items x 5
    prompts, a prompt effect on the difference of SD 0.1 (drawn anew each time, shared by
    every item) and cell noise SD 0.5, mean difference 0. "paired t on item means" is
    compare's default on each item's mean over the prompts."""
    rng = np.random.default_rng(seed)
    hits = {"facets": 0, "paired t on item means": 0}
    for _ in range(reps):
        base, cand = _tables(rng, 60, 5, 0.1)
        result = compare(base, cand, facets=["item", "prompt"])
        hits["facets"] += result.p_value < 0.05
        means = np.reshape(cand["score"], (60, 5)).mean(1) - np.reshape(
            base["score"], (60, 5)
        ).mean(1)
        hits["paired t on item means"] += stats.ttest_1samp(means, 0.0).pvalue < 0.05
    return {name: (count / reps, 1 - count / reps) for name, count in hits.items()}


def test_calibrated_where_the_paired_t_test_on_item_means_is_not() -> None:
    """250 seeded draws: the facets test's false-positive rate within the 99.9% binomial
    band of 5%; the t-test on item means, which leaves out the prompts shared by every item,
    rejects several times too often."""
    rates = calibration(250)
    low, high = stats.binom.ppf([0.0005, 0.9995], 250, 0.05) / 250
    assert low <= rates["facets"][0] <= high
    assert rates["paired t on item means"][0] > 0.2


def test_refusals_name_the_fix() -> None:
    base, cand = _tables(np.random.default_rng(6), 20, 3, 0.1)
    with pytest.raises(DataError, match="method='facets'"):
        compare(base, cand, facets=["item", "prompt"], method="paired-t")
    with pytest.raises(DataError, match="`cluster` does not apply with `facets`"):
        compare(base, cand, facets=["item", "prompt"], cluster="prompt")
    renamed = {"item": base["item"], "prompt": base["prompt"], "points": base["score"]}
    with pytest.raises(DataError, match="no score column"):
        compare(renamed, cand, facets=["item", "prompt"])
    short = {key: value[:-3] for key, value in cand.items()}
    with pytest.raises(DataError, match="on_missing='intersect'"):
        compare(base, short, facets=["item", "prompt"])
    result = compare(base, short, facets=["item", "prompt"], on_missing="intersect")
    assert result.n_dropped == (3, 0)


SRC = Path(__file__).resolve().parents[2] / "src"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "evalsig", "compare", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path, "NO_COLOR": "1"},
    )


def test_the_command_line_is_the_api(tmp_path: Path) -> None:
    """One long file of two models: ``--facet`` with each side's rows chosen by
    ``--baseline-where``/``--candidate-where``; the score column named with --score."""
    base, cand = _tables(np.random.default_rng(7), 40, 4, 0.1, shift=0.1)
    frames = [pd.DataFrame({**side, "model": name}) for name, side in (("a", base), ("b", cand))]
    path = tmp_path / "long.csv"
    pd.concat(frames).rename(columns={"score": "points"}).to_csv(path, index=False)
    flags = ["--facet", "item", "--facet", "prompt", "--score", "points"]
    sides = ["--baseline-where", "model=a", "--candidate-where", "model=b"]
    done = _cli(
        str(path), str(path), *flags, *sides, "--alternative", "greater", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    expected = compare(base, cand, facets=["item", "prompt"], alternative="greater").to_dict()
    for key in ("estimate", "pvalue", "df", "se"):
        assert document[key] == pytest.approx(expected[key], rel=1e-9), key
    assert document["ci"]["low"] == pytest.approx(expected["ci"]["low"], rel=1e-9)
    assert document["ci"]["high"] is expected["ci"]["high"] is None  # one-sided
    for key in ("method", "n_items", "n_runs", "baseline_mean", "candidate_mean"):
        assert document[key] == expected[key], key
    origin = document["provenance"]["inputs"]["candidate"]
    assert (origin["model"], origin["files"][0]["path"]) == ("b", str(path))
    assert "baseline: 160 row(s) of models other than 'a' left out" in document["notes"]

    pooled = _cli(str(path), str(path), *flags)
    assert (pooled.returncode, pooled.stdout) == (4, "")
    assert pooled.stderr.count("\n") == 1
    assert "holds several models ('a', 'b')" in pooled.stderr
    assert "--baseline-where model=NAME" in pooled.stderr
    where = _cli(str(path), str(path), *flags, *sides, "--where", "prompt=p1")
    assert where.returncode == 2
    assert "--where does not apply with --facet" in where.stderr
    named = _cli(str(path), str(path), *flags, "--facet", "score", *sides)  # not renamed over
    assert named.returncode == 4
    assert "facet 'score' is the score column (or would take its name)" in named.stderr


def test_a_score_over_runs_nested_in_items_is_the_t_interval_on_item_means() -> None:
    rng = np.random.default_rng(12)
    runs = (rng.random((4, 50)) < rng.beta(2, 1, 50)).astype(int)  # runs x items
    table = {
        "item": np.tile(np.arange(50), 4),
        "run": [f"{i}-{r}" for r in range(4) for i in range(50)],
        "correct": runs.ravel(),
    }
    over = score(table, facets=["item", "run"], confidence_level=0.9)
    plain = score(runs, method="t", confidence_level=0.9)
    assert over.method == "facets"
    assert (over.n_items, over.n_runs, over.df) == (50, 4, pytest.approx(49, rel=1e-6))
    assert over.estimate == pytest.approx(plain.estimate, rel=1e-12)
    assert over.se == pytest.approx(plain.se, rel=1e-6)
    assert tuple(over.ci) == pytest.approx(tuple(plain.ci), rel=1e-6)


def test_a_score_over_shared_prompts_is_wider_and_refuses_what_does_not_apply() -> None:
    base, _ = _tables(np.random.default_rng(13), 60, 4, 0.1)
    shifts = np.repeat(np.random.default_rng(14).normal(0, 0.3, 4)[None, :], 60, 0).ravel()
    table = {**base, "score": np.asarray(base["score"]) + shifts}  # each template shifts all
    over = score(table, facets=["item", "prompt"])
    means = np.reshape(table["score"], (60, 4)).mean(1)
    assert over.se > 1.5 * score(means, method="t").se  # the templates' share of the SE
    assert over.df < 10
    with pytest.raises(DataError, match="method='facets'"):
        score(table, facets=["item", "prompt"], method="wilson")
    with pytest.raises(DataError, match="`strata` does not apply with `facets`"):
        score(table, facets=["item", "prompt"], strata="prompt")


def _logistic_mean(mu: float, variance: float) -> float:
    """E[1 / (1 + exp(-Z))] for Z ~ N(mu, variance), by Gauss-Hermite quadrature."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return float((w / (1 + np.exp(-(mu + np.sqrt(variance) * x)))).sum() / w.sum())


def score_coverage(reps: int, seed: int = 21) -> dict[str, float]:
    """``{method: coverage}`` of the 95% interval of one model's 0/1 scores on 60 items x 5
    templates: logit = item ease N(0.5, 1) + template shift N(0, 0.6^2), both drawn anew
    each time; the estimand is the mean over the items' and the templates' populations."""
    rng = np.random.default_rng(seed)
    truth = _logistic_mean(0.5, 1.0 + 0.6**2)
    item, prompt = np.repeat(np.arange(60), 5), np.tile(np.arange(5), 60)
    covered = {"facets": 0, "t on item means": 0}
    for _ in range(reps):
        logit = rng.normal(0.5, 1, 60)[item] + rng.normal(0, 0.6, 5)[prompt]
        y = (rng.random(300) < 1 / (1 + np.exp(-logit))).astype(int)
        over = score({"item": item, "prompt": prompt, "correct": y}, facets=["item", "prompt"])
        covered["facets"] += over.ci.contains(truth)
        plain = score(y.reshape(60, 5).mean(1), method="t")
        covered["t on item means"] += plain.ci.contains(truth)
    return {name: count / reps for name, count in covered.items()}


def test_a_score_over_sampled_templates_covers() -> None:
    """200 seeded draws of 0/1 scores: the facets interval covers within the 99.9% binomial
    band of 95%; the t interval on item means, blind to the templates, covers about 75%."""
    coverage = score_coverage(200)
    low, high = stats.binom.ppf([0.0005, 0.9995], 200, 0.95) / 200
    assert low <= coverage["facets"] <= high
    assert coverage["t on item means"] < 0.85


def test_score_on_the_command_line_is_the_api(tmp_path: Path) -> None:
    base, cand = _tables(np.random.default_rng(15), 30, 3, 0.1)
    frames = [pd.DataFrame({**side, "model": name}) for name, side in (("a", base), ("b", cand))]
    path = tmp_path / "long.csv"
    pd.concat(frames).to_csv(path, index=False)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalsig",
            "score",
            str(path),
            "--facet",
            "item",
            "--facet",
            "prompt",
            "--where",
            "model=b",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    expected = score(cand, facets=["item", "prompt"]).to_dict()
    for key in ("estimate", "se", "df"):
        assert document[key] == pytest.approx(expected[key], rel=1e-9), key
    assert document["ci"] == pytest.approx(expected["ci"], rel=1e-9)
    assert document["provenance"]["inputs"]["model"]["model"] == "b"
    assert any("row(s) of models other than 'b' left out" in n for n in document["notes"])


def _print_table() -> None:
    for name, (rate, coverage) in calibration(4000).items():
        print(f"| {name} | {100 * rate:.1f}% | {100 * coverage:.1f}% |")
    for name, coverage in score_coverage(4000).items():
        print(f"| score: {name} | | {100 * coverage:.1f}% |")


if __name__ == "__main__":
    _print_table()
