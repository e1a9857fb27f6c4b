"""The evalsig command line: ``compare``, ``gate``, ``register``, ``inspect``, ``report``,
``power``, ``resolution``, ``demo``.

Exit codes: 0 done; 1 a data error (one line on stderr, no traceback); 2 a usage error.
"""

from evalsig.cli import compare, demo, gate, inspect, power, report
from evalsig.cli.app import app, main

__all__ = ["app", "compare", "demo", "gate", "inspect", "main", "power", "report"]
