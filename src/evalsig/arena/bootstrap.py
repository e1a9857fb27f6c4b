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

import dataclasses

import numpy as np

from evalsig.arena.battles import Compressed
from evalsig.arena.design import Design
from evalsig.arena.fit import Ties, newton
from evalsig.errors import DataError

__all__ = ["bootstrap_params"]


def bootstrap_params(
    rows: Compressed,
    start: np.ndarray,
    /,
    *,
    ties: Ties,
    anchor: int,
    n_resamples: int,
    seed: np.random.SeedSequence,
) -> tuple[np.ndarray, int]:
    """``(n_resamples, K)`` free parameters of each resample (NaN rows where a resample
    has no finite maximum likelihood), and how many such resamples there were."""
    design = Design(rows, anchor)
    rng = np.random.default_rng(seed)
    out = np.full((n_resamples, len(start)), np.nan)
    failed = 0
    if rows.cluster is not None:
        labels, g = np.unique(rows.cluster, return_inverse=True)
        units = len(labels)
    else:
        total = round(float(rows.count.sum()))
    for i in range(n_resamples):
        if rows.cluster is not None:
            w = rng.multinomial(units, np.full(units, 1.0 / units))
            count = rows.count * w[g]
        else:
            count = rng.multinomial(total, rows.count / rows.count.sum()).astype(np.float64)
        drawn = dataclasses.replace(rows, count=count)
        try:
            params, _, _ = newton(design, drawn, ties, start, max_iter=60, tol=1e-8)
        except (DataError, np.linalg.LinAlgError):
            failed += 1
            continue
        if np.all(np.isfinite(params)) and float(np.max(np.abs(params - start))) < 50.0:
            out[i] = params
        else:
            failed += 1
    return out, failed
