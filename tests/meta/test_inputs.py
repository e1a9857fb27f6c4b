"""Input validation (errors name the argument, row and value) and the k = 1, 2 edge cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.meta import (
    egger_test,
    estimate_tau2,
    meta_regression,
    random_effects,
    rank_test,
    read_reports,
    trim_and_fill,
)

# --- arrays --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("estimates", "variances", "match"),
    [
        ([1.0, 2.0], [0.1], "2 values but `variances` has 1"),
        ([1.0, math.nan], [0.1, 0.2], r"`estimates` has 1 non-finite values \(positions 1"),
        ([1.0, 2.0], [0.1, 0.0], r"`variances` must be finite and positive.*positions 1: 0.0"),
        ([1.0, 2.0], [0.1, -1.0], "must be finite and positive"),
        ([], [], "needs at least 1"),
        ([[1.0, 2.0]], [[0.1, 0.2]], "one-dimensional"),
        (["a", "b"], [0.1, 0.2], "sequence of numbers"),
    ],
)
def test_bad_arrays(estimates: object, variances: object, match: str) -> None:
    with pytest.raises(DataError, match=match):
        random_effects(estimates, variances)


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("method", "REML", "`method` must be one of"),
        ("test", "knha", "`test` must be one of"),
        ("confidence_level", 95, "`confidence_level`"),
        ("i2_basis", "h", "`i2_basis`"),
        ("tol", 0.0, "`tol`"),
        ("max_iter", 0, "`max_iter`"),
    ],
)
def test_bad_options(option: str, value: object, match: str) -> None:
    with pytest.raises(DataError, match=match):
        random_effects([1.0, 2.0, 3.0], [0.1, 0.2, 0.3], **{option: value})  # type: ignore[arg-type]


def test_inputs_are_not_modified() -> None:
    y, v = np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3])
    res = random_effects(y, v)
    y[0] = 99.0
    assert res.estimates[0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        res.estimates[0] = 5.0


# --- k = 1 and k = 2 -----------------------------------------------------------------------


def test_single_report() -> None:
    res = random_effects([71.3], [1.44])
    assert res.mu == 71.3
    assert res.se == pytest.approx(1.2)
    assert math.isnan(res.tau2)
    assert math.isnan(res.i2)
    assert math.isnan(res.prediction_interval.low)
    assert any("k = 1" in n for n in res.notes)
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["tau2"] is None
    assert "k = 1" in d["nulls"]["tau2"]
    assert d["ci"]["low"] == pytest.approx(71.3 - 1.959963984540054 * 1.2)
    hk = random_effects([71.3], [1.44], test="hksj")
    assert math.isnan(hk.se)
    assert hk.to_dict()["ci"]["low"] is None
    assert "HKSJ" in hk.to_dict()["nulls"]["ci.low"]
    with pytest.raises(DataError, match="at least 2 reports"):
        estimate_tau2([71.3], [1.44])


def test_two_reports() -> None:
    res = random_effects([70.0, 74.0], [1.0, 1.0], method="dl")
    # DL with k = 2: Q = 8, tau^2 = (8 - 1) / (2 - 1) = 7
    assert res.q == pytest.approx(8.0)
    assert res.tau2 == pytest.approx(7.0)
    assert any("k = 2" in n for n in res.notes)
    hk = random_effects([70.0, 74.0], [1.0, 1.0], method="dl", test="hksj")
    assert hk.df == 1
    half = stats.t.isf(0.025, 1) * hk.se
    assert tuple(hk.ci) == pytest.approx((72.0 - half, 72.0 + half))
    assert any("t(1)" in n for n in hk.notes)
    with pytest.raises(DataError, match="k = 2"):
        rank_test([70.0, 74.0], [1.0, 1.0])
    with pytest.raises(DataError, match="more reports than coefficients"):
        egger_test([70.0, 74.0], [1.0, 2.0])
    with pytest.raises(DataError, match="pass side="):
        trim_and_fill([70.0, 74.0], [1.0, 2.0])


def test_equal_reports_zero_hksj_scale() -> None:
    res = random_effects([70.0, 70.0, 70.0], [1.0, 2.0, 1.5], test="hksj")
    assert res.hksj_scale == 0.0
    assert res.se == 0.0
    assert any("HKSJ scale is 0" in n for n in res.notes)
    assert any("null set" in n or "single point 0" in n for n in res.notes)
    assert tuple(res.tau2_ci) == (0.0, 0.0)


def test_meta_regression_needs_a_varying_moderator() -> None:
    with pytest.raises(DataError, match="constant"):
        meta_regression([1.0, 2.0, 3.0, 4.0], [0.1] * 4, [1, 1, 1, 1])
    with pytest.raises(DataError, match="more reports than coefficients"):
        meta_regression([1.0, 2.0], [0.1] * 2, [0, 1])


# --- report tables -------------------------------------------------------------------------


def _rows(**change: object) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = [
        {"model": "m", "benchmark": "b", "source": "p1", "score": 81.0, "se": 1.0},
        {"model": "m", "benchmark": "b", "source": "p2", "score": 79.0, "n": 500},
        {"model": "m", "benchmark": "b", "source": "p3", "score": 80.0, "se": 0.8},
    ]
    rows[1].update(change)
    return rows


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"score": None}, r"row 2 \(model 'm', source 'p2'\): `score` is missing"),
        ({"score": "eighty"}, "row 2.*`score` is 'eighty', not a number"),
        ({"se": 0.0}, r"row 2.*`se` is 0.0; a standard error must be > 0"),
        ({"se": -1.0}, "row 2.*must be > 0"),
        ({"n": 0}, r"row 2.*`n` is 0; the number of items must be a whole number >= 1"),
        ({"n": 12.5}, "row 2.*whole number"),
        ({"n": None}, "row 2.*neither `se` nor `n`"),
        ({"score": 104.0}, r"row 2.*score 104 is outside \[0, 100\]"),
        ({"model": ""}, "row 2: `model` is empty"),
        ({"self_reported": "maybe"}, "row 2.*`self_reported` is 'maybe'"),
        ({"se": 60.0}, "row 2.*se 60 exceeds 50"),
    ],
)
def test_bad_rows_name_the_row(change: dict[str, object], match: str) -> None:
    with pytest.raises(DataError, match=match):
        read_reports(_rows(**change))


def test_proportion_outside_unit_interval() -> None:
    rows = [
        {"model": "m", "benchmark": "b", "source": "p1", "score": 0.8, "se": 0.01},
        {"model": "m", "benchmark": "b", "source": "p2", "score": 1.2, "se": 0.01},
    ]
    with pytest.raises(DataError, match=r"row 2 .*score 1.2 is outside \[0, 1\]"):
        read_reports(rows, scale="proportion")


def test_scale_detection_and_refusal_of_mixed_scales() -> None:
    table = read_reports(
        [{"model": "m", "benchmark": "b", "source": "p", "score": 0.8, "n": 100}] * 2
    )
    assert table.scale == "proportion"
    assert table.se[0] == pytest.approx(math.sqrt(0.8 * 0.2 / 100))
    mixed_cell = [
        {"model": "m", "benchmark": "b", "source": "p1", "score": 0.81, "n": 100},
        {"model": "m", "benchmark": "b", "source": "p2", "score": 79.0, "n": 100},
    ]
    with pytest.raises(DataError, match="scores on both scales"):
        read_reports(mixed_cell)
    mixed_benchmark = [
        {"model": "m", "benchmark": "b", "source": "p1", "score": 81.0, "n": 100},
        {"model": "m", "benchmark": "c", "source": "p2", "score": 0.79, "n": 100},
    ]
    with pytest.raises(DataError, match="benchmark 'c' is <= 1"):
        read_reports(mixed_benchmark)
    # stating the scale accepts it as points
    table = read_reports(mixed_benchmark, scale="points")
    assert table.scale == "points"
    assert not table.scale_detected
    assert table.se[1] == pytest.approx(100 * math.sqrt(0.0079 * 0.9921 / 100))


def test_binomial_se_of_zero_is_an_error() -> None:
    with pytest.raises(DataError, match=r"row 2 .*binomial standard error is 0"):
        read_reports(_rows(score=100.0))


def test_missing_columns() -> None:
    with pytest.raises(DataError, match=r"missing column.*'source'"):
        read_reports([{"model": "m", "benchmark": "b", "score": 1.0, "se": 0.1}])
    with pytest.raises(DataError, match="no standard-error column"):
        read_reports([{"model": "m", "benchmark": "b", "source": "s", "score": 1.0}])


def test_file_formats_agree(tmp_path: Path) -> None:
    rows = _rows(self_reported=True, harness="lm-eval")
    for r in rows:
        r.setdefault("self_reported", False)
    csv_path = tmp_path / "r.csv"
    header = ["model", "benchmark", "source", "score", "se", "n", "self_reported", "harness"]
    lines = [",".join(header)]
    for r in rows:
        lines.append(",".join("" if r.get(h) is None else str(r.get(h)) for h in header))
    csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(rows)
    parquet = tmp_path / "r.parquet"
    frame.to_parquet(parquet)
    tables = [read_reports(x) for x in (rows, csv_path, jsonl, frame, parquet)]
    for t in tables:
        assert t.n_imputed == 1
        assert t.self_reported == (False, True, False)
        assert t.settings["harness"] == (None, "lm-eval", None)
        np.testing.assert_allclose(t.se, tables[0].se, rtol=1e-15)
        np.testing.assert_array_equal(t.scores, tables[0].scores)


def test_unknown_file_type(tmp_path: Path) -> None:
    path = tmp_path / "r.xlsx"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(DataError, match="unknown file type"):
        read_reports(path)
