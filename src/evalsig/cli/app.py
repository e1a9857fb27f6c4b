"""The Typer application, its error handling and shared option types."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Annotated

import typer
from rich.console import Console

from evalsig import __version__
from evalsig.errors import EvalsigError

__all__ = ["OutputFormat", "app", "data_errors", "main"]

app = typer.Typer(
    name="evalsig",
    help="Is the difference between two evaluated models real? Paired tests done right.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


@contextmanager
def data_errors() -> Iterator[None]:
    """Turn an evalsig error into one line on stderr and exit code 1."""
    try:
        yield
    except EvalsigError as exc:
        message = " ".join(str(exc).split())
        typer.echo(f"evalsig: error: {message}", err=True)
        raise typer.Exit(1) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"evalsig {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Paired significance tests for language-model evaluations."""


def main() -> None:
    """Entry point of the ``evalsig`` command (progress bars on stderr when it is a terminal)."""
    if not sys.stderr.isatty():
        app(prog_name="evalsig")
        return
    from rich.progress import Progress

    from evalsig.progress import reporting

    with Progress(transient=True, console=Console(stderr=True)) as bars:
        tasks: dict[str, object] = {}

        def show(label: str, done: float, total: float) -> None:
            if label not in tasks:
                tasks[label] = bars.add_task(label, total=total)
            bars.update(tasks[label], completed=done, total=total)  # type: ignore[arg-type]

        with reporting(show):
            app(prog_name="evalsig")
    sys.exit(0)
