"""The statistics' libraries load while a command reads its input.

``scipy.special`` takes 0.25-0.3 s to import, a third of a command's start-up. Readers spend
their time in pyarrow, gzip and JSON parsing, which release the GIL, so the import runs in a
background thread from the moment a command's arguments are parsed. A later ``import`` in the
command waits for it (Python's import locks are per module) and raises any error as usual.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence

__all__ = ["STATISTICS", "preload"]

STATISTICS = ("scipy.special",)
"""What every command's statistics import: the distributions' functions."""


def preload(modules: Sequence[str] = STATISTICS) -> threading.Thread:
    """Start importing ``modules`` in a daemon thread (nothing waits for it at exit)."""
    thread = threading.Thread(
        target=_import, args=(tuple(modules),), name="evalsig-preload", daemon=True
    )
    thread.start()
    return thread


def _import(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # raised again where the command imports it
            return
