"""Shared fixtures: the real-data folder beside the repository, hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=60,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or skip: the real evaluation data live beside the repository."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real evaluation data not found at {SHARED_DATA} (../shared/data)")
    return SHARED_DATA
