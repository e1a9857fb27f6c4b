"""All-pairs leaderboards from score columns on disk, on a Dask LocalCluster of 1 and 2 workers.

Each task is a block of model pairs that reads its models' Parquet columns itself (only
paths and column names go to the workers, only the block's pairwise sums come back). The
figures: the in-memory leaderboard (all scores in this process, BLAS on every core), the
same blocks run one after another in this process, and a LocalCluster of 1 and of 2
single-threaded worker processes (started before the timing; best of 5 runs after one
warm-up run). Every result equals the in-memory leaderboard, which is checked here too.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from _util import best_time
from evalsig.data.models import ModelScores
from evalsig.distributed import dask_executor
from evalsig.inference._pair_sums import pair_blocks
from evalsig.leaderboard import (
    Leaderboard,
    leaderboard,
    leaderboard_from_columns,
    write_score_columns,
)


def _scores(m: int, n: int, binary: bool) -> ModelScores:
    rng = np.random.default_rng(0)
    skill = np.linspace(0.3, 0.8, m)[:, None]
    x = rng.random((m, n))
    return ModelScores(
        names=tuple(f"m{k}" for k in range(m)),
        item_ids=np.arange(n).astype(str),
        scores=(x < skill).astype(np.float64) if binary else x + skill,
        binary=binary,
        n_runs=(1,) * m,
        n_input=np.full(m, n),
    )


def _same(a: Leaderboard, b: Leaderboard) -> bool:
    """Equal results: every field but the provenance's creation time (the two boards may be
    made in different seconds)."""

    def result(board: Leaderboard) -> dict[str, Any]:
        out = board.to_dict()
        out["provenance"] = {k: v for k, v in out["provenance"].items() if k != "created"}
        return out

    return result(a) == result(b) and np.array_equal(a.pvalue, b.pvalue, equal_nan=True)


def _case(m: int, n: int, binary: bool, model_block: int) -> None:
    scores = _scores(m, n, binary)
    memory, want = best_time(lambda: leaderboard(scores))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "columns"
        written = write_score_columns(scores, path)
        size = sum(f.stat().st_size for f in path.iterdir())
        blocks = len(pair_blocks(written.n_models, model_block=model_block))
        here, got = best_time(lambda: leaderboard_from_columns(path, model_block=model_block))
        same = _same(got, want)
        times = {}
        for workers in (1, 2):
            with dask_executor(workers=workers) as executor:

                def run() -> Leaderboard:
                    return leaderboard_from_columns(
                        path, model_block=model_block, executor=executor
                    )

                run()  # warm-up: imports on the workers
                times[workers], got = best_time(run, repeat=5)
                same = same and _same(got, want)
    kind = "0/1" if binary else "continuous"
    print(
        f"  {m:,} models x {n:,} items ({kind}, {size / 2**20:,.1f} MB of Parquet), "
        f"{blocks} tasks (blocks of up to {model_block} x {model_block} models and mirrors):"
    )
    print(f"    in memory, one process:                {memory:6.2f} s")
    print(f"    from columns, blocks in this process:  {here:6.2f} s")
    print(f"    from columns, Dask 1 worker:           {times[1]:6.2f} s")
    print(
        f"    from columns, Dask 2 workers:          {times[2]:6.2f} s = "
        f"{times[1] / times[2]:.2f}x the speed of 1 worker"
    )
    print(f"    every result equal to the in-memory leaderboard: {same}")


def main() -> None:
    print(
        "Leaderboards from Parquet score columns on a Dask LocalCluster (1 and 2 worker "
        f"processes, one BLAS thread each; {os.cpu_count()} cores here)"
    )
    _case(200, 50_000, True, model_block=100)
    _case(200, 50_000, False, model_block=100)
    _case(1000, 50_000, True, model_block=250)


if __name__ == "__main__":
    main()
