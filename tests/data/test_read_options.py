"""``read=ReadOptions(...)`` and its fields as keywords read files the same way; an unknown
keyword, a field given twice and a malformed ``where`` are clear errors."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import get_type_hints

import numpy as np
import pytest

from evalsig.data import ReadOptions, ScoreTable, describe, load, load_tasks
from evalsig.data.models import harness_models, load_models
from evalsig.data.readers.base import (
    ReaderKeywords,
    ReaderKeywordsExceptTask,
    read_options,
    where_pairs,
)
from evalsig.leaderboard import leaderboard

LM_EVAL = Path(__file__).parent / "fixtures" / "lm_eval" / "v0.4.7" / "EleutherAI__pythia-160m"


@pytest.fixture
def scores_csv(tmp_path: Path) -> Path:
    """Two models, two tasks, two seeds, with columns no reader would guess."""
    rows = ["question;acc;seed;topic;who;bench"]
    for model, shift in (("a", 0), ("b", 1)):
        for bench in ("t1", "t2"):
            for seed in (1, 2):
                for item in range(6):
                    score = (item + seed + shift) % 3 == 0
                    rows.append(f"q{item};{int(score)};{seed};c{item % 3};{model};{bench}")
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _same(first: ScoreTable, second: ScoreTable) -> None:
    assert first.item_ids.tolist() == second.item_ids.tolist()
    np.testing.assert_array_equal(first.counts, second.counts)
    np.testing.assert_array_equal(first.clusters, second.clusters)
    np.testing.assert_array_equal(first.runs, second.runs)
    assert (first.n_runs, first.mean, first.binary) == (second.n_runs, second.mean, second.binary)
    assert (first.notes, first.origin) == (second.notes, second.origin)


def test_the_keywords_are_the_fields_of_read_options() -> None:
    names = [item.name for item in fields(ReadOptions)]
    assert list(get_type_hints(ReaderKeywords)) == [n for n in names if n != "task"] + ["task"]
    assert set(get_type_hints(ReaderKeywordsExceptTask)) == set(names) - {"task"}
    assert ReaderKeywords.__optional_keys__ == frozenset(names)


def test_read_equals_the_keywords_on_a_file(scores_csv: Path) -> None:
    keywords = {
        "id_column": "question",
        "score_column": "acc",
        "run_column": "seed",
        "cluster_column": "topic",
        "task_column": "bench",
        "task": "t2",
        "separator": ";",
    }
    read = ReadOptions(**keywords, where=(("who", "b"),))
    by_keywords = load(scores_csv, **keywords, where={"who": "b"})
    _same(load(scores_csv, read=read), by_keywords)
    assert by_keywords.n_items == 6
    assert by_keywords.n_runs == 2
    assert by_keywords.origin is not None
    assert by_keywords.origin.where == (("who", "b"),)
    # part in read=, part as keywords: the same again
    half = ReadOptions(id_column="question", score_column="acc", separator=";")
    rest = {"run_column": "seed", "cluster_column": "topic", "task_column": "bench"}
    _same(load(scores_csv, read=half, task="t2", where={"who": "b"}, **rest), by_keywords)


def test_every_function_takes_read_or_the_keywords(scores_csv: Path) -> None:
    columns = {"id_column": "question", "score_column": "acc", "run_column": "seed"}
    read = ReadOptions(**columns, separator=";", where=(("bench", "t1"),))
    where = {"bench": "t1"}
    by_read = load_tasks(scores_csv, read=replace(read, task_column="who"))
    by_keywords = load_tasks(scores_csv, **columns, separator=";", task_column="who", where=where)
    assert list(by_read) == list(by_keywords) == ["a", "b"]
    for name in by_read:
        _same(by_read[name], by_keywords[name])
    assert describe(scores_csv, read=read) == describe(
        scores_csv, **columns, separator=";", where=where
    )
    models = load_models(scores_csv, model_column="who", read=read)
    again = load_models(scores_csv, model_column="who", **columns, separator=";", where=where)
    assert models.names == again.names == ("a", "b")
    np.testing.assert_array_equal(models.scores, again.scores)
    board = leaderboard(scores_csv, model_column="who", read=read)
    assert (
        board.to_dict()
        == leaderboard(
            scores_csv, model_column="who", **columns, separator=";", where=where
        ).to_dict()
    )


def test_harness_choices_by_read_or_keywords() -> None:
    by_read = load(LM_EVAL, read=ReadOptions(task="arc_easy", metric="acc_norm"))
    by_keywords = load(LM_EVAL, task="arc_easy", metric="acc_norm")
    _same(by_read, by_keywords)
    assert by_keywords.origin is not None
    assert by_keywords.origin.metric == "acc_norm"
    assert harness_models(LM_EVAL, read=ReadOptions(task="arc_easy")) is None  # one model


def test_an_unknown_keyword_names_it_and_the_valid_ones(scores_csv: Path) -> None:
    with pytest.raises(TypeError, match=r"'scor_column' \(did you mean 'score_column'\?\)") as info:
        load(scores_csv, scor_column="acc")
    assert "id_column, score_column, run_column" in str(info.value)
    assert "separator." in str(info.value)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'; the reader"):
        describe(scores_csv, colour="red")


def test_a_field_given_twice_names_both(scores_csv: Path) -> None:
    read = ReadOptions(score_column="acc")
    message = r"`score_column` is given twice: read=ReadOptions\(score_column='acc'\) and the "
    with pytest.raises(TypeError, match=message + r"keyword score_column='seed'; give it once"):
        load(scores_csv, read=read, score_column="seed")
    with pytest.raises(TypeError, match=r"`where` is given twice: .*where=\{'who': 'b'\}"):
        load_tasks(scores_csv, read=ReadOptions(where=(("who", "a"),)), where={"who": "b"})


def test_a_keyword_left_at_its_default_keeps_what_read_says() -> None:
    read = ReadOptions(score_column="acc", where=(("who", "a"),), skip_bad_lines=True)
    merged = read_options(read, score_column=None, where={}, skip_bad_lines=False, task="t")
    assert merged == ReadOptions(
        score_column="acc", where=(("who", "a"),), skip_bad_lines=True, task="t"
    )
    assert read_options(read) is read
    assert read_options() == ReadOptions()


def test_where_becomes_the_tuple_of_read_options() -> None:
    assert where_pairs({"model": "m", "seed": 3}) == (("model", "m"), ("seed", "3"))
    assert where_pairs((("model", "m"),)) == (("model", "m"),)
    assert where_pairs(None) == ()
    with pytest.raises(TypeError, match=r"`where` must be a mapping \{column: value\}.*'model=m'"):
        where_pairs("model=m")


def test_read_must_be_read_options(scores_csv: Path) -> None:
    with pytest.raises(TypeError, match=r"`read` must be a ReadOptions .*got a dict"):
        load(scores_csv, read={"score_column": "acc"})


def test_load_models_reads_the_model_column_as_the_task_column(scores_csv: Path) -> None:
    with pytest.raises(ValueError, match=r"model column 'who' .* `task_column` does not apply"):
        load_models(scores_csv, model_column="who", separator=";", task_column="bench")
