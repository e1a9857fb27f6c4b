"""Generic tables and records: CSV / TSV, JSON Lines, JSON (also zipped) and Parquet.

One row per (item, run) with an item id and a score, and optionally run, cluster, task and
content-key columns; or, instead of a score, a prediction and an answer column (score 1
when they are equal; a missing prediction is scored wrong and counted). JSON fields may be
nested and are named with dots (``metadata.subject``). A JSON file may also be one object
``{item_id: score}``; a ``.zip`` holding one JSON file (as MMLU-Pro publishes its outputs)
is read in memory with a cap on its decompressed size.
"""

from __future__ import annotations

import csv
import fnmatch
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from evalsig.data.readers.archive import read_zip_member
from evalsig.data.readers.base import ReadOptions, open_text, resolve_columns
from evalsig.data.readers.collect import Collector, nested
from evalsig.errors import DataError, FormatError

__all__ = [
    "CSV",
    "JSON",
    "JSONL",
    "PARQUET",
    "RecordMapper",
    "binary",
    "feed_records",
    "jsonl_records",
    "loads",
]

_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
PREDICTION_NAMES = ("pred", "prediction", "predicted", "model_answer")
ANSWER_NAMES = ("answer", "gold", "target", "label", "reference")
MISSING = object()


def _suffix(path: Path) -> str:
    suffixes = [s for s in path.suffixes if s != ".gz"]
    return suffixes[-1] if suffixes else ""


def loads(line: bytes | str) -> Any:
    """Parse one JSON document fast; NaN and Infinity (non-standard) become float NaN/inf."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line, parse_constant=float)  # raises for truly malformed text


@dataclass(slots=True)
class RecordMapper:
    """Turns records (rows) into observations, for the columns the user chose or we found."""

    get: Callable[[Any, str], Any]
    """``get(record, column)``: the value, or raise KeyError."""
    parse_score: Callable[[Any], Any]
    """Turns a raw score cell into a number (CSV text); JSON values pass unchanged."""
    id: str
    score: str | None
    prediction: str | None
    answer: str | None
    run: str | None
    cluster: str | None
    key: str | None
    task: str | None
    where: tuple[tuple[str, str], ...]
    wide: tuple[str, ...] = ()
    """Score columns of a wide table, one per run (empty: one score column)."""
    null_predictions: int = 0
    empty_cells: int = 0

    @classmethod
    def build(
        cls,
        available: Sequence[str],
        options: ReadOptions,
        *,
        source: str,
        get: Callable[[Any, str], Any],
        out: Collector,
        parse_score: Callable[[Any], Any] = lambda value: value,
    ) -> RecordMapper:
        """Resolve and check the columns against those the file has."""
        prediction, answer = options.prediction_column, options.answer_column
        if (prediction is None) != (answer is None):
            raise DataError(
                "prediction_column and answer_column go together (score = prediction == "
                "answer); give both, or a score column instead."
            )
        detected: list[str] = []
        if prediction is None and options.score_column is None:
            pred = [c for c in PREDICTION_NAMES if c in available]
            gold = [c for c in ANSWER_NAMES if c in available]
            scores = [c for c in ("score", "correct", "is_correct", "acc") if c in available]
            if not scores and len(pred) == 1 and len(gold) == 1:
                prediction, answer = pred[0], gold[0]
                detected.append(f"score = {prediction!r} == {answer!r}")
        if prediction is not None:
            options = _with(options, score_column=prediction)  # satisfies the score check
        wide = _wide_columns(options.score_column, available, source)
        if wide:
            if options.run_column is not None:
                raise DataError(
                    f"{source}: score columns {', '.join(wide)} are runs of a wide table, so "
                    "there is no run column; drop run_column (--run)."
                )
            options = _with(options, score_column=wide[0])
        columns = resolve_columns(available, options, source=source)
        for name in (
            answer,
            options.key_column,
            options.task_column,
            *(w for w, _ in options.where),
        ):
            if name is not None and name not in available:
                raise FormatError(
                    f"{source}: no column {name!r}; available columns: "
                    f"{', '.join(map(repr, available))}."
                )
        out.names.update(
            {"id": columns.id, "score": prediction or columns.score}
            | ({"run": columns.run} if columns.run else {})
            | ({"cluster": columns.cluster} if columns.cluster else {})
        )
        used = {columns.id, columns.score, prediction, columns.run}
        out.offer(
            clusters=[c for c in available if c not in used],
            keys=[c for c in available if c not in used],
        )
        notes = list(columns.detected)
        if detected:
            notes.append(
                f"{source}: detected {', '.join(detected)}; a missing prediction is wrong."
            )
        out.notes.extend(notes)
        return cls(
            get=get,
            parse_score=parse_score,
            id=columns.id,
            score=None if prediction is not None else columns.score,
            prediction=prediction,
            answer=answer,
            run=columns.run,
            cluster=columns.cluster,
            key=options.key_column or answer,
            task=options.task_column,
            where=options.where,
            wide=wide,
        )

    def feed(self, record: Any, position: object, out: Collector) -> None:
        """Add one record's observation (or report it as bad)."""
        get = self.get
        try:
            for column, wanted in self.where:
                if str(get(record, column)) != wanted:
                    return
            item = get(record, self.id)
            if self.wide:
                self._feed_wide(record, item, position, out)
                return
            if self.prediction is not None and self.answer is not None:
                gold = get(record, self.answer)
                if gold is None:
                    out.bad(position, f"field {self.answer!r} (the answer) is null.")
                    return
                predicted = get(record, self.prediction)
                if predicted is None:
                    self.null_predictions += 1
                score: object = float(predicted is not None and predicted == gold)
            else:
                column = self.score or ""
                score = self.parse_score(get(record, column))
                if score is None:
                    out.bad(
                        position,
                        f"field {column!r} is null or empty; every row needs a score (score "
                        "missing answers explicitly, e.g. as 0).",
                    )
                    return
                if isinstance(score, bool):
                    score = float(score)
            out.add(
                "" if self.task is None else str(get(record, self.task)),
                item,
                score,
                position=position,
                run=None if self.run is None else get(record, self.run),
                cluster=None if self.cluster is None else get(record, self.cluster),
                key=None if self.key is None else get(record, self.key),
            )
        except KeyError as exc:
            out.bad(position, f"no field {exc.args[0]!r}; every row needs it.")

    def _feed_wide(self, record: Any, item: object, position: object, out: Collector) -> None:
        """One observation per score column (run); an empty cell is a run without the item."""
        get = self.get
        task = "" if self.task is None else str(get(record, self.task))
        cluster = None if self.cluster is None else get(record, self.cluster)
        key = None if self.key is None else get(record, self.key)
        for column in self.wide:
            score = self.parse_score(get(record, column))
            if score is None:
                self.empty_cells += 1
                continue
            score = float(score) if isinstance(score, bool) else score
            out.add(task, item, score, position=position, run=column, cluster=cluster, key=key)

    def finish(self, source: str, out: Collector) -> None:
        if self.empty_cells:
            out.notes.append(
                f"{source}: {self.empty_cells} empty cell(s) in the score columns: those runs "
                "lack those items (ragged runs; per-item means use the runs present)."
            )
        if self.null_predictions:
            out.notes.append(
                f"{source}: {self.null_predictions} record(s) have no prediction "
                f"({self.prediction!r} is null): scored as wrong."
            )


def _wide_columns(given: str | None, available: Sequence[str], source: str) -> tuple[str, ...]:
    """Several score columns (a wide table): a comma-separated list or a glob pattern."""
    if given is None or given in available or not any(c in given for c in ",*?["):
        return ()
    patterns = [p.strip() for p in given.split(",") if p.strip()]
    found = [c for c in available if any(fnmatch.fnmatchcase(c, p) for p in patterns)]
    if not found:
        raise FormatError(
            f"{source}: no column matches {given!r} (the score columns); available columns: "
            f"{', '.join(map(repr, available))}."
        )
    return tuple(found)


def _with(options: ReadOptions, **changes: Any) -> ReadOptions:
    from dataclasses import replace

    return replace(options, **changes)


# --- CSV / TSV ---------------------------------------------------------------------------


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


class _CsvReader:
    name = "csv"

    def sniff(self, path: Path, head: bytes) -> bool:
        return _suffix(path) in (".csv", ".tsv")

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        delimiter = "\t" if _suffix(path) == ".tsv" else ","
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            reader = csv.reader(f, delimiter=delimiter, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                raise FormatError(f"{source}: the file is empty (no header line).") from None
            except (csv.Error, UnicodeDecodeError) as exc:
                raise FormatError(f"{source}: line 1: {_reason(exc)}") from None
            index = {name: i for i, name in enumerate(header)}

            def get(row: Sequence[str], column: str) -> Any:
                return row[index[column]] or None

            mapper = RecordMapper.build(
                header, options, source=source, get=get, out=out, parse_score=_parse_cell
            )
            line = 1
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
                            "line truncated or a delimiter unquoted?",
                        )
                        continue
                    mapper.feed(row, f"line {line}", out)
                    count += 1
            except (csv.Error, UnicodeDecodeError) as exc:
                raise FormatError(f"{source}: line {line + 1}: {_reason(exc)}") from None
        if not count:
            raise FormatError(f"{source}: the file has a header but no rows.")
        mapper.finish(source, out)


def binary(text: Any) -> Any:
    """The binary stream under a text stream from :func:`open_text` (fast parsing of bytes)."""
    return text.buffer


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not valid UTF-8 text; re-save the file as UTF-8."
    return f"malformed CSV ({exc})."


# --- JSON records ------------------------------------------------------------------------


def _flat_keys(record: Mapping[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key, value in record.items():
        keys.append(prefix + key)
        if isinstance(value, Mapping):
            keys.extend(_flat_keys(value, prefix + key + "."))
    return keys


def feed_records(
    records: Iterator[tuple[Any, Any]], options: ReadOptions, *, source: str, out: Collector
) -> None:
    """Map JSON records to observations; the first record fixes the columns."""
    mapper: RecordMapper | None = None
    for position, record in records:
        if not isinstance(record, Mapping):
            out.bad(
                position,
                f"is a JSON {type(record).__name__}, not an object; each row must be an object "
                "with the id and score fields.",
            )
            continue
        if mapper is None:
            mapper = RecordMapper.build(
                _flat_keys(record), options, source=source, get=nested, out=out
            )
        mapper.feed(record, position, out)
    if mapper is None:
        raise FormatError(f"{source}: the file has no records.")
    mapper.finish(source, out)


class _JsonlReader:
    name = "jsonl"

    def sniff(self, path: Path, head: bytes) -> bool:
        return _suffix(path) in (".jsonl", ".ndjson")

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            feed_records(jsonl_records(binary(f), out), options, source=source, out=out)


def jsonl_records(lines: Any, out: Collector) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed)`` per non-blank line; malformed lines go to ``out.bad``."""
    for number, raw in enumerate(lines, start=1):
        try:
            yield number, loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            if not raw.strip():
                continue  # a blank line (checked only here: free for every other line)
            if isinstance(exc, UnicodeDecodeError):
                out.bad(number, "not valid UTF-8 text; re-save the file as UTF-8.")
            else:
                out.bad(
                    number,
                    f"not valid JSON ({exc.msg} at column {exc.colno}); is the line truncated?",
                )


class _JsonReader:
    name = "json"

    def sniff(self, path: Path, head: bytes) -> bool:
        return _suffix(path) == ".json" or (_suffix(path) == ".zip" and head.startswith(b"PK"))

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        if _suffix(path) == ".zip":
            name, data = read_zip_member(path, options.max_decompressed_bytes)
            source = f"{path}:{name}"
        else:
            with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
                data = binary(f).read()
        try:
            document = loads(data)
        except json.JSONDecodeError as exc:
            raise FormatError(
                f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})."
            ) from None
        except UnicodeDecodeError:
            raise FormatError(f"{source}: not valid UTF-8 text; re-save it as UTF-8.") from None
        if isinstance(document, list):
            records = ((f"record {i}", r) for i, r in enumerate(document, start=1))
            feed_records(records, options, source=source, out=out)
        elif (
            isinstance(document, dict)
            and document
            and all(not isinstance(v, Mapping) for v in document.values())
        ):
            _feed_mapping(document, out)
        else:
            raise FormatError(
                f"{source}: expected a JSON list of records or an object {{item_id: score}}; "
                f"got a JSON {type(document).__name__}"
                + (
                    " of objects (a harness log? pass --input-format)."
                    if document
                    else " that is empty."
                )
            )


def _feed_mapping(document: Mapping[str, Any], out: Collector) -> None:
    """``{item_id: score}`` or ``{item_id: [run scores]}`` (a lone score is run 0)."""
    runs = any(isinstance(value, list) for value in document.values())
    for item, value in document.items():
        if isinstance(value, list):
            if not value:
                out.bad(f"key {item!r}", "is an empty list of run scores.")
            for run, score in enumerate(value):
                out.add("", item, _bool(score), position=f"key {item!r}", run=run)
        else:
            out.add("", item, _bool(value), position=f"key {item!r}", run=0 if runs else None)


def _bool(value: object) -> object:
    return float(value) if isinstance(value, bool) else value


# --- Parquet -----------------------------------------------------------------------------


class _ParquetReader:
    name = "parquet"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix == ".parquet"

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
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
        names = list(schema.names)
        columns: dict[str, list[Any]] = {}

        def get(row: int, column: str) -> Any:
            if column not in columns:
                columns[column] = table.column(column).to_pylist()
            return columns[column][row]

        mapper = RecordMapper.build(names, options, source=source, get=get, out=out)
        wanted = [
            c
            for c in (
                mapper.id,
                mapper.score,
                mapper.prediction,
                mapper.answer,
                mapper.run,
                mapper.cluster,
                mapper.key,
                mapper.task,
                *(w for w, _ in mapper.where),
            )
            if c is not None
        ]
        table = pq.read_table(path, columns=list(dict.fromkeys(wanted)))
        for row in range(table.num_rows):
            mapper.feed(row, f"row {row + 1}", out)
        mapper.finish(source, out)


CSV = _CsvReader()
JSONL = _JsonlReader()
JSON = _JsonReader()
PARQUET = _ParquetReader()
