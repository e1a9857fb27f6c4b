"""The store's one connection to its DuckDB file, with every DuckDB failure as one error.

A store file that was cut short (an interrupted copy, a full disk) or damaged fails in
DuckDB only when a damaged block is read, which may be at any query, not only when the file
is opened. Every statement the store runs goes through :class:`Connection`, so that such a
failure is one :class:`~evalsig.errors.DataError` naming the file and the fix (restore it,
or ingest the result files again into a new store), never a DuckDB traceback.

Private to :mod:`evalsig.store`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evalsig.errors import DataError, file_kind

__all__ = ["Connection", "check_store_file", "store_error"]

_DAMAGE = re.compile(
    r"could not read enough bytes|corrupt|checksum|not a valid duckdb database|"
    r"invalidated|serialization error|internal error|fatal error|io error|"
    r"unexpected end|truncated",
    re.IGNORECASE,
)
_DAMAGE_TYPES = ("IOException", "SerializationException", "InternalException", "FatalException")


def store_error(ddb: Any, path: Path, exc: BaseException, *, opening: bool) -> DataError:
    """One line for a DuckDB failure on the store file ``path``, with the fix when the
    failure says the file is damaged or truncated."""
    detail = " ".join(str(exc).split())
    if len(detail) > 240:
        detail = detail[:237] + "..."
    verb = "open" if opening else "read"
    kinds = tuple(getattr(ddb, name) for name in _DAMAGE_TYPES if hasattr(ddb, name))
    if (kinds and isinstance(exc, kinds)) or _DAMAGE.search(detail):
        other = ", or not a DuckDB database at all" if opening else ""
        return DataError(
            f"{path}: cannot {verb} the results store ({detail}): the file is damaged or "
            f"truncated{other}. Restore it from a backup, or ingest the result files again "
            "into a new store (evalsig ingest PATH... --store NEW.duckdb)."
        )
    return DataError(f"{path}: cannot {verb} the results store ({detail}).")


def check_store_file(path: Path) -> bool:
    """Whether a store file exists at ``path``; anything there but a regular file (a
    directory, a pipe, a device) is refused before DuckDB opens it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise DataError(f"{path}: cannot read the results store ({exc.strerror or exc}).") from None
    if stat.S_ISREG(mode):
        return True
    raise DataError(
        f"{path}: is {file_kind(mode)}, not a results store file; give the path of a DuckDB file "
        "(ingest creates it when it does not exist)."
    )


class Connection:
    """A DuckDB connection whose every failure is a :class:`DataError` naming the store.

    It offers what the store uses of DuckDB's connection: ``execute`` (returning the
    connection, as DuckDB's does, for ``fetchall`` / ``fetchnumpy``), transactions,
    ``register`` / ``unregister`` of a table of numpy arrays, and ``close``.
    """

    __slots__ = ("_con", "_ddb", "_failed", "path")

    def __init__(self, con: Any, ddb: Any, path: Path) -> None:
        self._con = con
        self._ddb = ddb
        self._failed: DataError | None = None
        """The first failure: later ones (DuckDB's "transaction is aborted" while cleaning
        up after it) repeat it, so that the message names the cause and the fix."""
        self.path = path

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except self._ddb.Error as exc:
            if self._failed is None:
                self._failed = store_error(self._ddb, self.path, exc, opening=False)
            raise DataError(*self._failed.args) from None

    def execute(self, query: str, parameters: Sequence[object] | None = None) -> Connection:
        with self._guard():
            if parameters is None:
                self._con.execute(query)
            else:
                self._con.execute(query, parameters)
        return self

    def fetchall(self) -> list[tuple[Any, ...]]:
        with self._guard():
            rows: list[tuple[Any, ...]] = self._con.fetchall()
        return rows

    def fetchnumpy(self) -> dict[str, Any]:
        with self._guard():
            columns: dict[str, Any] = self._con.fetchnumpy()
        return columns

    def begin(self) -> None:
        with self._guard():
            self._con.begin()

    def commit(self) -> None:
        with self._guard():
            self._con.commit()

    def rollback(self) -> None:
        with self._guard():
            self._con.rollback()
        self._failed = None  # the connection is usable again

    def register(self, name: str, table: object) -> None:
        with self._guard():
            self._con.register(name, table)

    def unregister(self, name: str) -> None:
        with self._guard():
            self._con.unregister(name)

    def close(self) -> None:
        with self._guard():
            self._con.close()
