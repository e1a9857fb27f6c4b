"""The judge's checks as results: rater_agreement against its parts, pilot() against numpy,
frames against to_dict(), the JSON schemas (with provenance), and the text, markdown and
HTML views (every user string escaped)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.data.provenance import file_record, provenance
from evalsig.errors import DataError
from evalsig.judge import (
    fleiss_kappa,
    judge_agreement,
    krippendorff_alpha,
    labels_for_half_width,
    labels_for_power,
    length_bias,
    pilot,
    position_bias,
    rater_agreement,
)
from evalsig.report.html import page

HOSTILE = "<script>alert(1)</script>|`x`"


def _ratings(missing: bool = False) -> list[list[Any]]:
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 4, 60)
    table: list[list[Any]] = [
        [int(t) if rng.random() < 0.8 else int(rng.integers(1, 4)) for _ in range(3)] for t in truth
    ]
    if missing:
        for row in table[::7]:
            row[1] = None
    return table


def _bias() -> tuple[Any, Any]:
    rng = np.random.default_rng(17)
    diff = rng.normal(0, 100, 300)
    judge = (rng.random(300) < 1 / (1 + np.exp(-diff / 80))).astype(int)
    human = np.where(rng.random(300) < 0.8, judge, 1 - judge).astype(float)
    human[::4] = np.nan
    first = ["A", "B"] * 20
    choice = ["A", "A", "B", "B", "A", "B", "A", "A"] * 5
    return (
        position_bias(choice, first, pair=np.repeat(np.arange(20), 2)),
        length_bias(judge, diff, human=human),
    )


# --- rater_agreement and pilot -------------------------------------------------------------------


def test_rater_agreement_is_its_two_coefficients_on_one_generator() -> None:
    table = _ratings()
    result = rater_agreement(table, raters=["a", "b", "c"], metric="ordinal", rng=3)
    generator = np.random.default_rng(3)
    alpha = krippendorff_alpha(table, metric="ordinal", rng=generator)
    kappa = fleiss_kappa(table, rng=generator)
    assert result.krippendorff_alpha == alpha
    assert result.fleiss_kappa == kappa
    assert result.raters == ("a", "b", "c")
    assert result.categories == ("1", "2", "3")
    assert result.n_items == 60
    assert result.notes == ()


def test_rater_agreement_with_missing_ratings_gives_alpha_only() -> None:
    result = rater_agreement(_ratings(missing=True), rng=0, n_resamples=200)
    assert result.fleiss_kappa is None
    assert result.raters == ("rater 1", "rater 2", "rater 3")
    assert result.notes[0].startswith("9 of 60 item(s) lack some rater's rating")
    assert result.to_dict()["nulls"] == {
        "fleiss_kappa": "some items lack ratings: Fleiss' kappa needs them all"
    }


def test_rater_agreement_errors_name_the_argument() -> None:
    with pytest.raises(DataError, match="`raters` names 2 raters but `ratings` has 3 columns"):
        rater_agreement(_ratings(), raters=["a", "b"])
    with pytest.raises(DataError, match="`raters` has repeated names"):
        rater_agreement(_ratings(), raters=["a", "a", "b"])


def test_pilot_matches_numpy() -> None:
    rng = np.random.default_rng(2)
    judge = rng.random(50)
    human = (judge + rng.normal(0, 0.3, 50) > 0.5).astype(float)
    measured = pilot(judge, human)
    assert measured.n == 50
    assert measured.correlation == pytest.approx(np.corrcoef(judge, human)[0, 1], abs=1e-12)
    assert measured.human_sd == pytest.approx(np.std(human, ddof=1), abs=1e-12)
    assert measured.judge_sd == pytest.approx(np.std(judge, ddof=1), abs=1e-12)


@pytest.mark.parametrize(
    ("judge", "human", "message"),
    [
        ([1, 0, 1], [1, 0], "`judge` has 3 pilot scores but `human` has 2"),
        ([1, 0], [1, 0], "the pilot has 2 item"),
        ([1, 1, 1, 1], [1, 0, 1, 0], "the pilot's judge scores are all 1"),
        ([1, 0, float("nan")], [1, 0, 1], "`judge` has 1 missing or infinite value"),
    ],
)
def test_pilot_errors(judge: list[float], human: list[float], message: str) -> None:
    with pytest.raises(DataError, match=message):
        pilot(judge, human)


def test_plans_say_what_they_aim_at() -> None:
    wide = labels_for_half_width(0.03, n_unlabeled=5000, correlation=0.8, human_sd=0.5)
    assert wide.target == "95% interval half-width 0.03"
    test = labels_for_power(
        0.05, n_unlabeled=5000, correlation=0.8, human_sd=0.5, alternative="greater"
    )
    assert test.target == "power 0.8 to detect 0.05 (greater, alpha 0.05)"
    assert "440 human labels; 1,068 without the judge" in str(wide)


# --- frames ----------------------------------------------------------------------------------


def _same(value: float, expected: float | None) -> bool:
    if expected is None:
        return math.isnan(value)
    return bool(value == expected)


def test_frames_match_to_dict() -> None:
    pd = pytest.importorskip("pandas")
    result = rater_agreement(_ratings(), rng=0, n_resamples=200)
    frame, document = result.to_frame(), result.to_dict()
    assert list(frame["statistic"]) == ["fleiss-kappa", "krippendorff-alpha"]
    for i, key in enumerate(("fleiss_kappa", "krippendorff_alpha")):
        part = document[key]
        assert frame["estimate"].iloc[i] == part["estimate"]
        assert (frame["ci_low"].iloc[i], frame["ci_high"].iloc[i]) == (
            part["ci"]["low"],
            part["ci"]["high"],
        )
        assert _same(frame["pvalue"].iloc[i], part["pvalue"])
        assert frame["n_ratings"].iloc[i] == part["n_ratings"]
    assert frame["n_items"].dtype == np.int64
    single = result.krippendorff_alpha.to_frame()
    assert list(single.columns) == list(frame.columns)
    assert single.iloc[0].equals(frame.iloc[1])

    positions, lengths = _bias()
    frame, document = positions.to_frame(), positions.to_dict()
    assert list(frame["quantity"]) == ["position bias", "consistency"]
    assert frame["estimate"].iloc[0] == document["estimate"]
    assert frame["pvalue"].iloc[0] == document["pvalue"]
    assert math.isnan(frame["pvalue"].iloc[1])
    assert list(frame["successes"]) == [
        document["first_preferred"],
        document["consistency"]["successes"],
    ]
    assert list(frame["n"]) == [document["n"], document["consistency"]["n"]]

    frame, document = lengths.to_frame(), lengths.to_dict()
    assert list(frame["rater"]) == ["judge", "human", "judge - human"]
    for i, key in enumerate(("judge", "human")):
        assert frame["n"].iloc[i] == document[key]["n"]
        assert frame["correlation"].iloc[i] == document[key]["correlation"]
        assert frame["slope"].iloc[i] == document[key]["slope"]["estimate"]
        assert frame["slope_se"].iloc[i] == document[key]["slope"]["se"]
        assert frame["pvalue"].iloc[i] == document[key]["pvalue"]
    assert frame["slope"].iloc[2] == document["slope_difference"]["estimate"]
    assert frame["slope_ci_low"].iloc[2] == document["slope_difference"]["ci"]["low"]
    assert frame["pvalue"].iloc[2] == document["difference_pvalue"]
    assert math.isnan(frame["correlation"].iloc[2])

    plans = [
        labels_for_half_width(0.03, n_unlabeled=5000, correlation=0.8, human_sd=0.5),
        labels_for_half_width(0.01, n_unlabeled=100, correlation=0.9, human_sd=0.5, tuned=False),
    ]
    for plan in plans:
        frame, document = plan.to_frame(), plan.to_dict()
        assert len(frame) == 1
        for column, key in (("n_labels", "n_labels"), ("lambda", "lambda")):
            cell = frame[column].iloc[0]
            assert (
                (cell is pd.NA or math.isnan(cell))
                if document[key] is None
                else (cell == document[key])
            )
        assert frame["n_classical"].iloc[0] == document["n_classical"]
        assert frame.attrs["target"] == document["target"]
    assert str(plans[1].to_frame()["n_labels"].dtype) == "Int64"

    agreement = judge_agreement([1, 1, 1], [1, 1, 1], n_resamples=20)
    frame = agreement.to_frame()
    assert list(frame["measure"]) == [
        "raw agreement",
        "cohen kappa",
        "sensitivity",
        "fleiss kappa",
        "krippendorff alpha",
    ]
    assert math.isnan(frame["estimate"].iloc[1])  # kappa undefined: null in the JSON
    assert frame["estimate"].iloc[0] == 1.0


# --- schemas -----------------------------------------------------------------------------------


def _validate(kind: str, document: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from evalsig.report.schemas import registry

    text = (resources.files("evalsig.report.schemas") / f"{kind}.schema.json").read_text()
    jsonschema.Draft202012Validator(json.loads(text), registry=registry()).validate(
        json.loads(json.dumps(document, allow_nan=False))
    )


def test_every_check_validates_with_and_without_provenance(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    stamp = provenance(files={"data": file_record(data)}, seed=3)
    positions, lengths = _bias()
    results = [
        ("rater-agreement", rater_agreement(_ratings(), rng=0, n_resamples=100)),
        ("rater-agreement", rater_agreement(_ratings(True), metric="interval", n_resamples=100)),
        ("judge-agreement", judge_agreement([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1])),
        ("judge-position-bias", positions),
        ("judge-length-bias", lengths),
        ("judge-plan", labels_for_half_width(0.03, n_unlabeled=500, correlation=0.8, human_sd=0.5)),
    ]
    for kind, result in results:
        for stamped in (result, replace(result, provenance=stamp)):
            document = stamped.to_dict()
            assert document["kind"] == kind
            _validate(kind, document)
    document = results[0][1].to_dict()
    document["raters"] = ["only one"]
    jsonschema = pytest.importorskip("jsonschema")
    with pytest.raises(jsonschema.ValidationError):
        _validate("rater-agreement", document)


# --- views -------------------------------------------------------------------------------------


def test_views_escape_user_strings() -> None:
    agreement = judge_agreement(
        [HOSTILE, "b", HOSTILE, "b", "b"], [HOSTILE, "b", "b", "b", HOSTILE], n_resamples=50
    )
    raters = rater_agreement(
        [[HOSTILE, "b", "b"], ["b", "b", "b"], [HOSTILE, HOSTILE, "b"]],
        raters=[HOSTILE, "x", "y"],
        n_resamples=50,
    )
    for result in (agreement, raters):
        assert HOSTILE in str(result)
        markdown = result._repr_markdown_()
        assert "<script>" not in markdown
        assert "\\|" in markdown
        for html in (result._repr_html_(), page([result.to_dict()])):
            assert "<script>alert" not in html
            assert "&lt;script&gt;" in html


def test_every_kind_has_an_html_section() -> None:
    positions, lengths = _bias()
    results = [
        judge_agreement([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1], n_resamples=50),
        rater_agreement(_ratings(), n_resamples=50),
        positions,
        lengths,
        labels_for_half_width(0.03, n_unlabeled=500, correlation=0.8, human_sd=0.5),
    ]
    html = page([r.to_dict() for r in results])
    assert "no dedicated view" not in html
    assert html.count("<svg") == 4  # a forest plot for all but the plan
    for heading in (
        "Judge vs human labels, positive = 1",
        "Agreement among 3 raters",
        "Judge position bias",
        "Judge length bias",
        "Human labels for a judge correction",
    ):
        assert heading in html
    assert "judge - humans" in html
    assert "Consistent in both orders" in html
