"""The Typer application, its error handling and shared option types.

Every failure the user can fix is one line on stderr, ``evalsig: error: ...``, naming the
file or argument and the fix, with exit code :data:`EXIT_DATA_ERROR` (4) for every
command; never a traceback. The exit codes are one scheme for all commands (:data:`EXIT_CODES`).
"""

from __future__ import annotations

import copy
import errno
import functools
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Annotated, Any, NoReturn, TypeVar, get_args, get_origin

import typer
import typer.main
from rich.console import Console
from typer.core import TyperCommand

from evalsig import __version__
from evalsig._distribution import conflict, version_lines
from evalsig.cli.preload import preload
from evalsig.defaults import MAX_DECOMPRESSED_ENV as ENV_VAR
from evalsig.errors import EvalsigError

__all__ = [
    "EXIT_CODES",
    "EXIT_DATA_ERROR",
    "EXIT_FAILED",
    "EXIT_INCONCLUSIVE",
    "EXIT_OK",
    "EXIT_USAGE",
    "Command",
    "OutputFormat",
    "app",
    "command",
    "data_errors",
    "epilog",
    "fail",
    "failure_line",
    "main",
    "note",
    "verbosity",
]

EXIT_OK = 0
"""Done; gate PASS; monitor: the candidate is better."""
EXIT_FAILED = 1
"""gate FAIL; monitor: the baseline is better."""
EXIT_USAGE = 2
"""A usage error (click's own code): an unknown option, a bad value."""
EXIT_INCONCLUSIVE = 3
"""gate INCONCLUSIVE; monitor: not yet resolved."""
EXIT_DATA_ERROR = 4
"""A data error, for every command: a bad file, field or value (one line, no traceback)."""

EXIT_CODES = {
    EXIT_OK: "success, gate PASS, monitor candidate better",
    EXIT_FAILED: "gate FAIL, monitor baseline better",
    EXIT_USAGE: "usage error",
    EXIT_INCONCLUSIVE: "gate INCONCLUSIVE, monitor not yet resolved",
    EXIT_DATA_ERROR: "data error (a bad file, field or value; one line on stderr)",
}
"""The one exit-code scheme of every command, shown in ``--help``."""

EXIT_HELP = "Exit codes: " + "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items()) + "."
"""The exit codes as one line, for the root help and every command's help."""


FAILURES = (EvalsigError, OSError, UnicodeDecodeError, RecursionError, MemoryError)
"""What becomes one line and a data-error exit code instead of a traceback."""

EPILOG = (
    "Example: evalsig compare base.jsonl cand.jsonl --id doc_id --score acc (then evalsig "
    "COMMAND --help).\n\n"
    f"{EXIT_HELP}\n\n"
    "A path given as - reads standard input. Shell completion: evalsig "
    "--install-completion (or --show-completion to print the script).\n\n"
    f"Compressed inputs (.gz, zip members) may expand to 1 GiB; set {ENV_VAR} (e.g. 4G) "
    "to change the cap."
)

app = typer.Typer(
    name="evalsig",
    help="Is the difference between two evaluated models real? Paired tests done right.",
    epilog=EPILOG,
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

CommandFunction = TypeVar("CommandFunction", bound=Callable[..., Any])

_invoked: dict[str, str] = {}
"""The command being run and the verbosity (set by the root callback)."""


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def epilog(example: str) -> str:
    """A command's help epilog: an example command line and the exit codes."""
    return f"Example: {example}\n\n{EXIT_HELP}"


Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="Only the result: no notes or progress.")
]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Progress and timings on stderr.")]


class Command(TyperCommand):
    """Every evalsig command: its usage line shows its arguments in capitals (``BASELINE
    CANDIDATE``); it takes ``--quiet``/``--verbose`` after its name as before it; its
    repeatable number options also take a comma list (``--k 1,5`` is ``--k 1 --k 5``); and a
    value of the wrong type or range is one line naming the option, the value and the fix
    (exit 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.extend(_verbosity_options())  # shared: options hold no state of a run

    def collect_usage_pieces(self, ctx: Any) -> list[str]:  # typer's vendored click Context
        return [_capitals(piece) for piece in super().collect_usage_pieces(ctx)]

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return list(super().parse_args(ctx, _split_lists(self.params, args)))
        except typer.BadParameter as exc:
            line = _value_error(exc)
            if line is None:
                raise
            fail(line, EXIT_USAGE)

    def invoke(self, ctx: Any) -> Any:
        quiet, verbose = (bool(ctx.params.pop(name, False)) for name in ("quiet", "verbose"))
        _set_verbosity(ctx, quiet=quiet, verbose=verbose)
        preload()  # while the command reads its input
        return super().invoke(ctx)


@functools.cache
def _verbosity_options() -> tuple[Any, ...]:
    """``--quiet``/``-q`` and ``--verbose``/``-v`` as a command's options (typer builds
    them from :data:`Quiet` and :data:`Verbose`, as for the root)."""

    def options(quiet: Quiet = False, verbose: Verbose = False) -> None:
        """The options, as a command."""

    probe = typer.Typer(add_completion=False)
    probe.command()(options)
    return tuple(typer.main.get_command(probe).params)


def _set_verbosity(context: Any, *, quiet: bool, verbose: bool) -> None:
    """Record ``--quiet``/``--verbose`` (given before or after the command's name; both is a
    usage error) and, with ``--verbose`` off a terminal, report progress as lines."""
    if not (quiet or verbose):
        return
    now = _invoked.get("verbosity", "normal")
    if (quiet and verbose) or {now, "quiet" if quiet else "verbose"} == {"quiet", "verbose"}:
        raise typer.BadParameter("give --quiet or --verbose, not both.")
    _invoked["verbosity"] = "quiet" if quiet else "verbose"
    if verbose and now != "verbose" and not sys.stderr.isatty():  # a terminal: bars (_run)
        from evalsig.progress import reporting

        context.with_resource(reporting(_progress_lines()))


def _numbers(param: Any) -> type | None:
    """``int`` or ``float`` for a repeatable number option (``list[int]``), else None."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    if not getattr(param, "multiple", False) or get_origin(annotation) is not list:
        return None
    (item,) = get_args(annotation) or (None,)
    return item if item in (int, float) else None


def _split_lists(params: list[Any], args: list[str]) -> list[str]:
    """``--k 1,5`` and ``--k=1,5`` as ``--k 1 --k 5``, for repeatable number options (text
    options such as ``--where`` keep their commas); nothing after ``--`` changes."""
    names = {name for p in params if _numbers(p) for name in p.opts}
    out: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            out += [arg, *rest]
            break
        name, equals, value = arg.partition("=")
        if name in names and not equals:
            following = next(rest, None)
            if following is None:
                out.append(arg)
                break
            value = following
        if name in names and "," in value:
            for part in value.split(","):
                out += [name, part.strip()]
        elif name in names:
            out += [name, value]
        else:
            out.append(arg)
    return out


def _value_error(exc: Any) -> str | None:
    """One line for a value typer's checks refused (a word that is no number, a number
    out of range): the option, the value and the fix; None for other usage errors."""
    cause = exc.__cause__
    errors = getattr(cause, "errors", None)
    param = exc.param
    if param is None or not callable(errors) or not errors():
        return None
    error = errors()[0]
    value, kind, limits = error.get("input"), str(error.get("type", "")), error.get("ctx") or {}
    name = max(param.opts, key=len) if param.param_type_name == "option" else param.name.upper()
    number = _numbers(param) or getattr(param.type_descriptor, "annotation", None)
    several = f" (several: {name} 1 {name} 5, or {name} 1,5)" if _numbers(param) is not None else ""
    if kind.startswith(("int_", "float_")):
        what = "a whole number" if number is int else "a number"
        example = param.default if isinstance(param.default, (int, float)) else param.min or 1
        return f"{name}: {value!r} is not {what}; give one, e.g. {name} {example}{several}."
    for key, word in (("ge", "at least"), ("gt", "above"), ("le", "at most"), ("lt", "below")):
        if key in limits:
            return f"{name}: {value!r} is out of range; it must be {word} {limits[key]}."
    message = " ".join(str(error.get("msg", "")).split())
    return f"{name}: {value!r} is not accepted ({message}); see evalsig COMMAND --help."


def _capitals(piece: str) -> str:
    """``{baseline}`` as ``BASELINE``, ``[source]`` as ``[SOURCE]``, ``{paths}...`` as
    ``PATHS...`` (typer shows required arguments in braces, lower case)."""
    if piece.startswith("{") and "}" in piece:
        name, _, rest = piece[1:].partition("}")
        return name.upper() + rest
    if piece.startswith("[") and piece != "[OPTIONS]":
        return piece.upper()
    return piece


def command(name: str, *, example: str) -> Callable[[CommandFunction], CommandFunction]:
    """Register a command; its help ends with ``example`` and the exit codes."""
    return app.command(name, cls=Command, epilog=epilog(example))


def verbosity() -> str:
    """``quiet`` (only the result), ``verbose`` (progress and timings) or ``normal``."""
    return _invoked.get("verbosity", "normal")


def note(message: str) -> None:
    """A note or progress line on stderr, unless ``--quiet``."""
    if verbosity() != "quiet":
        typer.echo(message, err=True)


def fail(message: str, code: int = EXIT_DATA_ERROR) -> NoReturn:
    """Print ``evalsig: error: message`` as one line and exit with the data-error code."""
    typer.echo(f"evalsig: error: {' '.join(message.split())}", err=True)
    raise typer.Exit(code)


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
        asked = _COMPUTED.get(_invoked.get("command", ""))
        text = "ran out of memory; free memory, or " + (
            "split the input into smaller files." if asked is None else f"ask for less: {asked}."
        )
    return " ".join(text.split())


_COMPUTED = {
    "simulate": "fewer --simulations, --n-items or --runs",
    "audit": "fewer --simulations or --resamples",
    "power": "--method normal, or a smaller --n",
}
"""Commands whose memory goes on what they compute, not on an input: what to ask less of."""


@contextmanager
def data_errors(code: int = EXIT_DATA_ERROR) -> Iterator[None]:
    """Turn a failure the user can fix into one line on stderr and the data-error exit code.

    Evalsig errors, and as a last resort OSError, UnicodeDecodeError, RecursionError and
    MemoryError.
    """
    try:
        yield
    except FAILURES as exc:
        fail(failure_line(exc), code)


def _version(value: bool) -> None:
    """The version and the distribution (``evalsig-stats``), and the unrelated ``evalsig``
    distribution if it is installed too (exit 4 when it overwrote files of this one)."""
    if value:
        found = conflict()
        typer.echo("\n".join(version_lines(__version__, found)))
        raise typer.Exit(EXIT_DATA_ERROR if found is not None and found.broken else 0)


def _check_installation() -> None:
    """One line on stderr when the unrelated ``evalsig`` distribution is installed here (it
    writes the same package and command); a data error when it overwrote files of ours."""
    found = conflict()
    if found is None:
        return
    if found.broken:
        fail(found.message())
    typer.echo(f"evalsig: warning: {found.message()}", err=True)


@app.callback()
def _root(
    context: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Paired significance tests for language-model evaluations."""
    _check_installation()
    _invoked["command"] = context.invoked_subcommand or ""
    _invoked["verbosity"] = "normal"
    _set_verbosity(context, quiet=quiet, verbose=verbose)


def main() -> None:
    """Entry point of the ``evalsig`` command: one line, never a traceback, for a failure.

    Commands turn the failures they expect into one line themselves; what escapes them
    (an OSError, UnicodeDecodeError, RecursionError or MemoryError) is reported here.
    """
    try:
        _run()
    except FAILURES as exc:
        typer.echo(f"evalsig: error: {failure_line(exc)}", err=True)
        sys.exit(EXIT_DATA_ERROR)


def _run() -> None:
    """Run the application; with ``--verbose``, say how long the command took."""
    started = time.perf_counter()
    try:
        _run_reporting()
    finally:
        if verbosity() == "verbose":
            took = time.perf_counter() - started
            typer.echo(f"evalsig: {_invoked.get('command', '')} took {took:.2f} s", err=True)


def _run_reporting() -> None:
    """Progress bars on stderr when it is a terminal (``--verbose`` elsewhere: lines)."""
    if not sys.stderr.isatty():
        _application(sys.argv[1:])(prog_name="evalsig")
        return
    from rich.progress import Progress

    from evalsig.progress import reporting

    with Progress(transient=True, console=Console(stderr=True)) as bars:
        tasks: dict[str, object] = {}

        def show(label: str, done: float, total: float) -> None:
            if verbosity() == "quiet":
                return
            if label not in tasks:
                tasks[label] = bars.add_task(label, total=total)
            bars.update(tasks[label], completed=done, total=total)  # type: ignore[arg-type]

        with reporting(show):
            _application(sys.argv[1:])(prog_name="evalsig")
    sys.exit(0)


def _application(args: list[str]) -> typer.Typer:
    """The application with only the command that ``args`` name, when they name one:
    building every command's parameters costs 0.1-0.2 s of each run. The whole application
    otherwise (root help, a mistyped name and its suggestion, shell completion)."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    named = [info for info in app.registered_commands if info.name == name]
    if not named or "_EVALSIG_COMPLETE" in os.environ:
        return app
    one = copy.copy(app)
    one.registered_commands = named
    return one


def _progress_lines() -> Callable[[str, float, float], None]:
    """A reporter that prints a line when a stage starts and ends, under ``--verbose``."""
    started: dict[str, float] = {}
    finished: set[str] = set()

    def show(label: str, done: float, total: float) -> None:
        if verbosity() != "verbose" or label in finished:
            return
        if label not in started:
            started[label] = time.perf_counter()
            typer.echo(f"evalsig: {label} ...", err=True)
        if total and done >= total:
            finished.add(label)
            took = time.perf_counter() - started[label]
            typer.echo(f"evalsig: {label}: done in {took:.2f} s", err=True)

    return show
