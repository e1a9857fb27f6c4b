"""Strict JSON for results: no NaN or Infinity, and a reason for every null."""

from __future__ import annotations

import math

__all__ = ["SCHEMA_VERSION", "json_safe", "seed_null"]

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
