r"""Prediction-powered inference: an LLM judge's scores on every item, corrected with human
labels on a random subset, with an interval that stays valid however biased the judge is.

With ``N`` unlabeled items (judge scores :math:`\tilde j_i`) and ``n`` labeled ones (judge
:math:`j_i`, human :math:`h_i`), the estimate of the mean human score is

.. math:: \hat\theta_\lambda = \lambda \bar{\tilde j} + \overline{(h - \lambda j)}

(the judge's mean on the unlabeled items, plus the mean of the rectifier on the labeled
ones), with variance :math:`\widehat{V} = \mathrm{Var}(h - \lambda j)/n +
\lambda^2 \mathrm{Var}(\tilde j)/N` and the normal (CLT) interval
:math:`\hat\theta \pm z \sqrt{\widehat V}`. PPI takes :math:`\lambda = 1`; PPI++ the
power-tuned :math:`\lambda^* = \mathrm{Cov}(h, j) / ((1 + n/N)\,\mathrm{Var}(j))`,
clipped to [0, 1] as the paper does (0 gives the human-only mean). As in the reference
implementation ``ppi_py``, variances are plug-in (divided by the count), the covariance
is taken over the labeled items and :math:`\mathrm{Var}(j)` over all judge scores.

With cluster labels the variance is cluster-robust: the estimate's influence terms
(:math:`(r_i - \bar r)/n` on labeled items, :math:`\lambda(\tilde j_i - \bar{\tilde j})/N`
on unlabeled ones) are summed per cluster, :math:`\widehat V = \frac{G}{G-1}\sum_g
(\sum_{i \in g} \psi_i)^2` (CR1), so that a cluster spanning both sets counts once.

References
----------
Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023).
Prediction-powered inference. *Science* 382(6671), 669-674.
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2024). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from evalsig._deprecation import renamed
from evalsig.data.provenance import provenance
from evalsig.defaults import FEW_CLUSTERS
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    check_alternative,
    check_confidence_level,
    normal_pvalue,
)
from evalsig.judge._input import cluster_codes, human_scores, judge_scores
from evalsig.judge.result import JudgeResult, LabelBound, NormalEstimate, normal_interval

__all__ = ["ppi_lambda", "ppi_mean", "ppi_paired_difference"]

FEW_LABELS = 30
"""Below this many labeled items the normal interval is unreliable (noted)."""


def ppi_lambda(judge_unlabeled: Any, judge_labeled: Any, human_labeled: Any, /) -> float:
    r"""The PPI++ power-tuning weight :math:`\lambda^* = \mathrm{Cov}(h, j) /
    ((1 + n/N)\mathrm{Var}(j))`, clipped to [0, 1] (0 when the judge's scores are constant).

    >>> ppi_lambda([0, 1, 1, 0, 1, 1], [0, 1, 1, 0], [0, 1, 0, 0])
    0.28125
    """
    j_u, _ = judge_scores(judge_unlabeled, "judge_unlabeled")
    j_l, _ = judge_scores(judge_labeled, "judge_labeled")
    h = human_scores(human_labeled, "human_labeled")
    _check_sizes(j_u, j_l, h, "")
    return _tuned_lambda(j_u, j_l, h)


@renamed(clusters="cluster")
def ppi_mean(
    judge_unlabeled: Any,
    judge_labeled: Any,
    human_labeled: Any,
    /,
    *,
    confidence_level: float = 0.95,
    tuned: bool = True,
    cluster: tuple[Sequence[Any], Sequence[Any]] | None = None,
) -> JudgeResult:
    """The mean human score, estimated from a judge's scores on all items and human labels
    on a random subset (prediction-powered inference; see the module's description).

    Parameters
    ----------
    judge_unlabeled : array
        The judge's scores on the items no human labeled: 1-D, or ``items x samples``
        (or a list of per-item lists) when the judge scored each item several times; the
        samples of an item are averaged first (the notes say so).
    judge_labeled, human_labeled : array
        The judge's scores and the human labels (0/1 or scores) on the labeled items, in
        the same order. The labeled items must be a uniformly random subset.
    confidence_level : float
    tuned : bool
        PPI++ (power-tuned lambda, never wider than the human-only interval in large
        samples) when True; plain PPI (lambda = 1) when False.
    cluster : (labels of the unlabeled items, labels of the labeled items), optional
        Cluster of every item (passage, source, conversation): a cluster-robust variance.

    Returns
    -------
    JudgeResult
        With the judge-only (``naive``) and human-only (``classical``) estimates beside.

    Raises
    ------
    DataError
        Missing or infinite scores, labeled arrays of different lengths, fewer than 2
        labeled or 2 unlabeled items, cluster labels that do not match, or one cluster.

    Notes
    -----
    The order of the arrays is the reverse of ``ppi_py``'s: ``ppi_mean(j_u, j_l, h)`` is
    ``ppi_py.ppi_mean_ci(Y=h, Yhat=j_l, Yhat_unlabeled=j_u, alpha=1 - confidence_level)``.

    Examples
    --------
    >>> result = ppi_mean([1, 1, 1, 0, 1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 0, 1])
    >>> result.method, round(result.estimate, 4), round(result.lambda_, 4)
    ('ppi++', 0.5, 0.4074)
    """
    level = check_confidence_level(confidence_level)
    tuned = _check_tuned(tuned)
    j_u, note_u = judge_scores(judge_unlabeled, "judge_unlabeled")
    j_l, note_l = judge_scores(judge_labeled, "judge_labeled")
    h = human_scores(human_labeled, "human_labeled")
    _check_sizes(j_u, j_l, h, "")
    codes = _clusters(cluster, len(j_u), len(j_l))
    notes = [note for note in (note_u, note_l) if note]
    scale = (0.0, 1.0) if _within(h, 0.0, 1.0) else None
    return _result(j_u, j_l, h, tuned=tuned, codes=codes, level=level, notes=notes, scale=scale)


@renamed(clusters="cluster")
def ppi_paired_difference(
    judge_unlabeled: tuple[Any, Any],
    judge_labeled: tuple[Any, Any],
    human_labeled: tuple[Any, Any],
    /,
    *,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
    tuned: bool = True,
    cluster: tuple[Sequence[Any], Sequence[Any]] | None = None,
    baseline: str = "baseline",
    candidate: str = "candidate",
) -> JudgeResult:
    """Candidate minus baseline mean human score, when a judge scored both models on the
    same items and humans labeled both models' outputs on a random subset of them.

    PPI (or PPI++) on the per-item differences candidate - baseline, of the judge's scores
    and of the human labels; the z-test of no difference gives the p-value.

    Parameters
    ----------
    judge_unlabeled, judge_labeled, human_labeled : (baseline, candidate)
        Each a pair of arrays, the baseline's then the candidate's, items in the same
        order on both sides (see :func:`ppi_mean` for each array's form).
    alternative : {"two-sided", "greater", "less"}
        "greater": the candidate is better (its mean human score is higher).
    confidence_level, tuned, cluster
        As in :func:`ppi_mean` (cluster: one label per item, shared by both models).
    baseline, candidate : str
        The models' names, shown in the result.

    Returns
    -------
    JudgeResult
        ``pvalue`` and ``statistic`` (z) are set.

    Examples
    --------
    >>> judge = ([0, 1, 0, 1, 0, 0], [1, 1, 1, 1, 0, 1])
    >>> result = ppi_paired_difference(judge, ([0, 1, 0], [1, 1, 1]), ([0, 1, 1], [1, 1, 1]),
    ...                                alternative="greater")
    >>> round(result.estimate, 4), result.alternative
    (0.2889, 'greater')
    """
    level = check_confidence_level(confidence_level)
    side = check_alternative(alternative)
    tuned = _check_tuned(tuned)
    sides = {}
    notes: list[str] = []
    unit_labels = True
    for name, pair in (
        ("judge_unlabeled", judge_unlabeled),
        ("judge_labeled", judge_labeled),
        ("human_labeled", human_labeled),
    ):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise DataError(
                f"`{name}` must be a pair (baseline scores, candidate scores); got "
                f"{type(pair).__name__} {pair!r:.60}."
            )
        values = []
        for who, array in zip((baseline, candidate), pair, strict=True):
            label = f"{name}[{who!r}]"
            if name == "human_labeled":
                values.append(human_scores(array, label))
                unit_labels = unit_labels and _within(values[-1], 0.0, 1.0)
            else:
                scores, note = judge_scores(array, label)
                values.append(scores)
                notes += [note] if note else []
        if len(values[0]) != len(values[1]):
            raise DataError(
                f"`{name}` has {len(values[0])} items for {baseline!r} but {len(values[1])} for "
                f"{candidate!r}: both models must be scored on the same items, in one order."
            )
        sides[name] = values[1] - values[0]
    j_u, j_l, h = sides["judge_unlabeled"], sides["judge_labeled"], sides["human_labeled"]
    _check_sizes(j_u, j_l, h, " (per-item differences)")
    codes = _clusters(cluster, len(j_u), len(j_l))
    scale = (-1.0, 1.0) if unit_labels else None
    result = _result(
        j_u, j_l, h, tuned=tuned, codes=codes, level=level, notes=notes, side=side, scale=scale
    )
    z = result.estimate / result.se if result.se > 0 else math.nan
    if result.se == 0:
        notes.append("the standard error is 0 (every difference is the same): no test (p = nan).")
    return replace(
        result,
        estimand=f"mean human score of {candidate} minus {baseline}",
        statistic=z,
        pvalue=normal_pvalue(z, side),
        baseline=baseline,
        candidate=candidate,
        notes=tuple(notes),
    )


@dataclass(frozen=True, slots=True)
class _Codes:
    unlabeled: np.ndarray
    labeled: np.ndarray
    n_clusters: int


def _result(
    j_u: np.ndarray,
    j_l: np.ndarray,
    h: np.ndarray,
    *,
    tuned: bool,
    codes: _Codes | None,
    level: float,
    notes: list[str],
    side: Alternative = "two-sided",
    scale: tuple[float, float] | None = None,
) -> JudgeResult:
    """The estimate and its intervals; ``scale`` bounds every item's human label (or label
    difference) when known, for the exact interval of labels that are all the same."""
    n, big_n = len(h), len(j_u)
    if tuned:
        lam = _tuned_lambda(j_u, j_l, h)
        if np.ptp(np.concatenate([j_l, j_u])) == 0:
            notes.append(
                "the judge gives every item the same score: it carries no information, so "
                "lambda = 0 (the human-only estimate)."
            )
    else:
        lam = 1.0
    rectifier = h - lam * j_l
    estimate = lam * float(j_u.mean()) + float(rectifier.mean())
    psi_l, psi_u = (rectifier - rectifier.mean()) / n, lam * (j_u - j_u.mean()) / big_n
    se = _se(psi_u, psi_l, codes)
    judge_all = np.concatenate([j_u, j_l])
    naive_psi = (judge_all - judge_all.mean()) / (n + big_n)
    naive_se = _se(naive_psi[:big_n], naive_psi[big_n:], codes)
    human_se = _se(np.zeros(0), (h - h.mean()) / n, codes, labeled_only=True)
    notes.append(
        f"{n} labeled and {big_n} unlabeled items; lambda = {lam:.4g} "
        + ("(PPI++, power-tuned)" if tuned else "(plain PPI)")
        + "; normal (CLT) intervals."
    )
    if n < FEW_LABELS:
        notes.append(
            f"only {n} labeled items: the normal interval is unreliable with fewer than about "
            f"{FEW_LABELS} (a few hundred is better); read it as approximate."
        )
    if codes is not None:
        notes.append(f"cluster-robust variance (CR1) over {codes.n_clusters} clusters.")
        if codes.n_clusters < FEW_CLUSTERS:
            notes.append(
                f"only {codes.n_clusters} clusters: a cluster-robust normal interval is "
                f"unreliable with fewer than about {FEW_CLUSTERS}; read it as approximate."
            )

    def shown(estimate: float, se: float) -> NormalEstimate:
        return NormalEstimate(
            estimate=estimate, se=se, ci=normal_interval(estimate, se, level, side)
        )

    classical = shown(float(h.mean()), human_se)
    bound = None
    if np.ptp(h) == 0:
        value = float(h[0])
        what = "human labels" if scale != (-1.0, 1.0) else "differences of the human labels"
        if scale is None:
            notes.append(
                f"all {n} {what} are {value:g}: their variance is estimated as 0, so the "
                "normal intervals have (nearly) no width and say nothing of the labels not "
                "seen; label more items, or give labels on a known scale such as [0, 1]."
            )
        else:
            labels = LabelBound(value=value, n=n, scale=scale)
            classical = replace(classical, ci=labels.interval(level, side))
            notes.append(
                f"all {n} {what} are {value:g}: their variance is estimated as 0, so a "
                "normal interval would have no width. The humans-only interval is the exact "
                f"bound from {n} identical labels on the scale [{scale[0]:g}, {scale[1]:g}] "
                "(Clopper-Pearson for 0/1 labels)"
                + (
                    ", and so is the corrected interval (the judge's part of it has no "
                    "variance here)."
                    if se == 0
                    else "; the corrected interval is the normal one, narrower than it should "
                    "be: label more items."
                )
            )
            if se == 0:
                bound = replace(labels, shift=estimate - value)

    return JudgeResult(
        estimate=estimate,
        se=se,
        ci=normal_interval(estimate, se, level, side)
        if bound is None
        else bound.interval(level, side),
        method="ppi++" if tuned else "ppi",
        estimand="mean human score",
        lambda_=lam,
        n_labeled=n,
        n_unlabeled=big_n,
        n_clusters=None if codes is None else codes.n_clusters,
        naive=shown(float(judge_all.mean()), naive_se),
        classical=classical,
        alternative=side,
        notes=tuple(notes),
        provenance=provenance(),
        label_bound=bound,
    )


def _tuned_lambda(j_u: np.ndarray, j_l: np.ndarray, h: np.ndarray) -> float:
    n, big_n = len(h), len(j_u)
    var_j = float(np.var(np.concatenate([j_l, j_u]), ddof=1))
    if var_j == 0:
        return 0.0
    cov = float(np.mean((h - h.mean()) * (j_l - j_l.mean())))
    return float(np.clip(cov / ((1.0 + n / big_n) * var_j), 0.0, 1.0))


def _se(
    psi_u: np.ndarray, psi_l: np.ndarray, codes: _Codes | None, *, labeled_only: bool = False
) -> float:
    """The square root of the summed squared influence terms, per cluster when clustered."""
    if codes is None:
        return math.sqrt(float(np.sum(psi_u**2) + np.sum(psi_l**2)))
    g = codes.n_clusters
    totals = np.bincount(codes.labeled, weights=psi_l, minlength=g)
    if not labeled_only:
        totals += np.bincount(codes.unlabeled, weights=psi_u, minlength=g)
    used = g if not labeled_only else len(np.unique(codes.labeled))
    if used < 2:
        return math.nan
    return math.sqrt(used / (used - 1) * float(np.sum(totals**2)))


def _clusters(
    clusters: tuple[Sequence[Any], Sequence[Any]] | None, big_n: int, n: int
) -> _Codes | None:
    if clusters is None:
        return None
    if not isinstance(clusters, (tuple, list)) or len(clusters) != 2:
        raise DataError(
            "`cluster` must be a pair (labels of the unlabeled items, labels of the labeled "
            f"items); got {type(clusters).__name__} {clusters!r:.60}."
        )
    u = list(clusters[0]) if hasattr(clusters[0], "__len__") else clusters[0]
    labeled = list(clusters[1]) if hasattr(clusters[1], "__len__") else clusters[1]
    cluster_codes(u, big_n, "cluster[0] (unlabeled items)")
    cluster_codes(labeled, n, "cluster[1] (labeled items)")
    codes = cluster_codes([*u, *labeled], big_n + n, "cluster")
    g = int(codes.max()) + 1
    if g < 2:
        raise DataError(
            f"all {big_n + n} items are in one cluster: a cluster-robust variance needs at "
            "least 2 clusters (about 30 for a reliable interval). Give the real cluster "
            "labels, or drop `cluster` if the items are independent."
        )
    return _Codes(unlabeled=codes[:big_n], labeled=codes[big_n:], n_clusters=g)


def _check_sizes(j_u: np.ndarray, j_l: np.ndarray, h: np.ndarray, what: str) -> None:
    if len(j_l) != len(h):
        raise DataError(
            f"`judge_labeled` has {len(j_l)} items but `human_labeled` has {len(h)}{what}: "
            "give the judge's score and the human label of the same labeled items, in one "
            "order."
        )
    if len(h) < 2:
        raise DataError(
            f"only {len(h)} labeled item(s){what}: the correction needs at least 2 human "
            "labels (a few hundred for a reliable normal interval)."
        )
    if len(j_u) < 2:
        raise DataError(
            f"only {len(j_u)} unlabeled item(s){what}: give the judge's scores on the items "
            "humans did not label (at least 2), or use the human labels alone."
        )


def _within(values: np.ndarray, low: float, high: float) -> bool:
    return bool(len(values) and float(values.min()) >= low and float(values.max()) <= high)


def _check_tuned(tuned: object) -> bool:
    if not isinstance(tuned, (bool, np.bool_)):
        raise DataError(f"`tuned` must be True (PPI++) or False (plain PPI); got {tuned!r}.")
    return bool(tuned)
