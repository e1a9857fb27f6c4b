"""Defaults shared by the command line and the library, in a module that imports nothing.

The CLI builds its help from these without importing the readers or the store (which
bring numpy, scipy and duckdb), so that ``evalsig --help`` starts at once.
"""

from __future__ import annotations

__all__ = ["DEFAULT_LOCK_TIMEOUT", "FEW_CLUSTERS", "MAX_DECOMPRESSED_ENV"]

MAX_DECOMPRESSED_ENV = "EVALSIG_MAX_DECOMPRESSED"
"""The environment variable that sets the cap on decompressed bytes (e.g. ``4G``)."""

DEFAULT_LOCK_TIMEOUT = 30.0
"""Seconds to wait for another process to release a results store."""

FEW_CLUSTERS = 30
"""Clusters below which cluster-robust inference is fragile: results carry a note, and
messages name the number."""
