"""The ranking machinery lives in :mod:`evalsig.inference.ranking` (leaderboards, arenas and
the Dask backend share it); the old module name works for one release, with a warning."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_the_old_module_name_warns_and_gives_the_same_functions() -> None:
    from evalsig.inference import ranking

    sys.modules.pop("evalsig.leaderboard.ranking", None)
    with pytest.warns(DeprecationWarning, match="evalsig.inference.ranking"):
        old = importlib.import_module("evalsig.leaderboard.ranking")
    assert old.__all__ == ranking.__all__
    assert all(getattr(old, name) is getattr(ranking, name) for name in ranking.__all__)
