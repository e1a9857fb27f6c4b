"""A real dask.distributed cluster of worker processes gives exactly the local results."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from evalsig.data.models import ModelScores
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
    # Small blocks so that the work really is split into many tiles and item blocks.
    with (
        mock.patch.object(allpairs, "ITEM_BLOCK", 128),
        mock.patch.object(allpairs, "MODEL_BLOCK", 3),
        dask_executor(workers=2) as executor,
    ):
        assert len(executor.client.scheduler_info()["workers"]) == 2
        for binary in (True, False):
            for clusters in (False, True):
                scores = _scores(binary, clusters)
                here = local().pair_sums(scores.scores, scores.cluster_codes)
                there = executor.pair_sums(scores.scores, scores.cluster_codes)
                assert np.array_equal(here, there)
                assert np.array_equal(here, allpairs.pair_sums(scores.scores, scores.cluster_codes))
                one = leaderboard(scores, n_resamples=450, rng=3).to_dict()
                two = leaderboard(scores, n_resamples=450, rng=3, executor=executor).to_dict()
                assert one == two


def test_tiles_add_up_to_the_whole() -> None:
    """Blocked sums equal one product per cluster (exactly, for 0/1 scores)."""
    scores = _scores(True, True)
    with (
        mock.patch.object(allpairs, "ITEM_BLOCK", 50),
        mock.patch.object(allpairs, "MODEL_BLOCK", 2),
    ):
        blocked = allpairs.pair_sums(scores.scores, scores.cluster_codes)
    whole = allpairs.pair_sums(scores.scores, scores.cluster_codes)
    assert np.array_equal(blocked, whole)
    x = np.nan_to_num(scores.scores)
    p = (~np.isnan(scores.scores)).astype(float)
    first = scores.cluster_codes == 0
    assert np.array_equal(whole[0, 2], x[:, first] @ x[:, first].T)
    assert np.array_equal(whole[0, 0], p[:, first] @ p[:, first].T)
