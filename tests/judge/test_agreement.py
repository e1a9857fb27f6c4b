"""Judge-human agreement: kappa against statsmodels, Wilson sensitivity / specificity."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalsig.errors import DataError
from evalsig.inference.proportion import proportion_interval
from evalsig.judge import judge_agreement


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_kappa_matches_statsmodels(seed: int, k: int) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    human = rng.integers(0, k, 150)
    judge = np.where(rng.random(150) < 0.7, human, rng.integers(0, k, 150))
    result = judge_agreement(judge, human, positive=1 if k == 2 else None)
    table = np.array(result.table)
    expected = inter_rater.cohens_kappa(table)  # statsmodels 0.15, simple kappa
    assert result.kappa == pytest.approx(expected.kappa, abs=1e-12)
    assert result.kappa_se == pytest.approx(expected.std_kappa, abs=1e-12)
    assert result.kappa_ci.low == pytest.approx(max(expected.kappa_low, -1), abs=1e-12)
    assert result.kappa_ci.high == pytest.approx(min(expected.kappa_upp, 1), abs=1e-12)
    assert result.agreement == pytest.approx(float(np.mean(judge == human)))


def test_sensitivity_and_specificity() -> None:
    human = [1] * 10 + [0] * 20
    judge = [1] * 8 + [0] * 2 + [1] * 5 + [0] * 15
    result = judge_agreement(judge, human)
    assert result.positive == "1"
    assert result.sensitivity is not None
    assert result.specificity is not None
    assert (result.sensitivity.successes, result.sensitivity.n) == (8, 10)
    assert (result.specificity.successes, result.specificity.n) == (15, 20)
    assert result.sensitivity.ci == proportion_interval(8, 10, method="wilson")
    assert result.specificity.ci == proportion_interval(15, 20, method="wilson")
    assert "Sensitivity" in str(result)
    assert "Wilson" in str(result)
    document = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert document["kind"] == "judge-agreement"


def test_named_categories_need_positive() -> None:
    human = ["pass", "fail", "pass", "pass"]
    judge = ["pass", "pass", "pass", "fail"]
    assert judge_agreement(judge, human).sensitivity is None
    result = judge_agreement(judge, human, positive="pass")
    assert result.sensitivity is not None
    assert result.sensitivity.estimate == pytest.approx(2 / 3)
    assert result.specificity is not None
    assert result.specificity.estimate == 0.0


def test_one_category_is_undefined_not_a_crash() -> None:
    result = judge_agreement([1, 1, 1], [1, 1, 1])
    assert np.isnan(result.kappa)
    assert result.agreement == 1.0
    assert any("single category" in note for note in result.notes)
    assert json.dumps(result.to_dict(), allow_nan=False)


def test_errors() -> None:
    with pytest.raises(DataError, match="`judge` has 2 labels but `human` has 3"):
        judge_agreement([1, 0], [1, 0, 1])
    with pytest.raises(DataError, match="`human` has 1 missing label"):
        judge_agreement([1, 0, 1], [1, None, 1])
    with pytest.raises(DataError, match="need two categories"):
        judge_agreement([0, 1, 2], [0, 1, 2], positive=1)
