"""What every command takes the same way, through its one Command class (issue 28):
``--quiet``/``--verbose`` after the command's name too, comma lists in repeatable number
options, and one line naming the option, the value and the fix for a bad number."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.cli.application import EXIT_OK, EXIT_USAGE

runner = CliRunner()
GROUP: Any = typer.main.get_command(app)


def _numbers(param: Any) -> str | None:
    """'int' or 'float' for an option of numbers (or a list of them), else None."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    text = str(annotation)
    if param.param_type_name != "option" or annotation is bool:
        return None
    if annotation in (int, float):
        return annotation.__name__
    return {"list[int]": "int", "list[float]": "float"}.get(text)


NUMBER_OPTIONS = sorted(
    (name, max(p.opts, key=len), kind, bool(p.multiple))
    for name, command in GROUP.commands.items()
    for p in command.params
    if (kind := _numbers(p)) is not None
)


def _write(path: Path, rows: list[tuple[object, ...]], header: str) -> str:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    rng = np.random.default_rng(7)
    base = [(f"q{i}", int(rng.random() < 0.6)) for i in range(200)]
    cand = [(f"q{i}", int(rng.random() < 0.7)) for i in range(200)]
    samples = [(f"t{t}", s, int(rng.random() < 0.5)) for t in range(20) for s in range(6)]
    runs = [(f"m{m}", f"q{i}", r, int(rng.random() < 0.5)) for m in (1, 2) for i in range(60)
            for r in range(4)]  # fmt: skip
    return {
        "base": _write(tmp_path / "b.csv", base, "id,score"),
        "cand": _write(tmp_path / "c.csv", cand, "id,score"),
        "samples": _write(tmp_path / "s.csv", samples, "id,run,score"),
        "runs": _write(tmp_path / "r.csv", runs, "model,id,run,score"),
        "out": str(tmp_path / "out.json"),
    }


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str]:
    """Run a command line on the group built once (fast): its exit code and stderr."""
    code = GROUP.main(args=args, prog_name="evalsig", standalone_mode=False)
    return code, capsys.readouterr().err


# --- --quiet and --verbose after the command -----------------------------------------------


def _commands(f: dict[str, str]) -> dict[str, list[str]]:
    """Several commands, each writing its result to a file (so stderr holds only notes)."""
    return {
        "compare": ["compare", f["base"], f["cand"]],
        "score": ["score", f["base"]],
        "pass-at-k": ["pass-at-k", f["samples"], "--k", "2"],
        "power": ["power", "--p01", "0.1", "--p10", "0.05"],
        "noise": ["noise", f["runs"], "--model-column", "model"],
    }


@pytest.mark.parametrize("name", ["compare", "score", "pass-at-k", "power", "noise"])
def test_quiet_works_after_the_command_as_before_it(
    files: dict[str, str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*_commands(files)[name], "--format", "json", "-o", files["out"]]
    code, stderr = _run(args, capsys)
    assert code in (None, EXIT_OK), stderr
    assert f"wrote {files['out']}" in stderr
    for quiet in ([*args, "-q"], [*args, "--quiet"], [name, "-q", *args[1:]]):
        code, stderr = _run(quiet, capsys)
        assert code in (None, EXIT_OK), stderr
        assert stderr == "", quiet
        assert json.loads(Path(files["out"]).read_text())["kind"]


def test_verbose_after_the_command_reports_progress_and_time(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", files["base"], files["cand"], "--method", "bootstrap", "-o", files["out"]]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", *args, "-v"], capture_output=True, env=env, check=False
    )
    assert done.returncode == EXIT_OK, done.stderr
    lines = done.stderr.decode().strip().splitlines()
    assert lines[-1].startswith("evalsig: compare took "), lines
    assert any(line.endswith(" ...") for line in lines), lines  # progress: a stage began
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", *args[:3], "--verbose", *args[3:]],
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == EXIT_OK, done.stderr
    stderr = done.stderr.decode()
    assert any(": done in " in line for line in stderr.splitlines()), stderr  # a stage ended


@pytest.mark.parametrize(
    "args", [["-q", "compare", "B", "C", "-v"], ["compare", "B", "C", "-q", "-v"]]
)
def test_quiet_and_verbose_together_are_a_usage_error(
    files: dict[str, str], args: list[str]
) -> None:
    args = [files["base"] if a == "B" else files["cand"] if a == "C" else a for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USAGE
    assert "not both" in result.stderr


def test_every_command_lists_quiet_and_verbose() -> None:
    for name, command in GROUP.commands.items():
        names = {o for p in command.params for o in p.opts}
        assert {"-q", "--quiet", "-v", "--verbose"} <= names, name


# --- numbers -------------------------------------------------------------------------------


def test_the_number_options_are_found() -> None:
    found = {(name, option) for name, option, _, _ in NUMBER_OPTIONS}
    assert {("pass-at-k", "--k"), ("noise", "--runs"), ("compare", "--seed")} <= found


@pytest.mark.parametrize(("name", "option", "kind", "several"), NUMBER_OPTIONS)
def test_a_word_for_a_number_is_one_line_naming_the_option(
    name: str, option: str, kind: str, several: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stderr = _run([name, option, "many"], capsys)
    assert code == EXIT_USAGE
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    what = "a whole number" if kind == "int" else "a number"
    assert lines[0].startswith(f"evalsig: error: {option}: 'many' is not {what}; give one, e.g.")
    assert "Input should" not in stderr  # no validation library's wording
    assert (f"{option} 1,5" in lines[0]) == several


def test_a_number_out_of_range_names_the_limit() -> None:
    result = runner.invoke(app, ["compare", "b.csv", "c.csv", "--resamples", "50"])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.strip() == (
        "evalsig: error: --resamples: '50' is out of range; it must be at least 100."
    )
    k = runner.invoke(app, ["pass-at-k", "f.csv", "--k", "1,0"])
    assert k.exit_code == EXIT_USAGE
    assert k.stderr.strip().startswith("evalsig: error: --k: '0' is out of range")


def test_repeatable_number_options_take_a_comma_list(files: dict[str, str]) -> None:
    def run(*args: str) -> dict[str, Any]:
        result = runner.invoke(app, [*args, "--format", "json"])
        assert result.exit_code == EXIT_OK, result.stderr
        return dict(json.loads(result.stdout))

    listed = run("pass-at-k", files["samples"], "--k", "1,3")
    assert [row["k"] for row in listed["rows"]] == [1, 3]
    assert run("pass-at-k", files["samples"], "--k=1,3")["rows"] == listed["rows"]
    assert run("pass-at-k", files["samples"], "--k", "1", "--k", "3")["rows"] == listed["rows"]
    runs = run("noise", files["runs"], "--runs", "1, 2,4")
    assert sorted({row["runs"] for row in runs["options"]}) == [1, 2, 4]
    where = runner.invoke(app, ["compare", files["base"], files["cand"], "--where", "id=q1,q2"])
    assert "no record has id=q1,q2" in where.stderr  # a text option keeps its commas
