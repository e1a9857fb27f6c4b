"""``-`` reads standard input in every command that reads results, and standard input is
named as such: ``-`` in the provenance record (with the size and SHA-256 of the bytes piped
in), "standard input (-)" in errors and notes, never the temporary file that holds it.

Run through a real process with the input piped, as a shell pipeline runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.cli.application import EXIT_DATA_ERROR

TEMPORARY = "evalsig-stdin-"
"""Part of the temporary folder's name: it never appears in what evalsig writes."""


def _evalsig(
    *args: str, stdin: bytes = b"", named: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run evalsig with ``stdin`` piped in; with ``named``, nothing it writes names the
    temporary file (errors never do)."""
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    out, err = done.stdout.decode(), done.stderr.decode()
    assert TEMPORARY not in err
    if named:
        assert TEMPORARY not in out
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


def _piped(data: bytes) -> dict[str, Any]:
    return {"path": "-", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _scores(path: Path, values: list[int]) -> Path:
    rows = "".join(f"q{i},{v}\n" for i, v in enumerate(values))
    path.write_text("item,score\n" + rows, "utf-8")
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    base = np.random.default_rng(5).integers(0, 2, 120).tolist()
    tuned = [1 if i % 4 == 0 else v for i, v in enumerate(base)]
    return _scores(tmp_path / "base.csv", base), _scores(tmp_path / "tuned.csv", tuned)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """One model's runs (item, run, correct): what --fit reads."""
    from evalsig.simulate import simulate_benchmark

    scores = simulate_benchmark(n_items=200, n_runs=4, rng=1).baseline
    rows = "".join(
        f"q{i},{r},{int(v)}\n" for r, row in enumerate(scores) for i, v in enumerate(row)
    )
    path = tmp_path / "runs.csv"
    path.write_text("item,run,correct\n" + rows, "utf-8")
    return path


def test_compare_records_standard_input_as_dash(pair: tuple[Path, Path]) -> None:
    base, tuned = pair
    data = base.read_bytes()
    done = _evalsig("compare", "-", str(tuned), "--format", "json", stdin=data, named=False)
    assert done.returncode == 0, done.stderr
    inputs = json.loads(done.stdout)["provenance"]["inputs"]
    assert inputs["baseline"]["files"] == [_piped(data)]
    assert (inputs["baseline"]["model"], inputs["baseline"]["model_from"]) == (None, None)
    assert inputs["candidate"]["files"][0]["path"] == str(tuned)
    text = _evalsig("compare", "-", str(tuned), stdin=data, named=False).stdout
    assert f"baseline (standard input@{_piped(data)['sha256'][:12]})" in text


def test_errors_name_standard_input(pair: tuple[Path, Path]) -> None:
    _, tuned = pair
    done = _evalsig("compare", "-", str(tuned), stdin=b"item,score\nq1,1\nq2,x\n")
    assert done.returncode == EXIT_DATA_ERROR
    assert done.stderr.startswith("evalsig: error: standard input (-): column 'score' has 1 ")
    columns = _evalsig("compare", str(tuned), "-", stdin=b"a,b\n1,2\n")
    assert columns.returncode == EXIT_DATA_ERROR
    assert "standard input (-): no column is recognisably the item id column" in columns.stderr


def test_ingest_reads_standard_input(pair: tuple[Path, Path], tmp_path: Path) -> None:
    base, _ = pair
    data = base.read_bytes()
    store = str(tmp_path / "store.duckdb")
    pytest.importorskip("duckdb")
    done = _evalsig("ingest", "-", "--store", store, "--model", "m", "--task", "t",
                    "--format", "json", stdin=data)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (source,) = json.loads(done.stdout)["sources"]
    assert (source["path"], source["sha256"], source["status"]) == (
        "-",
        _piped(data)["sha256"],
        "ingested",
    )
    again = ("ingest", "-", "--store", store, "--model", "m", "--task", "t")
    text = _evalsig(*again, stdin=data, named=False)  # the store names where it read it first
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("skipped   standard input (-)")
    import duckdb

    with duckdb.connect(store, read_only=True) as con:  # the store keeps "-", not a temp file
        assert con.execute("SELECT path FROM sources").fetchall() == [("-",)]
    nameless = _evalsig("ingest", "-", "--store", store, stdin=data)
    assert nameless.returncode == EXIT_DATA_ERROR
    assert nameless.stderr.startswith("evalsig: error: standard input (-): cannot tell which")


def test_audit_claim_reads_standard_input(pair: tuple[Path, Path]) -> None:
    base, tuned = pair
    data = tuned.read_bytes()
    done = _evalsig("audit-claim", str(base), "-", "--half-width", "0.05", "--format", "json",
                    stdin=data)  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["provenance"]["inputs"]["candidate"]["files"] == [_piped(data)]
    assert all(TEMPORARY not in note for note in document["notes"])


@pytest.mark.parametrize("command", ["audit", "simulate"])
def test_fit_reads_standard_input(command: str, runs: Path) -> None:
    data = runs.read_bytes()
    extra = ["--method", "paired-t", "--simulations", "5"] if command == "audit" else []
    extra += ["--simulations", "0"] if command == "simulate" else []
    done = _evalsig(command, "--fit", "-", "--seed", "3", "--format", "json", *extra, stdin=data)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["design"]["source"] == "standard input (-)"
    provenance = document["provenance"]
    assert provenance["inputs"]["fitted to"]["files"] == [_piped(data)]
    assert provenance["seed"] == 3
    wrong = _evalsig(command, "--fit", "-", *extra, stdin=b"item,run,correct\nq1,1,0.5\n")
    assert wrong.returncode == EXIT_DATA_ERROR
    assert "`runs` (standard input (-)) has scores other than 0 and 1" in wrong.stderr


def test_power_and_resolution_read_standard_input(pair: tuple[Path, Path], tmp_path: Path) -> None:
    base, tuned = pair
    data = base.read_bytes()
    done = _evalsig("power", "-", str(tuned), "--format", "json", stdin=data)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["provenance"]["inputs"]["baseline"]["files"] == [_piped(data)]
    assert document["source"] == f"pilot: - vs {tuned}"
    board = tmp_path / "board.csv"
    rows = [f"{m},q{i},{(i + k) % 3 > 0:d}" for k, m in enumerate("abc") for i in range(60)]
    board.write_text("model,item,score\n" + "\n".join(rows) + "\n", "utf-8")
    table = board.read_bytes()
    resolved = _evalsig("resolution", "-", "--format", "json", stdin=table)
    assert resolved.returncode == 0, resolved.stderr
    inputs = json.loads(resolved.stdout)["provenance"]["inputs"]
    assert {m: o["files"] for m, o in inputs.items()} == {m: [_piped(table)] for m in "abc"}


def test_monitor_records_the_bytes_piped_in() -> None:
    data = b"".join(b"%d,%d\n" % (i % 2, 1) for i in range(400))
    data = b"baseline,candidate\n" + data
    done = _evalsig("monitor", "-", "--format", "json", stdin=data)
    assert done.returncode == 0, done.stderr
    inputs = json.loads(done.stdout)["provenance"]["inputs"]
    assert inputs["baseline"]["files"] == inputs["candidate"]["files"] == [_piped(data)]
