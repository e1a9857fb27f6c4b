"""Leaderboards with honest ranks: all-pairs paired tests, tie groups and rank intervals."""

from evalsig.leaderboard.board import Leaderboard, leaderboard
from evalsig.leaderboard.ranking import bootstrap_ranks, rank_intervals, tie_groups
from evalsig.leaderboard.tasks import TaskLeaderboards, leaderboard_tasks

__all__ = [
    "Leaderboard",
    "TaskLeaderboards",
    "bootstrap_ranks",
    "leaderboard",
    "leaderboard_tasks",
    "rank_intervals",
    "tie_groups",
]
