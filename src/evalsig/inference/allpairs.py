"""Every pairwise paired comparison of M models at once, from matrix products.

For models scored on the same items, all the statistics of every pair's per-item
differences come from four M x M matrices per item cluster (with X the scores, zero where
missing, P the presence mask, and sums over the cluster's items)::

    n[a, b] = sum P_a P_b      xm[a, b] = sum X_a P_b      xx[a, b] = sum X_a X_b
    qm[a, b] = sum X_a^2 P_b

so that for baseline b and candidate c on their shared items ``sum d = xm[c, b] - xm[b, c]``,
``sum d^2 = qm[c, b] + qm[b, c] - 2 xx[b, c]``, and for 0/1 scores the discordant counts are
``n01 = xm[c, b] - xx[b, c]`` and ``n10 = xm[b, c] - xx[b, c]``. Items are never revisited
per pair; complete data need one product only. The sums add over blocks of items, which is
how :mod:`evalsig.distributed` splits the work.

Every tile's sums are exact (0/1 scores are integer counts; other scores go through the
error-free products of :mod:`evalsig.inference._exact`), and tiles are added in a fixed
order, so the result depends on the blocking (``item_block``, ``model_block``, passed
explicitly) and never on which process, thread count or BLAS computed a tile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.inference._cr2 import cr2
from evalsig.inference._exact import LIMIT, gram, row_sums, times_counts
from evalsig.inference._mcnemar import CORRECTED_BELOW, mcnemar_z
from evalsig.inference._ttest import ADJUSTED_BELOW
from evalsig.inference.stratified import stratified_from_sums

__all__ = [
    "CORRECTED_BELOW",
    "PairTests",
    "Prepared",
    "assemble",
    "cluster_groups",
    "design_effects",
    "model_means",
    "model_shapes",
    "pair_statistics",
    "pair_sums",
    "pair_tests",
    "prepare",
    "tile_sums",
    "tiles",
]


def cluster_groups(codes: np.ndarray | None, n_items: int) -> list[np.ndarray]:
    """Item positions of each cluster, by code (all items as one group without clusters)."""
    if codes is None:
        return [np.arange(n_items)]
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return np.split(order, bounds)


ITEM_BLOCK = 1 << 16
"""Default items per block of the pairwise sums (blocks are summed in a fixed order)."""
MODEL_BLOCK = 1024
"""Default models per tile side: tiles of at most MODEL_BLOCK x MODEL_BLOCK pairs."""
MAX_ITEM_BLOCK = 1 << 24
"""Largest item block: float32 counts of 0/1 scores are exact up to 2^24."""


@dataclass(frozen=True, slots=True, eq=False)
class Prepared:
    """Scores laid out once for the products: NaN as 0, items grouped by cluster."""

    x: np.ndarray
    """``(M, N)`` scores (float32 when all are 0/1: exact below 2^24 items, twice as fast)."""
    present: np.ndarray | None
    """``(M, N)`` 1 where a model has the item; None when every model has every item."""
    binary: bool
    bounds: tuple[tuple[int, int], ...]
    """``(start, stop)`` column range of each cluster."""


def prepare(scores: np.ndarray, codes: np.ndarray | None = None, /) -> Prepared:
    """Lay out ``(M, N)`` scores (NaN where missing) for :func:`tile_sums`."""
    groups = cluster_groups(codes, scores.shape[1])
    if codes is not None:
        scores = scores[:, np.concatenate(groups)]
    missing = np.isnan(scores)
    complete = not bool(missing.any())
    x = scores if complete else np.where(missing, 0.0, scores)
    binary = bool(np.all((x == 0) | (x == 1)))
    largest = float(np.max(np.abs(x), initial=0.0))
    if not largest < LIMIT:
        raise DataError(
            f"scores reach {largest:.3g} in magnitude; the pairwise sums need scores below "
            f"{LIMIT:.3g} (and finite). Rescale them (e.g. to their units' fraction)."
        )
    dtype = np.float32 if binary and x.shape[1] < 1 << 24 else np.float64
    stops = np.cumsum([len(g) for g in groups])
    return Prepared(
        x=np.ascontiguousarray(x, dtype=dtype),
        present=None if complete else (~missing).astype(dtype),
        binary=binary,
        bounds=tuple((int(b - len(g)), int(b)) for b, g in zip(stops, groups, strict=True)),
    )


def pair_sums(
    scores: np.ndarray,
    codes: np.ndarray | None = None,
    /,
    *,
    item_block: int = ITEM_BLOCK,
    model_block: int = MODEL_BLOCK,
) -> np.ndarray:
    """``(G, 4, M, M)``: n, xm, xx, qm of every cluster (G = 1 without clusters).

    ``scores`` is ``(M, N)`` with NaN where a model lacks an item. The work is split into
    the tiles of :func:`tiles` and summed in their order, the same order a distributed run
    with the same blocking uses, so both give identical numbers.
    """
    prepared = prepare(scores, codes)
    tasks = tiles(prepared, item_block=item_block, model_block=model_block)
    return assemble(scores.shape[0], tasks, [tile_sums(prepared, task) for task in tasks])


Tile = tuple[int, int, int, slice, slice]
"""(cluster, first item, end item, model rows, model columns)."""


def tiles(prepared: Prepared, *, item_block: int, model_block: int) -> list[Tile]:
    """The blocks of work: per cluster, per block of its items, per tile of model pairs.

    Each tile names its items and models, so a worker computes it from the tile alone.
    """
    for name, value, top in (
        ("item_block", item_block, MAX_ITEM_BLOCK),
        ("model_block", model_block, None),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, np.integer))
            or value < 1
            or (top is not None and value > top)
        ):
            limit = f" and at most {top}" if top is not None else ""
            raise DataError(f"`{name}` must be an integer of at least 1{limit}; got {value!r}.")
    n_models = prepared.x.shape[0]
    sides = [slice(i, min(i + model_block, n_models)) for i in range(0, n_models, model_block)]
    out: list[Tile] = []
    for g, (first, end) in enumerate(prepared.bounds):
        for start in range(first, max(end, first + 1), item_block):
            stop = min(start + item_block, end)
            out.extend((g, start, stop, rows, cols) for rows in sides for cols in sides)
    return out


def tile_sums(prepared: Prepared, task: Tile) -> np.ndarray:
    """``(4, rows, cols)`` sums of one tile: n, xm, xx, qm (see the module docstring).

    Every entry is exact: 0/1 scores give integer counts (exact in float32 up to 2^24
    items), other scores the error-free products of :mod:`evalsig.inference._exact`; so a
    tile has the same bits in any process.
    """
    _, start, stop, rows, cols = task
    x, p = prepared.x, prepared.present
    left = x[rows, start:stop]
    same = rows == cols
    right = left if same else x[cols, start:stop]
    out = np.empty((4, left.shape[0], right.shape[0]))
    if prepared.binary:
        out[2] = left @ right.T
        if p is None:
            out[0] = stop - start
            out[1] = left.sum(axis=1, dtype=np.float64)[:, None]
        else:
            p_right = p[cols, start:stop]
            out[0] = p[rows, start:stop] @ p_right.T
            out[1] = left @ p_right.T
        out[3] = out[1]  # x^2 = x
        return out
    out[2] = gram(left, right, same=same)
    square = left * left
    if p is None:
        out[0] = stop - start
        out[1] = row_sums(left)[:, None]
        out[3] = row_sums(square)[:, None]
        return out
    p_right = p[cols, start:stop]
    out[0] = p[rows, start:stop] @ p_right.T
    out[1] = times_counts(left, p_right.T, stop - start)
    out[3] = times_counts(square, p_right.T, stop - start)
    return out


def assemble(n_models: int, tasks: list[Tile], parts: list[np.ndarray]) -> np.ndarray:
    """Add the tiles' sums into ``(G, 4, M, M)``, in task order."""
    groups = 1 + max((t[0] for t in tasks), default=0)
    out = np.zeros((groups, 4, n_models, n_models))
    for (g, _, _, rows, cols), part in zip(tasks, parts, strict=True):
        out[g, :, rows, cols] += part
    return out


def model_means(total: np.ndarray) -> np.ndarray:
    """Each model's mean over its own items, ``xm[a, a] / n[a, a]``, from ``(4, M, M)``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means: np.ndarray = np.diagonal(total[1]) / np.diagonal(total[0])
    return means


def pair_statistics(total: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict[str, np.ndarray]:
    """n, mean, sd (ddof 1), n01, n10 of pairs (b[k], c[k]) from summed ``(4, M, M)``."""
    counts = _pair_counts(total, b, c)
    return {**counts, "sd": _pair_sd(total, b, c, counts["n"], counts["mean"])}


def _pair_counts(total: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict[str, np.ndarray]:
    """n, mean ``sum d / n``, n01 ``xm[c, b] - xx`` and n10 ``xm[b, c] - xx`` of each pair."""
    n = total[0][b, c]
    xm_cb, xm_bc, xx = total[1][c, b], total[1][b, c], total[2][b, c]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (xm_cb - xm_bc) / n
    return {"n": n, "mean": mean, "n01": np.rint(xm_cb - xx), "n10": np.rint(xm_bc - xx)}


def _sum_d2(total: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``sum d^2`` of each pair: ``qm[c, b] + qm[b, c] - 2 xx[b, c]``."""
    sum_d2: np.ndarray = total[3][c, b] + total[3][b, c] - 2 * total[2][b, c]
    return sum_d2


def _pair_sd(
    total: np.ndarray, b: np.ndarray, c: np.ndarray, n: np.ndarray, mean: np.ndarray
) -> np.ndarray:
    """sd (ddof 1) of each pair's d: ``sqrt((sum d^2 - n mean^2) / (n - 1))``."""
    sum_d2 = _sum_d2(total, b, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.maximum(sum_d2 - n * mean**2, 0.0) / (n - 1)
    sd: np.ndarray = np.sqrt(var)
    return sd


def _cluster_parts(
    sums: np.ndarray, b: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cluster and pair: sizes n_g, totals T_g of d, and sums of d^2 (each (G, P))."""
    n_g = sums[:, 0][:, b, c]
    t_g = sums[:, 1][:, c, b] - sums[:, 1][:, b, c]
    s2_g = sums[:, 3][:, c, b] + sums[:, 3][:, b, c] - 2 * sums[:, 2][:, b, c]
    return n_g, t_g, s2_g


def design_effects(
    sums: np.ndarray, b: np.ndarray, c: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """ANOVA icc and design effect (at least 1) of each pair's per-item differences.

    ``weights`` ``(G,)`` counts each cluster's copies in a bootstrap resample (a cluster
    drawn twice is two clusters). See :func:`evalsig.power.design_effect`.
    """
    n_g, t_g, s2_g = _cluster_parts(sums, b, c)
    w = np.ones(len(sums)) if weights is None else weights
    present = n_g > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        per_cluster = np.where(present, t_g**2 / np.where(present, n_g, 1), 0.0)
    n = w @ n_g
    total = w @ t_g
    between_part = w @ per_cluster
    sum_sq = w @ s2_g
    groups = w @ present.astype(float)
    size_sq = w @ (n_g**2)
    with np.errstate(invalid="ignore", divide="ignore"):
        msb = (between_part - total**2 / n) / (groups - 1)
        msw = np.maximum(sum_sq - between_part, 0.0) / (n - groups)
        m0 = (n - size_sq / n) / (groups - 1)
        icc = (msb - msw) / (msb + (m0 - 1) * msw)
        m_eff = size_sq / n
    icc = np.where(np.isfinite(icc) & (groups > 1) & (groups < n), icc, 0.0)
    deff = np.maximum(1.0, 1.0 + (m_eff - 1.0) * icc)
    return deff, icc


@dataclass(frozen=True, slots=True)
class PairTests:
    """Vectorised paired tests of pairs (b[k], c[k]): candidate c minus baseline b."""

    method: str
    """'mcnemar' (auto: continuity-corrected z below 25 discordant items), 'paired-t' or
    'cluster' (CR2)."""
    n: np.ndarray
    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    """Degrees of freedom (inf for McNemar's z, corrected or not)."""
    pvalue: np.ndarray
    """Two-sided p-values."""
    n01: np.ndarray
    n10: np.ndarray
    n_adjusted: int = 0
    """Pairs tested with Agresti-Min pseudo-items (several runs in [0, 1], few items)."""


def model_shapes(n_runs: object, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per model: whether it has several runs, and whether its per-item means (the rows of
    ``scores``, NaN where missing) lie in [0, 1]; for :func:`pair_tests`."""
    several = np.asarray(n_runs, dtype=np.int64) > 1
    with np.errstate(invalid="ignore"):
        inside = ~np.any((scores < 0) | (scores > 1), axis=1)
    return several, inside


def pair_tests(
    sums: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    *,
    binary: bool,
    clustered: bool,
    shapes: tuple[np.ndarray, np.ndarray] | None = None,
    stratified: bool = False,
) -> PairTests:
    """Two-sided paired tests of every pair, as :func:`evalsig.compare` would choose them.

    Clusters: CR2 (Bell-McCaffrey) standard error of the mean difference on Satterthwaite
    df. ``stratified``: the G groups are strata; the stratified t-test with proportional
    weights (:mod:`evalsig.inference.stratified`). One run of 0/1 scores: McNemar (the
    z-test with continuity correction 1/2 below 25 discordant items, else the uncorrected
    z). Otherwise the paired t-test on per-item (mean) differences; with ``shapes``
    (:func:`model_shapes`), a pair of which a model has several runs, both in [0, 1], on
    fewer than 1,000 items takes compare's Agresti-Min pseudo-items (:func:`_adjusted_t`).
    Without ``shapes`` (run counts unknown) every such pair takes the plain t.
    """
    total = sums.sum(axis=0)
    s = _pair_counts(total, b, c)
    n, mean = s["n"], s["mean"]
    n_adjusted = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if stratified:
            n_g, t_g, s2_g = _cluster_parts(sums, b, c)
            mean, se, df = stratified_from_sums(n_g, t_g, s2_g, weights="proportional")
            t = mean / se
            p = 2 * special.stdtr(df, -np.abs(t))  # t.sf(|t|, df)
            p = np.where(se > 0, p, np.where(np.abs(mean) > 0, np.nan, 1.0))
            method = "stratified"
        elif clustered and len(sums) >= 2:
            n_g, t_g, _ = _cluster_parts(sums, b, c)
            se, df = cr2(n_g.T, (t_g - n_g * mean).T)  # a pair absent from a cluster: n_g 0
            t = mean / se
            p = 2 * special.stdtr(df, -np.abs(t))  # t.sf(|t|, df)
            p = np.where(se > 0, p, np.where(np.abs(mean) > 0, np.nan, 1.0))
            method = "cluster"
        elif binary:
            tests = mcnemar_z(s["n01"], s["n10"], n)  # corrected below 25 discordant items
            se, p = tests.se, tests.pvalue("two-sided")
            df = np.full(np.shape(p), np.inf)
            method = "mcnemar"
        else:
            se = _pair_sd(total, b, c, n, mean) / np.sqrt(n)
            df = n - 1
            t = mean / se
            p = 2 * special.stdtr(df, -np.abs(t))  # t.sf(|t|, df)
            p = np.where(se > 0, p, np.where(np.abs(mean) > 0, 0.0, 1.0))
            method = "paired-t"
            if shapes is not None:
                several, inside = shapes
                small = (several[b] | several[c]) & inside[b] & inside[c] & (n < ADJUSTED_BELOW)
                if small.any():
                    se, df, p = (np.asarray(x, dtype=float).copy() for x in (se, df, p))
                    sum_d2 = _sum_d2(total, b[small], c[small])
                    adjusted = _adjusted_t(n[small], mean[small], sum_d2)
                    se[small], df[small], p[small] = adjusted
                    n_adjusted = int(small.sum())
                    method = "paired-t-adjusted" if small.all() else "paired-t"
    return PairTests(
        method=method,
        n=n,
        estimate=mean,
        se=se,
        df=np.asarray(df, dtype=float),
        pvalue=np.asarray(p, dtype=float),
        n01=s["n01"],
        n10=s["n10"],
        n_adjusted=n_adjusted,
    )


def _adjusted_t(
    n: np.ndarray, mean: np.ndarray, sum_d2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Standard errors, df and two-sided p-values of the t-test with Agresti-Min
    pseudo-items (see :func:`evalsig.inference._ttest.adjusted_t_core`): with
    :math:`S = \sum d`, :math:`\tilde n = n + 2` and centre :math:`\tilde d = S / \tilde n`,
    :math:`\tilde s^2 = (\sum d^2 - 2 \tilde d S + n \tilde d^2 + 1 + 2 \tilde d^2) /
    (\tilde n - 1)`, :math:`t = \tilde d / (\tilde s / \sqrt{\tilde n})` on
    :math:`\tilde n - 1` df."""
    total_d = n * mean
    n_tilde = n + 2.0
    centre = total_d / n_tilde
    squares = sum_d2 - 2 * centre * total_d + n * centre**2 + 1.0 + 2 * centre**2
    df = n_tilde - 1.0
    se = np.sqrt(np.maximum(squares, 0.0) / df / n_tilde)
    p = 2 * special.stdtr(df, -np.abs(centre / se))  # t.sf
    return se, df, p
