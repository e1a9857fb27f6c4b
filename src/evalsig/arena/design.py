"""The Bradley-Terry design matrix of compressed battles, kept as index arrays: products by
index sums, never a dense matrix (shared by the fit, its CR2 covariance and the bootstrap)."""

from __future__ import annotations

from typing import Any

import numpy as np

from evalsig.arena.battles import Compressed

__all__ = ["Design"]


class Design:
    """The ``R x (M - 1 + p)`` design: +1 at a's column, -1 at b's (the anchor's column
    dropped), then the features; products by index sums, never a dense matrix."""

    __slots__ = ("a", "anchor", "b", "features", "k", "m")
    a: np.ndarray
    b: np.ndarray
    features: np.ndarray | None
    anchor: int
    k: int
    m: int

    def __init__(self, rows: Compressed, anchor: int) -> None:
        self.m, self.anchor, self.a, self.b = rows.n_models, anchor, rows.a, rows.b
        self.features = rows.features
        self.k = self.m - 1 + (0 if rows.features is None else rows.features.shape[1])

    def times(self, params: np.ndarray) -> np.ndarray:
        """``X @ params``."""
        s = np.insert(params[: self.m - 1], self.anchor, 0.0)
        d = s[self.a] - s[self.b]
        if self.features is not None:
            d = d + self.features @ params[self.m - 1 : self.k]
        return np.asarray(d, dtype=np.float64)

    def t_times(self, v: np.ndarray) -> np.ndarray:
        """``X' v``."""
        out = np.bincount(self.a, v, self.m) - np.bincount(self.b, v, self.m)
        out = np.delete(out, self.anchor)
        if self.features is not None:
            out = np.concatenate([out, self.features.T @ v])
        return out

    def gram(self, v: np.ndarray) -> np.ndarray:
        """``X' diag(v) X``."""
        m = self.m
        pair = np.bincount(self.a * m + self.b, v, m * m).reshape(m, m)
        block = np.diag(np.bincount(self.a, v, m) + np.bincount(self.b, v, m)) - pair - pair.T
        block = np.delete(np.delete(block, self.anchor, axis=0), self.anchor, axis=1)
        if self.features is None:
            return np.asarray(block, dtype=np.float64)
        f = self.features
        cross = np.column_stack(
            [np.bincount(self.a, v * col, m) - np.bincount(self.b, v * col, m) for col in f.T]
        )
        cross = np.delete(cross, self.anchor, axis=0)
        return np.block([[block, cross], [cross.T, f.T @ (v[:, None] * f)]])

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
