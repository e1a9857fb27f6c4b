"""Opening a DuckDB file that another process may hold: wait, with backoff, for a bounded time.

DuckDB locks a database file for the whole life of a connection: one process may open it
to read and write, or any number of processes may open it read-only, never both at once
(a reader cannot open a file while a writer has it open, nor a writer while a reader has).
The lock is taken when connecting, and fails at once; :func:`connect` retries it.

Private to :mod:`evalsig.store`.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalsig.defaults import DEFAULT_LOCK_TIMEOUT
from evalsig.errors import DataError, StoreLockedError
from evalsig.progress import report
from evalsig.store._connection import store_error

__all__ = ["DEFAULT_LOCK_TIMEOUT", "check_lock_timeout", "connect", "is_lock_error"]

_FIRST_WAIT = 0.05
_LONGEST_WAIT = 1.0

_LOCKED = re.compile(
    r"could not set lock on file|conflicting lock|being used by another process", re.IGNORECASE
)
_PID = re.compile(r"\(PID (\d+)\)")


def check_lock_timeout(lock_timeout: float) -> float:
    """``lock_timeout`` as a float, or a DataError when it is negative, NaN or not a number."""
    try:
        value = float(lock_timeout)
    except (TypeError, ValueError):
        value = math.nan
    if not value >= 0:  # also refuses NaN
        raise DataError(
            f"`lock_timeout` is {lock_timeout!r}; give the seconds to wait for another "
            "process's lock on the store: 0 or more (0: do not wait)."
        )
    return value


def is_lock_error(exc: BaseException) -> bool:
    """Whether a DuckDB error says that another process holds the file's lock."""
    return _LOCKED.search(str(exc)) is not None


def connect(
    ddb: Any,
    path: Path,
    *,
    read_only: bool,
    lock_timeout: float,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """Connect to ``path``, retrying while another process holds its lock.

    Parameters
    ----------
    ddb : module
        The duckdb module.
    path : Path
        The database file.
    read_only : bool
        Open read-only (shares the file with other readers) or read-write (alone).
    lock_timeout : float
        Seconds to keep retrying; 0 tries once.
    sleep : callable
        Waits between attempts (tests replace it).

    Returns
    -------
    duckdb.DuckDBPyConnection

    Raises
    ------
    StoreLockedError
        Another process still held the file after ``lock_timeout`` seconds.
    DataError
        Any other failure to open the file (not a DuckDB database, no permission ...).

    Notes
    -----
    The waits grow from 0.05 s, doubling up to 1 s, each shortened by a random factor in
    [0.5, 1] so that several waiting processes do not retry in step.
    """
    start = time.monotonic()
    wait = _FIRST_WAIT
    jitter = random.Random()
    while True:
        try:
            return ddb.connect(str(path), read_only=read_only)
        except ddb.Error as exc:
            if not is_lock_error(exc):
                raise store_error(ddb, path, exc, opening=True) from None
            waited = time.monotonic() - start
            left = lock_timeout - waited
            if left <= 0:
                waited_for = (
                    "did not wait (lock timeout 0)"
                    if lock_timeout <= 0
                    else (f"waited {waited:.1f} s")
                )
                raise _locked(path, exc, read_only=read_only, waited=waited_for) from None
            if math.isfinite(lock_timeout):
                report("waiting for another process to release the store", waited, lock_timeout)
            sleep(min(left, wait * jitter.uniform(0.5, 1.0)))
            wait = min(2 * wait, _LONGEST_WAIT)


def _locked(path: Path, exc: BaseException, *, read_only: bool, waited: str) -> StoreLockedError:
    pid = _PID.search(str(exc))
    holder = "another process" + (f" (PID {pid.group(1)})" if pid else "")
    doing = (
        f"{holder} has it open for writing"
        if read_only
        else f"{holder} has it open (to read or to write)"
    )
    return StoreLockedError(
        f"{path}: the results store is locked: {doing}; {waited}. A store can be "
        "open in one process that writes, or in any number of processes that only read, never "
        "both at once. Try again when that process has finished, or wait longer with "
        "--lock-timeout SECONDS (lock_timeout=)."
    )
