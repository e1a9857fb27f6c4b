"""Command-line options shared by the commands that read results or write a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evalsig.cli.app import OutputFormat

__all__ = [
    "ClusterColumn",
    "Format",
    "IdColumn",
    "InputFormat",
    "Metric",
    "Output",
    "RunColumn",
    "ScoreColumn",
    "Task",
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
InputFormat = Annotated[
    str, typer.Option("--input-format", help="Input format, or auto to detect it.")
]
Task = Annotated[str | None, typer.Option(help="Task to read, when files hold several.")]
Metric = Annotated[
    str | None, typer.Option(help="Metric: lm-eval metric, Inspect scorer, HELM stat.")
]
Format = Annotated[OutputFormat, typer.Option("--format", help="Output format.")]
Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write the output to this file instead of stdout."),
]
