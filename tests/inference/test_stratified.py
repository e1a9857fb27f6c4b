"""Stratified means and the stratified paired test: against a hand computation in plain
loops, through ``compare(strata=...)``, and in a seeded simulation of the two situations a
grouping column can describe (fixed strata, sampled clusters).

``python tests/inference/test_stratified.py`` prints the calibration table the guide shows.
"""

from __future__ import annotations

import json
import math
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
from evalsig.inference._cluster import cluster_robust_core
from evalsig.inference._ttest import paired_t_core
from evalsig.inference.stratified import stratified_mean, stratified_t_core


def _by_hand(y: list[float], strata: list[str], equal: bool) -> tuple[float, float, float]:
    """Cochran's stratified mean, variance and Satterthwaite df, one stratum at a time."""
    names = sorted(set(strata))
    n = len(y)
    estimate = variance = denominator = 0.0
    for name in names:
        values = [v for v, s in zip(y, strata, strict=True) if s == name]
        n_h = len(values)
        mean = sum(values) / n_h
        s2 = sum((v - mean) ** 2 for v in values) / (n_h - 1)
        w = 1 / len(names) if equal else n_h / n
        estimate += w * mean
        variance += w * w * s2 / n_h
        denominator += (w * w * s2 / n_h) ** 2 / (n_h - 1)
    return estimate, math.sqrt(variance), variance**2 / denominator


def _scores(seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """0/1 scores of two models on 300 items in 5 subjects of unequal size and difficulty."""
    rng = np.random.default_rng(seed)
    sizes = [20, 40, 60, 80, 100]
    strata = [f"subject {h}" for h, size in enumerate(sizes) for _ in range(size)]
    ease = np.repeat([0.3, 0.5, 0.6, 0.8, 0.9], sizes)
    base = (rng.random(300) < ease).astype(float)
    cand = (
        rng.random(300) < np.minimum(ease + np.repeat([0.1, 0, -0.05, 0.05, 0.02], sizes), 1)
    ).astype(float)
    return base, cand, strata


@pytest.mark.parametrize("equal", [False, True])
def test_compare_with_strata_equals_the_hand_computation(equal: bool) -> None:
    base, cand, strata = _scores()
    result = compare(
        base, cand, strata=strata, method="stratified", variant="equal" if equal else None
    )
    estimate, se, df = _by_hand(list(cand - base), strata, equal)
    assert result.estimate == pytest.approx(estimate, rel=1e-12)
    assert result.se == pytest.approx(se, rel=1e-12)
    assert result.df == pytest.approx(df, rel=1e-12)
    t = estimate / se
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10)
    q = stats.t.ppf(0.975, df)
    assert result.ci.low == pytest.approx(estimate - q * se, rel=1e-10)
    assert result.n_strata == 5
    assert result.n_clusters is None
    assert result.method == ("stratified-equal" if equal else "stratified-proportional")


def test_auto_picks_the_stratified_test_and_proportional_is_the_plain_mean() -> None:
    base, cand, strata = _scores(1)
    result = compare(base, cand, strata=strata)
    assert result.method == "stratified-proportional"
    assert result.estimate == pytest.approx(float(np.mean(cand - base)), rel=1e-12)
    assert "items fall in 5 strata" in result.method_reason
    assert any("macro average" in note for note in result.notes)
    by_id = compare(
        {f"q{i}": v for i, v in enumerate(base)},
        {f"q{i}": v for i, v in enumerate(cand)},
        strata={f"q{i}": s for i, s in enumerate(strata)},
    )
    assert by_id.se == pytest.approx(result.se, rel=1e-12)
    plain = compare(base, cand, strata=strata, method="paired-t")
    assert any("strata were given but" in note for note in plain.notes)
    assert result.to_dict()["n_strata"] == 5


def test_refusals() -> None:
    base, cand, strata = _scores(2)
    with pytest.raises(DataError, match="not both"):
        compare(base, cand, strata=strata, cluster=strata)
    with pytest.raises(DataError, match="needs strata"):
        compare(base, cand, method="stratified")
    lonely = ["alone", *strata[1:]]
    with pytest.raises(DataError, match="stratum 'alone' has 1 item"):
        compare(base, cand, strata=lonely)
    with pytest.raises(DataError, match="at least 2 strata"):
        stratified_mean(np.arange(5.0), np.zeros(5, dtype=int))


def test_proportional_variance_is_below_the_plain_one_in_expectation() -> None:
    """Over seeded draws with strata of different means, the proportional variance
    averages at most the unstratified one (Cochran 1977, eq. 5.29 without the fpc)."""
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(4), [50, 100, 150, 200])
    ratios = []
    for _ in range(200):
        y = rng.normal(np.array([0.0, 0.5, -0.5, 1.0])[codes], 1.0)
        m = stratified_mean(y, codes)
        ratios.append(m.se**2 / m.plain_se**2)
    assert float(np.mean(ratios)) < 1.0


WORLDS = ("strata", "clusters")
METHODS = ("paired t (items independent)", "stratified", "macro average", "cluster CR2")


def calibration(
    reps: int = 10_000, seed: int = 1
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """``{(world, method): (false-positive rate, coverage, mean half-width)}`` at 95%.

    Strata: 1,400 items in 14 fixed subjects of 40 to 160 items whose mean differences are
    fixed (from -0.3 to +0.3, their item-weighted mean 0), item noise SD 1 drawn anew each
    time. Clusters: 100 passages of 14 items sampled anew each time, a passage effect of SD
    0.5 (ICC 0.2), item noise SD 1, mean difference 0. The false-positive rate tests the
    null of a zero mean difference; coverage is of each method's own estimand (the macro
    average's is the mean of the subjects' means)."""
    rng = np.random.default_rng(seed)
    sizes = np.linspace(40, 160, 14).astype(int)
    subjects = np.repeat(np.arange(14), sizes)
    effects = np.linspace(-0.3, 0.3, 14)
    effects -= (sizes * effects).sum() / sizes.sum()
    macro_truth = float(effects.mean())
    passages = np.repeat(np.arange(100), 14)
    out: dict[tuple[str, str], list[tuple[bool, bool, float]]] = {}
    for world in WORLDS:
        codes = subjects if world == "strata" else passages
        for _ in range(reps):
            if world == "strata":
                d = effects[subjects] + rng.normal(0, 1, subjects.size)
            else:
                d = rng.normal(0, 0.5, 100)[passages] + rng.normal(0, 1, passages.size)
            common = {"alternative": "two-sided", "confidence_level": 0.95}
            results = {
                METHODS[0]: paired_t_core(d.copy(), **common),
                METHODS[1]: stratified_t_core(d, codes, weights="proportional", **common),
                METHODS[2]: stratified_t_core(d, codes, weights="equal", **common),
                METHODS[3]: cluster_robust_core(d, codes, variant="cr2", **common),
            }
            for method, r in results.items():
                truth = macro_truth if (method == METHODS[2] and world == "strata") else 0.0
                out.setdefault((world, method), []).append(
                    (r.pvalue < 0.05, r.ci.low <= truth <= r.ci.high, (r.ci.high - r.ci.low) / 2)
                )
    return {
        key: (
            float(np.mean([a for a, _, _ in rows])),
            float(np.mean([b for _, b, _ in rows])),
            float(np.mean([c for _, _, c in rows])),
        )
        for key, rows in out.items()
    }


def test_calibration_of_strata_and_clusters_in_both_situations() -> None:
    """Each choice holds its level where its assumption holds, and fails where it does not:
    strata taken for clusters (or ignored) are conservative, clusters taken for strata (or
    ignored) reject a true null far too often. The band is 4 Monte Carlo SEs at 5%."""
    table = calibration(reps=600)
    band = 4 * math.sqrt(0.05 * 0.95 / 600)
    assert abs(table["strata", "stratified"][0] - 0.05) < band
    assert abs(table["strata", "macro average"][1] - 0.95) < band
    assert abs(table["clusters", "cluster CR2"][0] - 0.05) < band
    assert table["clusters", "stratified"][0] > 0.15
    assert table["clusters", "paired t (items independent)"][0] > 0.15
    assert table["strata", "cluster CR2"][0] < 0.05 - band
    assert table["strata", "cluster CR2"][2] > 1.5 * table["strata", "stratified"][2]


def _print_table() -> None:
    table = calibration()
    print("| situation | method | false positives at 5% | coverage of 95% CI | mean half-width |")
    print("|---|---|---|---|---|")
    for world in WORLDS:
        for method in METHODS:
            fpr, coverage, half = table[world, method]
            print(f"| {world} | {method} | {fpr:.1%} | {coverage:.1%} | {half:.3f} |")


if __name__ == "__main__":
    _print_table()


@pytest.mark.parametrize("method", ["stratified", "macro"])
def test_score_with_strata_equals_the_hand_computation(method: str) -> None:
    from evalsig import score

    _, cand, strata = _scores(4)
    result = score(cand, strata=strata, method=method)
    estimate, se, df = _by_hand(list(cand), strata, equal=method == "macro")
    assert result.estimate == pytest.approx(estimate, rel=1e-12)
    assert result.se == pytest.approx(se, rel=1e-12)
    assert result.df == pytest.approx(df, rel=1e-12)
    q = stats.t.ppf(0.975, df)
    assert result.ci.low == pytest.approx(max(0.0, estimate - q * se), rel=1e-10)
    assert result.n_strata == 5
    assert result.to_dict()["n_strata"] == 5
    assert score(cand, strata=strata).method == "stratified"  # auto, with strata


def test_score_refusals_and_notes() -> None:
    from evalsig import score

    _, cand, strata = _scores(5)
    with pytest.raises(DataError, match="not both"):
        score(cand, strata=strata, cluster=strata)
    with pytest.raises(DataError, match="needs strata"):
        score(cand, method="macro")
    assert any("strata were given but" in n for n in score(cand, strata=strata, method="t").notes)


def test_the_command_line_reads_strata_from_a_column(tmp_path: Path) -> None:
    """``compare --strata`` and ``score --strata`` in a subprocess equal the API on the
    same rows; --strata with --cluster is a usage error."""
    from evalsig import score

    base, cand, strata = _scores(6)
    for name, values in (("base", base), ("cand", cand)):
        pd.DataFrame(
            {"item": [f"q{i}" for i in range(300)], "score": values, "subject": strata}
        ).to_csv(tmp_path / f"{name}.csv", index=False)
    common = ["--id", "item", "--score", "score", "--strata", "subject", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "evalsig", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    compared = run("compare", str(tmp_path / "base.csv"), str(tmp_path / "cand.csv"), *common)
    assert compared.returncode == 0, compared.stderr
    document = json.loads(compared.stdout)
    api = compare(base, cand, strata=strata)
    assert document["estimate"] == pytest.approx(api.estimate, rel=1e-12)
    assert document["se"] == pytest.approx(api.se, rel=1e-12)
    assert document["n_strata"] == 5
    scored = run("score", str(tmp_path / "cand.csv"), *common, "--method", "macro")
    assert scored.returncode == 0, scored.stderr
    expected = score(cand, strata=strata, method="macro")
    assert json.loads(scored.stdout)["estimate"] == pytest.approx(expected.estimate, rel=1e-12)
    both = run("score", str(tmp_path / "cand.csv"), *common, "--cluster", "subject")
    assert both.returncode == 2
    assert "not both" in both.stderr
