"""A real dask.distributed cluster of worker processes gives exactly the local results."""

from __future__ import annotations

import numpy as np
import pytest

from evalsig.data.models import ModelScores
from evalsig.data.provenance import without_time
from evalsig.distributed import dask_executor, local
from evalsig.inference import allpairs
from evalsig.leaderboard import leaderboard

pytest.importorskip("dask.distributed", reason="dask.distributed is not installed")


def _scores(binary: bool, clusters: bool) -> ModelScores:
    rng = np.random.default_rng(11)
    m, n = 7, 900
    values = rng.random((m, n))
    values = (values < 0.55).astype(float) if binary else values
    values[2, rng.choice(n, 40, replace=False)] = np.nan  # a model lacking items
    codes = np.repeat(np.arange(9), 100) if clusters else None
    return ModelScores(
        names=tuple(f"m{k}" for k in range(m)),
        item_ids=np.array([f"q{i}" for i in range(n)]),
        scores=values,
        binary=binary,
        n_runs=(1,) * m,
        cluster_codes=codes,
        cluster_labels=None if codes is None else np.array([f"c{g}" for g in range(9)]),
    )


@pytest.mark.slow
def test_local_cluster_matches_the_single_process_path() -> None:
    # Small blocks, passed explicitly, so that the work really is split into many tiles
    # and item blocks; each tile carries its blocking to the worker.
    blocks = {"item_block": 128, "model_block": 3}
    with dask_executor(workers=2) as executor:
        assert len(executor.client.scheduler_info()["workers"]) == 2
        for binary in (True, False):
            for clusters in (False, True):
                scores = _scores(binary, clusters)
                here = local().pair_sums(scores.scores, scores.cluster_codes, **blocks)
                there = executor.pair_sums(scores.scores, scores.cluster_codes, **blocks)
                assert np.array_equal(here, there)
                direct = allpairs.pair_sums(scores.scores, scores.cluster_codes, **blocks)
                assert np.array_equal(here, direct)
                assert np.array_equal(
                    local().pair_sums(scores.scores, scores.cluster_codes),
                    executor.pair_sums(scores.scores, scores.cluster_codes),
                )
                one = leaderboard(scores, n_resamples=450, rng=3, on_missing="intersect")
                two = leaderboard(
                    scores, n_resamples=450, rng=3, on_missing="intersect", executor=executor
                )
                assert without_time(one.to_dict()) == without_time(two.to_dict())
                assert np.array_equal(one.difference, two.difference, equal_nan=True)
                assert np.array_equal(one.pvalue, two.pvalue, equal_nan=True)
        # Workers run BLAS on one thread, this process on several: a shape whose plain
        # float64 products OpenBLAS adds differently then, with the default blocking.
        rng = np.random.default_rng(5)
        wide = rng.random((50, 5000))
        wide[3, rng.choice(5000, 300, replace=False)] = np.nan
        assert np.array_equal(local().pair_sums(wide, None), executor.pair_sums(wide, None))


def test_tiles_add_up_to_the_whole() -> None:
    """Blocked sums equal one product per cluster (exactly, for 0/1 scores)."""
    scores = _scores(True, True)
    blocked = allpairs.pair_sums(scores.scores, scores.cluster_codes, item_block=50, model_block=2)
    assert (
        len(
            allpairs.tiles(
                allpairs.prepare(scores.scores, scores.cluster_codes), item_block=50, model_block=2
            )
        )
        == 9 * 2 * 16
    )
    whole = allpairs.pair_sums(scores.scores, scores.cluster_codes)
    assert np.array_equal(blocked, whole)
    x = np.nan_to_num(scores.scores)
    p = (~np.isnan(scores.scores)).astype(float)
    first = scores.cluster_codes == 0
    assert np.array_equal(whole[0, 2], x[:, first] @ x[:, first].T)
    assert np.array_equal(whole[0, 0], p[:, first] @ p[:, first].T)


def test_two_local_clusters_at_once_start_without_a_warning() -> None:
    """Each local cluster's scheduler serves HTTP on a free port, not on dask's 8787: a
    second cluster on the machine (another run, another test worker) would warn that the
    port is in use (an error under the suite's warning filter)."""
    with dask_executor(workers=1) as first, dask_executor(workers=1) as second:
        ports = [e.client.scheduler_info()["services"].get("dashboard") for e in (first, second)]
    assert 8787 not in ports
    assert ports[0] != ports[1]
