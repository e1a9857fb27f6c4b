"""JudgeResult's renderings (text, markdown, HTML, LaTeX, frame) and its JSON schema."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from evalsig.judge import JudgeResult, ppi_mean, ppi_paired_difference, rogan_gladen

HOSTILE = "<script>alert(1)</script>|`x`"


def _results() -> list[JudgeResult]:
    rng = np.random.default_rng(1)
    j = (rng.random(600) < 0.6).astype(float)
    h = np.where(rng.random(600) < 0.85, j, 1 - j)
    return [
        ppi_mean(j[100:], j[:100], h[:100]),
        ppi_mean(
            j[100:],
            j[:100],
            h[:100],
            tuned=False,
            cluster=(np.arange(500) % 25, np.arange(100) % 25),
        ),
        ppi_paired_difference(
            (j[100:], j[100:][::-1]),
            (j[:100], j[:100][::-1]),
            (h[:100], h[:100][::-1]),
            alternative="greater",
            baseline=HOSTILE,
            candidate="cand",
        ),
        rogan_gladen(0.02, 0.9, 0.95, 400, n_sensitivity=50, n_specificity=60),
    ]


def _judge_schema() -> dict[str, Any]:
    text = (resources.files("evalsig.report.schemas") / "judge.schema.json").read_text()
    return dict(json.loads(text))


@pytest.mark.parametrize("index", range(4))
def test_validates_against_schema(index: int) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from referencing import Resource

    from evalsig.report.schemas import registry

    schema = _judge_schema()
    store = registry().with_resource(schema["$id"], Resource.from_contents(schema))
    document = json.loads(json.dumps(_results()[index].to_dict(), allow_nan=False))
    jsonschema.Draft202012Validator(schema, registry=store).validate(document)


def test_schema_rejects_a_wrong_document() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from referencing import Resource

    from evalsig.report.schemas import registry

    schema = _judge_schema()
    store = registry().with_resource(schema["$id"], Resource.from_contents(schema))
    document = _results()[0].to_dict()
    document["method"] = "bootstrap"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema, registry=store).validate(document)


def test_text_shows_the_three_estimates() -> None:
    result = _results()[0]
    text = str(result)
    assert f"{result.estimate:.4g}" in text
    assert f"Judge only   {result.naive.estimate:.4g}" in text
    assert result.classical is not None
    assert f"{result.classical.estimate:.4g}" in text
    assert "lambda" in text
    assert "PPI++" in text


def test_paired_names_and_pvalue() -> None:
    text = str(_results()[2])
    assert f"cand - {HOSTILE}" in text
    assert "(greater)" in text
    assert "lower bound" in text


def test_html_escapes_and_plots() -> None:
    html = _results()[2]._repr_html_()
    assert "<script>alert" not in html
    assert "&lt;script&gt;" in html
    assert html.count("<svg") == 1
    assert "judge only" in html
    assert "humans only" in html


def test_markdown_and_latex_escape() -> None:
    result = _results()[2]
    markdown = result._repr_markdown_()
    assert "<script>" not in markdown
    assert "\\|" in markdown
    latex = result.summary().as_latex()
    assert "\\textless{}script\\textgreater{}" in latex


def test_frame_rows() -> None:
    pytest.importorskip("pandas")
    result = _results()[0]
    frame = result.to_frame()
    assert list(frame["estimator"]) == ["judge only", "humans only", "ppi++"]
    assert frame["estimate"].iloc[2] == result.estimate
    assert frame["ci_low"].iloc[0] == result.naive.ci.low
    rogan = _results()[3].to_frame()
    assert list(rogan["estimator"]) == ["judge only", "rogan-gladen"]


def test_confidence_interval_at_another_level() -> None:
    result = _results()[0]
    assert result.confidence_interval(0.95) == result.ci
    wider = result.confidence_interval(0.99)
    assert wider.low < result.ci.low
    assert wider.high > result.ci.high
    rogan = _results()[3]
    assert rogan.confidence_interval(0.99).low == 0.0  # clipped at the natural limit


def _validate(kind: str, document: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from evalsig.report.schemas import registry

    text = (resources.files("evalsig.report.schemas") / f"{kind}.schema.json").read_text()
    jsonschema.Draft202012Validator(json.loads(text), registry=registry()).validate(
        json.loads(json.dumps(document, allow_nan=False))
    )


def test_agreement_and_plan_schemas() -> None:
    from evalsig.judge import judge_agreement, labels_for_half_width

    results = [
        judge_agreement([1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1]),
        judge_agreement(["a", "b", "c", "a"], ["a", "b", "b", "a"]),
        judge_agreement([1, 1, 1], [1, 1, 1]),  # kappa undefined: nulls
    ]
    for result in results:
        _validate("judge-agreement", result.to_dict())
    plans = [
        labels_for_half_width(0.03, n_unlabeled=5000, correlation=0.8, human_sd=0.5),
        labels_for_half_width(
            0.01, n_unlabeled=100, correlation=0.9, human_sd=0.5, tuned=False
        ),  # no finite number: n_labels null
    ]
    for plan in plans:
        _validate("judge-plan", plan.to_dict())
    document = plans[0].to_dict()
    document["method"] = "rogan-gladen"
    jsonschema = pytest.importorskip("jsonschema")
    with pytest.raises(jsonschema.ValidationError, match="rogan-gladen"):
        _validate("judge-plan", document)
