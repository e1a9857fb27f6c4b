"""Cluster-robust tests of the mean difference: CR1, CR2 (Bell-McCaffrey) and cluster bootstraps.

Benchmark items often come in groups that share a source (a subject, a passage, a document),
so their differences are correlated within a group and the items are not independent units.
The tests here treat the clusters as the independent units instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, cast, get_args

import numpy as np

from evalsig._deprecation import renamed
from evalsig.defaults import FEW_CLUSTERS
from evalsig.errors import DataError, examples
from evalsig.inference._bootstrap import BootstrapDistribution
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    IntervalFn,
    check_choice,
    choose_pvalue,
    invert_test,
    make_result,
    sides_named,
    t_interval,
    t_pvalue,
)
from evalsig.inference._cr2 import bell_mccaffrey_df, cr2
from evalsig.inference._paired_input import paired_differences
from evalsig.inference._seeded import Resampling, resampling_options
from evalsig.inference.resampling import CHUNK_BYTES, bootstrap_totals

__all__ = [
    "BootstrapVariant",
    "RobustVariant",
    "bell_mccaffrey_df",
    "cluster_bootstrap",
    "cluster_bootstrap_core",
    "cluster_robust",
    "cluster_robust_core",
    "few_clusters_notes",
]

RobustVariant = Literal["cr2", "cr1"]
"""``"cr2"``: Bell-McCaffrey; ``"cr1"``: Liang-Zeger with the usual small-sample factor."""

BootstrapVariant = Literal["pairs", "wild"]
"""``"pairs"``: resample whole clusters; ``"wild"``: wild cluster bootstrap-t, null imposed."""


ZERO_TOLERANCE = 1e-12
"""Cluster means closer than this (relative to the largest difference) count as equal."""


@renamed(clusters="cluster", variant="method")
@sides_named
def cluster_robust(
    baseline: object,
    candidate: object,
    cluster: object,
    *,
    method: RobustVariant = "cr2",
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
) -> InferenceResult:
    r"""Cluster-robust t-test of the mean per-item difference, candidate minus baseline.

    Items in the same cluster (subject, passage, source document) may be correlated; the
    standard error here lets them be, treating the clusters as the independent units.
    With several runs per item, pass per-item means over runs.

    Parameters
    ----------
    baseline, candidate : array_like (n,)
        Per-item scores (or per-item means over runs) of the two models, aligned.
    cluster : array_like (n,)
        One cluster label per item (any hashable: strings, integers ...), aligned with the
        scores. Missing labels (None, NaN) are an error; at least 2 clusters are needed.
    method : {"cr2", "cr1"}
        ``"cr2"`` (default): Bell-McCaffrey bias-reduced standard error with Satterthwaite
        degrees of freedom, the most reliable choice with few or unequal clusters.
        ``"cr1"``: the Liang-Zeger sandwich with the small-sample factor of Stata and
        statsmodels, on :math:`G - 1` degrees of freedom.
    alternative : {"two-sided", "greater", "less"}
        "greater": the candidate scores higher.
    confidence_level : float

    Returns
    -------
    InferenceResult
        ``statistic`` is t; ``df`` is :math:`G - 1` for CR1 and the Bell-McCaffrey degrees
        of freedom for CR2. With fewer than 30 clusters a note says the result is fragile.

    Raises
    ------
    DataError
        Misaligned or non-finite scores, bad cluster labels, fewer than 2 clusters.

    Notes
    -----
    With differences :math:`d_i`, their mean :math:`\bar d` (the intercept of a regression of
    :math:`d` on 1), cluster residual totals :math:`E_g = \sum_{i \in g} (d_i - \bar d)`,
    cluster sizes :math:`n_g` and :math:`G` clusters,
    :math:`V_{CR0} = \sum_g E_g^2 / n^2` and
    :math:`V_{CR1} = \frac{G}{G-1} \frac{n-1}{n-K} V_{CR0}` with :math:`K = 1`; its t is
    referred to :math:`t_{G-1}`. CR2 adjusts each cluster's residuals by
    :math:`A_g = (I - H_{gg})^{-1/2}`; here :math:`H_{gg} = J / n` has the eigenvalue
    :math:`n_g / n` on :math:`1_g`, so :math:`V_{CR2} = \sum_g E_g^2 / (1 - n_g/n) / n^2`.

    Its Satterthwaite degrees of freedom (Bell & McCaffrey; Imbens & Kolesar) are
    :math:`\nu = (\operatorname{tr} S)^2 / \operatorname{tr}(S^2)` with
    :math:`S = C^\top M C`, :math:`M = I - 11^\top / n` and columns
    :math:`c_g = 1_g / (n \sqrt{1 - n_g/n})`. Then :math:`S = D - u u^\top / n` with
    :math:`D = \operatorname{diag}(n_g / (n^2 (1 - n_g/n)))` and
    :math:`u_g = n_g / (n \sqrt{1 - n_g/n})`; with :math:`w_g = n_g / n` and
    :math:`b_g = w_g^2 / (1 - w_g)` this gives :math:`n \operatorname{tr} S = 1` and
    :math:`\nu = 1 / (\sum_g w_g^2 - \sum_g b_g^2 + (\sum_g b_g)^2)`, which is :math:`G - 1`
    for equal clusters and smaller when sizes vary. With every item its own cluster both
    variants are the paired t-test.

    References
    ----------
    Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized linear
    models. *Biometrika* 73(1), 13-22.
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
    regression with multi-stage samples. *Survey Methodology* 28(2), 169-181.
    Imbens, G. W. & Kolesar, M. (2016). Robust standard errors in small samples: some
    practical advice. *Review of Economics and Statistics* 98(4), 701-712.
    Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance
    estimation and hypothesis testing in fixed effects models. *Journal of Business &
    Economic Statistics* 36(4), 672-683.
    Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
    inference. *Journal of Human Resources* 50(2), 317-372.

    Examples
    --------
    >>> scores = [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1]
    >>> subject = ["a", "a", "a", "b", "b", "b", "b", "c", "c", "d", "d", "d"]
    >>> r = cluster_robust([0] * 12, scores, subject)
    >>> round(r.estimate, 4), round(r.se, 4), round(r.df, 4)
    (0.6667, 0.1826, 2.8125)
    >>> round(cluster_robust([0] * 12, scores, subject, method="cr1").se, 4)
    0.1814
    """
    checked = _cluster_iv(
        baseline,
        candidate,
        cluster,
        variant=method,
        choices=get_args(RobustVariant),
        alternative=alternative,
        confidence_level=confidence_level,
    )
    return cluster_robust_core(
        checked.d,
        checked.codes,
        variant=cast(RobustVariant, checked.variant),
        alternative=checked.options.alternative,
        confidence_level=checked.options.confidence_level,
    )


def cluster_robust_core(
    d: np.ndarray,
    codes: np.ndarray,
    *,
    variant: RobustVariant,
    alternative: Alternative,
    confidence_level: float,
) -> InferenceResult:
    """The cluster-robust t-test on validated differences and cluster codes ``0..G-1``."""
    summary = _ClusterSummary.of(d, codes)
    if variant == "cr1":
        se, df = summary.se_cr1(), float(summary.n_clusters - 1)
        note = f"CR1 standard error (G/(G-1) small-sample factor) on t({summary.n_clusters - 1})."
    else:
        se, df = map(float, cr2(summary.sizes, summary.residual_totals))
        note = f"CR2 (Bell-McCaffrey) standard error on t({df:.4g}), Satterthwaite df."
    t = summary.estimate / se if se > 0 else math.nan
    return _finish(
        summary,
        method=f"cluster-{variant}",
        se=se,
        statistic=t,
        df=df,
        pvalue=t_pvalue(t, df, alternative),
        n_resamples=None,
        notes=[note],
        interval=partial(t_interval, summary.estimate, se, df),
        alternative=alternative,
        confidence_level=confidence_level,
    )


@renamed(clusters="cluster", variant="method")
@sides_named
def cluster_bootstrap(
    baseline: object,
    candidate: object,
    cluster: object,
    *,
    method: BootstrapVariant = "pairs",
    n_resamples: int = 10_000,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> InferenceResult:
    r"""Cluster bootstrap of the mean per-item difference: pairs or wild cluster bootstrap-t.

    Parameters
    ----------
    baseline, candidate : array_like (n,)
        Per-item scores (or per-item means over runs) of the two models, aligned.
    cluster : array_like (n,)
        One cluster label per item (any hashable), aligned with the scores.
    method : {"pairs", "wild"}
        ``"pairs"`` (default): resample whole clusters with replacement; percentile
        interval. It over-rejects with few clusters. ``"wild"``: the wild cluster
        bootstrap-t with the null hypothesis imposed and Rademacher weights, far better with
        few clusters, though with fewer than about 10 its p-values are coarse (:math:`2^G`
        sign vectors in all).
    n_resamples : int
        Resamples (pairs) or sign vectors (wild). The wild bootstrap enumerates all
        :math:`2^G` sign vectors instead when there are at most ``n_resamples`` of them.
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float
    rng : numpy.random.Generator, int or None

    Returns
    -------
    InferenceResult
        Pairs: ``statistic`` is the estimate, ``se`` the standard deviation of the
        replicates. Wild: ``statistic`` is the observed CR1 t, ``se`` the CR1 standard error.
        ``df`` is None; with fewer than 30 clusters a note says the result is fragile.

    Raises
    ------
    DataError
        Misaligned or non-finite scores, bad labels or options, fewer than 2 clusters.

    Notes
    -----
    With cluster totals :math:`T_g = \sum_{i \in g} d_i` and sizes :math:`n_g`:

    *Pairs.* A resample draws :math:`G` clusters with replacement, i.e. cluster counts
    :math:`W \sim \mathrm{Multinomial}(G, 1/G)`, and the replicate is the ratio
    :math:`\theta^* = \sum_g W_g T_g / \sum_g W_g n_g` (the mean over the resampled items).
    Only the rows :math:`(T_g, n_g)` matter, so clusters sharing a row are drawn as one
    atom by :func:`evalsig.inference.resampling.bootstrap_totals`. The interval is the
    percentile interval; the p-value inverts it: :math:`p_> = (1 + \#\{\theta^* \le 0\})
    / (B + 1)`, :math:`p_< = (1 + \#\{\theta^* \ge 0\}) / (B + 1)`, two-sided
    :math:`\min(1, 2 \min(p_>, p_<))`.

    *Wild.* To test :math:`H_0: \mu = \delta`, a draw multiplies the restricted residuals
    :math:`u_i = d_i - \delta` of cluster :math:`g` by one Rademacher sign :math:`v_g`,
    :math:`d^*_i = \delta + v_g u_i`, and compares
    :math:`t^* = (\bar d^* - \delta) / \mathrm{SE}_{CR1}(d^*)` with the observed
    :math:`t = (\bar d - \delta) / \mathrm{SE}_{CR1}(d)`. With
    :math:`E_g = T_g - n_g \bar d` and :math:`s = \bar d - \delta`, the residual totals of a
    draw are :math:`P_g + s Q_g` with :math:`P_g = v_g E_g - n_g \sum_h v_h E_h / n` and
    :math:`Q_g = v_g n_g - n_g \sum_h v_h n_h / n`, so five sums per sign vector
    (computed once) give :math:`t^*` for every :math:`\delta`. The interval inverts this
    test over :math:`\delta` by bisection, with the same sign vectors for every
    :math:`\delta`. Monte Carlo p-values are :math:`(1 + k) / (B + 1)`; with exact
    enumeration the smallest two-sided p-value is :math:`2 / 2^G`, so with very few
    clusters the test cannot reject at the usual levels and the interval is unbounded.

    References
    ----------
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. *Review of Economics and Statistics* 90(3), 414-427.
    MacKinnon, J. G. & Webb, M. D. (2018). The wild bootstrap for few (treated) clusters.
    *Econometrics Journal* 21(2), 114-135.
    Webb, M. D. (2023). Reworking wild bootstrap-based inference for clustered errors.
    *Canadian Journal of Economics* 56(3), 839-858.
    Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized linear
    models. *Biometrika* 73(1), 13-22.

    Examples
    --------
    >>> scores = [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1]
    >>> subject = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3]
    >>> r = cluster_bootstrap([0] * 12, scores, subject, method="wild")
    >>> r.method, r.pvalue, r.n_resamples
    ('cluster-wild-bootstrap', 0.25, None)
    >>> r = cluster_bootstrap([0] * 12, scores, subject, n_resamples=2000, rng=0)
    >>> r.method, round(r.estimate, 4)
    ('cluster-bootstrap', 0.6667)
    """
    checked = _cluster_iv(
        baseline,
        candidate,
        cluster,
        variant=method,
        choices=get_args(BootstrapVariant),
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    result = cluster_bootstrap_core(
        checked.d,
        checked.codes,
        variant=cast(BootstrapVariant, checked.variant),
        **checked.options.keywords,
    )
    return checked.options.record(result)


def cluster_bootstrap_core(
    d: np.ndarray,
    codes: np.ndarray,
    *,
    variant: BootstrapVariant,
    n_resamples: int,
    alternative: Alternative,
    confidence_level: float,
    rng: np.random.Generator,
) -> InferenceResult:
    """The cluster bootstrap on validated differences and cluster codes ``0..G-1``."""
    summary = _ClusterSummary.of(d, codes)
    if variant == "pairs":
        replicates = _pairs_replicates(summary, n_resamples, rng)
        percentiles = BootstrapDistribution.build(summary.estimate, replicates, "percentile")
        return _finish(
            summary,
            method="cluster-bootstrap",
            se=float(np.std(replicates, ddof=1)),
            statistic=summary.estimate,
            df=None,
            pvalue=percentiles.pvalue(alternative),
            n_resamples=n_resamples,
            notes=[
                f"pairs cluster bootstrap: {n_resamples:,} resamples of whole clusters; "
                "percentile interval; p-value inverts it, p = (k + 1) / (B + 1)."
            ],
            interval=percentiles.interval,
            alternative=alternative,
            confidence_level=confidence_level,
        )
    if summary.degenerate() is not None:  # nothing to resample; _finish explains
        draws, notes = None, []
    else:
        draws = _WildDraws.draw(summary, n_resamples, rng)
        g = summary.n_clusters
        how = (
            f"exact enumeration of all 2^{g} = {2**g:,} sign vectors; the smallest attainable "
            f"two-sided p-value is {2.0 / 2**g:.4g}."
            if draws.exact
            else f"Monte Carlo over {n_resamples:,} sign vectors; p = (k + 1) / (B + 1)."
        )
        notes = [
            f"wild cluster bootstrap-t (Rademacher weights, null imposed): {how}",
            "interval: inverts the wild bootstrap test over the hypothesised mean (bisection, "
            "same sign vectors for every value).",
        ]
    return _finish(
        summary,
        method="cluster-wild-bootstrap",
        se=summary.se_cr1(),
        statistic=math.nan if draws is None else draws.t_observed(0.0),
        df=None,
        pvalue=math.nan if draws is None else draws.pvalue(0.0, alternative),
        n_resamples=None if draws is None or draws.exact else n_resamples,
        notes=notes,
        interval=partial(_point, summary.estimate) if draws is None else draws.interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


# --- shared pieces -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ClusterSummary:
    """Per-cluster totals and sizes of validated differences: all the tests need."""

    totals: np.ndarray
    """``T_g``: the sum of the differences in cluster g."""
    sizes: np.ndarray
    """``n_g`` (int64), all at least 1."""
    residual_totals: np.ndarray
    """``E_g = T_g - n_g * mean``: cluster totals of the residuals."""
    estimate: float
    scale: float
    """The largest absolute difference (0 when every difference is 0)."""
    all_zero: bool

    @classmethod
    def of(cls, d: np.ndarray, codes: np.ndarray) -> _ClusterSummary:
        g = int(codes.max()) + 1
        if g < 2:
            raise DataError(
                f"all {len(d)} items are in one cluster: a cluster-robust test needs at least "
                "2 clusters (and about 30 for reliable results) to estimate the "
                "between-cluster variance. Give the real cluster labels (subject, passage, "
                "source), or drop `cluster` (CLI: --cluster) if the items are independent."
            )
        estimate = float(np.mean(d))
        return cls(
            totals=np.bincount(codes, weights=d, minlength=g),
            sizes=np.bincount(codes, minlength=g).astype(np.int64),
            residual_totals=np.bincount(codes, weights=d - estimate, minlength=g),
            estimate=estimate,
            scale=float(np.max(np.abs(d))),
            all_zero=not np.any(d),
        )

    @property
    def n(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    def se_cr1(self) -> float:
        g = self.n_clusters
        e, scale = _scaled(self.residual_totals)
        return math.sqrt(g / (g - 1) * float(np.sum(e**2))) * scale / self.n

    def degenerate(self) -> tuple[float, str] | None:
        """``(pvalue, note)`` when every cluster has the same mean (zero robust SE)."""
        if float(np.ptp(self.totals / self.sizes)) > ZERO_TOLERANCE * self.scale:
            return None
        if self.all_zero:
            return 1.0, "every per-item difference is 0: no evidence of a difference (p = 1)."
        if abs(self.estimate) <= ZERO_TOLERANCE * self.scale:
            return 1.0, "every cluster's mean difference is 0: no evidence of a difference (p = 1)."
        return math.nan, (
            f"every cluster has the same mean difference {self.estimate:+.6g}: the "
            "cluster-robust standard error is 0 and the test is undefined (p = nan); there "
            "is no between-cluster variation to judge the difference against."
        )

    def notes(self) -> list[str]:
        """Sample sizes, and the warning when the clusters are few."""
        g = self.n_clusters
        sizes = f"{self.n} items in {g} clusters (sizes {self.sizes.min()} to {self.sizes.max()})."
        if g >= FEW_CLUSTERS:
            return [sizes]
        return [
            sizes,
            f"only {g} clusters: cluster-robust inference is unreliable with fewer than about "
            f"{FEW_CLUSTERS} clusters; the pairs cluster bootstrap over-rejects there; prefer "
            "the CR2 variant (Bell-McCaffrey df) or the wild cluster bootstrap.",
        ]


def few_clusters_notes(groups: int, what: str) -> list[str]:
    """With fewer than ``FEW_CLUSTERS`` clusters, a note that a cluster-robust ``what`` (CR2
    with Bell-McCaffrey degrees of freedom: "interval", "test") is fragile; else none."""
    if groups >= FEW_CLUSTERS:
        return []
    return [
        f"only {groups} clusters: a cluster-robust {what} is fragile with fewer than about "
        f"{FEW_CLUSTERS} clusters (CR2 with Bell-McCaffrey degrees of freedom is the most "
        "reliable choice there); more clusters narrow it most."
    ]


def _scaled(values: np.ndarray) -> tuple[np.ndarray, float]:
    """``values / scale`` and ``scale`` (their largest magnitude, or 1 when all are 0), so
    that squares neither underflow nor overflow whatever the scores' units."""
    scale = float(np.max(np.abs(values))) or 1.0
    return values / scale, scale


def _finish(
    summary: _ClusterSummary,
    *,
    method: str,
    se: float,
    statistic: float,
    df: float | None,
    pvalue: float,
    n_resamples: int | None,
    notes: list[str],
    interval: IntervalFn,
    alternative: Alternative,
    confidence_level: float,
) -> InferenceResult:
    """The result, with the sample-size and few-cluster notes and the degenerate cases."""
    notes = [*notes, *summary.notes()]
    degenerate = summary.degenerate()
    if degenerate is not None:
        pvalue, note = degenerate
        notes.append(note)
        se = 0.0
        interval = partial(_point, summary.estimate)
        if method != "cluster-bootstrap":
            statistic = 0.0 if pvalue == 1.0 else math.copysign(math.inf, summary.estimate)
    return make_result(
        method=method,
        estimand="mean difference",
        estimate=summary.estimate,
        se=se,
        statistic=statistic,
        statistic_name="mean difference" if method == "cluster-bootstrap" else "t",
        df=df,
        pvalue=pvalue,
        n_resamples=n_resamples,
        notes=tuple(notes),
        interval=interval,
        alternative=alternative,
        confidence_level=confidence_level,
    )


def _point(estimate: float, level: float, alternative: Alternative) -> tuple[float, float]:
    low = estimate if alternative != "less" else -math.inf
    high = estimate if alternative != "greater" else math.inf
    return low, high


# --- pairs cluster bootstrap ---------------------------------------------------------------


def _pairs_replicates(
    summary: _ClusterSummary, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Means over the items of ``n_resamples`` resamples of whole clusters."""
    rows = np.column_stack([summary.totals, summary.sizes.astype(np.float64)])
    drawn = bootstrap_totals(rows, n_resamples, rng)
    return np.asarray(drawn[:, 0] / drawn[:, 1], dtype=np.float64)


# --- wild cluster bootstrap-t --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _WildDraws:
    """Five sums per Rademacher sign vector that give its t* under any null ``delta``.

    With ``s = mean - delta`` a draw's statistic is ``(a + s b) / sqrt(c (pp + 2 s pq +
    s^2 qq))``, ``c = G / (G - 1)``; see the Notes of :func:`cluster_bootstrap`.
    """

    estimate: float
    se: float
    """CR1 standard error of the observed data (positive)."""
    factor: float
    sums: np.ndarray
    """``(5, B)``: rows a, b, pp, pq, qq, of residual totals divided by ``scale``."""
    exact: bool
    scale: float
    """The largest residual total's magnitude: sums of squares stay in range at any units."""

    @classmethod
    def draw(
        cls, summary: _ClusterSummary, n_resamples: int, rng: np.random.Generator
    ) -> _WildDraws:
        """Every sign vector when there are at most ``n_resamples``, else a random sample."""
        g, n = summary.n_clusters, float(summary.n)
        exact = 2**g <= n_resamples
        count = 2**g if exact else n_resamples
        e, scale = _scaled(summary.residual_totals)
        sizes = summary.sizes.astype(np.float64)
        sums = np.empty((5, count))
        step = max(1, CHUNK_BYTES // (48 * g))  # about six (chunk, G) float arrays alive
        for start in range(0, count, step):
            stop = min(start + step, count)
            if exact:
                bits = (np.arange(start, stop)[:, None] >> np.arange(g)) & 1
            else:
                bits = rng.integers(0, 2, size=(stop - start, g))
            v = 2.0 * bits - 1.0
            a, b = v @ e, v @ sizes
            p = v * e - np.multiply.outer(a / n, sizes)
            q = v * sizes - np.multiply.outer(b / n, sizes)
            sums[:, start:stop] = (a, b, (p * p).sum(1), (p * q).sum(1), (q * q).sum(1))
        factor = g / (g - 1)
        return cls(summary.estimate, summary.se_cr1(), factor, sums, exact, scale)

    def t_observed(self, delta: float) -> float:
        return (self.estimate - delta) / self.se

    def t_star(self, delta: float) -> np.ndarray:
        """The bootstrap t of every sign vector under ``H0: mean difference = delta``."""
        a, b, pp, pq, qq = self.sums
        s = (self.estimate - delta) / self.scale
        squares = np.maximum(pp + 2.0 * s * pq + s * s * qq, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (a + s * b) / np.sqrt(self.factor * squares)
        return np.asarray(np.where(np.isnan(t), 0.0, t), dtype=np.float64)

    def pvalues(self, delta: float) -> tuple[float, float]:
        """One-sided p-values (greater, less) of ``H0: mean difference = delta``."""
        t = self.t_observed(delta)
        tolerance = 1e-10 * max(1.0, abs(t))
        t_star = self.t_star(delta)
        at_least = int(np.sum(t_star >= t - tolerance))
        at_most = int(np.sum(t_star <= t + tolerance))
        count = len(t_star)
        if self.exact:
            return at_least / count, at_most / count
        return (at_least + 1) / (count + 1), (at_most + 1) / (count + 1)

    def pvalue(self, delta: float, alternative: Alternative) -> float:
        return choose_pvalue(*self.pvalues(delta), alternative)

    def interval(self, level: float, alternative: Alternative) -> tuple[float, float]:
        """Values of ``delta`` not rejected at ``1 - level`` (equal tails when two-sided)."""
        return invert_test(self.pvalues, self.estimate, 2.0 * self.se, level, alternative)


# --- input validation ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Checked:
    d: np.ndarray
    codes: np.ndarray
    variant: str
    options: Resampling


def _cluster_iv(
    baseline: object,
    candidate: object,
    clusters: object,
    *,
    variant: object,
    choices: Sequence[str],
    alternative: object,
    confidence_level: object,
    n_resamples: object = 10_000,
    rng: object = 0,
) -> _Checked:
    """Validate every argument of the public functions in one place.

    ``n_resamples`` and ``rng`` keep their defaults for the analytic tests, which ignore them
    (the seed 0 spares them a generator seeded from the operating system).
    """
    check_choice(
        variant,
        choices,
        "`method`",
        f"Use {choices[0]!r} (the default) unless you have a reason not to.",
    )
    options = resampling_options(
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    d = paired_differences(baseline, candidate)
    codes = _cluster_codes(clusters, len(d))
    return _Checked(d, codes, str(variant), options)


def _cluster_codes(clusters: object, n: int) -> np.ndarray:
    """Integer codes ``0..G-1`` of one cluster label per item, or a :class:`DataError`."""
    if isinstance(clusters, (str, bytes)) or not hasattr(clusters, "__len__"):
        raise DataError(
            f"`cluster` must be a sequence of {n} cluster labels, one per item; got {clusters!r}."
        )
    labels: np.ndarray | list[object]
    if hasattr(clusters, "__array__"):
        labels = array = np.asarray(clusters)
        if array.ndim != 1:
            raise DataError(
                f"`cluster` must be one-dimensional, one label per item; got shape {array.shape}."
            )
    else:
        labels = list(cast(Sequence[object], clusters))
    if len(labels) != n:
        raise DataError(
            f"`cluster` has {len(labels)} labels but there are {n} items; pass one cluster "
            "label per item, aligned with `baseline` and `candidate`."
        )
    codes = _array_codes(labels) if isinstance(labels, np.ndarray) else _label_codes(labels)
    if codes.max() < 1:
        raise DataError(
            f"`cluster` has a single cluster ({examples(labels[:1])}); cluster-robust "
            "inference needs at least 2 clusters (and about 30 for reliable results). If the "
            "items are independent, use paired_t instead."
        )
    return codes


def _array_codes(array: np.ndarray) -> np.ndarray:
    kind = array.dtype.kind
    if kind not in "biuSUfcmM":
        return _label_codes(array.tolist())
    missing = np.isnat(array) if kind in "mM" else np.isnan(array) if kind in "fc" else None
    if missing is not None and missing.any():
        _raise_missing(np.flatnonzero(missing))
    _, inverse = np.unique(array, return_inverse=True)
    return np.asarray(inverse, dtype=np.intp).reshape(-1)


def _label_codes(labels: list[object]) -> np.ndarray:
    """Codes in order of first appearance; labels compare by Python equality."""
    index: dict[object, int] = {}
    codes = np.empty(len(labels), dtype=np.intp)
    missing: list[int] = []
    for position, label in enumerate(labels):
        try:
            codes[position] = index.setdefault(label, len(index))
        except TypeError:
            raise DataError(
                f"`cluster` has an unhashable label {label!r} at position {position}; use "
                "strings or integers as cluster labels."
            ) from None
        try:
            if label is None or label != label:
                missing.append(position)
        except (TypeError, ValueError):  # pandas.NA refuses to be truth-tested
            missing.append(position)
    if missing:
        _raise_missing(np.asarray(missing))
    return codes


def _raise_missing(positions: np.ndarray) -> None:
    shown = examples(f"position {int(p)}" for p in positions)
    raise DataError(
        f"`cluster` has {len(positions)} missing label(s) (None or NaN) at {shown}; give "
        "every item a cluster (an item that belongs to no group can be a cluster of its own)."
    )
