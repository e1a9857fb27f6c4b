"""The evalsig command line: ``compare``, ``gate``, ``register``, ``inspect``, ``report``,
``power``, ``resolution``, ``monitor``, ``leaderboard``, ``ingest``, ``store-info``,
``meta``, ``audit``, ``audit-claim``, ``simulate``, ``demo``.

Exit codes, one scheme for every command (:data:`evalsig.cli.app.EXIT_CODES`): 0 success,
1 gate FAIL / monitor baseline better, 2 usage error, 3 gate INCONCLUSIVE / monitor not yet
resolved, 4 data error (one line on stderr, no traceback).
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
