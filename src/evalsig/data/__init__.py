"""Input layer: validated per-item scores, aligned pairs, and file readers."""

from evalsig.data.load import load
from evalsig.data.paired import OnMissing, PairedScores, pair
from evalsig.data.readers import ReadOptions, read_table, read_tables, register
from evalsig.data.table import ScoreTable

__all__ = [
    "OnMissing",
    "PairedScores",
    "ReadOptions",
    "ScoreTable",
    "load",
    "pair",
    "read_table",
    "read_tables",
    "register",
]
