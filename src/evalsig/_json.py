"""Strict JSON for results: no NaN or Infinity, and a reason for every null."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

__all__ = ["SCHEMA_VERSION", "json_safe", "record_dict", "seed_null"]

SCHEMA_VERSION = 1
"""Version of the JSON layout of every result (bumped on incompatible changes)."""


def json_safe(value: float | None, name: str, nulls: dict[str, str], reason: str) -> float | None:
    """``value``, or None (recording why under ``name``) when it is NaN or infinite."""
    if value is None:
        return None
    if math.isfinite(value):
        return float(value)
    nulls[name] = reason if math.isnan(value) else f"{reason} ({'+' if value > 0 else '-'}inf)"
    return None


def seed_null(nulls: dict[str, str], seed: int | None, *, drew: bool) -> None:
    """Record under ``seed`` why a result's seed is null: the draws were made with a numpy
    Generator (``drew``), whose seed is unknown, or nothing was drawn at random."""
    if seed is None:
        nulls["seed"] = "unknown: rng was a numpy Generator" if drew else "no random draws"


def record_dict(record: Any) -> dict[str, Any]:
    """The JSON form of a plain dataclass record: every field, in order, under its own
    name; tuples become lists and records within them give their own ``to_dict()``.

    For records whose JSON form is their fields as they are (no derived values, no nulls
    to explain); a result's ``to_dict()`` says more and is written out."""
    return {field.name: _plain(getattr(record, field.name)) for field in dataclasses.fields(record)}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return value if to_dict is None else to_dict()
