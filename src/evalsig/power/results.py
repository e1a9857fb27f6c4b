"""The results of power calculations: a required sample size, and a resolution verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.inference._common import Alternative
from evalsig.result import Result

__all__ = ["Method", "SampleSize"]

Method = Literal["normal", "exact", "score"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleSize(Result):
    """Items needed to detect an effect, with the inputs that produced the number."""

    kind: ClassVar[str] = "sample-size"

    n: float
    """The solution of the power equation (unrounded for closed forms); ``inf`` when no
    number of items detects the effect."""
    n_items: int | None
    """Items to evaluate: ``n`` rounded up (None when ``n`` is infinite)."""
    achieved_power: float | None
    """The power at ``n_items``."""
    design: str
    """'mcnemar' (one run, scored right/wrong) or 'paired-t' (mean of per-item differences)."""
    method: str
    """'normal', 'exact' or 'noncentral-t'."""
    alpha: float
    power: float
    alternative: Alternative
    effect: float
    """The difference to detect (candidate minus baseline, in score units)."""
    inputs: dict[str, float] = field(default_factory=dict)
    """The rates or variances the calculation used."""
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON form; an infinite ``n`` is null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        return {
            "kind": "sample-size",
            "schema_version": SCHEMA_VERSION,
            "n": json_safe(self.n, "n", nulls, "no number of items detects this effect"),
            "n_items": self.n_items,
            "achieved_power": self.achieved_power,
            "design": self.design,
            "method": self.method,
            "alpha": self.alpha,
            "power": self.power,
            "alternative": self.alternative,
            "effect": self.effect,
            "inputs": {k: json_safe(v, k, nulls, "not finite") for k, v in self.inputs.items()},
            "notes": list(self.notes),
            "nulls": nulls,
        }

    def __float__(self) -> float:
        return self.n

    def __int__(self) -> int:
        if self.n_items is None:
            raise OverflowError("no finite number of items detects this effect")
        return self.n_items


def ratio(a: float, b: float) -> float:
    """``a / b`` with the limits a caller means: ``x / inf = 0``, ``inf / inf = nan``; an
    undefined (NaN) side leaves the ratio undefined."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(b):
        return math.nan if math.isinf(a) else 0.0
    return a / b if b else math.inf
