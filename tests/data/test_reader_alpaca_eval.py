"""AlpacaEval annotations of both versions: draws, detection past the first 4 KB, layouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalsig.data import describe, load
from evalsig.errors import FormatError

V1_PREFERENCES = [2, 1, 0, 2, 1, 1, 0, 2, 1.5, 1]


def _annotations(path: Path, preferences: list[float], *, output: str = "x") -> Path:
    """alpaca_eval's ``results/<model>/<annotator>/annotations.json`` layout (v1 fields)."""
    records = [
        {
            "instruction": f"instruction {k}",
            "output_1": "baseline answer",
            "generator_1": "text_davinci_003",
            "dataset": ["helpful_base", "koala", "oasst"][k % 3],
            "output_2": output,
            "generator_2": "my-model",
            "annotator": "alpaca_eval_gpt4",
            "price_per_example": 0.0136,
            "time_per_example": 1.45,
            "preference": p,
        }
        for k, p in enumerate(preferences)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path


def test_alpaca_eval_1_draws_are_half_wins(tmp_path: Path) -> None:
    """alpaca_eval's get_winrate maps 0 to 1.5: (3 wins + 3 draws / 2) / 10 = 45%."""
    path = _annotations(tmp_path / "annotations.json", V1_PREFERENCES)
    table = load(path)
    assert table.n_items == 10
    assert table.mean == pytest.approx(0.45)
    described = describe(path)
    assert described.layouts == ("alpaca-eval AlpacaEval 1 (preference 1 or 2; 0 or 1.5 a draw)",)
    assert any("2 draw(s) coded as preference 0" in note for note in described.notes)


def test_weighted_preferences_are_alpaca_eval_2(tmp_path: Path) -> None:
    path = _annotations(tmp_path / "annotations.json", [1.0, 1.25, 2.0, 1.9])
    assert load(path).mean == pytest.approx((0 + 0.25 + 1 + 0.9) / 4)
    assert describe(path).layouts == ("alpaca-eval AlpacaEval 2 (weighted preferences in [1, 2])",)


def test_detection_reads_the_first_record_not_the_first_4_kb(tmp_path: Path) -> None:
    path = _annotations(tmp_path / "annotations.json", [2, 1, 1], output="y" * 10_000)
    assert path.read_bytes().index(b'"preference"') > 4096
    assert describe(path).formats == ("alpaca-eval",)
    assert load(path).mean == pytest.approx(1 / 3)


def test_values_outside_the_scale_are_refused(tmp_path: Path) -> None:
    path = _annotations(tmp_path / "annotations.json", [1, 0.5])
    with pytest.raises(FormatError, match=r"record 2: 'preference' is 0.5, outside \[1, 2\]"):
        load(path)
