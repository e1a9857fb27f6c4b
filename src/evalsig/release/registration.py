"""Pre-registration of a gate: fix the family of tests before the results are seen.

``evalsig register gate.yaml`` writes ``gate.registration.json``: the policy's content hash,
the task family and the decision settings, with the time of registration. ``evalsig gate``
compares the policy it is given with that record: a task added, dropped or renamed, or any
setting changed, after registration is refused unless explicitly overridden, and the report
says so either way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar, Literal

from evalsig import __version__
from evalsig._documents import clip, load_json, read_text, short
from evalsig.errors import DataError
from evalsig.release.policy import GatePolicy
from evalsig.result import Result

__all__ = [
    "Registration",
    "RegistrationCheck",
    "check_registration",
    "read_registration",
    "register",
]

Status = Literal["registered", "changed", "unregistered"]

MAX_RECORD_BYTES = 4 << 20
"""A record holds a policy's family and settings: policies stop at 1 MiB, records at 4."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Registration(Result):
    """The record written at registration time."""

    kind: ClassVar[str] = "gate-registration"

    policy_name: str
    policy_digest: str
    family: tuple[str, ...]
    settings: dict[str, Any]
    registered_at: str
    evalsig_version: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "gate-registration",
            "policy_name": self.policy_name,
            "policy_digest": self.policy_digest,
            "family": list(self.family),
            "settings": self.settings,
            "registered_at": self.registered_at,
            "evalsig_version": self.evalsig_version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationCheck:
    """How the policy used now relates to its registration."""

    status: Status
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    changed_settings: tuple[str, ...] = ()
    registered_at: str | None = None
    overridden: bool = False

    def summary(self) -> str:
        if self.status == "unregistered":
            return (
                "not pre-registered: the family of tests was not fixed before the results "
                "were seen (evalsig register gate.yaml)."
            )
        if self.status == "registered":
            return f"pre-registered on {self.registered_at}; the policy is unchanged."
        parts = []
        if self.added:
            parts.append(f"added {_names(self.added)}")
        if self.dropped:
            parts.append(f"dropped {_names(self.dropped)}")
        if self.changed_settings:
            parts.append(f"changed {_names(self.changed_settings)}")
        what = "; ".join(parts) or "changed task claims"
        state = "run anyway because the override was given" if self.overridden else "refused"
        return (
            f"the policy differs from its registration of {self.registered_at} ({what}): {state}."
        )


def _names(names: tuple[str, ...], shown: int = 5) -> str:
    """The first ``shown`` names, each cut short, and how many more."""
    text = ", ".join(clip(name, 40) for name in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _settings(policy: GatePolicy) -> dict[str, Any]:
    content = policy.content()
    content.pop("tasks")
    content.pop("name")
    return content


def register(
    policy: GatePolicy,
    /,
    *,
    path: str | os.PathLike[str] | None = None,
    now: datetime | None = None,
) -> tuple[Registration, Path]:
    """Write the registration record of ``policy`` (next to it: ``<stem>.registration.json``)."""
    target = Path(path) if path is not None else default_path(policy)
    record = Registration(
        policy_name=policy.name,
        policy_digest=policy.digest(),
        family=policy.family,
        settings=_settings(policy),
        registered_at=(now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        evalsig_version=__version__,
    )
    if target.exists():
        existing = read_registration(target)
        if existing.policy_digest != record.policy_digest:
            raise DataError(
                f"{target}: already registers a different version of this policy (registered "
                f"{existing.registered_at}); registering again after seeing results would "
                "defeat pre-registration. Write the new record elsewhere (-o) if this is a "
                "new gate."
            )
        return existing, target
    target.write_text(json.dumps(record.to_dict(), indent=2) + "\n", encoding="utf-8")
    return record, target


def default_path(policy: GatePolicy) -> Path:
    if policy.source == "<policy>":
        raise DataError("the policy was not read from a file: give the registration path.")
    source = Path(policy.source)
    return source.with_name(f"{source.stem}.registration.json")


def read_registration(path: str | os.PathLike[str]) -> Registration:
    """Read a registration record, with errors that name the file and the field."""
    target = Path(path)
    text = read_text(target, what="a registration record", max_bytes=MAX_RECORD_BYTES)
    data = load_json(text, str(target))
    if not isinstance(data, dict) or data.get("kind") != "gate-registration":
        raise DataError(
            f"{target}: not a gate registration record (written by evalsig register); got "
            f"{short(data) if not isinstance(data, dict) else short(data.get('kind'))}."
        )
    fields = {
        "policy_name": str,
        "policy_digest": str,
        "family": list,
        "settings": dict,
        "registered_at": str,
        "evalsig_version": str,
    }
    for key, kind in fields.items():
        if not isinstance(data.get(key), kind):
            raise DataError(
                f"{target}: field {key!r} of the registration record is missing or not a "
                f"{kind.__name__} (got {short(data.get(key))}); register the policy again "
                "rather than editing the record."
            )
    if not all(isinstance(t, str) for t in data["family"]):
        raise DataError(
            f"{target}: field 'family' of the registration record must list task names; "
            "register the policy again rather than editing the record."
        )
    try:
        datetime.fromisoformat(data["registered_at"])
    except ValueError:
        raise DataError(
            f"{target}: field 'registered_at' of the registration record is not a date and "
            f"time (got {short(data['registered_at'])}); register the policy again rather "
            "than editing the record."
        ) from None
    return Registration(
        policy_name=data["policy_name"],
        policy_digest=data["policy_digest"],
        family=tuple(data["family"]),
        settings=data["settings"],
        registered_at=data["registered_at"],
        evalsig_version=data["evalsig_version"],
    )


def check_registration(
    policy: GatePolicy, registration: Registration | None, *, allow_changes: bool = False
) -> RegistrationCheck:
    """Compare the policy with its registration; refuse changes unless ``allow_changes``."""
    if registration is None:
        return RegistrationCheck(status="unregistered")
    if registration.policy_digest == policy.digest():
        return RegistrationCheck(status="registered", registered_at=registration.registered_at)
    now, then = set(policy.family), set(registration.family)
    current = _settings(policy)
    changed = tuple(
        sorted(k for k in set(current) | set(registration.settings)
               if current.get(k) != registration.settings.get(k))
    )  # fmt: skip
    check = RegistrationCheck(
        status="changed",
        added=tuple(sorted(now - then)),
        dropped=tuple(sorted(then - now)),
        changed_settings=changed,
        registered_at=registration.registered_at,
        overridden=allow_changes,
    )
    if not allow_changes:
        raise DataError(
            f"{policy.source}: {check.summary()} Pre-registration means the family and "
            "settings are fixed before the results are seen; restore the registered policy, "
            "or pass allow_changed_policy=True (CLI: --allow-changed-policy) and the report "
            "will say so."
        )
    return check
