"""All-pairs sums computed two more ways, with the numbers of :mod:`evalsig.inference.allpairs`.

* Complete 0/1 scores in this process (:func:`zero_one_sums`): one float32 product
  ``X X^T`` after one pass that checks and casts the scores a few rows at a time. Every
  count is an integer below 2^24, exact in float32 whatever the blocking or the order of
  the additions, so the sums equal the tiled ones bit for bit.
* One block of model pairs and its mirror below the diagonal, read from score columns
  (:func:`block_sums`): 0/1 scores by one float32 product per cluster; continuous scores
  by the exact slice products of :mod:`evalsig.inference._exact` over the same item blocks
  as the in-memory tiles, each entry's products added in the order of the default
  in-memory tile that holds it, so blocks of any size give the bits of
  :func:`evalsig.leaderboard.leaderboard`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._exact import row_sums, split
from evalsig.inference.allpairs import (
    ITEM_BLOCK,
    MAX_ITEM_BLOCK,
    MODEL_BLOCK,
    cluster_groups,
    prepare,
    tile_sums,
    tiles,
)

__all__ = ["PairBlock", "Sums", "assemble_blocks", "block_sums", "pair_blocks", "zero_one_sums"]

_FLOAT64_BITS = 53
"""Significand bits of float64 (as :mod:`evalsig.inference._exact`)."""
_CHECK_BYTES = 1 << 18
"""Scores checked and cast per step (256 kB: the step's buffers stay in cache)."""


def zero_one_sums(scores: np.ndarray, /) -> np.ndarray | None:
    """``(1, 4, M, M)`` sums n, xm, xx, qm of complete 0/1 scores; None for other scores.

    ``xx = X X^T`` is one float32 product; ``n`` is the number of items; ``xm = qm`` hold
    each row model's total, the diagonal of ``xx`` (``x^2 = x``). None when a score is
    missing (NaN) or not 0/1, when the scores are not float64 or when there are 2^24
    items or more: then the tiled sums apply.
    """
    if scores.ndim != 2 or scores.dtype != np.float64 or scores.shape[1] >= MAX_ITEM_BLOCK:
        return None
    x = _float32_if_zero_one(scores)
    if x is None:
        return None
    xx = x @ x.T  # a symmetric product: one BLAS syrk
    m, n = scores.shape
    out = np.empty((1, 4, m, m))
    out[0, 0] = n
    out[0, 2] = xx
    out[0, 1] = np.diagonal(xx)[:, None]
    out[0, 3] = out[0, 1]
    return out


def _float32_if_zero_one(scores: np.ndarray) -> np.ndarray | None:
    """The scores as float32 when every one is 0 or 1 (NaN is neither), else None.

    One pass over the scores in their memory order (a matrix aligned by item is in column
    order), a few lines at a time with reused buffers: the check and the cast read each
    score once and allocate only the result, in the same order.
    """
    if scores.flags.f_contiguous and not scores.flags.c_contiguous:
        lines = _float32_lines_if_zero_one(scores.T)
        return None if lines is None else lines.T
    return _float32_lines_if_zero_one(scores)


def _float32_lines_if_zero_one(scores: np.ndarray) -> np.ndarray | None:
    """:func:`_float32_if_zero_one`, row block by row block."""
    m, n = scores.shape
    rows = max(1, _CHECK_BYTES // (8 * max(n, 1)))
    out = np.empty((m, n), dtype=np.float32)
    is_zero = np.empty((rows, n), dtype=bool)
    is_one = np.empty((rows, n), dtype=bool)
    for start in range(0, m, rows):
        block = scores[start : start + rows]
        zero, one = is_zero[: len(block)], is_one[: len(block)]
        np.equal(block, 0.0, out=zero)
        np.equal(block, 1.0, out=one)
        np.logical_or(zero, one, out=zero)
        if not zero.all():
            return None
        out[start : start + len(block)] = block
    return out


@dataclass(frozen=True, slots=True)
class PairBlock:
    """A block of model pairs: ``rows`` x ``cols`` (positions in the model order)."""

    rows: slice
    cols: slice
    in_diagonal_tile: bool
    """Both sides lie in one tile side of the default blocking (``MODEL_BLOCK`` models)."""

    @property
    def diagonal(self) -> bool:
        return self.rows == self.cols


def pair_blocks(n_models: int, *, model_block: int) -> list[PairBlock]:
    """The blocks on and above the diagonal, at most ``model_block`` models a side, nested
    in the default tiles (a block below the diagonal comes with its mirror above)."""
    sides: list[tuple[int, slice]] = []
    for first in range(0, n_models, MODEL_BLOCK):
        end = min(first + MODEL_BLOCK, n_models)
        sides += [
            (first, slice(s, min(s + model_block, end))) for s in range(first, end, model_block)
        ]
    return [
        PairBlock(rows, cols, tile_r == tile_c)
        for tile_r, rows in sides
        for tile_c, cols in sides
        if rows.start <= cols.start
    ]


Sums = tuple[np.ndarray, "np.ndarray | None"]
"""A block's ``(G, 4, r, c)`` sums and its mirror's ``(G, 4, c, r)`` (None on the diagonal)."""


def block_sums(x: np.ndarray, codes: np.ndarray | None, block: PairBlock, /) -> Sums:
    """The sums of a block and of its mirror below the diagonal, from complete scores.

    ``x`` holds the block's row models, then (off the diagonal) its column models, over
    every item (no NaN): float32 scores, all 0 or 1 (the reader checked them), or float64
    scores. 0/1 scores: one float32 product per cluster (exact counts). Other scores: the
    item blocks of :func:`~evalsig.inference.allpairs.tiles` with the default
    ``item_block``, each slice product computed once and added in the order of the
    in-memory tile that holds each entry (see :func:`_gram_both_ways`).
    """
    n_rows = block.rows.stop - block.rows.start
    if x.dtype == np.float32:
        zero_one: np.ndarray | None = x
    else:
        zero_one = _float32_if_zero_one(x) if x.shape[1] < MAX_ITEM_BLOCK else None
    if zero_one is not None:
        return _zero_one_block(zero_one, codes, n_rows, block.diagonal)
    prepared = prepare(x, codes)
    if prepared.present is not None:
        raise DataError("the scores of a block of pairs must be complete (no NaN); align them.")
    rows = slice(0, n_rows)
    if block.diagonal:
        tasks = tiles(prepared, item_block=ITEM_BLOCK, model_block=n_rows)
        out = np.zeros((len(prepared.bounds), 4, n_rows, n_rows))
        for task in tasks:
            out[task[0]] += tile_sums(prepared, task)
        return out, None
    cols = slice(n_rows, x.shape[0])
    n_cols = x.shape[0] - n_rows
    upper = np.zeros((len(prepared.bounds), 4, n_rows, n_cols))
    lower = np.zeros((len(prepared.bounds), 4, n_cols, n_rows))
    for g, start, stop, _, _ in tiles(prepared, item_block=ITEM_BLOCK, model_block=x.shape[0]):
        left, right = prepared.x[rows, start:stop], prepared.x[cols, start:stop]
        xx, xx_mirror = _gram_both_ways(left, right, diagonal_tile=block.in_diagonal_tile)
        upper[g] += _complete_sums(left, right.shape[0], xx)
        lower[g] += _complete_sums(right, left.shape[0], xx_mirror)
    return upper, lower


def _zero_one_block(x: np.ndarray, codes: np.ndarray | None, n_rows: int, diagonal: bool) -> Sums:
    """:func:`block_sums` of float32 0/1 scores: per cluster, n, row totals and X_r X_c^T."""
    groups = cluster_groups(codes, x.shape[1])
    if codes is not None:
        x = x[:, np.concatenate(groups)]
    left = x[:n_rows]
    right = left if diagonal else x[n_rows:]
    upper = np.empty((len(groups), 4, n_rows, right.shape[0]))
    lower = None if diagonal else np.empty((len(groups), 4, right.shape[0], n_rows))
    stop = 0
    for g, group in enumerate(groups):
        start, stop = stop, stop + len(group)
        a, b = left[:, start:stop], right[:, start:stop]
        xx = a @ b.T
        upper[g, 0] = stop - start
        upper[g, 2] = xx
        upper[g, 1] = a.sum(axis=1, dtype=np.float64)[:, None]
        upper[g, 3] = upper[g, 1]
        if lower is not None:
            lower[g, 0] = stop - start
            lower[g, 2] = xx.T
            lower[g, 1] = b.sum(axis=1, dtype=np.float64)[:, None]
            lower[g, 3] = lower[g, 1]
    return upper, lower


def _complete_sums(left: np.ndarray, n_cols: int, xx: np.ndarray) -> np.ndarray:
    """``(4, r, c)``: n, xm, xx, qm of ``left``'s models against ``n_cols`` models with
    every item, as :func:`~evalsig.inference.allpairs.tile_sums` gives them."""
    out = np.empty((4, left.shape[0], n_cols))
    out[0] = left.shape[1]
    out[1] = row_sums(left)[:, None]
    out[2] = xx
    out[3] = row_sums(left * left)[:, None]
    return out


def _gram_both_ways(
    left: np.ndarray, right: np.ndarray, *, diagonal_tile: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``left @ right.T`` and ``right @ left.T``, each entry as its in-memory tile adds it.

    The slices of :func:`evalsig.inference._exact.gram` give products ``P[s, t] =
    a_s b_t^T``, each exact, computed once here. A diagonal tile (``diagonal_tile``) adds,
    for ``s <= t`` and ``s + t < count``, the products (s, t) and then (t, s) of each of
    its entries; an off-diagonal tile adds (s, t) for every ``s``, then every ``t``. The
    mirror adds the transposes: its entry (j, i) takes ``P[t, s]`` where (i, j) takes
    ``P[s, t]``.
    """
    k = left.shape[1]
    width = (_FLOAT64_BITS - max(k - 1, 0).bit_length()) // 2  # as gram's
    a, b = split(left, width), split(right, width)
    count = len(a)
    if diagonal_tile:
        order = [
            pair
            for s in range(count)
            for t in range(s, count - s)
            for pair in ([(s, s)] if s == t else [(s, t), (t, s)])
        ]
        mirror_order = [
            pair
            for s in range(count)
            for t in range(s, count - s)
            for pair in ([(s, s)] if s == t else [(t, s), (s, t)])
        ]
    else:
        order = [(s, t) for s in range(count) for t in range(count - s)]
        mirror_order = [(t, s) for s, t in order]
    products = {pair: a[pair[0]] @ b[pair[1]].T for pair in order}
    out = np.zeros((left.shape[0], right.shape[0]))
    mirror = np.zeros((right.shape[0], left.shape[0]))
    for pair in order:
        out += products[pair]
    for pair in mirror_order:
        mirror += products[pair].T
    return out, mirror


def assemble_blocks(
    n_models: int, n_groups: int, blocks: list[PairBlock], parts: list[Sums]
) -> np.ndarray:
    """``(G, 4, M, M)`` from the blocks' sums and their mirrors' below the diagonal."""
    out = np.zeros((n_groups, 4, n_models, n_models))
    for block, (upper, lower) in zip(blocks, parts, strict=True):
        out[:, :, block.rows, block.cols] = upper
        if lower is not None:
            out[:, :, block.cols, block.rows] = lower
    return out
