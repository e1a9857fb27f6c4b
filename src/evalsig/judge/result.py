"""The result of a judge correction: :class:`JudgeResult` (JSON kind ``"judge"``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from scipy import special

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.inference._common import (
    Alternative,
    ConfidenceInterval,
    IntervalAtAnyLevel,
    check_confidence_level,
)
from evalsig.result import Tested

__all__ = ["JudgeMethod", "JudgeResult", "LabelBound", "NormalEstimate", "normal_interval"]

JudgeMethod = Literal["ppi++", "ppi", "rogan-gladen"]
"""PPI++ (power-tuned lambda), plain PPI (lambda = 1), or the Rogan-Gladen correction."""


def normal_interval(
    estimate: float,
    se: float,
    confidence_level: float,
    alternative: Alternative = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> ConfidenceInterval:
    """``estimate -/+ z se`` (z of the normal at the level; one-sided: one bound infinite),
    clipped to ``bounds`` when given."""
    level = check_confidence_level(confidence_level)
    tail = 1.0 - level if alternative != "two-sided" else (1.0 - level) / 2.0
    z = float(special.ndtri(1.0 - tail))
    low = estimate - z * se if alternative != "less" else -math.inf
    high = estimate + z * se if alternative != "greater" else math.inf
    if bounds is not None:
        low, high = min(max(low, bounds[0]), bounds[1]), max(min(high, bounds[1]), bounds[0])
    return ConfidenceInterval(low=low, high=high, confidence_level=level)


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelBound:
    r"""The exact interval of a mean when all ``n`` labels (or label differences) equal
    ``value``, on a scale ``scale`` that bounds every item's label, moved by ``shift``.

    With all ``n`` labels equal, the share :math:`q` of items whose label is ``value``
    has the exact (Clopper-Pearson) bound :math:`q \ge t^{1/n}`, with :math:`t` the tail
    of the interval (half its complement when two-sided); the other items' labels lie
    anywhere on the scale :math:`[a, b]`, so the mean lies in
    :math:`[v q + a (1 - q),\; v q + b (1 - q)]`. For 0/1 labels this is the
    Clopper-Pearson interval of ``n`` of ``n`` (or 0 of ``n``). A normal interval has width
    0 there: the labels' variance is estimated as 0.
    """

    value: float
    n: int
    scale: tuple[float, float]
    shift: float = 0.0
    """What the judge adds to the human mean (``estimate - value``), known exactly here."""

    def interval(self, confidence_level: float, alternative: Alternative) -> ConfidenceInterval:
        level = check_confidence_level(confidence_level)
        tail = 1.0 - level if alternative != "two-sided" else (1.0 - level) / 2.0
        share = tail ** (1.0 / self.n)
        low, high = self.scale
        lower = self.value * share + low * (1.0 - share) + self.shift
        upper = self.value * share + high * (1.0 - share) + self.shift
        return ConfidenceInterval(
            low=max(lower, low) if alternative != "less" else -math.inf,
            high=min(upper, high) if alternative != "greater" else math.inf,
            confidence_level=level,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NormalEstimate:
    """An estimate with its standard error and normal interval (for comparison rows)."""

    estimate: float
    se: float
    ci: ConfidenceInterval

    def to_dict(self, where: str, nulls: dict[str, str]) -> dict[str, Any]:
        return {
            "estimate": json_safe(self.estimate, f"{where}.estimate", nulls, "undefined"),
            "se": json_safe(self.se, f"{where}.se", nulls, "undefined"),
            "ci": _ci_dict(self.ci, f"{where}.ci", nulls),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeResult(IntervalAtAnyLevel, Tested):
    """A judge's scores corrected with human labels: the estimate, its interval, and the
    judge-only and human-only estimates beside it for comparison.

    ``estimate`` is the mean human score (``ppi_mean``), the candidate's minus the
    baseline's mean human score (``ppi_paired_difference``), or the prevalence of positives
    (``rogan_gladen``). ``naive`` is the judge alone (biased when the judge is); ``classical``
    the human labels alone (unbiased, wider).
    """

    kind: ClassVar[str] = "judge"

    estimate: float
    se: float
    ci: ConfidenceInterval
    method: JudgeMethod
    estimand: str
    lambda_: float | None
    """The weight of the judge's scores (PPI++: power-tuned in [0, 1]; PPI: 1)."""
    n_labeled: int | None
    n_unlabeled: int
    n_clusters: int | None = None
    naive: NormalEstimate
    classical: NormalEstimate | None = None
    statistic: float | None = None
    pvalue: float | None = None
    """For a difference: the z-test of no difference, on the side of ``alternative``."""
    alternative: Alternative = "two-sided"
    baseline: str | None = None
    candidate: str | None = None
    bounds: tuple[float, float] | None = None
    """Natural limits the interval is clipped to (a prevalence lies in [0, 1])."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    label_bound: LabelBound | None = None
    """When every human label is the same and the normal standard error is 0: the exact
    bound that gives the interval instead of a zero-width one (the notes say so)."""

    def _interval(self, confidence_level: float, side: Alternative) -> tuple[float, float]:
        """The bounds at a checked level: the exact label bound when it applies, else the
        normal interval (clipped to ``bounds``)."""
        if self.label_bound is not None:
            ci = self.label_bound.interval(confidence_level, side)
        else:
            ci = normal_interval(self.estimate, self.se, confidence_level, side, self.bounds)
        return ci.low, ci.high

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-safe fields: NaN and infinities become null, explained in ``nulls``."""
        nulls: dict[str, str] = {}
        if self.pvalue is None:
            nulls["pvalue"] = "no test: an estimate of one quantity, not a difference"
        if self.lambda_ is None:
            nulls["lambda"] = "not a prediction-powered estimate"
        if self.classical is None:
            nulls["classical"] = "no human labels were given"
        return {
            "kind": "judge",
            "schema_version": SCHEMA_VERSION,
            "estimate": json_safe(self.estimate, "estimate", nulls, "undefined"),
            "estimand": self.estimand,
            "se": json_safe(self.se, "se", nulls, "undefined"),
            "ci": _ci_dict(self.ci, "ci", nulls),
            "method": self.method,
            "lambda": json_safe(
                self.lambda_, "lambda", nulls, "undefined: the judge's scores do not vary"
            ),
            "n_labeled": self.n_labeled,
            "n_unlabeled": self.n_unlabeled,
            "n_clusters": self.n_clusters,
            "naive": self.naive.to_dict("naive", nulls),
            "classical": None
            if self.classical is None
            else self.classical.to_dict("classical", nulls),
            "statistic": json_safe(self.statistic, "statistic", nulls, "undefined"),
            "pvalue": json_safe(self.pvalue, "pvalue", nulls, "undefined"),
            "alternative": self.alternative,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "bounds": None if self.bounds is None else list(self.bounds),
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per estimator (judge only, humans only, corrected): estimate, se,
        ci_low, ci_high (NaN where the JSON has null; +/-inf for a one-sided open side)."""
        from evalsig._frame import data_frame, floats

        rows = [("judge only", self.naive), ("humans only", self.classical)]
        rows.append((self.method, NormalEstimate(estimate=self.estimate, se=self.se, ci=self.ci)))
        kept = [(name, row) for name, row in rows if row is not None]
        return data_frame(
            {
                "estimator": [name for name, _ in kept],
                "estimate": floats(row.estimate for _, row in kept),
                "se": floats(row.se for _, row in kept),
                "ci_low": floats(row.ci.low for _, row in kept),
                "ci_high": floats(row.ci.high for _, row in kept),
            },
            attrs={"estimand": self.estimand, "lambda": self.lambda_},
        )


def _ci_dict(ci: ConfidenceInterval, where: str, nulls: dict[str, str]) -> dict[str, Any]:
    return {
        "low": json_safe(ci.low, f"{where}.low", nulls, "one-sided interval"),
        "high": json_safe(ci.high, f"{where}.high", nulls, "one-sided interval"),
        "confidence_level": ci.confidence_level,
    }
