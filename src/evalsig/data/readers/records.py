"""Records of a table, one at a time: the one input path of the commands that read rows.

``read_records(path)`` gives ``(where, record)`` for each row of a CSV or TSV table, each
line of JSON Lines, or each element of a JSON list, gzip-compressed or not; ``where``
names the file and the line (or the record) for messages. :func:`parse_lines` does the same
for the lines of a stream that arrives over time (``evalsig monitor``), and
:func:`open_stream` opens one. Everything goes through the same guards as the score-file
readers (:mod:`evalsig.data.readers.streams`, :mod:`~evalsig.data.readers.base`):

* only regular files are read (a named pipe or a device such as ``/dev/zero`` would block
  or never end); :func:`open_stream` reads standard input, and a device as a stream whose
  lines the caller bounds;
* gzip data are recognised by their signature and decompressed in bounded steps under
  ``EVALSIG_MAX_DECOMPRESSED``; zip, bzip2, xz, Zstandard, Parquet and SQLite data are named
  for what they are, never reported as text that is not UTF-8;
* what is parsed is bounded too, not only what is decompressed: at most
  :func:`default_max_records` records (the environment variable ``EVALSIG_MAX_RECORDS``,
  else 10 million: Chatbot Arena's public logs of a few million battles fit), a line of at
  most 64 MiB, and a JSON list is parsed whole only when its count of objects is under the
  cap (else one element at a time, so the cap is exact);
* malformed records are a :class:`~evalsig.errors.FormatError` naming the file and the line:
  truncated JSON, nesting deeper than 1024 levels, text that is not UTF-8, a row whose
  number of fields differs from the header's, a blank header line or a repeated column
  name, a record holding a used field twice (``{"judge": 1, "judge": 0}``: JSON parsers silently
  keep the last value, so evalsig refuses to guess);
* an empty file, or a table without rows, is an error, never zero records.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

import orjson

from evalsig.data.readers.base import first_line_not_utf8, open_text, read_bytes
from evalsig.data.readers.delimited import choose_separator, header_problem
from evalsig.data.readers.streams import GZIP_MAGIC, GzipStream, check_file, default_cap, open_error
from evalsig.data.readers.tabular import duplicate_key, loads, suffix
from evalsig.errors import DataError, FormatError, examples

__all__ = [
    "DEFAULT_MAX_RECORDS",
    "ENV_VAR",
    "MAX_LINE",
    "RecordFormat",
    "TooManyRecords",
    "Where",
    "default_max_records",
    "open_stream",
    "parse_lines",
    "read_records",
]

ENV_VAR = "EVALSIG_MAX_RECORDS"
"""The environment variable that sets the cap on records parsed from one file."""

DEFAULT_MAX_RECORDS = 10_000_000
"""Records parsed from one file when ``EVALSIG_MAX_RECORDS`` is not set: a few hundred
bytes of memory each in the commands that hold them, so a few GiB at most."""

MAX_LINE = 64 << 20
"""The longest line read (64 MiB): longer is binary data or a missing line break."""

RecordFormat = Literal["auto", "csv", "tsv", "json", "jsonl"]
"""``json``: a JSON list of records, or (starting with ``{``) JSON Lines."""

Line = str | bytes
AnyLine = TypeVar("AnyLine", str, bytes)

_BOM = "\ufeff"
_BOM8 = _BOM.encode("utf-8")
_TEXT_WHITESPACE = re.compile(r"[ \t\r\n]*")
_SIGNATURES = (
    (b"PK\x03\x04", "a zip archive", "unzip it and pass the file inside"),
    (b"PK\x05\x06", "an empty zip archive", "pass the file it should hold"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first (xz -d)"),
    (b"\x28\xb5\x2f\xfd", "Zstandard-compressed", "decompress it first (zstd -d)"),
    (b"PAR1", "a Parquet file", "export it as CSV or JSON Lines"),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV or JSON Lines"),
)


class TooManyRecords(FormatError):
    """A file holds more records than the cap on records parsed (``EVALSIG_MAX_RECORDS``)."""


class Where:
    """A record's place: the file, and its line (tables, JSON Lines) or record (JSON list).

    Examples
    --------
    >>> where = Where("judged.csv", "line", 7)
    >>> str(where), where.short
    ('judged.csv: line 7', 'line 7')
    """

    __slots__ = ("number", "source", "unit")

    def __init__(self, source: str, unit: Literal["line", "record"], number: int) -> None:
        self.source = source
        self.unit = unit
        self.number = number
        """From 1."""

    def __str__(self) -> str:
        return f"{self.source}: {self.unit} {self.number}"

    def __repr__(self) -> str:
        return f"Where({self.source!r}, {self.unit!r}, {self.number})"

    @property
    def short(self) -> str:
        """The place without the file, for a message that has named it already."""
        return f"{self.unit} {self.number}"


def default_max_records() -> int:
    """The cap on records parsed from one file: ``EVALSIG_MAX_RECORDS`` or 10 million."""
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return DEFAULT_MAX_RECORDS
    digits = text.replace("_", "").replace(",", "")
    if not digits.isdigit() or int(digits) < 1:
        raise DataError(
            f"{ENV_VAR}={text!r} is not a number of records; give a positive whole number, "
            f"e.g. {ENV_VAR}={4 * DEFAULT_MAX_RECORDS}."
        )
    return int(digits)


def _too_many(where: Where, cap: int) -> TooManyRecords:
    return TooManyRecords(
        f"{where.source}: more than {cap:,} records (at {where.short}), evalsig's cap on "
        "records parsed from one file, so that a huge or malicious file cannot exhaust the "
        f"memory. If the file is genuine, raise the cap with the environment variable "
        f"{ENV_VAR}={4 * cap} (in Python also max_records=...)."
    )


def _binary_kind(head: bytes, source: str) -> FormatError | None:
    """The error for data that are not text: an archive, another compression, a database."""
    for signature, kind, fix in _SIGNATURES:
        if head.startswith(signature):
            return FormatError(
                f"{source}: is {kind}, not a text table (CSV, TSV, JSON or JSON Lines); {fix}."
            )
    if head.startswith(b"BZh") and head[4:10] == b"1AY&SY":
        return FormatError(
            f"{source}: is bzip2-compressed, not a text table (CSV, TSV, JSON or JSON Lines); "
            "decompress it first (bunzip2), or re-compress it with gzip."
        )
    return None


# --- files --------------------------------------------------------------------------------


def read_records(
    path: str | os.PathLike[str],
    /,
    *,
    columns: Sequence[str] = (),
    fields: Sequence[str] = (),
    separator: str | None = None,
    format: RecordFormat = "auto",
    what: str = "records",
    max_decompressed_bytes: int | None = None,
    max_records: int | None = None,
    notes: list[str] | None = None,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    """``(where, record)`` for each row of a CSV, TSV, JSON Lines or JSON file (also .gz).

    Parameters
    ----------
    path : path
        A regular file; its format from its suffix (``.csv``, ``.txt``, ``.tsv``,
        ``.jsonl``, ``.ndjson``, ``.json``, each optionally ``.gz``), else from its content
        (``[`` or ``{``: JSON).
    columns : sequence of str
        Columns every record must have (checked in the header, or in each JSON record).
    fields : sequence of str
        Further fields the caller uses: with ``columns``, a JSON record holding one of them
        twice is refused.
    separator : str, optional
        A table's field separator (default: the suffix's, or the one the header shows).
    format : {'auto', 'csv', 'tsv', 'json', 'jsonl'}
        ``json`` reads a JSON list of records, or JSON Lines when the file starts with ``{``.
    what : str
        What the file holds, for messages ("judgments", "battles").
    max_decompressed_bytes : int, optional
        The cap on gzip data's decompressed size (default ``EVALSIG_MAX_DECOMPRESSED``).
    max_records : int, optional
        The cap on records parsed (default :func:`default_max_records`).
    notes : list of str, optional
        Receives a note when the separator was detected from the header line.

    Returns
    -------
    iterator of (Where, dict)
        CSV values are strings (an empty cell is ``''``); JSON values as parsed, with
        ``NaN`` and ``Infinity`` as floats. The file is read as the iterator advances.

    Raises
    ------
    FormatError
        The file is not a regular file, is empty, is not text in a format named above, or a
        record is malformed (raised when the iteration reaches it); more records than
        ``max_records`` (:class:`TooManyRecords`).
    DataError
        A column of ``columns`` is missing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judged.csv"
    >>> _ = path.write_text("item,judge\\nq1,1\\nq2,0\\n")
    >>> [(str(w), r) for w, r in read_records(path, columns=["judge"])][0][1]
    {'item': 'q1', 'judge': '1'}
    """
    file = Path(path)
    source = str(file)
    cap = default_cap() if max_decompressed_bytes is None else max_decompressed_bytes
    limit = default_max_records() if max_records is None else max_records
    if limit < 1:
        raise DataError(f"`max_records` is {max_records!r}; give a positive number.")
    if check_file(file).st_size == 0:
        raise FormatError(f"{source}: the file is empty (0 bytes); it holds no {what}.")
    with open_text(file, max_decompressed_bytes=cap) as text:
        head = bytes(text.buffer.peek(4096)[:4096])  # type: ignore[attr-defined]
    problem = _binary_kind(head, source)
    if problem is not None:
        raise problem
    kind = _kind(file, format, head, source, what)
    wanted = list(dict.fromkeys([*columns, *fields]))
    if kind in ("csv", "tsv"):
        default = "\t" if kind == "tsv" else ","
        return _file_table(file, cap, default, separator, columns, limit, what, notes)
    start = head.removeprefix(_BOM8).lstrip(b" \t\r\n")[:1]
    if kind == "json" and start == b"[":
        return _json_list(file, cap, columns, wanted, limit, what)
    if kind == "json" and start not in (b"{", b""):
        raise FormatError(
            f"{source}: not a JSON list of records nor JSON Lines (it starts with "
            f"{head[:16]!r}); give a list of objects, or one object per line."
        )
    return _file_lines(file, cap, columns, wanted, limit, what, document=kind == "json")


def _kind(file: Path, format: RecordFormat, head: bytes, source: str, what: str) -> str:
    if format != "auto":
        return format
    name = suffix(file).lower()
    if name in (".csv", ".txt"):
        return "csv"
    if name == ".tsv":
        return "tsv"
    if name in (".jsonl", ".ndjson"):
        return "jsonl"
    if name == ".json" or head.removeprefix(_BOM8).lstrip()[:1] in (b"[", b"{"):
        return "json"
    raise FormatError(
        f"{source}: cannot tell its format: evalsig reads {what} from .csv, .tsv, .jsonl or "
        f".json files (also .gz), and "
        + (f"its name ends in {name!r}" if name else "its name has no suffix")
        + "; rename it."
    )


def _lines(
    read: Callable[[int], AnyLine], source: str, on_bad_text: Callable[[int], FormatError]
) -> Iterator[tuple[int, AnyLine]]:
    """Numbered lines from ``read(limit)``, each at most :data:`MAX_LINE` long."""
    number = 0
    while True:
        try:
            line = read(MAX_LINE + 1)
        except UnicodeDecodeError:
            raise on_bad_text(number + 1) from None
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise FormatError(
                f"{source}: line {number}: longer than {MAX_LINE:,} "
                f"{'characters' if isinstance(line, str) else 'bytes'} with no line break; "
                "is it a binary file?"
            )
        yield number, line


def _not_utf8(file: Path, cap: int) -> Callable[[int], FormatError]:
    def error(near: int) -> FormatError:
        line = first_line_not_utf8(file, max_decompressed_bytes=cap) or near
        return FormatError(f"{file}: line {line}: not valid UTF-8 text; re-save it as UTF-8.")

    return error


def _file_table(
    file: Path,
    cap: int,
    default: str,
    separator: str | None,
    columns: Sequence[str],
    limit: int,
    what: str,
    notes: list[str] | None,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    with open_text(file, max_decompressed_bytes=cap) as text:
        lines = _lines(text.readline, str(file), _not_utf8(file, cap))
        yield from _table(lines, str(file), default, separator, columns, limit, what, notes, None)


def _file_lines(
    file: Path,
    cap: int,
    columns: Sequence[str],
    fields: list[str],
    limit: int,
    what: str,
    *,
    document: bool,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    with open_text(file, max_decompressed_bytes=cap) as text:
        binary: IO[bytes] = text.buffer  # type: ignore[attr-defined]
        lines = _lines(binary.readline, str(file), _not_utf8(file, cap))
        yield from _json_lines(
            lines, str(file), columns, fields, limit, what, strict=False, document=document
        )


# --- tables -------------------------------------------------------------------------------


def _table(
    lines: Iterator[tuple[int, str]],
    source: str,
    default: str,
    separator: str | None,
    columns: Sequence[str],
    limit: int | None,
    what: str,
    notes: list[str] | None,
    on_header: Callable[[list[str], Where], None] | None,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Rows of a CSV or TSV table as dicts of the header's names to the cells' text."""
    first = next(lines, None)
    if first is None:
        raise FormatError(f"{source}: is empty: no header line, so it holds no {what}.")
    number, line = first
    line = line.removeprefix(_BOM)
    chosen, note = choose_separator(line, default, separator, source)
    reader = csv.reader(
        itertools.chain((line,), (text for _, text in lines)), delimiter=chosen, strict=True
    )
    line_offset = number - 1  # lines before the header that the caller skipped
    try:
        header = next(reader, [])
        problem = header_problem(header)
        if problem is not None:
            raise FormatError(f"{source}: line {number}: {problem}")
        _check_header(header, columns, source)
        if note is not None and notes is not None:
            notes.append(note)
        if on_header is not None:
            on_header(header, Where(source, "line", number))
        width = len(header)
        count = 0
        for cells in reader:
            if not cells or (len(cells) == 1 and not cells[0].strip()):
                continue  # a blank line
            where = Where(source, "line", reader.line_num + line_offset)
            if len(cells) != width:
                raise FormatError(
                    f"{where}: {len(cells)} fields, but the header has {width}; is the line "
                    f"truncated, or a separator ({chosen!r}) unquoted in a value? Fix or "
                    "remove the row (evalsig never skips rows)."
                )
            count += 1
            if limit is not None and count > limit:
                raise _too_many(where, limit)
            yield where, dict(zip(header, cells, strict=True))
    except csv.Error as exc:
        at = reader.line_num + line_offset
        raise FormatError(f"{source}: line {at}: {_csv_problem(exc)}") from None
    if not count:
        raise FormatError(f"{source}: the table has a header but no rows, so no {what}.")


def _check_header(header: list[str], columns: Sequence[str], source: str) -> None:
    missing = [c for c in columns if c not in header]
    if not missing:
        return
    spaced = [h for h in header if h.strip() == missing[0]]
    hint = f" (column {spaced[0]!r} has spaces around its name)" if spaced else ""
    raise DataError(
        f"{source}: no column {missing[0]!r}{hint}; the columns are {examples(header, 12)}."
    )


def _csv_problem(exc: csv.Error) -> str:
    message = str(exc)
    if "NUL" in message:
        return (
            "contains NUL bytes: binary data or UTF-16 text, not a UTF-8 table; is it the "
            "right file? Re-save it as UTF-8."
        )
    if "field limit" in message:
        return (
            f'a field is longer than {csv.field_size_limit():,} characters: is a quote (") '
            "left unclosed?"
        )
    return f"malformed CSV ({message}); check the quoting on that line."


# --- JSON ---------------------------------------------------------------------------------


class _Keys:
    """The fields a caller uses, to find a record that holds one of them twice, cheaply.

    Each quoted name is counted; when it occurs more often than there are records, the
    occurrences followed by ``,`` ``}`` or ``]`` (values equal to a name, as in
    ``"winner": "model_a"``) are taken off, and only when more than one a record is left
    is the text parsed again, exactly, by :func:`~evalsig.data.readers.tabular.duplicate_key`.
    """

    __slots__ = ("names", "quoted")

    def __init__(self, fields: Sequence[str]) -> None:
        self.names = list(dict.fromkeys(fields))
        self.quoted = [
            (quoted, quoted + b",", quoted + b"}", quoted + b"]")
            for quoted in (orjson.dumps(name.split(".")[-1]) for name in self.names)
        ]

    def __bool__(self) -> bool:
        return bool(self.names)

    def repeated(self, raw: bytes | bytearray, records: int) -> tuple[int, str, list[Any]] | None:
        """The first of the ``records`` in ``raw`` that holds a used field twice, as
        (index, field, values); None when there is none."""
        for quoted, comma, brace, bracket in self.quoted:
            found = raw.count(quoted)
            if found > records:
                found -= raw.count(comma) + raw.count(brace) + raw.count(bracket)
                if found > records:
                    return duplicate_key(raw, self.names, records)
        return None


def _duplicate_error(where: str, field: str, values: list[Any]) -> FormatError:
    shown = ", ".join(examples([v], 1) for v in values[:3])
    return FormatError(
        f"{where}: field {field!r} appears {len(values)} times (values {shown}); JSON "
        "readers keep only the last, so evalsig will not guess which is right: remove the "
        "duplicates."
    )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_error(where: str, exc: json.JSONDecodeError, *, whole: bool) -> FormatError:
    if exc.msg.startswith("nested"):
        return FormatError(f"{where}: {exc.msg}; flatten the records.")
    what = "the file" if whole else "the line"
    return FormatError(
        f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); is {what} truncated?"
    )


def _json_lines(
    lines: Iterator[tuple[int, Line]],
    source: str,
    columns: Sequence[str],
    fields: Sequence[str],
    limit: int | None,
    what: str,
    *,
    strict: bool,
    document: bool = False,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    """One JSON object per line; blank lines are skipped."""
    keys = _Keys(fields)
    parse = _strict_record if strict else _record
    count = 0
    for number, raw in lines:
        if number == 1:
            raw = raw.removeprefix(_BOM) if isinstance(raw, str) else raw.removeprefix(_BOM8)
        where = Where(source, "line", number)
        record = parse(raw, where, document and number == 1)
        if record is None:
            continue  # a blank line
        if keys:
            found = keys.repeated(raw if isinstance(raw, bytes) else raw.encode("utf-8"), 1)
            if found is not None:
                raise _duplicate_error(str(where), found[1], found[2])
        for column in columns:
            if column not in record:
                _check_fields(record, columns, where)
        count += 1
        if limit is not None and count > limit:
            raise _too_many(where, limit)
        yield where, record
    if not count:
        raise FormatError(f"{source}: holds only blank lines, so no {what}.")


def _record(raw: Line, where: Where, first_of_document: bool) -> dict[str, Any] | None:
    """One line parsed fast (NaN and Infinity as floats); None for a blank line."""
    try:
        record = loads(raw)
    except json.JSONDecodeError as exc:
        if not raw.strip():
            return None
        error = _parse_error(str(where), exc, whole=False)
        if first_of_document:
            error = FormatError(
                f"{error} A .json file holds a list of records ([{{...}}, ...]) or one "
                "record per line (JSON Lines)."
            )
        raise error from None
    except UnicodeDecodeError:
        raise FormatError(f"{where}: not valid UTF-8 text; re-save it as UTF-8.") from None
    if not isinstance(record, dict):
        raise FormatError(
            f"{where}: expected a JSON object (one record per line), got {_short(record)}."
        )
    return record


def _strict_record(raw: Line, where: Where, first_of_document: bool) -> dict[str, Any] | None:
    """One line parsed as strict JSON (see :func:`evalsig._documents.load_json`)."""
    from evalsig._documents import load_json

    if not raw.strip():
        return None
    try:
        text = raw if isinstance(raw, str) else raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{where}: not valid UTF-8 text; re-save it as UTF-8.") from None
    record = load_json(text, str(where))
    if not isinstance(record, dict):
        raise FormatError(
            f"{where}: expected a JSON object (one record per line), got {_short(record)}."
        )
    return record


def _check_fields(record: dict[str, Any], columns: Sequence[str], where: Where) -> None:
    missing = [c for c in columns if c not in record]
    if missing:
        raise DataError(f"{where}: no field {missing[0]!r}; fields: {examples(record, 8)}.")


def _json_list(
    file: Path,
    cap: int,
    columns: Sequence[str],
    fields: list[str],
    limit: int,
    what: str,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    """A JSON list of objects: parsed whole when it holds at most ``limit`` objects
    (records and the objects inside them), else one element at a time."""
    source = str(file)
    data = read_bytes(file, max_decompressed_bytes=cap)
    if data.startswith(_BOM8):
        data = data[3:]
    keys = _Keys(fields)
    if data.count(b"{") <= limit:
        records = _parse_whole(data, source)
        found = keys.repeated(data, len(records)) if keys else None
        if found is not None:
            raise _duplicate_error(f"{source}: record {found[0] + 1}", found[1], found[2])
        elements: Iterable[tuple[int, Any, str | None]] = (
            (number, record, None) for number, record in enumerate(records, start=1)
        )
    else:
        elements = _scan_list(data, source, limit)
    count = 0
    for number, record, raw in elements:
        where = Where(source, "record", number)
        if not isinstance(record, dict):
            raise FormatError(f"{where}: expected a JSON object (a record), got {_short(record)}.")
        if raw is not None and keys:
            found = keys.repeated(raw.encode("utf-8"), 1)
            if found is not None:
                raise _duplicate_error(str(where), found[1], found[2])
        _check_fields(record, columns, where)
        count += 1
        if count > limit:
            raise _too_many(where, limit)
        yield where, record
    if not count:
        raise FormatError(f"{source}: is an empty list ([]), so it holds no {what}.")


def _parse_whole(data: bytes | bytearray, source: str) -> list[Any]:
    try:
        document = loads(data)
    except json.JSONDecodeError as exc:
        raise _parse_error(f"{source}: line {exc.lineno}", exc, whole=True) from None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(
            f"{source}: line {line}: not valid UTF-8 text; re-save it as UTF-8."
        ) from None
    if not isinstance(document, list):
        raise FormatError(
            f"{source}: expected a JSON list of records, got a JSON {type(document).__name__}."
        )
    return document


def _scan_list(
    data: bytes | bytearray, source: str, limit: int
) -> Iterator[tuple[int, Any, str | None]]:
    """The elements of a JSON list one at a time (with each element's text), so that no
    more than ``limit`` are ever parsed."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(
            f"{source}: line {line}: not valid UTF-8 text; re-save it as UTF-8."
        ) from None
    del data
    decoder = json.JSONDecoder()
    skip = _TEXT_WHITESPACE.match

    def failure(message: str, at: int) -> FormatError:
        line = text.count("\n", 0, at) + 1
        column = at - text.rfind("\n", 0, at)
        return FormatError(
            f"{source}: line {line}: not valid JSON ({message} at column {column}); is the "
            "file truncated?"
        )

    at = skip(text, 0).end()  # type: ignore[union-attr]
    if text[at : at + 1] != "[":
        raise FormatError(f"{source}: expected a JSON list of records.")
    at = skip(text, at + 1).end()  # type: ignore[union-attr]
    if text[at : at + 1] == "]":
        return
    number = 0
    while True:
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise failure(exc.msg, exc.pos) from None
        except RecursionError:
            raise FormatError(
                f"{source}: record {number + 1}: nested too deeply; flatten the records."
            ) from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise failure(str(exc).split(":")[0], at) from None
        number += 1
        if number > limit:
            raise _too_many(Where(source, "record", number), limit)
        yield number, value, text[at:end]
        at = skip(text, end).end()  # type: ignore[union-attr]
        mark = text[at : at + 1]
        if mark == ",":
            at = skip(text, at + 1).end()  # type: ignore[union-attr]
            continue
        if mark == "]" and skip(text, at + 1).end() == len(text):  # type: ignore[union-attr]
            return
        raise failure("expected ',' or ']' after a record" if mark != "]" else "extra data", at)


# --- streams ------------------------------------------------------------------------------


def parse_lines(
    lines: Iterable[tuple[int, str]],
    /,
    *,
    format: Literal["csv", "tsv", "jsonl"],
    source: str,
    columns: Sequence[str] = (),
    fields: Sequence[str] = (),
    separator: str | None = None,
    strict: bool = False,
    max_records: int | None = None,
    what: str = "records",
    on_header: Callable[[list[str], Where], None] | None = None,
) -> Iterator[tuple[Where, dict[str, Any]]]:
    """``(where, record)`` for numbered lines of a stream, as :func:`read_records` reads a file.

    ``lines`` are read one at a time, as records are asked for (a stream that is still being
    written is never read ahead of the record given). ``strict`` parses JSON Lines as
    strict JSON (no NaN or Infinity, no key twice in an object, at most 64 levels: see
    :func:`evalsig._documents.load_json`). ``on_header`` is called with a table's header and
    its place before the first row. ``max_records`` None: no cap (the caller keeps no
    records). An input without records is a :class:`~evalsig.errors.FormatError`.
    """
    numbered = iter(lines)
    if format == "jsonl":
        return _json_lines(
            numbered, source, columns, [*columns, *fields], max_records, what, strict=strict
        )
    default = "\t" if format == "tsv" else ","
    return _table(numbered, source, default, separator, columns, max_records, what, None, on_header)


@contextmanager
def open_stream(
    source: str, *, follow: bool = False, max_decompressed_bytes: int | None = None
) -> Iterator[IO[str]]:
    """A UTF-8 text stream of a file that is read once, as it arrives: a file (growing, with
    ``follow``), or standard input (``-``).

    Gzip data (by the ``.gz`` suffix or the signature) are decompressed under the cap; other
    compressed or binary formats are refused by name. A directory, a socket or a named pipe
    is refused (standard input is the way to stream); a device is read as the stream it is
    (the caller bounds its lines).
    """
    cap = default_cap() if max_decompressed_bytes is None else max_decompressed_bytes
    name = "standard input" if source == "-" else source
    owned = source != "-"
    raw: Any = sys.stdin.buffer if not owned else _open_once(Path(source))
    try:
        try:
            head = bytes(raw.peek(16)[:16]) if hasattr(raw, "peek") else b""
        except OSError as exc:
            raise open_error(Path(name), exc) from None
        problem = _binary_kind(head, name)
        if problem is not None:
            raise problem
        gzipped = head.startswith(GZIP_MAGIC) or source.endswith(".gz")
        if gzipped and follow:
            raise DataError(
                f"{name}: gzip-compressed data cannot be followed as they grow; monitor the "
                "uncompressed file, or drop --follow."
            )
        content: Any = (
            io.BufferedReader(GzipStream(raw, cap, name), buffer_size=1 << 18) if gzipped else raw
        )
        text = io.TextIOWrapper(content, encoding="utf-8", errors="strict", newline="")
        try:
            yield text
        finally:
            text.detach()  # the file is closed below; standard input stays open
    finally:
        if owned:
            raw.close()


def _open_once(path: Path) -> IO[bytes]:
    """Open a file or a device for reading once; refuse a directory or a socket, and a
    named pipe (opening one waits, with no end, for a writer): standard input is the way
    to stream into a command."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise open_error(path, exc) from None
    if stat.S_ISFIFO(mode):
        raise FormatError(
            f"{path}: is a named pipe (FIFO), not a regular file; to read a stream, pipe it "
            "into standard input and give - as the path (e.g. producer | evalsig monitor -)."
        )
    if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
        check_file(path)  # raises the one-line error for what it is
    try:
        return open(path, "rb")
    except OSError as exc:
        raise open_error(path, exc) from None
