"""Battle-log readers: FastChat / Chatbot Arena, arena-hard-auto, AlpacaEval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evalsig.arena.readers import read_alpaca_eval, read_arena_hard, read_battles, read_fastchat
from evalsig.errors import FormatError


def _jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


FASTCHAT = [
    {"model_a": "x", "model_b": "y", "winner": "model_a"},
    {"model_a": "y", "model_b": "x", "winner": "tie (bothbad)"},
    {"model_a": "x", "model_b": "z", "winner": "model_b"},
    {"model_a": "z", "model_b": "y", "winner": "tie"},
]


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_fastchat_outcomes(tmp_path, layout):
    path = tmp_path / f"battles.{layout}"
    if layout == "json":
        path.write_text(json.dumps(FASTCHAT), encoding="utf-8")
    else:
        _jsonl(path, FASTCHAT)
    data = read_battles(path)
    names = np.array(data.models)
    assert names[data.model_a].tolist() == ["x", "y", "x", "z"]
    assert names[data.model_b].tolist() == ["y", "x", "z", "y"]
    assert data.outcome.tolist() == [1.0, 0.5, 0.0, 0.5]
    assert data.origin is not None
    assert data.origin.format == "fastchat"


def test_fastchat_bad_winner_names_file_line_field_and_value(tmp_path):
    path = _jsonl(tmp_path / "b.jsonl", [FASTCHAT[0], {**FASTCHAT[1], "winner": "both"}])
    with pytest.raises(FormatError, match=r"b\.jsonl, line 2: field 'winner' is 'both'"):
        read_fastchat(path)


def test_fastchat_missing_model_and_bad_json(tmp_path):
    path = _jsonl(tmp_path / "b.jsonl", [{"model_b": "y", "winner": "tie"}])
    with pytest.raises(FormatError, match=r"line 1: field 'model_a' is missing"):
        read_fastchat(path)
    path.write_text('{"model_a": "x",\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"line 1: not valid JSON"):
        read_fastchat(path)


def test_fastchat_style_length_feature(tmp_path):
    records = [
        {
            **FASTCHAT[0],
            "conv_metadata": {"sum_assistant_a_tokens": 300, "sum_assistant_b_tokens": 100},
        },
        {
            **FASTCHAT[1],
            "conv_metadata": {"sum_assistant_a_tokens": 50, "sum_assistant_b_tokens": 150},
        },
    ]
    data = read_fastchat(_jsonl(tmp_path / "s.jsonl", records), style=True)
    assert data.feature_names == ("length",)
    np.testing.assert_allclose(data.features[:, 0], [0.5, -0.5])
    with pytest.raises(FormatError, match=r"line 1: field 'conv_metadata' is None"):
        read_fastchat(_jsonl(tmp_path / "t.jsonl", [FASTCHAT[0]]), style=True)


def _judgment(qid: str, model: str, first: str | None, second: str | None) -> dict[str, object]:
    return {"question_id": qid, "model": model, "judge": "gpt-4-1106-preview",
            "games": [{"score": first, "judgment": "..."}, {"score": second}]}  # fmt: skip


def test_arena_hard_games_swap_weights_and_clusters(tmp_path):
    folder = tmp_path / "model_judgment" / "judge"
    folder.mkdir(parents=True)
    _jsonl(folder / "m1.jsonl", [_judgment("q1", "m1", "A>>B", "A>B"),
                                 _judgment("q2", "m1", "A=B", None)])  # fmt: skip
    _jsonl(folder / "m2.jsonl", [_judgment("q1", "m2", "B>A", "B>>A")])
    data = read_arena_hard(folder, baseline="gpt-4-0314")
    names = np.array(data.models)
    assert names[data.model_a].tolist() == ["gpt-4-0314"] * 5
    assert names[data.model_b].tolist() == ["m1", "m1", "m1", "m2", "m2"]
    # game 1: A is the baseline; game 2: A is the model
    assert data.outcome.tolist() == [1.0, 0.0, 0.5, 0.0, 1.0]
    assert data.weight.tolist() == [3.0, 1.0, 1.0, 1.0, 3.0]
    assert data.n_clusters == 2
    assert any("1 games without a verdict" in n for n in data.notes)
    assert read_battles(folder).outcome.tolist() == data.outcome.tolist()  # detected


def test_arena_hard_bad_score(tmp_path):
    path = _jsonl(tmp_path / "m.jsonl", [_judgment("q1", "m", "A>B", "A>>>B")])
    with pytest.raises(
        FormatError, match=r"m\.jsonl, line 1: field 'games\[1\]\.score' is 'A>>>B'"
    ):
        read_arena_hard(path)


def test_alpaca_eval_preferences(tmp_path):
    records = [
        {"instruction": "i1", "generator_1": "gpt4_turbo", "generator_2": "mine", "preference": 2},
        {
            "instruction": "i2",
            "generator_1": "gpt4_turbo",
            "generator_2": "mine",
            "preference": 1.25,
        },
        {"instruction": "i3", "generator_1": "gpt4_turbo", "generator_2": "mine", "preference": 0},
        {
            "instruction": "i4",
            "generator_1": "gpt4_turbo",
            "generator_2": "mine",
            "preference": None,
        },
    ]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    data = read_alpaca_eval(path)
    names = np.array(data.models)
    assert names[data.model_a].tolist() == ["mine"] * 3
    np.testing.assert_allclose(data.outcome, [1.0, 0.25, 0.5])
    assert data.notes == ("1 annotations without a preference were left out.",)
    bad = [{**records[0], "preference": 3}]
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(FormatError, match=r"record 0: field 'preference' is 3"):
        read_alpaca_eval(path)


def test_unknown_format_is_named(tmp_path):
    path = _jsonl(tmp_path / "x.jsonl", [{"a": 1}])
    with pytest.raises(FormatError, match="cannot tell the battle format"):
        read_battles(path)


def test_fastchat_cluster_field(tmp_path):
    records = [
        {**r, "question_id": q} for r, q in zip(FASTCHAT, ["p1", "p1", "p2", 7], strict=True)
    ]
    data = read_battles(_jsonl(tmp_path / "c.jsonl", records), cluster="question_id")
    assert data.cluster.tolist() == [1, 1, 2, 0]  # codes of the sorted labels "7", "p1", "p2"
    with pytest.raises(FormatError, match=r"line 1: field 'prompt' is missing"):
        read_fastchat(tmp_path / "c.jsonl", cluster="prompt")
