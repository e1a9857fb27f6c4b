"""CSV and TSV tables: the header checked, the separator chosen or sniffed, rows mapped.

The separator is the suffix's (``,`` for ``.csv``, tab for ``.tsv``) when the header line
holds it; otherwise, when exactly one of ``,`` ``;`` tab ``|`` appears in the header line
(outside quotes), that one, with a note (spreadsheets in many European locales export
``;``); otherwise the user names it (``separator=``, CLI ``--separator``). A UTF-8 byte
order mark is dropped from the first header name. A header with two columns of one name,
or a blank first line, is an error; columns with an empty name (as pandas writes for an
unnamed index) are allowed and cannot be chosen.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_line_not_utf8, open_text
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import FALSE_TEXT, TRUE_TEXT, RecordMapper, suffix
from evalsig.errors import DataError, FormatError

__all__ = ["CSV", "choose_separator", "header_problem"]

MAX_HEADER = 1 << 20
"""The longest header line read (1 Mi characters): longer is not a table's header."""

SEPARATORS = {",": "','", ";": "';'", "\t": "tab", "|": "'|'"}
"""The separators sniffed from a header line, and how messages name them."""

_QUOTED = re.compile(r'"(?:[^"]|"")*"')
_TRUE = TRUE_TEXT  # read as 1 and 0, noted (tabular.TEXT_BOOLEANS)
_FALSE = FALSE_TEXT
_NAMED = {"\\t": "\t", "tab": "\t", "TAB": "\t"}


def _name(separator: str) -> str:
    return SEPARATORS.get(separator, repr(separator))


def choose_separator(
    header_line: str, default: str, given: str | None, source: str
) -> tuple[str, str | None]:
    """The separator of a table and, when it was sniffed, a note saying so.

    Examples
    --------
    >>> choose_separator("item;score\\r\\n", ",", None, "a.csv")
    (';', "a.csv: fields are separated by ';', not ',' (detected from the header line).")
    >>> choose_separator('"a,b";c\\n', ",", None, "a.csv")[0]
    ';'
    >>> choose_separator("item,score\\n", ",", None, "a.csv")
    (',', None)
    """
    if given is not None:
        chosen = _NAMED.get(given, given)
        if len(chosen) != 1 or chosen in '"\r\n':
            raise DataError(
                f"separator {given!r} is not one character (or is a quote or line break); "
                "give one, e.g. ';', '|' or '\\t' (tab)."
            )
        return chosen, None
    bare = _QUOTED.sub("", header_line)
    if default in bare:
        return default, None
    found = [s for s in SEPARATORS if s in bare]
    if not found:
        return default, None  # one column: resolving the columns says what is missing
    if len(found) == 1:
        return found[0], (
            f"{source}: fields are separated by {_name(found[0])}, not {_name(default)} "
            "(detected from the header line)."
        )
    raise FormatError(
        f"{source}: line 1 (the header) could be separated by any of "
        f"{', '.join(map(_name, found))}; name the separator with --separator / separator=."
    )


def header_problem(header: Sequence[str]) -> str | None:
    """Why a header cannot be used (a blank line, a repeated name), or None.

    Examples
    --------
    >>> header_problem(["id", "score", "score"])
    "column name 'score' appears 2 times (columns 2 and 3); give each column its own name."
    >>> header_problem(["", "id", "score"]) is None
    True
    """
    if not header or header == [""]:
        return "the header line is blank; the first line must name the columns."
    positions: defaultdict[str, list[int]] = defaultdict(list)
    for number, name in enumerate(header, start=1):
        positions[name].append(number)
    repeated = [(name, at) for name, at in positions.items() if name and len(at) > 1]
    if not repeated:
        return None
    name, at = repeated[0]
    shown = ", ".join(map(str, at[:-1])) + f" and {at[-1]}"
    more = f" (and {len(repeated) - 1} more repeated name(s))" if len(repeated) > 1 else ""
    return (
        f"column name {name!r} appears {len(at)} times (columns {shown}){more}; give each "
        "column its own name."
    )


def _parse_cell(text: str | None) -> object:
    """A CSV score cell: a number, true/false, empty (missing) or the text itself."""
    if text is None or text.strip() == "":
        return None
    if text in _TRUE:
        return 1.0
    if text in _FALSE:
        return 0.0
    try:
        return float(text)
    except ValueError:
        return text


def _decoding_error(path: Path, options: ReadOptions, exc: UnicodeDecodeError) -> FormatError:
    """The error for a file that is not UTF-8, naming the line of its first bad byte."""
    line = first_line_not_utf8(path, max_decompressed_bytes=options.max_decompressed_bytes)
    where = "" if line is None else f" line {line}:"
    return FormatError(f"{path}:{where} {_reason(exc)}")


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not valid UTF-8 text; re-save the file as UTF-8."
    message = str(exc)
    if "NUL" in message:
        return (
            "contains NUL bytes: binary data or UTF-16 text, not UTF-8 CSV; is it the right "
            "file? Re-save it as UTF-8."
        )
    if "field limit" in message:
        return (
            f'a field is longer than {csv.field_size_limit():,} characters: is a quote (") '
            "left unclosed?"
        )
    return f"malformed CSV ({message}); check the quoting on that line."


class _CsvReader:
    name = "csv"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return suffix(path) in (".csv", ".tsv")

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        default = "\t" if suffix(path) == ".tsv" else ","
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            try:
                first = f.readline(MAX_HEADER + 1).removeprefix("\ufeff")
            except UnicodeDecodeError as exc:
                raise _decoding_error(path, options, exc) from None
            if not first:
                raise FormatError(f"{source}: the file is empty (no header line).")
            if len(first) > MAX_HEADER:
                raise FormatError(
                    f"{source}: line 1 (the header) is longer than {MAX_HEADER:,} characters; "
                    "is it a CSV file (binary data, or text without line breaks)?"
                )
            if "\x00" in first:
                raise FormatError(f"{source}: line 1: {_reason(csv.Error('NUL'))}")
            separator, note = choose_separator(first, default, options.separator, source)
            reader = csv.reader(itertools.chain((first,), f), delimiter=separator, strict=True)
            try:
                header = next(reader, [])
            except UnicodeDecodeError as exc:
                raise _decoding_error(path, options, exc) from None
            except csv.Error as exc:
                raise FormatError(f"{source}: line 1: {_reason(exc)}") from None
            problem = header_problem(header)
            if problem is not None:
                raise FormatError(f"{source}: line 1: {problem}")
            if note is not None:
                out.notes.append(note)
            index = {name: i for i, name in enumerate(header)}

            def get(row: Sequence[str], column: str) -> Any:
                return row[index[column]] or None

            mapper = RecordMapper.build(
                header, options, source=source, get=get, out=out, parse_score=_parse_cell
            )
            line = reader.line_num
            count = 0
            try:
                for row in reader:
                    line = reader.line_num
                    if not row:
                        continue
                    if len(row) != len(header):
                        out.bad(
                            f"line {line}",
                            f"has {len(row)} fields but the header has {len(header)}; is the "
                            f"line truncated or a separator ({_name(separator)}) unquoted?",
                        )
                        continue
                    mapper.feed(row, f"line {line}", out)
                    count += 1
            except UnicodeDecodeError as exc:
                raise _decoding_error(path, options, exc) from None
            except csv.Error as exc:
                raise FormatError(f"{source}: line {line + 1}: {_reason(exc)}") from None
        if not count:
            raise FormatError(f"{source}: the file has a header but no rows.")
        mapper.finish(source, out)


CSV = _CsvReader()
