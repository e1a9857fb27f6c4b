r"""Online Elo ratings, for comparison only: they depend on the order of the battles.

After each battle, ``R_a += K (y - E_a)`` and ``R_b -= K (y - E_a)`` with
``E_a = 1 / (1 + base^((R_b - R_a) / scale))``. The result is a running average that weighs
recent battles most: shuffle the same battles and the ratings change, and with a small K
they lag far behind the Bradley-Terry maximum likelihood, which uses every battle equally
and is what :func:`evalsig.arena.bradley_terry` reports.

Reference: Elo, A. E. (1978). *The Rating of Chessplayers, Past and Present*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evalsig.arena.battle_arrays import Battles
from evalsig.inference._common import check_number

__all__ = ["MAX_K_SHARE", "ORDER_NOTE", "EloRatings", "elo"]

MAX_K_SHARE = 0.25
"""The largest K-factor accepted, as a share of ``scale``: beyond it one battle moves a
rating by more than a quarter of a tenfold change in the odds."""
USUAL_K = "4 (Chatbot Arena's) to 32 (chess)"

ORDER_NOTE = (
    "online Elo depends on the order of the battles (recent ones weigh most); it is shown "
    "for comparison only: the Bradley-Terry scores use every battle equally."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class EloRatings:
    """Online Elo rating of each model after the last battle, in ``models`` order."""

    models: tuple[str, ...]
    ratings: np.ndarray = field(repr=False)
    k: float
    initial: float
    note: str = ORDER_NOTE

    def __getitem__(self, model: str) -> float:
        return float(self.ratings[self.models.index(model)])


def elo(
    data: Battles,
    /,
    *,
    k: float = 4.0,
    initial: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
) -> EloRatings:
    """Online Elo in the battles' order (weights, clusters and features are not used).

    ``k`` must lie in (0, ``scale`` / 4]: usually 4 (Chatbot Arena's) to 32 (chess); a
    larger K lets one battle outweigh the rest. NaN, infinite or absurd values of ``k``,
    ``initial``, ``base`` and ``scale`` are a :class:`~evalsig.errors.DataError`.

    >>> from evalsig.arena import battles
    >>> ratings = elo(battles(["x", "x"], ["y", "y"], [1, 1]), k=32)
    >>> round(ratings["x"], 2), round(ratings["y"], 2)
    (1030.53, 969.47)
    """
    scale = check_number(scale, "scale", low=0.0, open_low=True, fix="Use 400 (Elo points).")
    base = check_number(base, "base", low=1.0, open_low=True, fix="Use 10.")
    initial = check_number(initial, "initial", fix="Use 1000.")
    k = check_number(
        k,
        "k",
        low=0.0,
        high=scale * MAX_K_SHARE,
        open_low=True,
        fix=f"The K-factor is the most one battle moves a rating: usually {USUAL_K}, at "
        f"most a quarter of the scale ({scale * MAX_K_SHARE:g} points).",
    )
    ratings = np.full(len(data.models), initial)
    a_codes, b_codes, outcomes = data.model_a.tolist(), data.model_b.tolist(), data.outcome
    for a, b, y in zip(a_codes, b_codes, outcomes.tolist(), strict=True):
        expected = 1.0 / (1.0 + base ** ((ratings[b] - ratings[a]) / scale))
        change = k * (y - expected)
        ratings[a] += change
        ratings[b] -= change
    return EloRatings(models=data.models, ratings=ratings, k=k, initial=initial)
