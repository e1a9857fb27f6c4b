"""The results store's tables: creating them, checking their version, migrating old stores.

Private to :mod:`evalsig.store`; the layout is described in :mod:`evalsig.store.duckdb_store`.

Versions
--------
1
    ``sources.sha256`` was unique: a file's content could be stored once only, so the same
    file given for a second model or task was skipped.
2
    ``sources.sha256`` is not unique (the same content may be stored for another model or
    task), and ``sources.ingest_options`` records how each source was read. A version 1
    store is migrated when it is opened to write (one transaction: nothing is lost, and
    its sources get a NULL ``ingest_options``); opened read-only it is read as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from evalsig.errors import DataError, examples

if TYPE_CHECKING:
    from evalsig.store._connection import Connection

__all__ = ["READABLE", "SCHEMA_VERSION", "check_schema"]

SCHEMA_VERSION = 2
"""Version of the store's tables that this evalsig writes."""

READABLE = (1, 2)
"""Versions this evalsig reads (version 1 is migrated to 2 when opened to write)."""

_SOURCES = """CREATE TABLE sources (
    source_id INTEGER PRIMARY KEY, path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL,
    kind VARCHAR NOT NULL, format VARCHAR NOT NULL, ingested_at TIMESTAMP NOT NULL,
    n_rows BIGINT NOT NULL, ingest_options VARCHAR)"""

_SCHEMA = (
    "CREATE TABLE evalsig_store (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
    "CREATE SEQUENCE model_ids START 1",
    "CREATE SEQUENCE task_ids START 1",
    "CREATE SEQUENCE source_ids START 1",
    "CREATE TABLE models (model_id INTEGER PRIMARY KEY, name VARCHAR NOT NULL UNIQUE)",
    "CREATE TABLE tasks (task_id INTEGER PRIMARY KEY, name VARCHAR NOT NULL UNIQUE)",
    """CREATE TABLE items (
        task_id INTEGER NOT NULL, item_id INTEGER NOT NULL, name VARCHAR NOT NULL,
        PRIMARY KEY (task_id, item_id), UNIQUE (task_id, name))""",
    _SOURCES,
    """CREATE TABLE source_parts (
        source_id INTEGER NOT NULL, model_id INTEGER NOT NULL, task_id INTEGER NOT NULL,
        metric VARCHAR NOT NULL, filter_name VARCHAR NOT NULL, model_origin VARCHAR NOT NULL,
        n_rows BIGINT NOT NULL, notes VARCHAR[] NOT NULL,
        PRIMARY KEY (source_id, model_id, task_id, metric, filter_name))""",
    """CREATE TABLE scores (
        source_id INTEGER NOT NULL, seq BIGINT NOT NULL, model_id INTEGER NOT NULL,
        task_id INTEGER NOT NULL, metric VARCHAR NOT NULL, filter_name VARCHAR NOT NULL,
        item_id INTEGER NOT NULL, run VARCHAR NOT NULL, score DOUBLE NOT NULL,
        cluster VARCHAR, content_key VARCHAR)""",
)

_MIGRATE_1_TO_2 = (
    _SOURCES.replace("CREATE TABLE sources", "CREATE TABLE evalsig_sources_v2"),
    "INSERT INTO evalsig_sources_v2 SELECT *, NULL FROM sources",
    "DROP TABLE sources",
    "ALTER TABLE evalsig_sources_v2 RENAME TO sources",
)


def check_schema(con: Connection, path: Path, *, read_only: bool) -> int:
    """Create the tables of a new store, or check (and migrate) an existing one's version.

    Returns the version of the store as opened (2, or 1 for an old store opened read-only).
    """
    tables = {row[0] for row in con.execute("SHOW TABLES").fetchall()}
    if "evalsig_store" not in tables:
        if tables:
            raise DataError(
                f"{path}: a DuckDB database that is not an evalsig results store "
                f"(it has tables {examples(sorted(tables))}); choose another file."
            )
        if read_only:
            raise DataError(f"{path}: an empty database, not an evalsig results store.")
        _run(
            con,
            [*_SCHEMA, f"INSERT INTO evalsig_store VALUES ('schema_version', '{SCHEMA_VERSION}')"],
        )
        return SCHEMA_VERSION
    rows = con.execute("SELECT value FROM evalsig_store WHERE key = 'schema_version'").fetchall()
    found = rows[0][0] if rows else None
    version = int(found) if found is not None and found.isdigit() else None
    if version is None or version not in READABLE:
        newer = version is not None and version > SCHEMA_VERSION
        raise DataError(
            f"{path}: a results store of schema version {found!r}; this evalsig reads versions "
            f"{', '.join(map(str, READABLE))}. "
            + ("Upgrade evalsig to read it." if newer else "Re-ingest the files into a new store.")
        )
    if version == 1 and not read_only:
        _run(
            con,
            [
                *_MIGRATE_1_TO_2,
                f"UPDATE evalsig_store SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version'",
            ],
        )
        return SCHEMA_VERSION
    return version


def _run(con: Connection, statements: list[str]) -> None:
    """Run ``statements`` as one transaction: all of them, or none."""
    con.begin()
    try:
        for statement in statements:
            con.execute(statement)
        con.commit()
    except BaseException:
        con.rollback()
        raise
