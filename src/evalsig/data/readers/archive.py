"""Zip archives read safely and fast: in memory, a member at a time, with a size cap.

Members are never extracted, so paths inside an archive never touch the file system; a
member name that is absolute or climbs out with ``..`` is still refused, since it marks
a corrupt or malicious archive. Every member's decompressed size is capped twice: by its
declared size (checked before reading) and by the bytes actually produced, a chunk at a
time (a member that lies about its size is stopped one chunk past what it declared, never
expanded whole). Each member's data are located from its local header and decompressed in
bounded steps (stored, deflate, bzip2, or Zstandard with the ``zstandard`` package; other
methods such as LZMA through :mod:`zipfile` in small reads), and its size and CRC are
verified. The cap is ``ReadOptions.max_decompressed_bytes`` (see
:mod:`evalsig.data.readers.streams`).
"""

from __future__ import annotations

import bz2
import io
import mmap
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from evalsig.data.readers.streams import CHUNK, TooLarge, check_file, open_error, raise_cap_hint
from evalsig.errors import FormatError

__all__ = ["Archive", "TooLarge", "read_zip_member"]

ZSTD = 93
"""The zip compression method number of Zstandard (Inspect's default since 0.3.206)."""

_UNSAFE = re.compile(r"^(?:[/\\]|[A-Za-z]:)|(?:^|[/\\])\.\.(?:[/\\]|$)")


@dataclass(slots=True)
class Archive:
    """An open zip archive whose members are read whole, in memory, under a cap."""

    path: Path
    members: dict[str, zipfile.ZipInfo] = field(default_factory=dict)
    """Members by name; a name written twice maps to its last entry (the current one)."""
    _zip: zipfile.ZipFile | None = None
    _map: mmap.mmap | None = None
    _file: io.BufferedReader | None = None

    @classmethod
    def open(cls, path: Path, *, kind: str = "zip archive") -> Archive:
        """Open ``path``; a FormatError if it is not a readable zip or has unsafe names."""
        check_file(path)
        try:
            handle = zipfile.ZipFile(path)
        except OSError as exc:
            raise open_error(path, exc) from None
        except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
            raise _unreadable(path, kind, exc) from None
        for info in handle.infolist():
            if _UNSAFE.search(info.filename):
                handle.close()
                raise FormatError(
                    f"{path}: member {info.filename!r} has an unsafe path (absolute or with "
                    "'..'); refusing to read the archive (a corrupt or malicious archive?)."
                )
        archive = cls(path, {i.filename: i for i in handle.infolist() if not i.is_dir()}, handle)
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed in close()
        except OSError as exc:
            archive.close()
            raise open_error(path, exc) from None
        archive._file = raw
        try:
            archive._map = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # no mmap here: members are read with seek and read
            archive._map = None
        return archive

    def close(self) -> None:
        for resource in (self._map, self._file, self._zip):
            if resource is not None:
                resource.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def read(self, info: zipfile.ZipInfo, limit: int) -> bytes | bytearray:
        """The member's bytes; TooLarge past ``limit``, FormatError when damaged."""
        name = info.filename
        if info.file_size > limit:
            raise TooLarge(
                f"{self.path}: member {name!r} declares {info.file_size:,} bytes, more than the "
                f"{limit:,}-byte cap; refusing to decompress it (a corrupt or malicious "
                f"archive?). If the archive is genuine, {raise_cap_hint(limit)}."
            )
        if info.flag_bits & 0x1:
            raise FormatError(f"{self.path}: member {name!r} is encrypted; evalsig cannot read it.")
        budget = min(limit, info.file_size)  # no member may produce more than it declares
        data = self._expand(info, budget)
        if len(data) > info.file_size:
            raise FormatError(
                f"{self.path}: member {name!r} declares {info.file_size:,} bytes but expands to "
                "more; refusing to read further (a corrupt or malicious archive?)."
            )
        if len(data) < info.file_size:
            raise FormatError(
                f"{self.path}: member {name!r} is truncated: it expands to {len(data):,} of "
                f"the {info.file_size:,} bytes it declares; re-download or re-create the archive."
            )
        if zlib.crc32(data) != info.CRC:
            raise FormatError(
                f"{self.path}: member {name!r} is corrupt: its CRC check failed; re-download "
                "or re-create the archive."
            )
        return data

    def _compressed(self, info: zipfile.ZipInfo) -> bytes:
        """The member's compressed bytes, located from its local header."""
        start = info.header_offset
        local = self._read_at(start, 30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise FormatError(
                f"{self.path}: member {info.filename!r} has a corrupt local header; the archive "
                "is damaged: re-download or re-create it."
            )
        begin = (
            start
            + 30
            + int.from_bytes(local[26:28], "little")
            + int.from_bytes(local[28:30], "little")
        )
        data = self._read_at(begin, info.compress_size)
        if len(data) != info.compress_size:
            raise FormatError(
                f"{self.path}: member {info.filename!r} is truncated: the archive ends inside "
                "its data; re-download or re-create it."
            )
        return data

    def _read_at(self, offset: int, size: int) -> bytes:
        """``size`` bytes of the archive at ``offset`` (fewer at its end)."""
        if self._map is not None:
            return self._map[offset : offset + size]
        if self._file is None:
            raise FormatError(f"{self.path}: the archive is closed.")
        self._file.seek(offset)
        return self._file.read(size)

    def _expand(self, info: zipfile.ZipInfo, limit: int) -> bytes | bytearray:
        """At most about ``limit`` + one chunk decompressed bytes of the member."""
        method, name = info.compress_type, info.filename
        if method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, ZSTD):
            return self._through_zipfile(info, limit)
        packed = self._compressed(info)
        try:
            if method == zipfile.ZIP_STORED:
                return packed
            if method == zipfile.ZIP_DEFLATED:
                return _inflate(packed, limit)
            if method == zipfile.ZIP_BZIP2:
                return _unbzip2(packed, limit)
            return _unzstd(packed, limit, self.path, name)
        except (zlib.error, OSError, EOFError, ValueError) as exc:
            raise self._corrupt(info, exc) from None

    def _through_zipfile(self, info: zipfile.ZipInfo, limit: int) -> bytearray:
        """Other compression methods (LZMA ...): :mod:`zipfile` in small, bounded reads."""
        if self._zip is None:
            raise FormatError(f"{self.path}: the archive is closed.")
        out = bytearray()
        try:
            with self._zip.open(info) as member:
                # zipfile expands 4 KiB of compressed data per read: a bounded step.
                while len(out) <= limit and (piece := member.read(4096)):
                    out += piece
        except NotImplementedError:
            raise FormatError(
                f"{self.path}: member {info.filename!r} uses compression method "
                f"{info.compress_type}, which evalsig cannot read; re-create the archive "
                "with deflate compression."
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError) as exc:
            raise self._corrupt(info, exc) from None
        return out

    def _corrupt(self, info: zipfile.ZipInfo, exc: Exception) -> FormatError:
        return FormatError(
            f"{self.path}: member {info.filename!r} is corrupt ({exc}); re-download or "
            "re-create the archive."
        )


def _unreadable(path: Path, kind: str, exc: Exception) -> FormatError:
    """Why ``path`` cannot be opened as a zip archive, and what to do."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as error:
        return open_error(path, error)
    if not head:
        return FormatError(
            f"{path}: the file is empty (0 bytes), not a {kind}; was it written completely?"
        )
    if not head.startswith(b"PK"):
        return FormatError(
            f"{path}: not a readable {kind}: it does not start with the zip signature 'PK' "
            f"(it starts with {head!r}); check that this is the file you meant."
        )
    return FormatError(
        f"{path}: not a readable {kind}: the zip archive is truncated or corrupt ({exc}); "
        "re-download or re-create it."
    )


def _inflate(packed: bytes, limit: int) -> bytearray:
    """Raw deflate data, expanded a chunk at a time, stopping once past ``limit``."""
    inflater = zlib.decompressobj(-15)
    out = bytearray()
    data = packed
    while not inflater.eof and len(out) <= limit:
        piece = inflater.decompress(data, CHUNK)
        out += piece
        data = inflater.unconsumed_tail
        if not data and not piece:
            break  # the input ended before the end marker: a size check reports it
    return out


def _unbzip2(packed: bytes, limit: int) -> bytearray:
    """A bzip2 stream, expanded a chunk at a time, stopping once past ``limit``."""
    expander = bz2.BZ2Decompressor()
    out = bytearray()
    data = packed
    while not expander.eof and len(out) <= limit:
        piece = expander.decompress(data, CHUNK)
        data = b""
        out += piece
        if not piece and expander.needs_input:
            break
    return out


def _unzstd(packed: bytes, limit: int, path: Path, name: str) -> bytearray:
    """Zstandard frames, expanded a chunk at a time, stopping once past ``limit``."""
    try:
        import zstandard
    except ImportError:
        raise FormatError(
            f"{path}: member {name!r} is Zstandard-compressed (Inspect's default since "
            "0.3.206); reading it needs the zstandard package: "
            "pip install 'evalsig-stats[inspect]'."
        ) from None
    out = bytearray()
    try:
        with zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(packed), read_across_frames=True
        ) as reader:
            while len(out) <= limit and (piece := reader.read(CHUNK)):
                out += piece
    except zstandard.ZstdError as exc:
        raise FormatError(
            f"{path}: member {name!r} is corrupt ({exc}); re-download or re-create the archive."
        ) from None
    return out


def read_zip_member(
    path: Path, limit: int, suffixes: tuple[str, ...] = (".json", ".jsonl")
) -> tuple[str, bytes | bytearray]:
    """The one JSON member of a zip archive, read in memory with a decompression cap."""
    with Archive.open(path) as archive:
        found = [i for i in archive.members.values() if i.filename.endswith(suffixes)]
        if len(found) != 1:
            names = ", ".join(list(archive.members)[:5]) or "none"
            raise FormatError(
                f"{path}: expected one JSON file in the archive, found {len(found)} "
                f"(members: {names})."
            )
        return found[0].filename, archive.read(found[0], limit)
