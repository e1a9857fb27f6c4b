"""How plugins are found, loaded and kept apart (the machinery of :mod:`evalsig.plugins`).

The registries of the input layer (readers) and above consult it; plugin authors use
:mod:`evalsig.plugins`, which re-exports these names beside the helpers that build results.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from evalsig.errors import EvalsigError, EvalsigWarning

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "AUDIT_METHODS",
    "GROUPS",
    "METHODS",
    "READERS",
    "REPORT_SECTIONS",
    "Plugin",
    "PluginError",
    "PluginWarning",
    "describe",
    "isolated",
    "load_all",
    "load_group",
    "loaded",
    "warn_once",
]

READERS = "evalsig.readers"
METHODS = "evalsig.methods"
AUDIT_METHODS = "evalsig.audit_methods"
REPORT_SECTIONS = "evalsig.report_sections"

GROUPS: dict[str, str] = {
    READERS: "a reader (name, sniff, read), or a class or function making one",
    METHODS: "a PairedTest, or a paired-test function, for compare(method=...)",
    AUDIT_METHODS: "an AuditMethod, or a function (data, rng) -> (estimate, low, high)",
    REPORT_SECTIONS: "a (kind, build) pair, or an object with kind and build",
}
"""Every entry-point group evalsig reads, and what its entry points must name."""

_REGISTRIES = {
    READERS: "evalsig.data.readers",
    METHODS: "evalsig.comparison",
    AUDIT_METHODS: "evalsig.simulate.audit_methods",
    REPORT_SECTIONS: "evalsig.report.html",
}
"""The module whose ``load_plugins()`` registers each group's plugins in its registry."""


class PluginWarning(EvalsigWarning):
    """A plugin was skipped: it failed to load, has the wrong shape, or takes a name that
    is already registered; or a part of it failed and was passed over (a reader's ``sniff``,
    a report view). evalsig works on without it."""


class PluginError(EvalsigError):
    """A plugin's object cannot be registered; or a plugin's code failed where its result
    is needed (a reader's ``read``, a paired test, an audit method), or returned something
    other than the result asked for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Plugin:
    """One entry point of an installed distribution, and what became of it."""

    group: str
    name: str
    """The entry point's name."""
    target: str
    """What it points at, ``module:object``."""
    distribution: str
    version: str
    provides: str = ""
    """What it registered, e.g. "reader 'quizlog'"; empty when it was skipped."""
    error: str = ""
    """Why it was skipped; empty when it was registered."""

    @property
    def loaded(self) -> bool:
        """Whether the plugin was registered."""
        return not self.error

    @property
    def source(self) -> str:
        """The distribution and its version, e.g. 'evalsig-quizlog 0.1.0'."""
        return f"{self.distribution} {self.version}".strip()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields (strings and a boolean)."""
        return {
            "group": self.group,
            "name": self.name,
            "target": self.target,
            "distribution": self.distribution,
            "version": self.version,
            "loaded": self.loaded,
            "provides": self.provides,
            "error": self.error,
        }


Install = Callable[[object, Plugin], str]
"""``install(obj, plugin) -> what it registered``: the registry's own check and
registration of the object an entry point names; raises when the object does not fit."""

_lock = threading.RLock()
_records: dict[str, tuple[Plugin, ...]] = {}
"""The plugins of each group loaded so far (a group is loaded once per process)."""


def load_group(group: str, install: Install) -> tuple[Plugin, ...]:
    """Load and register the plugins of ``group`` once; later calls return the same records.

    Every entry point of the group is loaded and handed to ``install`` (the registry's
    own check and registration), in the order of distribution and entry-point name. Any
    exception on the way skips that plugin with a :class:`PluginWarning`.
    """
    with _lock:
        if group in _records:
            return _records[group]
        _records[group] = ()  # a plugin that consults the registry while loading: no recursion
        done = tuple(_load_one(group, entry, install) for entry in _entry_points(group))
        _records[group] = done
        return done


def loaded() -> tuple[Plugin, ...]:
    """The plugins of every group loaded so far, registered or skipped."""
    with _lock:
        return tuple(p for group in GROUPS for p in _records.get(group, ()))


def load_all() -> tuple[Plugin, ...]:
    """Load the plugins of every group (as their registries would at first use)."""
    for group in GROUPS:
        import_module(_REGISTRIES[group]).load_plugins()
    return loaded()


def _entry_points(group: str) -> list[EntryPoint]:
    from importlib import metadata

    try:
        found = list(metadata.entry_points(group=group))
    except Exception as exc:  # broken metadata of some installed distribution
        _warn(f"could not list the entry points of group {group} ({_why(exc)}); no plugin loaded.")
        return []
    return sorted(found, key=lambda entry: (_distribution(entry)[0], entry.name))


def _distribution(entry: EntryPoint) -> tuple[str, str]:
    dist = getattr(entry, "dist", None)
    if dist is None:
        return "(unknown distribution)", ""
    return str(dist.name), str(dist.version)


def _load_one(group: str, entry: EntryPoint, install: Install) -> Plugin:
    name, version = _distribution(entry)
    record = Plugin(
        group=group, name=entry.name, target=entry.value, distribution=name, version=version
    )
    try:
        provides = install(entry.load(), record)
    except (Exception, SystemExit) as exc:  # a plugin must never break (or end) evalsig
        why = _why(exc)
        _warn(f"{describe(record)} was skipped: {why} {_works_on(record)}")
        return replace(record, error=why)
    return replace(record, provides=provides)


def describe(plugin: Plugin) -> str:
    """``plugin 'NAME' of DISTRIBUTION VERSION (entry point NAME = TARGET in group GROUP)``."""
    return (
        f"plugin {plugin.name!r} of {plugin.source} (entry point {plugin.name} = "
        f"{plugin.target} in group {plugin.group})"
    )


def _works_on(plugin: Plugin) -> str:
    return f"evalsig works on without it; fix or uninstall {plugin.distribution}."


def _why(exc: BaseException) -> str:
    """The error as one sentence: its message, after its type unless evalsig raised it."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})."
    text = " ".join(str(exc).split()) or "(no message)"
    if not isinstance(exc, PluginError):
        text = f"{type(exc).__name__}: {text}"
    return text if text.endswith((".", "!", "?")) else text + "."


_warned: set[tuple[str, str, str]] = set()
"""``(group, entry point, what failed)`` of the failures warned about already."""


def warn_once(plugin: Plugin, doing: str, exc: BaseException) -> None:
    """One :class:`PluginWarning` per plugin and ``doing`` (e.g. "its reader's sniff"),
    the first time that part of the plugin fails: it is passed over from then on."""
    key = (plugin.group, plugin.name, doing)
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    _warn(f"{describe(plugin)}: {doing} failed and is passed over: {_why(exc)} {_works_on(plugin)}")


@contextmanager
def isolated(doing: str, fix: str) -> Iterator[None]:
    """Run a plugin's code: evalsig's own errors pass, any other failure (``sys.exit``
    included, ``KeyboardInterrupt`` not) becomes one :class:`PluginError`,
    ``"{doing} failed: {error} {fix}"``."""
    try:
        yield
    except EvalsigError:
        raise
    except (Exception, SystemExit) as exc:
        raise PluginError(f"{doing} failed: {_why(exc)} {fix}") from exc


def _warn(message: str) -> None:
    warnings.warn(f"evalsig: {message}", PluginWarning, stacklevel=2)
