"""Generic long-format tables: CSV / TSV, JSON Lines, JSON and Parquet.

One row per (item, run) with an item id column, a score column, and optionally run and
cluster columns. Only the needed columns are kept while streaming, so memory grows with
the number of rows, not with the width of the file. JSON(L) fields may be nested and are
then named with dots (``metadata.subject``). A JSON file may also be one object
``{item_id: score}``.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evalsig.data.build import table_from_long, table_from_mapping
from evalsig.data.readers.base import Columns, ReadOptions, open_text, resolve_columns, stem
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError, FormatError

__all__ = ["CSV", "JSON", "JSONL", "PARQUET"]

_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}


def _suffixes(path: Path) -> list[str]:
    return [s for s in path.suffixes if s != ".gz"]


class _Rows:
    """Accumulates the needed columns of a long table, row by row."""

    def __init__(self, columns: Columns, unit: str = "line") -> None:
        self.columns = columns
        self.unit = unit
        self.ids: list[object] = []
        self.scores: list[object] = []
        self.runs: list[object] | None = [] if columns.run else None
        self.clusters: list[object] | None = [] if columns.cluster else None
        self.lines: list[int] = []

    def add(self, line: int, item: object, score: object, run: object, cluster: object) -> None:
        self.lines.append(line)
        self.ids.append(item)
        self.scores.append(score)
        if self.runs is not None:
            self.runs.append(run)
        if self.clusters is not None:
            self.clusters.append(cluster)

    def table(self, source: str) -> ScoreTable:
        scores = np.empty(len(self.scores), dtype=object)
        scores[:] = self.scores
        return table_from_long(
            self.ids,
            scores,
            runs=self.runs,
            clusters=self.clusters,
            source=source,
            fields={
                "id": self.columns.id,
                "score": self.columns.score,
                "run": self.columns.run or "run",
                "cluster": self.columns.cluster or "cluster",
            },
            row_names=_RowNames(self.lines, self.unit),
            notes=self.columns.detected,
        )


class _RowNames(Sequence[str]):
    """Row names for messages ('line 17', 'record 3'), computed on demand."""

    def __init__(self, lines: list[int], unit: str) -> None:
        self._lines = lines
        self._unit = unit

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # no slicing needed
        return f"{self._unit} {self._lines[i]}"


def _parse_number(text: str, *, source: str, line: int, column: str) -> object:
    """A CSV score: a number, or true/false; anything else is kept for the error message."""
    if text in _TRUE:
        return 1.0
    if text in _FALSE:
        return 0.0
    try:
        return float(text)
    except ValueError:
        if text.strip() == "":
            raise FormatError(
                f"{source}: line {line}: column {column!r} is empty; every row needs a score."
            ) from None
        return text


class _CsvReader:
    name = "csv"

    def sniff(self, path: Path) -> bool:
        return bool(_suffixes(path)) and _suffixes(path)[-1] in (".csv", ".tsv")

    def read(self, path: Path, options: ReadOptions) -> Mapping[str, ScoreTable]:
        source = str(path)
        delimiter = "\t" if _suffixes(path)[-1:] == [".tsv"] else ","
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            reader = csv.reader(f, delimiter=delimiter, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                raise FormatError(f"{source}: the file is empty (no header line).") from None
            except (csv.Error, UnicodeDecodeError) as exc:
                raise FormatError(f"{source}: line 1: {_reason(exc)}") from None
            columns = resolve_columns(header, options, source=source)
            index = {name: i for i, name in enumerate(header)}
            want = [index[columns.id], index[columns.score]]
            run_i = index[columns.run] if columns.run else None
            cluster_i = index[columns.cluster] if columns.cluster else None
            rows = _Rows(columns)
            line = 1
            try:
                for record in reader:
                    line = reader.line_num
                    if not record:
                        continue
                    if len(record) != len(header):
                        raise FormatError(
                            f"{source}: line {line} has {len(record)} fields but the header has "
                            f"{len(header)}; is the line truncated or a delimiter unquoted?"
                        )
                    rows.add(
                        line,
                        record[want[0]],
                        _parse_number(
                            record[want[1]], source=source, line=line, column=columns.score
                        ),
                        None if run_i is None else record[run_i],
                        None if cluster_i is None else record[cluster_i],
                    )
            except (csv.Error, UnicodeDecodeError) as exc:
                raise FormatError(f"{source}: line {line + 1}: {_reason(exc)}") from None
        if not rows.ids:
            raise FormatError(f"{source}: the file has a header but no rows.")
        return {stem(path): rows.table(source)}


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not valid UTF-8 text; re-save the file as UTF-8."
    return f"malformed CSV ({exc})."


def field(record: Mapping[str, Any], name: str) -> Any:
    """``record[name]``, following dots into nested objects; KeyError when absent."""
    if name in record:
        return record[name]
    value: Any = record
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(name)
        value = value[part]
    return value


def _json_score(value: Any, *, source: str, where: str, column: str) -> object:
    if value is None:
        raise FormatError(
            f"{source}: {where}: field {column!r} is null; every row needs a score "
            "(score missing answers explicitly, e.g. as 0)."
        )
    if isinstance(value, bool):
        return float(value)
    return value


def _records_to_table(
    records: Iterator[tuple[int, Mapping[str, Any]]],
    options: ReadOptions,
    *,
    source: str,
    unit: str,
) -> ScoreTable:
    rows: _Rows | None = None
    for position, record in records:
        where = f"{unit} {position}"
        if not isinstance(record, Mapping):
            raise FormatError(
                f"{source}: {where} is a JSON {type(record).__name__}, not an object; each "
                "row must be an object with the id and score fields."
            )
        if rows is None:
            rows = _Rows(resolve_columns(_flat_keys(record), options, source=source), unit)
        c = rows.columns
        try:
            rows.add(
                position,
                field(record, c.id),
                _json_score(field(record, c.score), source=source, where=where, column=c.score),
                field(record, c.run) if c.run else None,
                field(record, c.cluster) if c.cluster else None,
            )
        except KeyError as exc:
            raise FormatError(
                f"{source}: {where} has no field {exc.args[0]!r}; every row needs it."
            ) from None
    if rows is None:
        raise FormatError(f"{source}: the file has no records.")
    return rows.table(source)


def _flat_keys(record: Mapping[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key, value in record.items():
        keys.append(prefix + key)
        if isinstance(value, Mapping):
            keys.extend(_flat_keys(value, prefix + key + "."))
    return keys


class _JsonlReader:
    name = "jsonl"

    def sniff(self, path: Path) -> bool:
        return bool(_suffixes(path)) and _suffixes(path)[-1] in (".jsonl", ".ndjson")

    def read(self, path: Path, options: ReadOptions) -> Mapping[str, ScoreTable]:
        source = str(path)
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            table = _records_to_table(
                _jsonl_records(f, source), options, source=source, unit="line"
            )
        return {stem(path): table}


def _jsonl_records(lines: Any, source: str) -> Iterator[tuple[int, Any]]:
    number = 0
    try:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                yield number, json.loads(text, parse_constant=_reject_constant)
            except json.JSONDecodeError as exc:
                raise FormatError(
                    f"{source}: line {number}: not valid JSON ({exc.msg} at column {exc.colno}); "
                    "is the line truncated?"
                ) from None
    except UnicodeDecodeError:
        raise FormatError(
            f"{source}: line {number + 1}: not valid UTF-8 text; re-save the file as UTF-8."
        ) from None


def _reject_constant(name: str) -> float:
    """JSON has no NaN or Infinity; keep them as NaN so validation names the item."""
    return math.nan


class _JsonReader:
    name = "json"

    def sniff(self, path: Path) -> bool:
        return bool(_suffixes(path)) and _suffixes(path)[-1] == ".json"

    def read(self, path: Path, options: ReadOptions) -> Mapping[str, ScoreTable]:
        source = str(path)
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            try:
                document = json.load(f, parse_constant=_reject_constant)
            except json.JSONDecodeError as exc:
                raise FormatError(
                    f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}, column "
                    f"{exc.colno})."
                ) from None
            except UnicodeDecodeError:
                raise FormatError(f"{source}: not valid UTF-8 text; re-save it as UTF-8.") from None
        if isinstance(document, list):
            records = ((i, r) for i, r in enumerate(document, start=1))
            table = _records_to_table(records, options, source=source, unit="record")
        elif (
            isinstance(document, dict)
            and document
            and all(not isinstance(v, Mapping) for v in document.values())
        ):
            table = table_from_mapping(document, source=source)
        else:
            raise FormatError(
                f"{source}: expected a JSON list of records or an object {{item_id: score}}; "
                f"got a JSON {type(document).__name__}"
                + (" of objects (a harness log? pass --format)." if document else " that is empty.")
            )
        return {stem(path): table}


class _ParquetReader:
    name = "parquet"

    def sniff(self, path: Path) -> bool:
        return path.suffix == ".parquet"

    def read(self, path: Path, options: ReadOptions) -> Mapping[str, ScoreTable]:
        source = str(path)
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise DataError(
                f"{source}: reading Parquet needs pyarrow; install it with "
                "pip install 'evalsig[pandas]'."
            ) from None
        try:
            schema = pq.read_schema(path)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise FormatError(f"{source}: not a readable Parquet file ({exc}).") from None
        columns = resolve_columns(list(schema.names), options, source=source)
        names = [c for c in (columns.id, columns.score, columns.run, columns.cluster) if c]
        data = pq.read_table(path, columns=names)
        rows = _Rows(columns, "row")
        get = {name: data.column(name).to_pylist() for name in names}
        score_name = columns.score
        scores = get[score_name]
        nulls = [i for i, v in enumerate(scores) if v is None]
        if nulls:
            raise FormatError(
                f"{source}: column {score_name!r} is null in {len(nulls)} row(s) (rows "
                f"{', '.join(str(i + 1) for i in nulls[:3])}); every row needs a score."
            )
        rows.ids = get[columns.id]
        rows.scores = [float(v) if isinstance(v, bool) else v for v in scores]
        rows.runs = get[columns.run] if columns.run else None
        rows.clusters = get[columns.cluster] if columns.cluster else None
        rows.lines = list(range(1, len(rows.ids) + 1))
        return {stem(path): rows.table(source)}


CSV = _CsvReader()
JSONL = _JsonlReader()
JSON = _JsonReader()
PARQUET = _ParquetReader()
