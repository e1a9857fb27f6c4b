"""The evalsig command line: ``compare``, ``gate``, ``register``, ``inspect``, ``report``,
``power``, ``resolution``, ``monitor``, ``leaderboard``, ``ingest``, ``store-info``, ``demo``.

Exit codes: 0 done; 1 a data error (one line on stderr, no traceback); 2 a usage error.
"""

from evalsig.cli import (
    compare,
    demo,
    gate,
    ingest,
    inspect,
    leaderboard,
    monitor,
    power,
    report,
)
from evalsig.cli.app import app, main

__all__ = [
    "app",
    "compare",
    "demo",
    "gate",
    "ingest",
    "inspect",
    "leaderboard",
    "main",
    "monitor",
    "power",
    "report",
]
