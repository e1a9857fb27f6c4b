r"""How well a judge agrees with human labels on the same items: raw agreement, Cohen's
kappa with its standard error, and (for two categories) sensitivity and specificity.

Cohen's kappa is :math:`\kappa = (p_o - p_e) / (1 - p_e)`, the observed agreement
:math:`p_o` beyond the agreement :math:`p_e = \sum_k p_{k\cdot} p_{\cdot k}` expected from the
margins. Its large-sample variance (Fleiss, Cohen & Everitt 1969, as in statsmodels'
``cohens_kappa``) is

.. math:: \mathrm{Var}(\hat\kappa) = \frac{A + B - C}{n (1 - p_e)^2}, \quad
   A = \sum_k p_{kk}\,[1 - (p_{k\cdot} + p_{\cdot k})(1 - \kappa)]^2, \quad
   B = (1 - \kappa)^2 \sum_{k \ne l} p_{kl} (p_{\cdot k} + p_{l\cdot})^2, \quad
   C = [\kappa - p_e (1 - \kappa)]^2,

and the interval is :math:`\hat\kappa \pm z\,\mathrm{SE}`, clipped to kappa's range
[-1, 1]. Sensitivity (the judge's rate of positives among human positives) and
specificity (of negatives among human negatives) get Wilson score intervals
(:mod:`evalsig.inference.proportion`).

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
Psychological Measurement* 20(1), 37-46.
Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and
weighted kappa. *Psychological Bulletin* 72(5), 323-327.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.errors import DataError
from evalsig.inference._common import (
    ConfidenceInterval,
    as_generator,
    check_confidence_level,
)
from evalsig.inference.proportion import proportion_interval
from evalsig.judge._input import check_label_set, check_same_items
from evalsig.judge.reliability import Reliability, fleiss_kappa, krippendorff_alpha
from evalsig.judge.result import normal_interval
from evalsig.result import Result

__all__ = ["JudgeAgreement", "Rate", "judge_agreement"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rate:
    """A proportion ``successes / n`` with its Wilson interval."""

    estimate: float
    successes: int
    n: int
    ci: ConfidenceInterval

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimate": self.estimate,
            "successes": self.successes,
            "n": self.n,
            "ci": {
                "low": self.ci.low,
                "high": self.ci.high,
                "confidence_level": self.ci.confidence_level,
            },
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeAgreement(Result):
    """Agreement of a judge with human labels (JSON kind ``"judge-agreement"``)."""

    kind: ClassVar[str] = "judge-agreement"

    n: int
    categories: tuple[str, ...]
    table: tuple[tuple[int, ...], ...]
    """Counts: rows are the human's category, columns the judge's (``categories`` order)."""
    agreement: float
    kappa: float
    kappa_se: float
    kappa_ci: ConfidenceInterval
    positive: str | None
    """The category counted as positive for sensitivity and specificity."""
    sensitivity: Rate | None
    specificity: Rate | None
    fleiss_kappa: Reliability | None = None
    """The judge and the humans as two raters (Fleiss 1971; equal to Scott's pi here)."""
    krippendorff_alpha: Reliability | None = None
    """The judge and the humans as two coders, nominal metric."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        if self.sensitivity is None:
            nulls["sensitivity"] = "no positive category, or no human positives (see notes)"
        if self.specificity is None:
            nulls["specificity"] = "no positive category, or no human negatives (see notes)"
        return {
            "kind": "judge-agreement",
            "schema_version": SCHEMA_VERSION,
            "n": self.n,
            "categories": list(self.categories),
            "table": [list(row) for row in self.table],
            "agreement": self.agreement,
            "kappa": json_safe(self.kappa, "kappa", nulls, "undefined: one category only"),
            "kappa_se": json_safe(self.kappa_se, "kappa_se", nulls, "undefined"),
            "kappa_ci": {
                "low": json_safe(self.kappa_ci.low, "kappa_ci.low", nulls, "undefined"),
                "high": json_safe(self.kappa_ci.high, "kappa_ci.high", nulls, "undefined"),
                "confidence_level": self.kappa_ci.confidence_level,
            },
            "positive": self.positive,
            "sensitivity": None if self.sensitivity is None else self.sensitivity.to_dict(),
            "specificity": None if self.specificity is None else self.specificity.to_dict(),
            "fleiss_kappa": None
            if self.fleiss_kappa is None
            else self.fleiss_kappa.to_dict("fleiss_kappa", nulls),
            "krippendorff_alpha": None
            if self.krippendorff_alpha is None
            else self.krippendorff_alpha.to_dict("krippendorff_alpha", nulls),
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per measure (raw agreement, Cohen's kappa, sensitivity, specificity,
        Fleiss' kappa, Krippendorff's alpha; those defined): estimate, ci_low, ci_high
        (NaN where the JSON has null; raw agreement has no interval)."""
        from evalsig._frame import data_frame, floats

        nan = math.nan
        rows: list[tuple[str, float, float, float]] = [
            ("raw agreement", self.agreement, nan, nan),
            ("cohen kappa", self.kappa, self.kappa_ci.low, self.kappa_ci.high),
        ]
        for name, rate in (("sensitivity", self.sensitivity), ("specificity", self.specificity)):
            if rate is not None:
                rows.append((name, rate.estimate, rate.ci.low, rate.ci.high))
        for coefficient in (self.fleiss_kappa, self.krippendorff_alpha):
            if coefficient is not None:
                name = coefficient.statistic.replace("-", " ")
                rows.append((name, coefficient.estimate, coefficient.ci.low, coefficient.ci.high))
        return data_frame(
            {
                "measure": [name for name, *_ in rows],
                "estimate": floats(row[1] for row in rows),
                "ci_low": floats(row[2] for row in rows),
                "ci_high": floats(row[3] for row in rows),
            },
            attrs={"n": self.n, "positive": self.positive},
        )


def judge_agreement(
    judge: Any,
    human: Any,
    /,
    *,
    positive: Any = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> JudgeAgreement:
    """Agreement of a judge's labels with human labels on the same items.

    Parameters
    ----------
    judge, human : sequence
        One label per item (0/1, True/False, or any categories), in the same order.
    positive : optional
        The positive category, for sensitivity and specificity with two categories;
        1 (or True) by default when the labels are 0/1.
    confidence_level : float
    n_resamples : int
        Bootstrap resamples of the items for the intervals of Fleiss' kappa and
        Krippendorff's alpha (the judge and the humans as two raters).
    rng : numpy.random.Generator, int or None
        Seeds those resamples.

    Returns
    -------
    JudgeAgreement

    Examples
    --------
    >>> result = judge_agreement([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1])
    >>> round(result.kappa, 4), result.sensitivity.estimate
    (0.3333, 0.6666666666666666)
    """
    level = check_confidence_level(confidence_level)
    j, h = _labels(judge, "judge"), _labels(human, "human")
    check_same_items(j, h, counted="labels", both="labels")
    if len(j) < 2:
        raise DataError(f"only {len(j)} labeled item(s): agreement needs at least 2.")
    check_label_set(j, "judge", rows=len(j))
    check_label_set(h, "human", rows=len(h))
    categories = sorted(set(j) | set(h), key=lambda v: (str(type(v)), v))
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, ([index[v] for v in h], [index[v] for v in j]), 1)
    n = len(j)
    kappa, se, notes = _kappa(table)
    chosen, sens, spec = _rates(table, categories, positive, level, notes)
    generator = as_generator(rng)
    pairs = [[hv, jv] for hv, jv in zip(h, j, strict=True)]
    fleiss = fleiss_kappa(pairs, confidence_level=level, n_resamples=n_resamples, rng=generator)
    alpha = krippendorff_alpha(
        pairs, confidence_level=level, n_resamples=n_resamples, rng=generator
    )
    return JudgeAgreement(
        n=n,
        categories=tuple(str(c) for c in categories),
        table=tuple(tuple(int(x) for x in row) for row in table),
        agreement=float(np.trace(table)) / n,
        kappa=kappa,
        kappa_se=se,
        kappa_ci=normal_interval(kappa, se, level, bounds=(-1.0, 1.0))
        if math.isfinite(se)
        else ConfidenceInterval(low=math.nan, high=math.nan, confidence_level=level),
        positive=None if chosen is None else str(chosen),
        sensitivity=sens,
        specificity=spec,
        fleiss_kappa=fleiss,
        krippendorff_alpha=alpha,
        notes=tuple(notes),
    )


def _kappa(table: np.ndarray) -> tuple[float, float, list[str]]:
    """Cohen's kappa and its Fleiss-Cohen-Everitt standard error."""
    p = table / table.sum()
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    observed, expected = float(np.trace(p)), float(np.sum(rows * cols))
    if expected >= 1.0:
        return (
            math.nan,
            math.nan,
            [
                "both the judge and the humans used a single category: kappa is undefined "
                "(there is no agreement beyond chance to measure)."
            ],
        )
    kappa = (observed - expected) / (1.0 - expected)
    single = [who for who, margin in (("humans", rows), ("judge", cols)) if (margin > 0).sum() < 2]
    if single:
        return (
            kappa,
            math.nan,
            [
                f"the {single[0]} used a single category: kappa is 0 whatever the other "
                "rater does (agreement equals chance agreement), and it has no standard error "
                "or interval; read the raw agreement (and sensitivity) instead."
            ],
        )
    a = float(np.sum(np.diag(p) * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2))
    off = p * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(off, 0.0)
    b = (1.0 - kappa) ** 2 * float(off.sum())
    c = (kappa - expected * (1.0 - kappa)) ** 2
    variance = max(a + b - c, 0.0) / (1.0 - expected) ** 2 / float(table.sum())
    return kappa, math.sqrt(variance), []


def _rates(
    table: np.ndarray, categories: list[Any], positive: Any, level: float, notes: list[str]
) -> tuple[Any, Rate | None, Rate | None]:
    if positive is None:
        if set(categories) <= {0, 1} and 1 in categories:
            positive = 1
        elif len(categories) == 2:
            notes.append(
                f"the labels are {categories[0]!r} and {categories[1]!r}: pass `positive` to "
                "get sensitivity and specificity."
            )
            return None, None, None
        else:
            return None, None, None
    if positive not in categories:
        raise DataError(
            f"`positive` is {positive!r}, which is not one of the labels ({categories!r})."
        )
    if len(categories) > 2:
        raise DataError(
            f"sensitivity and specificity need two categories; the labels have {len(categories)}"
            f" ({categories!r}). Map them to positive / negative first, or leave `positive` out."
        )
    i = categories.index(positive)
    human_pos, judge_pos = table[i], table[:, i]
    n_pos = int(human_pos.sum())
    n_neg = int(table.sum()) - n_pos
    true_neg = n_neg - (int(judge_pos.sum()) - int(table[i, i]))

    def rate(k: int, n: int, what: str, name: str) -> Rate | None:
        if n == 0:
            notes.append(f"no item is {what} by the humans: the judge's {name} is undefined.")
            return None
        ci = proportion_interval(k, n, method="wilson", confidence_level=level)
        return Rate(estimate=k / n, successes=k, n=n, ci=ci)

    sensitivity = rate(int(table[i, i]), n_pos, "positive", "sensitivity")
    return positive, sensitivity, rate(true_neg, n_neg, "negative", "specificity")


def _labels(values: Any, name: str) -> list[Any]:
    if isinstance(values, str) or not hasattr(values, "__len__"):
        raise DataError(f"`{name}` must be a sequence of labels; got {values!r:.60}.")
    out = [v.item() if hasattr(v, "item") else v for v in values]
    bad = [i for i, v in enumerate(out) if v is None or v != v]
    if bad:
        raise DataError(
            f"`{name}` has {len(bad)} missing label(s) (positions {bad[:3]}); label every "
            "item or leave the unlabeled ones out."
        )
    return [int(v) if isinstance(v, (bool, float)) and float(v) in (0.0, 1.0) else v for v in out]
