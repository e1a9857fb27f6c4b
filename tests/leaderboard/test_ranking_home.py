"""The ranking machinery lives in :mod:`evalsig.inference.ranking` (leaderboards, arenas and
the Dask backend share it); the old module's names work for one release, with a warning."""

from __future__ import annotations

import pytest

from evalsig.inference import ranking


def test_a_name_from_the_old_module_warns_and_is_the_same_function() -> None:
    import evalsig.leaderboard.ranking as old

    assert old.__all__ == ranking.__all__
    for name in ranking.__all__:
        with pytest.warns(DeprecationWarning, match="evalsig.inference.ranking"):
            assert getattr(old, name) is getattr(ranking, name)
    with pytest.raises(AttributeError):
        _ = old.no_such_name
