"""``evalsig pass-at-k``: one model's estimates, two models' paired tests, formats, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalsig.data import load
from evalsig.data.provenance import without_time
from evalsig.passk import compare_pass_at_k, pass_at_k


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalsig", *args],
        input=None if stdin is None else stdin.decode(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _long_csv(path: Path, matrix: np.ndarray) -> Path:
    """tasks x samples 0/1 scores as a long table: task, sample, correct."""
    rows = [f"t{i},{s},{v}" for i, row in enumerate(matrix) for s, v in enumerate(row)]
    path.write_text("task,sample,correct\n" + "\n".join(rows) + "\n", "utf-8")
    return path


def _matrix(seed: int, tasks: int = 60, n: int = 8, lift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(0.7, 1.0, (tasks, 1)) + lift, 0, 1)
    return (rng.random((tasks, n)) < p).astype(int)


READ = ("--id", "task", "--run", "sample")


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        _long_csv(tmp_path / "base.csv", _matrix(1)),
        _long_csv(tmp_path / "cand.csv", _matrix(2, lift=0.1)),
    )


def test_one_model_as_text_and_json(files: tuple[Path, Path]) -> None:
    base, _ = files
    text = run("pass-at-k", str(base), "--k", "1", "--k", "4", *READ)
    assert text.returncode == 0, text.stderr
    expected = pass_at_k(load(base, id_column="task", run_column="sample"), [1, 4])
    first, second = text.stdout.splitlines()[1:3]
    assert first.split()[:2] == ["k", "estimate"]
    assert second.split()[:2] == ["pass@1", f"{100 * expected[1].estimate:.2f}%"]
    assert "pass@k of base over 60 tasks (8 samples per task)" in text.stdout
    document = json.loads(run("pass-at-k", str(base), "--k", "1", "--k", "4", *READ,
                              "--format", "json").stdout)  # fmt: skip
    assert without_time(document) == without_time(expected.to_dict())
    assert [row["k"] for row in document["rows"]] == [1, 4]


def test_two_models_a_paired_test_per_k(files: tuple[Path, Path]) -> None:
    base, cand = files
    args = ("--k", "1", "--k", "3", "--method", "permutation", "--seed", "7")
    done = run("pass-at-k", str(base), str(cand), *args, *READ, "--alternative", "greater",
               "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    tables = [load(p, id_column="task", run_column="sample") for p in files]
    expected = compare_pass_at_k(*tables, [1, 3], method="permutation", rng=7,
                                 alternative="greater")  # fmt: skip
    assert without_time(document) == without_time(expected.to_dict())
    assert document["kind"] == "pass-at-k-comparison"
    assert document["seed"] == 7
    text = run("pass-at-k", str(base), str(cand), "--k", "3", *READ)
    assert text.returncode == 0
    assert text.stdout.startswith("pass@3: The candidate is better than the baseline by +")
    assert "cand vs base" in text.stdout


def test_too_few_samples_is_a_data_error_or_dropped(tmp_path: Path) -> None:
    matrix = _matrix(3, tasks=20, n=4)
    path = _long_csv(tmp_path / "runs.csv", matrix)
    lines = path.read_text("utf-8").splitlines()
    path.write_text("\n".join(line for line in lines if line != f"t5,3,{matrix[5, 3]}") + "\n")
    done = run("pass-at-k", str(path), "--k", "4", *READ)
    assert done.returncode == 4
    assert done.stderr.startswith("evalsig: error: ")
    assert "1 task(s) have fewer than 4 samples ('t5': 3 samples)" in done.stderr
    assert "--too-few-samples drop" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    dropped = run("pass-at-k", str(path), "--k", "4", *READ, "--too-few-samples", "drop",
                  "--format", "json")  # fmt: skip
    assert dropped.returncode == 0
    row = json.loads(dropped.stdout)["rows"][0]
    assert (row["n_tasks"], row["n_dropped"]) == (19, 1)


def test_scores_must_be_zero_or_one(tmp_path: Path) -> None:
    path = tmp_path / "partial.csv"
    path.write_text("task,sample,correct\nt0,0,1\nt0,1,0.5\nt1,0,0\nt1,1,1\n", "utf-8")
    done = run("pass-at-k", str(path), *READ)
    assert done.returncode == 4
    assert "holds scores other than 0 and 1 (e.g. 't0', mean 0.75)" in done.stderr
    assert "Traceback" not in done.stderr


def test_options_of_the_other_mode_are_usage_errors(files: tuple[Path, Path]) -> None:
    base, cand = files
    one = run("pass-at-k", str(base), "--method", "permutation", *READ)
    assert one.returncode == 2
    assert "--method is for a paired test: give CANDIDATE too" in one.stderr
    two = run("pass-at-k", str(base), str(cand), "--interval", "bootstrap", *READ)
    assert two.returncode == 2
    assert "--interval is for one model" in two.stderr
    bad = run("pass-at-k", str(base), "--estimator", "pass@K", *READ)
    assert bad.returncode == 2


def test_markdown_html_and_standard_input(tmp_path: Path) -> None:
    hostile = _long_csv(tmp_path / "<script>x.csv", _matrix(4))
    html = tmp_path / "report.html"
    done = run("pass-at-k", str(hostile), "--k", "2", *READ, "--format", "html", "-o", str(html))
    assert done.returncode == 0, done.stderr
    page = html.read_text("utf-8")
    assert "<script>x" not in page
    assert "&lt;script&gt;x" in page
    assert "<svg" in page
    assert "Result of kind" not in page  # a section of its own, not the raw JSON view
    markdown = run("pass-at-k", str(hostile), "--k", "2", *READ, "--format", "markdown")
    assert "| pass@2 |" in markdown.stdout
    assert "<script>" not in markdown.stdout
    piped = run("pass-at-k", "-", "--k", "2", *READ, "--format", "json",
                stdin=hostile.read_bytes())  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    document = json.loads(piped.stdout)
    assert document["provenance"]["inputs"]["scores"]["files"][0]["path"] == "-"
    direct = json.loads(
        run("pass-at-k", str(hostile), "--k", "2", *READ, "--format", "json").stdout
    )
    assert document["rows"] == direct["rows"]


def test_bootstrap_interval_is_seeded(files: tuple[Path, Path]) -> None:
    base, _ = files
    args = ("pass-at-k", str(base), "--k", "2", *READ, "--interval", "bootstrap", "--seed", "3",
            "--resamples", "500", "--format", "json")  # fmt: skip
    first, again = json.loads(run(*args).stdout), json.loads(run(*args).stdout)
    assert first["rows"] == again["rows"]
    assert first["rows"][0]["method"] == "bootstrap-bca"
    assert first["rows"][0]["n_resamples"] == 500


def _with_repo(path: Path, out: Path, size: int) -> Path:
    """The long table with a 'repo' column: tasks t0..t{size-1} in repo0, and so on."""
    lines = path.read_text("utf-8").splitlines()
    rows = [f"{line},repo{int(line.split(',')[0][1:]) // size}" for line in lines[1:]]
    out.write_text(lines[0] + ",repo\n" + "\n".join(rows) + "\n", "utf-8")
    return out


def test_cluster_column_makes_the_interval_and_test_cluster_robust(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    base = _with_repo(files[0], tmp_path / "base_repo.csv", 3)
    cand = _with_repo(files[1], tmp_path / "cand_repo.csv", 3)
    one = run("pass-at-k", str(base), *READ, "--cluster", "repo", "--format", "json")
    assert one.returncode == 0, one.stderr
    table = load(base, id_column="task", run_column="sample", cluster_column="repo")
    expected = pass_at_k(table, 1)
    assert without_time(json.loads(one.stdout)) == without_time(expected.to_dict())
    assert (expected[1].method, expected[1].n_clusters) == ("cluster-cr2", 20)
    text = run("pass-at-k", str(base), str(cand), *READ, "--cluster", "repo")
    assert text.returncode == 0, text.stderr
    assert "60 in 20 clusters" in text.stdout
    assert "cluster-cr2" in text.stdout
    clash = run("pass-at-k", str(base), *READ, "--cluster", "repo", "--interval", "bootstrap")
    assert clash.returncode == 2
    assert "--cluster gives the cluster-robust CR2 interval" in clash.stderr
    missing = run("pass-at-k", str(base), *READ, "--cluster", "family")
    assert missing.returncode != 0
    assert "family" in missing.stderr
    assert "Traceback" not in missing.stderr
