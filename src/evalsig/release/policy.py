"""Release-gate policies: the pre-registered family of task claims and the decision rule.

A policy is a YAML (or JSON) file, written before the results are seen::

    name: release-2026-11
    alpha: 0.05
    error_rate: fwer          # fwer (default: Holm) or fdr (default: Benjamini-Hochberg)
    correction: holm          # bonferroni, holm, hochberg, hommel, romano-wolf | bh, by, storey
    rule: all                 # all | at-least (with at_least: k) | sign-test
    tasks:
      - name: mmlu
        metric: acc
        claim: superiority            # the candidate is better
      - name: gpqa
        claim: non-inferiority        # the candidate is not worse than ...
        margin: 0.01                  # ... 1 point, on the score scale
      - name: latency_errors
        direction: lower              # lower scores are better
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from evalsig._documents import load_yaml, read_text, short
from evalsig.comparison import VARIANTS
from evalsig.errors import DataError

__all__ = [
    "Claim",
    "Direction",
    "ErrorRate",
    "GatePolicy",
    "Rule",
    "TaskClaim",
    "load_policy",
]

Claim = Literal["superiority", "non-inferiority"]
Direction = Literal["higher", "lower"]
ErrorRate = Literal["fwer", "fdr"]
Rule = Literal["all", "at-least", "sign-test"]

CORRECTIONS: dict[str, tuple[str, ...]] = {
    "fwer": ("holm", "bonferroni", "sidak", "holm-sidak", "hochberg", "hommel", "romano-wolf"),
    "fdr": ("bh", "by", "storey"),
}
"""Corrections by the error rate they control (the first is the default)."""

_POLICY_KEYS = {
    "name", "alpha", "error_rate", "correction", "rule", "at_least", "shared_items", "tasks",
}  # fmt: skip
_TASK_KEYS = {"name", "claim", "margin", "direction", "metric", "filter", "method", "variant"}

MAX_POLICY_BYTES = 1 << 20
"""A policy is a page of settings: anything over 1 MiB is not one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskClaim:
    """What the candidate must show on one task."""

    name: str
    claim: Claim = "superiority"
    margin: float = 0.0
    """Non-inferiority margin on the score scale (0.01 is 1 point of accuracy)."""
    direction: Direction = "higher"
    """Whether higher or lower scores are better on this task."""
    metric: str | None = None
    filter: str | None = None
    method: str = "auto"
    variant: str | None = None

    @property
    def threshold(self) -> float:
        """The improvement the test must exceed: 0, or minus the margin."""
        return -self.margin if self.claim == "non-inferiority" else 0.0

    def describe(self) -> str:
        if self.claim == "superiority":
            return "better"
        return f"not worse by more than {self.margin:g}"


@dataclass(frozen=True, slots=True, kw_only=True)
class GatePolicy:
    """A pre-registered release gate over a family of tasks."""

    name: str
    tasks: tuple[TaskClaim, ...]
    alpha: float = 0.05
    error_rate: ErrorRate = "fwer"
    correction: str = "holm"
    rule: Rule = "all"
    at_least: int | None = None
    shared_items: bool = False
    """Whether the tasks score the same items (metrics or subgroups of one benchmark), so
    that item-level dependence can be measured and resampled jointly."""
    source: str = "<policy>"

    @property
    def family(self) -> tuple[str, ...]:
        """The task names: the family of tests, fixed before the data are seen."""
        return tuple(task.name for task in self.tasks)

    def content(self) -> dict[str, Any]:
        """Everything that defines the gate, in a canonical form (not where it was read)."""
        data = asdict(self)
        data.pop("source")
        data["tasks"] = [dict(task) for task in data["tasks"]]  # JSON arrays, not tuples
        return data

    def digest(self) -> str:
        """SHA-256 of the canonical content: changes whenever any setting changes."""
        text = json.dumps(self.content(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_policy(policy: str | os.PathLike[str] | Mapping[str, Any] | GatePolicy) -> GatePolicy:
    """Read and validate a policy from a YAML or JSON file, or a mapping.

    Raises
    ------
    DataError
        An unknown or misspelled key, a bad value, or no tasks: the message names the
        field and the fix. Unknown keys are errors because a typo in a pre-registered
        protocol (``margn: 0.01``) would otherwise change the test silently.
    """
    if isinstance(policy, GatePolicy):
        return policy
    if isinstance(policy, Mapping):
        return _from_mapping(policy, "<policy>")
    path = Path(policy)
    text = read_text(path, what="a policy", max_bytes=MAX_POLICY_BYTES)
    document = load_yaml(text, str(path))
    if not isinstance(document, Mapping):
        raise DataError(f"{path}: a policy is a mapping with 'name', 'alpha', 'tasks' ...")
    return _from_mapping(document, str(path))


def _from_mapping(document: Mapping[str, Any], source: str) -> GatePolicy:
    _unknown(document, _POLICY_KEYS, source, "policy")
    alpha = document.get("alpha", 0.05)
    if not _number(alpha) or not 0 < alpha < 1:
        raise DataError(
            f"{source}: 'alpha' must be a number strictly between 0 and 1, e.g. 0.05; got "
            f"{short(alpha)}."
        )
    error_rate = _choice(document.get("error_rate", "fwer"), ErrorRate, source, "error_rate")
    allowed = CORRECTIONS[error_rate]
    correction = document.get("correction", allowed[0])
    if correction not in allowed:
        other = "fdr" if error_rate == "fwer" else "fwer"
        hint = (
            f" ({short(correction)} controls the {other.upper()})"
            if correction in CORRECTIONS[other]
            else ""
        )
        raise DataError(
            f"{source}: 'correction' {short(correction)} does not control the "
            f"{error_rate.upper()}{hint}; choose one of {', '.join(allowed)}."
        )
    rule = _choice(document.get("rule", "all"), Rule, source, "rule")
    tasks_raw = document.get("tasks")
    if not isinstance(tasks_raw, list) or not tasks_raw:
        raise DataError(f"{source}: 'tasks' must be a non-empty list of tasks (the family).")
    tasks = tuple(_task(entry, source, i) for i, entry in enumerate(tasks_raw, start=1))
    names = [t.name for t in tasks]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DataError(f"{source}: task(s) {', '.join(map(repr, repeated))} listed twice.")
    at_least = document.get("at_least")
    if rule == "at-least":
        if isinstance(at_least, bool) or not isinstance(at_least, int):
            raise DataError(f"{source}: rule 'at-least' needs 'at_least: k' (an integer).")
        if not 1 <= at_least <= len(tasks):
            raise DataError(
                f"{source}: 'at_least' is {at_least} but the family has {len(tasks)} tasks; "
                f"choose k between 1 and {len(tasks)}."
            )
    elif at_least is not None:
        raise DataError(f"{source}: 'at_least' goes with rule 'at-least', not {rule!r}.")
    shared = document.get("shared_items", False)
    if not isinstance(shared, bool):
        raise DataError(f"{source}: 'shared_items' must be true or false; got {short(shared)}.")
    name = document.get("name", Path(source).stem if source != "<policy>" else "gate")
    if not isinstance(name, (str, int)) or isinstance(name, bool):
        raise DataError(f"{source}: 'name' must be a string; got {short(name)}.")
    return GatePolicy(
        name=str(name),
        tasks=tasks,
        alpha=float(alpha),
        error_rate=error_rate,
        correction=str(correction),
        rule=rule,
        at_least=at_least if rule == "at-least" else None,
        shared_items=shared,
        source=source,
    )


def _task(entry: object, source: str, number: int) -> TaskClaim:
    if isinstance(entry, str):
        entry = {"name": entry}
    if (
        not isinstance(entry, Mapping)
        or not isinstance(entry.get("name"), str)
        or not entry["name"]
    ):
        raise DataError(f"{source}: task {number} needs a 'name' (a string).")
    where = f"{source}: task {short(entry['name'])}"
    _unknown(entry, _TASK_KEYS, where, "task")
    claim = _choice(entry.get("claim", "superiority"), Claim, where, "claim")
    margin = entry.get("margin", 0.0)
    if not _number(margin) or not 0 <= margin < math.inf:
        raise DataError(
            f"{where}: 'margin' must be a finite, non-negative number on the score scale "
            f"(0.01 is 1 point of accuracy); got {short(margin)}."
        )
    if claim == "superiority" and margin:
        raise DataError(
            f"{where}: a superiority claim has no margin (got {margin!r}); use claim "
            "'non-inferiority' for 'not worse than -margin'."
        )
    method = entry.get("method", "auto")
    if method != "auto" and method not in VARIANTS:
        raise DataError(
            f"{where}: unknown 'method' {short(method)}; choose auto or {', '.join(VARIANTS)}."
        )
    variant = entry.get("variant")
    if variant is not None and (method == "auto" or variant not in VARIANTS[method]):
        raise DataError(f"{where}: 'variant' {short(variant)} needs a method that has it.")
    return TaskClaim(
        name=entry["name"],
        claim=claim,
        margin=float(margin),
        direction=_choice(entry.get("direction", "higher"), Direction, where, "direction"),
        metric=_optional_str(entry, "metric", where),
        filter=_optional_str(entry, "filter", where),
        method=str(method),
        variant=variant,
    )


def _number(value: object) -> bool:
    """A real number, not a boolean (YAML reads ``true`` as one) and not NaN."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _optional_str(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where}: {key!r} must be a string; got {short(value)}.")
    return value


def _choice(value: object, kind: Any, where: str, key: str) -> Any:
    options = get_args(kind)
    if value not in options:
        raise DataError(
            f"{where}: {key!r} must be one of {', '.join(options)}; got {short(value)}."
        )
    return value


def _unknown(document: Mapping[str, Any], known: set[str], where: str, what: str) -> None:
    unknown = sorted(short(str(k), 40) for k in document if k not in known)
    if unknown:
        shown = ", ".join(unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise DataError(
            f"{where}: unknown {what} key(s) {shown}; known keys: {', '.join(sorted(known))}."
        )
