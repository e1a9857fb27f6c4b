"""Two models that never disagree: the unpaired shortcut's correlation is 1, not an error."""

from __future__ import annotations

import math

import pytest

from evalsig.power import unpaired_shortcut_sample_size


@pytest.mark.parametrize(("right", "items"), [(3, 7), (5, 11), (8, 11)])
def test_models_that_never_disagree_correlate_exactly_one(right: int, items: int) -> None:
    """phi = (p - p^2) / (p (1 - p)) = 1; computed, it lands on 1 + 2^-52 for these p."""
    p = right / items
    shortcut = unpaired_shortcut_sample_size(p, p, p01=0.0, p10=0.0)
    assert shortcut.rho == 1.0
    assert math.isinf(shortcut.per_arm)
    assert shortcut.paired is not None
    assert math.isinf(shortcut.paired)
    document = shortcut.to_dict()  # nothing to detect: no ratio, rather than a ratio of 0
    assert (document["shortcut"], document["ratio"], document["per_arm_ratio"]) == (None,) * 3
    assert set(document["nulls"]) >= {"shortcut", "ratio", "per_arm_ratio"}
