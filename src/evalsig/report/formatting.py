"""Number formatting shared by every renderer."""

from __future__ import annotations

import math

__all__ = ["difference", "interval", "pvalue", "score"]


def pvalue(p: float) -> str:
    """'p = 0.0432', 'p < 0.0001', or 'p undefined'."""
    if math.isnan(p):
        return "p undefined"
    if p < 1e-4:
        return "p < 0.0001"
    if p >= 0.9995:
        return "p = 1"
    return f"p = {p:.4f}" if p < 0.001 else f"p = {p:.3f}"


def difference(value: float, *, percent: bool) -> str:
    """A signed difference: '+1.17 pp' on the percent scale, '+0.0117' otherwise."""
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if percent:
        return f"{100 * value:+.2f} pp"
    return f"{value:+.4g}"


def score(value: float, *, percent: bool) -> str:
    """A model's score: '57.06%' on the percent scale, '0.5706' otherwise."""
    return f"{100 * value:.2f}%" if percent else f"{value:.4g}"


def interval(
    low: float, high: float, level: float, *, percent: bool, alternative: str = "two-sided"
) -> str:
    """'95% CI +0.65 to +1.69 pp', or for one-sided intervals '95% lower bound +0.65 pp'."""
    unit = " pp" if percent else ""

    def bound(x: float) -> str:
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        if math.isnan(x):
            return "undefined"
        return f"{100 * x:+.2f}" if percent else f"{x:+.4g}"

    if alternative == "greater":
        return f"{100 * level:g}% lower bound {bound(low)}{unit}"
    if alternative == "less":
        return f"{100 * level:g}% upper bound {bound(high)}{unit}"
    return f"{100 * level:g}% CI {bound(low)} to {bound(high)}{unit}"
