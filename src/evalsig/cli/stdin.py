"""``-`` as a path: standard input, read once into a temporary file that the readers open.

The file's name carries a suffix, so the readers know the format: the ``--input-format``
given, else one sniffed from the content (gzip, Parquet, JSON, JSON Lines, CSV or TSV).
Standard input is refused beyond the decompression cap (``EVALSIG_MAX_DECOMPRESSED``), the
same cap a compressed file is held to. While it is read, the temporary file is recorded as
``-`` (its size and SHA-256 in the result's provenance), and errors and notes name it
"standard input (-)", never by its temporary name.
"""

from __future__ import annotations

import json
import sys
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import typer

from evalsig.errors import DataError, EvalsigError

__all__ = ["STDIN", "as_given", "stdin_paths", "suffix_for"]

STDIN = "-"
"""The path that means standard input (``evalsig.data.provenance.STDIN``, which imports
numpy with its package: not at start-up)."""

SUFFIXES = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl", "json": ".json", "parquet": ".parquet"}
"""The file suffix of each input format that has one of its own."""

CHUNK = 1 << 20
HEAD = 1 << 16


@contextmanager
def stdin_paths(paths: Sequence[str | Path], input_format: str = "auto") -> Iterator[list[str]]:
    """``paths`` as text, with ``-`` replaced by a temporary file holding standard input.

    Standard input can be read once: ``-`` given twice is a usage error. Inside the block
    the file is recorded as ``-`` (see :func:`evalsig.data.provenance.standard_input`), and
    an error raised there names standard input, not the temporary file.
    """
    texts = [str(p) for p in paths]
    if texts.count(STDIN) > 1:
        raise typer.BadParameter("standard input (-) can be read once; give - for one input.")
    if STDIN not in texts:
        yield texts
        return
    from evalsig.data.provenance import standard_input

    with tempfile.TemporaryDirectory(prefix="evalsig-stdin-") as folder:
        saved = _save(sys.stdin.buffer, Path(folder), input_format)
        with standard_input(saved), _named_in_errors():
            yield [saved if t == STDIN else t for t in texts]


@contextmanager
def _named_in_errors() -> Iterator[None]:
    """Errors raised in the block name standard input where they named its temporary file."""
    from evalsig.data.provenance import shown

    try:
        yield
    except EvalsigError as exc:
        exc.args = tuple(shown(a) if isinstance(a, str) else a for a in exc.args)
        raise
    except OSError as exc:
        if isinstance(exc.filename, str):
            exc.filename = shown(exc.filename)
        raise


def as_given(document: Any, *, path: str | None = None) -> Any:
    """A result's JSON with standard input's temporary file named "standard input (-)" in
    every string (notes, sources), or ``path`` in the fields named ``path`` when given; call
    it inside :func:`stdin_paths`."""
    return _named(document, "", path)


def _named(document: Any, key: str, path: str | None) -> Any:
    from evalsig.data.provenance import shown

    if isinstance(document, str):
        return (
            shown(document, stdin=path) if key == "path" and path is not None else shown(document)
        )
    if isinstance(document, list):
        return [_named(value, key, path) for value in document]
    if isinstance(document, dict):
        return {name: _named(value, name, path) for name, value in document.items()}
    return document


def _save(stream: BinaryIO, folder: Path, input_format: str) -> str:
    """Copy ``stream`` into ``folder`` under a name whose suffix tells its format."""
    from evalsig.data.readers.streams import default_cap, raise_cap_hint

    cap = default_cap()
    head = stream.read(HEAD)
    if not head:
        raise DataError("standard input (-) is empty; pipe the results in, or give a file.")
    target = folder / f"stdin{suffix_for(head, input_format)}"
    size = 0
    with target.open("wb") as out:
        chunk = head
        while chunk:
            size += len(chunk)
            if size > cap:
                raise DataError(
                    f"standard input (-): more than {cap:,} bytes, evalsig's cap on an input "
                    f"held in a temporary file; save it to a file, or {raise_cap_hint(cap)}."
                )
            out.write(chunk)
            chunk = stream.read(CHUNK)
    return str(target)


def suffix_for(head: bytes, input_format: str = "auto") -> str:
    """The suffix of a file starting with ``head``: the format given, else the content's.

    Gzip adds ``.gz`` to the suffix of what it holds; a harness format (lm-eval, Inspect ...)
    keeps the suffix of its container (JSON or JSON Lines) and is forced by name.
    """
    if head.startswith(b"\x1f\x8b"):
        inner = zlib.decompressobj(wbits=31).decompress(head, HEAD)
        return suffix_for(inner, input_format) + ".gz"
    if input_format in SUFFIXES:
        return SUFFIXES[input_format]
    if head.startswith(b"PAR1"):
        return ".parquet"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        return ".json"
    if text.startswith("{"):
        return ".jsonl" if _first_line_is_json(text) else ".json"
    first = text.partition("\n")[0]
    return ".tsv" if "\t" in first and "," not in first else ".csv"


def _first_line_is_json(text: str) -> bool:
    """Whether the first line is one whole JSON value and more follows (JSON Lines)."""
    first, newline, rest = text.partition("\n")
    if not newline or not rest.strip():
        return False
    try:
        json.loads(first)
    except ValueError:
        return False
    return True
