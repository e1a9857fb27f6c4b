"""``evalsig noise``: run-to-run versus item variance, signal-to-noise and what buys resolution."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import (
    TABLE_OPTIONS,
    Destination,
    Pairing,
    ReadFiles,
    pairs_items,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths
from evalsig.errors import DataError

if TYPE_CHECKING:
    from evalsig.data.table import ScoreTable

__all__ = ["noise_command", "read_tables"]


@command("noise", example="evalsig noise long.csv --id question_id --score correct --run seed")
@reads_files(*TABLE_OPTIONS)
@pairs_items
@writes_output
def noise_command(
    results: Annotated[
        list[str],
        typer.Argument(
            help="A long table with a model column (several runs per item), one file per "
            "model (named after the file), a folder with one entry per model, or - (stdin)."
        ),
    ],
    model_column: Annotated[
        str, typer.Option("--model-column", help="Column naming each row's model (one table).")
    ] = "model",
    *,
    read: ReadFiles,
    pairing: Pairing,
    alpha: Annotated[float, typer.Option(help="Level of the paired test of the MDE.")] = 0.05,
    power: Annotated[float, typer.Option(help="Power of the paired test of the MDE.")] = 0.8,
    runs: Annotated[
        list[int] | None,
        typer.Option("--runs", min=1, help="Runs per item of the design options (repeat)."),
    ] = None,
    items: Annotated[
        list[int] | None,
        typer.Option(
            "--items", min=2, help="Items of the design options (repeat; default N/2 .. 4N)."
        ),
    ] = None,
    destination: Destination,
) -> None:
    """Benchmark noise: item and run-to-run variance, signal-to-noise ratio, MDE, design."""
    from evalsig.power.noise import benchmark_noise

    keywords = replace(read, task_column=None).keywords()
    with data_errors(), stdin_paths(results, read.input_format) as paths:
        if read.task_column is not None:
            if read.task is None:
                raise DataError(
                    f"with --task-column {read.task_column!r}, name the task with --task."
                )
            task = {read.task_column: keywords.pop("task")}
            keywords["where"] = {**keywords.get("where", {}), **task}
        tables = read_tables(paths, model_column=model_column, read=keywords)
        result = benchmark_noise(
            tables,
            alpha=alpha,
            power=power,
            runs=tuple(runs) if runs else (1, 2, 4, 8, 16),
            items=tuple(items) if items else None,
            **pairing.keywords(),
        )
        document = as_given(result.to_dict())
    destination.emit(document, title="Benchmark noise")


def read_tables(
    paths: list[str], *, model_column: str, read: dict[str, Any]
) -> dict[str, ScoreTable]:
    """``{model: ScoreTable}``: a long table split by ``model_column``, a folder with one
    entry per model, or one file per model (named after the file, without its suffixes)."""
    from evalsig.data import load, load_tasks

    if len(paths) == 1 and not Path(paths[0]).is_dir():
        if "task" in read:
            raise DataError("--task needs --task-column to pick rows of a long table.")
        return load_tasks(paths[0], task_column=model_column, **read)
    given = ", ".join(paths)  # what the user named, for the error below
    if len(paths) == 1:
        folder = Path(paths[0])
        paths = [str(p) for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
        given = f"{folder} (a folder of {len(paths)} entries)"
    named: dict[str, str] = {}
    for path in paths:
        entry = Path(path)
        name = entry.name if entry.is_dir() else entry.name.split(".")[0]
        if name in named:
            raise DataError(
                f"{named[name]} and {path} would both be model {name!r}; give each model's "
                "file its own name, or one long table with a model column."
            )
        named[name] = path
    if len(named) < 2:
        raise DataError(
            f"{given}: {len(named)} model(s); noise diagnostics compare at least 2 "
            "models (one file or folder entry each, or a long table with a model column)."
        )
    return {name: load(path, name=name, **read) for name, path in named.items()}
