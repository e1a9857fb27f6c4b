"""Every leaderboard row carries its model's score interval, the one ``evalsig.score`` gives.

Each check runs :func:`evalsig.score` on each model's own scores and asks for the same
method, estimate and bounds (to rounding: the board computes them from its pairwise sums,
vectorised over models) at one run of 0/1 scores (Clopper-Pearson below 1,000 items,
Wilson from there), several runs (t on per-item means), continuous scores (t) and
clustered items (CR2 with Bell-McCaffrey degrees of freedom); and the aggregate over tasks
against the normal interval built from ``score``'s per-task standard errors.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from scipy import special, stats

from evalsig import score
from evalsig.data import load
from evalsig.data.models import model_scores
from evalsig.leaderboard import Leaderboard, leaderboard, leaderboard_tasks

SCHEMAS = Path(__file__).parents[2] / "src" / "evalsig" / "report" / "schemas"


def _ids(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


def _binary(rng: np.random.Generator, n: int, accuracies: list[float]) -> dict[str, dict]:
    ease = rng.normal(0.0, 1.0, n)
    out = {}
    for k, acc in enumerate(accuracies):
        p = stats.norm.cdf(stats.norm.ppf(acc) * np.sqrt(2) + ease)
        out[f"m{k}"] = dict(zip(_ids(n), (rng.random(n) < p).astype(int).tolist(), strict=True))
    return out


def _check_rows(board: Leaderboard, own: dict[str, object], **options: object) -> str:
    """Each row against ``score(own[model])``; the method, which must be one for all."""
    methods = set()
    for k, name in enumerate(board.models):
        result = score(own[name], **options)  # type: ignore[arg-type]
        methods.add(result.method)
        assert board.means[k] == pytest.approx(result.estimate, rel=1e-12, abs=1e-15)
        assert board.score_low[k] == pytest.approx(result.ci.low, rel=1e-9, abs=1e-12)
        assert board.score_high[k] == pytest.approx(result.ci.high, rel=1e-9, abs=1e-12)
    assert methods == {board.score_method}
    return board.score_method


@pytest.mark.parametrize(("n", "method"), [(40, "clopper-pearson"), (1500, "wilson")])
def test_one_run_of_0_1_scores(n: int, method: str) -> None:
    rng = np.random.default_rng(n)
    data = _binary(rng, n, [0.03, 0.4, 0.6, 0.97])
    data["all-right"] = dict.fromkeys(_ids(n), 1)
    board = leaderboard(data)
    assert _check_rows(board, data) == method
    assert board.score_high[board.models.index("all-right")] == 1.0
    assert any(note.startswith("score intervals: 95% ") for note in board.notes)


def test_several_runs_and_continuous_scores_use_t() -> None:
    rng = np.random.default_rng(3)
    n = 80
    runs = {f"m{k}": (rng.random((4, n)) < 0.3 + 0.2 * k).astype(int) for k in range(3)}
    tables = {name: load(values) for name, values in runs.items()}
    board = leaderboard(model_scores(tables))
    assert _check_rows(board, runs) == "t"
    continuous = {f"m{k}": rng.normal(0.1 * k, 1.0, n) for k in range(3)}
    board = leaderboard(
        {m: dict(zip(_ids(n), v.tolist(), strict=True)) for m, v in continuous.items()}
    )
    assert _check_rows(board, continuous) == "t"


def test_clustered_items_use_cr2() -> None:
    rng = np.random.default_rng(4)
    sizes = np.resize(np.arange(2, 15), 24)
    labels = np.repeat(np.arange(24), sizes)
    n = len(labels)
    shift = rng.normal(0, 0.15, 24)[labels]
    data = {f"m{k}": (rng.random(n) < 0.4 + 0.1 * k + shift).astype(int) for k in range(3)}
    tables = {
        name: replace(
            load(dict(zip(_ids(n), v.tolist(), strict=True))), clusters=labels.astype(str)
        )
        for name, v in data.items()
    }
    board = leaderboard(model_scores(tables))
    assert board.method == "cluster"
    assert _check_rows(board, data, cluster=labels) == "cluster-cr2"


def test_aggregate_interval_from_the_tasks_standard_errors() -> None:
    rng = np.random.default_rng(5)
    tasks = {t: _binary(rng, n, [0.3, 0.5, 0.7]) for t, n in (("a", 60), ("b", 90))}
    result = leaderboard_tasks(
        {t: model_scores({m: load(v) for m, v in d.items()}) for t, d in tasks.items()}
    )
    agg = result.aggregate
    z = float(special.ndtri(0.975))
    for k, name in enumerate(agg.models):
        per_task = [score(tasks[t][name]) for t in tasks]
        mean = sum(r.estimate for r in per_task) / 2
        se = np.sqrt(sum(r.se**2 for r in per_task)) / 2
        assert agg.score_low[k] == pytest.approx(mean - z * se, rel=1e-12)
        assert agg.score_high[k] == pytest.approx(mean + z * se, rel=1e-12)
    assert agg.score_method == "aggregate-normal"
    for task, board in result.tasks.items():
        _check_rows(board, tasks[task])


def test_json_text_markdown_and_frame_carry_the_interval() -> None:
    rng = np.random.default_rng(6)
    data = _binary(rng, 50, [0.2, 0.5, 0.8])
    board = leaderboard(data, confidence_level=0.9)
    d = board.to_dict()
    schema = json.loads((SCHEMAS / "leaderboard.schema.json").read_text())
    jsonschema.validate(d, schema)
    assert d["score_method"] == "clopper-pearson"
    first = d["rows"][0]
    expected = score(data[first["model"]]).confidence_interval(0.9)
    assert first["score_low"] == pytest.approx(expected.low, rel=1e-9)
    assert first["score_high"] == pytest.approx(expected.high, rel=1e-9)
    cell = f"[{100 * first['score_low']:.2f}%, {100 * first['score_high']:.2f}%]"
    text, markdown = str(board), board._repr_markdown_()
    assert "90% CI" in text
    assert cell in text
    assert "| 90% CI |" in markdown
    assert cell.replace("[", "\\[").replace("]", "\\]") in markdown
    assert cell in board._repr_html_()
    frame = board.to_frame()
    assert frame["score_low"].tolist() == [row["score_low"] for row in d["rows"]]
    assert frame["score_high"].tolist() == [row["score_high"] for row in d["rows"]]
    tables = {m: load(v) for m, v in data.items()}
    tasks = leaderboard_tasks({t: model_scores(tables) for t in "xy"}).to_dict()
    for each in [tasks["aggregate"], *tasks["tasks"]]:
        jsonschema.validate(each, schema)
    assert tasks["aggregate"]["score_method"] == "aggregate-normal"


def test_old_json_without_intervals_fails_the_schema() -> None:
    """The schema requires the interval: a row without it is rejected."""
    d = leaderboard(_binary(np.random.default_rng(7), 30, [0.4, 0.6])).to_dict()
    schema = json.loads((SCHEMAS / "leaderboard.schema.json").read_text())
    del d["rows"][0]["score_low"]
    with pytest.raises(jsonschema.ValidationError, match="score_low"):
        jsonschema.validate(d, schema)
