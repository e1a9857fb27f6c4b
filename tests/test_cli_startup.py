"""Start-up stays light: ``import evalsig``, ``import evalsig.cli`` and every ``--help`` load
no numerics, store or report stack (they are imported by the commands that use them).

Structural, not timed: each check runs in a fresh interpreter and lists what it imported.
benchmarks/bench_startup.py measures the times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HEAVY = ("numpy", "scipy", "duckdb", "pandas", "pyarrow", "matplotlib", "jinja2")
"""Modules that ``evalsig --help`` must not import."""

COMMANDS = (
    "compare",
    "plugins",
    "score",
    "pass-at-k",
    "judge",
    "agreement",
    "position-bias",
    "length-bias",
    "judge-plan",
    "variance",
    "arena",
    "noise",
    "gate",
    "register",
    "inspect",
    "report",
    "power",
    "resolution",
    "monitor",
    "leaderboard",
    "ingest",
    "store-info",
    "meta",
    "audit",
    "audit-claim",
    "simulate",
    "demo",
)

_REPORT = f"""
import json, sys
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def _heavy_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter has imported after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", code + _REPORT], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("module", ["evalsig", "evalsig.cli"])
def test_import_is_light(module: str) -> None:
    assert _heavy_after(f"import {module}") == []


def test_help_of_every_command_is_light() -> None:
    """The entry point's ``--help``, and each command's, exit 0 without the heavy modules."""
    code = f"""
import contextlib, io, sys
from evalsig.cli import main
codes, usages = [], []
for args in [[]] + [[name] for name in {COMMANDS!r}]:
    sys.argv = ["evalsig", *args, "--help"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main()
        except SystemExit as exc:
            codes.append(exc.code)
    usages.append(out.getvalue().lstrip().startswith("Usage: evalsig " + " ".join(args)))
print(codes, usages, file=sys.stderr)
assert set(codes) <= {{0, None}} and all(usages), (codes, usages)
"""
    assert _heavy_after(code) == []


def test_python_m_evalsig_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().startswith("Usage: evalsig [OPTIONS] COMMAND [ARGS]...")
    assert "EVALSIG_MAX_DECOMPRESSED" in " ".join(done.stdout.split())


def _long_csv(path: Path, scores: list[list[float]]) -> Path:
    """A long CSV: one row per (item, run), ``scores[run][item]``."""
    rows = [f"q{item},{run},{s:g}" for run, row in enumerate(scores) for item, s in enumerate(row)]
    path.write_text("item,run,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _run_fresh(args: list[str], modules: tuple[str, ...]) -> tuple[str, list[str]]:
    """Run ``evalsig ARGS`` (exit 0) in a fresh interpreter: its standard output, and which
    of ``modules`` it imported."""
    code = f"""
import contextlib, io, json, sys
from evalsig.cli import main
sys.argv = ["evalsig", *{args!r}]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, None), exc.code
print(json.dumps([out.getvalue(), [m for m in {modules!r} if m in sys.modules]]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    output, loaded = json.loads(done.stdout.splitlines()[-1])
    return output, loaded


@pytest.mark.parametrize(
    ("n_runs", "binary", "method"),
    [
        (1, True, "mcnemar-asymptotic"),
        (3, True, "paired-t-adjusted"),
        (2, False, "paired-t-adjusted"),
    ],
)
def test_compare_imports_neither_scipy_stats_nor_optimize(
    tmp_path: Path, n_runs: int, binary: bool, method: str
) -> None:
    """``evalsig compare A B`` takes its tails from scipy.special and finds McNemar's
    interval with its own Brent's method: importing scipy.stats (about 0.4 s) or
    scipy.optimize (0.1-0.2 s) would be most of its start-up. The method it ran is checked
    too."""
    draw = np.random.default_rng(7).random((2, n_runs, 60))
    sides = (draw < 0.6).astype(float) if binary else draw.round(3)
    a = _long_csv(tmp_path / "a.csv", sides[0].tolist())
    b = _long_csv(tmp_path / "b.csv", sides[1].tolist())
    args = ["compare", str(a), str(b), "--run", "run", "--format", "json"]
    output, loaded = _run_fresh(args, ("scipy.stats", "scipy.optimize"))
    assert (loaded, json.loads(output)["method"]) == ([], method)


def test_the_command_line_builds_only_the_command_it_names() -> None:
    """Typer builds the parameters of every command it holds; ``main`` gives it only the
    command named on the line, and the whole application when no command is named."""
    from evalsig.cli.application import _application, app

    whole = [info.name for info in app.registered_commands]
    assert sorted(whole) == sorted(COMMANDS)
    for args in (["compare", "a.csv", "b.csv"], ["-q", "compare", "--help"]):
        assert [info.name for info in _application(args).registered_commands] == ["compare"]
    for args in ([], ["--help"], ["--version"], ["compre", "a.csv"]):
        assert _application(args) is app
    assert len(app.registered_commands) == len(COMMANDS)  # the whole application is untouched


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_alone_reads_its_line_as_in_the_whole_application(name: str) -> None:
    from typer.testing import CliRunner

    from evalsig.cli.application import _application, app

    runner = CliRunner()
    for args in ([name, "--help"], [name, "--no-such-option"]):
        alone = runner.invoke(_application(args), args, prog_name="evalsig")
        whole = runner.invoke(app, args, prog_name="evalsig")
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


def test_a_mistyped_command_is_still_suggested() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", "compre"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "Did you mean 'compare'" in done.stderr


def test_preload_imports_in_the_background_and_leaves_failures_to_the_import() -> None:
    """scipy.special loads in a thread while a command reads; a module that fails to import
    fails there silently and again, as usual, where the command imports it."""
    code = """
import sys, threading
from evalsig.cli.preload import STATISTICS, preload
raised = []
threading.excepthook = lambda args: raised.append(args.exc_type)
assert "scipy.special" not in sys.modules
preload().join()
preload(["evalsig._no_such_module", "json"]).join()
try:
    import evalsig._no_such_module
except ModuleNotFoundError:
    raised.append("again")
print(STATISTICS == ("scipy.special",), "scipy.special" in sys.modules, raised)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=2) == ["True", "True", "['again']\n"]


@pytest.mark.parametrize(
    "module", ["evalsig.power", "evalsig.leaderboard", "evalsig.release", "evalsig.audit"]
)
def test_planning_ranking_gating_and_audits_import_neither_scipy_stats_nor_optimize(
    module: str,
) -> None:
    """Their tails come from scipy.special and their roots from evalsig's Brent's method:
    scipy.stats (about 0.4 s) and scipy.optimize (0.1-0.2 s) would be most of a start-up.
    (A plugin importing ``MethodInput`` from evalsig.audit pays for what that imports.)"""
    heavy = {"scipy.stats", "scipy.optimize"}
    code = f"import sys, {module}; print(sorted({heavy!r} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("command", ["compare", "pass-at-k"])
def test_text_output_loads_no_html_renderer(tmp_path: Path, command: str) -> None:
    """Text is drawn from the result's JSON by its kind's view; the HTML views register
    without importing the renderer, so jinja2 (about 0.05 s) loads only for HTML."""
    draw = (np.random.default_rng(3).random((2, 4, 30)) < 0.5).astype(float)
    a = _long_csv(tmp_path / "a.csv", draw[0].tolist())
    b = _long_csv(tmp_path / "b.csv", draw[1].tolist())
    args = [command, str(a), str(b), "--run", "run"]
    if command == "pass-at-k":
        args = [command, str(a), "--id", "item", "--run", "run", "--k", "1,2"]
    output, loaded = _run_fresh(args, ("jinja2",))
    assert output.strip()
    assert loaded == []
