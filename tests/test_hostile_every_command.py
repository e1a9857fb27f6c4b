"""Hostile files through every command that reads one: a result, or one line and exit 4.

The commands come from the Typer application itself: a command added later fails
:func:`test_every_command_is_listed` until it has an entry in :data:`INVOCATIONS` (a
minimal valid invocation with the file slot to fill) or in :data:`READS_NO_FILE`.

Each invocation is run with hypothesis-generated malformed files in its slot, built from
the command's own valid input: cells replaced by NaN, infinities, huge, negative, boolean,
empty or nested values; columns and rows dropped or repeated; duplicate JSON keys; deep
nesting; the bytes truncated, garbled, gzip-compressed, re-encoded or replaced by random
bytes. Fixed edits put one class of value in every field at once (ids as lists, values
3,000 characters long, 400-digit integers, NaN). Fixed cases add what hypothesis does not
draw: a FIFO and ``/dev/zero`` (run in a child process under a memory cap and a timeout),
a directory, a missing file, Latin-1 text, a gzip bomb under a small
``EVALSIG_MAX_DECOMPRESSED``, and the valid input gzip-compressed (read, or refused as
compressed rather than as text that is not UTF-8).

The property: exit 0 (1 and 3 only as verdicts of gate and monitor) with output that
parses as strict JSON and no error line; or exit 4 (2 for usage) with exactly one stderr
line starting ``evalsig: error:``, the last one, shorter than 2,000 characters (a bad
value is quoted by a short prefix). Never a traceback, an exception that escapes, or a
command running past :data:`LIMIT` seconds. Commands run in-process
through ``evalsig.cli.main`` (what the ``evalsig`` script runs), so that its last-resort
handling is part of what is tested.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import functools
import gzip
import importlib
import io
import json
import math
import os
import pkgutil
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig.cli import app, main

cli_app = importlib.import_module("evalsig.cli.application")
"""The module of ``main()`` (``evalsig.cli.application`` names the application itself)."""

LIMIT = 20
"""Seconds a command may run on a small hostile file before it counts as hung."""

EXAMPLES = 10
"""Hypothesis examples per invocation (fixed; derandomised under the CI profile)."""

VERDICTS = {"gate": {0, 1, 3}, "monitor": {0, 1, 3}}
"""Exit codes of a finished run; every other command finishes with 0."""

READS_NO_FILE = {
    "plugins": "lists the installed plugins",
    "demo": "writes its own simulated files",
}
"""Commands that read no file the user names, and why."""


@dataclass(frozen=True)
class Invocation:
    """A minimal valid command line; ``{bad}`` is the slot a hostile file goes into, and
    ``family`` names the valid input it is made from. Other ``{name}`` fields are valid
    files (the ``files`` fixture); ``{fresh}`` is a new path in the example's folder."""

    args: tuple[str, ...]
    family: str
    suffix: str
    creates: bool = False
    """Whether the command creates the file when it is missing (a results store)."""

    def argv(self, files: Mapping[str, Path], bad: Path, work: Path) -> list[str]:
        values = {name: str(path) for name, path in files.items()}
        values.update(bad=str(bad), fresh=str(work / "fresh.duckdb"))
        return [arg.format(**values) for arg in self.args]


def _i(line: str, family: str, suffix: str = ".csv", *, creates: bool = False) -> Invocation:
    return Invocation(tuple(line.split()), family, suffix, creates)


JSON = "--format json"
INVOCATIONS: dict[str, tuple[Invocation, ...]] = {
    "compare": (
        _i(f"compare {{bad}} {{cand}} {JSON}", "pair"),
        _i(f"compare {{pair}} {{bad}} {JSON}", "pair"),  # read beside the first
        _i(
            f"compare {{bad}} {{bad}} --facet item --facet run --baseline-where model=a "
            f"--candidate-where model=b {JSON}",
            "long",
        ),
    ),
    "gate": (
        _i(f"gate --policy {{policy}} {{bad}} {{cand}} --task-column task {JSON}", "pair"),
        _i(f"gate --policy {{bad}} {{base}} {{cand}} --task-column task {JSON}", "policy", ".yaml"),
        _i(
            f"gate --policy {{policy}} --registration {{bad}} {{base}} {{cand}} "
            f"--task-column task {JSON}",
            "registration",
            ".json",
        ),
    ),
    "register": (_i("register {bad}", "policy", ".yaml"),),
    "audit-claim": (_i(f"audit-claim {{bad}} {{cand}} --ci 0.01 0.05 {JSON}", "pair"),),
    "audit": (_i(f"audit --fit {{bad}} --simulations 2 --seed 1 {JSON}", "runs"),),
    "simulate": (_i(f"simulate --fit {{bad}} --simulations 2 --seed 1 {JSON}", "runs"),),
    "leaderboard": (
        _i(f"leaderboard {{bad}} --seed 1 {JSON}", "long"),
        _i(f"leaderboard --store {{bad}} --seed 1 {JSON}", "store", ".duckdb"),
    ),
    "resolution": (_i(f"resolution {{bad}} {JSON}", "long"),),
    "noise": (_i(f"noise {{bad}} {JSON}", "long"),),
    "power": (
        _i(f"power {{bad}} {{cand}} {JSON}", "pair"),
        _i(f"power {{pair}} {{bad}} {JSON}", "pair"),
    ),
    "score": (
        _i(f"score {{bad}} {JSON}", "pair"),
        _i(f"score {{bad}} --facet item --facet run --where model=a {JSON}", "long"),
    ),
    "pass-at-k": (
        _i(f"pass-at-k {{bad}} {JSON}", "runs"),
        _i(f"pass-at-k {{runs}} {{bad}} {JSON}", "runs"),
    ),
    "inspect": (_i(f"inspect {{bad}} {JSON}", "pair"), _i("inspect {bad} --format html", "pair")),
    "ingest": (
        _i(f"ingest {{bad}} --store {{fresh}} --model a --task-column task {JSON}", "pair"),
        _i(
            f"ingest {{base}} --store {{bad}} --model a --task-column task {JSON}",
            "store",
            ".duckdb",
            creates=True,
        ),
    ),
    "store-info": (_i(f"store-info --store {{bad}} {JSON}", "store", ".duckdb"),),
    "judge": (_i(f"judge {{bad}} --judge-column judge --human-column human {JSON}", "judge"),),
    "agreement": (
        _i(
            f"agreement {{bad}} --judge-column judge --human-column human --resamples 100 "
            f"--seed 1 {JSON}",
            "judge",
        ),
    ),
    "position-bias": (
        _i(
            f"position-bias {{bad}} --choice-column choice --first-column first "
            f"--pair-column pair {JSON}",
            "position",
        ),
    ),
    "length-bias": (
        _i(
            f"length-bias {{bad}} --preference-column pref --length-a-column len_a "
            f"--length-b-column len_b {JSON}",
            "length",
        ),
    ),
    "judge-plan": (
        _i(
            f"judge-plan {{bad}} --judge-column judge --human-column human --half-width 0.05 "
            f"{JSON}",
            "judge",
        ),
    ),
    "variance": (
        _i(f"variance {{bad}} --facet item --facet run --model a --resamples 0 {JSON}", "long"),
        _i(
            f"variance {{bad}} --facet item --facet run --baseline a --candidate b "
            f"--design item=60 --resamples 0 {JSON}",
            "long",
        ),
        _i(f"variance {{bad}} {{cand}} --files-as prompt --resamples 0 {JSON}", "pair"),
    ),
    "arena": (_i(f"arena {{bad}} --seed 1 {JSON}", "battles", ".jsonl"),),
    "meta": (_i(f"meta {{bad}} --resamples 0 {JSON}", "reports"),),
    "monitor": (_i(f"monitor {{bad}} {JSON}", "monitor"),),
    "report": (_i(f"report {{bad}} {JSON}", "result", ".json"),),
}  # fmt: skip
"""Every command that reads a file, and how: one entry per file slot worth testing."""

CASES = [
    pytest.param(command, invocation, id=f"{command}-{n}")
    for command, invocations in INVOCATIONS.items()
    for n, invocation in enumerate(invocations)
]


def _id(command: str, invocation: Invocation) -> str:
    return f"{command}-{INVOCATIONS[command].index(invocation)}"


def _commands() -> dict[str, Any]:
    return dict(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_listed() -> None:
    """A new command needs an invocation here (or a reason it reads no file)."""
    commands = set(_commands())
    for name in sorted(commands - set(INVOCATIONS) - set(READS_NO_FILE)):
        pytest.fail(
            f"command {name!r} is new: add a minimal valid invocation with its file slot to "
            "INVOCATIONS in tests/test_hostile_every_command.py (or a reason to READS_NO_FILE)"
        )
    assert not (set(INVOCATIONS) | set(READS_NO_FILE)) - commands, "listed but not a command"
    for name in READS_NO_FILE:
        arguments = [p for p in _commands()[name].params if p.param_type_name == "argument"]
        assert not arguments, f"{name!r} takes {arguments}: list it in INVOCATIONS"


# --- valid inputs ---------------------------------------------------------------------------

Record = dict[str, Any]


def _records() -> dict[str, list[Record]]:
    """The valid records of each table family (deterministic)."""
    bits = [int(c) for c in f"{0x5A3C96F0E1D2B4879A3C5E0F1B2D3C4B:0128b}"]
    more = [int(c) for c in f"{0x7E3F1A9C5B2D8E4F6A1C3B5D7E9F0A2C:0128b}"]

    def bit(i: int) -> int:
        return bits[i % len(bits)]

    return {
        "pair": [{"task": "t", "item": f"q{i}", "score": bit(i)} for i in range(40)],
        "cand": [{"task": "t", "item": f"q{i}", "score": more[i] | bit(i + 3)} for i in range(40)],
        "long": [
            {"model": m, "item": f"q{i}", "run": r, "score": bit(7 * k + 3 * i + r) | more[i + k]}
            for k, m in enumerate("abc")
            for i in range(30)
            for r in (1, 2)
        ],
        "runs": [
            {"item": f"q{i}", "run": r, "score": bit(5 * i + r)}
            for i in range(30)
            for r in (1, 2, 3)
        ],
        "judge": [
            {"id": f"q{i}", "judge": bit(i), "human": (bit(i) ^ more[i]) if i < 24 else ""}
            for i in range(60)
        ],
        "position": [
            {"pair": f"p{i // 2}", "first": "AB"[i % 2], "choice": "AB"[bit(i)]} for i in range(40)
        ],
        "length": [
            {"pref": "AB"[bit(i)], "len_a": 40 + 13 * i % 300, "len_b": 50 + 29 * i % 280}
            for i in range(40)
        ],
        "reports": [
            {
                "model": m,
                "benchmark": "gsm8k",
                "source": f"s{k}",
                "score": 70 + 3 * k + 5 * j,
                "se": 1.0,
            }
            for j, m in enumerate("ab")
            for k in range(3)
        ],
        "monitor": [{"baseline": bit(i), "candidate": more[i] | bit(i)} for i in range(50)],
        "battles": [
            {
                "model_a": "xyz"[i % 3],
                "model_b": "xyz"[(i + 1 + bit(i)) % 3],
                "winner": ("model_a", "model_b", "tie")[(bit(i) + more[i] + i) % 3],
            }
            for i in range(60)
        ],
    }


RECORDS = _records()
DOCUMENTS = ("policy", "registration", "result")
"""Families that are one JSON or YAML document rather than a table."""


def _csv(records: Sequence[Any], separator: str = ",") -> bytes:
    columns: list[str] = []
    for record in records:
        for key in record if isinstance(record, dict) else ():
            if key not in columns:
                columns.append(str(key))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        if isinstance(record, dict):
            writer.writerow([_cell(record.get(c, "")) for c in columns])
        else:
            writer.writerow([_cell(record)])
    return out.getvalue().encode("utf-8", "surrogatepass")


def _cell(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return _json(value)
    return "" if value is None else str(value)


DEEP = re.compile(r'"@@deep:(\d+):(\w+)@@"')


def _deep(match: re.Match[str]) -> str:
    depth, kind = int(match[1]), match[2]
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    return '{"k": ' * depth + "1" + "}" * depth


def _json(value: Any) -> str:
    """JSON text; NaN and infinities as Python writes them; deep-nesting markers expanded."""
    return DEEP.sub(_deep, json.dumps(value, ensure_ascii=False))


def _import_everything() -> None:
    """Import every module of evalsig now. Hypothesis draws some values from constants in
    the modules loaded so far; the commands import theirs lazily, and a pool that grows
    between a failing example and its replay makes hypothesis report a flaky strategy
    instead of the failure."""
    import evalsig

    for module in pkgutil.walk_packages(evalsig.__path__, "evalsig."):
        if not module.name.endswith("__main__"):
            with (
                contextlib.suppress(ImportError),  # an optional dependency is missing
                warnings.catch_warnings(),
            ):
                warnings.simplefilter("ignore", DeprecationWarning)  # a moved module's old name
                importlib.import_module(module.name)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Valid inputs of every family, and a saved result, registration and store made
    from them by the commands themselves."""
    _import_everything()
    root = tmp_path_factory.mktemp("valid")
    out: dict[str, Path] = {}
    for name, records in RECORDS.items():
        suffix = ".jsonl" if name == "battles" else ".csv"
        path = root / f"{name}{suffix}"
        if suffix == ".jsonl":
            path.write_text("".join(_json(r) + "\n" for r in records), encoding="utf-8")
        else:
            path.write_bytes(_csv(records))
        out[name] = path
    out["base"] = out["pair"]
    policy_dir = root / "policy"
    policy_dir.mkdir()
    out["policy"] = policy_dir / "policy.yaml"
    out["policy"].write_text("tasks: [t]\n", encoding="utf-8")
    scratch = root / "scratch"
    scratch.mkdir()
    registered = scratch / "policy.yaml"
    registered.write_text("tasks: [t]\n", encoding="utf-8")
    out["result"] = root / "result.json"
    out["store"] = root / "store.duckdb"
    store = f"--store {out['store']} --task-column task --model"
    for line in (
        f"register {registered}",
        f"compare {out['pair']} {out['cand']} --format json -o {out['result']}",
        f"ingest {out['pair']} {store} a",
        f"ingest {out['cand']} {store} b",
    ):
        argv = line.split()
        done = run(argv)
        assert done.code == 0, (argv, done)
    out["registration"] = scratch / "policy.registration.json"
    return out


# --- running a command ----------------------------------------------------------------------


class Hung(BaseException):
    """A command ran past :data:`LIMIT` (BaseException: no ``except Exception`` hides it)."""


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    crash: str = ""
    """An exception that escaped ``main()``, with its traceback."""


runner = CliRunner()


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def hang(signum: int, frame: object) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@functools.cache
def _click() -> Any:
    """The click command typer makes of the application (typer makes it anew at every
    call, which takes most of a small command's time), for :func:`run` to reuse."""
    return typer.main.get_command(app)


def run(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Outcome:
    """``evalsig ARGV`` in this process, as the ``evalsig`` script runs it (``main()``,
    with the application's click command made once)."""
    code, crash = 0, ""
    limit = sys.getrecursionlimit()
    saved = sys.argv
    with runner.isolation(env=dict(env or {})) as (stdout, stderr, _):
        sys.argv = ["evalsig", *argv]
        sys.setrecursionlimit(1000)  # Python's default (hypothesis raises it while it runs)
        try:
            with (
                warnings.catch_warnings(),
                _deadline(LIMIT),
                mock.patch.object(cli_app, "_application", return_value=_click()),
            ):
                warnings.simplefilter("ignore")  # warnings are fine; pytest makes them errors
                main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Hung:
            code, crash = -1, f"hung: still running after {LIMIT} s"
        except BaseException:  # what escaped main(): the defect this test looks for
            code, crash = -1, traceback.format_exc()
        finally:
            sys.argv = saved
            sys.setrecursionlimit(limit)
        out = stdout.getvalue().decode("utf-8", "replace")
        err = stderr.getvalue().decode("utf-8", "replace")
    return Outcome(code, out, err, crash)


def _strict(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def check(command: str, argv: Sequence[str], done: Outcome) -> None:
    """The property every command keeps on every input."""
    shown = f"evalsig {' '.join(argv)}\nexit {done.code}\nstdout: {done.stdout[:600]!r}\n"
    shown += f"stderr: {done.stderr[-1200:]!r}\n{done.crash}"
    assert not done.crash, shown
    assert "Traceback" not in done.stdout + done.stderr, shown
    errors = [line for line in done.stderr.splitlines() if line.startswith("evalsig: error:")]
    if done.code in VERDICTS.get(command, {0}):
        assert not errors, shown
        assert done.stdout.strip(), shown
        if "json" in argv:
            try:
                _strict(done.stdout)
            except ValueError as exc:
                pytest.fail(f"output is not strict JSON ({exc})\n{shown}")
        return
    assert done.code in (2, 4), shown
    assert len(errors) == 1, shown
    assert done.stderr.rstrip("\n").splitlines()[-1] == errors[0], shown
    assert len(errors[0]) < 2000, shown


# --- hostile files --------------------------------------------------------------------------

HOSTILE_VALUES = st.one_of(
    st.sampled_from(
        [
            None, "", " ", "nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1", "2", "0.5",
            "True", "false", "null", "1,5", "0x1", "\u0661", "\uff11", "\u202ex", "a\x00b",
            "x" * 3000, float("nan"), float("inf"), float("-inf"), -1, 2, -(10**30), 10**400,
            1e308, -1e308, 5e-324, -0.0, True, False, [], {}, [1, 2], {"a": 1},
            "@@deep:1100:list@@", "@@deep:3000:dict@@",
        ]
    ),
    st.integers(),
    st.floats(),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
).map(copy.deepcopy)  # fmt: skip
"""Values that break readers (copied: a document edited later must not change them)."""


@st.composite
def hostile_records(draw: st.DrawFn, family: str) -> list[Any]:
    """The family's valid records, damaged: cells, columns and rows."""
    records: list[Any] = [dict(r) for r in RECORDS[family]]
    columns = list(records[0])
    for _ in range(draw(st.integers(0, 4))):
        row = draw(st.integers(0, len(records) - 1))
        column = draw(st.sampled_from([*columns, "extra"]))
        records[row][column] = draw(HOSTILE_VALUES)
    if draw(st.booleans()):
        fill = draw(HOSTILE_VALUES)
        column = draw(st.sampled_from(columns))
        for record in records:
            record[column] = fill
    change = draw(st.sampled_from(["none", "drop-column", "drop-rows", "repeat", "scalar"]))
    if change == "drop-column":
        column = draw(st.sampled_from(columns))
        for record in records:
            record.pop(column, None)
    elif change == "drop-rows":
        records = records[: draw(st.integers(0, 3))]
    elif change == "repeat":
        records = records + records[: draw(st.integers(1, 5))]
    elif change == "scalar":
        records[draw(st.integers(0, len(records) - 1))] = draw(HOSTILE_VALUES)
    return records


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _set(document: Any, path: tuple[Any, ...], value: Any, delete: bool) -> None:
    *parents, last = path
    for key in parents:
        document = document[key]
    if delete:
        del document[last]
    else:
        document[last] = value


@st.composite
def hostile_document(draw: st.DrawFn, valid: Any) -> Any:
    """A JSON document with values replaced or removed at random places."""
    document = json.loads(json.dumps(valid))
    if draw(st.integers(0, 9)) == 0:
        return draw(HOSTILE_VALUES)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(document)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        _set(document, path, draw(HOSTILE_VALUES), draw(st.integers(0, 3)) == 0)
    return document


YAML_CASES = [
    b"tasks: [t]\ntasks: [u]\n",  # duplicate key
    b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    b"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    b"tasks: *f\n",  # billion laughs
    b"tasks: !!python/object/apply:os.system ['true']\n",
    b"tasks:\n\t- t\n",
    b"tasks: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    b"--- \n...\n",
    b"tasks: [t]\n---\ntasks: [u]\n",
    b"\xef\xbb\xbftasks: [t]\n",
    b"tasks: [.nan, .inf]\nalpha: .nan\n",
]  # fmt: skip


@st.composite
def hostile_file(
    draw: st.DrawFn, family: str, suffix: str, valid: Mapping[str, bytes]
) -> tuple[str, bytes]:
    """``(suffix, bytes)`` of a hostile file of ``family``."""
    kind = draw(st.sampled_from([*["structured"] * 6, "bytes", "edit"]))
    if kind == "bytes":
        data = draw(st.binary(max_size=400))
        return draw(st.sampled_from([suffix, ".csv", ".jsonl", ".json", ".gz", ".csv.gz"])), data
    if family == "store":
        data = valid["store"]
    elif family in DOCUMENTS:
        if family == "policy" and draw(st.integers(0, 3)) == 0:
            return ".yaml", draw(st.sampled_from(YAML_CASES))
        parsed = {"tasks": ["t"]} if family == "policy" else json.loads(valid[family])
        document = draw(hostile_document(parsed)) if kind != "edit" else None
        data = (
            valid[family] if document is None else _json(document).encode("utf-8", "surrogatepass")
        )
        suffix = ".json" if family == "policy" and document is not None else suffix
    else:
        records = draw(hostile_records(family)) if kind != "edit" else RECORDS[family]
        shape = draw(st.sampled_from(["csv", "tsv", "jsonl", "json"]))
        if shape in ("csv", "tsv"):
            data = _csv(records, "," if shape == "csv" else "\t")
            suffix = f".{shape}"
        elif shape == "jsonl":
            data = "".join(_json(r) + "\n" for r in records).encode("utf-8", "surrogatepass")
            suffix = ".jsonl"
        else:
            data = _json(records).encode("utf-8", "surrogatepass")
            suffix = ".json"
        if shape in ("jsonl", "json") and draw(st.integers(0, 4)) == 0:  # a key given twice
            data = re.sub(rb'\{"(\w+)": ', rb'{"\1": 0, "\1": ', data, count=1)
    return _damage(draw, suffix, data)


def _damage(draw: st.DrawFn, suffix: str, data: bytes) -> tuple[str, bytes]:
    """Byte-level damage: cut, flipped bytes, a byte order mark, Latin-1, gzip."""
    damages = ("cut", "flip", "bom", "latin1", "gzip", "gzip-cut", "empty")
    how = draw(st.sampled_from(("none",) * 6 + damages))
    if how == "cut":
        data = data[: int(len(data) * draw(st.floats(0.0, 1.0)))]
    elif how == "flip":
        buffer = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            if buffer:
                at = draw(st.integers(0, len(buffer) - 1))
                buffer[at] ^= draw(st.integers(1, 255))
        data = bytes(buffer)
    elif how == "bom":
        data = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xef\xbb\xbf", b"\xff\xfe"])) + data
    elif how == "latin1":
        data = data.decode("utf-8", "replace").encode("latin-1", "replace") + b"\xe9\xff\n"
    elif how in ("gzip", "gzip-cut"):
        packed = gzip.compress(data, mtime=0)
        if how == "gzip-cut":
            packed = packed[: int(len(packed) * draw(st.floats(0.0, 1.0)))]
        return suffix + ".gz", packed
    elif how == "empty":
        data = b""
    return suffix, data


class Contents(dict[str, bytes]):
    """The bytes of the valid inputs, shown by name: hypothesis shows a test's arguments,
    and the results store alone is megabytes (a warning, an error under pytest's
    ``filterwarnings = error``, mid-example, that hypothesis reports as a flaky strategy)."""

    def __repr__(self) -> str:
        return f"<contents of {', '.join(self)}>"


@pytest.fixture(scope="module")
def valid_bytes(files: dict[str, Path]) -> Contents:
    return Contents({name: path.read_bytes() for name, path in files.items()})


@pytest.mark.parametrize(("command", "invocation"), CASES)
def test_the_valid_invocation_runs(
    command: str, invocation: Invocation, files: dict[str, Path], tmp_path: Path
) -> None:
    """Each invocation is valid as written: a hostile input tests the reader, not the usage."""
    bad = tmp_path / f"valid{invocation.suffix}"
    shutil.copyfile(files[invocation.family], bad)
    argv = invocation.argv(files, bad, tmp_path)
    done = run(argv)
    check(command, argv, done)
    assert done.code in VERDICTS.get(command, {0}), (argv, done.stderr)


@pytest.mark.parametrize(("command", "invocation"), CASES)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_hostile_file_gives_a_result_or_one_error_line(
    command: str,
    invocation: Invocation,
    files: dict[str, Path],
    valid_bytes: Contents,
    data: st.DataObject,
) -> None:
    suffix, content = data.draw(hostile_file(invocation.family, invocation.suffix, valid_bytes))
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        bad = work / f"hostile{suffix}"
        bad.write_bytes(content)
        argv = invocation.argv(files, bad, work)
        check(command, argv, run(argv))


# --- fixed cases: what hypothesis does not draw ---------------------------------------------


LONG = "x" * 3000


def _edited(edit: str, value: Any, at: int) -> Any:
    """A valid value after ``edit``; ``at`` counts the values edited so far."""
    if edit == "list":
        return [1, at]
    if edit == "long":
        return LONG + str(at % 2)  # long, and repeated
    if edit == "huge":
        return 10**400 if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    return math.nan if isinstance(value, (int, float)) and not isinstance(value, bool) else value


EDITS = ("list", "long", "huge", "nan")
"""Fixed edits of every family: ids and labels as lists, values 3,000 characters long,
integers of 400 digits, NaN: each in every value of the first rows (a table) or in every
leaf (a document)."""


def _edit_document(document: Any, edit: str, counter: list[int]) -> Any:
    if isinstance(document, dict):
        return {key: _edit_document(value, edit, counter) for key, value in document.items()}
    if isinstance(document, list):
        return [_edit_document(value, edit, counter) for value in document]
    counter[0] += 1
    return _edited(edit, document, counter[0])


def _edited_file(family: str, edit: str, valid: Contents) -> tuple[str, bytes]:
    if family in DOCUMENTS:
        parsed = {"tasks": ["t"]} if family == "policy" else json.loads(valid[family])
        return ".json", _json(_edit_document(parsed, edit, [0])).encode()
    records = [dict(r) for r in RECORDS[family]]
    for row, record in enumerate(records[:3]):
        for column in record:
            record[column] = _edited(edit, record[column], row)
    return ".jsonl", "".join(_json(r) + "\n" for r in records).encode()


@pytest.mark.parametrize(
    ("command", "invocation"), [c for c in CASES if c.values[1].family != "store"]
)
@pytest.mark.parametrize("edit", EDITS)
def test_a_fixed_edit_gives_a_result_or_one_error_line(
    command: str,
    invocation: Invocation,
    edit: str,
    files: dict[str, Path],
    valid_bytes: Contents,
    tmp_path: Path,
) -> None:
    """Each class of value in every field, deterministically (hypothesis draws them too,
    but only sometimes in every field at once)."""
    suffix, content = _edited_file(invocation.family, edit, valid_bytes)
    bad = tmp_path / f"hostile{suffix}"
    bad.write_bytes(content)
    argv = invocation.argv(files, bad, tmp_path)
    check(command, argv, run(argv))


def _fixed(case: str, path: Path, valid: Path) -> Path:
    """Make the file of a fixed case at ``path`` (or beside it); the path to give."""
    if case == "directory":
        path.mkdir()
    elif case == "latin1":
        path.write_bytes(b"item,score,caf\xe9\nq\xe91,1,\xff\n")
    elif case == "bomb":  # 4 MiB of rows from 4 KiB, under a cap of 1 MiB
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(valid.read_bytes()[:64] * (1 << 16), 1, mtime=0))
    elif case == "gzipped":  # the valid input, compressed: read, or refused as compressed
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(valid.read_bytes(), mtime=0))
    return path  # "missing": nothing at all


FIXED = ("directory", "missing", "latin1", "bomb", "gzipped")


@pytest.mark.parametrize(("command", "invocation"), CASES)
@pytest.mark.parametrize("case", FIXED)
def test_a_fixed_hostile_path_is_one_error_line_naming_it(
    command: str, invocation: Invocation, case: str, files: dict[str, Path], tmp_path: Path
) -> None:
    bad = _fixed(case, tmp_path / f"{case}{invocation.suffix}", files[invocation.family])
    argv = invocation.argv(files, bad, tmp_path)
    done = run(argv, env={"EVALSIG_MAX_DECOMPRESSED": "1M"})
    check(command, argv, done)
    if (case == "missing" and invocation.creates) or (
        case == "gzipped" and done.code in VERDICTS.get(command, {0})
    ):
        return
    assert done.code == 4, (argv, done.stderr)
    assert bad.name in done.stderr, (argv, done.stderr)
    if case == "gzipped":  # an error that points the wrong way
        assert "not valid UTF-8" not in done.stderr, (argv, done.stderr)


# --- a FIFO and /dev/zero, in a child process under a memory cap and a timeout --------------

DRIVER = """
import json, resource, signal, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
import importlib, pkgutil, evalsig
from typer.testing import CliRunner
from evalsig.cli import main

for module in pkgutil.walk_packages(evalsig.__path__, "evalsig."):  # before the clock runs
    if not module.name.endswith("__main__"):
        try:
            importlib.import_module(module.name)
        except ImportError:
            pass

class Hung(BaseException):  # not an OSError (TimeoutError is one): nothing may catch it
    pass

def hang(signum, frame):
    raise Hung(f"still running after {SECONDS} s")

signal.signal(signal.SIGALRM, hang)
runner = CliRunner()
for name, argv in json.loads(sys.argv[1]):
    code, crash = 0, ""
    with runner.isolation() as (out, err, _):
        sys.argv = ["evalsig", *argv]
        signal.alarm(SECONDS)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:
            code, crash = -1, f"{type(exc).__name__}: {exc}"
        finally:
            signal.alarm(0)
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    print(json.dumps([name, code, stdout[:2000], stderr[-2000:], crash]), flush=True)
"""

SPECIAL = ("fifo", "dev-zero")

SPECIAL_LIMIT = 10
"""Seconds a command may take to refuse a FIFO or a device (its modules loaded already)."""


def _special_runs(files: dict[str, Path], root: Path) -> dict[str, tuple[list[str], Outcome]]:
    """Every invocation on a FIFO and on a symlink to /dev/zero, in child processes that
    are restarted after a command that hangs or dies (it is recorded as such)."""
    todo: dict[str, list[str]] = {}
    for case in SPECIAL:
        for command, invocations in INVOCATIONS.items():
            for invocation in invocations:
                name = f"{case}/{_id(command, invocation)}"
                work = root / name.replace("/", "-")
                work.mkdir()
                bad = work / f"hostile{invocation.suffix}"
                if case == "fifo":
                    os.mkfifo(bad)
                else:
                    bad.symlink_to("/dev/zero")
                todo[name] = invocation.argv(files, bad, work)
    driver = DRIVER.replace("LIMIT_BYTES", str(4 << 30)).replace("SECONDS", str(SPECIAL_LIMIT))
    found: dict[str, tuple[list[str], Outcome]] = {}
    while todo:
        child = subprocess.Popen(
            [sys.executable, "-c", driver, json.dumps(list(todo.items()))],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        try:
            out, err = child.communicate(timeout=SPECIAL_LIMIT * 2 + 60 + 2 * len(todo))
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
            err = f"the child process was killed after its timeout\n{err}"
        for line in out.splitlines():
            name, code, stdout, stderr, crash = json.loads(line)
            found[name] = (todo.pop(name), Outcome(code, stdout, stderr, crash))
        if todo:  # the first one left hung or killed the child
            name = next(iter(todo))
            why = f"hung or died (child exit {child.returncode}): {err[-800:]}"
            found[name] = (todo.pop(name), Outcome(-1, "", "", why))
    return found


@pytest.fixture(scope="module")
def special(
    files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[list[str], Outcome]]:
    return _special_runs(files, tmp_path_factory.mktemp("special"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")
@pytest.mark.parametrize(("command", "invocation"), CASES)
@pytest.mark.parametrize("case", SPECIAL)
def test_a_fifo_or_a_device_is_one_error_line_never_a_hang(
    command: str,
    invocation: Invocation,
    case: str,
    special: dict[str, tuple[list[str], Outcome]],
) -> None:
    argv, done = special[f"{case}/{_id(command, invocation)}"]
    check(command, argv, done)
    assert done.code == 4, done.stderr
    assert "hostile" in done.stderr, done.stderr
