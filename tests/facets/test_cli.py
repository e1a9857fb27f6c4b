"""``evalsig variance``, run as a user runs it (a subprocess): its JSON is what
``variance_sources`` and ``decision_study`` return on the same table with the same seed, and
each refusal is one line and its exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.facets import decision_study, variance_sources

SRC = Path(__file__).resolve().parents[2] / "src"
FACETS = ["item", "prompt", "run"]


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_COLOR": "1"}


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evalsig", "variance", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=_env(),
    )


def _finish(child: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = child.communicate(timeout=120)
    return child.returncode, out, err


def _json(args: list[str]) -> dict[str, Any]:
    code, out, err = _finish(_start([*args, "--format", "json"]))
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def _plain(result: Any) -> dict[str, Any]:
    """A result's JSON form, as the command prints it."""
    document: dict[str, Any] = json.loads(json.dumps(result.to_dict()))
    return document


def _table(crossed: Callable[..., pd.DataFrame], seed: int, **sizes: int) -> pd.DataFrame:
    """A crossed table whose scores have 6 decimals (written and read back exactly)."""
    table = crossed(seed, **sizes)
    table["score"] = table["score"].round(6)
    return table


def _write(table: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        table.to_csv(path, index=False)
    else:
        records = table.to_dict(orient="records")
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_the_components_are_those_of_the_api(
    tmp_path: Path, crossed: Callable[..., pd.DataFrame], suffix: str
) -> None:
    table = _table(crossed, 0, items=12, prompts=3, runs=2)
    path = _write(table, tmp_path / f"long{suffix}")
    facets = [arg for name in FACETS for arg in ("--facet", name)]
    document = _json([str(path), *facets, "--resamples", "0"])
    assert document == _plain(variance_sources(table, facets=FACETS, n_resamples=0))
    assert document["n"] == 72
    assert [t["term"] for t in document["terms"]][:3] == FACETS


def test_a_drawn_seed_is_recorded_and_repeats_the_resamples(
    tmp_path: Path, crossed: Callable[..., pd.DataFrame]
) -> None:
    table = _table(crossed, 0, items=16, prompts=3, runs=1).rename(columns={"score": "correct"})
    path = _write(table, tmp_path / "long.csv")
    args = [str(path), "--facet", "item", "--facet", "prompt", "--score", "correct"]
    document = _json([*args, "--resamples", "100"])
    seed = document["seed"]
    api = _plain(
        variance_sources(
            table, facets=["item", "prompt"], score_column="correct", n_resamples=100, rng=seed
        )
    )
    assert isinstance(seed, int)
    assert document["notes"][0] == (
        f"seed {seed} drawn for the components' bootstrap resamples; --seed {seed} repeats them"
    )
    assert document["notes"][1:] == api.pop("notes")
    document.pop("notes")
    assert document == api
    assert all(t["low"] is not None for t in document["terms"])


def test_a_paired_difference_is_that_of_the_api_with_a_baseline(
    tmp_path: Path, crossed: Callable[..., pd.DataFrame]
) -> None:
    models = {name: _table(crossed, seed, items=12, prompts=3, runs=2) for seed, name in
              enumerate("abc")}  # fmt: skip
    path = _write(
        pd.concat([t.assign(model=name) for name, t in models.items()]), tmp_path / "long.csv"
    )
    facets = [arg for name in FACETS for arg in ("--facet", name)]
    document = _json([str(path), *facets, "--baseline", "b", "--candidate", "a", "--seed", "0",
                      "--resamples", "0"])  # fmt: skip
    api = _plain(variance_sources(models["a"], facets=FACETS, baseline=models["b"], n_resamples=0))
    assert document["estimand"] == "difference"
    assert document["notes"] == ["72 row(s) of models other than 'a', 'b' left out", *api["notes"]]
    document.pop("notes")
    api.pop("notes")
    assert document == api


def test_json_booleans_are_scores_and_one_model_is_one_table(
    tmp_path: Path, crossed: Callable[..., pd.DataFrame]
) -> None:
    """A model column with one model is that model's table; standard input is read too."""
    table = crossed(3, items=12, prompts=3, runs=2)
    table["score"] = table["score"] > 0
    records = table.assign(model="a").to_dict(orient="records")
    text = "".join(json.dumps({**r, "score": bool(r["score"])}) + "\n" for r in records)
    facets = [arg for name in FACETS for arg in ("--facet", name)]
    child = subprocess.run(
        [sys.executable, "-m", "evalsig", "variance", "-", *facets, "--resamples", "0",
         "--format", "json"],
        input=text, capture_output=True, text=True, env=_env(), timeout=120, check=False,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    floats = table.assign(score=table["score"].astype(float))
    assert json.loads(child.stdout) == _plain(
        variance_sources(floats, facets=FACETS, n_resamples=0)
    )


@pytest.mark.parametrize(
    ("designs", "options"),
    [
        ([{"prompt": 8, "run": 1}, {"item": 50}],
         ["--design", "prompt=8,run=1", "--design", "item=50"]),
        (None, ["--project", "--alpha", "0.1", "--power", "0.9"]),
    ],
)  # fmt: skip
def test_a_design_gives_the_decision_study_of_the_api(
    tmp_path: Path,
    crossed: Callable[..., pd.DataFrame],
    designs: list[dict[str, int]] | None,
    options: list[str],
) -> None:
    table = _table(crossed, 2, items=12, prompts=3, runs=2)
    path = _write(table, tmp_path / "long.jsonl")
    facets = [arg for name in FACETS for arg in ("--facet", name)]
    document = _json([str(path), *facets, "--resamples", "0", *options])
    sources = variance_sources(table, facets=FACETS, n_resamples=0)
    alpha, power = (0.05, 0.8) if designs else (0.1, 0.9)
    api = _plain(decision_study(sources, designs=designs, alpha=alpha, power=power))
    assert document == api
    assert document["kind"] == "decision-study"
    assert len(document["designs"]) == (2 if designs else 10)


MODELS = "model,item,prompt,score\n" + "".join(
    f"{m},q{i},p{j},{(i * j + k) % 3}\n"
    for k, m in enumerate("ab") for i in range(6) for j in range(2)
)  # fmt: skip
ONE = "item,prompt,score\nq1,p1,1\nq1,p2,0\n"


def _files(tmp_path: Path) -> dict[str, Path]:
    texts = {
        "models.csv": MODELS,
        "text.csv": ONE + "q2,p1,right\n",
        "quoted.jsonl": '{"item": "q1", "prompt": "p1", "score": 1}\n'
        '{"item": "q1", "prompt": "p2", "score": "1"}\n',
        "empty.csv": ONE + "q2,,1\n",
        "null.jsonl": '{"item": "q1", "prompt": "p1", "score": 1}\n'
        '{"item": null, "prompt": "p2", "score": 0}\n',
        "nested.jsonl": '{"item": ["q", 1], "prompt": "p1", "score": 1}\n',
        "nan.csv": ONE + "q2,p1,nan\n",
        "nan.jsonl": '{"item": "q1", "prompt": "p1", "score": NaN}\n',
        "one.csv": ONE,
        "same.csv": ONE.replace(",0\n", ",1\n") + "q2,p1,1\nq2,p2,1\n",
        "exact.csv": "item,prompt,score\nq0,p1,1\nq0,p2,0\nq1,p1,1\n",
    }
    out = {}
    for name, text in texts.items():
        out[name] = tmp_path / name
        out[name].write_text(text, encoding="utf-8")
    return out


FACET_ARGS = ["--facet", "item", "--facet", "prompt"]
REFUSALS: list[tuple[str, list[str], int, str]] = [
    ("models.csv", [], 4, "column 'model' holds several models ('a', 'b'); their scores would "
     "be pooled into one. Choose one with --model NAME"),
    ("models.csv", ["--model", "c"], 4,
     "no rows of model 'c' in column 'model'; it holds 'a', 'b'"),
    ("one.csv", ["--baseline", "a", "--candidate", "b"], 4, "no column 'model' names the models"),
    ("text.csv", [], 4, "text.csv: line 4: score column 'score' is 'right', not a finite number"),
    ("quoted.jsonl", [], 4, "quoted.jsonl: line 2: score column 'score' is '1', not a finite "
     "number; write scores as JSON numbers"),
    ("empty.csv", [], 4, "empty.csv: line 4: facet column 'prompt' is empty"),
    ("null.jsonl", [], 4, "null.jsonl: line 2: facet column 'item' is empty"),
    ("nested.jsonl", [], 4, "nested.jsonl: line 1: facet column 'item' is ['q', 1], not a label"),
    ("nan.csv", [], 4, "nan.csv: line 4: score column 'score' is 'nan', not a finite number"),
    ("nan.jsonl", [], 4, "nan.jsonl: line 1: score column 'score' is nan, not a finite number"),
    ("one.csv", ["--facet", "judge"], 4, "one.csv: no column 'judge'"),
    ("same.csv", [], 4, "every score is 1: there is no variance to split"),
    ("exact.csv", [], 4, "the facets' levels fit all 3 scores exactly"),
    ("one.csv", ["--design", "promt=3"], 2, "--design 'promt=3': 'promt' is not a facet"),
    ("one.csv", ["--design", "prompt=0"], 2, "--design 'prompt=0': prompt='0' is not a whole"),
    ("one.csv", ["--design", "prompt=two"], 2, "prompt='two' is not a whole number of levels"),
    ("one.csv", ["--alpha", "0.1"], 2, "--alpha is for the decision study"),
    ("one.csv", ["--resamples", "20"], 2, "--resamples: 20 is too few"),
    ("one.csv", ["--facet", "item"], 2, "--facet 'item' is given twice"),
]  # fmt: skip


DRIVER = """
import json, sys
from typer.testing import CliRunner
from evalsig.cli import main

done = []
for argv in json.loads(sys.argv[1]):
    with CliRunner().isolation() as (out, err, _):
        sys.argv = ["evalsig", "variance", *argv]
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        done.append([code, out.getvalue().decode(), err.getvalue().decode()])
print(json.dumps(done))
"""
"""Runs ``evalsig variance`` (its entry point, ``main``) on each command line in turn, in
one child process: one start-up for all the refusals."""


def test_each_refusal_is_one_line_naming_the_value(tmp_path: Path) -> None:
    files = _files(tmp_path)
    lines = [[str(files[name]), *FACET_ARGS, "--resamples", "0", *args] for name, args, _, _ in
             REFUSALS]  # fmt: skip
    child = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(lines)],
        capture_output=True, text=True, env=_env(), timeout=120, check=True,
    )  # fmt: skip
    for (got, out, err), (name, args, code, fragment) in zip(
        json.loads(child.stdout), REFUSALS, strict=True
    ):
        assert (got, out) == (code, ""), (name, args, err)
        assert err.count("\n") == 1, (name, args, err)
        assert err.startswith("evalsig: error: "), (name, args, err)
        assert fragment in err, (name, args, err)


def test_a_leaderboard_and_a_budget_are_those_of_the_api(
    tmp_path: Path, crossed: Callable[..., pd.DataFrame]
) -> None:
    """--object with the model column as a facet gives G and Phi; --cost with --budget or
    --half-width and --max-levels gives the allocation decision_study finds."""
    board = pd.concat(
        _table(crossed, seed, items=10, prompts=3, runs=1).assign(model=f"m{seed}")
        for seed in range(4)
    ).drop(columns="run")
    path = _write(board, tmp_path / "board.csv")
    facets = ["model", "item", "prompt"]
    arguments = [str(path), *(a for f in facets for a in ("--facet", f)), "--resamples", "0"]
    arguments += ["--object", "model"]
    sources = variance_sources(board, facets=facets, n_resamples=0)
    document = _json(arguments)
    assert document == _plain(decision_study(sources, object_of_measurement="model"))
    assert document["designs"][0]["g"] is not None
    budgeted = _json(
        [
            *arguments,
            "--cost",
            "model:item:prompt=0.5",
            "--cost",
            "prompt=4",
            "--budget",
            "200",
            "--max-levels",
            "item=40",
        ]
    )
    expected = decision_study(
        sources,
        object_of_measurement="model",
        costs={"model:item:prompt": 0.5, "prompt": 4},
        budget=200,
        max_levels={"item": 40},
    )
    assert budgeted == _plain(expected)
    assert budgeted["allocation"]["cost"] <= 200
    target = _json([*arguments, "--cost", "model:item:prompt=1", "--half-width", "0.8"])
    assert target == _plain(
        decision_study(
            sources,
            object_of_measurement="model",
            costs={"model:item:prompt": 1.0},
            half_width=0.8,
        )
    )
    for bad, message in [  # in this process: the subprocess runs above cover start-up
        (["--cost", "item=-1", "--budget", "5"], "--cost 'item=-1' is not"),
        (["--cost", "item:prompt=1", "--budget", "5", "--max-levels", "judge=3"], "not a facet"),
        (["--cost", "item:judge=1", "--budget", "5"], "not a facet or a combination"),
    ]:
        refused = CliRunner().invoke(app, ["variance", *arguments, *bad])
        lines = refused.stderr.strip().splitlines()
        assert refused.exit_code in (2, 4), refused.output
        assert len(lines) == 1, refused.stderr
        assert message in lines[0]


def test_files_as_a_facet_are_the_long_table_of_their_runs(tmp_path: Path) -> None:
    """Results files of one model, one a prompt template, each with 2 runs an item: the
    components equal variance_sources on the long table of every run's score (runs read
    from rows are given by their cells' means and sums of squares, all REML sees of them)."""
    rng = np.random.default_rng(3)
    ease = rng.normal(0.3, 1, 40)
    rows = []
    paths = []
    for p, shift in enumerate([0.0, 0.4, -0.3]):
        path = tmp_path / f"prompt_{p}.jsonl"
        lines = []
        for i in range(40):
            for r in range(2):
                y = int(rng.random() < 1 / (1 + np.exp(-(ease[i] + shift))))
                lines.append(json.dumps({"doc_id": i, "epoch": r, "acc": y}))
                rows.append({"item": str(i), "prompt": f"prompt_{p}", "score": y})
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    document = _json(
        [*paths, "--files-as", "prompt", "--id", "doc_id", "--score", "acc", "--resamples", "0"]
    )
    expected = variance_sources(pd.DataFrame(rows), facets=["item", "prompt"], n_resamples=0)
    got = {t["term"]: t["variance"] for t in document["terms"]}
    for row in expected.terms:
        assert got[row.term] == pytest.approx(row.variance, rel=1e-5, abs=1e-9)
    assert document["mean"] == pytest.approx(expected.mean, rel=1e-12)
    for bad, message in [
        ([paths[0], "--files-as", "prompt"], "at least two files"),
        ([*paths[:2], "--files-as", "prompt", "--facet", "item"], "leave out --facet"),
        ([*paths[:2], "--facet", "item"], "give one long table"),
        ([paths[0], "--facet", "item", "--metric", "acc"], "are for results files"),
    ]:
        refused = CliRunner().invoke(app, ["variance", *bad])
        assert refused.exit_code == 2, refused.output
        assert message in refused.stderr
