"""Timing and memory helpers for the benchmark scripts (side-by-side, one process)."""

from __future__ import annotations

import compileall
import gc
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def compile_bytecode() -> None:
    """Compile evalsig's modules to bytecode, as ``pip install`` does, so that a fresh
    process times the command, not the compiler (an editable install under
    ``PYTHONDONTWRITEBYTECODE`` would compile every module on every start)."""
    import evalsig

    compileall.compile_dir(Path(evalsig.__file__).parent, quiet=1)


def best_time(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """Best wall-clock time of ``repeat`` calls, and the last result."""
    best = float("inf")
    result: T
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_memory(fn: Callable[[], T]) -> tuple[int, T]:
    """Peak bytes allocated (Python and numpy buffers) while ``fn`` runs."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:,.1f} MB"


def row(label: str, seconds: float, extra: str = "") -> str:
    return f"  {label:<58} {seconds * 1000:>10.2f} ms  {extra}"
