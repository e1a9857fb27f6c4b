"""The Bradley-Terry design matrix of compressed battles, kept as index arrays: products by
index sums, never a dense matrix (shared by the fit, its CR2 covariance and the bootstrap)."""

from __future__ import annotations

from typing import Any

import numpy as np

from evalsig.arena.battle_arrays import Compressed

__all__ = ["Design"]


class Design:
    """The ``R x (M - 1 + p)`` design: +1 at a's column, -1 at b's (the anchor's column
    dropped), then the features; products by index sums, never a dense matrix."""

    __slots__ = ("a", "anchor", "b", "features", "k", "m", "pair")
    a: np.ndarray
    b: np.ndarray
    features: np.ndarray | None
    anchor: int
    k: int
    m: int
    pair: np.ndarray
    """Each row's cell ``a * M + b`` of the models' M x M table."""

    def __init__(self, rows: Compressed, anchor: int) -> None:
        self.m, self.anchor, self.a, self.b = rows.n_models, anchor, rows.a, rows.b
        self.features = rows.features
        self.k = self.m - 1 + (0 if rows.features is None else rows.features.shape[1])
        self.pair = self.a * self.m + self.b

    def times(self, params: np.ndarray) -> np.ndarray:
        """``X @ params``, for parameters ``(k,)`` or a batch ``(n, k)``."""
        s = np.insert(params[..., : self.m - 1], self.anchor, 0.0, axis=-1)
        d = s[..., self.a] - s[..., self.b]
        if self.features is not None:
            d = d + params[..., self.m - 1 : self.k] @ self.features.T
        return np.asarray(d, dtype=np.float64)

    def t_times(self, v: np.ndarray) -> np.ndarray:
        """``X' v``, for weights ``(R,)`` or a batch ``(n, R)`` (one row each)."""
        batch = np.atleast_2d(v)
        out = np.delete(
            self._by_model(batch, self.a) - self._by_model(batch, self.b), self.anchor, 1
        )
        if self.features is not None:
            out = np.concatenate([out, batch @ self.features], axis=1)
        return np.asarray(out.reshape(*v.shape[:-1], self.k), dtype=np.float64)

    def gram(self, v: np.ndarray) -> np.ndarray:
        """``X' diag(v) X``, for weights ``(R,)`` or a batch ``(n, R)`` (``(n, k, k)``)."""
        batch = np.atleast_2d(v)
        n, m = len(batch), self.m
        cells = self.pair if n == 1 else np.arange(n)[:, None] * (m * m) + self.pair
        pair = np.bincount(cells.ravel(), batch.ravel(), n * m * m).reshape(n, m, m)
        block = -pair - pair.transpose(0, 2, 1)
        diagonal = np.arange(m)
        block[:, diagonal, diagonal] += self._by_model(batch, self.a) + self._by_model(
            batch, self.b
        )
        block = np.delete(np.delete(block, self.anchor, axis=1), self.anchor, axis=2)
        if self.features is not None:
            f = self.features
            cross = np.stack(
                [
                    self._by_model(batch * col, self.a) - self._by_model(batch * col, self.b)
                    for col in f.T
                ],
                axis=2,
            )
            cross = np.delete(cross, self.anchor, axis=1)
            square = np.einsum("nr,rp,rq->npq", batch, f, f)
            block = np.concatenate(
                [np.concatenate([block, cross], axis=2),
                 np.concatenate([cross.transpose(0, 2, 1), square], axis=2)],
                axis=1,
            )  # fmt: skip
        return np.asarray(block, dtype=np.float64).reshape(*v.shape[:-1], self.k, self.k)

    def _by_model(self, batch: np.ndarray, model: np.ndarray) -> np.ndarray:
        """``(n, M)`` sums of each row of ``batch`` by the model index ``model`` of its rows."""
        n, m = len(batch), self.m
        index = model if n == 1 else np.arange(n)[:, None] * m + model
        return np.bincount(index.ravel(), batch.ravel(), n * m).reshape(n, m)

    def sparse(self) -> Any:
        """``X`` as a scipy sparse matrix (for sums by cluster)."""
        from scipy import sparse

        r = len(self.a)
        index = np.arange(r)
        keep_a, keep_b = self.a != self.anchor, self.b != self.anchor
        col_a = self.a - (self.a > self.anchor)
        col_b = self.b - (self.b > self.anchor)
        design = sparse.csr_matrix(
            (
                np.concatenate([np.ones(keep_a.sum()), -np.ones(keep_b.sum())]),
                (np.concatenate([index[keep_a], index[keep_b]]),
                 np.concatenate([col_a[keep_a], col_b[keep_b]])),
            ),
            shape=(r, self.m - 1),
        )  # fmt: skip
        if self.features is not None:
            design = sparse.hstack([design, sparse.csr_matrix(self.features)], format="csr")
        return design
