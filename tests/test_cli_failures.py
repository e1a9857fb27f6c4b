"""Every failure on the command line is one line, ``evalsig: error: ...``, and an exit code.

Data errors exit 4 in every command (gate's and monitor's 1 and 3 are verdicts); a
traceback is never shown. Each class of bad input is run through the
command: damaged compressed files, decompression bombs, CSV dialects and header
problems, deep JSON, files that are not regular or not readable, unwritable ``-o``.
"""

from __future__ import annotations

import errno
import gzip
import importlib
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.cli.application import data_errors
from evalsig.release import load_policy, register

runner = CliRunner()
CSV = "item,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(20))
DEEP = '{"k": ' * 2000 + "1" + "}" * 2000


def _one_line(result: object, code: int, *fragments: str) -> str:
    """The one error line of a CliRunner result, checked against the exit code."""
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert result.exit_code == code, (result.exit_code, stderr, result.exception)  # type: ignore[attr-defined]
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("evalsig: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.csv"
    path.write_text(CSV, encoding="utf-8")
    return path


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _zip(records: object) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("r.json", json.dumps(records))
    return buffer.getvalue()


PACKED = gzip.compress(CSV.encode(), mtime=0)
ZIPPED = _zip([{"item": f"q{i}", "score": i % 2} for i in range(20)])
CASES = {
    "cut.csv.gz": (PACKED[: len(PACKED) // 2], "truncated: the gzip stream ends before its end"),
    "text.csv.gz": (CSV.encode(), "not gzip-compressed: it does not start with the gzip"),
    "tail.csv.gz": (PACKED + b"garbage", "data that are not gzip follow the end of the gzip"),
    "cut.zip": (ZIPPED[: len(ZIPPED) // 2], "not a readable zip archive: the zip archive is"),
    "text.zip": (b"just text", "does not start with the zip signature 'PK'"),
    "dup.csv": (b"id,score,score\nq1,1,0\n", "name 'score' appears 2 times (columns 2 and 3)"),
    "blank.csv": (b"\nitem,score\n", "the header line is blank"),
    "deep.jsonl": (f'{{"item": "a", "score": {DEEP}}}\n'.encode(), "nested deeper than evalsig"),
    "deep.json": (f'[{{"item": "a", "score": {DEEP}}}]'.encode(), "nested deeper than evalsig"),
    "dupkey.json": (b'[{"item": "a", "score": 1, "score": 0}]', "field 'score' appears 2 times"),
    "empty.csv": (b"", "the file is empty (0 bytes)"),
    "binary.jsonl": (bytes(range(128, 256)) * 8, "line 1: not valid UTF-8 text"),
    "latin1.csv": ("item,score\ncafé,1\n".encode("latin-1"), "not valid UTF-8 text"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_compare_reports_each_bad_file_in_one_line(tmp_path: Path, good: Path, name: str) -> None:
    data, fragment = CASES[name]
    bad = _write(tmp_path / name, data)
    result = runner.invoke(app, ["compare", str(bad), str(good)])
    _one_line(result, 4, f"{bad}: ", fragment)


def test_bomb_and_the_cap_variable(tmp_path: Path, good: Path) -> None:
    bomb = tmp_path / "bomb.csv.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        f.write(b"item,score\n" + b"q,1\n" * 2_000_000)  # 8 MB of text
    env = {"EVALSIG_MAX_DECOMPRESSED": "1M"}
    result = runner.invoke(app, ["compare", str(bomb), str(good)], env=env)
    _one_line(
        result,
        4,
        f"{bomb}: expands to more than 1,048,576 bytes (1 MiB) when decompressed",
        "EVALSIG_MAX_DECOMPRESSED=4M",
    )
    result = runner.invoke(
        app, ["compare", str(bomb), str(good)], env={"EVALSIG_MAX_DECOMPRESSED": "huge"}
    )
    _one_line(result, 4, "EVALSIG_MAX_DECOMPRESSED='huge' is not a size")


def test_inspect_and_ingest_on_deep_json(tmp_path: Path) -> None:
    deep = _write(tmp_path / "deep.json", f'[{{"item": "a", "score": {DEEP}}}]'.encode())
    _one_line(runner.invoke(app, ["inspect", str(deep)]), 4, f"{deep}: nested deeper")
    result = runner.invoke(
        app, ["ingest", str(deep), "--store", str(tmp_path / "s.duckdb"), "--model", "m"]
    )
    _one_line(result, 4, f"{deep}: nested deeper")


def test_semicolon_csv_with_a_bom_is_read(tmp_path: Path, good: Path) -> None:
    text = "\ufeffitem;score\n" + "".join(f"q{i};{i % 2}\n" for i in range(20))
    euro = _write(tmp_path / "euro.csv", text.encode())
    result = runner.invoke(app, ["compare", str(euro), str(good), "--format", "json"])
    assert result.exit_code == 0, result.output
    notes = json.loads(result.stdout)["notes"]
    assert f"{euro}: fields are separated by ';', not ',' (detected from the header line)." in notes
    forced = runner.invoke(app, ["compare", str(euro), str(good), "--separator", ","])
    _one_line(forced, 4, f"{euro}: no column is recognisably the item id column")


def test_unwritable_output(tmp_path: Path, good: Path) -> None:
    result = runner.invoke(app, ["compare", str(good), str(good), "-o", str(tmp_path)])
    _one_line(result, 4, f"{tmp_path}: is a directory; give --output / -o a file name")
    missing = tmp_path / "no" / "such" / "r.md"
    result = runner.invoke(app, ["compare", str(good), str(good), "-o", str(missing)])
    _one_line(result, 4, f"the folder {missing.parent} does not exist; create it first")
    into_file = good / "r.md"
    result = runner.invoke(app, ["compare", str(good), str(good), "-o", str(into_file)])
    _one_line(result, 4, f"{good} is a file, not a folder")
    result = runner.invoke(app, ["monitor", str(good), "-o", str(tmp_path)])
    _one_line(result, 4, "is a directory")


def test_write_failure_after_the_work(
    tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fills up while the result is written: one line, the data-error code."""

    def full(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    out = tmp_path / "r.md"
    result = runner.invoke(app, ["compare", str(good), str(good), "-o", str(out)])
    _one_line(result, 4, f"cannot write the output: {out}: no space left on the device")


def test_gate_and_monitor_use_exit_code_4(tmp_path: Path, good: Path) -> None:
    policy = tmp_path / "gate.yaml"
    policy.write_text("name: ship\ntasks:\n  - t\n", encoding="utf-8")
    register(load_policy(policy))
    cut = _write(tmp_path / "cut.csv.gz", PACKED[:40])
    result = runner.invoke(app, ["gate", "--policy", str(policy), str(cut), str(good)])
    _one_line(result, 4, f"{cut}: truncated: the gzip stream ends before its end marker")
    result = runner.invoke(
        app,
        ["gate", "--policy", str(policy), str(good), str(good), "-o", str(tmp_path / "x" / "y")],
    )
    _one_line(result, 4, "does not exist; create it first")
    binary = _write(tmp_path / "pairs.csv", b"baseline,candidate\n1,0\n\xff\xfe\x00,1\n")
    _one_line(runner.invoke(app, ["monitor", str(binary)]), 4, f"{binary}: not valid UTF-8")
    _one_line(runner.invoke(app, ["monitor", str(tmp_path)]), 4, "is a directory, not a file")


def test_a_file_that_vanishes(tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listed, then deleted before it is read (a cleanup job, a network share)."""
    import evalsig.data.readers as readers

    gone = tmp_path / "gone.csv"
    monkeypatch.setattr(readers, "_expand", lambda paths: [Path(paths)])
    result = runner.invoke(app, ["compare", str(gone), str(good), "--input-format", "csv"])
    _one_line(result, 4, f"{gone}: cannot read it: no such file (was it moved or deleted")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_an_unreadable_file(tmp_path: Path, good: Path) -> None:
    locked = _write(tmp_path / "locked.csv", CSV.encode())
    locked.chmod(0)
    result = runner.invoke(app, ["compare", str(locked), str(good)])
    _one_line(result, 4, f"{locked}: cannot read it: permission denied; check the file's")


def test_an_unreadable_file_simulated(
    tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same as root: opening raises PermissionError (as it does for other users)."""
    import builtins

    locked = _write(tmp_path / "locked.csv", CSV.encode())
    real_open = builtins.open

    def deny(file: object, *args: object, **kwargs: object) -> object:
        if str(file) == str(locked):
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", deny)
    result = runner.invoke(app, ["compare", str(locked), str(good)])
    _one_line(result, 4, f"{locked}: cannot read it: permission denied; check the file's")


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalsig", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_pipes_and_devices_are_refused_not_read(tmp_path: Path, good: Path) -> None:
    """In a subprocess with a timeout: reading them would block or never end."""
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a named pipe (FIFO)"), (Path("/dev/zero"), "a character device")):
        done = _run("compare", str(path), str(good), "--input-format", "csv")
        assert done.returncode == 4, done.stderr
        assert done.stderr == (
            f"evalsig: error: {path}: is {kind}, not a regular file; evalsig reads a file "
            "more than once (first to detect its format), so save the data to a file and "
            "pass that.\n"
        )
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    done = _run("compare", str(folder), str(good), "--input-format", "csv")
    assert (done.returncode, done.stderr.count("\n")) == (4, 1), done.stderr
    assert f"{folder}: is a directory, not a file" in done.stderr
    done = _run("monitor", "/dev/zero")
    assert done.returncode == 4, done.stderr
    assert done.stderr == (
        "evalsig: error: /dev/zero: line 1: longer than 1,048,576 characters with no line "
        "break; is it a binary file?\n"
    )


def test_data_errors_is_a_last_resort_for_os_errors(capsys: pytest.CaptureFixture[str]) -> None:
    def fail(failure: BaseException | Callable[[], object], code: int) -> None:
        with data_errors(code):
            if callable(failure):
                failure()
            raise failure  # type: ignore[misc]

    for failure, code, line in [
        (OSError(errno.EIO, "Input/output error", "r.csv"), 1, "r.csv: Input/output error."),
        (
            RecursionError(),
            4,
            "the input is nested too deeply to process (values inside one another hundreds "
            "of levels deep); flatten it.",
        ),
        (
            MemoryError(),
            1,
            "ran out of memory; free memory, or split the input into smaller files.",
        ),
        (
            b"\xff".decode,
            1,
            "the input is not valid UTF-8 text (invalid start byte at byte 0); re-save it as "
            "UTF-8.",
        ),
    ]:
        with pytest.raises(typer.Exit) as stopped:
            fail(failure, code)
        assert stopped.value.exit_code == code
        assert capsys.readouterr().err == f"evalsig: error: {line}\n"


def test_main_reports_what_escapes_a_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main()'s guard: one line, and the data-error code, the same for every command."""
    app_module = importlib.import_module("evalsig.cli.application")
    for command, code in (("compare", 4), ("gate", 4), ("monitor", 4)):

        def escape(command: str = command) -> None:
            app_module._invoked["command"] = command
            raise IsADirectoryError(errno.EISDIR, "Is a directory", "out/")

        monkeypatch.setattr(app_module, "_run", escape)
        with pytest.raises(SystemExit) as stopped:
            app_module.main()
        assert stopped.value.code == code
        assert (
            capsys.readouterr().err == "evalsig: error: out/: is a directory; give a file name.\n"
        )


def test_exit_codes_are_in_the_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert (
        "Exit codes: 0 success, gate PASS, monitor candidate better; 1 gate FAIL, monitor "
        "baseline better; 2 usage error; 3 gate INCONCLUSIVE, monitor not yet resolved; "
        "4 data error (a bad file, field or value; one line on stderr)." in text
    )
    assert "set EVALSIG_MAX_DECOMPRESSED (e.g. 4G) to change the cap." in text
