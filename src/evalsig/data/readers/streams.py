"""Opening data files safely, and decompressing them in bounded steps under one cap.

Every compressed input (a ``.gz`` file, a zip member stored with deflate, bzip2, LZMA or
Zstandard) is expanded a chunk at a time and stops with a :class:`TooLarge` error as soon
as it passes the cap, so a small "decompression bomb" never fills the memory. The cap is
``ReadOptions.max_decompressed_bytes``; its default comes from the environment variable
``EVALSIG_MAX_DECOMPRESSED`` (bytes, or a number with a K, M, G or T suffix in powers of
1024, e.g. ``4G``), else 1 GiB. Damaged compressed data (truncated, not compressed at all,
trailing garbage, a failed check) are :class:`~evalsig.errors.FormatError` naming the file
and the fault. Only regular files are opened: a named pipe, a device such as
``/dev/zero`` or a socket is refused before it is read.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import zlib
from pathlib import Path
from typing import BinaryIO

from evalsig.defaults import MAX_DECOMPRESSED_ENV
from evalsig.errors import DataError, FormatError, file_kind

__all__ = [
    "DEFAULT_CAP",
    "ENV_VAR",
    "GzipStream",
    "TooLarge",
    "check_file",
    "default_cap",
    "open_error",
    "over_cap",
    "parse_size",
    "raise_cap_hint",
]

ENV_VAR = MAX_DECOMPRESSED_ENV
"""The environment variable that sets the default decompression cap."""

DEFAULT_CAP = 2**30
"""The decompression cap when ``EVALSIG_MAX_DECOMPRESSED`` is not set: 1 GiB."""

CHUNK = 1 << 20
"""Compressed bytes read, and at most decompressed bytes produced, per step."""

GZIP_MAGIC = b"\x1f\x8b"

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


class TooLarge(FormatError):
    """Compressed data would expand past the decompression cap."""


def parse_size(text: str, *, what: str = ENV_VAR) -> int:
    """A size in bytes from ``'1073741824'``, ``'512M'``, ``'4G'`` or ``'1.5GiB'``.

    Examples
    --------
    >>> parse_size("4G"), parse_size("512 MiB"), parse_size("1000")
    (4294967296, 536870912, 1000)
    """
    match = _SIZE.fullmatch(text)
    size = 0
    if match is not None:
        size = int(float(match[1]) * _UNITS[match[2].upper()])
    if size < 1:
        raise DataError(
            f"{what}={text!r} is not a size; give a positive number of bytes, or a number "
            f"with a K, M, G or T suffix (powers of 1024), e.g. {what}=4G."
        )
    return size


def default_cap() -> int:
    """The decompression cap: ``EVALSIG_MAX_DECOMPRESSED`` when set, else 1 GiB."""
    text = os.environ.get(ENV_VAR, "")
    return parse_size(text) if text.strip() else DEFAULT_CAP


def _size_text(size: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit] and size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]} {unit}iB"
    return f"{size:,} bytes"


def raise_cap_hint(cap: int) -> str:
    """How to raise the cap, with a suggested value four times the current one."""
    suggested = 4 * cap
    unit = next((u for u in ("G", "M", "K") if suggested >= _UNITS[u]), "")
    value = -(-suggested // _UNITS[unit])  # rounded up
    return (
        f"raise the cap with the environment variable {ENV_VAR}={value}{unit} "
        "(in Python also ReadOptions(max_decompressed_bytes=...))"
    )


def over_cap(source: str, cap: int) -> TooLarge:
    """The error for data that expand past ``cap``."""
    return TooLarge(
        f"{source}: expands to more than {cap:,} bytes ({_size_text(cap)}) when decompressed, "
        f"evalsig's cap; refusing to read further (a corrupt or malicious file?). If the "
        f"file is genuine, {raise_cap_hint(cap)}."
    )


# --- opening files ---------------------------------------------------------------------


def open_error(path: Path | str, exc: OSError) -> FormatError:
    """A one-line error for an OSError met opening or reading ``path``, with the fix."""
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        why = "permission denied; check the file's permissions (e.g. chmod u+r) or its owner"
    elif code == errno.ENOENT:
        why = "no such file (was it moved or deleted while evalsig was reading?)"
    elif code == errno.EISDIR:
        why = "is a directory, not a file; name a file inside it"
    elif code == errno.ELOOP:
        why = "a symbolic link that loops; point it at a real file"
    else:
        why = f"{exc.strerror or exc}; check the disk or the network share it is on"
    return FormatError(f"{path}: cannot read it: {why}.")


def check_file(path: Path) -> os.stat_result:
    """Stat ``path`` and refuse anything but a regular file (before opening it)."""
    try:
        info = path.stat()
    except OSError as exc:
        raise open_error(path, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise FormatError(
            f"{path}: is a directory, not a file; name a file inside it (or let the format "
            "be detected: lm-evaluation-harness and HELM folders are read whole)."
        )
    if not stat.S_ISREG(info.st_mode):
        kind = file_kind(info.st_mode)
        raise FormatError(
            f"{path}: is {kind}, not a regular file; evalsig reads a file more than once "
            "(first to detect its format), so save the data to a file and pass that."
        )
    return info


# --- gzip ------------------------------------------------------------------------------


class GzipStream(io.RawIOBase):
    """A gzip file's decompressed bytes, read in bounded steps, failing past ``cap``.

    Several gzip members one after another (``cat a.gz b.gz``) are read as one stream, and
    zero bytes after the last member are ignored, as ``gzip`` does. Anything else is an
    error: a stream that ends before its end marker, data that are not gzip, a failed CRC
    or length check, or other bytes after the last member.
    """

    def __init__(self, raw: BinaryIO, cap: int, source: str) -> None:
        super().__init__()
        self._raw = raw
        self._cap = cap
        self._left = cap
        self._source = source
        self._inflater = zlib.decompressobj(31)
        self._input = b""
        self._read = 0
        """Compressed bytes read so far (to say where damage was found)."""
        self._done = False
        self._start()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        while not self._done:
            data = self._step(len(view))
            if data:
                view[: len(data)] = data
                return len(data)
        return 0

    def read_all(self) -> bytearray:
        """Everything that is left, decompressed (a bytearray: no second copy is made)."""
        out = bytearray()
        while not self._done:
            out += self._step(CHUNK)
        return out

    def _fill(self) -> bytes:
        data = self._raw.read(CHUNK)
        self._read += len(data)
        return data

    def _start(self) -> None:
        first = self._fill()
        if not first:
            raise FormatError(
                f"{self._source}: the file is empty (0 bytes), so it holds no gzip data; "
                "was it written completely?"
            )
        if not first.startswith(GZIP_MAGIC):
            raise FormatError(
                f"{self._source}: not gzip-compressed: it does not start with the gzip "
                f"signature 1f 8b (it starts with {first[:8]!r}); if it is plain text, drop "
                "the .gz suffix from its name, else re-download it."
            )
        self._input = first

    def _step(self, size: int) -> bytes:
        """Decompress at most ``size`` bytes (b'' when input was consumed but none came)."""
        inflater = self._inflater
        if inflater.eof:
            rest, self._input = inflater.unused_data + self._input, b""
            self._next_member(rest)
            return b""
        if not self._input:
            self._input = self._fill()
            if not self._input:
                raise FormatError(
                    f"{self._source}: truncated: the gzip stream ends before its end marker "
                    f"(after {self._read:,} compressed bytes); re-download or re-compress it."
                )
        try:
            data = inflater.decompress(self._input, size)
        except zlib.error as exc:
            raise self._corrupt(exc) from None
        self._input = inflater.unconsumed_tail
        if len(data) > self._left:
            raise over_cap(self._source, self._cap)
        self._left -= len(data)
        return data

    def _corrupt(self, exc: zlib.error) -> FormatError:
        reason = str(exc).partition(": ")[2] or str(exc)
        if "data check" in reason or "length check" in reason:
            what = f"the gzip {reason.removeprefix('incorrect ')} failed, so the data are damaged"
        else:
            what = f"damaged gzip data ({reason}) within the first {self._read:,} bytes"
        return FormatError(f"{self._source}: corrupt: {what}; re-download or re-compress it.")

    def _next_member(self, rest: bytes) -> None:
        """After a member's end: another member, zero padding, the end, or garbage."""
        while True:
            rest = rest.lstrip(b"\0")
            if len(rest) >= len(GZIP_MAGIC):
                break
            more = self._fill()
            if not more:
                if rest:
                    raise self._trailing(rest)
                self._done = True
                return
            rest += more
        if not rest.startswith(GZIP_MAGIC):
            raise self._trailing(rest)
        self._inflater = zlib.decompressobj(31)
        self._input = rest

    def _trailing(self, rest: bytes) -> FormatError:
        return FormatError(
            f"{self._source}: corrupt: data that are not gzip follow the end of the gzip "
            f"stream (starting {rest[:8]!r}); the file was damaged or something was appended "
            "to it: re-download or re-compress it."
        )
