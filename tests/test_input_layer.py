"""The one input path of the commands that read rows: judge, agreement, position-bias,
length-bias, judge-plan, variance, arena, monitor and the results store.

Each class of hostile input is run through every command that reads such a file, on the
command line: one line ``evalsig: error: FILE: ...`` naming the place and the fix, exit
code 4, never a traceback, a hang, or memory exhausted. Commands that could block or
exhaust the memory run in a subprocess with a timeout and a memory limit.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from evalsig.cli import app
from evalsig.errors import DataError

runner = CliRunner()

JUDGED = "judge,human\n1,1\n0,0\n1,\n0,1\n"
"""A small judged table every judge-family command reads."""

COMMANDS = {
    "judge": ["--judge-column", "judge", "--human-column", "human"],
    "judge-plan": ["--judge-column", "judge", "--human-column", "human", "--half-width", "0.1"],
    "agreement": ["--judge-column", "judge", "--human-column", "human"],
    "position-bias": ["--choice-column", "judge", "--first-column", "human"],
    "length-bias": [
        "--preference-column", "judge", "--length-a-column", "human", "--length-b-column", "human",
    ],
    "variance": ["--facet", "judge", "--score", "human", "--resamples", "0"],
}  # fmt: skip

DEEP = "[" * 3000
CUT = gzip.compress(JUDGED.encode(), mtime=0)
HOSTILE = {
    "cut.jsonl": (b'{"judge": 1, "human": 1}\n{"judge": 1, "hum', "line 2: not valid JSON"),
    "cut.json": (b'[{"judge": 1, "human": 1}, {"judge": 1', "line 1: not valid JSON"),
    "deep.jsonl": (f'{{"judge": {DEEP}'.encode(), "line 1: nested deeper than evalsig's limit"),
    "deep.json": (DEEP.encode(), "line 1: nested deeper than evalsig's limit"),
    "dup.jsonl": (
        b'{"judge": 1, "human": 1}\n{"judge": 1, "human": 1, "judge": 0}\n',
        "line 2: field 'judge' appears 2 times (values 1, 0)",
    ),
    "dup.json": (
        b'[{"judge": 1, "human": 1}, {"judge": 1, "human": 0, "human": 1}]',
        "record 2: field 'human' appears 2 times",
    ),
    "array.jsonl": (b'{"judge": 1, "human": 1}\n[1, 2]\n', "line 2: expected a JSON object"),
    "latin1.csv": ("judge,human\n1,1\n1,café\n".encode("latin-1"), "line 3: not valid UTF-8"),
    "latin1.jsonl.gz": (
        gzip.compress('{"judge": 1, "human": "café"}\n'.encode("latin-1"), mtime=0),
        "line 1: not valid UTF-8",
    ),
    "packed.csv": (b"\x28\xb5\x2f\xfd" + bytes(40), "is Zstandard-compressed, not a text table"),
    "packed.jsonl": (b"PK\x03\x04" + bytes(40), "is a zip archive, not a text table"),
    "cut.csv.gz": (CUT[: len(CUT) // 2], "truncated: the gzip stream ends before its end"),
    "empty.csv": (b"", "the file is empty (0 bytes)"),
    "header.csv": (b"judge,human\n", "the table has a header but no rows"),
    "short.csv": (b"judge,human\n1,1\n1\n", "line 3: 1 fields, but the header has 2"),
}


def _one_line(result: Result, *fragments: str, code: int = 4) -> str:
    """The single error line of a CliRunner result, checked against the exit code."""
    assert result.exit_code == code, (result.exit_code, result.stderr, result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("evalsig: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


_INVOKE = """
import json, sys
from typer.testing import CliRunner
from evalsig.cli import app
from evalsig.errors import DataError
results = [CliRunner().invoke(app, args) for args in json.loads(sys.argv[1])]
print(json.dumps([[r.exit_code, r.stderr] for r in results]))
"""


def _limited() -> None:
    """In the child: at most 4 GiB of address space, so that reading without a bound fails
    at once instead of exhausting the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _invoke_apart(*commands: list[str], timeout: float = 60) -> list[tuple[int, str]]:
    """Run the commands in one child process, with a timeout and a memory limit: each
    (exit code, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", _INVOKE, json.dumps(commands)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limited,
    )
    return [(code, stderr) for code, stderr in json.loads(done.stdout)]


# --- malformed files, through every judge-family command ---------------------------------


EVERY_COMMAND = ("cut.jsonl", "deep.json", "dup.jsonl", "packed.csv")
"""The classes run through every command; the others through two (judge and agreement
read through separate command modules), to keep the file quick: one layer reads for all."""
CASES = [
    (command, name)
    for name in sorted(HOSTILE)
    for command in (sorted(COMMANDS) if name in EVERY_COMMAND else ["agreement", "judge"])
]


@pytest.mark.parametrize(("command", "name"), CASES)
def test_a_malformed_file_is_one_line_naming_the_place(
    tmp_path: Path, command: str, name: str
) -> None:
    data, fragment = HOSTILE[name]
    path = tmp_path / name
    path.write_bytes(data)
    result = runner.invoke(app, [command, str(path), *COMMANDS[command]])
    _one_line(result, f"{path}: ", fragment)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_standard_input_goes_through_the_same_path(command: str) -> None:
    result = runner.invoke(
        app, [command, "-", *COMMANDS[command]], input='{"judge": 1, "human": 1}\n{"judge": 1\n'
    )
    _one_line(result, "standard input (-): line 2: not valid JSON")


def test_pipes_and_devices_are_refused_not_read(tmp_path: Path) -> None:
    """Before, arena read a named pipe forever and /dev/zero until the memory ran out; the
    store opened them as databases."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    cases = []
    for path, kind in ((fifo, "a named pipe (FIFO)"), (Path("/dev/zero"), "a character device")):
        for command in (["arena"], ["judge", *COMMANDS["judge"]]):
            cases.append(
                ([command[0], str(path), *command[1:]], f"{path}: is {kind}, not a regular file")
            )
        if importlib.util.find_spec("duckdb") is not None:
            store = ["store-info", "--store", str(path)]
            cases.append((store, f"{path}: is {kind}, not a results store file"))
    for (code, stderr), (args, message) in zip(
        _invoke_apart(*(args for args, _ in cases)), cases, strict=True
    ):
        assert code == 4, (args, stderr)
        assert stderr.startswith(f"evalsig: error: {message}"), (args, stderr)
        assert stderr.count("\n") == 1, stderr


# --- arena --------------------------------------------------------------------------------


BATTLE = {"model_a": "x", "model_b": "y", "winner": "model_a"}


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("cut.jsonl", b'{"model_a": "x", "model_b": "y", "winner": "tie"}\n{"model_a"', "line 2"),
        ("cut.json", b'[{"model_a": "x", "model_b": "y", "winner": "tie"},', "line 1"),
        ("deep.json", DEEP.encode(), "nested deeper than evalsig's limit"),
        (
            "dup.jsonl",
            b'{"model_a": "x", "model_b": "y", "winner": "model_a", "winner": "model_b"}\n',
            "line 1: field 'winner' appears 2 times",
        ),
        ("packed.json", b"\xfd7zXZ\x00" + bytes(40), "is xz-compressed"),
        (
            "cut.json.gz",
            gzip.compress(json.dumps([BATTLE] * 50).encode(), mtime=0)[:60],
            "truncated",
        ),
        ("empty.jsonl", b"", "the file is empty (0 bytes)"),
    ],
)
def test_arena_reads_through_the_same_path(
    tmp_path: Path, name: str, data: bytes, fragment: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    _one_line(runner.invoke(app, ["arena", str(path)]), f"{path}", fragment)


def test_arena_clusters_annotations_without_an_instruction_one_by_one(tmp_path: Path) -> None:
    """Null or empty instructions were one cluster: many unrelated battles pooled."""
    records = [
        {
            "instruction": [None, "", f"question {i}"][i % 3],
            "generator_1": "reference",
            "generator_2": ["a", "b", "c"][i % 3],
            "preference": [1, 2, 1.5, 2][i % 4],
        }
        for i in range(60)
    ]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    result = runner.invoke(app, ["arena", str(path), "--format", "json", "--seed", "1"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["n_clusters"] == 60
    assert any("40 annotations have no instruction" in note for note in document["notes"])


# --- what is parsed is bounded -----------------------------------------------------------


def test_the_records_parsed_are_capped_with_a_way_to_lift_the_cap(tmp_path: Path) -> None:
    """A small gzip of many tiny rows: the rows parsed are bounded, not only the bytes."""
    packed = tmp_path / "many.csv.gz"
    packed.write_bytes(gzip.compress(b"judge,human\n" + b"1,1\n" * 5000))
    env = {"EVALSIG_MAX_RECORDS": "1000"}
    for command in sorted(COMMANDS):
        result = runner.invoke(app, [command, str(packed), *COMMANDS[command]], env=env)
        _one_line(
            result,
            f"{packed}: more than 1,000 records (at line 1002)",
            "EVALSIG_MAX_RECORDS=4000",
        )
    listed = tmp_path / "battles.json"  # a JSON list with more objects than the cap
    listed.write_text(json.dumps([BATTLE] * 3000), encoding="utf-8")
    _one_line(
        runner.invoke(app, ["arena", str(listed)], env=env),
        f"{listed}: more than 1,000 records (at record 1001)",
    )
    result = runner.invoke(app, ["judge", str(packed), *COMMANDS["judge"]], env={
        "EVALSIG_MAX_RECORDS": "lots"
    })  # fmt: skip
    _one_line(result, "EVALSIG_MAX_RECORDS='lots' is not a number of records")


@pytest.mark.parametrize("mode", ["judge vs humans", "raters"])
def test_free_text_labels_are_refused_by_column_and_count(tmp_path: Path, mode: str) -> None:
    """Thousands of free-text "labels" ran agreement out of memory (square tables)."""
    path = tmp_path / "labels.csv"
    if mode == "raters":
        rows = "".join(
            f"q{i},{rater},answer {i} by {rater}\n" for i in range(150) for rater in "ab"
        )
        path.write_text("item,rater,label\n" + rows, encoding="utf-8")
        args = ["--rater-column", "rater", "--label-column", "label", "--id", "item"]
        fragment = "column 'label' holds 300 distinct labels in 300 rows"
    else:
        rows = "".join(f"q{i},answer {i},answer {i + i % 2}\n" for i in range(300))
        path.write_text("item,judge,human\n" + rows, encoding="utf-8")
        args = ["--judge-column", "judge", "--human-column", "human"]
        fragment = "column 'judge' holds 300 distinct labels in 300 rows"
    result = runner.invoke(app, ["agreement", str(path), *args, "--resamples", "100"])
    _one_line(result, fragment, "looks like free text", "Map the values to a few categories")


# --- judge: a model column is never pooled ------------------------------------------------


def test_judge_refuses_to_pool_the_rows_of_several_models(tmp_path: Path) -> None:
    path = tmp_path / "judged.csv"
    rows = "".join(f"{m},{(i + k) % 2},{'' if i % 3 else (i + k) % 2}\n"
                   for k, m in enumerate(("gpt", "claude")) for i in range(30))  # fmt: skip
    path.write_text("model,judge,human\n" + rows, encoding="utf-8")
    base = ["judge", str(path), "--judge-column", "judge", "--human-column", "human"]
    _one_line(
        runner.invoke(app, base),
        f"{path}: column 'model' holds several models ('gpt', 'claude')",
        "--model NAME",
        "--model-column model --baseline NAME --candidate NAME",
    )
    chosen = runner.invoke(app, [*base, "--model", "claude", "--format", "json"])
    assert chosen.exit_code == 0, chosen.output
    notes = json.loads(chosen.stdout)["notes"]
    assert any("30 row(s) of other models than 'claude' left out" in n for n in notes)
    _one_line(runner.invoke(app, [*base, "--model", "llama"]), "no rows of model 'llama'")
    plan = ["judge-plan", str(path), "--judge-column", "judge", "--human-column", "human"]
    _one_line(runner.invoke(app, [*plan, "--half-width", "0.1"]), "holds several models")


# --- monitor -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "is empty: no header line"),
        (b"baseline,candidate\n", "the table has a header but no rows"),
    ],
)
def test_monitor_without_rows_is_a_data_error(
    tmp_path: Path, content: bytes, fragment: str
) -> None:
    """A 0-byte stream was "not yet resolved" (exit 3): nothing was monitored."""
    path = tmp_path / "stream.csv"
    path.write_bytes(content)
    _one_line(runner.invoke(app, ["monitor", str(path)]), f"{path}: {fragment}")
    result = runner.invoke(app, ["monitor", "-"], input=content.decode())
    _one_line(result, f"standard input: {fragment}")


def test_monitor_reads_gzip_as_gzip_not_as_bad_utf8(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv.gz"
    rows = "".join(f"{i % 2},{(i + 1) % 2}\n" for i in range(10))
    path.write_bytes(gzip.compress(f"baseline,candidate\n{rows}".encode()))
    result = runner.invoke(app, ["monitor", str(path), "--format", "json"])
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout)["n"] == 10
    packed = tmp_path / "pairs.csv"
    packed.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(40))
    _one_line(runner.invoke(app, ["monitor", str(packed)]), "is Zstandard-compressed")


# --- the results store --------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Path:
    pytest.importorskip("duckdb")
    scores = tmp_path / "scores.csv"
    scores.write_text("id,correct\n" + "".join(f"q{i},{i % 2}\n" for i in range(50)))
    path = tmp_path / "results.duckdb"
    for model in ("small", "large"):
        done = runner.invoke(
            app, ["ingest", str(scores), "--store", str(path), "--model", model, "--task", "t"]
        )
        assert done.exit_code == 0, done.output
    return path


def test_a_damaged_or_truncated_store_is_one_line(store: Path, tmp_path: Path) -> None:
    """Cut short anywhere, or overwritten in the middle: never a DuckDB traceback."""
    data = store.read_bytes()
    scores = tmp_path / "scores.csv"
    damaged = tmp_path / "damaged.duckdb"
    cuts = [len(data) * k // 16 for k in (3, 6, 12)]
    variants = [data[: cuts[0]], data[: cuts[2]]]
    variants += [data[:at] + b"\xff" * 8192 + data[at + 8192 :] for at in cuts[1:]]
    for variant in variants:
        for args in (
            ["store-info", "--store", str(damaged)],
            ["leaderboard", "--store", str(damaged), "--task", "t"],
            ["ingest", str(scores), "--store", str(damaged), "--model", "new", "--task", "t"],
        ):
            damaged.write_bytes(variant)
            result = runner.invoke(app, args)
            if result.exit_code == 4:
                line = _one_line(result, f"{damaged}: cannot ")
                if "damaged or truncated" in line:
                    assert "ingest the result files again into a new store" in line
            else:  # the damage is in a part this command does not read
                assert result.exit_code == 0, (args, result.output, result.exception)


def test_the_python_api_refuses_free_text_labels_too() -> None:
    """judge_agreement and rater_agreement bound their labels as the CLI does."""
    from evalsig.judge import judge_agreement, rater_agreement

    text = [f"the answer is {i}" for i in range(300)]
    with pytest.raises(DataError, match=r"column 'judge' holds 300 distinct labels in 300 rows"):
        judge_agreement(text, [0, 1] * 150)
    with pytest.raises(DataError, match=r"'ratings' holds 600 distinct labels .*free text"):
        rater_agreement([[a, b + "!"] for a, b in zip(text, text, strict=True)], rng=0)
