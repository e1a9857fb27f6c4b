"""Multi-rater agreement: Fleiss' kappa against statsmodels, Krippendorff's alpha against
Krippendorff's (2011) worked example and the ``krippendorff`` package, bootstrap oracles,
the null calibration of Fleiss' z-test, and the agreement result that carries both."""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.judge import fleiss_kappa, judge_agreement, krippendorff_alpha

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders
# (rows) x 12 units (columns), NaN where a coder did not code the unit. The paper gives
# alpha = 0.743 (nominal), 0.815 (ordinal) and 0.849 (interval).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def _units() -> list[tuple[float, ...]]:
    return list(zip(*KRIPPENDORFF_2011, strict=True))


def _counts(ratings: np.ndarray) -> np.ndarray:
    """Items x categories counts (plain loop)."""
    categories = sorted(set(ratings.ravel().tolist()))
    table = np.zeros((len(ratings), len(categories)))
    for i, row in enumerate(ratings):
        for value in row:
            table[i, categories.index(value)] += 1
    return table


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("k", "m"), [(2, 2), (3, 4), (5, 6)])
def test_fleiss_kappa_matches_statsmodels(seed: int, k: int, m: int) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, 120)
    ratings = np.where(rng.random((120, m)) < 0.6, truth[:, None], rng.integers(0, k, (120, m)))
    result = fleiss_kappa(ratings, n_resamples=10, rng=seed)
    # statsmodels 0.15: fleiss_kappa(aggregate_raters(ratings)[0], method="fleiss")
    expected = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(ratings)[0])
    assert result.estimate == pytest.approx(expected, abs=1e-12)
    assert (result.n_items, result.n_raters, result.n_ratings) == (120, m, 120 * m)


def test_fleiss_null_variance_against_the_formula_written_out() -> None:
    """Fleiss, Nee & Landis (1979), eq. (12), one category at a time in a plain loop."""
    rng = np.random.default_rng(5)
    ratings = rng.integers(0, 3, (80, 4))
    result = fleiss_kappa(ratings, n_resamples=10, rng=0)
    table = _counts(ratings)
    n, m = table.shape[0], 4
    p = [table[:, j].sum() / (n * m) for j in range(table.shape[1])]
    pq = sum(pj * (1 - pj) for pj in p)
    skew = sum(pj * (1 - pj) * ((1 - pj) - pj) for pj in p)
    var0 = 2.0 / (n * m * (m - 1)) * (pq**2 - skew) / pq**2
    assert result.null_se == pytest.approx(math.sqrt(var0), rel=1e-12)
    assert result.zstatistic == pytest.approx(result.estimate / math.sqrt(var0), rel=1e-12)
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(result.zstatistic)), rel=1e-12)


def test_fleiss_bootstrap_is_the_percentile_interval_of_resampled_items() -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(3)
    ratings = np.where(rng.random((60, 3)) < 0.5, 1, rng.integers(0, 3, (60, 3)))
    result = fleiss_kappa(ratings, n_resamples=300, rng=11, confidence_level=0.9)
    generator = np.random.default_rng(11)
    draws = []
    for _ in range(300):
        idx = generator.integers(0, 60, 60)
        counts = np.array([[np.sum(row == c) for c in range(3)] for row in ratings[idx]])
        draws.append(inter_rater.fleiss_kappa(counts))
    low, high = np.quantile(draws, [0.05, 0.95])
    assert result.ci.low == pytest.approx(low, abs=1e-12)
    assert result.ci.high == pytest.approx(high, abs=1e-12)
    assert result.ci.confidence_level == 0.9


def test_fleiss_null_test_is_calibrated() -> None:
    """Raters guessing independently: the z-test of kappa = 0 rejects about 5% of the time."""
    rng = np.random.default_rng(2024)
    rejections = sum(
        fleiss_kappa(rng.integers(0, 3, (80, 3)), n_resamples=1, rng=0).pvalue < 0.05
        for _ in range(400)
    )
    assert rejections == 15  # the seeded count
    assert stats.binom.cdf(rejections, 400, 0.05) > 0.001
    assert stats.binom.sf(rejections - 1, 400, 0.05) > 0.001


@pytest.mark.parametrize(
    ("metric", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_alpha_reproduces_krippendorff_2011(metric: Any, published: float) -> None:
    result = krippendorff_alpha(_units(), metric=metric, n_resamples=10, rng=0)
    assert round(result.estimate, 3) == published
    assert result.n_items == 11  # unit 12 has one value only
    assert result.n_ratings == 40
    assert any("fewer than two ratings" in note for note in result.notes)


def test_alpha_nominal_by_hand() -> None:
    """The paper's nominal computation: coincidences, then 1 - (n - 1) Do / De."""
    units = [[v for v in unit if v == v] for unit in _units()]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    o = np.zeros((len(values), len(values)))
    for u in units:
        for a in range(len(u)):
            for b in range(len(u)):
                if a != b:
                    o[values.index(u[a]), values.index(u[b])] += 1 / (len(u) - 1)
    nc, n = o.sum(axis=1), o.sum()
    observed = o.sum() - np.trace(o)
    expected = (nc.sum() ** 2 - np.sum(nc**2)) / (n - 1)
    alpha = 1 - observed / expected
    assert n == pytest.approx(40)
    result = krippendorff_alpha(_units(), n_resamples=10, rng=0)
    assert result.estimate == pytest.approx(alpha, abs=1e-14)


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", [0, 1])
def test_alpha_matches_the_krippendorff_package(metric: Any, seed: int) -> None:
    krippendorff = pytest.importorskip(
        "krippendorff", reason="the krippendorff package is not installed (test group)"
    )
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, 150).astype(float)
    ratings = np.clip(truth[:, None] + rng.integers(-1, 2, (150, 5)), 1, 5).astype(float)
    ratings[rng.random((150, 5)) < 0.2] = np.nan
    ours = krippendorff_alpha(ratings, metric=metric, n_resamples=10, rng=0)
    # krippendorff 0.9: alpha(reliability_data=coders x units, level_of_measurement=metric)
    theirs = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement=metric)
    assert ours.estimate == pytest.approx(theirs, abs=1e-10)


def test_alpha_bootstrap_oracle_and_coverage_flag() -> None:
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 3, 50)
    ratings = np.where(rng.random((50, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (50, 3)))
    result = krippendorff_alpha(ratings, n_resamples=200, rng=4)
    generator = np.random.default_rng(4)
    draws = [
        krippendorff_alpha(ratings[generator.integers(0, 50, 50)], n_resamples=1, rng=0).estimate
        for _ in range(200)
    ]
    low, high = np.quantile(draws, [0.025, 0.975])
    assert result.ci.low == pytest.approx(low, abs=1e-12)
    assert result.ci.high == pytest.approx(high, abs=1e-12)
    assert result.ci.contains(result.estimate)


def test_alpha_takes_string_labels_and_none() -> None:
    ratings = [["yes", "yes", None], ["no", "no", "no"], ["yes", "no", "yes"], [None, "no", "no"]]
    result = krippendorff_alpha(ratings, n_resamples=50, rng=0)
    numeric = [[{"yes": 1.0, "no": 0.0}.get(v, NAN) for v in row] for row in ratings]  # type: ignore[arg-type]
    assert result.estimate == pytest.approx(
        krippendorff_alpha(numeric, n_resamples=1, rng=0).estimate, abs=1e-14
    )
    assert result.n_ratings == 10


def test_no_variation_is_undefined_not_a_crash() -> None:
    alpha = krippendorff_alpha([[1, 1], [1, 1], [1, 1]], n_resamples=20, rng=0)
    kappa = fleiss_kappa([[1, 1], [1, 1], [1, 1]], n_resamples=20, rng=0)
    assert math.isnan(alpha.estimate)
    assert math.isnan(kappa.estimate)
    assert any("no variation" in note for note in alpha.notes)
    assert any("all 20 bootstrap resamples" in note for note in kappa.notes)
    assert "undefined" in str(kappa) or "nan" in str(kappa)


def test_errors_name_the_problem() -> None:
    with pytest.raises(DataError, match="different lengths"):
        fleiss_kappa([[1, 2], [1]])
    with pytest.raises(DataError, match="one rater per item"):
        krippendorff_alpha([[1], [2]])
    with pytest.raises(DataError, match=r"missing labels.*krippendorff_alpha"):
        fleiss_kappa([[1, None], [1, 2]])
    with pytest.raises(DataError, match=r"non-numeric values.*metric='nominal'"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], metric="interval")
    with pytest.raises(DataError, match="`metric` is 'ratio'"):
        krippendorff_alpha([[1, 2], [1, 1]], metric="ratio")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="no item of `ratings` has two ratings"):
        krippendorff_alpha([[1, None], [None, 2]])
    with pytest.raises(DataError, match="`n_resamples` is 0"):
        fleiss_kappa([[1, 2], [1, 1]], n_resamples=0)


def test_agreement_carries_fleiss_and_alpha() -> None:
    krippendorff = pytest.importorskip(
        "krippendorff", reason="the krippendorff package is not installed (test group)"
    )
    rng = np.random.default_rng(9)
    human = rng.integers(0, 3, 200)
    judge = np.where(rng.random(200) < 0.7, human, rng.integers(0, 3, 200))
    result = judge_agreement(judge, human, rng=1, n_resamples=200)
    assert result.fleiss_kappa is not None
    assert result.krippendorff_alpha is not None
    # Two raters: Fleiss' kappa is Scott's pi, from the pooled margins.
    pooled = np.bincount(np.concatenate([judge, human]), minlength=3) / 400
    pi = (np.mean(judge == human) - np.sum(pooled**2)) / (1 - np.sum(pooled**2))
    assert result.fleiss_kappa.estimate == pytest.approx(pi, abs=1e-12)
    both = np.vstack([human, judge]).astype(float)
    assert result.krippendorff_alpha.estimate == pytest.approx(
        krippendorff.alpha(reliability_data=both, level_of_measurement="nominal"), abs=1e-10
    )
    again = judge_agreement(judge, human, rng=1, n_resamples=200)
    assert again.krippendorff_alpha == result.krippendorff_alpha  # seeded
    text = str(result)
    assert "Fleiss' kappa" in text
    assert "Krippendorff's alpha" in text


def _schema(kind: str) -> dict[str, Any]:
    text = (resources.files("evalsig.report.schemas") / f"{kind}.schema.json").read_text()
    return dict(json.loads(text))


def _validator(jsonschema: Any, schema: dict[str, Any]) -> Any:
    """A validator that resolves the schemas' references to one another (provenance)."""
    from evalsig.report.schemas import registry

    return jsonschema.Draft202012Validator(schema, registry=registry())


def test_agreement_validates_against_its_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema("judge-agreement")
    for result in (
        judge_agreement([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1], rng=0, n_resamples=50),
        judge_agreement(["a", "b", "c", "a"], ["a", "b", "b", "a"], rng=0, n_resamples=50),
        judge_agreement([1, 1, 1], [1, 1, 1], rng=0, n_resamples=50),
    ):
        document = json.loads(json.dumps(result.to_dict(), allow_nan=False))
        _validator(jsonschema, schema).validate(document)
        assert set(document) == set(schema["properties"])
    broken = json.loads(json.dumps(judge_agreement([1, 0], [1, 0], rng=0).to_dict()))
    broken["fleiss_kappa"]["statistic"] = "cohen"
    with pytest.raises(jsonschema.ValidationError):
        _validator(jsonschema, schema).validate(broken)


@pytest.mark.parametrize("metric", ["ordinal", "interval"])
def test_alpha_is_unchanged_by_shifting_the_scale(metric: Any) -> None:
    rng = np.random.default_rng(12)
    truth = rng.integers(0, 7, 300)
    ratings = (truth[:, None] + rng.integers(-1, 2, (300, 4))).astype(float)
    ratings[rng.random((300, 4)) < 0.15] = np.nan
    base = krippendorff_alpha(ratings, metric=metric, n_resamples=1, rng=0).estimate
    shifted = krippendorff_alpha(ratings + 1e6, metric=metric, n_resamples=1, rng=0).estimate
    assert shifted == pytest.approx(base, abs=1e-9)
