"""``evalsig ingest PATH... --store FILE`` and ``evalsig store-info --store FILE``.

``ingest`` reads result files once into a DuckDB results store (``pip install
'evalsig-stats[store]'``), one line per path: ingested (scores, models, tasks) or skipped
(its content is already stored for that model and task); then a summary. A path ``-``
reads standard input (once), named ``-`` in the report. ``store-info``
lists what a store holds: per task its metrics, models, item counts and runs.
``evalsig leaderboard --store FILE`` reads from the same store.

``ingest`` has the store open to write for its whole run; ``store-info`` and
``leaderboard --store`` open it read-only. While another process holds it (a writer keeps
out everyone else; readers keep out writers only) they wait up to ``--lock-timeout``
seconds, then fail with one line saying so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import (
    DEFAULT_LOCK_TIMEOUT,
    LockTimeout,
    ReadFiles,
    TextOrJson,
    TextOrJsonFormat,
    reads_files,
)
from evalsig.cli.stdin import STDIN, as_given, stdin_paths

if TYPE_CHECKING:
    from evalsig.store import StoredTask

__all__ = ["ingest_command", "store_info_command", "tasks_text"]


@command("ingest", example="evalsig ingest --store results.duckdb 'runs/*.jsonl' --model my-model")
@reads_files(
    omit=["separator"],
    help={
        "task": "Task to store from files holding several, or the name of the task of a "
        "file that has none.",
        "metric": "Store only this metric (default: every metric).",
        "filter_name": "Store only this lm-eval filter.",
        "where": "Keep rows with COLUMN=VALUE (repeatable), e.g. model_id=gpt-4.",
        "skip_bad_lines": "Skip malformed records (the notes record how many).",
    },
)
def ingest_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Result files, directories or quoted globs (one source each); -: stdin."
        ),
    ],
    store: Annotated[
        Path, typer.Option("--store", help="The DuckDB store file (created if absent).")
    ],
    model: Annotated[
        str | None,
        typer.Option(help="Model name, for files that do not name their model (CSV ...)."),
    ] = None,
    model_column: Annotated[
        str | None, typer.Option(help="Column naming each row's model (long tables).")
    ] = None,
    *,
    read: ReadFiles,
    run_label: Annotated[
        str | None,
        typer.Option(help="Label the runs of these files (files that are repeated runs)."),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option(help="Let these files replace stored scores of the same model and task."),
    ] = False,
    output_format: TextOrJsonFormat = TextOrJson.text,
    lock_timeout: LockTimeout = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Read result files once into a DuckDB results store; skip what is already stored."""
    from evalsig.data.provenance import shown
    from evalsig.store import ResultsStore

    keywords = read.keywords()
    with (
        data_errors(),
        stdin_paths(paths, read.input_format) as read_paths,
        ResultsStore(store, lock_timeout=lock_timeout) as db,
    ):
        result = db.ingest(
            read_paths,
            model=model,
            model_column=model_column,
            run_label=run_label,
            replace=replace,
            where=keywords.pop("where", {}),
            **keywords,
        )
        text = (  # inside: standard input's temporary file is still known by its name
            json.dumps(as_given(result.to_dict(), path=STDIN), indent=2, allow_nan=False)
            if output_format is TextOrJson.json
            else shown(str(result))
        )
    typer.echo(text)


@command("store-info", example="evalsig store-info --store results.duckdb")
def store_info_command(
    store: Annotated[Path, typer.Option("--store", help="The DuckDB store file.")],
    output_format: TextOrJsonFormat = TextOrJson.text,
    lock_timeout: LockTimeout = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """List what a results store holds: tasks, their metrics, models, items and runs."""
    from evalsig.store import ResultsStore

    with data_errors(), ResultsStore(store, read_only=True, lock_timeout=lock_timeout) as db:
        contents = db.contents()
        sources = db.sources()
    if output_format is TextOrJson.json:
        payload = {
            "store": str(store),
            "tasks": [t.to_dict() for t in contents],
            "sources": [s.to_dict() for s in sources],
        }
        typer.echo(json.dumps(payload, indent=2, allow_nan=False))
        return
    typer.echo(f"{store}: {len(sources)} source{'s' if len(sources) != 1 else ''} ingested")
    typer.echo(tasks_text(contents) if contents else "no scores stored yet.")


def tasks_text(contents: Sequence[StoredTask]) -> str:
    """Per task: its metrics, then each model's items and runs (over the task's metrics)."""
    by_task: dict[str, list[StoredTask]] = {}
    for entry in contents:
        by_task.setdefault(entry.task, []).append(entry)
    lines: list[str] = []
    for task, entries in by_task.items():
        metrics = [e.metric + (f" ({e.filter})" if e.filter else "") for e in entries]
        models: dict[str, tuple[int, int, int]] = {}
        for entry in entries:
            for m in entry.models:
                items, low, high = models.get(m.name, (0, m.runs[0], m.runs[1]))
                models[m.name] = (max(items, m.n_items), min(low, m.runs[0]), max(high, m.runs[1]))
        n_items = max(e.n_items for e in entries)
        shown = ", ".join(metrics[:8]) + (
            f", ... ({len(metrics)} in all)" if len(metrics) > 8 else ""
        )
        lines.append(
            f"task {task!r}: {len(models)} model{'s' if len(models) != 1 else ''}, "
            f"{n_items:,} item{'s' if n_items != 1 else ''}; "
            f"metric{'s' if len(metrics) != 1 else ''}: {shown}"
        )
        width = max(len(name) for name in models)
        for name, (items, low, high) in models.items():
            runs = f"{low}" if low == high else f"{low}-{high}"
            lines.append(
                f"  {name:<{width}}  {items:>9,} item{'s' if items != 1 else ' '}  "
                f"{runs} run{'s' if high != 1 else ''}"
            )
    return "\n".join(lines)
