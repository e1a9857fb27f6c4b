"""Matrix products whose every entry is computed exactly, so their bits never depend on
the BLAS library, its number of threads or the order in which it adds.

A floating-point matrix product adds in an order the BLAS chooses, and OpenBLAS chooses
differently with one thread (a Dask worker) and with several (the main process): the same
product can differ in its last bits between processes. Splitting each row of a float64
matrix into a few slices of at most ``width`` significant bits on a grid shared by the
row (Ozaki, Ogita, Oishi & Rump 2012) makes every product of two slices a sum of integers
times one power of two, small enough to be exact in float64, so it comes out the same in
any order. The slices' products are then added in a fixed order.

Scores are split so the remainder is below ``2^-54`` times each row's largest entry, and
slice products smaller than that are skipped; the result is within a few units of
``2^-53 k max|a_i| max|b_j|`` of the exact product over ``k`` terms (an ordinary product's
bound is ``k 2^-53 sum|a||b|``), far below any score's own precision.

References
----------
Ozaki, K., Ogita, T., Oishi, S. & Rump, S. M. (2012). Error-free transformations of matrix
multiplication by using fast routines of matrix multiplication and its applications.
Numerical Algorithms 59, 95-118.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LIMIT", "gram", "row_sums", "split", "times_counts"]

_DIGITS = 53
"""Significand bits of float64."""
_KEPT = 54
"""Bits of each row's largest entry the slices keep (one more than float64 has)."""
_WIDEST = 50
"""Widest slice: x + sigma must stay in sigma's binade for the rounding trick."""
LIMIT = 2.0**500
"""Largest score magnitude: slices and squares stay far from overflow."""


def _bits(n: int) -> int:
    """``ceil(log2(n))`` for n >= 1: bits of a sum of n terms above its largest term."""
    return max(int(n) - 1, 0).bit_length()


def split(x: np.ndarray, width: int) -> list[np.ndarray]:
    """Float64 ``x`` (2-D) as a list of slices, largest first, each with at most ``width``
    significant bits per entry on a power-of-two grid shared by its row.

    Slice j of row i is ``x`` rounded to a multiple of ``2^(e - width)``, where ``2^e``
    bounds the row's remaining entries; adding and subtracting ``1.5 * 2^(e - width + 52)``
    does the rounding exactly. The slices sum to ``x`` up to a remainder below
    ``2^-54`` times the row's largest entry.

    >>> x = np.array([[1 / 3, -2.0, 1e-9]])
    >>> parts = split(x, 18)
    >>> len(parts), bool(np.all(np.abs(x - sum(parts)) <= 2.0**-54 * 2))
    (3, True)
    """
    width = min(width, _WIDEST)
    count = -(-_KEPT // width)
    parts = []
    rest = np.asarray(x, dtype=np.float64)
    for _ in range(count):
        _, exponent = np.frexp(np.max(np.abs(rest), axis=1, keepdims=True))
        sigma = np.ldexp(0.75, exponent + (_DIGITS - width))
        part = (rest + sigma) - sigma
        parts.append(part)
        rest = rest - part
    return parts


def gram(left: np.ndarray, right: np.ndarray, *, same: bool = False) -> np.ndarray:
    """``left @ right.T`` of float64 matrices over ``k`` columns, identical in any process.

    ``same``: ``right`` is ``left`` (a diagonal tile), whose symmetric slice products are
    computed once.
    """
    k = left.shape[1]
    width = (_DIGITS - _bits(k)) // 2
    a = split(left, width)
    b = a if same else split(right, width)
    out = np.zeros((left.shape[0], right.shape[0]))
    count = len(a)
    for s in range(count):
        for t in range(count - s):  # s + t < count: the rest is below 2^-54 of the entries
            if not same:
                out += a[s] @ b[t].T
            elif s == t:
                out += a[s] @ a[s].T
            elif s < t:  # a[t] @ a[s].T is its transpose: computed once, added twice
                product = a[s] @ a[t].T
                out += product
                out += product.T
    return out


def times_counts(x: np.ndarray, counts: np.ndarray, total: int) -> np.ndarray:
    """``x @ counts`` for float64 ``x`` and non-negative integer-valued ``counts`` whose
    columns sum to at most ``total``, identical in any process."""
    width = _DIGITS - _bits(total)
    out = np.zeros((x.shape[0], counts.shape[1]))
    weights = np.asarray(counts, dtype=np.float64)
    for part in split(x, width):
        out += part @ weights
    return out


def row_sums(x: np.ndarray) -> np.ndarray:
    """Row sums of float64 ``x``, identical in any process."""
    width = _DIGITS - _bits(x.shape[1])
    out = np.zeros(x.shape[0])
    for part in split(x, width):
        out += part.sum(axis=1)
    return out
