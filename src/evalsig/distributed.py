"""Where heavy work runs: in this process, or on a Dask cluster, with identical results.

The all-pairs sums are split into tiles (clusters x item blocks x model tiles, see
:func:`evalsig.inference.allpairs.tiles`) and the bootstrap into chunks with their own
seeds; an executor only decides where each piece runs. Every piece is a pure function of
its arguments (the blocking travels with each tile; no worker reads a setting of its own),
every piece's sums are exact, whatever BLAS or thread count computes them (see
:mod:`evalsig.inference._exact`), and pieces are combined in a fixed order, so a
distributed run gives the same numbers as a local one, bit for bit.

>>> import numpy as np
>>> local().pair_sums(np.array([[1.0, 0.0], [1.0, 1.0]]), None).shape
(1, 4, 2, 2)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._deprecation import renamed
from evalsig.errors import DataError
from evalsig.inference._pair_sums import zero_one_sums
from evalsig.inference.allpairs import (
    ITEM_BLOCK,
    MODEL_BLOCK,
    assemble,
    prepare,
    tile_sums,
    tiles,
)
from evalsig.inference.ranking import ranks_of_chunk, seed_sequence

__all__ = ["DaskExecutor", "Executor", "dask_executor", "executor_for", "local"]

CHUNK = 200
"""Bootstrap resamples per chunk (each chunk has its own child seed)."""


class Executor:
    """Runs the pieces in this process."""

    single_product: ClassVar[bool] = True
    """Whether complete 0/1 scores without clusters take one float32 product in this
    process (see :meth:`pair_sums`); an executor that runs every piece elsewhere says no."""

    def map(self, func: Any, shared: Any, pieces: list[Any]) -> list[Any]:
        """``[func(shared, piece) for piece in pieces]``, in order."""
        return [func(shared, piece) for piece in pieces]

    def pair_sums(
        self,
        scores: np.ndarray,
        codes: np.ndarray | None,
        *,
        item_block: int = ITEM_BLOCK,
        model_block: int = MODEL_BLOCK,
    ) -> np.ndarray:
        """``(G, 4, M, M)`` pairwise sums (see :func:`evalsig.inference.allpairs.pair_sums`).

        With the default blocking, complete 0/1 scores without clusters take one float32
        product here (see :func:`evalsig.inference._pair_sums.zero_one_sums`) when
        :attr:`single_product` is true: their counts are exact, so the blocking cannot
        change them. Other scores are split into tiles, each tile run by :meth:`map`.

        The blocking is decided here, in the calling process, and each task carries its
        items and models; workers read no settings of their own.
        """
        default = (item_block, model_block) == (ITEM_BLOCK, MODEL_BLOCK)
        if self.single_product and codes is None and default:
            whole = zero_one_sums(scores)
            if whole is not None:
                return whole
        prepared = prepare(scores, codes)
        tasks = tiles(prepared, item_block=item_block, model_block=model_block)
        return assemble(scores.shape[0], tasks, self.map(tile_sums, prepared, tasks))

    @renamed(seed="rng")
    def bootstrap_ranks(
        self,
        sums: np.ndarray,
        counts: np.ndarray,
        *,
        n_resamples: int,
        rng: np.random.SeedSequence | np.random.Generator | int,
        strata: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(M, n_resamples)`` bootstrap ranks, chunk by chunk (see
        :func:`evalsig.inference.ranking.bootstrap_ranks`)."""
        n_chunks = -(-n_resamples // CHUNK)
        pieces = [
            (min(CHUNK, n_resamples - k * CHUNK), child)
            for k, child in enumerate(seed_sequence(rng).spawn(n_chunks))
        ]
        parts = self.map(_chunk, (sums, counts, strata), pieces)
        return np.concatenate(parts, axis=1)


def _chunk(
    shared: tuple[np.ndarray, np.ndarray, np.ndarray | None], piece: tuple[int, Any]
) -> np.ndarray:
    sums, counts, strata = shared
    size, seed = piece
    return ranks_of_chunk(sums, counts, sums.shape[1], size, seed, strata)


def local() -> Executor:
    """The in-process executor."""
    return Executor()


@dataclass
class DaskExecutor(Executor):
    """Runs the pieces on a ``dask.distributed`` cluster through ``client``."""

    client: Any
    single_product: ClassVar[bool] = False
    """Every sum is tiled, and each tile runs on the cluster."""

    def map(self, func: Any, shared: Any, pieces: list[Any]) -> list[Any]:
        data = self.client.scatter(shared, broadcast=True, hash=False)
        futures = self.client.map(func, [data] * len(pieces), pieces, pure=False)
        return list(self.client.gather(futures))


@contextmanager
def dask_executor(
    scheduler: str | None = None, workers: int | None = None
) -> Iterator[DaskExecutor]:
    """Connect to ``scheduler`` (``tcp://host:8786``) or start a local cluster of ``workers``
    processes; closed on exit. Needs ``pip install 'evalsig-stats[distributed]'``."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - depends on the environment
        raise DataError(
            "distributed runs need dask.distributed; install it with "
            "pip install 'evalsig-stats[distributed]'."
        ) from None
    if scheduler is not None:
        with Client(scheduler) as client:  # type: ignore[no-untyped-call]
            yield DaskExecutor(client)
        return
    if workers is None or workers < 1:
        raise DataError(f"`workers` must be a positive number of processes; got {workers!r}.")
    # No dashboard, and the scheduler's HTTP server on a free port: with
    # dashboard_address=None it takes 8787, and a second cluster on the machine (another
    # run, another test worker) warns that the port is in use.
    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        scheduler_kwargs={"dashboard": False},
    )
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        yield DaskExecutor(client)


def executor_for(
    scheduler: str | None = None, workers: int | None = None
) -> AbstractContextManager[Executor | None]:
    """Dask when a scheduler or a number of workers is given, else None (in-process)."""
    if scheduler is None and workers is None:
        return nullcontext(None)
    return dask_executor(scheduler, workers)
