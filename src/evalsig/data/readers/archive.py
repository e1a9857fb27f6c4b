"""Zip archives read safely and fast: in memory, a member at a time, with a size cap.

Members are never extracted, so paths inside an archive never touch the file system; a
member name that is absolute or climbs out with ``..`` is still refused, since it marks
a corrupt or malicious archive. Every member's decompressed size is capped twice: by its
declared size (checked before reading) and by the bytes actually produced (a member that
lies about its size is stopped one byte past what it declared). The archive is memory-mapped and
each member's data is located from its local header and decompressed directly (stored,
deflate, or Zstandard with the ``zstandard`` package), with its CRC verified.
"""

from __future__ import annotations

import io
import mmap
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from evalsig.errors import FormatError

__all__ = ["Archive", "TooLarge", "read_zip_member"]

ZSTD = 93
"""The zip compression method number of Zstandard (Inspect's default since 0.3.206)."""

_UNSAFE = re.compile(r"^(?:[/\\]|[A-Za-z]:)|(?:^|[/\\])\.\.(?:[/\\]|$)")


class TooLarge(FormatError):
    """A zip member would expand past the decompression cap."""


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
    def open(cls, path: Path) -> Archive:
        """Open ``path``; a FormatError if it is not a readable zip or has unsafe names."""
        try:
            handle = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise FormatError(
                f"{path}: not a readable zip archive: it is truncated or corrupt ({exc})."
            ) from None
        for info in handle.infolist():
            if _UNSAFE.search(info.filename):
                handle.close()
                raise FormatError(
                    f"{path}: member {info.filename!r} has an unsafe path (absolute or with "
                    "'..'); refusing to read the archive (a corrupt or malicious archive?)."
                )
        archive = cls(path, {i.filename: i for i in handle.infolist() if not i.is_dir()}, handle)
        raw = open(path, "rb")  # noqa: SIM115 - closed in close()
        archive._file = raw
        try:
            archive._map = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file, or no mmap here: read through zipfile
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

    def read(self, info: zipfile.ZipInfo, limit: int) -> bytes:
        """The member's bytes; TooLarge past ``limit``, FormatError when corrupt."""
        name = info.filename
        if info.file_size > limit:
            raise TooLarge(
                f"{self.path}: member {name!r} declares {info.file_size:,} bytes, more than the "
                f"{limit:,}-byte cap; refusing to decompress it (a corrupt or malicious archive?)."
            )
        if info.flag_bits & 0x1:
            raise FormatError(f"{self.path}: member {name!r} is encrypted; evalsig cannot read it.")
        view = self._map
        budget = min(limit, info.file_size)  # no member may produce more than it declares
        data = self._fallback(info, budget) if view is None else self._inflate(view, info, budget)
        if len(data) > info.file_size:
            raise FormatError(
                f"{self.path}: member {name!r} declares {info.file_size:,} bytes but expands to "
                "more; refusing to read further (a corrupt or malicious archive?)."
            )
        if zlib.crc32(data) != info.CRC:
            raise FormatError(f"{self.path}: member {name!r} is corrupt (bad CRC).")
        return data

    def _compressed(self, view: mmap.mmap, info: zipfile.ZipInfo) -> bytes:
        start = info.header_offset
        local = view[start : start + 30]
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise FormatError(f"{self.path}: member {info.filename!r} has a corrupt local header.")
        begin = (
            start
            + 30
            + int.from_bytes(local[26:28], "little")
            + int.from_bytes(local[28:30], "little")
        )
        data = view[begin : begin + info.compress_size]
        if len(data) != info.compress_size:
            raise FormatError(f"{self.path}: member {info.filename!r} is truncated.")
        return data

    def _inflate(self, view: mmap.mmap, info: zipfile.ZipInfo, limit: int) -> bytes:
        method = info.compress_type
        packed = self._compressed(view, info)
        try:
            if method == zipfile.ZIP_STORED:
                return packed
            if method == zipfile.ZIP_DEFLATED:
                return zlib.decompressobj(-15).decompress(packed, limit + 1)
            if method == ZSTD:
                return _unzstd(packed, limit, self.path, info.filename)
        except zlib.error as exc:
            raise FormatError(
                f"{self.path}: member {info.filename!r} is corrupt ({exc})."
            ) from None
        return self._fallback(info, limit)

    def _fallback(self, info: zipfile.ZipInfo, limit: int) -> bytes:
        """Read through ``zipfile`` (other compression methods, or no memory map)."""
        if self._zip is None:
            raise FormatError(f"{self.path}: the archive is closed.")
        try:
            with self._zip.open(info) as member:
                return member.read(limit + 1)
        except NotImplementedError:
            if info.compress_type == ZSTD:
                return _unzstd(self._compressed_slow(info), limit, self.path, info.filename)
            raise FormatError(
                f"{self.path}: member {info.filename!r} uses compression method "
                f"{info.compress_type}, which evalsig cannot read."
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError) as exc:
            raise FormatError(
                f"{self.path}: member {info.filename!r} is corrupt ({exc})."
            ) from None

    def _corrupt(self, info: zipfile.ZipInfo, exc: Exception) -> FormatError:
        return FormatError(f"{self.path}: member {info.filename!r} is corrupt ({exc}).")

    def _compressed_slow(self, info: zipfile.ZipInfo) -> bytes:
        with open(self.path, "rb") as f:
            f.seek(info.header_offset)
            local = f.read(30)
            f.seek(info.header_offset + 30 + int.from_bytes(local[26:28], "little")
                   + int.from_bytes(local[28:30], "little"))  # fmt: skip
            return f.read(info.compress_size)


def _unzstd(packed: bytes, limit: int, path: Path, name: str) -> bytes:
    """Decompress a Zstandard member, producing at most ``limit + 1`` bytes."""
    try:
        import zstandard
    except ImportError:
        raise FormatError(
            f"{path}: member {name!r} is Zstandard-compressed (Inspect's default since "
            "0.3.206); reading it needs the zstandard package: pip install 'evalsig[inspect]'."
        ) from None
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed)) as reader:
            return bytes(reader.read(limit + 1))
    except zstandard.ZstdError as exc:
        raise FormatError(f"{path}: member {name!r} is corrupt ({exc}).") from None


def read_zip_member(
    path: Path, limit: int, suffixes: tuple[str, ...] = (".json", ".jsonl")
) -> tuple[str, bytes]:
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
