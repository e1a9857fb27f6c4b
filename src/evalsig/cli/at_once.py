"""A command's independent inputs read at the same time, each in a thread of its own.

Reading a file is mostly pyarrow's parsing, zlib's inflating and JSON parsing, which release
the GIL; two files read one after the other leave a core idle whenever one of those steps
runs on a single thread. The calls run in threads that each start from a copy of the
caller's context (so ``--verbose`` progress reports reach the caller's reporter), and the
outcome is the one a loop would give: the results in order, or the first call's error in
the order given.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["at_once"]

T = TypeVar("T")


def at_once(calls: Sequence[Callable[[], T]]) -> list[T]:
    """Run ``calls`` at the same time; their results in order, or the earliest call's error.

    One call runs in the caller's thread (a single call runs there alone)."""
    results: list[T | None] = [None] * len(calls)
    errors: list[BaseException | None] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            results[index] = calls[index]()
        except BaseException as exc:  # raised again in the caller's thread, in order
            errors[index] = exc

    threads = [
        threading.Thread(
            target=contextvars.copy_context().run,
            args=(run, index),
            name=f"evalsig-input-{index}",
            daemon=True,
        )
        for index in range(1, len(calls))
    ]
    for thread in threads:
        thread.start()
    if calls:
        run(0)
    for thread in threads:
        thread.join()
    for error in errors:
        if error is not None:
            raise error
    return results  # type: ignore[return-value]  # every call returned: no None is left
