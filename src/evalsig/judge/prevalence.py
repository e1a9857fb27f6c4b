r"""The Rogan-Gladen correction: the true rate of positives from a judge's positive rate,
given the judge's sensitivity and specificity.

.. math:: \hat\pi = \frac{\hat p + \widehat{sp} - 1}{\widehat{se} + \widehat{sp} - 1}

With :math:`J = \widehat{se} + \widehat{sp} - 1` (Youden's index), the delta method gives

.. math:: \mathrm{Var}(\hat\pi) \approx \frac{1}{J^2}\left[\frac{\hat p (1 - \hat p)}{n}
   + \hat\pi^2 \frac{\widehat{se}(1 - \widehat{se})}{n_{se}}
   + (1 - \hat\pi)^2 \frac{\widehat{sp}(1 - \widehat{sp})}{n_{sp}}\right],

where the last two terms appear only when sensitivity and specificity were estimated
(from ``n_se`` human-positive and ``n_sp`` human-negative items); known values add none.
The estimate and the interval are clipped to [0, 1], with a note when that happens.

References
----------
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening
test. *American Journal of Epidemiology* 107(1), 71-76.
Greenland, S. (1996). Basic methods for sensitivity analysis of biases. *International
Journal of Epidemiology* 25(6), 1107-1116.
"""

from __future__ import annotations

import math

from evalsig.data.provenance import provenance
from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level, check_count, check_number
from evalsig.judge.result import JudgeResult, NormalEstimate, normal_interval

__all__ = ["rogan_gladen"]


def rogan_gladen(
    judge_positive_rate: float,
    sensitivity: float,
    specificity: float,
    n: int,
    /,
    *,
    n_sensitivity: int | None = None,
    n_specificity: int | None = None,
    confidence_level: float = 0.95,
) -> JudgeResult:
    """The rate of true positives, corrected for the judge's errors (see the module).

    Parameters
    ----------
    judge_positive_rate : float
        The share of the ``n`` items the judge called positive.
    sensitivity, specificity : float
        The judge's true-positive rate (on items humans call positive) and true-negative
        rate (on items humans call negative); their sum must exceed 1.
    n : int
        Items the judge rated.
    n_sensitivity, n_specificity : int, optional
        Human-positive and human-negative items they were estimated on: their variance is
        added to the interval. None: taken as known exactly.
    confidence_level : float

    Returns
    -------
    JudgeResult
        ``method="rogan-gladen"``; ``naive`` is the judge's own rate.

    Examples
    --------
    >>> result = rogan_gladen(0.30, 0.90, 0.95, 1000)
    >>> round(result.estimate, 4), round(result.se, 4)
    (0.2941, 0.017)
    """
    level = check_confidence_level(confidence_level)
    p = _rate(judge_positive_rate, "judge_positive_rate")
    se_, sp = _rate(sensitivity, "sensitivity"), _rate(specificity, "specificity")
    count = _count(n, "n")
    youden = se_ + sp - 1.0
    if youden <= 0:
        raise DataError(
            f"sensitivity {se_:g} + specificity {sp:g} = {se_ + sp:g} is not above 1: the "
            "judge does no better than chance, and its positive rate says nothing about the "
            "true rate. Check the two rates (are positive and negative swapped?)."
        )
    raw = (p + sp - 1.0) / youden
    estimate = min(max(raw, 0.0), 1.0)
    variance = p * (1.0 - p) / count
    notes = [f"judge's positive rate {p:.4g} on {count:,} items; Youden index {youden:.4g}."]
    for name, size, rate, weight in (
        ("n_sensitivity", n_sensitivity, se_, estimate),
        ("n_specificity", n_specificity, sp, 1.0 - estimate),
    ):
        if size is None:
            notes.append(f"{name[2:]} taken as known exactly (no `{name}` given).")
        else:
            variance += weight**2 * rate * (1.0 - rate) / _count(size, name)
    if raw != estimate:
        notes.append(
            f"the corrected rate {raw:.4g} lies outside [0, 1] (the judge's rate is beyond "
            f"what its sensitivity and specificity allow); clipped to {estimate:g}."
        )
    se = math.sqrt(variance) / youden
    if se == 0:
        notes.append(
            f"the standard error is 0 (the judge's positive rate is {p:g}, and the "
            "sensitivity and specificity add no variance: known, or estimated as 0 or 1): "
            "the interval is a single point and understates the uncertainty; rate more "
            "items, and give `n_sensitivity` and `n_specificity` when the rates were "
            "estimated."
        )
    naive_se = math.sqrt(p * (1.0 - p) / count)
    return JudgeResult(
        estimate=estimate,
        se=se,
        ci=normal_interval(estimate, se, level, bounds=(0.0, 1.0)),
        method="rogan-gladen",
        estimand="rate of positives",
        lambda_=None,
        n_labeled=None
        if n_sensitivity is None or n_specificity is None
        else int(n_sensitivity) + int(n_specificity),
        n_unlabeled=count,
        naive=NormalEstimate(
            estimate=p,
            se=naive_se,
            ci=normal_interval(p, naive_se, level, bounds=(0.0, 1.0)),
        ),
        bounds=(0.0, 1.0),
        notes=tuple(notes),
        provenance=provenance(),
    )


def _rate(value: object, name: str) -> float:
    return check_number(value, name, low=0.0, high=1.0, fix="It is a rate (a share of items).")


def _count(value: object, name: str) -> int:
    return check_count(value, name, fix="It is a number of items.")
