r"""CR2 (Bell-McCaffrey) standard error of a mean, with its Satterthwaite degrees of freedom.

One kernel for every caller: one mean (:func:`evalsig.inference.cluster_robust`), every
pair of models (:func:`evalsig.inference.allpairs.pair_tests`) and every model's score
(:func:`evalsig.leaderboard.intervals.score_intervals`). Clusters run along the last
axis; any leading axes are a batch of independent means (pairs, models), so one mean is
a batch of one.

For per-item values :math:`d_i` with mean :math:`\bar d`, cluster sizes :math:`n_g`,
:math:`n = \sum_g n_g` and cluster residual totals :math:`E_g = \sum_{i \in g} (d_i - \bar d)`:

.. math:: \operatorname{se}_{CR2} = \frac1n \sqrt{\sum_g \frac{E_g^2}{1 - n_g/n}}, \qquad
          \nu = \frac{1}{\sum_g w_g^2 - \sum_g b_g^2 + (\sum_g b_g)^2},

with :math:`w_g = n_g / n` and :math:`b_g = w_g^2 / (1 - w_g)`; see the Notes of
:func:`evalsig.inference.cluster_robust` for the derivation.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bell_mccaffrey_df", "cr2"]

_TINY = np.finfo(np.float64).smallest_normal


def cr2(sizes: np.ndarray, residual_totals: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]:
    r"""CR2 standard errors and Bell-McCaffrey degrees of freedom of a batch of means.

    Parameters
    ----------
    sizes : array_like (..., G)
        Items of each cluster (integers, as int or float). A cluster of size 0 is absent
        from that mean (a pair of models that share none of its items) and adds nothing.
    residual_totals : array_like (..., G)
        :math:`E_g`, the sum over the cluster's items of the value minus the mean (0 for
        an absent cluster).

    Returns
    -------
    se, df : numpy.ndarray (...)
        :math:`\sqrt{\sum_g E_g^2 / (1 - n_g/n)} / n` and :func:`bell_mccaffrey_df`. The
        residual totals are divided by their largest magnitude (per mean) before they are
        squared, so that squares neither underflow nor overflow whatever the scores'
        units. A mean with no items has a NaN standard error; one whose items all lie in
        one cluster has no between-cluster variance: NaN or infinite, with NaN df.

    Examples
    --------
    >>> se, df = cr2([[3, 4, 2, 3], [6, 6, 0, 0]], [[0.0, 4 / 3, -4 / 3, 0.0], [1.0, -1.0, 0, 0]])
    >>> se.round(4).tolist(), df.round(4).tolist()
    ([0.1826, 0.1667], [2.8125, 1.0])
    """
    sizes = np.asarray(sizes)
    n = sizes.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _se(sizes, np.asarray(residual_totals, dtype=np.float64), n), _df(sizes, n)


def bell_mccaffrey_df(sizes: np.ndarray, /) -> np.ndarray:
    r"""Satterthwaite degrees of freedom of the CR2 variance of a mean, from cluster sizes.

    :math:`1 / (\sum_g w_g^2 - \sum_g b_g^2 + (\sum_g b_g)^2)` with :math:`w_g = n_g / n`
    and :math:`b_g = w_g^2 / (1 - w_g)` over the clusters (last axis) of each mean; see
    :func:`evalsig.inference.cluster_robust`. It is :math:`G - 1` for :math:`G` equal
    clusters and smaller when sizes vary; every item in one cluster gives NaN, no item
    infinity.

    Examples
    --------
    >>> round(float(bell_mccaffrey_df([3, 4, 2, 3])), 10)
    2.8125
    """
    sizes = np.asarray(sizes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _df(sizes, sizes.sum(axis=-1))


def _se(sizes: np.ndarray, residual: np.ndarray, n: np.ndarray) -> np.ndarray:
    # ufunc reductions (np.sum's sums without its overhead on one mean) and in-place steps
    # (no page faults on fresh temporaries in a batch of many pairs)
    largest = np.maximum(
        np.maximum.reduce(residual, axis=-1, initial=0.0),
        -np.minimum.reduce(residual, axis=-1, initial=0.0),
    )
    scale = np.maximum(largest, _TINY)  # every E_g 0: any positive scale gives se 0
    terms = residual / scale[..., None]
    terms *= terms
    n_ = n[..., None]
    leverage_free = np.subtract(n_, sizes, dtype=np.float64)
    leverage_free /= n_  # 1 - n_g / n; an absent cluster adds 0 / 1
    terms /= leverage_free
    se: np.ndarray = np.sqrt(np.add.reduce(terms, axis=-1)) * scale / n
    return se


def _df(sizes: np.ndarray, n: np.ndarray) -> np.ndarray:
    w = sizes / np.maximum(n, 1)[..., None]  # a mean with no items: w = 0, df = inf
    b = 1.0 - w
    w *= w
    np.divide(w, b, out=b)  # b_g = w_g^2 / (1 - w_g)
    total = np.add.reduce
    sum_w2, sum_b = total(w, axis=-1), total(b, axis=-1)
    b *= b
    df: np.ndarray = 1.0 / (sum_w2 - total(b, axis=-1) + sum_b**2)
    return df
