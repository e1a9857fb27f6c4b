"""The exceptions and warnings evalsig raises.

Every error names the argument, column, file or field at fault, shows the bad value,
and says how to fix it. All errors derive from :class:`EvalsigError`; those caused by
bad input also derive from :class:`ValueError`, so ``except ValueError`` keeps working.
"""

from __future__ import annotations

import reprlib
import stat
from collections.abc import Iterable

__all__ = [
    "AlignmentError",
    "DataError",
    "EvalsigError",
    "EvalsigWarning",
    "FormatError",
    "StoreLockedError",
    "examples",
    "file_kind",
]


class EvalsigError(Exception):
    """Base class of every error evalsig raises on purpose."""


class DataError(EvalsigError, ValueError):
    """The data or an argument is invalid (NaN scores, duplicate rows, bad option ...)."""


class AlignmentError(DataError):
    """Baseline and candidate do not describe the same items."""


class FormatError(DataError):
    """A file cannot be read: wrong format, malformed line, missing field, unsafe archive."""


class StoreLockedError(EvalsigError, TimeoutError):
    """Another process held a results store for longer than the caller was willing to wait."""


class EvalsigWarning(UserWarning):
    """A computation went ahead but something deserves the user's attention."""


def examples(values: Iterable[object], limit: int = 3) -> str:
    """Format the first few values of an iterable for an error message.

    >>> examples(["q17", "q42", "q99", "q100"])
    "'q17', 'q42', 'q99', ..."
    """
    shown: list[str] = []
    more = False
    for i, value in enumerate(values):
        if i == limit:
            more = True
            break
        shown.append(_short(value.item() if hasattr(value, "item") else value))
    return ", ".join(shown) + (", ..." if more else "")


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, from its ``st_mode``, for an error message.

    >>> file_kind(stat.S_IFIFO)
    'a named pipe (FIFO)'
    """
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _short(value: object, width: int = 80) -> str:
    """``repr(value)``, shortened past ``width`` characters (containers by ``reprlib``).

    >>> _short([[[[[[[1]]]]]]])
    '[[[[[[...]]]]]]'
    """
    text = reprlib.repr(value) if isinstance(value, (list, tuple, dict, set)) else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."
