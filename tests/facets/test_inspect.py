"""A facet column in a table (prompt templates, judges): ``inspect`` names it, and the
commands that read one score an item and run refuse its repeated rows with the route to
``evalsig variance``, never averaging them as runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.data import describe, load

runner = CliRunner()


def _write(path: Path, prompts: int = 3) -> Path:
    pd.DataFrame(
        {
            "item": [f"q{i}" for i in range(20) for _ in range(prompts)],
            "prompt": [f"p{p}" for _ in range(20) for p in range(prompts)],
            "score": [(i + p) % 2 for i in range(20) for p in range(prompts)],
        }
    ).to_csv(path, index=False)
    return path


def test_inspect_names_the_facet_and_the_route(tmp_path: Path) -> None:
    path = _write(tmp_path / "answers.csv")
    notes = [n for n in describe(path).notes if "look like facets" in n]
    assert len(notes) == 1
    assert notes[0].startswith("column(s) 'prompt' (3 values) look like facets")
    assert "items appear on several rows" in notes[0]
    assert "evalsig variance FILE --facet ID --facet prompt" in notes[0]
    shown = runner.invoke(app, ["inspect", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "look like facets" in shown.output


def test_repeated_rows_are_refused_with_the_facet_route(tmp_path: Path) -> None:
    path = _write(tmp_path / "answers.csv")
    result = runner.invoke(app, ["compare", str(path), str(path)])
    assert result.exit_code == 4
    assert "it is a facet: evalsig variance --facet ID --facet COLUMN" in result.output
    assert "compare and score take the same --facet options" in result.output
    one = runner.invoke(app, ["score", str(path), "--where", "prompt=p1", "--format", "json"])
    assert one.exit_code == 0, one.output


def test_a_facet_column_is_not_called_a_cluster(tmp_path: Path) -> None:
    path = _write(tmp_path / "answers.csv", prompts=1)
    frame = pd.read_csv(path)
    frame["prompt"] = [f"p{i % 4}" for i in range(len(frame))]  # one template an item
    frame.to_csv(path, index=False)
    (note,) = [n for n in describe(path).notes if "look like facets" in n]
    assert "items appear on several rows" not in note
    read = load(path, id_column="item", score_column="score")  # where the cluster hint is made
    assert not any("group the items" in n for n in read.notes)
    frame.rename(columns={"prompt": "topic"}).to_csv(path, index=False)  # a grouping name
    assert any("group the items" in n for n in load(path, id_column="item").notes)
