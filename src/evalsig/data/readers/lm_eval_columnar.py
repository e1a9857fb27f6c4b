"""lm-evaluation-harness samples read column by column: the fast path of the lm-eval reader.

The row reader (:mod:`~evalsig.data.readers.lm_eval`) parses every sample in Python, long
prompts and responses included. Here pyarrow's JSON reader is given only the fields the
table needs (``doc_id``, ``filter``, ``metrics``, the metrics' values and the content key)
and skips the rest without building it: no Python object is made for the text of the
responses, and memory does not grow with it. It returns the row reader's tables (items,
scores, keys, source, notes) or None when it cannot vouch for them; the row reader then
reads the files again and gives its exact answer or error.

It vouches for a samples file (``.jsonl``, ``.json`` holding JSON Lines, optionally
``.gz``), or a model folder whose tasks have one samples file each, when:

* the first sample has a string ``filter`` and a ``metrics`` list (v0.4.7 and later), or
  no filter (v0.4.3 - v0.4.6) and no document twice (repeated documents are filters
  named by occurrence); every sample has the first one's ``metrics`` list, or none has
  one and a metric is chosen (then a metric is any number field, which a later sample
  may add: only the chosen one is read);
* ``doc_id`` is an integer, every listed metric a number (no corpus metric) and the key
  (``doc_hash`` or ``key_column``) a string or absent, on every sample;
* the lines pass the checks of :class:`_Lines`: one JSON object per line, as the row
  reader parses them, and UTF-8 (three spellings only pyarrow reads are not looked for in
  the skipped fields: see there);
* the task, metric and filter are chosen as :meth:`Collector.tables` would choose them
  without an error; no clusters, ``where`` or ``skip_bad_lines``.

An uncompressed file is memory-mapped: pyarrow parses it (on its threads) while a thread
checks its lines; a gzip file is decompressed in bounded steps, as the row reader does, and
checked block by block as pyarrow reads it.

Needs pyarrow (``pip install 'evalsig-stats[columnar]'``); without it every file takes the rows.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from evalsig.data.build import Factorized, table_from_long
from evalsig.data.readers.base import ReadOptions, open_text
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.columnar import (
    _encode,
    _NotHere,
    _numpy,
    arrow,
    arrow_id_kind,
    text_array,
)
from evalsig.data.readers.lm_eval import (
    _check_against_results,
    _legacy_task,
    _metric_names,
    _number,
    _one_model_folder,
    _results,
    _samples_in,
    known_release,
    layout_of,
    task_of,
)
from evalsig.data.readers.streams import GzipStream
from evalsig.data.readers.tabular import binary, loads
from evalsig.data.table import ScoreTable
from evalsig.errors import EvalsigError, examples

__all__ = ["read_lm_eval_columnar"]

BLOCK = 1 << 22
"""Bytes pyarrow parses at a time: a longer line is left to the rows. The blocks read ahead
of the parse are in memory."""

NAMES = {"id": "doc_id", "run": "file"}
"""How messages name the fields, as the row reader sets them."""

LARGEST_SCORE = 2.0**1023
"""The row reader takes integers below this as numbers; a float past it is refused here."""


def read_lm_eval_columnar(path: Path, options: ReadOptions) -> dict[str, ScoreTable] | None:
    """Every task's table of an lm-eval samples file or model folder, or None when the
    row reader must read it (see the module notes for what is vouched for)."""
    if not _simple(options):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        return _read(path, options)
    except (
        _NotHere,
        EvalsigError,
        pa.ArrowException,
        ValueError,
        TypeError,
        KeyError,
        OSError,
        MemoryError,
    ):
        return None  # the row reader gives its answer, or names the line at fault


def _simple(options: ReadOptions) -> bool:
    """Options the fast path implements; clusters and skipped lines take the rows."""
    return (
        options.cluster_column is None
        and not options.skip_bad_lines
        and not options.where
        and options.prediction_column is None
        and options.answer_column is None
    )


@dataclass(frozen=True, slots=True)
class _Samples:
    """The used columns of one samples file."""

    task: str
    source: str
    table: Any
    """A pyarrow table: doc_id, filter, metrics, each metric, the key."""
    metrics: list[str]
    filtered: bool
    """Whether the samples name their filter (v0.4.7 and later)."""
    key: str
    documents: int
    """Distinct doc_ids (the row reader's count for the results file's check)."""
    layout: str | None = None
    """The harness version, as the row reader names it (:func:`layout_of`)."""


def _read(path: Path, options: ReadOptions) -> dict[str, ScoreTable]:
    out = Collector(options)
    folder, files = _files(path, out)
    if not known_release(_results(folder)):
        raise _NotHere  # the row reader says the release is unknown
    samples = [_samples(file, task, options) for file, task in files]
    documents = {s.task: s.documents for s in samples}
    _check_against_results(folder, [file for file, _ in files], out, documents)
    return _tables(samples, out)


def _files(path: Path, out: Collector) -> tuple[Path, list[tuple[Path, str]]]:
    """The folder the results file is looked for in, and each samples file with its task,
    as the row reader finds them."""
    if path.is_dir():
        folder = path if _samples_in(path) else _one_model_folder(path, out)
        found = _samples_in(folder)
        if len({task for _, task in found}) < len(found):
            raise _NotHere  # repeated runs of a task: the row reader numbers the files
        return folder, found
    if path.suffix == ".json" and task_of(path) is None:
        raise _NotHere  # a results file: the row reader explains
    task = task_of(path) or _legacy_task(path, _results(path.parent)) or path.name.split(".")[0]
    return path.parent, [(path, task)]


# --- one samples file ----------------------------------------------------------------------


def _samples(path: Path, task: str, options: ReadOptions) -> _Samples:
    import pyarrow as pa

    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
        stream = binary(f)
        lines = _Lines()
        gzipped = isinstance(getattr(stream, "raw", None), GzipStream)
        with _Decompressed(stream, lines) if gzipped else _Mapped(path, lines) as source:
            first = loads(source.first_line())
            if type(first) is not dict or type(first.get("doc_id")) is not int:
                raise _NotHere
            metrics = _chosen_metrics(first, options)
            filtered = _filtered(first)
            key = options.key_column or "doc_hash"
            fields = ["doc_id", "filter", "metrics", key, *metrics]
            if len(set(fields)) < len(fields):
                raise _NotHere  # the key or a metric named like another used field
            table = source.table(
                pa.schema(
                    [
                        ("doc_id", pa.int64()),
                        ("filter", pa.string()),
                        ("metrics", pa.list_(pa.string())),
                        (key, pa.string()),
                        *[(metric, pa.float64()) for metric in metrics],
                    ]
                )
            )
    lines.vouch(table.num_rows)
    documents = _check_columns(table, first, metrics, filtered)
    layout = layout_of(path, first)
    return _Samples(task, str(path), table, metrics, filtered, key, documents, layout)


def _chosen_metrics(first: dict[str, Any], options: ReadOptions) -> list[str]:
    """The metric columns to read: the ``metrics`` list, or without one the chosen metric."""
    listed = first.get("metrics")
    if isinstance(listed, list):
        names = [name for name in listed if isinstance(name, str)]
        if (
            not names
            or len(names) < len(listed)
            or len(set(names)) < len(names)
            or not all(name in first and _number(first[name]) for name in names)
        ):
            raise _NotHere  # an odd list, or a corpus metric: the row reader explains
        return names
    if "metrics" in first or options.metric in (None, "score"):
        raise _NotHere  # a later sample may add a metric field: only a chosen one is safe
    if options.metric not in _metric_names(first):
        raise _NotHere
    return [options.metric]


def _filtered(first: dict[str, Any]) -> bool:
    """Whether the samples name their filter (v0.4.7); a filter of another type is refused."""
    kept = first.get("filter")
    if kept is not None and type(kept) is not str:
        raise _NotHere
    return kept is not None


def _check_columns(table: Any, first: dict[str, Any], metrics: list[str], filtered: bool) -> int:
    """Every sample as the first: a doc_id, the same ``metrics`` list, a number for every
    metric, a filter name on all samples (v0.4.7) or on none, each document once if none.
    Returns the number of distinct doc_ids."""
    import pyarrow.compute as pc

    rows = table.num_rows
    if rows == 0 or table.column("doc_id").null_count:
        raise _NotHere
    if isinstance(first.get("metrics"), list):
        if not _same_lists(table.column("metrics"), metrics):
            raise _NotHere
    elif table.column("metrics").null_count < rows:
        raise _NotHere
    for metric in metrics:
        scores = table.column(metric)
        if scores.null_count or not np.all(np.abs(_numpy(scores)) < LARGEST_SCORE):
            raise _NotHere  # NaN, infinite or past the range the rows read as numbers
    filters = table.column("filter")
    if filters.null_count != (0 if filtered else rows):
        raise _NotHere  # a filter on some samples only
    documents = int(pc.count_distinct(table.column("doc_id")).as_py())
    if not filtered and documents < rows:
        raise _NotHere  # a document twice: the rows name filters by occurrence
    return documents


def _same_lists(column: Any, names: list[str]) -> bool:
    """Whether every row's list of metric names is ``names``, in order."""
    import pyarrow.compute as pc

    if column.null_count:
        return False
    lengths = pc.min_max(pc.list_value_length(column))
    if not lengths["min"].as_py() == lengths["max"].as_py() == len(names):
        return False
    positions = pc.index_in(pc.list_flatten(column), value_set=text_array(names))
    if positions.null_count:
        return False
    expected = np.tile(np.arange(len(names)), len(column))
    return bool(np.array_equal(_numpy(positions), expected))


# --- columns to tables ---------------------------------------------------------------------


def _tables(samples: list[_Samples], out: Collector) -> dict[str, ScoreTable]:
    """The row reader's tables (see :meth:`Collector.tables`), for the chosen task."""
    chosen = out.options.task
    names = [s.task for s in samples]
    if chosen is not None and chosen not in names:
        raise _NotHere
    return {s.task: _table(s, out) for s in samples if chosen in (None, s.task)}


def _table(samples: _Samples, out: Collector) -> ScoreTable:

    options = out.options
    metrics = samples.metrics
    metric = options.metric if options.metric is not None else metrics[0]
    if metric not in metrics or (options.metric is None and len(metrics) > 1):
        raise _NotHere  # the row reader lists the metrics
    table = samples.table
    source = samples.source + (f" (task {examples([samples.task], 1)})" if samples.task else "")
    notes = list(out.notes)
    if samples.filtered:
        codes, filters = _encode(table.column("filter"), False)
        if options.filter is None and len(filters) > 1:
            raise _NotHere  # the row reader lists the filters
        chosen = options.filter if options.filter is not None else filters[0]
        if chosen not in filters:
            raise _NotHere
        if len(filters) > 1:
            table = table.filter(arrow(codes == list(filters).index(chosen)))
        notes.append(f"{source}: metric {metric!r}, filter {chosen!r}.")
    elif len(metrics) > 1 or metric != "score":
        notes.append(f"{source}: metric {metric!r}.")
    keys = Factorized(*_encode(table.column(samples.key), False, missing_ok=True))
    found = table_from_long(
        Factorized(*_encode(table.column("doc_id"), False, lazy=True)),
        _numpy(table.column(metric)).astype(np.float64, copy=False),
        keys=keys if keys.codes.size and keys.codes.max() >= 0 else None,
        source=source,
        fields={"id": "item id", "score": metric, "run": "run", "cluster": "cluster"} | NAMES,
        notes=tuple(notes),
        id_kind=arrow_id_kind(table.column("doc_id"), False),
    )
    origin = out.origin(
        (),
        paths=[samples.source],
        format="lm-eval",
        layout=samples.layout,
        task=samples.task,
        metric=metric,
        filter=chosen if samples.filtered else None,
    )
    return replace(found, origin=origin)


# --- the lines pyarrow reads ---------------------------------------------------------------

NEWLINE, RETURN, OPEN, CLOSE = (ord(c) for c in "\n\r{}")
WINDOW = 1 << 20
"""Bytes of a mapped file checked at a time (its temporaries stay small)."""


def _json_lines(source: Any, schema: Any) -> Any:
    """pyarrow's table of the used fields; the others are skipped, not built."""
    import pyarrow.json as pajson

    return pajson.read_json(
        source,
        read_options=pajson.ReadOptions(block_size=BLOCK),
        parse_options=pajson.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"
        ),
    )


class _Mapped:
    """An uncompressed file, mapped: pyarrow parses it while a thread checks its lines."""

    def __init__(self, path: Path, lines: _Lines) -> None:
        import pyarrow as pa

        self._file = pa.memory_map(str(path))
        self._bytes = np.frombuffer(self._file.read_buffer(), dtype=np.uint8)
        self._lines = lines

    def __enter__(self) -> _Mapped:
        return self

    def __exit__(self, *exc: object) -> None:
        del self._bytes
        self._file.close()

    def first_line(self) -> bytes:
        size = 1 << 16
        while True:  # look further only for a long first line
            head = self._bytes[:size]
            ends = np.flatnonzero(head == NEWLINE)
            if len(ends):
                return head[: ends[0]].tobytes()
            if len(head) == len(self._bytes):
                return head.tobytes()  # one line, without a line break
            if size >= BLOCK:
                raise _NotHere  # a first line longer than a block
            size = min(16 * size, BLOCK)

    def table(self, schema: Any) -> Any:
        worker = threading.Thread(target=self._lines.check_all, args=(self._bytes,))
        worker.start()
        try:
            self._file.seek(0)
            return _json_lines(self._file, schema)
        finally:
            worker.join()


class _Decompressed:
    """A gzip stream that pyarrow reads through, checked block by block on the way."""

    def __init__(self, stream: Any, lines: _Lines) -> None:
        self._stream = stream
        self._lines = lines
        self._pending: bytes = stream.read(BLOCK)
        self._carry = b""
        """The start of a line whose end is in the next block."""
        self.closed = False

    def __enter__(self) -> _Decompressed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def first_line(self) -> bytes:
        end = self._pending.find(b"\n")
        if end < 0 and len(self._pending) == BLOCK:
            raise _NotHere  # a first line longer than a block
        return self._pending if end < 0 else self._pending[:end]

    def table(self, schema: Any) -> Any:
        return _json_lines(self, schema)

    def read(self, size: int = -1) -> bytes:
        """The next bytes for pyarrow (at most ``size``); after a failed check, none."""
        if self._lines.refused:
            return b""
        try:
            data = self._next(size)
            self._check(data)
        except Exception:  # the stream's own errors too: the row reader reports them
            self._lines.refused = True
            return b""
        return b"" if self._lines.refused else data

    def _next(self, size: int) -> bytes:
        if not self._pending:
            data: bytes = self._stream.read(size)
            return data
        if 0 <= size < len(self._pending):
            data, self._pending = self._pending[:size], self._pending[size:]
        else:
            data, self._pending = self._pending, b""
        return data

    def _check(self, data: bytes) -> None:
        lines = self._lines
        if not data:  # the end, after a last line without a line break
            if self._carry:
                lines.check(_array(self._carry + b"\n"))
                self._carry = b""
            lines.done = True
            return
        first = data.find(b"\n")
        if first < 0:
            self._carry += data
            lines.refused = len(self._carry) > BLOCK  # pyarrow refuses lines past a block
            return
        lines.check(_array(self._carry + data[: first + 1]))
        rest = _array(data)[first + 1 :]
        self._carry = rest[lines.check(rest) :].tobytes()


def _array(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


class _Lines:
    """What pyarrow parses must be the lines the row reader parses.

    pyarrow's parser (RapidJSON) reads JSON Lines more loosely than the row reader, which
    parses each line alone: it takes several objects on one line, one object over several
    lines, blank lines, and bytes that are not UTF-8 in a field it skips. So each line must
    start with ``{`` and end with ``}`` (then no object spans lines: a line's last ``}``
    followed by ``{`` is not JSON), pyarrow's row count must equal the line count (then no
    line holds two), and the bytes must be UTF-8.

    Not checked, as a scan for them would cost about half of pyarrow's own parse: three
    spellings RapidJSON takes and the row parser does not, inside the fields skipped here:
    the tokens ``Inf``, ``-Inf`` and ``-NaN`` (``NaN``, ``Infinity`` and ``-Infinity`` are
    read by both), nesting deeper than :data:`~evalsig.data.readers.tabular.MAX_DEPTH`
    levels, and integers of more than 4300 digits. Python's ``json`` (which wrote the
    harness's files) writes none of them; a file holding one in a skipped field is read
    here, where the row reader would refuse its line.
    """

    def __init__(self) -> None:
        self.lines = 0
        self.refused = False
        self.done = False
        """Whether the checks reached the end of the file."""

    def vouch(self, rows: int) -> None:
        """Raise _NotHere unless every line was checked and pyarrow read a row per line."""
        if self.refused or not self.done or rows != self.lines:
            raise _NotHere

    def check_all(self, data: np.ndarray) -> None:
        """Check a whole file's bytes, a window of lines at a time."""
        try:
            start = 0
            while start < len(data) and not self.refused:
                size = WINDOW
                block = data[start : start + size]
                while not (used := self.check(block)) and len(block) == size < BLOCK:
                    size *= 4  # a line longer than the window
                    block = data[start : start + size]
                if not used:
                    if len(block) == size:
                        self.refused = True  # a line longer than a block: pyarrow refuses it
                        return
                    used = self.check(np.append(block, np.uint8(NEWLINE)))  # no last line break
                start += used
            self.done = True
        except Exception:
            self.refused = True

    def check(self, a: np.ndarray) -> int:
        """Check the whole lines at the start of ``a``; returns the bytes they take."""
        ends = np.flatnonzero(a == NEWLINE)
        if not len(ends):
            return 0
        a = a[: ends[-1] + 1]
        starts = np.concatenate(([0], ends[:-1] + 1))
        self.lines += len(ends)
        if not (np.all(a[starts] == OPEN) and _all_closed(a, ends) and _utf8(a)):
            self.refused = True
        return int(ends[-1]) + 1


def _all_closed(a: np.ndarray, ends: np.ndarray) -> bool:
    """Whether every line ends with ``}`` (before an optional carriage return)."""
    before = a[ends - 1]
    carriage = before == RETURN
    if carriage.any():
        before = np.where(carriage, a[np.maximum(ends - 2, 0)], before)
    return bool(np.all(before == CLOSE))


def _utf8(a: np.ndarray) -> bool:
    """Whether whole lines decode as UTF-8 (ASCII at once, by a maximum)."""
    if int(a.max()) < 0x80:
        return True
    try:
        a.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
