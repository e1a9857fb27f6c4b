"""The evalsig command line: ``compare``, ``gate``, ``register``, ``inspect``, ``report``,
``power``, ``resolution``, ``monitor``, ``leaderboard``, ``ingest``, ``store-info``,
``meta``, ``audit``, ``audit-claim``, ``simulate``, ``demo``.

Exit codes: 0 done; 1 a data error (one line on stderr, no traceback); 2 a usage error.
"""

from evalsig.cli import (
    audit,
    compare,
    demo,
    gate,
    ingest,
    inspect,
    leaderboard,
    meta,
    monitor,
    power,
    report,
)
from evalsig.cli.app import app, main

__all__ = [
    "app",
    "audit",
    "compare",
    "demo",
    "gate",
    "ingest",
    "inspect",
    "leaderboard",
    "main",
    "meta",
    "monitor",
    "power",
    "report",
]
