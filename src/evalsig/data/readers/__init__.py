"""File readers. Each format is a :class:`Reader`; :func:`read_tables` picks one.

Formats are detected from the file name (and, for harness logs, their content), or forced
with ``format=``. A reader returns one table per task found in the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from evalsig.data.readers.base import Reader, ReadOptions
from evalsig.data.readers.tabular import CSV, JSON, JSONL, PARQUET
from evalsig.data.table import ScoreTable
from evalsig.errors import FormatError

__all__ = ["READERS", "ReadOptions", "Reader", "read_table", "read_tables", "register"]

READERS: dict[str, Reader] = {}
"""Registered readers by name, tried in registration order when detecting a format."""


def register(reader: Reader) -> Reader:
    """Add a reader (a later registration with the same name replaces the earlier one)."""
    READERS[reader.name] = reader
    return reader


for _reader in (CSV, JSONL, JSON, PARQUET):
    register(_reader)


def _pick(path: Path, format: str) -> Reader:
    if format != "auto":
        if format not in READERS:
            raise FormatError(
                f"unknown format {format!r}; choose one of: auto, {', '.join(READERS)}."
            )
        return READERS[format]
    for reader in READERS.values():
        if reader.sniff(path):
            return reader
    raise FormatError(
        f"{path}: cannot tell the format from the name; pass --format / format= "
        f"({', '.join(READERS)})."
    )


def read_tables(
    path: str | os.PathLike[str], options: ReadOptions | None = None, *, format: str = "auto"
) -> Mapping[str, ScoreTable]:
    """Every task's table in a file, keyed by task name."""
    p = Path(path)
    if not p.exists():
        raise FormatError(f"{p}: no such file.")
    if p.is_dir():
        raise FormatError(f"{p}: is a directory; name a file.")
    return _pick(p, format).read(p, options or ReadOptions())


def read_table(
    path: str | os.PathLike[str], options: ReadOptions | None = None, *, format: str = "auto"
) -> ScoreTable:
    """The one table in a file; an error listing the tasks when there are several."""
    tables = read_tables(path, options, format=format)
    if len(tables) != 1:
        raise FormatError(
            f"{path}: holds {len(tables)} tasks ({', '.join(tables)}); choose one with --task."
        )
    return next(iter(tables.values()))
