"""Standard input is named ``-`` in what compare, gate and leaderboard print, never by the
temporary file that holds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

EVALSIG = [sys.executable, "-m", "evalsig"]


def _csv(path: Path, scores: np.ndarray, model: str | None = None) -> Path:
    head = "item,score" + (",model" if model else "")
    rows = [f"q{i},{s}" + (f",{model}" if model else "") for i, s in enumerate(scores)]
    path.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    return path


def _run(args: list[str], stdin: bytes) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*EVALSIG, *args], input=stdin.decode(), capture_output=True, text=True)
    assert "evalsig-stdin-" not in done.stdout + done.stderr
    return done


def test_compare_names_standard_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    base = _csv(tmp_path / "base.csv", rng.integers(0, 2, 300))
    cand = _csv(tmp_path / "cand.csv", rng.integers(0, 2, 300))
    done = _run(["compare", "-", str(cand), "--format", "json"], base.read_bytes())
    assert done.returncode in (0, 1, 3), done.stderr
    document = json.loads(done.stdout)
    baseline = document["provenance"]["inputs"]["baseline"]
    assert baseline["files"][0]["path"] == "-"
    text = _run(["compare", "-", str(cand)], base.read_bytes())
    assert text.returncode in (0, 1, 3), text.stderr


def test_gate_and_leaderboard_name_standard_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    base, cand = tmp_path / "base.csv", tmp_path / "cand.csv"
    for path in (base, cand):
        rows = [f"q{i},{int(rng.integers(0, 2))},arith" for i in range(300)]
        path.write_text("\n".join(["item,score,task", *rows]) + "\n", encoding="utf-8")
    policy = tmp_path / "gate.yaml"
    policy.write_text("name: release\ntasks:\n  - name: arith\n", encoding="utf-8")
    args = ["gate", "--policy", str(policy), str(base), "-", "--task-column", "task"]
    done = _run([*args, "--format", "json"], cand.read_bytes())
    assert done.returncode in (0, 1, 3), done.stderr
    candidate = json.loads(done.stdout)["provenance"]["inputs"]
    assert any(o and o["files"][0]["path"] == "-" for o in candidate.values())
    long = tmp_path / "long.csv"
    lines = ["item,score,model"] + [
        f"q{i},{int(rng.integers(0, 2))},{m}" for m in ("a", "b", "c") for i in range(100)
    ]
    long.write_text("\n".join(lines) + "\n", encoding="utf-8")
    board = _run(["leaderboard", "-", "--format", "json"], long.read_bytes())
    assert board.returncode == 0, board.stderr
