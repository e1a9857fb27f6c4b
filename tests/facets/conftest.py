"""A crossed items x prompts x runs table of scores, seeded, for the facets' tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest


def crossed_table(seed: int = 0, items: int = 30, prompts: int = 4, runs: int = 2) -> pd.DataFrame:
    """Scores with an item effect (SD 1), a prompt shift (0.3), an item x prompt interaction
    (0.4) and run-to-run noise (0.5); prompts labelled "template 0", "template 1", ..."""
    rng = np.random.default_rng(seed)
    grid = pd.MultiIndex.from_product(
        [range(items), range(prompts), range(runs)], names=["item", "prompt", "run"]
    ).to_frame(index=False)
    grid["score"] = (
        rng.normal(0, 1, items)[grid["item"]]
        + rng.normal(0, 0.3, prompts)[grid["prompt"]]
        + rng.normal(0, 0.4, (items, prompts))[grid["item"], grid["prompt"]]
        + rng.normal(0, 0.5, len(grid))
    )
    grid["prompt"] = "template " + grid["prompt"].astype(str)
    return grid


@pytest.fixture
def crossed() -> Callable[..., pd.DataFrame]:
    """:func:`crossed_table`, as a fixture."""
    return crossed_table
