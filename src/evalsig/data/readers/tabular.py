"""Generic records: JSON Lines, JSON (also zipped) and Parquet; the row mapping CSV shares.

One row per (item, run) with an item id and a score, and optionally run, cluster, task and
content-key columns; or, instead of a score, a prediction and an answer column (score 1
when they are equal; a missing prediction is scored wrong and counted). JSON fields may be
nested and are named with dots (``metadata.subject``). A JSON file may also be one object
``{item_id: score}``; a ``.zip`` holding one JSON file (as MMLU-Pro publishes its outputs)
is read in memory with a cap on its decompressed size.

Nesting deeper than orjson's limit (1024 levels) is a FormatError, not a crash. A record
holding one of the fields evalsig uses twice (``{"id": 1, "score": 1, "score": 0}``, which
JSON parsers silently reduce to the last value) is refused. Every record of a JSON
document is checked (one byte count per used field; an exact, slower parse only when a
count is suspicious), and the first line of a JSON Lines file: checking every later line
would cost about a tenth of the read time, so they are not.
"""

from __future__ import annotations

import fnmatch
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from evalsig.data.readers.archive import read_zip_member
from evalsig.data.readers.base import ReadOptions, open_text, read_bytes, resolve_columns
from evalsig.data.readers.collect import FACET_NAMES, Collector, nested
from evalsig.data.readers.content_key import (
    KEY_NAMES,
    PAIRED_KEY_NAMES,
    PREDICTION_LIKE,
    detect_key,
)
from evalsig.data.readers.streams import check_file, over_cap
from evalsig.errors import DataError, FormatError

__all__ = [
    "JSON",
    "JSONL",
    "PARQUET",
    "RecordMapper",
    "binary",
    "duplicate_key",
    "feed_records",
    "jsonl_records",
    "loads",
    "read_json",
    "suffix",
    "text_booleans_note",
]

PREDICTION_NAMES = ("pred", "prediction", "predicted", "model_answer")
ANSWER_NAMES = ("answer", "gold", "target", "label", "reference")
MISSING = object()


def suffix(path: Path) -> str:
    """The format suffix of a file name, ignoring .gz: 'a.csv.gz' -> '.csv'."""
    suffixes = [s for s in path.suffixes if s != ".gz"]
    return suffixes[-1] if suffixes else ""


MAX_DEPTH = 1024
"""The deepest nesting read (orjson's limit); deeper documents are malformed for evalsig."""


def loads(line: bytes | bytearray | str) -> Any:
    """Parse one JSON document fast; NaN and Infinity (non-standard) become float NaN/inf.

    Raises :class:`json.JSONDecodeError` (a ValueError) for malformed text and for nesting
    deeper than :data:`MAX_DEPTH` levels, never RecursionError.
    """
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if "depth" in exc.msg or "ecursion" in exc.msg:
            raise json.JSONDecodeError(
                f"nested deeper than evalsig's limit of {MAX_DEPTH} levels",
                exc.doc,
                exc.pos,
            ) from None
    try:
        return json.loads(line, parse_constant=float)  # raises for truly malformed text
    except RecursionError:
        raise json.JSONDecodeError(
            "nested too deeply for the fallback JSON parser (NaN or Infinity with deep nesting)",
            "",
            0,
        ) from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "digits" not in str(exc):
            raise
        # Python refuses to convert integers of more than 4300 digits.
        raise json.JSONDecodeError("a number with more than 4300 digits", "", 0) from None


def read_json(path: Path, options: ReadOptions, *, ending: str = ".") -> Any:
    """A whole JSON file (decompressed when gzip, under the cap), parsed by :func:`loads`;
    a FormatError, ending with ``ending``, when it is not valid JSON."""
    data = read_bytes(path, max_decompressed_bytes=options.max_decompressed_bytes)
    try:
        return loads(data)
    except ValueError as exc:
        raise FormatError(f"{path}: not valid JSON ({exc}){ending}") from None


def duplicate_key(
    raw: bytes | bytearray, fields: Iterable[str], expected: int
) -> tuple[int, str, list[Any]] | None:
    """The first record holding a used field twice: (record index, field, its values).

    ``raw`` is one JSON object or a list of ``expected`` objects. Cheap unless some field's
    quoted name occurs more than ``expected`` times in ``raw``; only then is ``raw`` parsed
    again, slowly, keeping every key. Dotted fields are checked in their nested object.

    Examples
    --------
    >>> duplicate_key(b'[{"id": 1, "score": 1}, {"id": 2, "score": 1, "score": 0}]',
    ...               ["id", "score"], 2)
    (1, 'score', [1, 0])
    >>> duplicate_key(b'{"id": 1, "m": {"score": 1}, "score": 0}', ["score"], 1) is None
    True
    """
    paths = [field.split(".") for field in dict.fromkeys(fields)]
    paths += [[field] for field in dict.fromkeys(fields) if "." in field]
    if not any(raw.count(orjson.dumps(path[-1])) > expected for path in paths):
        return None
    repeated: dict[int, dict[str, list[Any]]] = {}

    def keep(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        record = dict(pairs)
        if len(record) < len(pairs):
            values: defaultdict[str, list[Any]] = defaultdict(list)
            for key, value in pairs:
                values[key].append(value)
            repeated[id(record)] = {k: v for k, v in values.items() if len(v) > 1}
        return record

    try:
        document = json.loads(raw, object_pairs_hook=keep, parse_constant=float)
    except (ValueError, RecursionError):
        return None  # the fast parser read it: no verdict rather than a wrong one
    records = document if isinstance(document, list) else [document]
    for number, record in enumerate(records):
        for path in paths:
            parent: Any = record
            for part in path[:-1]:
                parent = parent.get(part) if isinstance(parent, dict) else None
            if isinstance(parent, dict) and path[-1] in repeated.get(id(parent), {}):
                return number, ".".join(path), repeated[id(parent)][path[-1]]
    return None


FREE_TEXT = frozenset(
    {
        *PREDICTION_LIKE, "resps", "filtered_resps", "generated_text", "generations",
        "outputs", "responses", "text", "prompt", "input", "question", "instruction",
        "messages", "arguments", "doc", "explanation", "reasoning",
    }
)  # fmt: skip
"""Column names of free text (prompts, model outputs): neither content keys nor clusters."""


def _key_like(column: str) -> bool:
    """Whether ``inspect`` should offer ``column`` as a content key: a gold value or a hash."""
    name = column.lower()
    return name in KEY_NAMES or name in PAIRED_KEY_NAMES or name.endswith(("_hash", "hash"))


CLUSTER_NAMES = frozenset(
    {
        "category", "subcategory", "subject", "topic", "task", "subtask", "domain",
        "source", "src", "dataset", "subset", "passage", "document", "scenario",
    }
)  # fmt: skip
"""Column names (any case) that obviously group items: a note suggests ``--cluster``."""


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
    hints: tuple[str, ...] = ()
    """Columns that look like item clusters the user did not pass (see CLUSTER_NAMES)."""
    model: str | None = None
    """A column that looks like the model's name, chosen by no option: it must hold one
    model, or rows of several models would be pooled (see MODEL_NAMES)."""
    models: set[object] = field(default_factory=set)
    unnamed: list[object] = field(default_factory=list)
    """Positions of rows whose model column is empty (a few, for the message), and"""
    n_unnamed: int = 0
    """how many there are."""
    text_booleans: int = 0
    """Scores given as the text true/false (a CSV cell), read as 1/0."""
    null_predictions: int = 0
    empty_cells: int = 0
    kept: int = 0
    """Records that passed the ``where`` conditions."""
    passed_over: dict[str, set[str]] = field(default_factory=dict)
    """Values of the ``where`` columns in records passed over (a few, for the message)."""

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
        chosen = {options.task_column, *dict(options.where)}  # task and model columns
        free = [c for c in available if c not in used and c not in chosen]
        out.offer(
            clusters=[c for c in free if c.lower() not in FREE_TEXT and not _key_like(c)],
            keys=[c for c in free if _key_like(c)],
        )
        notes = list(columns.detected)
        if detected:
            notes.append(
                f"{source}: detected {', '.join(detected)}; a missing prediction is wrong."
            )
        key = options.key_column or answer
        if key is None:
            roles = (*used, columns.cluster, options.task_column, *wide, *dict(options.where))
            key, found = detect_key(available, roles, source=source)
            notes += [found] if found else []
        out.notes.extend(notes)
        taken = {*used, columns.cluster, key, options.task_column, *wide, *dict(options.where)}
        hints: tuple[str, ...] = ()
        if options.cluster_column is None:
            hints = tuple(c for c in available if c.lower() in CLUSTER_NAMES and c not in taken)
        hints += tuple(c for c in available if c.lower() in FACET_NAMES and c not in taken)
        model = next((c for c in available if c.lower() in MODEL_NAMES and c not in taken), None)
        return cls(
            get=get,
            parse_score=parse_score,
            id=columns.id,
            score=None if prediction is not None else columns.score,
            prediction=prediction,
            answer=answer,
            run=columns.run,
            cluster=columns.cluster,
            key=key,
            task=options.task_column,
            where=options.where,
            wide=wide,
            hints=hints,
            model=model,
        )

    def feed(self, record: Any, position: object, out: Collector) -> None:
        """Add one record's observation (or report it as bad)."""
        get = self.get
        try:
            for column, wanted in self.where:
                value = str(get(record, column))
                if value != wanted:
                    seen = self.passed_over.setdefault(column, set())
                    if len(seen) < MAX_SHOWN:
                        seen.add(value)
                    return
            self.kept += 1
            if self.model is not None and len(self.models) < MAX_SHOWN:
                self._note_model(record, position)
            item = get(record, self.id)
            task = ""
            if self.task is not None:
                task = get(record, self.task)
                if task is None or task == "":
                    out.bad(
                        position,
                        f"field {self.task!r} is empty; every row needs a value there, as it "
                        "names the row's task (or, for a leaderboard, its model).",
                    )
                    return
                task = str(task)
            if self.wide:
                self._feed_wide(record, item, task, position, out)
                self._hint(record, out)
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
                raw = get(record, column)
                score = self.parse_score(raw)
                if type(raw) is str and type(score) is float and raw in TEXT_BOOLEANS:
                    self.text_booleans += 1
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
                task,
                item,
                score,
                position=position,
                run=None if self.run is None else get(record, self.run),
                cluster=None if self.cluster is None else get(record, self.cluster),
                key=None if self.key is None else get(record, self.key),
            )
            self._hint(record, out)
        except KeyError as exc:
            out.bad(position, f"no field {exc.args[0]!r}; every row needs it.")

    def _note_model(self, record: Any, position: object) -> None:
        try:
            name = self.get(record, self.model or "")
        except KeyError:
            return
        if name is None or (isinstance(name, str) and not name.strip()):
            self.n_unnamed += 1
            if len(self.unnamed) < 3:
                self.unnamed.append(position)
        else:
            self.models.add(name)

    def _hint(self, record: Any, out: Collector) -> None:
        """Count the labels of columns that look like clusters or facets (for a note, never
        used)."""
        for column in self.hints:
            try:
                out.hint_cluster(column, self.get(record, column))
            except KeyError:
                continue

    def _feed_wide(
        self, record: Any, item: object, task: str, position: object, out: Collector
    ) -> None:
        """One observation per score column (run); an empty cell is a run without the item."""
        get = self.get
        cluster = None if self.cluster is None else get(record, self.cluster)
        key = None if self.key is None else get(record, self.key)
        for column in self.wide:
            raw = get(record, column)
            score = self.parse_score(raw)
            if type(raw) is str and type(score) is float and raw in TEXT_BOOLEANS:
                self.text_booleans += 1
            if score is None:
                self.empty_cells += 1
                continue
            score = float(score) if isinstance(score, bool) else score
            out.add(task, item, score, position=position, run=column, cluster=cluster, key=key)

    def fields(self) -> list[str]:
        """Every field this mapper reads."""
        named = (self.id, self.score, self.prediction, self.answer, self.run, self.cluster)
        more = (self.key, self.task, *self.wide, *(w for w, _ in self.where))
        return [f for f in (*named, *more) if f is not None]

    def finish(self, source: str, out: Collector) -> None:
        if self.n_unnamed and self.models:
            shown = ", ".join(map(repr, sorted(self.models, key=str)[:3]))
            where = ", ".join(map(str, self.unnamed))
            raise DataError(
                f"{source}: column {self.model!r} is empty on {self.n_unnamed} row(s) ({where}"
                f"{', ...' if self.n_unnamed > len(self.unnamed) else ''}) beside rows of "
                f"{shown}; rows that name no model would be pooled with that model's. Fill "
                f"in the model, or keep one model's rows with --where {self.model}=NAME."
            )
        if self.text_booleans:
            out.notes.append(text_booleans_note(source, self.score or ", ".join(self.wide)))
        if len(self.models) > 1:
            shown = ", ".join(map(repr, sorted(self.models, key=str)))
            raise DataError(
                f"{source}: column {self.model!r} holds several models ({shown}"
                f"{' ...' if len(self.models) >= MAX_SHOWN else ''}); their rows would be "
                f"pooled as one model. Choose one with --where {self.model}=NAME (where=), or "
                "--baseline-where / --candidate-where to compare two from this file, or rank "
                "them all with evalsig leaderboard."
            )
        if self.where and not self.kept:
            conditions = ", ".join(f"{c}={v}" for c, v in self.where)
            found = "; ".join(
                f"{column!r} holds {', '.join(map(repr, sorted(values)))}"
                + (" ..." if len(values) >= MAX_SHOWN else "")
                for column, values in self.passed_over.items()
            )
            raise DataError(
                f"{source}: no record has {conditions}; {found or 'no record was read'}. "
                "Check the spelling of --where / where= (values are compared as text)."
            )
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


TRUE_TEXT = frozenset({"true", "True", "TRUE"})
FALSE_TEXT = frozenset({"false", "False", "FALSE"})
TEXT_BOOLEANS = TRUE_TEXT | FALSE_TEXT
"""Score cells of a CSV that are read as 1 (true) and 0 (false), with a note."""


def text_booleans_note(source: str, column: str) -> str:
    """The note on a CSV score column holding true/false text."""
    return (
        f"{source}: score column {column!r} holds the text true/false, read as 1 and 0; "
        "check that true marks a correct answer."
    )


MODEL_NAMES = frozenset({"model", "model_name", "model_id", "generator"})
"""Column names that say which model a row scores (lower case)."""

MAX_SHOWN = 20
"""The most values of a ``where`` column an error lists."""


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


def binary(text: Any) -> Any:
    """The binary stream under a text stream from :func:`open_text` (fast parsing of bytes)."""
    return text.buffer


# --- JSON records ------------------------------------------------------------------------


def flat_keys(record: Mapping[str, Any]) -> list[str]:
    """Every field name, nested objects' with dots, depth first (without recursion)."""
    keys: list[str] = []
    stack: list[tuple[str, Iterator[tuple[str, Any]]]] = [("", iter(record.items()))]
    while stack:
        prefix, items = stack[-1]
        for key, value in items:
            keys.append(prefix + key)
            if isinstance(value, Mapping) and value:
                stack.append((f"{prefix}{key}.", iter(value.items())))
                break
        else:
            stack.pop()
    return keys


def feed_records(
    records: Iterator[tuple[Any, Any]],
    options: ReadOptions,
    *,
    source: str,
    out: Collector,
    raw: bytes | bytearray | None = None,
    expected: int = 1,
) -> None:
    """Map JSON records to observations; the first record fixes the columns.

    ``raw`` (the document, or a JSON Lines file's first line, holding ``expected``
    records) is checked for records that hold a used field twice.
    """
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
                flat_keys(record), options, source=source, get=nested, out=out
            )
            if raw is not None:
                _refuse_duplicates(raw, mapper, expected, source, position)
        mapper.feed(record, position, out)
    if mapper is None:
        raise FormatError(f"{source}: the file has no records.")
    mapper.finish(source, out)


def _refuse_duplicates(
    raw: bytes | bytearray, mapper: RecordMapper, expected: int, source: str, first: object
) -> None:
    found = duplicate_key(raw, mapper.fields(), expected)
    if found is None:
        return
    number, field, values = found
    where = (
        f"record {number + 1}"
        if expected > 1
        else (f"line {first}" if isinstance(first, int) else str(first))
    )
    raise FormatError(
        f"{source}: {where}: field {field!r} appears {len(values)} times (values "
        f"{', '.join(map(repr, values[:3]))}); JSON readers keep only the last, so evalsig "
        "will not guess which is right: remove the duplicates."
    )


class _JsonlReader:
    name = "jsonl"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return suffix(path) in (".jsonl", ".ndjson")

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            lines = binary(f)
            head = lines.peek(1 << 16)
            first = head[: head.index(b"\n")] if b"\n" in head else None
            raw = first if first is not None and first.strip() else None
            feed_records(jsonl_records(lines, out), options, source=source, out=out, raw=raw)


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
            elif exc.msg.startswith("nested"):
                out.bad(number, f"{exc.msg} (at column {exc.colno}); flatten the record.")
            else:
                out.bad(
                    number,
                    f"not valid JSON ({exc.msg} at column {exc.colno}); is the line truncated?",
                )


class _JsonReader:
    name = "json"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return suffix(path) in (".json", ".zip")  # a .zip that is not one: Archive says so

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        if suffix(path) == ".zip":
            name, data = read_zip_member(path, options.max_decompressed_bytes)
            source = f"{path}:{name}"
        else:
            data = read_bytes(path, max_decompressed_bytes=options.max_decompressed_bytes)
        try:
            document = loads(data)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            raise FormatError(
                f"{source}: {exc.msg} (at {where}); flatten the records."
                if exc.msg.startswith("nested")
                else f"{source}: not valid JSON ({exc.msg} at {where}); is the file truncated?"
            ) from None
        except UnicodeDecodeError:
            raise FormatError(f"{source}: not valid UTF-8 text; re-save it as UTF-8.") from None
        if isinstance(document, list):
            records = ((f"record {i}", r) for i, r in enumerate(document, start=1))
            feed_records(records, options, source=source, out=out, raw=data, expected=len(document))
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
    """``{item_id: score}`` or ``{item_id: [run scores]}`` (a lone score is run 0). The
    ids are the object's keys, text whatever the writer held."""
    out.ids_untyped()
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
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix == ".parquet"

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise DataError(
                f"{source}: reading Parquet needs pyarrow; install it with "
                "pip install 'evalsig-stats[columnar]'."
            ) from None
        check_file(path)
        try:
            parquet = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise FormatError(
                f"{source}: not a readable Parquet file ({exc}); is it truncated? Re-export it."
            ) from None
        with parquet:
            self._read(parquet, source, options, out)

    def _read(self, parquet: Any, source: str, options: ReadOptions, out: Collector) -> None:
        top = list(parquet.schema_arrow.names)
        names = top + struct_leaves(parquet.schema_arrow)
        columns: dict[str, list[Any]] = {}

        def get(row: int, column: str) -> Any:
            if column not in columns:
                if column in top:
                    columns[column] = table.column(column).to_pylist()
                else:  # a struct field, addressed with dots as in JSON: doc.id
                    head, _, rest = column.partition(".")
                    columns[column] = [
                        _leaf(value, rest) for value in table.column(head).to_pylist()
                    ]
            value = columns[column][row]
            if value is _MISSING:
                raise KeyError(column)
            return value

        mapper = RecordMapper.build(names, options, source=source, get=get, out=out)
        wanted = list(
            dict.fromkeys(
                f if f in top else f.partition(".")[0] for f in (*mapper.fields(), *mapper.hints)
            )
        )
        check_decoded_size(parquet.metadata, wanted, options.max_decompressed_bytes, source)
        try:
            table = parquet.read(columns=wanted)
        except Exception as exc:  # corrupt pages, a codec pyarrow lacks, a vanished file
            raise FormatError(
                f"{source}: cannot read its Parquet data ({exc}); is it truncated? Re-export it."
            ) from None
        for row in range(table.num_rows):
            mapper.feed(row, f"row {row + 1}", out)
        mapper.finish(source, out)


_MISSING = object()


def struct_leaves(schema: Any, prefix: str = "") -> list[str]:
    """Dotted paths of the fields inside struct columns (``doc.id``), depth first."""
    import pyarrow as pa

    out: list[str] = []
    for column in schema:
        if pa.types.is_struct(column.type):
            for child in struct_leaves(list(column.type), f"{prefix}{column.name}."):
                out.append(child)
            if prefix:
                out.append(prefix + column.name)
        elif prefix:
            out.append(prefix + column.name)
    return out


def _leaf(value: Any, path: str) -> Any:
    """``value['a']['b']`` for the path 'a.b'; _MISSING when a level is absent."""
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def check_decoded_size(metadata: Any, wanted: list[str], cap: int, source: str) -> None:
    """Refuse, from the metadata alone, columns that would decode past the cap.

    Each column chunk counts its declared uncompressed size, and at least 8 bytes a row
    (run-length encoding can declare a tiny size for a billion equal values).
    """
    size = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for number in range(row_group.num_columns):
            chunk = row_group.column(number)
            if chunk.path_in_schema.split(".")[0] in wanted:
                size += max(chunk.total_uncompressed_size, 8 * row_group.num_rows)
    if size > cap:
        raise over_cap(f"{source} (columns {', '.join(map(repr, wanted))})", cap)


JSONL = _JsonlReader()
JSON = _JsonReader()
PARQUET = _ParquetReader()
