"""Position and length bias probes: exact binomial and cluster-robust oracles, logistic
slopes against statsmodels' HC0 sandwich, the joint judge - human slope variance, coverage
calibration, renderings and schemas."""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference.proportion import proportion_interval
from evalsig.judge import length_bias, position_bias


def _other(first: np.ndarray) -> np.ndarray:
    return np.where(first == "A", "B", "A")


def _judgments(n: int, p_first: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    first = rng.choice(["A", "B"], n)
    return np.where(rng.random(n) < p_first, first, _other(first)), first


def test_position_bias_is_the_exact_binomial() -> None:
    choice, first = _judgments(300, 0.6, 0)
    result = position_bias(choice, first)
    k = int(np.sum(choice == first))
    exact = proportion_interval(k, 300, method="clopper-pearson")
    assert result.first_preferred == k
    assert result.estimate == pytest.approx(k / 300 - 0.5, abs=1e-15)
    assert result.ci.low == pytest.approx(exact.low - 0.5, abs=1e-15)
    assert result.ci.high == pytest.approx(exact.high - 0.5, abs=1e-15)
    assert result.pvalue == pytest.approx(stats.binomtest(k, 300).pvalue, abs=1e-15)
    assert result.consistency is None
    assert result.n_pairs is None


def test_position_bias_with_both_orders_is_cluster_robust() -> None:
    rng = np.random.default_rng(1)
    pairs = np.repeat(np.arange(150), 2)
    first = np.tile(["A", "B"], 150)
    choice = np.where(rng.random(300) < 0.65, first, _other(first))
    result = position_bias(choice, first, pair=pairs, confidence_level=0.9)
    # Plain-loop oracle: CR1 variance of the share with pairs as clusters.
    hits = (choice == first).astype(float)
    p = hits.mean()
    total = 0.0
    consistent = 0
    for c in range(150):
        idx = np.flatnonzero(pairs == c)
        total += (hits[idx].sum() - p * len(idx)) ** 2
        consistent += choice[idx[0]] == choice[idx[1]]
    se = math.sqrt(150 / 149 * total) / 300
    z = stats.norm.ppf(0.95)
    assert result.ci.low == pytest.approx(p - 0.5 - z * se, abs=1e-12)
    assert result.ci.high == pytest.approx(p - 0.5 + z * se, abs=1e-12)
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(p - 0.5) / se), rel=1e-10)
    assert result.n_pairs == 150
    assert result.consistency is not None
    assert (result.consistency.successes, result.consistency.n) == (consistent, 150)
    assert result.consistency.ci == proportion_interval(
        consistent, 150, method="wilson", confidence_level=0.9
    )


def test_position_bias_coverage_with_pairs() -> None:
    """A judge that picks its favourite when it is consistent and the first otherwise."""
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(400):
        favourite = rng.choice(["A", "B"], 100)
        biased = rng.random(100) < 0.3
        first = np.tile(["A", "B"], 100)
        fav = np.repeat(favourite, 2)
        choice = np.where(np.repeat(biased, 2), first, fav)
        truth = 0.3 * 0.5  # P(first) = 0.3 * 1 + 0.7 * 0.5
        result = position_bias(choice, first, pair=np.repeat(np.arange(100), 2))
        covered += result.ci.contains(truth)
    assert covered == 376  # the seeded count
    assert stats.binom.cdf(covered, 400, 0.95) > 0.001
    assert stats.binom.sf(covered - 1, 400, 0.95) > 0.001


def _logit(seed: int, n: int, slope: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    diff = rng.normal(0, 120, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.2 + slope * diff)))).astype(int)
    return y, diff


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_length_slope_matches_statsmodels_hc0(seed: int) -> None:
    sm = pytest.importorskip("statsmodels.api")
    y, diff = _logit(seed, 500, 0.01)
    result = length_bias(y, diff)
    # statsmodels 0.15: Logit(y, add_constant(diff)).fit(cov_type="HC0")
    fit = sm.Logit(y, sm.add_constant(diff)).fit(disp=0, cov_type="HC0")
    assert result.judge.slope.estimate == pytest.approx(fit.params[1], rel=1e-8)
    assert result.judge.slope.se == pytest.approx(fit.bse[1], rel=1e-6)
    assert result.judge.pvalue == pytest.approx(fit.pvalues[1], rel=1e-5)
    r = stats.pearsonr(y, diff)
    ci = r.confidence_interval()  # scipy: Fisher z with n - 3
    assert result.judge.correlation == pytest.approx(r.statistic, abs=1e-12)
    assert result.judge.correlation_ci.low == pytest.approx(ci.low, abs=1e-12)
    assert result.judge.correlation_ci.high == pytest.approx(ci.high, abs=1e-12)
    assert result.human is None
    assert result.slope_difference is None


def test_judge_minus_human_slope_uses_the_joint_sandwich() -> None:
    sm = pytest.importorskip("statsmodels.api")
    judge, diff = _logit(3, 600, 0.012)
    rng = np.random.default_rng(4)
    human = (rng.random(600) < 1 / (1 + np.exp(-0.003 * diff))).astype(float)
    human[400:] = np.nan
    result = length_bias(judge, diff, human=human)
    x = sm.add_constant(diff)
    fj = sm.Logit(judge, x).fit(disp=0)
    fh = sm.Logit(human[:400], x[:400]).fit(disp=0)
    # Oracle: per-item scores of each fit (zero where humans did not judge), then
    # Cov = A^-1 (sum s s^T) A^-1 blockwise.
    sj = x * (judge - fj.predict(x))[:, None]
    sh = np.zeros_like(x)
    sh[:400] = x[:400] * (human[:400] - fh.predict(x[:400]))[:, None]
    aj = np.linalg.inv(-fj.model.hessian(fj.params))
    ah = np.linalg.inv(-fh.model.hessian(fh.params))
    vjj = (aj @ sj.T @ sj @ aj)[1, 1]
    vhh = (ah @ sh.T @ sh @ ah)[1, 1]
    vjh = (aj @ sj.T @ sh @ ah)[1, 1]
    assert result.human is not None
    assert result.slope_difference is not None
    assert result.human.n == 400
    assert result.human.slope.estimate == pytest.approx(fh.params[1], rel=1e-7)
    assert result.slope_difference.estimate == pytest.approx(fj.params[1] - fh.params[1], rel=1e-7)
    assert result.slope_difference.se == pytest.approx(math.sqrt(vjj + vhh - 2 * vjh), rel=1e-6)
    assert any("400 of 600" in note for note in result.notes)


def test_length_slope_coverage() -> None:
    covered = sum(
        length_bias(*_logit(seed, 300, 0.008)).judge.slope.ci.contains(0.008)
        for seed in range(100, 400)
    )
    assert covered == 285  # the seeded count
    assert stats.binom.cdf(covered, 300, 0.95) > 0.001
    assert stats.binom.sf(covered - 1, 300, 0.95) > 0.001


def test_errors_name_the_argument() -> None:
    with pytest.raises(DataError, match="`choice` has 2 judgments but `shown_first` has 3"):
        position_bias(["A", "B"], ["A", "B", "A"])
    with pytest.raises(DataError, match="`choice` has 1 missing"):
        position_bias(["A", None], ["A", "B"])
    with pytest.raises(DataError, match="share one `pair` id"):
        position_bias(["A", "B"], ["A", "B"], pair=[1, 1])
    with pytest.raises(DataError, match="`preference` has 2 at position 1"):
        length_bias([1, 2, 0], [1.0, 2.0, 3.0])
    with pytest.raises(DataError, match="`length_difference` has 1 missing"):
        length_bias([1, 0, 0], [1.0, np.nan, 3.0])
    with pytest.raises(DataError, match="same for every item"):
        length_bias([1, 0, 0], [5, 5, 5])
    with pytest.raises(DataError, match="perfectly separated"):
        length_bias([0, 0, 0, 1, 1, 1], [-3, -2, -1, 1, 2, 3])
    with pytest.raises(DataError, match="judge preferences"):
        length_bias([1, 1, 1, 1], [1, 2, 3, 4])
    with pytest.raises(DataError, match="`human` has 2 items"):
        length_bias([1, 0, 1, 0], [1, 2, 3, 4], human=[1, 0])


def _schema(kind: str) -> dict[str, Any]:
    text = (resources.files("evalsig.report.schemas") / f"{kind}.schema.json").read_text()
    return dict(json.loads(text))


def _validator(jsonschema: Any, schema: dict[str, Any]) -> Any:
    """A validator that resolves the schemas' references to one another (provenance)."""
    from evalsig.report.schemas import registry

    return jsonschema.Draft202012Validator(schema, registry=registry())


def _bias_results() -> list[Any]:
    choice, first = _judgments(60, 0.6, 2)
    judge, diff = _logit(5, 200, 0.01)
    human = judge.astype(float)
    human[::3] = np.nan
    return [
        position_bias(choice, first),
        position_bias(choice, first, pair=np.repeat(np.arange(30), 2)),
        position_bias(choice, first, pair=np.arange(60)),
        length_bias(judge, diff),
        length_bias(judge, diff, human=1 - np.nan_to_num(human, nan=0.0)),
    ]


def test_results_validate_against_their_schemas() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for result in _bias_results():
        document = json.loads(json.dumps(result.to_dict(), allow_nan=False))
        schema = _schema(document["kind"])
        _validator(jsonschema, schema).validate(document)
        assert set(document) == set(schema["properties"])
    wrong = _bias_results()[0].to_dict()
    wrong["estimate"] = 0.7
    with pytest.raises(jsonschema.ValidationError):
        _validator(jsonschema, _schema("judge-position-bias")).validate(wrong)


def test_renderings() -> None:
    position, paired, singles, length, both = _bias_results()
    assert "Clopper-Pearson" in str(position)
    assert "Consistent in both orders" in str(paired)
    assert singles.consistency is None
    assert any("both orders" in note for note in singles.notes)
    assert "Judge logistic slope" in str(length)
    assert "Human" not in str(length)
    assert "Slope difference (judge - human)" in both._repr_markdown_()
    assert "<table" in both._repr_html_()
