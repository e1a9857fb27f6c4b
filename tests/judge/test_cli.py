"""``evalsig judge`` through typer's CliRunner: outputs, exit codes and messages."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import evalsig.cli.judge  # noqa: F401  (registers the command)
from evalsig.cli.application import app
from evalsig.judge import ppi_mean, ppi_paired_difference


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["judge", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def one_model(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    judge = (rng.random(300) < 0.65).astype(int)
    human = np.where(rng.random(300) < 0.8, judge, 1 - judge)
    lines = ["id,judge,human,topic"]
    for i in range(300):
        label = str(human[i]) if i < 80 else ""
        lines.append(f"q{i},{judge[i]},{label},t{i % 40}")
    path = tmp_path / "judged.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, judge, human


def test_one_model_matches_the_api(one_model: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path, judge, human = one_model
    code, out, _ = _invoke(str(path), "--judge-column", "judge", "--human-column", "human",
                           "--format", "json")  # fmt: skip
    assert code == 0
    document = json.loads(out)
    expected = ppi_mean(judge[80:], judge[:80], human[:80])
    assert document["kind"] == "judge"
    assert document["method"] == "ppi++"
    assert document["estimate"] == pytest.approx(expected.estimate, abs=1e-12)
    assert document["ci"]["low"] == pytest.approx(expected.ci.low, abs=1e-12)
    assert (document["n_labeled"], document["n_unlabeled"]) == (80, 220)
    assert document["provenance"]["files"]["data"]["sha256"]


def test_clusters_and_plain(one_model: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path, judge, human = one_model
    code, out, _ = _invoke(str(path), "--judge-column", "judge", "--human-column", "human",
                           "--cluster", "topic", "--plain", "--format", "json")  # fmt: skip
    assert code == 0
    document = json.loads(out)
    topics = [f"t{i % 40}" for i in range(300)]
    expected = ppi_mean(judge[80:], judge[:80], human[:80], tuned=False,
                        cluster=(topics[80:], topics[:80]))  # fmt: skip
    assert document["method"] == "ppi"
    assert document["n_clusters"] == 40
    assert document["se"] == pytest.approx(expected.se, abs=1e-12)


def test_text_markdown_html(one_model: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path = str(one_model[0])
    base = [path, "--judge-column", "judge", "--human-column", "human"]
    code, out, _ = _invoke(*base)
    assert code == 0
    assert out.startswith("Judge corrected with human labels")
    assert "Judge only" in out
    assert "Humans only" in out
    code, out, _ = _invoke(*base, "--format", "markdown")
    assert code == 0
    assert "| Estimate |" in out
    code, out, _ = _invoke(*base, "--format", "html")
    assert code == 0
    assert out.startswith("<!DOCTYPE html>")
    assert "<svg" in out


def test_paired_difference_from_jsonl(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    jb = rng.random((200, 2))  # two judge samples per item
    jc = jb + rng.normal(0.05, 0.1, (200, 2))
    hb, hc = (jb[:, 0] > 0.5).astype(int), (jc[:, 0] > 0.45).astype(int)
    rows = []
    for i in range(200):
        for model, j, h in (("base", jb, hb), ("new", jc, hc)):
            for s in range(2):
                label = int(h[i]) if i < 60 else None
                rows.append({"item": i, "model": model, "j": j[i, s], "h": label})
    rows.append({"item": 0, "model": "other", "j": 0.5, "h": None})
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, _ = _invoke(str(path), "--judge-column", "j", "--human-column", "h",
                           "--id", "item", "--model-column", "model", "--baseline", "base",
                           "--candidate", "new", "--alternative", "greater",
                           "--format", "json")  # fmt: skip
    assert code == 0, out
    document = json.loads(out)
    expected = ppi_paired_difference(
        (jb[60:], jc[60:]), (jb[:60], jc[:60]), (hb[:60], hc[:60]), alternative="greater"
    )
    assert document["estimate"] == pytest.approx(expected.estimate, abs=1e-12)
    assert document["pvalue"] == pytest.approx(expected.pvalue, abs=1e-12)
    assert (document["baseline"], document["candidate"]) == ("base", "new")
    assert any("1 row(s) of other models" in note for note in document["notes"])
    assert any("2 judge samples per item" in note for note in document["notes"])


def test_errors(tmp_path: Path, one_model: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path = str(one_model[0])
    code, _, err = _invoke(path, "--judge-column", "score", "--human-column", "human")
    assert code == 4
    assert "no column 'score'" in err
    assert err.count("\n") == 1
    code, _, err = _invoke(path, "--judge-column", "judge", "--human-column", "human",
                           "--baseline", "a")  # fmt: skip
    assert code == 2
    assert "--model-column, --baseline and --candidate" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("judge,human\n1,1\nyes,0\n0,\n")
    code, _, err = _invoke(str(bad), "--judge-column", "judge", "--human-column", "human")
    assert code == 4
    assert "line 3: judge is 'yes', not a number" in err
    odd = tmp_path / "odd.csv"
    odd.write_text("id,m,j,h\n1,a,1,1\n1,b,1,\n2,a,0,0\n2,b,1,1\n3,a,1,\n3,b,0,\n")
    code, _, err = _invoke(str(odd), "--judge-column", "j", "--human-column", "h", "--id",
                           "id", "--model-column", "m", "--baseline", "a", "--candidate",
                           "b")  # fmt: skip
    assert code == 4
    assert "human label for one model only ('1')" in err
