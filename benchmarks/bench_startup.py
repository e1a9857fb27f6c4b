"""Start-up: ``import evalsig`` and ``evalsig --help`` in fresh processes, beside ``import numpy``.

Targets: both under 0.3 s. Heavy modules (scipy.stats, the readers) load where they are used.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from _util import row

TARGET = 0.3


def _best(command: list[str], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> dict[str, float]:
    print("start-up in a fresh process (best of 5)")
    cli = str(Path(sys.executable).with_name("evalsig"))  # the venv's command
    out = {
        "import numpy": _best([sys.executable, "-c", "import numpy"]),
        "import evalsig": _best([sys.executable, "-c", "import evalsig"]),
        "evalsig --help": _best([cli, "--help"]),
    }
    for name, seconds in out.items():
        print(row(name, seconds))
    print(f"  targets: import evalsig and evalsig --help under {TARGET * 1000:,.0f} ms")
    return out


if __name__ == "__main__":
    main()
