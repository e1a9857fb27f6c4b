"""Progress of long computations, reported without printing.

Numerics and readers call :func:`report` as they advance; nothing happens unless a caller
has installed a reporter with :func:`reporting` (the command line shows a progress bar on
standard error when it is a terminal). A context variable carries the reporter, so threads
and tests do not see each other's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["Reporter", "report", "reporting"]

Reporter = Callable[[str, float, float], None]
"""``reporter(label, done, total)``."""

_REPORTER: ContextVar[Reporter | None] = ContextVar("evalsig_progress", default=None)


def report(label: str, done: float, total: float) -> None:
    """Tell the installed reporter (if any) that ``done`` of ``total`` units are finished."""
    reporter = _REPORTER.get()
    if reporter is not None:
        reporter(label, done, total)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Send progress reports to ``reporter`` within the block."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)
