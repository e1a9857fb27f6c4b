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

from evalsig._documents import load_document, short
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

    A ``.json`` file is read as strict JSON, anything else as YAML; both under the bounds
    of :mod:`evalsig._documents` (at most 1 MiB and 64 levels; no duplicate keys, YAML
    anchors, aliases, merge keys or tags; no base-60 or legacy octal numbers).

    Raises
    ------
    DataError
        An unknown or misspelled key, a duplicate key, a bad value (a margin that is not
        a finite number >= 0, alpha outside (0, 1), ``at_least`` outside 1..#tasks, a
        boolean where a number belongs), or no tasks: the message names the file, the
        task and field, the value and the fix. Unknown keys are errors because a typo in
        a pre-registered protocol (``margn: 0.01``) would otherwise change the test
        silently.
    """
    if isinstance(policy, GatePolicy):
        return policy
    if isinstance(policy, Mapping):
        return _from_mapping(policy, "<policy>")
    path = Path(policy)
    document = load_document(path, what="a policy", max_bytes=MAX_POLICY_BYTES)
    if not isinstance(document, Mapping):
        raise DataError(
            f"{path}: a policy is a mapping with 'name', 'alpha', 'tasks' ...; got "
            f"{short(document)}."
        )
    return _from_mapping(document, str(path))


def _from_mapping(document: Mapping[str, Any], source: str) -> GatePolicy:
    _unknown(document, _POLICY_KEYS, source, "policy")
    alpha = _real(document.get("alpha", 0.05))
    if alpha is None or not 0 < alpha < 1:
        raise DataError(
            f"{source}: 'alpha' must be a number strictly between 0 and 1, e.g. 0.05; got "
            f"{short(document.get('alpha'))}{_as_text(document.get('alpha'))}."
        )
    error_rate = _choice(document.get("error_rate", "fwer"), ErrorRate, source, "error_rate")
    allowed = CORRECTIONS[error_rate]
    correction = document.get("correction", allowed[0])
    if not isinstance(correction, str) or correction not in allowed:
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
            raise DataError(
                f"{source}: rule 'at-least' needs 'at_least: k', a whole number of tasks "
                f"between 1 and {len(tasks)}; got {short(at_least)}."
            )
        if not 1 <= at_least <= len(tasks):
            raise DataError(
                f"{source}: 'at_least' is {short(at_least)} but the family has {len(tasks)} "
                f"tasks; choose k between 1 and {len(tasks)}."
            )
    elif at_least is not None:
        raise DataError(
            f"{source}: 'at_least' ({short(at_least)}) goes with rule 'at-least', not "
            f"{rule!r}; remove it or set 'rule: at-least'."
        )
    shared = document.get("shared_items", False)
    if not isinstance(shared, bool):
        raise DataError(f"{source}: 'shared_items' must be true or false; got {short(shared)}.")
    name = document.get("name", Path(source).stem if source != "<policy>" else "gate")
    if not isinstance(name, (str, int)) or isinstance(name, bool) or _huge(name):
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
    margin = _real(entry.get("margin", 0.0))
    if margin is None or not 0 <= margin < math.inf:
        raise DataError(
            f"{where}: 'margin' must be a finite, non-negative number on the score scale "
            f"(0.01 is 1 point of accuracy); got {short(entry.get('margin'))}"
            f"{_as_text(entry.get('margin'))}."
        )
    if claim == "superiority" and margin:
        raise DataError(
            f"{where}: a superiority claim has no margin (got {margin:g}); use claim "
            "'non-inferiority' for 'not worse than -margin'."
        )
    method = entry.get("method", "auto")
    variants = _variants(method)
    if variants is None:
        raise DataError(
            f"{where}: unknown 'method' {short(method)}; choose auto, {', '.join(VARIANTS)} "
            "or a registered test (evalsig plugins lists them)."
        )
    variant = entry.get("variant")
    if variant is not None and (
        not isinstance(variant, str) or method == "auto" or variant not in variants
    ):
        raise DataError(f"{where}: 'variant' {short(variant)} needs a method that has it.")
    return TaskClaim(
        name=entry["name"],
        claim=claim,
        margin=margin,
        direction=_choice(entry.get("direction", "higher"), Direction, where, "direction"),
        metric=_optional_str(entry, "metric", where),
        filter=_optional_str(entry, "filter", where),
        method=str(method),
        variant=variant,
    )


def _variants(method: object) -> tuple[str, ...] | None:
    """The variants of a built-in or registered test (plugins load only for a name that is
    not built in); None for a name that is neither."""
    if method == "auto":
        return ()
    if not isinstance(method, str):
        return None
    if method in VARIANTS:
        return tuple(VARIANTS[method])
    from evalsig.comparison import registered_tests

    test = registered_tests().get(method)
    return None if test is None else tuple(test.variants)


def _real(value: object) -> float | None:
    """``value`` as a float if it is a real number: not a boolean (YAML reads ``true`` as
    one), not NaN, and not an integer too large for a float; otherwise None."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or _huge(value):
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _as_text(value: object) -> str:
    """A hint when a number arrived as text: quoted, or an exponent that YAML 1.1 reads as
    a string (``1e-3`` and ``1.0e3``; ``1.0e-3`` and ``1.0e+3`` are numbers)."""
    if not isinstance(value, str) or len(value) > 40:
        return ""
    try:
        number = float(value)
    except ValueError:
        return ""
    if not math.isfinite(number) or (number == 0 and any(c in "123456789" for c in value)):
        return ""
    why = (
        "YAML 1.1 reads an exponent as a number only with a point and a sign, as in 1.0e-3"
        if "e" in value.lower()
        else "it is quoted"
    )
    return f", which is text ({why}): write {number!r}"


def _huge(value: object) -> bool:
    """An integer beyond the float range (no setting can be one; it cannot be printed)."""
    return isinstance(value, int) and value.bit_length() > 1000


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
    unknown = sorted(short(k, 40) for k in document if k not in known)
    if unknown:
        shown = ", ".join(unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise DataError(
            f"{where}: unknown {what} key(s) {shown}; known keys: {', '.join(sorted(known))}."
        )
