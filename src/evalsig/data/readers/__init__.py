"""File readers. Each format is a :class:`Reader`; :func:`read_tables` picks one per file.

Formats are detected from the file name and its first bytes, or forced with ``format=``
(CLI: ``--input-format``). Several files of one model (given as a list, a glob, or a
directory holding several runs) are read into one collection: the same task in several
files becomes several runs of its items.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeGuard

from evalsig import _plugins as plugins
from evalsig.data.provenance import prefetch_hashes
from evalsig.data.readers.alpaca_eval import ALPACA_EVAL
from evalsig.data.readers.base import Reader, ReaderKeywords, ReadOptions
from evalsig.data.readers.collect import Collector, Description, TaskDescription
from evalsig.data.readers.columnar import read_columnar
from evalsig.data.readers.deepeval import DEEPEVAL
from evalsig.data.readers.delimited import CSV
from evalsig.data.readers.every_eval_ever import EVERY_EVAL_EVER
from evalsig.data.readers.helm import HELM
from evalsig.data.readers.human_eval import HUMAN_EVAL
from evalsig.data.readers.inspect_ai import INSPECT
from evalsig.data.readers.lighteval import LIGHTEVAL, LIGHTEVAL_RESULTS
from evalsig.data.readers.lm_eval import LM_EVAL
from evalsig.data.readers.lm_eval_columnar import read_lm_eval_columnar
from evalsig.data.readers.openai_evals import OPENAI_EVALS
from evalsig.data.readers.opencompass import OPENCOMPASS
from evalsig.data.readers.promptfoo import PROMPTFOO
from evalsig.data.readers.simple_evals import SIMPLE_EVALS
from evalsig.data.readers.streams import check_file, open_error
from evalsig.data.readers.tabular import JSON, JSONL, PARQUET
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError, FormatError
from evalsig.progress import report

__all__ = [
    "READERS",
    "Description",
    "ReadOptions",
    "Reader",
    "ReaderKeywords",
    "TaskDescription",
    "describe",
    "load_plugins",
    "read_table",
    "read_tables",
    "register",
    "single_task",
]

READERS: dict[str, Reader] = {}
"""Registered readers by name, tried in registration order when detecting a format."""

HEAD_BYTES = 1 << 20
"""Bytes read to detect a format: enough for the first record of any log evalsig reads."""

PathLike = str | os.PathLike[str]


def register(reader: Reader, *, first: bool = False) -> Reader:
    """Add a reader; ``first`` puts it before the generic ones when detecting formats."""
    READERS.pop(reader.name, None)
    if first:
        others = dict(READERS)
        READERS.clear()
        READERS[reader.name] = reader
        READERS.update(others)
    else:
        READERS[reader.name] = reader
    return reader


for _reader in (
    LM_EVAL, INSPECT, HELM, OPENAI_EVALS, EVERY_EVAL_EVER, ALPACA_EVAL, LIGHTEVAL,
    LIGHTEVAL_RESULTS, PROMPTFOO, DEEPEVAL, OPENCOMPASS, SIMPLE_EVALS, HUMAN_EVAL, CSV, JSONL,
    JSON, PARQUET,
):  # fmt: skip
    register(_reader)

BUILTIN = frozenset(READERS)
"""The names of the built-in readers, which plugins cannot take."""

TABLES = (CSV.name, JSONL.name, JSON.name, PARQUET.name)
"""The generic table readers: plugin readers are tried before them."""


def load_plugins() -> tuple[plugins.Plugin, ...]:
    """Register the readers of installed plugins (entry-point group ``evalsig.readers``)
    once, after the built-in harness readers and before the generic tables."""
    return plugins.load_group(plugins.READERS, _install_plugin)


def _install_plugin(entry: object, plugin: plugins.Plugin) -> str:
    """A plugin's reader (or the reader its class or factory makes) into the registry."""
    made = isinstance(entry, type) or (callable(entry) and not _is_reader(entry))
    reader = entry() if made else entry  # type: ignore[operator]  # callable, checked
    if not _is_reader(reader):
        raise plugins.PluginError(
            f"it names {type(reader).__name__} {reader!r:.60}, not a reader: a reader has a "
            "`name` (text), `sniff(path, head)` and `read(path, options, out)`; or name a "
            "class or function that makes one with no arguments."
        )
    if reader.name == "auto":
        raise plugins.PluginError(
            "its reader is named 'auto', which means format detection; rename the reader."
        )
    if reader.name in READERS:
        owner = "a built-in format" if reader.name in BUILTIN else "another plugin's reader"
        raise plugins.PluginError(
            f"its reader is named {reader.name!r}, the name of {owner}, which is kept; "
            "rename the plugin's reader."
        )
    entries = list(READERS.items())
    at = next((i for i, (known, _) in enumerate(entries) if known in TABLES), len(entries))
    entries.insert(at, (reader.name, reader))
    READERS.clear()
    READERS.update(entries)
    _FROM_PLUGIN[reader.name] = plugin
    return f"reader {reader.name!r}"


_FROM_PLUGIN: dict[str, plugins.Plugin] = {}
"""The readers installed plugins gave, and which plugin (their failures are isolated)."""


def _sniffs(name: str, reader: Reader, path: Path, head: bytes) -> bool:
    """Whether ``reader`` claims the file. A plugin's ``sniff`` that fails (or calls
    ``sys.exit``) means "not mine", with one :class:`~evalsig.plugins.PluginWarning`."""
    plugin = _FROM_PLUGIN.get(name)
    if plugin is None:
        return bool(reader.sniff(path, head))
    try:
        return bool(reader.sniff(path, head))
    except (Exception, SystemExit) as exc:
        plugins.warn_once(plugin, f"the sniff(path, head) of its reader {name!r}", exc)
        return False


@contextmanager
def _plugin_code(path: Path, name: str) -> Iterator[None]:
    """A plugin reader's code on ``path``: any failure but evalsig's own errors is a
    :class:`~evalsig.plugins.PluginError` naming the plugin."""
    plugin = _FROM_PLUGIN.get(name)
    if plugin is None:
        yield
        return
    with plugins.isolated(
        f"{path}: reading it with the reader {name!r} of {plugins.describe(plugin)}",
        f"Fix or uninstall {plugin.distribution}, or read the file with another reader "
        "(--input-format / format=).",
    ):
        yield


def _is_reader(entry: object) -> TypeGuard[Reader]:
    name = getattr(entry, "name", None)
    return (
        isinstance(name, str)
        and bool(name.strip())
        and callable(getattr(entry, "sniff", None))
        and callable(getattr(entry, "read", None))
    )


def _head(path: Path) -> bytes:
    if path.is_dir():
        return b""
    if check_file(path).st_size == 0:
        raise FormatError(f"{path}: the file is empty (0 bytes); was it written completely?")
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES)
    except OSError as exc:
        raise open_error(path, exc) from None


def _pick(path: Path, format: str) -> Reader:
    load_plugins()
    if format != "auto":
        if format not in READERS:
            raise FormatError(
                f"unknown format {format!r}; choose one of: auto, {', '.join(READERS)}."
            )
        return READERS[format]
    head = _head(path)
    for name, reader in list(READERS.items()):
        if _sniffs(name, reader, path, head):
            return reader
    if path.is_dir():
        raise FormatError(
            f"{path}: a directory with no results evalsig recognises. It reads these folders: "
            "an lm-evaluation-harness output folder (samples_<task>_<date>.jsonl or .json, or "
            "results.json beside <model_args>_<task>.jsonl), an lmms-eval output folder "
            "(<date>_samples_<task>.jsonl), a HELM run or suite "
            "(per_instance_stats.json), an Inspect AI log folder (.eval or .json logs), a "
            "lighteval details folder (details_<task>_<date>.parquet), an OpenCompass "
            "results/<model>/ folder (<dataset>.json with details); "
            "otherwise name the files."
        )
    raise FormatError(
        f"{path}: cannot tell the format from the name or content; pass --input-format / "
        f"format= ({', '.join(READERS)})."
    )


def _expand(paths: PathLike | Sequence[PathLike]) -> list[Path]:
    """Paths in order; a pattern with * ? [ that names no file is expanded as a glob."""
    given = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not given:
        raise FormatError("no input files were given.")
    out: list[Path] = []
    for item in given:
        path = Path(item)
        if path.exists():
            out.append(path)
            continue
        if any(c in str(item) for c in "*?["):
            matches = sorted(glob.glob(str(item)))
            if not matches:
                raise FormatError(f"{item}: the pattern matches no file.")
            out.extend(Path(m) for m in matches)
            continue
        if _is_number(str(item)):
            raise FormatError(
                f"{item}: no such file; {str(item)!r} is a number, but this argument names "
                "result files (a file, a folder or a quoted glob). Give numbers with the "
                "command's options (see its --help), and scores in a file."
            )
        raise FormatError(f"{path}: no such file.")
    return out


def _is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (``1``, ``0.05``, ``-3e2``, ``nan``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def collect_files(
    paths: PathLike | Sequence[PathLike],
    options: ReadOptions | None = None,
    *,
    format: str = "auto",
) -> Collector:
    """Read every file into one collection of observations (one model)."""
    options = options or ReadOptions()
    out = Collector(options)
    files = _expand(paths)
    for number, path in enumerate(files, start=1):
        reader = _pick(path, format)
        with _plugin_code(path, reader.name):
            _check_where(path, reader, options)
        out.start_file(str(path), reader.name)
        rows, skipped = len(out.rows), len(out.skipped)
        passed, unscored = len(out.passed), len(out.unscored)
        with unreadable_as_format_error(path), _plugin_code(path, reader.name):
            reader.read(path, options, out)
        passed_over = options.task is not None and bool(out.tasks_seen)  # other tasks only
        passed_over |= len(out.passed) > passed  # another model than --where chose
        if len(out.rows) == rows and not passed_over and len(out.unscored) == unscored:
            _nothing_read(path, reader.name, out.skipped[skipped:], format)
        report("reading result files", number, len(files))
    return out


def _check_where(path: Path, reader: Reader, options: ReadOptions) -> None:
    """A ``where`` the reader would not apply is an error, never silently ignored."""
    if options.where and not getattr(reader, "accepts_where", False):
        given = ", ".join(f"{k}={v}" for k, v in options.where)
        raise DataError(
            f"{path}: {reader.name} files hold one model's results and have no rows to choose "
            f"with --where / where= ({given}); drop it, and pass each model's own files."
        )


def _nothing_read(
    path: Path, reader: str, skipped: list[tuple[int, object, str]], format: str
) -> None:
    """A file that gave no scored observation is an error, even with skip_bad_lines."""
    hint = (
        f" Is it really {reader!r}? Try --input-format auto, or name the columns."
        if format != "auto"
        else ""
    )
    if skipped:
        _, position, reason = skipped[0]
        raise FormatError(
            f"{path}: none of its records could be read as {reader!r} ({len(skipped):,} "
            f"malformed; the first, {position}: {reason}).{hint}"
        )
    raise FormatError(f"{path}: holds no scored records.{hint}")


@contextmanager
def unreadable_as_format_error(path: Path) -> Iterator[None]:
    """Failures below the readers' own checks, as a FormatError naming ``path``.

    The readers turn what they expect into clear errors; this catches what is left: an
    I/O error mid-read, text that is not UTF-8 where a reader did not look, values nested
    deeper than Python's recursion limit, memory running out.
    """
    try:
        yield
    except OSError as exc:
        raise open_error(path, exc) from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not valid UTF-8 text; re-save it as UTF-8.") from None
    except RecursionError:
        raise FormatError(
            f"{path}: holds values nested too deeply to process (JSON objects or lists "
            "inside one another hundreds of levels deep); flatten the records."
        ) from None
    except MemoryError:
        raise FormatError(
            f"{path}: ran out of memory while reading it; free memory, or split the file "
            "(a JSON document is read whole: JSON Lines or CSV are read line by line)."
        ) from None


def read_tables(
    paths: PathLike | Sequence[PathLike],
    options: ReadOptions | None = None,
    *,
    format: str = "auto",
) -> dict[str, ScoreTable]:
    """Every task's table, keyed by task name ('' for a table with no task column).

    One clean long table (CSV, JSON Lines, Parquet) or one lm-evaluation-harness samples
    file or model folder is read column by column when pyarrow is installed
    (:mod:`~evalsig.data.readers.columnar`, :mod:`~evalsig.data.readers.lm_eval_columnar`);
    anything else, or a file those paths cannot vouch for, is read record by record.
    """
    options = options or ReadOptions()
    files = _expand(paths)
    prefetch_hashes(files)
    if len(files) == 1:
        reader = _pick(files[0], format).name
        fast = None
        if reader == LM_EVAL.name and _worth_columns(files[0], LM_EVAL_COLUMNS_FROM):
            fast = read_lm_eval_columnar(files[0], options)
        elif not files[0].is_dir() and _worth_columns(files[0], COLUMNS_FROM):
            fast = read_columnar(files[0], reader, options)
        if fast is not None:
            return fast
    return collect_files(paths, options, format=format).tables()


COLUMNS_FROM = 1 << 20
LM_EVAL_COLUMNS_FROM = 64 << 20
"""Bytes on disk from which a long table (1 MiB) or lm-eval samples (64 MiB) are read
column by column when pyarrow is not loaded yet: loading it (and the pandas it loads) costs
about half a second, more than the row readers take below these sizes (about 3 us a row
of a long table; 300 MB/s of lm-eval samples)."""


def _worth_columns(path: Path, threshold: int) -> bool:
    """Whether the column path pays for itself on ``path`` (a file or a folder)."""
    if "pyarrow" in sys.modules:
        return True
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) >= threshold
        return path.stat().st_size >= threshold
    except OSError:
        return True  # the reader reports the problem


def read_table(
    paths: PathLike | Sequence[PathLike],
    options: ReadOptions | None = None,
    *,
    format: str = "auto",
) -> ScoreTable:
    """The one table in the files; an error listing the tasks when there are several."""
    tables = read_tables(paths, options, format=format)
    return single_task(tables, f"{paths}:", "choose one with --task / task=.", FormatError)


def single_task(
    tables: Mapping[str, ScoreTable], source: str, hint: str, error: type[DataError]
) -> ScoreTable:
    """The one table of ``tables``; when there are several, ``error`` naming the ``source``
    and its tasks, ending with ``hint`` (how to choose one)."""
    if len(tables) != 1:
        raise error(f"{source} holds {len(tables)} tasks ({', '.join(map(repr, tables))}); {hint}")
    return next(iter(tables.values()))


def describe(
    paths: PathLike | Sequence[PathLike],
    options: ReadOptions | None = None,
    *,
    format: str = "auto",
) -> Description:
    """What evalsig sees in the files: formats, tasks, metrics, filters, items, runs."""
    return collect_files(paths, options, format=format).describe()
