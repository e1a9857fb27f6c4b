"""The ranking machinery lives in :mod:`evalsig.inference.ranking` (leaderboards, arenas and
the Dask backend share it); the old module's names work for one release, with a warning."""

from __future__ import annotations

import numpy as np
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


def test_min_ranks_are_scipys_rankdata_min() -> None:
    """Bootstrap ranks without scipy.stats: ties (and infinite means, a model with no drawn
    item) share the smallest rank, down each column, as ``rankdata(method="min")``."""
    from scipy import stats

    from evalsig.inference.ranking import min_ranks

    rng = np.random.default_rng(0)
    for _ in range(500):
        shape = (int(rng.integers(1, 12)), int(rng.integers(1, 40)))
        values = rng.integers(0, 4, shape).astype(float)  # many ties
        values[rng.random(shape) < 0.1] = np.inf
        values[rng.random(shape) < 0.1] = -np.inf
        if rng.random() < 0.3:
            values = rng.random(shape)
        expected = stats.rankdata(values, method="min", axis=0).astype(np.int64)
        assert np.array_equal(min_ranks(values), expected)
        assert np.array_equal(min_ranks(values[:, 0]), expected[:, 0])
