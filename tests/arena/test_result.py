"""ArenaResult: strict JSON matching its schema, escaped renderings, frames, and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from evalsig.arena import battles, bradley_terry, elo
from evalsig.errors import DataError

SCHEMA = Path(__file__).parents[2] / "src/evalsig/report/schemas/arena.schema.json"
HOSTILE = "<script>alert(1)</script> | `x`"
STRENGTHS = np.array([0.6, 0.1, -0.7])


def _data(simulate, **kwargs):
    a, b, y = simulate(STRENGTHS, 900, seed=21, tie_share=0.15)
    names = np.array([HOSTILE, "beta", "gamma"], dtype=object)
    return battles(names[a], names[b], y, **kwargs)


def _validate(document):
    Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(document)
    json.dumps(document, allow_nan=False)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ties": "davidson", "method": "bootstrap", "n_resamples": 100},
        {"anchor": "beta", "scale": "logit"},
        {"covariates": {"length": np.linspace(-1, 1, 900)}},
    ],
)
def test_to_dict_matches_the_schema(simulate, options):
    result = bradley_terry(_data(simulate), rng=1, **options)
    document = result.to_dict()
    _validate(document)
    assert document["kind"] == "arena"
    assert [r["model"] for r in document["rows"]] == list(result.models)


def test_clusters_and_online_elo_in_the_document(simulate):
    data = _data(simulate, cluster=np.arange(900) % 30)
    result = bradley_terry(data, rng=2).with_online_elo(elo(data, k=4))
    document = result.to_dict()
    _validate(document)
    assert document["interval"] == "cluster-robust sandwich"
    assert document["n_clusters"] == 30
    assert set(document["online_elo"]["ratings"]) == set(result.models)
    assert "order" in document["online_elo"]["note"]


def test_renderings_escape_model_names(simulate):
    result = bradley_terry(_data(simulate), rng=3)
    html = result._repr_html_()
    assert "<script>alert" not in html
    assert "&lt;script&gt;" in html
    markdown = result._repr_markdown_()
    assert "<script>" not in markdown
    assert "\\|" in markdown
    assert HOSTILE in str(result)
    assert "<script>" not in result.summary().as_html()


def test_to_frame_has_the_rows_of_to_dict(simulate):
    pytest.importorskip("pandas")
    result = bradley_terry(_data(simulate), rng=4)
    frame = result.to_frame()
    rows = result.to_dict()["rows"]
    assert frame["model"].tolist() == [r["model"] for r in rows]
    np.testing.assert_array_equal(frame["score"], [r["score"] for r in rows])
    np.testing.assert_array_equal(frame["ci_low"], [r["ci"]["low"] for r in rows])
    assert frame["rank_high"].dtype == np.int64


def test_ranks_separate_a_clear_leader(simulate):
    a, b, y = simulate(np.array([2.0, 0.0, -0.05]), 3000, seed=5)
    names = np.array(["top", "mid", "low"], dtype=object)
    result = bradley_terry(battles(names[a], names[b], y), rng=0)
    assert result.models[0] == "top"
    assert result["top"]["rank_low"] == result["top"]["rank_high"] == 1
    assert result["mid"]["group"] == result["low"]["group"] == 2
    assert (result["mid"]["rank_low"], result["mid"]["rank_high"]) == (2, 3)


def test_unestimable_data_are_explained():
    with pytest.raises(DataError, match="never met"):
        bradley_terry(battles(["a", "c"], ["b", "d"], [1, 0.5]))
    with pytest.raises(DataError, match="never lost to the others"):
        bradley_terry(battles(["a", "a", "b", "c"], ["b", "c", "c", "b"], [1, 1, 1, 0.0]))
    data = battles(["a", "b", "a"], ["b", "a", "b"], [1, 1, 0.5])
    with pytest.raises(DataError, match="`anchor` is 'zeta'"):
        bradley_terry(data, anchor="zeta")
    with pytest.raises(DataError, match="there are no ties"):
        bradley_terry(battles(["a", "b"], ["b", "a"], [1, 1]), ties="davidson")
    with pytest.raises(DataError, match=r"`covariates\['len'\]` has shape \(2,\)"):
        bradley_terry(data, covariates={"len": [1.0, 2.0]})


def test_bad_battles_are_named():
    with pytest.raises(DataError, match=r"battle 1 has 2\.0"):
        battles(["a", "b"], ["b", "a"], [1, 2])
    with pytest.raises(DataError, match="pits 'a' against itself"):
        battles(["a"], ["a"], [1])
    with pytest.raises(DataError, match="`weights` must be positive"):
        battles(["a"], ["b"], [1], weights=[0])
    with pytest.raises(DataError, match="`cluster` is missing for battles 0"):
        battles(["a"], ["b"], [1], cluster=[None])


def test_a_saved_document_renders_in_a_report_page(simulate):
    from evalsig.report.html import page

    document = json.loads(json.dumps(bradley_terry(_data(simulate), rng=6).to_dict()))
    html = page([document], stamp=False)
    assert "Bradley-Terry scores (Elo scale) of 3 models" in html
    assert "<svg" in html
    assert "<script>alert" not in html


def test_elo_rejects_a_bad_k_factor(simulate):
    with pytest.raises(DataError, match=r"`k` must be a number in \(0, 100\]; got -1"):
        elo(_data(simulate), k=-1)
