"""``evalsig compare A B --run run`` on long files of 8M rows a model, beside pyarrow and pandas.

Targets: the whole command (start-up, reading both files, pairing, the test) within 3x
of pyarrow reading the same two files, and its peak RSS within 2x of pandas reading them.
Each side runs in a fresh process, and its own peak RSS is read (``VmHWM``: ``ru_maxrss``
would count the memory ``make bench`` holds when it starts the process). ``EVALSIG_BENCH_ITEMS``
sets the items per model (default 1,000,000, with 8 runs each); ``EVALSIG_BENCH_FORMATS``
the formats (comma-separated, default all: parquet,csv,csv.gz,jsonl). The machine is
shared, so evalsig and pyarrow run in turn ``EVALSIG_BENCH_REPEAT`` times (default 3) and
the best time (and lowest peak RSS) of each is kept.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from _util import compile_bytecode

N_ITEMS = int(os.environ.get("EVALSIG_BENCH_ITEMS", "1000000"))
N_RUNS = 8
REPEAT = int(os.environ.get("EVALSIG_BENCH_REPEAT", "3"))
ALL_FORMATS = ("parquet", "csv", "csv.gz", "jsonl")
FORMATS = tuple(
    f.strip() for f in os.environ.get("EVALSIG_BENCH_FORMATS", ",".join(ALL_FORMATS)).split(",")
)

_MEASURE = """
import resource, sys, time
start = time.perf_counter()
{body}
seconds = time.perf_counter() - start
try:  # VmHWM: this process's own peak; ru_maxrss counts the parent's memory at the fork
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(seconds, peak * 1024, file=sys.stderr)
"""

_READERS = {
    "pyarrow": {
        "parquet": "import pyarrow.parquet as m; [m.read_table(p) for p in PATHS]",
        "csv": "import pyarrow.csv as m; [m.read_csv(p) for p in PATHS]",
        "csv.gz": "import pyarrow.csv as m; [m.read_csv(p) for p in PATHS]",
        "jsonl": "import pyarrow.json as m; [m.read_json(p) for p in PATHS]",
    },
    "pandas": {
        "parquet": "import pandas as m; [m.read_parquet(p) for p in PATHS]",
        "csv": "import pandas as m; [m.read_csv(p) for p in PATHS]",
        "csv.gz": "import pandas as m; [m.read_csv(p) for p in PATHS]",
        "jsonl": "import pandas as m; [m.read_json(p, lines=True) for p in PATHS]",
    },
}


def _write(folder: Path, name: str, scores: np.ndarray) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    item = np.repeat(np.arange(N_ITEMS), N_RUNS)
    table = pa.table(
        {
            "item": pa.array(np.char.add("q", item.astype(str))),
            "run": np.tile(np.arange(N_RUNS), N_ITEMS),
            "score": scores,
        }
    )
    paths = {fmt: folder / f"{name}.{fmt}" for fmt in ALL_FORMATS}
    if "parquet" in FORMATS:
        pq.write_table(table, paths["parquet"])
    if "csv" in FORMATS or "csv.gz" in FORMATS:
        pacsv.write_csv(table, paths["csv"])
    if "csv.gz" in FORMATS:
        with (
            open(paths["csv"], "rb") as src,
            gzip.open(paths["csv.gz"], "wb", compresslevel=1) as dst,
        ):
            shutil.copyfileobj(src, dst, 1 << 20)
    if "jsonl" not in FORMATS:
        return paths
    with open(paths["jsonl"], "w", encoding="utf-8") as f:
        for batch in table.to_batches(1 << 16):
            columns = batch.to_pydict()
            f.writelines(
                f'{{"item": "{i}", "run": {r}, "score": {s!r}}}\n'
                for i, r, s in zip(columns["item"], columns["run"], columns["score"], strict=True)
            )
    return paths


def _run(body: str) -> tuple[float, int]:
    """Wall seconds (measured inside the child) and peak RSS bytes of a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE.format(body=body)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(rss)


def _cli(a: Path, b: Path) -> tuple[float, int]:
    evalsig = Path(sys.executable).parent / "evalsig"
    command = [str(evalsig), "compare", str(a), str(b), "--run", "run", "--format", "json"]
    wrapper = (
        "import subprocess, resource, sys, time\n"
        "start = time.perf_counter()\n"
        f"subprocess.run({command!r}, check=True, stdout=subprocess.DEVNULL)\n"
        "seconds = time.perf_counter() - start\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(seconds, rss, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper], capture_output=True, text=True, check=True
    )
    seconds, rss = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(rss)


def _best_of(
    ours: Callable[[], tuple[float, int]], peer: Callable[[], tuple[float, int]]
) -> tuple[float, int, float]:
    """Best time and lowest peak RSS of ``ours``, best time of ``peer``: run in turn, so
    that a busy spell of the machine slows both."""
    times, peaks, peer_times = [], [], []
    for _ in range(REPEAT):
        seconds, rss = ours()
        times.append(seconds)
        peaks.append(rss)
        peer_times.append(peer()[0])
    return min(times), min(peaks), min(peer_times)


def main() -> dict[str, float]:
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        print(
            "CLI compare from files: needs pyarrow and pandas "
            "(pip install 'evalsig-stats[columnar]')"
        )
        return {}
    compile_bytecode()
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, N_ITEMS).repeat(N_RUNS)
    out: dict[str, float] = {}
    print(
        f"evalsig compare A B --run run: {N_ITEMS:,} items x {N_RUNS} runs "
        f"({N_ITEMS * N_RUNS:,} rows) per model, each side in a fresh process, best of {REPEAT}"
    )
    print(f"  {'scores, format':<24} {'evalsig':>9} {'pyarrow':>9} {'ratio':>7}   "
          f"{'RSS':>9} {'pandas':>9} {'ratio':>7}")  # fmt: skip
    for kind in ("binary", "continuous"):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            draw = rng.random((2, p.size))
            if kind == "binary":
                a_scores, b_scores = (draw < p).astype(np.int8)
            else:
                a_scores, b_scores = np.round(draw * p, 4)
            a, b = _write(folder, "a", a_scores), _write(folder, "b", b_scores)
            for fmt in FORMATS:
                paths = f"PATHS = [{str(a[fmt])!r}, {str(b[fmt])!r}]\n"
                ours, ours_rss, arrow = _best_of(
                    partial(_cli, a[fmt], b[fmt]), partial(_run, paths + _READERS["pyarrow"][fmt])
                )
                _, pandas_rss = _run(paths + _READERS["pandas"][fmt])
                ratio, rss_ratio = ours / arrow, ours_rss / pandas_rss
                out[f"{kind}_{fmt}_time_ratio"] = ratio
                out[f"{kind}_{fmt}_rss_ratio"] = rss_ratio
                print(
                    f"  {kind + ', ' + fmt:<24} {ours:>8.2f}s {arrow:>8.2f}s {ratio:>6.1f}x   "
                    f"{ours_rss / 2**20:>7.0f}MB {pandas_rss / 2**20:>7.0f}MB {rss_ratio:>6.2f}x"
                )
    print("  targets: time within 3x of pyarrow reading both files; peak RSS within 2x of pandas")
    return out


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"  ({time.perf_counter() - start:.0f} s)")
