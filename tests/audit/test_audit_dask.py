"""A real dask.distributed cluster of two worker processes gives the local audit exactly."""

from __future__ import annotations

import numpy as np
import pytest

from evalsig.audit import audit
from evalsig.data.provenance import without_time
from evalsig.distributed import dask_executor
from evalsig.simulate import MixtureDesign, fit_design, simulate_benchmark
from evalsig.simulate.audit_runner import CHUNK

pytest.importorskip("dask.distributed", reason="dask.distributed is not installed")


@pytest.mark.slow
def test_local_cluster_matches_the_single_process_audit() -> None:
    mixture = MixtureDesign(n_items=1500, n_runs=4, n_clusters=30, icc=0.1)
    fitted = fit_design(simulate_benchmark(n_items=800, n_runs=5, rng=2).baseline)
    with dask_executor(workers=2) as executor:
        assert len(executor.client.scheduler_info()["workers"]) == 2
        for design in (mixture, fitted):
            here = audit(design, n_simulations=3 * CHUNK + 11, rng=21)
            there = audit(design, n_simulations=3 * CHUNK + 11, rng=21, executor=executor)
            for a, b in zip(here.methods, there.methods, strict=True):
                assert np.array_equal(a.intervals, b.intervals)
            assert without_time(here.to_dict()) == without_time(there.to_dict())
