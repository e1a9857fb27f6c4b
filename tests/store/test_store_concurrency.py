"""Several processes on one store: writers wait for each other, readers for writers.

DuckDB locks the file for as long as a connection is open: one process may have it open to
write, or any number of processes to read, never both. These tests hold a store open in
a real second process and check that opening it waits (with backoff) and then either
succeeds or fails with one clear error after the timeout.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.data import load
from evalsig.errors import DataError, EvalsigError, StoreLockedError
from evalsig.store import ResultsStore
from evalsig.store._lock import connect

pytest.importorskip(
    "duckdb", reason="the results store needs duckdb: pip install 'evalsig-stats[store]'"
)

runner = CliRunner()

_HOLD = """
import sys
import duckdb
from evalsig.store import ResultsStore
if sys.argv[2] == "create":  # a bare DuckDB connection: creates the file, no tables yet
    store = duckdb.connect(sys.argv[1])
else:
    store = ResultsStore(sys.argv[1], read_only=sys.argv[2] == "read")
print("holding", flush=True)
sys.stdin.readline()
store.close()
print("released", flush=True)
"""


class Holder:
    """Another process with the store open, until :meth:`release`."""

    def __init__(self, store: Path, mode: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(store), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line != "holding\n":
            self.stop()
            pytest.fail(f"the holding process did not start: {line!r}")

    @property
    def pid(self) -> int:
        return self.process.pid

    def release(self, after: float = 0.0) -> None:
        """Close the store (``after`` seconds from now, from another thread)."""
        if after:
            timer = threading.Timer(after, self.release)
            self._timers.append(timer)
            timer.start()
            return
        with self._lock:
            if self.process.poll() is None and self.process.stdin is not None:
                if not self.process.stdin.closed:
                    self.process.stdin.write("\n")
                    self.process.stdin.flush()
                    self.process.stdin.close()
                self.process.wait(timeout=60)

    def stop(self) -> None:
        """Release now (if not yet), end the process, close its pipes."""
        for timer in self._timers:
            timer.cancel()
        self.release()
        with self._lock:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait(timeout=60)
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None and not stream.closed:
                    stream.close()


@contextmanager
def held(store: Path, mode: str = "write") -> Iterator[Holder]:
    holder = Holder(store, mode)
    try:
        yield holder
    finally:
        holder.stop()


def _csv(path: Path, every: int) -> Path:
    rows = [f"q{i},{int(i % every != 0)}" for i in range(12)]
    path.write_text("id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store holding model 'base' on task 'quiz'."""
    path = tmp_path / "results.duckdb"
    with ResultsStore(path) as db:
        db.ingest(_csv(tmp_path / "base.csv", 3), model="base", task="quiz")
    return path


# --- the library --------------------------------------------------------------------------


def test_a_writer_waits_for_another_writer(store: Path, tmp_path: Path) -> None:
    tuned = _csv(tmp_path / "tuned.csv", 5)
    with held(store) as holder:
        holder.release(after=1.0)
        start = time.monotonic()
        with ResultsStore(store, lock_timeout=60) as db:
            waited = time.monotonic() - start
            db.ingest(tuned, model="tuned", task="quiz")
            assert db.models("quiz") == ("base", "tuned")
    assert waited >= 0.9  # it could not open the store before the holder let go


def test_the_lock_timeout_is_honoured(store: Path) -> None:
    with held(store) as holder:
        start = time.monotonic()
        with pytest.raises(StoreLockedError) as info:
            ResultsStore(store, lock_timeout=0.5)
        waited = time.monotonic() - start
    assert 0.5 <= waited < 10
    message = str(info.value)
    assert re.fullmatch(
        rf"{re.escape(str(store))}: the results store is locked: another process "
        rf"\(PID {holder.pid}\) has it open \(to read or to write\); waited 0\.\d s\. A store "
        r"can be open in one process that writes, or in any number of processes that only "
        r"read, never both at once\. Try again when that process has finished, or wait "
        r"longer with --lock-timeout SECONDS \(lock_timeout=\)\.",
        message,
    ), message
    assert isinstance(info.value, EvalsigError)
    assert isinstance(info.value, TimeoutError)


def test_no_wait_with_a_zero_timeout(store: Path) -> None:
    with held(store), pytest.raises(StoreLockedError, match=r"did not wait \(lock timeout 0\)"):
        ResultsStore(store, lock_timeout=0)


def test_readers_share_a_store_and_keep_writers_out(store: Path) -> None:
    with held(store, "read"):
        with ResultsStore(store, read_only=True, lock_timeout=0) as db:  # at once
            assert db.models("quiz") == ("base",)
        with pytest.raises(StoreLockedError, match=r"has it open \(to read or to write\)"):
            ResultsStore(store, lock_timeout=0.3)


def test_a_reader_waits_for_a_writer(store: Path, tmp_path: Path) -> None:
    with held(store) as holder:
        with pytest.raises(StoreLockedError, match=r"\) has it open for writing; waited"):
            ResultsStore(store, read_only=True, lock_timeout=0.3)
        holder.release(after=0.5)
        with ResultsStore(store, read_only=True, lock_timeout=60) as db:
            table = db.table("base", "quiz")
    assert table.sums.tolist() == load(tmp_path / "base.csv").sums.tolist()


def test_a_new_store_being_created_elsewhere_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    with ResultsStore(path, lock_timeout=60) as db:  # no file yet: the first ingest makes it
        with held(path, "create") as holder:  # meanwhile another process creates the file
            holder.release(after=0.5)
            report = db.ingest(_csv(tmp_path / "a.csv", 3), model="a", task="quiz")
        assert report.n_ingested == 1
        assert db.models("quiz") == ("a",)


@pytest.mark.parametrize("value", [-1.0, float("nan"), "soon"])
def test_a_bad_lock_timeout_is_refused(tmp_path: Path, value: Any) -> None:
    with pytest.raises(DataError) as info:
        ResultsStore(tmp_path / "r.duckdb", lock_timeout=value)
    assert str(info.value) == (
        f"`lock_timeout` is {value!r}; give the seconds to wait for another process's lock "
        "on the store: 0 or more (0: do not wait)."
    )


class _Locked(Exception):
    pass


class _FakeDuckDB:
    """Fails to connect ``n`` times with DuckDB's lock message, then connects."""

    Error = _Locked

    def __init__(self, n: int, message: str) -> None:
        self.n = n
        self.message = message
        self.calls = 0

    def connect(self, path: str, read_only: bool) -> str:
        self.calls += 1
        if self.calls <= self.n:
            raise _Locked(self.message)
        return "connection"


LOCKED = (
    'IO Error: Could not set lock on file "r.duckdb": Conflicting lock is held in python '
    "(PID 4242). See also https://duckdb.org/docs/stable/connect/concurrency"
)


def test_the_waits_back_off_exponentially_with_jitter(tmp_path: Path) -> None:
    fake = _FakeDuckDB(8, LOCKED)
    waits: list[float] = []
    got = connect(
        fake, tmp_path / "r.duckdb", read_only=False, lock_timeout=1e9, sleep=waits.append
    )
    assert got == "connection"
    assert fake.calls == 9
    nominal = [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    assert len(waits) == len(nominal)
    for wait, top in zip(waits, nominal, strict=True):
        assert 0.5 * top <= wait <= top


def test_other_open_errors_are_not_retried(tmp_path: Path) -> None:
    fake = _FakeDuckDB(1, "IO Error: not a valid DuckDB database file")
    waits: list[float] = []
    with pytest.raises(DataError, match=r"cannot open the results store .*not a valid DuckDB"):
        connect(fake, tmp_path / "r.duckdb", read_only=False, lock_timeout=60, sleep=waits.append)
    assert (fake.calls, waits) == (1, [])


# --- the command line ---------------------------------------------------------------------


def _evalsig(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evalsig", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_ingests_at_once_both_succeed_one_after_the_other(store: Path, tmp_path: Path) -> None:
    files = {model: _csv(tmp_path / f"{model}.csv", every) for model, every in (("x", 4), ("y", 6))}
    with held(store) as holder:  # both start while the store is held: both must wait
        runs = {
            model: _evalsig(
                "ingest",
                str(path),
                "--store",
                str(store),
                "--model",
                model,
                "--task",
                "quiz",
                "--lock-timeout",
                "120",
            )
            for model, path in files.items()
        }
        time.sleep(1.0)
        assert [run.poll() for run in runs.values()] == [None, None]  # still waiting
        holder.release()
        outputs = {model: run.communicate(timeout=120) for model, run in runs.items()}
    for model, run in runs.items():
        out, err = outputs[model]
        assert run.returncode == 0, err
        assert out.splitlines()[0] == f"ingested  {files[model]}: 12 scores; {model!r} on 'quiz'"
    with ResultsStore(store, read_only=True) as db:
        assert sorted(db.models("quiz")) == ["base", "x", "y"]
        for model, path in files.items():
            assert db.table(model, "quiz").sums.tolist() == load(path).sums.tolist()


def test_store_info_during_a_write_is_one_error_line(store: Path) -> None:
    with held(store) as holder:
        result = runner.invoke(app, ["store-info", "--store", str(store), "--lock-timeout", "0.3"])
    assert result.exit_code == 4
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"evalsig: error: {store}: the results store is locked: another process "
        f"(PID {holder.pid}) has it open for writing; waited 0."
    )
    assert "Traceback" not in result.output


def test_store_info_waits_for_a_write_to_end(store: Path) -> None:
    with held(store) as holder:
        holder.release(after=0.5)
        result = runner.invoke(app, ["store-info", "--store", str(store), "--lock-timeout", "60"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        f"{store}: 1 source ingested",
        "task 'quiz': 1 model, 12 items; metric: score",
    ]


def test_leaderboard_and_ingest_honour_the_lock_timeout(store: Path, tmp_path: Path) -> None:
    tuned = _csv(tmp_path / "tuned.csv", 5)
    with held(store):
        board = runner.invoke(
            app, ["leaderboard", "--store", str(store), "--task", "quiz", "--lock-timeout", "0.2"]
        )
        ingest = runner.invoke(
            app,
            ["ingest", str(tuned), "--store", str(store), "--model", "t", "--task", "quiz",
             "--lock-timeout", "0.2"],
        )  # fmt: skip
    for result, doing in ((board, "open for writing"), (ingest, "open (to read or to write)")):
        assert result.exit_code == 4
        (line,) = result.stderr.strip().splitlines()
        assert f"has it {doing}; waited 0." in line
    with ResultsStore(store, read_only=True) as db:
        assert db.models("quiz") == ("base",)  # the refused ingest stored nothing


def test_a_negative_lock_timeout_is_a_usage_error(store: Path) -> None:
    result = runner.invoke(app, ["store-info", "--store", str(store), "--lock-timeout", "-1"])
    assert result.exit_code == 2
    assert "--lock-timeout" in result.output
