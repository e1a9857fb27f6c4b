"""``evalsig score FILE...`` run as the installed command, on files written here: each
output format, several files and tasks, standard input, and the exit codes (0 done, 2 usage
error, 4 data error with one line on stderr)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from evalsig import load, score

EVALSIG = Path(sys.executable).with_name("evalsig")
SCHEMA = Path(__file__).parents[1] / "src" / "evalsig" / "report" / "schemas" / "score.schema.json"
HOSTILE = "<script>alert(1)</script>"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALSIG), "score", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"NO_COLOR": "1", "COLUMNS": "100", "PATH": str(EVALSIG.parent)},
    )


def one_run_csv(path: Path, n: int = 120, right: int = 66) -> Path:
    rows = "".join(f"q{i},{int(i < right)},s{i % 8}\n" for i in range(n))
    path.write_text("item,correct,subject\n" + rows, "utf-8")
    return path


def runs_csv(path: Path) -> Path:
    rng = np.random.default_rng(0)
    p = rng.beta(1.5, 1.0, 150)
    rows = "".join(f"q{i},{r},{int(rng.random() < p[i])}\n" for r in range(4) for i in range(150))
    path.write_text("item,seed,correct\n" + rows, "utf-8")
    return path


def tasks_csv(path: Path) -> Path:
    rows = "".join(f"{t},q{i},{int((i + k) % 3 != 0)}\n" for k, t in enumerate(("arc", HOSTILE))
                   for i in range(90))  # fmt: skip
    path.write_text("task,item,correct\n" + rows, "utf-8")
    return path


@pytest.fixture
def one_run(tmp_path: Path) -> Path:
    return one_run_csv(tmp_path / "llama.csv")


def validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA.read_text("utf-8")))


def test_text(one_run: Path) -> None:
    done = run(str(one_run))
    assert done.returncode == 0, done.stderr
    expected = score(load(str(one_run)))
    low, high = 100 * expected.ci.low, 100 * expected.ci.high
    assert done.stdout.startswith(f"Score of llama: 55.00% (95% CI {low:.2f}% to {high:.2f}%)")
    assert "clopper-pearson: small sample: asymptotic intervals under-cover below N=1,000" in (
        done.stdout
    )
    assert "n = 120 items (66 right)" in done.stdout
    assert "llama.csv@" in done.stdout  # the file and its hash


def test_json_matches_the_api_and_the_schema(one_run: Path) -> None:
    done = run(str(one_run), "--format", "json", "--confidence-level", "0.9")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert not list(validator().iter_errors(document))
    expected = score(load(str(one_run)), confidence_level=0.9)
    assert document["ci"] == {"low": expected.ci.low, "high": expected.ci.high,
                              "confidence_level": 0.9}  # fmt: skip
    assert (document["method"], document["n_items"], document["n_correct"]) == (
        "clopper-pearson",
        120,
        66,
    )
    (origin,) = document["provenance"]["inputs"].values()
    assert origin["files"][0]["path"] == str(one_run)


def test_markdown(one_run: Path) -> None:
    done = run(str(one_run), "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("### Score of llama\n\n**55.00% (95% CI ")
    assert "| Method | clopper-pearson: small sample" in done.stdout


def test_html_has_the_score_section(one_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "score.html"
    done = run(str(one_run), "--format", "html", "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text("utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<h2>Score of llama</h2>" in page
    assert "has no dedicated view" not in page
    assert "<svg" in page


def test_runs_clusters_and_methods(tmp_path: Path, one_run: Path) -> None:
    runs = runs_csv(tmp_path / "runs.csv")
    done = run(str(runs), "--run", "seed", "--format", "json")
    document = json.loads(done.stdout)
    assert (document["method"], document["n_runs"]) == ("t", 4)
    assert document["variance"]["within_share"] > 0
    clustered = json.loads(run(str(one_run), "--cluster", "subject", "--format", "json").stdout)
    assert (clustered["method"], clustered["n_clusters"]) == ("cluster-cr2", 8)
    bayes = json.loads(
        run(str(one_run), "--method", "bayes", "--prior", "0.5", "0.5", "--format", "json").stdout
    )
    assert (bayes["method"], bayes["prior"]) == ("bayes", {"a": 0.5, "b": 0.5})
    boot = run(str(runs), "--run", "seed", "--method", "bootstrap", "--resamples", "500",
               "--seed", "3", "--format", "json")  # fmt: skip
    assert (json.loads(boot.stdout)["seed"], json.loads(boot.stdout)["n_resamples"]) == (3, 500)


def test_one_row_per_file_and_task(tmp_path: Path) -> None:
    tasks = tasks_csv(tmp_path / "tasks.csv")
    other = tmp_path / "other.csv"
    other.write_text("task,item,correct\n" + "".join(f"mmlu,q{i},{i % 2}\n" for i in range(40)))
    files = [str(other), str(tasks), "--task-column", "task"]
    done = run(*files)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["model", "/", "task", "score", "interval", "method", "data"]
    assert lines[1].split("  ")[0] == "other / mmlu"
    assert "50.00%  95% CI 33.80% to 66.20%  clopper-pearson  n = 40 items (20 right)" in lines[1]
    assert lines[2].startswith("tasks / arc ")
    assert lines[3].startswith(f"tasks / {HOSTILE} ")
    listed = json.loads(run(*files, "--format", "json").stdout)
    tasks_read = [d["provenance"]["inputs"]["model"]["task"] for d in listed]
    assert tasks_read == ["mmlu", "arc", HOSTILE]
    assert all(not list(validator().iter_errors(d)) for d in listed)
    markdown = run(*files, "--format", "markdown").stdout
    assert "| tasks / &lt;script&gt;alert(1)&lt;/script&gt; |" in markdown
    assert "<script>" not in markdown
    page = run(*files, "--format", "html").stdout
    assert page.count('class="result kind-score"') == 3
    assert "<script>alert" not in page


def test_standard_input(one_run: Path) -> None:
    done = run("-", "--format", "json", stdin=one_run.read_text("utf-8"))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    (origin,) = document["provenance"]["inputs"].values()
    assert origin["files"][0]["path"] == "-"
    assert document["n_correct"] == 66


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("item,correct\nq1,1\nq2,banana\n", "banana"),
        ("item,correct\n", "no rows"),
        ("item,correct\nq1,1\nq1,0\n", "q1"),
    ],
)
def test_a_bad_file_exits_4_with_one_line(tmp_path: Path, content: str, fragment: str) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(content, "utf-8")
    done = run(str(bad))
    assert done.returncode == 4
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("evalsig: error: ")
    assert fragment in lines[0]


def test_data_errors_of_the_method_exit_4(one_run: Path, tmp_path: Path) -> None:
    runs = runs_csv(tmp_path / "runs.csv")
    done = run(str(runs), "--run", "seed", "--method", "wilson")
    assert done.returncode == 4
    assert done.stderr.count("\n") == 1
    assert "needs one run of 0/1 scores per item, but the data have 4 runs" in done.stderr
    prior = run(str(one_run), "--prior", "1", "1")
    assert prior.returncode == 4
    assert "`prior` is used only by method='bayes'" in prior.stderr
    missing = run(str(tmp_path / "absent.csv"))
    assert missing.returncode == 4
    assert missing.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--confidence-level", "2"],
        ["--method", "exact"],
        ["--prior", "0", "1"],
        ["--resamples", "5"],
        ["--no-such-option"],
    ],
)
def test_usage_errors_exit_2(one_run: Path, args: list[str]) -> None:
    done = run(str(one_run), *args)
    assert done.returncode == 2, done.stderr


def test_help_has_an_example() -> None:
    done = run("--help")
    assert done.returncode == 0
    assert "Example: evalsig score results.jsonl --id doc_id --score acc" in done.stdout
    assert "Usage: evalsig score [OPTIONS] PATHS..." in done.stdout
