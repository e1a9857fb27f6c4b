"""Number formatting shared by every renderer, and the table cells of names and numbers."""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from evalsig._deprecation import renamed

__all__ = [
    "LONG_NAME",
    "decimals",
    "difference",
    "fixed",
    "interval",
    "json_float",
    "name_cell",
    "number_cell",
    "pvalue",
    "score",
]


LONG_NAME = 24
"""Names longer than this many characters are 'long' in HTML tables: they may wrap
anywhere (a long name without spaces never widens the table past its box), in a column at
least 12 em wide."""


def name_cell(text: str) -> dict[str, Any]:
    """A table cell holding a name (a model, a task, a source), of class ``name``, and
    ``long`` when it has more than :data:`LONG_NAME` characters."""
    cls = "name long" if len(text) > LONG_NAME else "name"
    return {"text": text, "value": None, "badge": None, "cls": cls}


def number_cell(text: str, value: float | None = None) -> dict[str, Any]:
    """A table cell holding a number (or a range of them): right-aligned, never broken
    across lines, sorted by ``value`` when given."""
    return {"text": text, "value": value, "badge": None, "cls": "num"}


def fixed(value: float, digits: int, *, low: float = 0.0, high: float = 1.0) -> str:
    """``value`` with ``digits`` decimals; a value strictly between ``low`` and ``high``
    never reads as either bound: up to 4 more decimals, then cut toward the inside (or, very
    near ``low``, in scientific notation). A value below 1 never reads 1.00, one above 0
    never 0.00; the bounds themselves and values outside them print as they are.

    >>> fixed(0.99999999, 2), fixed(0.5, 2), fixed(1.0, 2), fixed(0.0004, 2)
    ('0.999999', '0.50', '1.00', '0.0004')
    >>> fixed(99.996, 2, high=100.0), fixed(2e-12, 2), fixed(1.5, 2)
    ('99.996', '2.0e-12', '1.50')
    """
    text = f"{value:.{digits}f}"
    if not low < value < high:
        return text
    for more in range(digits, digits + 5):
        text = f"{value:.{more}f}"
        if low < float(text) < high:
            return text
    if value - low < high - value:
        return f"{value:.1e}"
    cut = Decimal(value).quantize(Decimal(1).scaleb(-(digits + 4)), rounding=ROUND_FLOOR)
    return f"{cut:.{digits + 4}f}"  # exact: a float's decimal expansion, cut


def decimals(value: float | None, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals ('0.42'); 'n/a' for a null."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def json_float(value: float | None, missing: float = math.nan) -> float:
    """A number of a result's JSON form; null as ``missing`` (what the result held: NaN by
    default, or an open bound's infinity)."""
    return missing if value is None else float(value)


def pvalue(p: float) -> str:
    """'p = 0.0432', 'p < 0.0001', 'p > 0.999' (below 1, never shown as 1), 'p = 1', or
    'p undefined'."""
    if math.isnan(p):
        return "p undefined"
    if p < 1e-4:
        return "p < 0.0001"
    if p >= 0.9995:
        return "p = 1" if p >= 1.0 else "p > 0.999"
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
    return f"{fixed(100 * value, 2, high=100.0)}%" if percent else f"{value:.4g}"


@renamed(level="confidence_level")
def interval(
    low: float,
    high: float,
    confidence_level: float,
    *,
    percent: bool,
    alternative: str = "two-sided",
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
        return f"{100 * confidence_level:g}% lower bound {bound(low)}{unit}"
    if alternative == "less":
        return f"{100 * confidence_level:g}% upper bound {bound(high)}{unit}"
    return f"{100 * confidence_level:g}% CI {bound(low)} to {bound(high)}{unit}"
