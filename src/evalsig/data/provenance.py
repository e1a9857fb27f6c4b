"""What a result compared: the files and their hashes, the models, the choices, the run.

Every result that comes from data records where its scores came from, so that a report
read months later (or pasted into a pull request) says which files, with which content,
under which task, metric and filter, with which seed and evalsig version, it describes.

* :class:`FileRecord`: one input file, its size and the SHA-256 of its bytes (hashed in
  chunks, once per process for a file whose path, size and modification time are
  unchanged);
* :class:`Origin`: where one model's scores came from: files, format and layout, model
  name and how it was found, task, metric, filter and ``where`` conditions;
* :class:`Provenance`: the origins of a result's inputs, other files it read (a policy),
  the seed, the evalsig version and the UTC time it was made.

Standard input (``-``) is read into a temporary file; within :func:`standard_input` that
file is recorded as ``-`` (with the size and SHA-256 of the bytes read), never by the
temporary name, and :func:`shown` names it so in messages.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "STDIN",
    "STDIN_TEXT",
    "FileRecord",
    "ModelFrom",
    "Origin",
    "Provenance",
    "file_record",
    "in_memory_origin",
    "is_standard_input",
    "prefetch_hashes",
    "provenance",
    "sha256_of",
    "shown",
    "standard_input",
    "without_time",
]

ModelFrom = Literal["harness metadata", "--where model=", "model column", "file name", "given"]
"""How an origin's model name was found."""

CHUNK = 1 << 20
"""Bytes hashed at a time: memory stays flat whatever the file's size."""

_HASHES: dict[tuple[str, int, int], str] = {}
"""SHA-256 by (absolute path, size, mtime_ns): a file read twice is hashed once."""

STDIN = "-"
"""The path that means standard input, and how its file is recorded."""

STDIN_TEXT = "standard input (-)"
"""Standard input named in a message."""

_STANDARD_INPUT: dict[str, str] = {}
"""Temporary files holding standard input: absolute path -> the path as the readers got it."""


@contextmanager
def standard_input(path: str | os.PathLike[str]) -> Iterator[None]:
    """Within the block, the file at ``path`` holds standard input: its :class:`FileRecord`
    says ``-`` and no model name is taken from its (temporary) name."""
    key = os.path.abspath(path)
    _STANDARD_INPUT[key] = str(path)
    try:
        yield
    finally:
        _STANDARD_INPUT.pop(key, None)


def is_standard_input(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a temporary file holding standard input (see :func:`standard_input`)."""
    return bool(_STANDARD_INPUT) and os.path.abspath(path) in _STANDARD_INPUT


def shown(text: str, *, stdin: str = STDIN_TEXT) -> str:
    """``text`` with every temporary file holding standard input named ``stdin`` instead.

    >>> shown("scores.csv: line 2: not a number")
    'scores.csv: line 2: not a number'
    """
    for key, given in _STANDARD_INPUT.items():
        for name in dict.fromkeys((given, key)):
            text = text.replace(name, stdin)
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRecord:
    """One input file: its path as given, its size in bytes and the SHA-256 of its bytes."""

    path: str
    size: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


_PENDING: dict[tuple[str, int, int], Future[str]] = {}
"""Hashes started by :func:`prefetch_hashes` and not yet collected."""

PREFETCH_FROM = 4 << 20
"""Files from this size are hashed on a background thread while they are read."""


def _key(path: str | os.PathLike[str]) -> tuple[str, int, int]:
    info = os.stat(path)
    return (os.path.abspath(path), info.st_size, info.st_mtime_ns)


def _digest(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)  # releases the GIL: a background hash runs beside parsing
    return digest.hexdigest()


def prefetch_hashes(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Start hashing large files on one background thread, so that their hashes are ready
    (or nearly) when reading them ends; :func:`sha256_of` collects the result."""
    for path in paths:
        try:
            if not os.path.isfile(path) or os.path.getsize(path) < PREFETCH_FROM:
                continue
            key = _key(path)
        except OSError:
            continue  # the reader reports the problem
        if key not in _HASHES and key not in _PENDING:
            _PENDING[key] = _hasher().submit(_digest, path)


@functools.cache
def _hasher() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalsig-hash")


def sha256_of(path: str | os.PathLike[str]) -> str:
    """SHA-256 (hex) of a file's bytes, read in chunks; cached per (path, size, mtime_ns)."""
    key = _key(path)
    cached = _HASHES.get(key)
    if cached is not None:
        return cached
    pending = _PENDING.pop(key, None)
    _HASHES[key] = _digest(path) if pending is None else pending.result()
    return _HASHES[key]


def file_record(path: str | os.PathLike[str]) -> FileRecord:
    """The :class:`FileRecord` of a file on disk (its path kept as given).

    A folder read as one source (a HELM run) is recorded by its files: the size is their
    total and the hash the SHA-256 of the lines ``relative path NUL sha256`` in sorted order.
    """
    if not os.path.isdir(path):
        shown_path = STDIN if is_standard_input(path) else str(path)
        return FileRecord(path=shown_path, size=os.stat(path).st_size, sha256=sha256_of(path))
    files = sorted(p for p in Path(path).rglob("*") if p.is_file())
    listing = "".join(f"{p.relative_to(path).as_posix()}\0{sha256_of(p)}\n" for p in files)
    return FileRecord(
        path=str(path),
        size=sum(p.stat().st_size for p in files),
        sha256=hashlib.sha256(listing.encode()).hexdigest(),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Origin:
    """Where one model's scores came from (see :func:`evalsig.load`)."""

    files: tuple[FileRecord, ...] = ()
    """The files read; empty for data passed in Python."""
    format: str
    """The reader ('csv', 'lm-eval', 'inspect' ...) or the Python type ('array', 'mapping',
    'dataframe', 'series', 'ScoreTable')."""
    layout: str | None = None
    """The format's version or layout as detected, e.g. 'v0.4.7 or later'."""
    model: str | None = None
    model_from: ModelFrom | None = None
    task: str | None = None
    metric: str | None = None
    filter: str | None = None
    where: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [f.to_dict() for f in self.files],
            "format": self.format,
            "layout": self.layout,
            "model": self.model,
            "model_from": self.model_from,
            "task": self.task,
            "metric": self.metric,
            "filter": self.filter,
            "where": dict(self.where),
        }


def in_memory_origin(kind: str, *, model: str | None = None) -> Origin:
    """The origin of data passed in Python (no file): its type, and the name if given."""
    return Origin(format=kind, model=model, model_from="given" if model else None)


def file_model(
    paths: Sequence[str], where: Iterable[tuple[str, str]], found: str | None
) -> tuple[str | None, ModelFrom | None]:
    """The model name and how it was found: the harness metadata, a ``where`` on a model
    column, else the (first) file's stem (standard input has no name: None)."""
    if found:
        return found, "harness metadata"
    for column, value in where:
        if "model" in column.lower():
            return value, "--where model="
    if not paths or is_standard_input(paths[0]):
        return None, None
    name = Path(paths[0]).name
    for suffix in (".gz", ".zip"):
        name = name.removesuffix(suffix)
    return Path(name).stem or name, "file name"


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """What a result compared, and when and with what it was computed."""

    inputs: tuple[tuple[str, Origin | None], ...] = ()
    """``(label, origin)`` of each input: ('baseline', ...), ('candidate', ...), a model."""
    files: tuple[tuple[str, FileRecord], ...] = ()
    """Other files the result read, by role: ('policy', ...), ('input', ...)."""
    seed: int | None = None
    evalsig_version: str
    created: str
    """UTC time the result was made, ISO 8601 (the only field that differs between runs)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": {
                label: None if origin is None else origin.to_dict() for label, origin in self.inputs
            },
            "files": {role: record.to_dict() for role, record in self.files},
            "seed": self.seed,
            "evalsig_version": self.evalsig_version,
            "created": self.created,
        }


def provenance(
    inputs: Mapping[str, Origin | None] | Iterable[tuple[str, Origin | None]] = (),
    *,
    files: Mapping[str, FileRecord] | None = None,
    seed: int | None = None,
) -> Provenance:
    """A :class:`Provenance` stamped now, with this evalsig's version."""
    pairs = inputs.items() if isinstance(inputs, Mapping) else inputs
    return Provenance(
        inputs=tuple(pairs),
        files=tuple((files or {}).items()),
        seed=seed,
        evalsig_version=_version(),
        created=_now(),
    )


def _version() -> str:
    """``evalsig.__version__`` (the package is imported before any of its modules)."""
    return str(sys.modules["evalsig"].__version__)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def without_time(document: Any) -> Any:
    """A result's JSON with every ``provenance.created`` removed (recursively): what two
    identical runs have in common, for comparing them."""
    if isinstance(document, list):
        return [without_time(value) for value in document]
    if not isinstance(document, Mapping):
        return document
    out = {key: without_time(value) for key, value in document.items()}
    if isinstance(out.get("provenance"), dict):
        out["provenance"] = {k: v for k, v in out["provenance"].items() if k != "created"}
    return out
