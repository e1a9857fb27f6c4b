"""Leaderboards with honest ranks: all-pairs paired tests, tie groups and rank intervals."""

from evalsig.inference.ranking import bootstrap_ranks, rank_intervals, tie_groups
from evalsig.leaderboard.board import Leaderboard, leaderboard
from evalsig.leaderboard.columns import (
    ScoreColumns,
    leaderboard_from_columns,
    open_score_columns,
    write_score_columns,
)
from evalsig.leaderboard.tasks import TaskLeaderboards, leaderboard_tasks

__all__ = [
    "Leaderboard",
    "ScoreColumns",
    "TaskLeaderboards",
    "bootstrap_ranks",
    "leaderboard",
    "leaderboard_from_columns",
    "leaderboard_tasks",
    "open_score_columns",
    "rank_intervals",
    "tie_groups",
    "write_score_columns",
]
