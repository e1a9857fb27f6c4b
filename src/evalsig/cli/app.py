"""The Typer application, its error handling and shared option types.

Every failure the user can fix is one line on stderr, ``evalsig: error: ...``, naming the
file or argument and the fix, with the command's data-error exit code
(:data:`DATA_ERROR_CODES`); never a traceback.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from evalsig import __version__
from evalsig.defaults import MAX_DECOMPRESSED_ENV as ENV_VAR
from evalsig.errors import EvalsigError

__all__ = [
    "DATA_ERROR_CODES",
    "OutputFormat",
    "app",
    "data_errors",
    "fail",
    "failure_line",
    "main",
]

DATA_ERROR_CODES = {"gate": 4, "monitor": 4}
"""The exit code of a data error, by command (their own results use 1 and 3); others: 1."""


FAILURES = (EvalsigError, OSError, UnicodeDecodeError, RecursionError, MemoryError)
"""What becomes one line and a data-error exit code instead of a traceback."""

EPILOG = (
    "Exit codes: 0 done; 1 a data error (one line on stderr, no traceback); 2 a usage error. "
    "gate: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 4 data error. monitor: 0 candidate better, "
    "1 baseline better, 3 not yet resolved, 4 data error.\n\n"
    f"Compressed inputs (.gz, zip members) may expand to 1 GiB; set {ENV_VAR} (e.g. 4G) "
    "to change the cap."
)

app = typer.Typer(
    name="evalsig",
    help="Is the difference between two evaluated models real? Paired tests done right.",
    epilog=EPILOG,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_invoked: dict[str, str] = {}
"""The command being run (set by the root callback), for :func:`main`'s last resort."""


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def data_error_code() -> int:
    """The running command's data-error exit code (1 unless :data:`DATA_ERROR_CODES` says)."""
    return DATA_ERROR_CODES.get(_invoked.get("command", ""), 1)


def fail(message: str, code: int | None = None) -> NoReturn:
    """Print ``evalsig: error: message`` as one line and exit with the data-error code."""
    typer.echo(f"evalsig: error: {' '.join(message.split())}", err=True)
    raise typer.Exit(data_error_code() if code is None else code)


_WHY = {
    errno.EACCES: "permission denied; check its permissions (or its folder's)",
    errno.EPERM: "operation not permitted; check its permissions (or its folder's)",
    errno.ENOENT: "no such file or folder; check the path",
    errno.EISDIR: "is a directory; give a file name",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path",
    errno.ENOSPC: "no space left on the device; free some space",
    errno.EROFS: "the file system is read-only; choose another place",
}


def failure_line(exc: BaseException) -> str:
    """One line for a failure: an evalsig error's message, or what went wrong and the fix."""
    if isinstance(exc, EvalsigError):
        text = str(exc)
    elif isinstance(exc, UnicodeDecodeError):
        text = (
            f"the input is not valid UTF-8 text ({exc.reason} at byte {exc.start:,}); "
            "re-save it as UTF-8."
        )
    elif isinstance(exc, OSError):
        why = _WHY.get(exc.errno or 0, exc.strerror or str(exc) or type(exc).__name__)
        name = exc.filename
        text = f"{name}: {why}." if name is not None else f"{why} ({type(exc).__name__})."
    elif isinstance(exc, RecursionError):
        text = (
            "the input is nested too deeply to process (values inside one another hundreds "
            "of levels deep); flatten it."
        )
    else:
        text = "ran out of memory; free memory, or split the input into smaller files."
    return " ".join(text.split())


@contextmanager
def data_errors(code: int | None = None) -> Iterator[None]:
    """Turn a failure the user can fix into one line on stderr and the data-error exit code.

    Evalsig errors, and as a last resort OSError, UnicodeDecodeError, RecursionError and
    MemoryError; ``code`` defaults to the command's (:func:`data_error_code`).
    """
    try:
        yield
    except FAILURES as exc:
        fail(failure_line(exc), code)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"evalsig {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    context: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Paired significance tests for language-model evaluations."""
    _invoked["command"] = context.invoked_subcommand or ""


def main() -> None:
    """Entry point of the ``evalsig`` command: one line, never a traceback, for a failure.

    Commands turn the failures they expect into one line themselves; what escapes them
    (an OSError, UnicodeDecodeError, RecursionError or MemoryError) is reported here.
    """
    try:
        _run()
    except FAILURES as exc:
        typer.echo(f"evalsig: error: {failure_line(exc)}", err=True)
        sys.exit(DATA_ERROR_CODES.get(_invoked.get("command", ""), 1))


def _run() -> None:
    """Run the application (progress bars on stderr when it is a terminal)."""
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
