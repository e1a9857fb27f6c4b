"""The evalsig command line: ``compare``, ``score``, ``pass-at-k``, ``gate``, ``register``,
``inspect``, ``plugins``, ``report``, ``power``, ``resolution``, ``monitor``,
``leaderboard``, ``noise``, ``arena``, ``judge``, ``agreement``, ``position-bias``,
``length-bias``, ``judge-plan``, ``variance``, ``ingest``, ``store-info``, ``meta``,
``audit``, ``audit-claim``, ``simulate``, ``demo``.

Exit codes, one scheme for every command (:data:`evalsig.cli.application.EXIT_CODES`): 0 success,
1 gate FAIL / monitor baseline better, 2 usage error, 3 gate INCONCLUSIVE / monitor not yet
resolved, 4 data error (one line on stderr, no traceback).
"""

from evalsig.cli import (
    agreement,
    arena,
    audit,
    bias,
    compare,
    demo,
    gate,
    ingest,
    inspect,
    judge,
    leaderboard,
    meta,
    monitor,
    noise,
    passk,
    power,
    report,
    score,
    variance,
)
from evalsig.cli.application import app, main

__all__ = [
    "agreement",
    "app",
    "arena",
    "audit",
    "bias",
    "compare",
    "demo",
    "gate",
    "ingest",
    "inspect",
    "judge",
    "leaderboard",
    "main",
    "meta",
    "monitor",
    "noise",
    "passk",
    "power",
    "report",
    "score",
    "variance",
]
