"""Safe reading of small structured documents: gate policies, saved results, records.

Untrusted YAML and JSON are bounded before anything formats them: a size cap in bytes, a
nesting cap, no YAML aliases or anchors (a 490-byte "billion laughs" expands to gigabytes
when printed), no duplicate keys (parsers keep the last silently), no YAML timestamps
(they become strings, as written), and only plain types: mappings, lists, strings,
numbers, booleans and null. YAML 1.1 readings that surprise (``1:30`` as the base-60
number 90, ``010`` as the octal 8, ``<<`` merge keys) are refused rather than guessed, and
so are integers longer than :data:`MAX_DIGITS` digits. Errors name the file, the line
where known, and the fix, and never print more than a short prefix of a bad value.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from evalsig.errors import DataError, file_kind

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "clip",
    "load_document",
    "load_json",
    "load_yaml",
    "read_text",
    "short",
]

MAX_BYTES = 64 << 20
"""Largest document read (64 MiB): results of thousands of tasks fit with room to spare."""

MAX_DEPTH = 64
"""Deepest nesting accepted; evalsig's own documents use fewer than 10 levels."""

MAX_DIGITS = 100
"""Longest integer literal accepted: no setting or count needs more, and Python refuses to
print integers of more than 4,300 digits, so a message quoting one would fail."""

PLAIN = (dict, list, str, int, float, bool, type(None))


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages about untrusted values."""
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__} of {len(value)} entries"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clip(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters (for parser messages that quote the input)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_text(path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_BYTES) -> str:
    """A document's UTF-8 text, refusing files larger than ``max_bytes`` before reading,
    and anything but a regular file (a folder, a named pipe that would wait for a writer
    forever, a device such as ``/dev/zero``) before opening it."""
    target = Path(path)
    try:
        info = target.stat()
        if not stat.S_ISREG(info.st_mode):
            raise DataError(
                f"{target}: is {file_kind(info.st_mode)}; {what} is read from a regular "
                "file: give the path of one."
            )
        size = info.st_size
        if size > max_bytes:
            raise DataError(
                f"{target}: {size:,} bytes is too large for {what} (the limit is "
                f"{max_bytes:,}); is this the right file?"
            )
        with open(target, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as exc:
        raise DataError(f"{target}: cannot read {what} ({exc.strerror or exc}).") from None
    if len(raw) > max_bytes:  # a file that grew, or a pipe
        raise DataError(f"{target}: larger than the limit of {max_bytes:,} bytes for {what}.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        packed = next((name for magic, name in _PACKED if raw.startswith(magic)), None)
        if packed is not None:
            raise DataError(
                f"{target}: is {packed}, but {what} is read as plain UTF-8 text; unpack it "
                "and give the unpacked file."
            ) from None
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise DataError(
                f"{target}: {what} is UTF-16 text (it starts with a UTF-16 byte order mark); "
                "re-save it as UTF-8."
            ) from None
        raise DataError(
            f"{target}: {what} is not valid UTF-8 text (byte {exc.start}); re-save it as UTF-8."
        ) from None


_PACKED = (
    (b"\x1f\x8b", "gzip-compressed"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "Zstandard-compressed"),
)
"""The first bytes of compressed files, and what they are: told apart from text that is
not UTF-8, so that the error points to the fix."""


# --- YAML ----------------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without aliases, anchors, duplicate keys, timestamps or deep nesting."""

    yaml_implicit_resolvers = {  # noqa: RUF012  # replaces the base class's table
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    depth = 0
    max_depth = MAX_DEPTH

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Refused(
                event.start_mark.line + 1,
                "anchors and aliases (&name, *name) are not accepted; write the values out",
            )
        self.depth += 1
        if self.depth > self.max_depth:
            raise _Refused(event.start_mark.line + 1, f"nested deeper than {self.max_depth} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[object] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused(
                    key_node.start_mark.line + 1,
                    "merge keys (<<) are not accepted; write the keys out",
                )
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise _Refused(key_node.start_mark.line + 1, "mapping keys must be plain values")
            if key in seen:
                raise _Refused(
                    key_node.start_mark.line + 1,
                    f"key {short(key)} appears twice in one mapping (parsers keep only the "
                    "last, so evalsig will not guess which is meant): remove one",
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _yaml_number(loader: _StrictLoader, node: Any) -> int | float:
    """An int or float scalar, refusing base-60, legacy octal and overlong integers."""
    text = str(node.value).replace("_", "")
    digits = text.lstrip("+-")
    line = node.start_mark.line + 1
    if ":" in digits:
        raise _Refused(
            line,
            f"{clip(text, 40)!r} is a base-60 number in YAML 1.1 (1:30 reads as 90); quote it "
            "if it is text, or write the number in decimal",
        )
    if node.tag.endswith(":int"):
        if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
            raise _Refused(
                line,
                f"{clip(text, 40)!r} is an octal number in YAML 1.1 (010 reads as 8); drop the "
                "leading zero, or quote it if it is text",
            )
        if len(digits) > MAX_DIGITS:
            raise _Refused(
                line,
                f"an integer of {len(digits):,} digits (the limit is {MAX_DIGITS}); no setting "
                "needs one (is this the right file?)",
            )
        return int(yaml.SafeLoader.construct_yaml_int(loader, node))
    return float(yaml.SafeLoader.construct_yaml_float(loader, node))


def _yaml_str(loader: _StrictLoader, node: Any) -> str:
    """A string scalar; an escaped surrogate pair (``"\\ud83d\\ude00"``, as JSON writes
    characters beyond U+FFFF) is joined into its character, as JSON parsers do."""
    text = str(loader.construct_scalar(node))
    joined = _joined(text)
    if joined is None:
        raise _Refused(node.start_mark.line + 1, _LONE_SURROGATE)
    return joined


_StrictLoader.add_constructor("tag:yaml.org,2002:str", _yaml_str)
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _yaml_number)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _yaml_number)


_LONE_SURROGATE = (
    "a string holds an unpaired surrogate escape (\\ud800-\\udfff), which is not a "
    "character and cannot be written as UTF-8; fix or remove the escape"
)


def _joined(text: str) -> str | None:
    """``text`` with escaped surrogate pairs joined; None if an unpaired one remains."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            return None
    return text


class _Refused(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(line, reason)
        self.line, self.reason = line, reason


def load_yaml(text: str, source: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse a YAML (or JSON) document under the bounds in the module docstring."""
    loader = None
    try:
        loader = _StrictLoader(text)
        loader.max_depth = max_depth
        document = loader.get_single_data()
    except _Refused as exc:
        raise DataError(f"{source}: line {exc.line}: {exc.reason}.") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise DataError(
            f"{source}: {where}not valid YAML or JSON ({clip(str(exc.problem or exc))})."
        ) from None
    except yaml.YAMLError as exc:
        raise DataError(f"{source}: not valid YAML or JSON ({clip(str(exc))}).") from None
    finally:
        if loader is not None:
            loader.dispose()
    _check_plain(document, source)
    return document


# --- JSON ----------------------------------------------------------------------------------


class _Duplicate(Exception):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid in strict JSON")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(
            f"an integer of {len(text.lstrip('-')):,} digits; the limit is {MAX_DIGITS}"
        )
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(f"{clip(text, 40)} overflows to infinity, which strict JSON excludes")
    return value


def load_json(text: str, source: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse strict JSON: no NaN or Infinity, no duplicate keys, at most ``max_depth`` deep."""
    try:
        document = json.loads(
            text,
            object_pairs_hook=_unique,
            parse_constant=_no_constant,
            parse_int=_int,
            parse_float=_float,
        )
    except _Duplicate as exc:
        raise DataError(
            f"{source}: key {short(exc.args[0])} appears twice in one object (parsers keep "
            "only the last, so evalsig will not guess which is meant): remove one."
        ) from None
    except RecursionError:
        raise DataError(f"{source}: nested deeper than {max_depth} levels.") from None
    except ValueError as exc:
        raise DataError(f"{source}: not strict JSON ({clip(str(exc))}).") from None
    _check_plain(document, source, max_depth)
    return document


# --- both ----------------------------------------------------------------------------------


def load_document(path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_BYTES) -> Any:
    """Read a YAML or JSON document file: strict JSON for ``.json``, YAML otherwise.

    JSON is parsed as JSON (tab indentation, strict numbers), not as YAML, which would
    refuse tabs and read ``NaN`` as text; both parsers apply the bounds of this module.
    """
    target = Path(path)
    text = read_text(target, what=what, max_bytes=max_bytes)
    if target.suffix.lower() == ".json":
        return load_json(text, str(target))
    return load_yaml(text, str(target))


def _walk(document: Any) -> Iterator[tuple[int, Any]]:
    """Every value with its depth (1 for the document), without recursion."""
    stack = [(1, document)]
    while stack:
        depth, value = stack.pop()
        yield depth, value
        if isinstance(value, dict):
            stack.extend((depth + 1, v) for v in value.values())
        elif isinstance(value, list):
            stack.extend((depth + 1, v) for v in value)


def _check_plain(document: Any, source: str, max_depth: int = MAX_DEPTH) -> None:
    for depth, value in _walk(document):
        if depth > max_depth:
            raise DataError(f"{source}: nested deeper than {max_depth} levels.")
        texts = value if isinstance(value, dict) else (value,)  # keys are strings too
        if any(isinstance(t, str) and _joined(t) != t for t in texts):
            raise DataError(f"{source}: {_LONE_SURROGATE}.")
        if not isinstance(value, PLAIN):
            raise DataError(
                f"{source}: holds a {type(value).__name__} value ({short(value)}); documents "
                "hold only mappings, lists, strings, numbers, true/false and null."
            )
