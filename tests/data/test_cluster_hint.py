"""A column that obviously groups items, not passed as the cluster, is named in a note."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.errors import DataError

runner = CliRunner()


def _frame(n_items: int = 40, labels: int = 4, column: str = "Subject") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": [f"q{i}" for i in range(n_items)],
            "score": [i % 2 for i in range(n_items)],
            column: [f"s{i % labels}" for i in range(n_items)],
        }
    )


def _hints(result: evalsig.ComparisonResult) -> list[str]:
    return [n for n in result.notes if "group the items, but were given neither" in n]


def test_dataframes_get_the_note_once_with_the_count_and_the_fix() -> None:
    base, cand = _frame(), _frame()
    cand["score"] = 1 - cand["score"]
    (note,) = _hints(evalsig.compare(base, cand))
    assert note.startswith("column(s) 'Subject' (4 values) group the items")
    assert "'Subject' (4 groups of about 10 items) looks like clusters" in note
    assert "--strata Subject (strata='Subject')" in note
    assert "36% false positives at alpha 0.05" in note
    assert note.endswith(
        "Pass --cluster Subject (cluster='Subject') unless the items are independent."
    )


def test_no_note_when_the_cluster_is_passed_or_the_column_does_not_group() -> None:
    base, cand = _frame(), _frame()
    assert not _hints(evalsig.compare(base, cand, cluster="Subject"))
    one = _frame(labels=1)
    assert not _hints(evalsig.compare(one, one))
    unique = _frame(labels=40)  # one label per item: no grouping
    assert not _hints(evalsig.compare(unique, unique))
    other = _frame(column="annotator")
    assert not _hints(evalsig.compare(other, other))


def test_a_model_column_of_several_models_is_never_pooled() -> None:
    models = _frame(column="model_name")
    with pytest.raises(DataError, match=r"column 'model_name' holds several models \('s0', 's1'"):
        evalsig.compare(models, models)
    one = models[models["model_name"] == "s0"]
    assert evalsig.compare(one, one).n_items == len(one)


def test_files_through_the_cli(tmp_path: Path) -> None:
    for name in ("a.csv", "b.csv"):
        frame = _frame(column="category")
        frame["topic"] = [f"t{i % 8}" for i in range(40)]
        frame.to_csv(tmp_path / name, index=False)
    result = runner.invoke(app, ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("group the items, but were given neither") == 1
    assert "'category' (4 values), 'topic' (8 values)" in result.stdout
    clustered = runner.invoke(
        app, ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--cluster", "topic"]
    )
    assert clustered.exit_code == 0, clustered.output
    assert "group the items, but were given neither" not in clustered.stdout


@pytest.mark.shared_data
def test_the_mmlu_pro_long_table_names_category_and_src(shared_data: Path) -> None:
    table = shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz"
    args = ["compare", str(table), str(table), "--id", "question_id"]
    args += ["--baseline-where", "model=Llama-2-7b-hf_5shots"]
    args += ["--candidate-where", "model=Llama-2-13b-hf_5shots", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "column(s) 'category' (14 values), 'src' (91 values) group the items" in result.stdout
    assert "'category' (14 groups of about 859 items) looks like strata" in result.stdout


@pytest.mark.shared_data
def test_mmlu_pro_by_category_strata(shared_data: Path) -> None:
    """MMLU-Pro's 14 categories as strata: the stratified SE of the plain mean difference
    is below the unstratified one, and the CLI's figures equal the API's on the same rows."""
    table = shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz"
    args = ["compare", str(table), str(table), "--id", "question_id", "--strata", "category"]
    args += ["--baseline-where", "model=Llama-2-7b-hf_5shots"]
    args += ["--candidate-where", "model=Llama-2-13b-hf_5shots", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["method"] == "stratified-proportional"
    assert document["n_strata"] == 14
    frame = pd.read_csv(table, usecols=["model", "question_id", "category", "correct"])
    base = frame[frame["model"] == "Llama-2-7b-hf_5shots"].drop(columns="model")
    cand = frame[frame["model"] == "Llama-2-13b-hf_5shots"].drop(columns="model")
    api = evalsig.compare(base, cand, strata="category")
    assert document["estimate"] == pytest.approx(api.estimate, rel=1e-12)
    assert document["se"] == pytest.approx(api.se, rel=1e-12)
    plain = evalsig.compare(base, cand, method="paired-t")
    assert api.se < plain.se
