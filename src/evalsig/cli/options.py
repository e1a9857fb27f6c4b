"""Command-line options shared by the commands that read results or write a report."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from evalsig.cli.app import OutputFormat, fail
from evalsig.cli.output import output_problem
from evalsig.defaults import DEFAULT_LOCK_TIMEOUT

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "ClusterColumn",
    "Format",
    "IdColumn",
    "InputFormat",
    "LockTimeout",
    "Metric",
    "Output",
    "RunColumn",
    "ScoreColumn",
    "Separator",
    "Task",
    "TaskColumn",
    "Where",
    "parse_where",
]

IdColumn = Annotated[str | None, typer.Option("--id", help="Item id column.")]
ScoreColumn = Annotated[str | None, typer.Option("--score", help="Score column.")]
RunColumn = Annotated[
    str | None,
    typer.Option("--run", help="Run column (sample, epoch or seed) for repeated runs."),
]
ClusterColumn = Annotated[
    str | None, typer.Option("--cluster", help="Cluster column (subject, passage, source).")
]
Where = Annotated[
    list[str] | None,
    typer.Option(help="Keep rows with COLUMN=VALUE (repeatable), e.g. model=gpt-4."),
]


def parse_where(conditions: list[str] | None) -> dict[str, str]:
    """``["model=a", "task=b"]`` as ``{"model": "a", "task": "b"}``."""
    out = {}
    for condition in conditions or []:
        column, sep, value = condition.partition("=")
        if not sep or not column:
            raise typer.BadParameter(f"--where needs COLUMN=VALUE; got {condition!r}.")
        out[column] = value
    return out


KeyColumn = Annotated[
    str | None, typer.Option("--key", help="Content-key column (gold answer, target, hash).")
]


class OnMissing(str, Enum):
    error = "error"
    intersect = "intersect"


class OnMismatch(str, Enum):
    error = "error"
    exclude = "exclude"
    keep = "keep"


MissingPolicy = Annotated[
    OnMissing,
    typer.Option(help="Items not in every input: error, or compare only the items all share."),
]
MismatchPolicy = Annotated[
    OnMismatch,
    typer.Option(
        help="Items whose gold answer/target/hash differ between inputs: error, exclude or keep."
    ),
]
InputFormat = Annotated[
    str, typer.Option("--input-format", help="Input format, or auto to detect it.")
]
Task = Annotated[str | None, typer.Option(help="Task to read, when files hold several.")]
TaskColumn = Annotated[str | None, typer.Option(help="Column naming each row's task.")]
Metric = Annotated[
    str | None, typer.Option(help="Metric: lm-eval metric, Inspect scorer, HELM stat.")
]
Format = Annotated[OutputFormat, typer.Option("--format", help="Output format.")]
LockTimeout = Annotated[
    float,
    typer.Option(
        "--lock-timeout",
        min=0,
        metavar="SECONDS",
        help="Wait this long for another process that has the --store open (one process "
        "may write a store, or several read it, never both at once); 0: do not wait.",
    ),
]
Separator = Annotated[
    str | None,
    typer.Option(
        "--separator",
        help="CSV field separator, e.g. ';' or '\\t' (default: the suffix's, or the one the "
        "header line shows).",
    ),
]


def _check_output(value: Path | None) -> Path | None:
    """Refuse an unwritable --output before any work is done (one line, data-error code)."""
    if value is not None:
        problem = output_problem(value)
        if problem is not None:
            fail(problem)
    return value


Output = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the output to this file instead of stdout.",
        callback=_check_output,
    ),
]
