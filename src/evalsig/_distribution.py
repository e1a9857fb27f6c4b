"""Which installed distribution provides ``evalsig``, and whether another one shares its files.

``import evalsig`` and the ``evalsig`` command come from the distribution ``evalsig-stats``.
An unrelated distribution named ``evalsig`` (on the package index) writes the same
``evalsig/`` package folder and the same ``evalsig`` command, so in one environment the one
installed last silently overwrites the other's files, and uninstalling either deletes files
the other needs. What can be told from here:

* the other distribution is installed: its metadata (an ``evalsig-*.dist-info`` or
  ``evalsig.egg-info`` folder on ``sys.path``) is found by listing the folders of
  ``sys.path``, without importing :mod:`importlib.metadata`, so that every command can
  check at no noticeable cost;
* files of ours were overwritten or deleted: only for a regular (non-editable) install,
  whose ``RECORD`` lists each file with its hash; the files that both distributions list
  are hashed and compared (nothing is read unless the other distribution is installed);
* our own metadata is missing: ``evalsig`` runs from a source tree (``PYTHONPATH``), which
  is legitimate and not an error; ``evalsig --version`` says so.

When the other distribution's files replaced ours the way in, ``evalsig`` runs the other
project and nothing of this module runs: that case only its fix, in the README, can reach.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import Distribution

__all__ = ["DISTRIBUTION", "FIX", "OTHER", "Conflict", "conflict", "version_lines"]

DISTRIBUTION = "evalsig-stats"
"""The name this project is installed by: ``pip install evalsig-stats``."""

OTHER = "evalsig"
"""The normalised name of the unrelated distribution that writes the same files."""

FIX = f"pip uninstall {OTHER}, then pip install --force-reinstall {DISTRIBUTION}"
"""The fix, in this order: uninstalling the other deletes the files both list, which the
reinstall then writes back."""

_SHOWN = 3
"""How many overwritten files a message names."""


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _other_metadata() -> Path | None:
    """The other distribution's metadata folder on ``sys.path``, or None (a listing of
    each ``sys.path`` folder; the first one found, as importlib.metadata would)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip file, a missing folder
            continue
        for name in names:
            stem, dot, suffix = name.rpartition(".")
            metadata = dot and suffix in ("dist-info", "egg-info")
            if metadata and _normalise(stem.partition("-")[0]) == OTHER:
                return Path(entry or ".", name)
    return None


def _hash(path: Path, algorithm: str) -> str | None:
    """A RECORD-style hash of the file (urlsafe base64, no padding), or None if unreadable."""
    try:
        digest = hashlib.new(algorithm, path.read_bytes()).digest()
    except (OSError, ValueError):
        return None
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _ours() -> Distribution | None:
    from importlib import metadata

    try:
        return metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def _overwritten(ours: Distribution | None, other: Distribution) -> tuple[str, ...]:
    """Files that both distributions list whose content is no longer ours (or is gone).

    Needs our ``RECORD`` with hashes: a regular install has one, an editable install lists
    no package file (and so reports nothing).
    """
    if ours is None:
        return ()
    recorded = {
        str(f): (Path(str(f.locate())), f.hash.mode, f.hash.value)
        for f in ours.files or ()
        if f.hash is not None
    }
    changed = []
    for shared in sorted({str(f) for f in other.files or ()} & recorded.keys()):
        path, algorithm, value = recorded[shared]
        if _hash(path, algorithm) != value:
            changed.append(shared)
    return tuple(changed)


@dataclass(frozen=True, slots=True, kw_only=True)
class Conflict:
    """The other ``evalsig`` distribution, installed in this environment."""

    location: Path
    """Its metadata folder."""
    version: str
    """Its version (``?`` when its metadata does not say)."""
    summary: str
    """Its one-line description, from its metadata."""
    overwritten: tuple[str, ...]
    """Files of ours (as our RECORD lists them) that no longer hold our content."""
    former: bool = False
    """Whether it is this project itself, installed under its former distribution name
    (its summary is ours): the same files twice, not a different project."""

    @property
    def broken(self) -> bool:
        """Whether files of this installation were overwritten: results cannot be trusted."""
        return bool(self.overwritten)

    def message(self) -> str:
        """One line: what is installed, what it does to this one, and the fix."""
        other = f"another distribution named `{OTHER}` ({self.version}, {self.location})"
        if self.former:
            other = (
                f"an earlier install of this project under its former distribution name "
                f"`{OTHER}` ({self.version}, {self.location})"
            )
        if self.broken:
            names = ", ".join(self.overwritten[:_SHOWN])
            more = len(self.overwritten) - _SHOWN
            names += f" and {more} more" if more > 0 else ""
            return (
                f"files of {DISTRIBUTION} were overwritten by {other}, which writes the same "
                f"`evalsig` package and command ({names}); to repair this installation: {FIX}."
            )
        what = "it is a different project that writes" if not self.former else "both write"
        return (
            f"{other} is installed beside {DISTRIBUTION}; {what} the same `evalsig` package "
            f"and command, so installing or uninstalling either breaks the other. To keep "
            f"this one: {FIX}."
        )


def conflict() -> Conflict | None:
    """The other ``evalsig`` distribution if it is installed here, else None.

    Costs a listing of the ``sys.path`` folders when it is absent; when present, reads both
    distributions' metadata and hashes the files they share.
    """
    found = _other_metadata()
    if found is None:
        return None
    from importlib.metadata import PathDistribution

    other, ours = PathDistribution(found), _ours()
    summary = _field(other, "Summary")
    return Conflict(
        location=found,
        version=_field(other, "Version") or "?",
        summary=summary,
        overwritten=_overwritten(ours, other),
        former=ours is not None and bool(summary) and summary == _field(ours, "Summary"),
    )


def _field(distribution: Distribution, name: str) -> str:
    """A metadata field on one line ("" when the metadata or the field is missing)."""
    meta = distribution.metadata
    value = meta[name] if meta is not None and name in meta else None
    return " ".join(str(value or "").split())


def version_lines(version: str, found: Conflict | None) -> list[str]:
    """What ``evalsig --version`` prints: the version and distribution, then the conflict
    ``found`` (from :func:`conflict`) if any."""
    ours = _ours()
    if ours is not None:
        lines = [f"evalsig {version} ({DISTRIBUTION})"]
    else:
        where = Path(__file__).resolve().parent
        lines = [f"evalsig {version} ({DISTRIBUTION}, not installed: run from {where})"]
    if found is not None:
        lines.append(("error: " if found.broken else "warning: ") + found.message())
        if found.summary and not found.former:
            lines.append(f"(`{OTHER}` {found.version} describes itself as: {found.summary})")
    return lines
