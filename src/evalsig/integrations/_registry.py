"""Inspect AI's entry point into evalsig (``[project.entry-points.inspect_ai] evalsig``).

Inspect imports this module before it resolves a name in the ``evalsig/`` namespace
(``evalsig/mean_ci`` in a log being re-scored or retried); importing it registers
evalsig's metrics with Inspect.
"""

import sys

from evalsig.integrations.inspect_metrics import mean_ci, register

__all__ = ["mean_ci"]

if "inspect_ai" in sys.modules:  # Inspect loads its entry points after itself; others
    register()  # (a doctest collector) have no Inspect to register with
