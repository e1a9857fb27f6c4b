"""What every reader shares: options, the reader protocol, column resolution, safe opening."""

from __future__ import annotations

import codecs
import difflib
import io
import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, TypedDict, cast

from evalsig.data.readers.streams import GZIP_MAGIC, GzipStream, check_file, default_cap, open_error
from evalsig.errors import FormatError

if TYPE_CHECKING:
    from evalsig.data.readers.collect import Collector

__all__ = [
    "Columns",
    "ReadOptions",
    "Reader",
    "ReaderKeywords",
    "ReaderKeywordsExceptTask",
    "first_line",
    "first_record",
    "open_text",
    "read_bytes",
    "read_options",
    "resolve_columns",
    "unzipped_head",
    "where_pairs",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadOptions:
    """How to read result files: columns, harness choices, limits (None: detect it, or
    fail with the choices).

    Column options name fields of generic tables and records (dots reach into nested
    JSON objects); harness options choose among what a harness log holds. Functions that
    read files take ``read=ReadOptions(...)``, or these fields as keywords
    (:class:`~evalsig.data.ReaderKeywords`): ``load(path, score_column="acc")``.
    """

    id_column: str | None = None
    """The item id column. Unnamed id, score and run columns are detected when exactly one
    column has a usual name ('item', 'question_id', 'score', 'correct', 'epoch', ...);
    otherwise the error lists the columns."""
    score_column: str | None = None
    """The score column (detected as ``id_column`` is)."""
    run_column: str | None = None
    """The run column (repeated runs of each item; detected as ``id_column`` is)."""
    cluster_column: str | None = None
    """Cluster label: a column, or a metadata field of a harness log (e.g. 'subject')."""
    key_column: str | None = None
    """A per-item content key (gold answer, target, document hash): two files that give an
    item different keys scored different things, and :func:`evalsig.compare` says so."""
    prediction_column: str | None = None
    """With ``answer_column``: score = 1 when the prediction equals the answer, else 0; a
    missing prediction is scored wrong and counted in the notes."""
    answer_column: str | None = None
    """The answer a prediction is checked against; it also serves as the content key."""
    task_column: str | None = None
    """A column naming the task of each row (long tables of several tasks)."""
    where: tuple[tuple[str, str], ...] = ()
    """Keep only rows whose column equals the value, e.g. (("model", "gpt-4"),); for a HELM
    suite, the runs of that model."""
    task: str | None = None
    """Which task to read, when the files hold several."""
    metric: str | None = None
    """lm-eval metric (acc, acc_norm, exact_match), Inspect scorer, HELM stat name."""
    filter: str | None = None
    """lm-eval filter (none, strict-match, flexible-extract)."""
    split: str | None = None
    """HELM split (test, valid)."""
    skip_bad_lines: bool = False
    """Skip malformed records instead of failing; the result records how many and where."""
    max_decompressed_bytes: int = field(default_factory=default_cap)
    """Cap on the bytes compressed data may expand to (gzip files, zip members): 1 GiB,
    or the environment variable ``EVALSIG_MAX_DECOMPRESSED`` (e.g. ``4G``) when set."""
    models_by_task: bool = False
    """Let one HELM suite hold each task's runs from another model (the results store
    names each task's model); otherwise several models are an error asking for ``where``."""
    separator: str | None = None
    """CSV field separator (``';'``, ``'\\t'`` ...). By default the suffix's (``,`` or tab)
    when the header line holds it, else the one of ``, ; tab |`` the header line shows
    (noted), else an error asking for it."""


class ReaderKeywordsExceptTask(TypedDict, total=False):
    """:class:`ReadOptions`' fields but ``task``, as keywords, for the functions whose own
    ``task`` means something else (the task a results store names, a leaderboard's title)."""

    id_column: str | None
    score_column: str | None
    run_column: str | None
    cluster_column: str | None
    key_column: str | None
    prediction_column: str | None
    answer_column: str | None
    task_column: str | None
    where: Mapping[str, str] | tuple[tuple[str, str], ...] | None
    metric: str | None
    filter: str | None
    split: str | None
    skip_bad_lines: bool
    max_decompressed_bytes: int
    models_by_task: bool
    separator: str | None


class ReaderKeywords(ReaderKeywordsExceptTask, total=False):
    """:class:`ReadOptions`' fields as keywords: the shorthand of ``read=ReadOptions(...)``
    that :func:`evalsig.load` and the other functions reading files take. ``where`` may
    also be a mapping ``{column: value}``."""

    task: str | None


def read_options(read: ReadOptions | None = None, /, **keywords: Any) -> ReadOptions:
    """``read`` (by default ``ReadOptions()``) with the reader keywords given beside it.

    A keyword left at its default (None, False) leaves ``read``'s value; a ``where``
    mapping becomes ReadOptions' tuple of pairs.

    Raises
    ------
    TypeError
        ``read`` is not a ReadOptions; a keyword that is not a field of ReadOptions; a
        field given both in ``read`` and as a keyword.

    Examples
    --------
    >>> options = read_options(ReadOptions(score_column="acc"), where={"model": "m"})
    >>> options.score_column, options.where
    ('acc', (('model', 'm'),))
    """
    if read is not None and not isinstance(read, ReadOptions):
        raise TypeError(
            f"`read` must be a ReadOptions (or None); got a {type(read).__name__}: pass "
            "read=ReadOptions(score_column=...), or the options as keywords."
        )
    names = [item.name for item in fields(ReadOptions)]
    unknown = [name for name in keywords if name not in names]
    if unknown:
        close = difflib.get_close_matches(unknown[0], names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(
            f"unexpected keyword argument {unknown[0]!r}{hint}; the reader keywords are "
            f"ReadOptions' fields: {', '.join(names)}."
        )
    defaults = ReadOptions()
    given: dict[str, Any] = {
        name: where_pairs(value) if name == "where" else value for name, value in keywords.items()
    }
    given = {name: value for name, value in given.items() if value != getattr(defaults, name)}
    base = read if read is not None else defaults
    for name in given:
        if getattr(base, name) != getattr(defaults, name):
            raise TypeError(
                f"`{name}` is given twice: read=ReadOptions({name}={getattr(base, name)!r}) "
                f"and the keyword {name}={keywords[name]!r}; give it once."
            )
    return replace(base, **given) if given else base


def where_pairs(
    where: Mapping[str, str] | tuple[tuple[str, str], ...] | None,
) -> tuple[tuple[str, str], ...]:
    """A ``where`` condition as ReadOptions holds it: ``{"m": "x"}`` -> ``(("m", "x"),)``."""
    if where is None:
        return ()
    if isinstance(where, Mapping):
        pairs = list(where.items())
    elif isinstance(where, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in where):
        pairs = list(where)
    else:
        raise TypeError(
            f"`where` must be a mapping {{column: value}}, e.g. where={{'model': 'gpt-4'}}; "
            f"got {where!r}."
        )
    return tuple((str(column), str(value)) for column, value in pairs)


@dataclass(frozen=True, slots=True)
class Columns:
    """The resolved column names of a long-format table."""

    id: str
    score: str
    run: str | None
    cluster: str | None
    detected: tuple[str, ...] = ()
    """Notes on columns that were detected rather than named."""


class Reader(Protocol):
    """A file format evalsig can read. Register new ones in :mod:`evalsig.data.readers`."""

    name: str
    """Readers that honour ``ReadOptions.where`` also set ``accepts_where = True``; the
    others read files of one model, and a ``where`` given for them is an error."""

    def sniff(self, path: Path, head: bytes) -> bool:
        """Whether ``path`` looks like this format, by its name and its first bytes."""
        ...

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        """Parse ``path`` and add every scored observation to ``out``."""
        ...


ID_NAMES = ("item", "item_id", "id", "question_id", "doc_id", "sample_id", "instance_id", "idx")
SCORE_NAMES = ("score", "correct", "is_correct", "acc", "accuracy", "exact_match", "pass")
RUN_NAMES = ("run", "epoch", "seed", "repeat", "trial")
FALLBACK_NAMES = {"item id": ("task_id",), "score": ("passed",), "run": ("completion_id",)}
"""Names detected only when no usual name is present: the columns of code evaluations
(human-eval's and the ``code_eval`` metric's ``task_id``, ``passed``, ``completion_id``),
which a table of several tasks may also use for other things."""


def resolve_columns(available: Sequence[str], options: ReadOptions, *, source: str) -> Columns:
    """Check named columns exist; detect unnamed id/score/run columns when unambiguous."""
    detected: list[str] = []

    def pick(role: str, given: str | None, names: Sequence[str], flag: str) -> str | None:
        if given is not None:
            if given not in available:
                raise FormatError(
                    f"{source}: no column {given!r} (the {role} column); available columns: "
                    f"{', '.join(map(repr, available))}."
                )
            return given
        found = [name for name in names if name in available]
        found = found or [name for name in FALLBACK_NAMES.get(role, ()) if name in available]
        if len(found) == 1:
            detected.append(f"{role} {found[0]!r}")
            return found[0]
        if role == "run":
            if len(found) > 1:
                raise FormatError(
                    f"{source}: several columns could be the run column "
                    f"({', '.join(map(repr, found))}); name one with {flag}."
                )
            return None
        what = "several columns could be" if found else "no column is recognisably"
        choices = found or list(available)
        raise FormatError(
            f"{source}: {what} the {role} column; name it with {flag} "
            f"(columns: {', '.join(map(repr, choices))})."
        )

    id_col = pick("item id", options.id_column, ID_NAMES, "--id / id_column=")
    score_col = pick("score", options.score_column, SCORE_NAMES, "--score / score_column=")
    run_col = pick("run", options.run_column, RUN_NAMES, "--run / run_column=")
    cluster_col = None
    if options.cluster_column is not None:
        cluster_col = pick("cluster", options.cluster_column, (), "--cluster / cluster=")
    if id_col is None or score_col is None:  # pick() raises before this for id/score
        raise FormatError(f"{source}: item id and score columns are required.")
    note = (f"{source}: detected columns: {', '.join(detected)}",) if detected else ()
    return Columns(id_col, score_col, run_col, cluster_col, note)


def _open(
    path: Path, max_decompressed_bytes: int
) -> tuple[io.BufferedReader, io.BufferedReader | GzipStream]:
    """The raw file and its (decompressed) content: gzip by its suffix or its signature."""
    check_file(path)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise open_error(path, exc) from None
    try:
        if path.suffix == ".gz" or raw.peek(2)[:2] == GZIP_MAGIC:
            return raw, GzipStream(raw, max_decompressed_bytes, str(path))
    except BaseException:
        raw.close()
        raise
    return raw, raw


@contextmanager
def open_text(path: Path, *, max_decompressed_bytes: int) -> Iterator[IO[str]]:
    """Open a UTF-8 text file, gzip-compressed or not, capping the decompressed size.

    Gzip data are recognised by the ``.gz`` suffix or by their signature, and decompressed
    in bounded steps (see :mod:`evalsig.data.readers.streams`); ``binary(text)`` is the
    byte stream underneath, for fast parsing of bytes.
    """
    raw, content = _open(path, max_decompressed_bytes)
    try:
        stream = (
            io.BufferedReader(content, buffer_size=1 << 18)
            if isinstance(content, GzipStream)
            else content
        )
        yield io.TextIOWrapper(stream, encoding="utf-8", errors="strict", newline="")
    except OSError as exc:
        raise open_error(path, exc) from None
    finally:
        raw.close()


def first_line_not_utf8(path: Path, *, max_decompressed_bytes: int) -> int | None:
    """The line (from 1) of a file's first byte that is not UTF-8, or None. A text stream
    decodes a block ahead of the line it returns, so its error comes up to a block of
    lines early: this finds the line the byte is on."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    with open_text(path, max_decompressed_bytes=max_decompressed_bytes) as text:
        stream = cast(io.TextIOWrapper, text).buffer
        while block := bytes(stream.read(1 << 20)):
            carried = len(decoder.getstate()[0])  # a character cut by the last block
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                return line + block.count(b"\n", 0, max(0, exc.start - carried))
            line += block.count(b"\n")
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return line
    return None


def read_bytes(path: Path, *, max_decompressed_bytes: int) -> bytes | bytearray:
    """A whole file's bytes (decompressed when gzip, under the cap), for JSON documents."""
    raw, content = _open(path, max_decompressed_bytes)
    try:
        return content.read_all() if isinstance(content, GzipStream) else content.read()
    except OSError as exc:
        raise open_error(path, exc) from None
    finally:
        raw.close()


def stem(path: Path) -> str:
    """The file name without compression and format suffixes: 'results.csv.gz' -> 'results'."""
    name = path.name
    for suffix in (".gz", ".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet"):
        name = name.removesuffix(suffix)
    return name


def first_record(head: bytes) -> dict[str, object] | None:
    """The first JSON object in ``head`` (the start of a file): the first line of JSON
    Lines, the first element of a JSON array, or the document itself; None when ``head``
    does not hold a whole one. Formats are told apart by the fields of this record."""
    text = head.decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        text = text[1:].lstrip(" \t\r\n")
    if not text.startswith("{"):
        return None
    try:
        record, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def first_line(head: bytes) -> bytes:
    """The first line of ``head`` (the start of a file) that is not blank, stripped."""
    for line in head.splitlines():
        if line.strip():
            return line.strip()
    return b""


def unzipped_head(head: bytes) -> bytes:
    """The decompressed start of a gzip file whose first bytes are ``head`` (empty when they
    are not gzip data)."""
    try:
        return zlib.decompressobj(wbits=31).decompress(head, 1 << 20)  # bounded: a bomb stays small
    except zlib.error:
        return b""
