"""``evalsig agreement``, ``position-bias``, ``length-bias`` and ``judge-plan`` through
typer's CliRunner: the JSON equals the Python API's on the same data, every format renders,
and bad input gives one line and the right exit code."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import evalsig.cli.agreement
import evalsig.cli.bias
import evalsig.cli.judge  # noqa: F401
from evalsig.cli.application import EXIT_DATA_ERROR, EXIT_USAGE, app
from evalsig.judge import (
    judge_agreement,
    labels_for_half_width,
    labels_for_power,
    length_bias,
    pilot,
    position_bias,
    rater_agreement,
)

HOSTILE = "<script>alert(1)</script>|`x`"


def _invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def _json(*args: str, stdin: str | None = None) -> dict[str, Any]:
    code, out, err = _invoke(*args, "--format", "json", stdin=stdin)
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def _validate(document: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    from evalsig.report.schemas import registry

    text = (
        resources.files("evalsig.report.schemas") / f"{document['kind']}.schema.json"
    ).read_text()
    jsonschema.Draft202012Validator(json.loads(text), registry=registry()).validate(document)


def _one_line(err: str) -> None:
    assert err.startswith("evalsig: error: ")
    assert err.count("\n") == 1


# --- agreement: judge vs humans -------------------------------------------------------------


@pytest.fixture
def labels(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    human = (rng.random(150) < 0.6).astype(int)
    judge = np.where(rng.random(150) < 0.85, human, 1 - human)
    lines = ["item,judge,human"]
    lines += [f"q{i},{judge[i]},{human[i] if i < 100 else ''}" for i in range(150)]
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, judge, human


def test_judge_vs_humans_matches_the_api(labels: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path, judge, human = labels
    document = _json("agreement", str(path), "--judge-column", "judge", "--human-column",
                     "human", "--seed", "4", "--resamples", "300")  # fmt: skip
    expected = judge_agreement(judge[:100], human[:100], n_resamples=300, rng=4).to_dict()
    assert document["kind"] == "judge-agreement"
    for key in ("n", "table", "kappa", "kappa_se", "kappa_ci", "sensitivity", "specificity"):
        assert document[key] == expected[key], key
    assert document["fleiss_kappa"] == expected["fleiss_kappa"]
    assert document["krippendorff_alpha"] == expected["krippendorff_alpha"]
    assert document["notes"][0] == "50 row(s) without a human label (human empty) left out."
    assert document["provenance"]["seed"] == 4
    assert len(document["provenance"]["files"]["data"]["sha256"]) == 64
    _validate(document)


def test_judge_vs_humans_from_stdin_and_gzip(
    labels: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    path = labels[0]
    args = ["--judge-column", "judge", "--human-column", "human", "--seed", "1"]
    from_file = _json("agreement", str(path), *args, "--resamples", "100")
    from_stdin = _json("agreement", "-", *args, "--resamples", "100", stdin=path.read_text())
    assert from_stdin["kappa"] == from_file["kappa"]
    assert from_stdin["provenance"]["files"]["data"]["path"] == "-"
    unseeded = _json("agreement", str(path), *args[:4], "--resamples", "100")
    seed = unseeded["provenance"]["seed"]
    assert isinstance(seed, int)  # drawn and recorded: a rerun with it repeats the result
    again = _json("agreement", str(path), *args[:4], "--resamples", "100", "--seed", str(seed))
    assert again["fleiss_kappa"] == unseeded["fleiss_kappa"]
    packed = tmp_path / "labels.csv.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert (
        _json("agreement", str(packed), *args, "--resamples", "100")["kappa"]
        == (from_file["kappa"])
    )


def test_text_markdown_html(labels: tuple[Path, np.ndarray, np.ndarray]) -> None:
    base = ["agreement", str(labels[0]), "--judge-column", "judge", "--human-column", "human",
            "--resamples", "100", "--seed", "0"]  # fmt: skip
    code, out, _ = _invoke(*base)
    assert code == 0
    assert out.startswith("Judge vs human labels, positive = 1\nkappa = ")
    assert "Sensitivity" in out
    assert "note: 50 row(s) without a human label" in out
    code, out, _ = _invoke(*base, "--format", "markdown")
    assert code == 0
    assert "| Cohen's kappa |" in out
    code, out, _ = _invoke(*base, "--format", "html")
    assert code == 0
    assert out.startswith("<!DOCTYPE html>")
    assert out.count("<svg") == 1
    assert "Compared:" in out  # the provenance line


def test_positive_label_and_hostile_labels_are_escaped(tmp_path: Path) -> None:
    pairs = [(HOSTILE, HOSTILE), ("ok", HOSTILE), ("ok", "ok"), (HOSTILE, "ok"), ("ok", "ok")]
    rows = [{"j": j, "h": h} for j, h in [*pairs, (HOSTILE, HOSTILE)]]
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    base = ["agreement", str(path), "--judge-column", "j", "--human-column", "h",
            "--positive", HOSTILE, "--resamples", "100"]  # fmt: skip
    document = _json(*base)
    assert document["positive"] == HOSTILE
    assert document["sensitivity"]["estimate"] == pytest.approx(2 / 3)
    code, out, _ = _invoke(*base, "--format", "html")
    assert code == 0
    assert "<script>alert" not in out
    assert "&lt;script&gt;" in out


# --- agreement: several raters --------------------------------------------------------------


def _ratings(tmp_path: Path) -> tuple[Path, list[list[Any]]]:
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 4, 80)
    table: list[list[Any]] = []
    lines = ["item\trater\tlabel"]
    for i, t in enumerate(truth):
        row: list[Any] = []
        for rater in ("ann", "bob", "judge"):
            value = int(t) if rng.random() < 0.75 else int(rng.integers(1, 4))
            if rater == "bob" and i % 9 == 0:
                row.append(None)  # bob skipped the item
                continue
            if rater == "ann" and i % 20 == 0:
                row.append(None)
                lines.append(f"q{i}\t{rater}\t")  # an empty label: not rated
                continue
            row.append(value)
            lines.append(f"q{i}\t{rater}\t{value}")
        table.append(row)
    path = tmp_path / "ratings.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path, table


def test_raters_match_the_api(tmp_path: Path) -> None:
    path, table = _ratings(tmp_path)
    base = ["agreement", str(path), "--rater-column", "rater", "--label-column", "label",
            "--id", "item", "--seed", "2", "--resamples", "200"]  # fmt: skip
    for metric in ("nominal", "ordinal", "interval"):
        document = _json(*base, "--scale", metric)
        seen = [[ann, judge, bob] for ann, bob, judge in table]  # bob skipped item 0
        expected = rater_agreement(
            seen, raters=["ann", "judge", "bob"], metric=metric, n_resamples=200, rng=2
        ).to_dict()
        assert document["krippendorff_alpha"] == expected["krippendorff_alpha"]
        assert document["fleiss_kappa"] is None
        assert document["raters"] == ["ann", "judge", "bob"]  # in first-seen order
        assert document["notes"][0] == "4 row(s) with an empty label count as not rated."
        assert document["notes"][1].startswith("12 of 80 item(s) lack some rater's rating")
        _validate(document)
    complete = tmp_path / "complete.csv"
    complete.write_text("item,rater,label\n" + "".join(
        f"{i},{r},{(i + (r == 'c' and i % 3 == 0)) % 2}\n" for i in range(30) for r in "abc"
    ))  # fmt: skip
    document = _json("agreement", str(complete), "--rater-column", "rater", "--label-column",
                     "label", "--id", "item", "--seed", "0", "--resamples", "100")  # fmt: skip
    assert document["fleiss_kappa"] is not None
    assert document["fleiss_kappa"]["n_items"] == 30
    columns = ["--rater-column", "rater", "--label-column", "label", "--id", "item"]
    code, out, _ = _invoke("agreement", str(complete), *columns, "--resamples", "100")
    assert code == 0
    assert out.startswith("Agreement among 3 raters\nKrippendorff's alpha = ")
    assert "Fleiss' kappa" in out


RATERS = ["--rater-column", "r", "--label-column", "l"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --judge-column and --human-column (judge vs humans), or --rater-column"),
        (["--judge-column", "a", "--rater-column", "b"], "one of the two"),
        (["--judge-column", "a"], "needs both --judge-column and --human-column"),
        (RATERS, "need --rater-column, --label-column and --id"),
        (["--judge-column", "a", "--human-column", "b", "--scale", "ordinal"], "--scale is for"),
        ([*RATERS, "--id", "i", "--positive", "1"], "--positive"),
    ],
)
def test_agreement_usage_errors(args: list[str], message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,1\n")
    code, _, err = _invoke("agreement", str(path), *args)
    assert code == EXIT_USAGE
    assert message in " ".join(err.split())


def test_agreement_data_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("item,rater,label\n1,a,x\n1,b,y\n2,a,x\n1,a,y\n")
    raters = ["--rater-column", "rater", "--label-column", "label", "--id", "item"]
    code, _, err = _invoke("agreement", str(bad), *raters)
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert f"{bad}: line 5: rater 'a' rated item '1' on line 2 too" in err
    words = tmp_path / "words.csv"
    words.write_text("item,rater,label\n1,a,good\n1,b,bad\n")
    code, _, err = _invoke("agreement", str(words), *raters, "--scale", "ordinal")
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "label is 'good', not a number, but --scale ordinal needs numbers" in err
    code, _, err = _invoke("agreement", str(words), "--rater-column", "who", "--label-column",
                           "label", "--id", "item")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "no column 'who'" in err
    one = tmp_path / "one.csv"
    one.write_text("item,judge,human\n1,1,1\n2,,0\n")
    code, _, err = _invoke("agreement", str(one), "--judge-column", "judge", "--human-column",
                           "human")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "line 3: judge is empty but human is 0" in err
    twice = tmp_path / "twice.csv"
    twice.write_text("item,judge,human\n1,1,1\n2,0,0\n1,1,0\n")
    code, _, err = _invoke("agreement", str(twice), "--judge-column", "judge", "--human-column",
                           "human", "--id", "item")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "line 4: item '1' (item) is on" in err


# --- position-bias and length-bias ----------------------------------------------------------


def test_position_bias_matches_the_api(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    favourite = np.repeat(rng.choice(["A", "B"], 60), 2)
    first = np.tile(["A", "B"], 60)
    choice = np.where(rng.random(120) < 0.25, first, favourite)
    path = tmp_path / "pairs.csv"
    path.write_text("pair,first,choice\n" + "".join(
        f"{i // 2},{f},{c}\n" for i, (f, c) in enumerate(zip(first, choice, strict=True))
    ))  # fmt: skip
    base = ["position-bias", str(path), "--choice-column", "choice", "--first-column", "first"]
    clustered = _json(*base, "--pair-column", "pair")
    expected = position_bias(choice, first, pair=np.arange(120) // 2).to_dict()
    for key in ("estimate", "ci", "pvalue", "n_pairs", "consistency", "method"):
        assert clustered[key] == expected[key], key
    _validate(clustered)
    plain = _json(*base, "--confidence-level", "0.9")
    expected = position_bias(choice, first, confidence_level=0.9).to_dict()
    assert plain["ci"] == expected["ci"]
    assert plain["pvalue"] == expected["pvalue"]
    code, out, _ = _invoke(*base, "--pair-column", "pair")
    assert code == 0
    assert out.startswith("Judge position bias: P(prefers the first shown) - 1/2")
    assert "Consistent in both orders" in out
    code, out, _ = _invoke(*base, "--format", "html")
    assert code == 0
    assert out.count("<svg") == 1
    broken = tmp_path / "broken.csv"
    broken.write_text("first,choice\nA,A\nB,\n")
    code, _, err = _invoke("position-bias", str(broken), "--choice-column", "choice",
                           "--first-column", "first")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "line 3: choice is empty" in err


def _lengths(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(9)
    a, b = rng.integers(50, 600, 400), rng.integers(50, 600, 400)
    judge = (rng.random(400) < 1 / (1 + np.exp(-(a - b) / 150))).astype(int)
    human = np.full(400, np.nan)
    human[:150] = rng.random(150) < 1 / (1 + np.exp(-(a[:150] - b[:150]) / 500))
    rows = [
        {"len_a": int(a[i]), "len_b": int(b[i]), "winner": "AB"[1 - judge[i]],
         "human": None if np.isnan(human[i]) else int(human[i])}
        for i in range(400)
    ]  # fmt: skip
    path = tmp_path / "lengths.json"
    path.write_text(json.dumps(rows))
    return path, a - b, judge, human


def test_length_bias_matches_the_api(tmp_path: Path) -> None:
    path, diff, judge, human = _lengths(tmp_path)
    document = _json("length-bias", str(path), "--preference-column", "winner",
                     "--length-a-column", "len_a", "--length-b-column", "len_b",
                     "--human-column", "human")  # fmt: skip
    expected = length_bias(judge, diff, human=human).to_dict()
    for key in ("judge", "human", "slope_difference", "difference_pvalue", "notes"):
        assert document[key] == expected[key], key
    _validate(document)
    code, out, _ = _invoke("length-bias", str(path), "--preference-column", "winner",
                           "--length-a-column", "len_a", "--length-b-column", "len_b")  # fmt: skip
    assert code == 0
    assert out.startswith("Judge length bias: preference for A against len(A) - len(B)")
    assert "Human items" not in out


def test_length_bias_errors(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("d,w,la,lb\n10,A,1,2\n-5,tie,3,4\n")
    code, _, err = _invoke("length-bias", str(path), "--preference-column", "w",
                           "--length-difference-column", "d")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "line 3: w is 'tie'; use 1 or A when response A is preferred" in err
    both = ["--length-difference-column", "d", "--length-a-column", "la"]
    code, _, err = _invoke("length-bias", str(path), "--preference-column", "w", *both)
    assert code == EXIT_USAGE
    code, _, err = _invoke("length-bias", str(path), "--preference-column", "w",
                           "--length-a-column", "la")  # fmt: skip
    assert code == EXIT_USAGE
    words = tmp_path / "w.csv"
    words.write_text("d,w\nlong,A\n")
    code, _, err = _invoke("length-bias", str(words), "--preference-column", "w",
                           "--length-difference-column", "d")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "line 2: d is 'long', not a number" in err


# --- judge-plan -------------------------------------------------------------------------------


def test_plan_from_a_pilot_matches_the_api(labels: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path, judge, human = labels
    document = _json("judge-plan", str(path), "--judge-column", "judge", "--human-column",
                     "human", "--half-width", "0.05")  # fmt: skip
    measured = pilot(judge[:100], human[:100])
    expected = labels_for_half_width(
        0.05,
        n_unlabeled=50,
        correlation=measured.correlation,
        human_sd=measured.human_sd,
        judge_sd=measured.judge_sd,
    ).to_dict()
    for key in ("n_labels", "n_classical", "lambda", "target_se", "correlation", "target"):
        assert document[key] == expected[key], key
    assert document["notes"][:2] == [
        "correlation and SDs measured on the 100 pilot items with a human label.",
        "50 judge-scored items: the pilot's rows without a label.",
    ]
    assert document["provenance"]["files"]["pilot"]["sha256"]
    _validate(document)


def test_plan_without_a_pilot() -> None:
    base = ["judge-plan", "--correlation", "0.8", "--human-sd", "0.5", "--n-unlabeled", "5000"]
    document = _json(*base, "--effect", "0.05", "--alternative", "greater", "--plain")
    expected = labels_for_power(
        0.05, n_unlabeled=5000, correlation=0.8, human_sd=0.5, alternative="greater", tuned=False
    ).to_dict()
    assert document["n_labels"] == expected["n_labels"]
    assert document["method"] == "ppi"
    assert document["provenance"] is None
    _validate(document)
    code, out, _ = _invoke(*base, "--half-width", "0.03")
    assert code == 0
    assert out.startswith("Human labels for a judge correction\n440 human labels; 1,068 without")
    code, out, _ = _invoke(*base, "--half-width", "0.03", "--format", "html")
    assert code == 0
    assert "<svg" not in out
    assert "Human labels needed" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--correlation", "0.8", "--human-sd", "0.5", "--n-unlabeled", "10"], "give --half-width"),
        (["--half-width", "0.1", "--effect", "0.1"], "give --half-width"),
        (["--half-width", "0.1", "--human-sd", "0.5"], "give --correlation and --human-sd"),
        (["--half-width", "0.1", "--correlation", "0.5", "--human-sd", "0.5"], "--n-unlabeled"),
    ],
)
def test_plan_usage_errors(args: list[str], message: str) -> None:
    code, _, err = _invoke("judge-plan", *args)
    assert code == EXIT_USAGE
    assert message in err


def test_plan_data_errors(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("judge,human\n1,1\n0,0\n1,0\n")
    base = ["judge-plan", str(path), "--judge-column", "judge", "--human-column", "human"]
    code, _, err = _invoke(*base, "--half-width", "0.1")
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "every row has a human label; give --n-unlabeled" in err
    code, _, err = _invoke(*base, "--half-width", "-1", "--n-unlabeled", "100")
    assert code == EXIT_DATA_ERROR
    assert "`half_width` must be" in err
    assert "got -1.0" in err
    code, _, err = _invoke(*base, "--half-width", "0.1", "--correlation", "0.5")
    assert code == EXIT_USAGE


def test_more_data_errors_name_the_fix(tmp_path: Path) -> None:
    few = tmp_path / "few.csv"
    few.write_text("judge,human\n1,1\n0,\n")
    code, _, err = _invoke("agreement", str(few), "--judge-column", "judge", "--human-column",
                           "human")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    _one_line(err)
    assert "1 row(s) have a human label in 'human'; agreement needs at least 2" in err
    alone = tmp_path / "alone.csv"
    alone.write_text("item,rater,label\n1,ann,1\n2,ann,0\n")
    raters = ["--rater-column", "rater", "--label-column", "label", "--id", "item"]
    code, _, err = _invoke("agreement", str(alone), *raters)
    assert code == EXIT_DATA_ERROR
    assert "every row names rater 'ann' in 'rater'; agreement needs at least 2 raters" in err
    unnamed = tmp_path / "unnamed.csv"
    unnamed.write_text("item,rater,label\n1,ann,1\n,bob,0\n")
    code, _, err = _invoke("agreement", str(unnamed), *raters)
    assert code == EXIT_DATA_ERROR
    assert "line 3: item is empty; every row needs one" in err
    blank = tmp_path / "blank.csv"
    blank.write_text("d,w\n1,A\n2,\n")
    code, _, err = _invoke("length-bias", str(blank), "--preference-column", "w",
                           "--length-difference-column", "d")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "line 3: w is empty; the judge must judge every row" in err
    code, _, err = _invoke("position-bias", str(blank), "--choice-column", "w", "--first-column",
                           "w", "--confidence-level", "95")  # fmt: skip
    assert code == EXIT_USAGE
    assert "must be strictly between 0 and 1" in err


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf"])
@pytest.mark.parametrize(
    "args",
    [
        ["agreement", "--judge-column", "judge", "--human-column", "human"],
        ["position-bias", "--choice-column", "judge", "--first-column", "human"],
        ["agreement", "--rater-column", "human", "--label-column", "judge", "--id", "item"],
    ],
)
def test_a_label_written_as_a_non_finite_number_is_refused(
    text: str, args: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(f"item,judge,human\n1,1,1\n2,{text},0\n", encoding="utf-8")
    code, _, err = _invoke(args[0], str(path), *args[1:])
    assert code == EXIT_DATA_ERROR
    assert err.strip() == (
        f"evalsig: error: {path}: line 3: judge is {text!r}, a number that is not finite, not "
        "a label; leave the cell empty where there is no label."
    )


@pytest.mark.parametrize("name", ["judged.csv", "judged.jsonl.gz"])
@pytest.mark.parametrize("command", ["judge", "agreement", "judge-plan"])
def test_a_file_that_is_not_utf8_is_named(name: str, command: str, tmp_path: Path) -> None:
    path = tmp_path / name
    garbage = (
        b'{"item": 1, "judge": 1, "human": 1}\n{"item": 2, "judge": "\xff\xfe", "human": 1}\n'
        if name.endswith(".jsonl.gz")
        else b"item,judge,human\n1,1,1\n2,\xff\xfe,1\n"
    )
    path.write_bytes(gzip.compress(garbage) if name.endswith(".gz") else garbage)
    extra = ["--half-width", "0.05"] if command == "judge-plan" else []
    code, _, err = _invoke(
        command, str(path), "--judge-column", "judge", "--human-column", "human", *extra
    )
    assert code == EXIT_DATA_ERROR
    line = 2 if name.endswith(".jsonl.gz") else 3
    assert err.strip() == (
        f"evalsig: error: {path}: line {line}: not valid UTF-8 text; re-save it as UTF-8."
    )
