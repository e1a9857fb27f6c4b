"""Pairwise preference leaderboards (Chatbot Arena, arena-hard-auto, AlpacaEval, MT-bench):
Bradley-Terry scores with sandwich or shared-draw bootstrap intervals, simultaneous rank
intervals and tie groups; online Elo only for comparison.

>>> from evalsig.arena import battles, bradley_terry
>>> data = battles(["x", "y", "z", "x", "y", "z"], ["y", "z", "x", "z", "x", "y"],
...                [1, 1, 0.5, 0, 0, 1])
>>> bradley_terry(data, rng=0).models
('x', 'z', 'y')
"""

from __future__ import annotations

from evalsig.arena.battle_arrays import Battles, battles, compress
from evalsig.arena.elo_ratings import EloRatings, elo
from evalsig.arena.model import bradley_terry
from evalsig.arena.result import ArenaResult, Covariate

__all__ = [
    "ArenaResult",
    "Battles",
    "Covariate",
    "EloRatings",
    "battles",
    "bradley_terry",
    "compress",
    "elo",
]
