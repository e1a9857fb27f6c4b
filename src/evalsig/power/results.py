"""The results of power calculations: a required sample size, and a resolution verdict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

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


def rounded_up(n: float) -> int | None:
    """N* rounded up to whole items (``ceil(n - 1e-9)``: a hair of float error above a whole
    number does not add one); None when N* is infinite."""
    return None if math.isinf(n) else math.ceil(n - 1e-9)


def planned_calls(n_required: Sequence[float], per_unit: Sequence[int]) -> tuple[float, ...]:
    """Model calls per model at each plan: ``N* x`` runs (or samples) per item."""
    return tuple(n * r for n, r in zip(n_required, per_unit, strict=True))


def plan_row(
    index: int, n: float, per_unit: int, count: str, nulls: dict[str, str], why: str
) -> dict[str, Any]:
    """The JSON of one plan of a trade-off table: N* (null when infinite, ``why`` under
    ``nulls``), N* rounded up under the name ``count``, and the model calls ``N* x per_unit``."""
    return {
        "n_required": json_safe(n, f"rows[{index}].n_required", nulls, why),
        count: rounded_up(n),
        "evaluations": json_safe(n * per_unit, f"rows[{index}].evaluations", nulls, why),
    }


def plan_columns(
    n_required: Sequence[float], per_unit: Sequence[int], count: str
) -> dict[str, Any]:
    """The frame columns of a trade-off table: n_required (N*, inf when undetectable), N*
    rounded up under the name ``count`` (pandas' nullable Int64, <NA> where N* is infinite),
    evaluations (N* x per_unit)."""
    from evalsig._frame import Nullable

    return {
        "n_required": np.array(n_required, dtype=np.float64),
        count: Nullable([rounded_up(n) for n in n_required], "Int64"),
        "evaluations": np.array(planned_calls(n_required, per_unit), dtype=np.float64),
    }
