"""Input layer: validated per-item scores, aligned pairs, and file readers."""

from evalsig.data.loading import describe, load, load_pair, load_tasks
from evalsig.data.paired import OnMismatch, OnMissing, PairedScores, pair
from evalsig.data.readers import (
    Description,
    ReaderKeywords,
    ReadOptions,
    read_table,
    read_tables,
    register,
)
from evalsig.data.table import ScoreTable

__all__ = [
    "Description",
    "OnMismatch",
    "OnMissing",
    "PairedScores",
    "ReadOptions",
    "ReaderKeywords",
    "ScoreTable",
    "describe",
    "load",
    "load_pair",
    "load_tasks",
    "pair",
    "read_table",
    "read_tables",
    "register",
]
