"""The fast path for long tables: CSV, JSON Lines and Parquet read column by column.

The row readers (:mod:`~evalsig.data.readers.delimited`, :mod:`~evalsig.data.readers.tabular`)
handle every record in Python and name each bad line, at about 3 us a row. For a clean
long table this module reads the used columns with pyarrow and builds the table with
whole-array steps (codes from ``dictionary_encode``, sums from ``bincount``): the same
table, notes and checks, at the speed of reading the file. It handles only what it can
vouch for: one file, top-level columns, labels that print as Python prints them (text and
integers), numeric or true/false scores with no gap. Anything else (a missing cell, a
float id, a bad value, an error of any kind) returns None, and the row reader reads the
file again to give its exact answer or to name the line at fault.

Needs pyarrow (``pip install 'evalsig-stats[columnar]'``); without it every file takes the row path.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from evalsig.data.build import Factorized, table_from_long
from evalsig.data.readers.base import ReadOptions, open_text
from evalsig.data.readers.collect import MAX_HINT_LABELS, Collector, cluster_hints
from evalsig.data.readers.delimited import choose_separator, header_problem
from evalsig.data.readers.streams import GzipStream, over_cap
from evalsig.data.readers.tabular import (
    RecordMapper,
    binary,
    check_decoded_size,
    duplicate_key,
    flat_keys,
    loads,
    struct_leaves,
    suffix,
    text_booleans_note,
)
from evalsig.data.table import IdKind, LazyLabels, ScoreTable
from evalsig.errors import EvalsigError, examples

__all__ = ["read_columnar"]

FORMATS = ("csv", "jsonl", "parquet")

CSV_BLOCK = 1 << 22
"""Bytes of CSV parsed per block: blocks are parsed in parallel, and 4 MiB keeps both cores
busy (16 MiB blocks read an 8M-row file 10% slower); a row longer than a block makes the
file take the row reader."""

ITEMS_AS_TEXT_FROM = 16 << 20
"""Bytes of CSV text (a gzip file's size on disk counted 4 times) from which item ids are
read as plain text and coded once per run of equal neighbours (an item's runs side by
side), each run's label hashed once. Below it pyarrow codes them block by block while
parsing, hashing every row, then unifies the blocks' dictionaries: cheaper on a small file,
since coding text imports ``pyarrow.compute`` (0.05 s); the two cross near a million rows,
and at two million reading takes 10-25% less CPU (40% when each item's rows are apart)."""


class _NotHere(Exception):
    """The fast path cannot vouch for this file: the row reader takes it."""


def read_columnar(path: Path, reader: str, options: ReadOptions) -> dict[str, ScoreTable] | None:
    """Every task's table of one long table file, or None when the row reader must read it."""
    if reader not in FORMATS or not _simple(options):
        return None
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    out = Collector(options)
    out.start_file(str(path), reader)
    try:
        if reader == "csv":
            return _csv(path, options, out)
        if reader == "jsonl":
            return _jsonl(path, options, out)
        return _parquet(path, options, out)
    except (_NotHere, EvalsigError, ValueError, TypeError, KeyError, OSError, MemoryError):
        return None  # pyarrow's own errors derive from ValueError, TypeError, OSError


def _simple(options: ReadOptions) -> bool:
    """Options the fast path implements; others (wide tables, predictions) take the rows."""
    return (
        options.prediction_column is None
        and options.answer_column is None
        and not options.skip_bad_lines
        and options.metric in (None, "score")
        and options.filter is None
        and not any(c in (options.score_column or "") for c in ",*?[")
    )


# --- the three formats --------------------------------------------------------------------


def _csv(path: Path, options: ReadOptions, out: Collector) -> dict[str, ScoreTable]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    source = str(path)
    default = "\t" if suffix(path) == ".tsv" else ","
    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
        stream = binary(f)
        gzipped = isinstance(getattr(stream, "raw", None), GzipStream)
        head = bytes(stream.peek(1 << 16))
        if b"\n" not in head or b"\x00" in head:
            raise _NotHere  # a header past the buffer, or binary data: the rows say
        first = head.split(b"\n", 1)[0].decode("utf-8").removeprefix("\ufeff") + "\n"
        separator, note = choose_separator(first, default, options.separator, source)
        header = next(csv.reader([first], delimiter=separator, strict=True), [])
        if header_problem(header) is not None or "" in header:
            raise _NotHere
        if note is not None:
            out.notes.append(note)
        mapper = _mapper(header, options, source, out)
        used = _used(mapper)
        labels = _label_columns(mapper)
        one_byte = _one_byte_labels(head[:HEAD], separator, header, labels)
        text_ids = path.stat().st_size * (4 if gzipped else 1) >= ITEMS_AS_TEXT_FROM
        coded = [c for c in labels if c not in one_byte and not (text_ids and c == mapper.id)]
    text = pa.string()
    # pyarrow reads (and inflates) the file on its I/O thread while its other threads parse;
    # the bytes stay in pyarrow's buffers, checked on the way
    with ArrowChecked(path, gzipped, options.max_decompressed_bytes, source) as data:
        table = pacsv.read_csv(
            data,
            read_options=pacsv.ReadOptions(column_names=header, skip_rows=1, block_size=CSV_BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=separator),
            convert_options=pacsv.ConvertOptions(
                include_columns=used,
                column_types={
                    c: pa.dictionary(pa.int32(), text) if c in coded else text
                    for c in used
                    if c != mapper.score
                },
                strings_can_be_null=False,
                check_utf8=False,  # the stream checks every byte, used column or not
            ),
        )
    score = mapper.score or ""
    booleans = score in table.column_names and str(table.schema.field(score).type) == "bool"
    if booleans and (mapper.where or mapper.task):  # text true/false maybe in rows not kept
        raise _NotHere  # the row reader notes it where the kept rows hold it
    return _tables(table, mapper, source, out, text=True)


class ArrowChecked:
    """A file as pyarrow reads it (a gzip file inflated by pyarrow), handed to pyarrow's CSV
    parser in pyarrow buffers (``read_buffer``: no copy through Python bytes, whose fresh
    pages cost more than the parsing). On the way it applies the checks of the row reader's
    stream: the decompressed bytes stop at the cap (:func:`~evalsig.data.readers.streams.over_cap`),
    and bytes that are not UTF-8 raise UnicodeDecodeError (a ValueError: the row reader then
    names the line), every byte checked once whichever columns are used, an ASCII block at
    memory speed; pyarrow then reads the text unchecked (``check_utf8=False``). Damaged gzip
    data are pyarrow's OSError, and the row reader names the damage."""

    def __init__(self, path: Path, gzipped: bool, cap: int, source: str) -> None:
        import pyarrow as pa

        file = pa.OSFile(str(path))
        self._stream = pa.CompressedInputStream(file, "gzip") if gzipped else file
        self._left = cap if gzipped else None  # the cap is on decompressed bytes
        self._cap = cap
        self._source = source
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._pending = False  # a character cut at the end of the last block

    @property
    def closed(self) -> bool:
        return bool(self._stream.closed)

    def readable(self) -> bool:
        return True

    def __enter__(self) -> ArrowChecked:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.close()

    def read_buffer(self, size: int | None = -1) -> Any:
        if size is None or size < 0:  # the rest, but no more than the cap allows
            size = CSV_BLOCK if self._left is None else self._left + 1
        buffer = self._stream.read_buffer(size)
        if self._left is not None:
            self._left -= buffer.size
            if self._left < 0:
                raise over_cap(self._source, self._cap)
        data = np.frombuffer(buffer, dtype=np.uint8)
        if self._pending or not data.size or int(data.max()) >= 0x80:
            self._decoder.decode(memoryview(buffer), final=not data.size)
            self._pending = bool(self._decoder.getstate()[0])
        return buffer

    def read(self, size: int | None = -1) -> bytes:
        return self.read_buffer(size).to_pybytes()  # type: ignore[no-any-return]


HEAD = 1 << 16
"""Bytes at the start of a CSV file looked at to choose how to read its label columns."""


def _one_byte_labels(
    head: bytes, separator: str, header: list[str], columns: Sequence[str]
) -> set[str]:
    """Which of ``columns`` the rows in a CSV file's first bytes give one ASCII character
    each (run numbers 0-9). Such a column is read as plain text and coded from its bytes
    (:func:`_encode_ascii`), which costs less than pyarrow's dictionary; a longer label
    further on is coded as any text is."""
    lines = head.split(b"\n")[1:-1]  # the header, and a last line the buffer may cut, left out
    try:
        rows = list(csv.reader([line.decode("utf-8") for line in lines], delimiter=separator))
    except (UnicodeDecodeError, csv.Error):
        return set()
    rows = [row for row in rows if len(row) == len(header)]
    found = set()
    for column in columns:
        at = header.index(column)
        values = [row[at] for row in rows]
        if values and all(len(value) == 1 and value < "\x80" for value in values):
            found.add(column)
    return found


def _jsonl(path: Path, options: ReadOptions, out: Collector) -> dict[str, ScoreTable]:
    import pyarrow.json as pajson

    source = str(path)
    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
        stream = binary(f)
        first_line = bytes(stream.peek(1 << 16)).split(b"\n", 1)[0]
        record = loads(first_line) if first_line.strip() else None
        if not isinstance(record, dict):
            raise _NotHere
        mapper = _mapper(flat_keys(record), options, source, out)
        if any(name not in record for name in _used(mapper)):
            raise _NotHere  # a nested field: the row reader follows the dots
        table = pajson.read_json(stream, read_options=pajson.ReadOptions(block_size=1 << 24))
    if duplicate_key(first_line, mapper.fields(), 1) is not None:
        raise _NotHere
    return _tables(table, mapper, source, out, text=False)


def _parquet(path: Path, options: ReadOptions, out: Collector) -> dict[str, ScoreTable]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)
    with pq.ParquetFile(path) as parquet:
        schema = parquet.schema_arrow
        top = list(schema.names)
        mapper = _mapper(top + struct_leaves(schema), options, source, out)
        used = _used(mapper)
        if any(name not in top for name in used):
            raise _NotHere
        check_decoded_size(parquet.metadata, used, options.max_decompressed_bytes, source)
        text = [c for c in _label_columns(mapper) if pa.types.is_string(schema.field(c).type)]
    with pq.ParquetFile(path, read_dictionary=text) as parquet:  # labels stay coded
        table = parquet.read(columns=used)
    return _tables(table, mapper, source, out, text=False)


def _mapper(
    available: Sequence[str], options: ReadOptions, source: str, out: Collector
) -> RecordMapper:
    """The row reader's column choice (with its notes), refused when it reads wide."""
    mapper = RecordMapper.build(available, options, source=source, get=_no_rows, out=out)
    if mapper.wide or mapper.prediction is not None or mapper.score is None:
        raise _NotHere
    return mapper


def _no_rows(record: Any, column: str) -> Any:
    raise _NotHere


def _label_columns(mapper: RecordMapper) -> list[str]:
    """Columns used only as item, run or cluster labels: read dictionary-encoded, so each
    distinct label is one string and the rows are integer codes (none is filtered, hinted
    or named as a model, which want plain text)."""
    plain = {mapper.model, mapper.key, mapper.task, *mapper.hints, *(w for w, _ in mapper.where)}
    return [c for c in (mapper.id, mapper.run, mapper.cluster) if c is not None and c not in plain]


def _used(mapper: RecordMapper) -> list[str]:
    model = [mapper.model] if mapper.model is not None else []
    return list(dict.fromkeys([*mapper.fields(), *mapper.hints, *model]))


# --- columns to tables --------------------------------------------------------------------


def _tables(
    table: Any, mapper: RecordMapper, source: str, out: Collector, *, text: bool
) -> dict[str, ScoreTable]:
    """The row reader's tables, from whole columns (see :meth:`Collector.tables`)."""
    if table.num_rows == 0:
        raise _NotHere
    keep = None
    for column, wanted in mapper.where:
        import pyarrow.compute as pc  # 0.05 s to import: only filters and model names need it

        labels = _text(table.column(column), text, empty_ok=True)
        match = pc.equal(labels, text_array([str(wanted)])[0])
        keep = match if keep is None else pc.and_(keep, match)
    if keep is not None:
        table = table.filter(keep)
    if mapper.model is not None and _distinct_count(table.column(mapper.model)) > 1:
        raise _NotHere  # rows of several models: the row reader says which
    hinted = {}
    if mapper.hints and out.options.cluster_column is None:  # over all tasks, as the rows
        hinted = {c: _hint_labels(table.column(c), text) for c in mapper.hints}
    tasks = [""]
    task_codes = None
    if mapper.task is not None:
        task_codes, names = _encode(table.column(mapper.task), text)
        tasks = [str(name) for name in names]
    options = out.options
    chosen = tasks if options.task is None else [options.task]
    if options.task is not None and options.task not in tasks:
        raise _NotHere
    found: dict[str, ScoreTable] = {}
    for number, task in enumerate(tasks):
        if task not in chosen:
            continue
        part = table if task_codes is None else table.filter(arrow(task_codes == number))
        found[task] = _table(part, mapper, source, out, task, hinted, text=text)
    if not found:
        raise _NotHere
    return found


def _distinct_count(column: Any) -> int:
    import pyarrow.compute as pc

    return int(pc.count_distinct(column).as_py())


def _table(
    table: Any,
    mapper: RecordMapper,
    source: str,
    out: Collector,
    task: str,
    hinted: dict[str, set[object]],
    *,
    text: bool,
) -> ScoreTable:
    ids = Factorized(*_encode(table.column(mapper.id), text, lazy=True))
    id_kind = arrow_id_kind(table.column(mapper.id), text)
    runs = clusters = keys = None
    if mapper.run is not None:
        runs = Factorized(*_encode(table.column(mapper.run), text))
    if mapper.cluster is not None:
        clusters = Factorized(*_encode(table.column(mapper.cluster), text))
    if mapper.key is not None:
        keys = Factorized(*_encode(table.column(mapper.key), text, missing_ok=True))
        if keys.codes.size and keys.codes.max() < 0:
            keys = None  # the row reader passes no keys when none is present
    notes = list(out.notes)
    if hinted:
        notes += cluster_hints(hinted, len(ids.uniques))
    scores = table.column(mapper.score or "")
    if text and str(scores.type) == "bool":  # CSV text true/false, as the row reader notes
        notes.append(text_booleans_note(source, mapper.score or ""))
    label = source + (f" (task {examples([task], 1)})" if task else "")
    found = table_from_long(
        ids,
        _scores(scores),
        runs=runs,
        clusters=clusters,
        keys=keys,
        source=label,
        fields={"id": "item id", "score": "score", "run": "run", "cluster": "cluster"} | out.names,
        notes=tuple(notes),
        id_kind=id_kind,
    )
    return replace(found, origin=out.origin([0], task=task, metric="score", filter=None))


def arrow_id_kind(column: Any, text: bool) -> IdKind | None:
    """How a column wrote its item ids (:attr:`ScoreTable.id_kind`), as the row reader
    says it: None for a CSV (``text``), whose cells have no type."""
    import pyarrow as pa

    if text:
        return None
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return "number"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "text"
    return None


def _text(column: Any, text: bool, *, empty_ok: bool = False) -> Any:
    """A column as the strings Python's ``str()`` gives its values, or _NotHere; an empty
    string only with ``empty_ok`` and not from a CSV (the row reader's None)."""
    import pyarrow as pa

    column = _decoded(column)
    kind = column.type
    if pa.types.is_string(kind):
        if column.null_count or ((text or not empty_ok) and _has_empty(column)):
            raise _NotHere  # an empty label is an error to the row reader (None in a CSV)
        return column
    if pa.types.is_integer(kind) and not column.null_count:
        return column.cast(pa.string())  # str(int) and pyarrow print integers alike
    raise _NotHere


def _has_empty(column: Any) -> bool:
    """Whether a text column with no null holds an empty string: two equal neighbouring
    offsets (comparing with a Python ``""`` would import pandas)."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for chunk in chunks:
        offsets = np.frombuffer(
            chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1, offset=chunk.offset * 4
        )
        if len(chunk) and bool((offsets[1:] == offsets[:-1]).any()):
            return True
    return False


def _decoded(column: Any) -> Any:
    """A dictionary-encoded text column (a pandas categorical) as plain text."""
    import pyarrow as pa

    kind = column.type
    if pa.types.is_dictionary(kind) and pa.types.is_string(kind.value_type):
        return column.cast(pa.string())
    return column


def _encode(
    column: Any,
    text: bool,
    *,
    missing_ok: bool = False,
    empty_ok: bool = False,
    lazy: bool = False,
) -> tuple[Any, Any]:
    """Codes and labels in order of first appearance; with ``missing_ok`` (content keys),
    -1 for a row without one (null, or an empty CSV cell), and an empty JSON string is a
    key (``empty_ok``); as an id, run or cluster label it is an error to the row reader.
    Labels come as strings, or with ``lazy`` (item ids) as :class:`ArrowLabels` (text) or
    :class:`IntegerLabels` (integers)."""
    import pyarrow as pa

    if missing_ok:
        import pyarrow.compute as pc

        column = _decoded(column)
        present = pc.is_valid(column)
        if text and pa.types.is_string(column.type):
            filled = pc.fill_null(pc.binary_length(column), 0)
            present = pc.and_(present, pc.greater(filled, 0))
        mask = _numpy(present).astype(bool)
        codes = np.full(len(column), -1, dtype=np.int64)
        codes[mask], uniques = _encode(column.filter(present), text, empty_ok=True)
        return codes, uniques
    if _is_text_dictionary(column.type) and not column.null_count:
        codes, labels = _encode_dictionary(column, text, empty_ok)
        return codes, _labels(labels, lazy)
    column = _decoded(column)
    kind = column.type
    if column.null_count or not (pa.types.is_string(kind) or pa.types.is_integer(kind)):
        raise _NotHere
    if pa.types.is_string(kind):
        coded = _encode_ascii(column)
        if coded is not None:
            return coded
    labels = column if pa.types.is_string(kind) else _whole(column)  # text: no copy yet
    if pa.types.is_integer(labels.type) and len(labels):
        coded = _encode_small_integers(_numpy(labels), lazy)
        if coded is not None:
            return coded
    starts = _run_starts(labels)
    if len(starts) <= len(labels) // 2:  # repeated labels side by side: code each run once
        encoded = _whole(labels.take(arrow(starts))).dictionary_encode()
        lengths = np.diff(np.append(starts, len(labels)))
        codes = np.repeat(_numpy(encoded.indices), lengths)
    else:
        encoded = _whole(labels).dictionary_encode()
        codes = _numpy(encoded.indices)
    uniques = _text(encoded.dictionary, text, empty_ok=empty_ok)  # distinct values only
    return codes, _labels(uniques, lazy)  # int32 codes: tables take narrow codes without a copy


def _whole(column: Any) -> Any:
    """A pyarrow array in one piece (a chunked array's chunks combined)."""
    import pyarrow as pa

    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _encode_ascii(column: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_encode` for text labels of one ASCII character each (run numbers 0-9): each
    label is its byte, so the codes come from the bytes with no hashing and no copy of the
    text; None when a label is of another length, or not ASCII."""
    import pyarrow as pa

    parts = []
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        if not len(chunk):
            continue
        offsets = np.frombuffer(
            chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1, offset=chunk.offset * 4
        )
        start = int(offsets[0])
        if int(offsets[-1]) - start != len(chunk) or _has_empty(chunk):
            return None  # n bytes and none empty: one byte each
        parts.append(
            np.frombuffer(chunk.buffers()[2], dtype=np.uint8, count=len(chunk), offset=start)
        )
    if not parts:
        return None
    keys = np.concatenate(parts) if len(parts) != 1 else parts[0]
    if int(keys.max()) >= 0x80:
        return None  # a byte of a longer character
    codes, order = first_appearance(keys, 0x80)
    labels = np.empty(len(order), dtype=object)
    labels[:] = [chr(byte) for byte in order.tolist()]
    return codes, labels


def _encode_dictionary(column: Any, text: bool, empty_ok: bool) -> tuple[Any, Any]:
    """:func:`_encode` for a dictionary-encoded text column (read so by the CSV and Parquet
    readers, or a pandas categorical): the chunks' dictionaries unified, then the indices
    renumbered in order of first appearance (a categorical's dictionary is sorted, and may
    hold values no row uses); the labels as a pyarrow text array."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.unify_dictionaries()
        dictionary = column.chunk(0).dictionary if column.num_chunks else None
        indices = [_numpy(chunk.indices) for chunk in column.chunks]
        narrow = _narrowest(len(dictionary) if dictionary is not None else 0)
        values = np.concatenate(indices, dtype=narrow) if len(indices) != 1 else indices[0]
    else:
        dictionary, values = column.dictionary, _numpy(column.indices)
    if dictionary is None or not len(values):
        raise _NotHere
    codes, order = first_appearance(values, len(dictionary))
    if len(order) != len(dictionary) or (order[1:] < order[:-1]).any():
        dictionary = dictionary.take(arrow(order))  # else in order already: no copy
    return codes, _text(dictionary, text, empty_ok=empty_ok)


def _narrowest(size: int) -> np.dtype:
    """The narrowest integer type of codes in ``[0, size)``: run numbers in int8 take a
    quarter of int32's memory (and new memory costs page faults)."""
    return next(
        np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64) if size <= np.iinfo(t).max
    )


def _is_text_dictionary(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_dictionary(kind) and pa.types.is_string(kind.value_type))


def _encode_small_integers(values: np.ndarray, lazy: bool = False) -> tuple[np.ndarray, Any] | None:
    """:func:`_encode` for integers of a narrow range (run numbers, seeds, document ids), in
    O(n) steps: the values less their minimum are codes in ``[0, range)`` for
    :func:`first_appearance`; with ``lazy``, the labels as :class:`IntegerLabels`."""
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * len(values) + 1024:
        return None
    if low == 0:
        offsets = values  # already codes in [0, range): no copy
    elif values.dtype.kind == "u":  # subtract in the unsigned type: values may pass 2**63
        offsets = (values - values.dtype.type(low)).astype(np.int64)
    else:
        offsets = values.astype(np.int64) - low
    codes, present = first_appearance(offsets, high - low + 1)
    labels = IntegerLabels(present, low)
    return codes, labels if lazy else labels.strings()


FIRST_LOOK = 4096
"""Values :func:`first_appearance` looks at first: when every value is among them (run
numbers), their order of first appearance is the whole array's."""


def first_appearance(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Integers in ``[0, size)`` renumbered in order of first appearance: ``(codes, order)``
    with ``order[codes] == values``. When every value is met in the first
    :data:`FIRST_LOOK` (run numbers), those give the order; when values first appear in
    ascending order (runs 0, 1, ... of each item; sorted ids; a dictionary built while
    reading) the codes are the values' ranks (the values themselves with no gap);
    otherwise each value's first position comes from a reversed scatter and the codes
    from its rank."""
    if size <= FIRST_LOOK:
        distinct, first = np.unique(values[:FIRST_LOOK], return_index=True)
        order = distinct[np.argsort(first)]
        if len(order) == size and (order == distinct).all():
            return values, order  # all met in the head, in ascending order: no pass needed
        rank = np.full(size, -1, dtype=_narrowest(len(order)))
        rank[order] = np.arange(len(order))
        codes = rank[values]
        if codes.min() >= 0:  # every value met in the head
            return codes, order
    if _counts_up(values, size):
        return values, np.arange(size)
    seen = np.bincount(values, minlength=size) > 0
    if _first_seen_ascending(values, int(np.count_nonzero(seen))):
        present = np.flatnonzero(seen)  # first appearances in ascending order: rank = order
        if len(present) == size:
            return values, present  # no gaps: the values are the codes
        return (np.cumsum(seen) - 1)[values], present
    first = np.full(size, len(values), dtype=np.int64)
    first[values[::-1]] = np.arange(len(values) - 1, -1, -1)  # the earliest write lands last
    present = np.flatnonzero(first < len(values))
    present = present[np.argsort(first[present], kind="stable")]
    rank = np.empty(size, dtype=np.int64)
    rank[present] = np.arange(len(present))
    return rank[values], present


def _counts_up(values: np.ndarray, size: int) -> bool:
    """Whether values are 0, 1, ..., size - 1 in order, each repeated any number of times
    (sorted ids; a dictionary built while reading them): steps of 0 or 1 from 0."""
    if values[0] != 0 or values[-1] != size - 1 or not (values[1:] >= values[:-1]).all():
        return False
    return int(np.count_nonzero(values[1:] != values[:-1])) == size - 1  # sorted: no gap


def _first_seen_ascending(values: np.ndarray, n_distinct: int) -> bool:
    """Whether each value not seen before is larger than all before it. Quick when every
    distinct value is met within a short prefix (run numbers 0, 1, ... per item); else the
    running maximum must rise exactly ``n_distinct - 1`` times, since it rises only at a
    new value (sorted ids; a dictionary's indices read in order: ``0 1 0 2 1 3``)."""
    head = values[:4096]
    distinct, first = np.unique(head, return_index=True)
    if len(distinct) == n_distinct:
        return bool(np.all(np.diff(first) > 0))
    peak = np.maximum.accumulate(values)
    return int(np.count_nonzero(peak[1:] > peak[:-1])) + 1 == n_distinct


def _run_starts(labels: Any) -> np.ndarray:
    """Where each run of equal neighbouring labels starts (an item's runs, side by side)."""
    import pyarrow.compute as pc

    if len(labels) < 2:
        return np.arange(len(labels))
    changed = pc.not_equal(labels.slice(1), labels.slice(0, len(labels) - 1))
    return np.concatenate(([0], np.flatnonzero(_numpy(changed)) + 1))


def _numpy(array: Any) -> np.ndarray:
    """A pyarrow numeric or true/false array with no null as numpy, read from its buffers
    (``to_numpy`` would import pandas, half a second, for nothing)."""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if array.null_count:
        raise _NotHere
    if pa.types.is_boolean(array.type):
        array = array.cast(pa.uint8())
    dtype = np.dtype(array.type.to_pandas_dtype())
    data = array.buffers()[1]
    if data is None:
        return np.empty(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def arrow(values: np.ndarray) -> Any:
    """A numpy integer or bool array as a pyarrow array, sharing its memory (``pa.array``
    on numpy imports pandas)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        import pyarrow.compute as pc

        return pc.cast(arrow(values.view(np.uint8)), pa.bool_())
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def text_array(values: Sequence[str]) -> Any:
    """Python strings as a pyarrow string array, from its buffers (``pa.array`` on Python
    objects imports pandas)."""
    import pyarrow as pa

    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), data])


class ArrowLabels(LazyLabels):
    """Item labels as the pyarrow text array read them; two files' labels compare equal
    with pyarrow (their bytes), and become Python strings only when read."""

    __slots__ = ("_array",)

    def __init__(self, array: Any) -> None:
        super().__init__(len(array))
        self._array = array

    def _make(self) -> np.ndarray:
        return _objects(self._array)

    def same_as(self, other: LazyLabels) -> bool | None:
        if not isinstance(other, ArrowLabels):
            return None
        return bool(self._array.equals(other._array))


class IntegerLabels(LazyLabels):
    """Integer item ids as the numbers read (``low`` plus each of ``offsets``), made into
    the text Python prints for them only when read."""

    __slots__ = ("_low", "_offsets")

    def __init__(self, offsets: np.ndarray, low: int) -> None:
        super().__init__(len(offsets))
        self._offsets, self._low = offsets, low

    def _make(self) -> np.ndarray:
        out = np.empty(len(self._offsets), dtype=object)
        out[:] = [str(v + self._low) for v in self._offsets.tolist()]  # exact past 2**63
        return out

    def same_as(self, other: LazyLabels) -> bool | None:
        if not isinstance(other, IntegerLabels):
            return None
        return self._low == other._low and bool(np.array_equal(self._offsets, other._offsets))


def _labels(labels: Any, lazy: bool) -> Any:
    """Text labels as :class:`ArrowLabels` (``lazy``) or as strings now."""
    return ArrowLabels(labels) if lazy else _objects(labels)


def _objects(labels: Any) -> np.ndarray:
    """Text labels as a numpy object array (through Python lists: no pandas import)."""
    out = np.empty(len(labels), dtype=object)
    out[:] = labels.to_pylist()
    return out


def _scores(column: Any) -> np.ndarray:
    """Scores as numbers (true/false as 1/0), with no gap: 0/1 integers as int8 (an eighth
    of the int64 that CSV reads; the float64 sums come from them exactly), others in the
    type read."""
    import pyarrow as pa

    kind = column.type
    if column.null_count or not (
        pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
    ):
        raise _NotHere
    if pa.types.is_floating(kind):
        return _numpy(column)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = [_numpy(chunk) for chunk in chunks if len(chunk)]
    if parts and all(part.min() >= 0 and part.max() <= 1 for part in parts):
        return np.concatenate(parts, dtype=np.int8, casting="unsafe")  # 0 and 1 only
    return _numpy(column)


def _hint_labels(column: Any, text: bool) -> set[object]:
    """Up to MAX_HINT_LABELS + 1 distinct labels, as the row reader counts them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if not (pa.types.is_string(kind) or pa.types.is_integer(kind)):
        raise _NotHere
    values = pc.unique(column.drop_null())
    if text:
        values = values.filter(pc.not_equal(values, ""))
    return set(values.slice(0, MAX_HINT_LABELS + 1).to_pylist())
