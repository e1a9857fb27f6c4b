"""Start-up: ``import evalsig`` and ``evalsig --help`` in fresh processes, beside their floors.

Targets: both under 0.3 s. Heavy modules (numpy, scipy.stats, the readers, duckdb, jinja2)
load in the commands that use them; tests/test_cli_startup.py checks that they stay out of
``import evalsig.cli`` and ``--help``. The floors are the interpreter alone, typer and rich
(which any typer ``--help`` needs), and numpy, for scale.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from _util import compile_bytecode, row

TARGETS = {"import evalsig": 0.3, "evalsig --help": 0.3}
"""Seconds, best of the repeats, in a fresh process."""


def _best(command: list[str], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def _against(name: str, seconds: float) -> str:
    target = TARGETS.get(name)
    if target is None:
        return ""
    verdict = "within" if seconds <= target else "OVER"
    return f"target {target * 1000:,.0f} ms: {seconds / target:.2f}x, {verdict}"


def main() -> dict[str, float]:
    compile_bytecode()
    print("start-up in a fresh process (best of 5)")
    cli = str(Path(sys.executable).with_name("evalsig"))  # the venv's command
    out = {
        "python -c pass": _best([sys.executable, "-c", "pass"]),
        "import typer, rich.console": _best([sys.executable, "-c", "import typer, rich.console"]),
        "import numpy": _best([sys.executable, "-c", "import numpy"]),
        "import evalsig": _best([sys.executable, "-c", "import evalsig"]),
        "evalsig --help": _best([cli, "--help"]),
    }
    for name, seconds in out.items():
        print(row(name, seconds, _against(name, seconds)))
    return out


if __name__ == "__main__":
    main()
