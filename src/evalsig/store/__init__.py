"""An embedded results store: harness outputs read once into DuckDB, read back per task.

On the command line: ``evalsig ingest PATH... --store results.duckdb`` fills a store,
``evalsig store-info --store results.duckdb`` lists its tasks, models and item counts, and
``evalsig leaderboard --store results.duckdb --task T`` ranks a task's models from it.

One process may have a store open to write, or any number of processes to read it, never
both at once; opening a store another process holds waits (``lock_timeout``, 30 s by
default) and then raises :class:`~evalsig.errors.StoreLockedError`.

``pip install 'evalsig-stats[store]'`` adds the duckdb package it needs; without it, opening a
store raises a :class:`~evalsig.errors.DataError` saying so (the rest of evalsig works
without it, and a plain directory of result files needs no store).
"""

from evalsig.errors import StoreLockedError
from evalsig.store.duckdb_store import DEFAULT_LOCK_TIMEOUT, SCHEMA_VERSION, ResultsStore
from evalsig.store.naming import ModelName, Naming, harness_model
from evalsig.store.results import (
    IngestReport,
    SourceReport,
    StoredModel,
    StoredSource,
    StoredTask,
)

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "SCHEMA_VERSION",
    "IngestReport",
    "ModelName",
    "Naming",
    "ResultsStore",
    "SourceReport",
    "StoreLockedError",
    "StoredModel",
    "StoredSource",
    "StoredTask",
    "harness_model",
]
