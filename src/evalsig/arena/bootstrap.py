"""A bootstrap of Bradley-Terry scores that reweighs compressed rows instead of copying
battles.

Each resample draws the units once, with one seeded multinomial shared by every model:
with clusters (prompts), ``w ~ Multinomial(G, 1/G)`` over the clusters and every row of
cluster g counts ``w_g`` times; without, the battles themselves, ``n* ~ Multinomial(N,
n / N)`` over the rows. The fit is then redone on the same rows (warm-started at the full
fit), never on a copy of a million battles. Two copies of a model that met the same
opponents on the same prompts (clusters) see the same draws, so their intervals agree
exactly; the battle-level bootstrap of FastChat, which refits on resampled battle lists,
gives such copies intervals that differ by Monte Carlo noise. Without clusters each battle
is its own unit, and two copies' battles are different units: their intervals then agree
only up to that noise (give the prompts as clusters).
"""

from __future__ import annotations

import numpy as np

from evalsig._deprecation import renamed
from evalsig.arena.battle_arrays import Compressed
from evalsig.arena.design import Design
from evalsig.arena.fit import CONVERGED, Ties, newton_many

__all__ = ["BATCH_CELLS", "bootstrap_params"]

BATCH_CELLS = 1 << 16
"""The resamples fitted at once hold about this many numbers per array (512 KB of floats),
so that a batch's arrays stay in the processor's cache: small arenas fit hundreds of
resamples at once (20x as fast as one at a time), large ones (more compressed rows than
this) one at a time, where bigger batches measured slower."""


@renamed(seed="rng")
def bootstrap_params(
    rows: Compressed,
    start: np.ndarray,
    /,
    *,
    ties: Ties,
    anchor: int,
    n_resamples: int,
    rng: np.random.Generator | np.random.SeedSequence | int,
) -> tuple[np.ndarray, int]:
    """``(n_resamples, K)`` free parameters of each resample (NaN rows where a resample
    has no finite maximum likelihood), and how many such resamples there were.

    The resamples are fitted together, a batch at a time (:func:`newton_many`), so that
    each Newton step is a few array operations for the whole batch."""
    design = Design(rows, anchor)
    rng = np.random.default_rng(rng)
    out = np.full((n_resamples, len(start)), np.nan)
    failed = 0
    if rows.cluster is not None:
        labels, g = np.unique(rows.cluster, return_inverse=True)
        units = len(labels)
    else:
        total = round(float(rows.count.sum()))
    size = max(1, BATCH_CELLS // max(len(rows.count), design.m * design.m, len(start) ** 2))
    for first in range(0, n_resamples, size):
        chunk = range(first, min(first + size, n_resamples))
        counts = np.empty((len(chunk), len(rows.count)))
        for j in range(len(chunk)):  # one draw after another: the stream of a loop of fits
            if rows.cluster is not None:
                counts[j] = rows.count * rng.multinomial(units, np.full(units, 1.0 / units))[g]
            else:
                counts[j] = rng.multinomial(total, rows.count / rows.count.sum())
        params, _, _, status = newton_many(
            design, counts * rows.weight, rows.outcome, ties, start, max_iter=60, tol=1e-8
        )
        finite = np.all(np.isfinite(params), axis=1)
        near = np.max(np.abs(np.where(finite[:, None], params - start, np.inf)), axis=1) < 50.0
        kept = (status == CONVERGED) & near
        out[chunk.start : chunk.stop][kept] = params[kept]
        failed += int(np.sum(~kept))
    return out, failed
