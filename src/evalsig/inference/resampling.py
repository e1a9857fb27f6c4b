"""The exact resampling engine: bootstrap and sign-flip draws over compressed data.

A bootstrap or sign-flip resample of a sum over items depends on the data only through
how often each distinct value is drawn (or flipped). Paired binary differences take
3 values, per-item means over R runs at most 2R + 1, so the engine works on *atoms*:
the distinct rows of the per-item data and their multiplicities ``m_j``.

* Bootstrap: drawing n items with replacement gives atom counts
  ``W ~ Multinomial(n, m / n)``; the resampled total is ``W @ values``.
* Sign flips: flipping each item's sign with probability 1/2 flips
  ``F_j ~ Binomial(m_j, 1/2)`` items of atom j; the flipped total is ``F @ values``.

Both are the same distributions as the naive ``B x n`` resample, not approximations.
When atoms are nearly as many as items there is nothing to compress, and the engine
draws item indices (or flip bits) in chunks of bounded size instead; no ``B x n`` matrix
is ever held in memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evalsig.progress import report

__all__ = [
    "Atoms",
    "atoms",
    "bootstrap_totals",
    "flip_totals",
    "flip_totals_exact",
    "jackknife_totals",
]

CHUNK_BYTES = 32 * 2**20
"""Upper bound on the size of one chunk of draws (bounds peak memory)."""

GATHER_BYTES = 12 * 2**20
"""Target size of one chunk of item indices plus their gathered values (best of 3 - 48 MB
measured at n = 100,000; smaller chunks pay for more hand-offs to the drawing thread)."""

COMPRESSION_GAIN = 8
"""Use atom counts when the items outnumber the atoms by at least this factor."""


@dataclass(frozen=True, slots=True)
class Atoms:
    """Distinct rows of per-item data with their multiplicities (an exact compression)."""

    values: np.ndarray
    """``(J,)`` or ``(J, k)`` distinct values."""
    counts: np.ndarray
    """``(J,)`` int64 multiplicities, summing to the number of items."""

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def total(self) -> np.ndarray:
        """Column totals over all items: ``sum_j m_j v_j``."""
        return np.asarray(self.counts @ self.values, dtype=np.float64)

    def expand(self) -> np.ndarray:
        """The per-item data in atom order (only for small data and tests)."""
        return np.repeat(self.values, self.counts, axis=0)


def atoms(x: np.ndarray) -> Atoms:
    """Compress per-item data ``(n,)`` or ``(n, k)`` into its distinct rows, exactly."""
    x = np.asarray(x, dtype=np.float64)
    values, counts = np.unique(x, axis=0 if x.ndim == 2 else None, return_counts=True)
    return Atoms(values=values, counts=counts.astype(np.int64))


def _chunk_size(row_bytes: int, n_resamples: int) -> int:
    return max(1, min(n_resamples, CHUNK_BYTES // max(row_bytes, 1)))


def _compresses(a: Atoms) -> bool:
    """Whether drawing per-atom counts beats drawing per-item indices."""
    return len(a.counts) * COMPRESSION_GAIN <= a.n


def bootstrap_totals(
    data: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    *,
    compressed: Atoms | None = None,
) -> np.ndarray:
    """Totals of ``n_resamples`` bootstrap resamples of the n items.

    Parameters
    ----------
    data : ndarray (n,) or (n, k)
        Per-item values (rows are resampled jointly, so paired columns stay paired).
    n_resamples : int
    rng : numpy.random.Generator
    compressed : Atoms, optional
        ``atoms(data)``, when the caller has it already.

    Returns
    -------
    ndarray (B,) or (B, k)
        ``sum_i w_i x_i`` for multinomial item weights ``w ~ Multinomial(n, 1/n)``.
    """
    a = compressed if compressed is not None else atoms(data)
    n = a.n
    out = np.empty((n_resamples, *a.values.shape[1:]))
    if _compresses(a):
        p = a.counts / n
        step = _chunk_size(8 * len(p), n_resamples)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            out[start:stop] = rng.multinomial(n, p, size=stop - start) @ a.values
        return out
    _index_totals(np.asarray(data, dtype=np.float64), rng, out)
    return out


def _index_totals(x: np.ndarray, rng: np.random.Generator, out: np.ndarray) -> None:
    """Fill ``out[b] = sum_i x[idx_bi]`` for B rows of n item indices drawn by ``rng``.

    Indices are drawn as int64 (numpy gathers them without a cast; below 2**32 they are the
    same stream as int32) in chunks of a few rows, gathered into one reused buffer; the next
    chunk is drawn while one is summed. The totals are bit for bit those of a plain loop
    drawing ``idx = rng.integers(0, n, size=n)`` one resample at a time and summing
    ``x[idx].sum(axis=0)``. Rows of several columns are gathered item-major, ``(n, rows,
    columns)``, so that the sum runs over the first axis in the loop's order with every
    add contiguous (summing the middle axis of ``(rows, n, columns)`` is 20-30x slower).
    """
    n, n_resamples = x.shape[0], out.shape[0]
    width = 1 if x.ndim == 1 else x.shape[1]
    step = max(1, min(n_resamples, GATHER_BYTES // (8 * n * (1 + width))))
    chunks = [(start, min(start + step, n_resamples)) for start in range(0, n_resamples, step)]
    buffer = np.empty(step * x.size)

    def draw(chunk: tuple[int, int]) -> np.ndarray:
        return rng.integers(0, n, size=(chunk[1] - chunk[0], n), dtype=np.int64)

    def add_up(idx: np.ndarray, chunk: tuple[int, int]) -> None:
        total = out[chunk[0] : chunk[1]]
        if x.ndim == 1:  # (rows, n): numpy's pairwise sum along each row, as x[idx].sum()
            flat = buffer[: idx.size].reshape(idx.shape)
            np.take(x, idx, out=flat, mode="clip")  # in range; "clip" skips a copy
            np.add.reduce(flat, axis=1, out=total)
        else:  # (n, rows, columns): one contiguous add per item, as x[idx].sum(axis=0)
            items = buffer[: idx.size * width].reshape(n, len(idx), width)
            np.take(x, idx.T, axis=0, out=items, mode="clip")
            np.add.reduce(items, axis=0, out=total)
        report("bootstrap resamples", chunk[1], n_resamples)

    _one_ahead(chunks, draw, add_up)


def _one_ahead(
    chunks: list[tuple[int, int]],
    draw: Callable[[tuple[int, int]], np.ndarray],
    use: Callable[[np.ndarray, tuple[int, int]], None],
) -> None:
    """``use(draw(chunk), chunk)`` for each chunk, drawing the next one on a helper thread.

    numpy releases the GIL while it draws, gathers and sums, so drawing chunk k + 1 overlaps
    using chunk k. Every draw runs in the helper thread in chunk order, one at a time: the
    generator gives the same numbers, in the same order, as a loop in one thread.
    """
    from concurrent.futures import ThreadPoolExecutor

    if len(chunks) <= 1:  # nothing to overlap
        for chunk in chunks:
            use(draw(chunk), chunk)
        return
    with ThreadPoolExecutor(max_workers=1) as drawer:
        pending = drawer.submit(draw, chunks[0])
        for i, chunk in enumerate(chunks):
            drawn = pending.result()
            if i + 1 < len(chunks):
                pending = drawer.submit(draw, chunks[i + 1])
            use(drawn, chunk)


def jackknife_totals(a: Atoms) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-out totals, one per atom, with the number of items each stands for.

    Returns ``(totals_without_j, m_j)``; weighting by ``m_j`` reproduces the n-point jackknife.
    """
    return a.total() - a.values, a.counts


def flip_totals(
    data: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    *,
    compressed: Atoms | None = None,
) -> np.ndarray:
    """Totals over a random half of the items: each item is flipped with probability 1/2.

    Returns ``sum_i F_i x_i`` for ``F_i ~ Bernoulli(1/2)`` independent, ``B`` times. With
    ``x = d`` the sign-flipped sum of differences is ``sum(d) - 2 * flip_totals``.
    """
    a = compressed if compressed is not None else atoms(data)
    out = np.empty((n_resamples, *a.values.shape[1:]))
    if _compresses(a):
        step = _chunk_size(8 * len(a.counts), n_resamples)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            flipped = rng.binomial(a.counts, 0.5, size=(stop - start, len(a.counts)))
            out[start:stop] = flipped @ a.values
        return out
    x = np.asarray(data, dtype=np.float64)
    n = x.shape[0]
    step = _chunk_size(n * 9, n_resamples)
    for start in range(0, n_resamples, step):
        stop = min(start + step, n_resamples)
        bits = rng.integers(0, 2, size=(stop - start, n), dtype=np.int8)
        out[start:stop] = bits.astype(np.float64) @ x
        report("sign-flip resamples", stop, n_resamples)
    return out


def flip_totals_exact(a: Atoms, limit: int = 2**20) -> tuple[np.ndarray, np.ndarray] | None:
    """The exact distribution of :func:`flip_totals`, when it has at most ``limit`` points.

    Enumerates every vector of per-atom flip counts ``F_j in 0..m_j`` with probability
    ``prod_j C(m_j, F_j) / 2^{m_j}``. Returns ``(totals, probabilities)`` or None when the
    support ``prod_j (m_j + 1)`` exceeds ``limit``.
    """
    size = 1
    for m in a.counts:
        size *= int(m) + 1
        if size > limit:
            return None
    width = () if a.values.ndim == 1 else (a.values.shape[1],)
    totals = np.zeros((1, *width))
    probs = np.ones(1)
    for value, m in zip(a.values, a.counts, strict=True):
        f = np.arange(int(m) + 1)
        pmf = np.exp(
            _log_comb(int(m), f) - int(m) * math.log(2.0)
        )  # C(m, f) / 2^m, stable for large m
        step = np.multiply.outer(f, value).reshape(len(f), *width)
        totals = (totals[:, None] + step[None, :]).reshape(-1, *width)
        probs = np.multiply.outer(probs, pmf).ravel()
    return (totals if width else totals.ravel()), probs


def _log_comb(m: int, f: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln

    return np.asarray(gammaln(m + 1) - gammaln(f + 1) - gammaln(m - f + 1))
