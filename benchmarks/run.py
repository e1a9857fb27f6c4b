"""Run every benchmark and print its figures (`make bench`)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np
import scipy

import bench_arena
import bench_audit
import bench_bootstrap
import bench_cli_files
import bench_compare_large
import bench_continuous
import bench_facets
import bench_judge
import bench_leaderboard
import bench_leaderboard_dask
import bench_meta
import bench_multiplicity
import bench_noise
import bench_passk
import bench_readers
import bench_sequential
import bench_startup
import bench_store
import evalsig


def main() -> None:
    print(
        f"evalsig {evalsig.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}\n"
    )
    for module in (
        bench_bootstrap,
        bench_compare_large,
        bench_continuous,
        bench_readers,
        bench_cli_files,
        bench_multiplicity,
        bench_sequential,
        bench_leaderboard,
        bench_leaderboard_dask,
        bench_store,
        bench_meta,
        bench_noise,
        bench_facets,
        bench_passk,
        bench_arena,
        bench_judge,
        bench_audit,
        bench_startup,
    ):
        module.main()
        print()


if __name__ == "__main__":
    main()
