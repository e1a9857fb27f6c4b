"""``evalsig monitor RESULTS``: watch paired results arrive and stop once the difference is clear.

Exit codes: 0 candidate better, 1 baseline better, 3 not yet resolved (the stream ended or
timed out first), 2 usage error, 4 data error; the scheme of every command.

The result's provenance names the file (``-`` for standard input), the columns read and
the size and SHA-256 of the bytes of the lines monitored: of a growing file or a stream,
what was read up to the last report.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal

import typer

from evalsig.cli.application import (
    EXIT_FAILED,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    OutputFormat,
    command,
    data_errors,
    verbosity,
)
from evalsig.cli.options import Alternative, Destination, check_level, writes_output
from evalsig.errors import DataError

if TYPE_CHECKING:
    from evalsig.data.provenance import Provenance
    from evalsig.sequential import SequentialMonitor, SequentialResult

__all__ = ["EXIT_CODES", "monitor_command"]

EXIT_CODES = {
    "candidate better": EXIT_OK,
    "baseline better": EXIT_FAILED,
    "not yet resolved": EXIT_INCONCLUSIVE,
}
STYLES = {
    "candidate better": "bold green",
    "baseline better": "bold red",
    "not yet resolved": "bold yellow",
}


Method = Literal["betting", "bernstein"]


Lines = Literal["csv", "tsv", "jsonl"]
"""How the lines are read: a CSV or TSV table, or JSON Lines."""
InputFormat = Literal["auto", Lines]


@dataclass(slots=True, eq=False)
class _Read:
    """What was read: the size and SHA-256 of the lines so far, the same when the monitor
    last reported (what its result covers), and the columns used."""

    digest: Any = field(default_factory=hashlib.sha256)
    """SHA-256 of the lines read so far (a ``hashlib`` hash object)."""
    size: int = 0
    reported: tuple[int, str] = (0, hashlib.sha256().hexdigest())
    columns: tuple[str, ...] = ()

    def feed(self, line: str) -> None:
        data = line.encode("utf-8")  # read as strict UTF-8 with newline="": the same bytes
        self.digest.update(data)
        self.size += len(data)

    def report(self) -> None:
        self.reported = (self.size, self.digest.hexdigest())


@command("monitor", example="tail -f results.jsonl | evalsig monitor - --batch 200 --stop")
@writes_output
def monitor_command(
    source: Annotated[
        str,
        typer.Argument(
            help="A CSV, TSV or JSONL file of paired results, one item per line, in arrival "
            "order; '-' reads standard input until it closes."
        ),
    ],
    baseline_column: Annotated[
        str, typer.Option(help="Column (or JSON field) of the baseline's score, in [0, 1].")
    ] = "baseline",
    candidate_column: Annotated[
        str, typer.Option(help="Column of the candidate's score, in [0, 1].")
    ] = "candidate",
    difference_column: Annotated[
        str,
        typer.Option(
            help="Column of candidate - baseline, in [-1, 1]; used when the two score "
            "columns are absent."
        ),
    ] = "difference",
    input_format: Annotated[
        InputFormat, typer.Option("--input-format", help="Input format; auto: by suffix.")
    ] = "auto",
    batch: Annotated[int, typer.Option(min=1, help="Report after every N items.")] = 100,
    confidence_level: Annotated[
        float,
        typer.Option(help="Coverage at every n at once (anytime-valid).", callback=check_level),
    ] = 0.95,
    alternative: Annotated[
        Alternative, typer.Option(help="greater: only 'candidate better' can be declared.")
    ] = "two-sided",
    method: Annotated[
        Method, typer.Option(help="betting (tighter) or bernstein (constant work per item).")
    ] = "betting",
    stop: Annotated[
        bool, typer.Option("--stop", help="Exit as soon as the difference is resolved.")
    ] = False,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Keep reading a growing file until resolved (with --stop) or until "
            "--timeout seconds pass without new lines.",
        ),
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=0.0, help="With --follow: seconds to wait for new lines.")
    ] = 60.0,
    poll: Annotated[
        float, typer.Option(min=0.001, help="With --follow: seconds between checks.")
    ] = 0.2,
    *,
    destination: Destination,
) -> None:
    """Monitor a paired comparison as results arrive, with an anytime-valid confidence sequence.

    Prints a line after every --batch items (to stderr unless --format is text) and a final
    result. Checking after every batch, and stopping whenever the sequence excludes 0, keeps
    the chance of a false 'better' below 1 - confidence level. Exit codes: 0 candidate
    better, 1 baseline better, 3 not yet resolved, 2 usage error, 4 data error (one line
    naming the line and the field; no row is ever skipped). Ctrl-C ends the stream early.
    """
    from evalsig.report.sequential import progress_line
    from evalsig.sequential import SequentialMonitor

    read = _Read()
    fmt = _format(source, input_format)
    early = False
    with data_errors():
        monitor = SequentialMonitor(
            confidence_level=confidence_level,
            alternative=alternative,
            method=method,
        )
        rows = _rows(
            _lines(source, read, follow=follow, timeout=timeout, poll=poll),
            fmt,
            (baseline_column, candidate_column, difference_column),
            "standard input" if source == "-" else source,
            read,
        )
        progress_to_stdout = destination.output_format is OutputFormat.text
        try:
            for state in _feed(monitor, rows, batch, read):
                if verbosity() != "quiet":
                    typer.echo(progress_line(state.to_dict()), err=not progress_to_stdout)
                if stop and state.resolved:
                    early = True
                    break
        except KeyboardInterrupt:
            early = True
            typer.echo(
                f"evalsig: interrupted after n = {monitor.n:,} items (rows read since the last "
                "report are not counted); the result so far follows.",
                err=True,
            )
    result = monitor.result()
    notes = result.notes
    if early:
        notes += (
            f"the input's size and SHA-256 cover the {read.reported[0]:,} bytes of the lines "
            f"read up to n = {result.n:,}, where monitoring stopped.",
        )
    result = replace(result, notes=notes, provenance=_provenance(source, fmt, read))
    destination.emit(result.to_dict(), style=STYLES[result.status], title="Sequential monitoring")
    raise typer.Exit(EXIT_CODES[result.status])


def _feed(
    monitor: SequentialMonitor, rows: Iterator[tuple[float, float | None]], batch: int, read: _Read
) -> Iterator[SequentialResult]:
    """Update the monitor every ``batch`` rows (and with the rest at the end); ``read``
    notes what the update covers (``rows`` reads no further line before it is asked)."""
    first: list[float] = []
    second: list[float] = []
    for a, b in rows:
        first.append(a)
        if b is not None:
            second.append(b)
        if len(first) == batch:
            state = monitor.update(first, second or None)
            read.report()
            yield state
            first, second = [], []
    if first:
        state = monitor.update(first, second or None)
        read.report()
        yield state
    read.report()  # blank lines after the last row


def _provenance(source: str, fmt: Lines, read: _Read) -> Provenance:
    """The file (``-`` for standard input) with the size and SHA-256 of what the result
    covers, each side's column as its metric; the version and the time."""
    from evalsig.data.provenance import STDIN, FileRecord, Origin, provenance

    size, sha256 = read.reported
    record = FileRecord(path=STDIN if source == "-" else source, size=size, sha256=sha256)
    if not read.columns:  # nothing read: no header, so no column was chosen
        return provenance(files={"input": record})
    labels = ("baseline", "candidate") if len(read.columns) == 2 else ("differences",)
    return provenance(
        {
            label: Origin(files=(record,), format=fmt, metric=column)
            for label, column in zip(labels, read.columns, strict=True)
        }
    )


def _format(source: str, chosen: InputFormat) -> Lines:
    if chosen != "auto":
        return chosen
    suffix = Path(source).suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    return "tsv" if suffix == ".tsv" else "csv"


def _lines(
    source: str, read: _Read, *, follow: bool, timeout: float, poll: float
) -> Iterator[tuple[int, str]]:
    """Numbered complete lines of ``source`` (a byte order mark dropped), each fed to
    ``read`` as it is yielded; following a file, wait for more until timeout."""
    for number, line in _raw_lines(source, follow=follow, timeout=timeout, poll=poll):
        read.feed(line)
        yield number, line.removeprefix("\ufeff") if number == 1 else line


def _raw_lines(
    source: str, *, follow: bool, timeout: float, poll: float
) -> Iterator[tuple[int, str]]:
    """Numbered lines of ``source`` as they arrive, opened by the input layer
    (:func:`evalsig.data.readers.records.open_stream`: gzip by its signature, binary
    formats named, a directory refused); following a file, wait for more until timeout."""
    from evalsig.data.readers.records import open_stream

    name = "standard input" if source == "-" else source
    with open_stream(source, follow=follow) as handle:
        number, pending, waited_since = 0, "", time.monotonic()
        while True:
            chunk = _readline(handle, name, number)
            if chunk:
                if len(pending) > MAX_LINE:
                    raise _long_line(name, number + 1)
                pending += chunk
                waited_since = time.monotonic()
                if pending.endswith("\n") or not follow:
                    number += 1
                    yield number, pending
                    pending = ""
                continue
            if not follow or time.monotonic() - waited_since >= timeout:
                if pending:  # a last line without a newline
                    yield number + 1, pending
                return
            time.sleep(poll)


MAX_LINE = 1 << 20
"""The longest line read (1 MiB): longer means binary data or a missing line break."""


def _long_line(source: str, number: int) -> DataError:
    return DataError(
        f"{source}: line {number}: longer than {MAX_LINE:,} characters with no line break; "
        "is it a binary file?"
    )


def _readline(stream: IO[str], source: str, number: int) -> str:
    """One line (at most MAX_LINE characters), or a one-line error for text that is not UTF-8."""
    try:
        line = stream.readline(MAX_LINE + 1)
    except UnicodeDecodeError:
        raise DataError(
            f"{source}: not valid UTF-8 text at or shortly after line {number + 1}; re-save "
            "it as UTF-8."
        ) from None
    if len(line) > MAX_LINE:
        raise _long_line(source, number + 1)
    return line


def _rows(
    lines: Iterator[tuple[int, str]],
    fmt: Lines,
    columns: tuple[str, str, str],
    source: str,
    read: _Read,
) -> Iterator[tuple[float, float | None]]:
    """(baseline, candidate) or (difference, None) per data line, validated; errors name
    ``source`` and the line. ``read.columns`` records the columns used. The lines are
    parsed by the input layer (:func:`evalsig.data.readers.records.parse_lines`): a table's
    header checked, JSON Lines as strict JSON, an input without rows an error."""
    from evalsig.data.readers.records import parse_lines

    names: tuple[str, ...] | None = None

    def header(found: list[str], where: object) -> None:
        nonlocal names
        names = read.columns = _fields(found, columns, f"{where} (the header)")

    records = parse_lines(
        lines,
        format=fmt,
        source=source,
        strict=True,
        what="paired results",
        on_header=header,
    )
    for where, record in records:
        if names is None:  # JSON Lines: the first record's fields
            names = read.columns = _fields(list(record), columns, str(where))
        missing = [name for name in names if name not in record]
        if missing:
            raise DataError(
                f"{where}: field {missing[0]!r} is missing; every line needs "
                f"{' and '.join(map(repr, names))}."
            )
        yield _pair([record[name] for name in names], names, str(where))


def _fields(found: list[str], columns: tuple[str, str, str], where: str) -> tuple[str, ...]:
    baseline, candidate, difference = columns
    if baseline in found and candidate in found:
        return (baseline, candidate)
    if difference in found:
        return (difference,)
    from evalsig._documents import short

    shown = ", ".join(short(f, 40) for f in found[:8])
    if len(found) > 8:
        shown += f" and {len(found) - 8} more"
    raise DataError(
        f"{where}: no {baseline!r} and {candidate!r} fields, nor {difference!r}; found "
        f"{shown or 'none'}. Name them with --baseline-column and --candidate-column, or "
        "--difference-column."
    )


def _pair(raw: list[object], names: tuple[str, ...], where: str) -> tuple[float, float | None]:
    """(baseline, candidate) scores in [0, 1], or (difference, None) with one in [-1, 1]."""
    low = -1.0 if len(names) == 1 else 0.0
    values = [_value(value, name, where, low) for value, name in zip(raw, names, strict=True)]
    return (values[0], values[1]) if len(values) == 2 else (values[0], None)


def _value(raw: object, name: str, where: str, low: float) -> float:
    """A finite number in [low, 1] from a cell or a JSON value; booleans count as 1/0."""
    value = math.nan
    if isinstance(raw, (bool, int, float)) or (isinstance(raw, str) and raw.strip()):
        try:
            value = float(raw)
        except (ValueError, OverflowError):  # not a number, or an integer beyond floats
            value = math.nan
    if not (math.isfinite(value) and low <= value <= 1.0):
        from evalsig._documents import short

        what = "a difference in [-1, 1]" if low < 0 else "a score in [0, 1]"
        raise DataError(
            f"{where}: field {name!r} is {short(raw)}, not {what}; fix or remove the row "
            "(evalsig never skips rows)."
        )
    return value
