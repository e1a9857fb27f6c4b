"""One command line: one exit-code scheme, one name per option, the same input options,
``-`` for standard input, --quiet/--verbose, an example in every help (issue 17)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.cli.application import (
    EXIT_CODES,
    EXIT_DATA_ERROR,
    EXIT_FAILED,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_USAGE,
)
from evalsig.cli.options import INPUT_FORMATS
from evalsig.cli.stdin import suffix_for
from evalsig.release import gate

runner = CliRunner()
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def _options() -> dict[str, set[str]]:
    """Every command's visible option names."""
    group = typer.main.get_command(app)
    return {
        name: {o for p in command.params if not p.hidden for o in p.opts}
        for name, command in group.commands.items()  # type: ignore[attr-defined]
    }


def _csv(path: Path, rows: list[tuple[object, ...]], header: str) -> Path:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def pair_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    base = [(f"q{i}", int(rng.random() < 0.6)) for i in range(200)]
    cand = [(f"q{i}", int(rng.random() < 0.7)) for i in range(200)]
    return _csv(tmp_path / "b.csv", base, "id,score"), _csv(tmp_path / "c.csv", cand, "id,score")


# --- exit codes ----------------------------------------------------------------------------


def test_one_exit_code_scheme() -> None:
    assert (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_DATA_ERROR) == (0, 1, 2, 3, 4)
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 4]
    root = " ".join(runner.invoke(app, ["--help"]).stdout.split())
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {meaning}" in root
    assert "Example: evalsig compare " in root


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "MISSING", "MISSING"],
        ["inspect", "MISSING"],
        ["leaderboard", "MISSING"],
        ["resolution", "MISSING"],
        ["power", "MISSING", "MISSING"],
        ["audit-claim", "MISSING", "MISSING", "--pvalue", "0.01"],
        ["gate", "MISSING", "MISSING", "--policy", "MISSING.yaml"],
        ["register", "MISSING.yaml"],
        ["monitor", "MISSING"],
        ["report", "MISSING"],
        ["meta", "MISSING"],
    ],
)
def test_a_data_error_exits_4_in_every_command(args: list[str], tmp_path: Path) -> None:
    args = [str(tmp_path / a) if a.startswith("MISSING") else a for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_DATA_ERROR, (result.exit_code, result.output)
    assert result.stderr.startswith("evalsig: error: ")
    assert "Traceback" not in result.output


def test_a_usage_error_exits_2(pair_files: tuple[Path, Path]) -> None:
    base, cand = map(str, pair_files)
    unknown = runner.invoke(app, ["compare", base, cand, "--input-format", "xml"])
    assert unknown.exit_code == EXIT_USAGE
    assert "'xml' is not one of 'auto', 'lm-eval'" in unknown.stderr


# --- help ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMANDS)
def test_every_help_has_an_example_the_exit_codes_and_plain_usage(name: str) -> None:
    text = runner.invoke(app, [name, "--help"]).stdout
    usage = text.strip().splitlines()[0]
    assert usage.startswith(f"Usage: evalsig {name} [OPTIONS]")
    assert "{" not in usage
    assert "}" not in usage
    arguments = usage.partition("[OPTIONS]")[2]
    assert arguments == arguments.upper()
    assert f"Example: evalsig {name} " in text or f"| evalsig {name} " in text
    assert "Exit codes: 0 success" in text


def test_usage_lines_name_the_arguments_in_capitals() -> None:
    lines = {
        name: runner.invoke(app, [name, "--help"]).stdout.splitlines()[0]
        for name in ("compare", "gate", "inspect", "leaderboard", "power", "register")
    }
    assert lines["compare"] == "Usage: evalsig compare [OPTIONS] BASELINE CANDIDATE"
    assert lines["gate"] == "Usage: evalsig gate [OPTIONS] BASELINE CANDIDATE"
    assert lines["inspect"] == "Usage: evalsig inspect [OPTIONS] PATHS..."
    assert lines["leaderboard"] == "Usage: evalsig leaderboard [OPTIONS] [SOURCE]"
    assert lines["power"] == "Usage: evalsig power [OPTIONS] [PILOT]..."
    assert lines["register"] == "Usage: evalsig register [OPTIONS] POLICY"


def test_shell_completion_is_offered() -> None:
    text = runner.invoke(app, ["--help"]).stdout
    assert "--install-completion" in text
    assert "--show-completion" in text


# --- option names --------------------------------------------------------------------------


def test_one_name_per_concept() -> None:
    options = _options()
    everywhere = set().union(*options.values())
    assert not everywhere & {"--n-resamples", "--bootstrap", "--rng", "--level", "--n-boot"}
    for name in ("audit", "audit-claim", "compare", "gate", "leaderboard", "meta", "resolution"):
        assert "--resamples" in options[name], name
    for name, names in options.items():  # audit-claim's --resamples is the report's B
        random = names & {"--resamples", "--simulations"} and name != "audit-claim"
        assert "--seed" in names or not random, name
    assert "--model-column" in options["leaderboard"]
    assert "--model-column" in options["resolution"]
    assert "--model" not in options["leaderboard"] | options["resolution"]


def test_input_formats_are_the_registered_readers() -> None:
    from evalsig.data.readers import READERS

    assert INPUT_FORMATS[0] == "auto"
    assert sorted(INPUT_FORMATS[1:]) == sorted(READERS)  # tests may reorder the registry


READ_OPTIONS = {
    "--id",
    "--score",
    "--run",
    "--cluster",
    "--key",
    "--where",
    "--task-column",
    "--metric",
    "--filter",
    "--input-format",
    "--separator",
}


@pytest.mark.parametrize("name", ["compare", "gate", "leaderboard", "resolution", "power"])
def test_the_commands_that_read_results_take_the_same_input_options(name: str) -> None:
    assert not READ_OPTIONS - _options()[name]


def test_the_old_resolution_bootstrap_still_works_with_a_note(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    rows = [
        (m, f"q{i}", f"c{i % 8}", int(rng.random() < p))
        for m, p in (("a", 0.5), ("b", 0.6), ("c", 0.7))
        for i in range(160)
    ]
    table = _csv(tmp_path / "long.csv", rows, "model,id,subject,score")
    args = ["resolution", str(table), "--cluster", "subject", "--seed", "1", "--format", "json"]
    new = runner.invoke(app, [*args, "--resamples", "50"])
    old = runner.invoke(app, [*args, "--bootstrap", "50"])
    assert new.exit_code == old.exit_code == 0, old.output
    documents = [json.loads(done.stdout) for done in (new, old)]
    for document in documents:  # the two runs may fall in different seconds
        document["provenance"].pop("created")
    assert documents[0] == documents[1]
    assert documents[1]["bootstrap"]["n_resamples"] == 50
    assert old.stderr.strip() == "evalsig: --bootstrap is deprecated; use --resamples."
    assert new.stderr == ""


def test_leaderboard_and_resolution_take_where_like_compare(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    rows = [
        (m, split, f"q{i}", int(rng.random() < p))
        for m, p in (("a", 0.5), ("b", 0.6), ("c", 0.75))
        for split in ("dev", "test")
        for i in range(120)
    ]
    both = _csv(tmp_path / "both.csv", rows, "model,split,id,score")
    test = _csv(tmp_path / "test.csv", [r for r in rows if r[1] == "test"], "model,split,id,score")
    for name in ("leaderboard", "resolution"):
        args = [name, "--format", "json", "--seed", "1"]
        chosen = runner.invoke(app, [*args, str(both), "--where", "split=test"])
        alone = runner.invoke(app, [*args, str(test)])
        assert chosen.exit_code == alone.exit_code == 0, chosen.output
        picked, oracle = json.loads(chosen.stdout), json.loads(alone.stdout)
        for data in (picked, oracle):  # the file's name aside
            data.pop("provenance", None)
            data["notes"] = [n.replace(str(both), "").replace(str(test), "") for n in data["notes"]]
        assert picked == oracle
    typo = runner.invoke(app, ["leaderboard", str(both), "--where", "split=tst"])
    assert typo.exit_code == EXIT_DATA_ERROR
    assert "no record has split=tst; 'split' holds 'dev', 'test'" in typo.stderr


# --- the gate reads a long table -----------------------------------------------------------


def test_the_gate_reads_a_long_csv_with_a_task_column(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    shifts = {"arc": 0.15, "gsm": 0.0, "mmlu": -0.15}
    sides: dict[str, dict[str, dict[str, float]]] = {"base": {}, "cand": {}}
    for task, shift in shifts.items():
        p = rng.uniform(0.2, 0.8, 300)
        sides["base"][task] = {f"{task}-{i}": float(rng.random() < q) for i, q in enumerate(p)}
        sides["cand"][task] = {
            f"{task}-{i}": float(rng.random() < min(max(q + shift, 0), 1)) for i, q in enumerate(p)
        }
    files = {
        side: _csv(
            tmp_path / f"{side}.csv",
            [(t, i, s) for t, items in tasks.items() for i, s in items.items()],
            "task,item,score",
        )
        for side, tasks in sides.items()
    }
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"name": "long", "tasks": [{"name": t} for t in shifts]}))
    args = ["gate", str(files["base"]), str(files["cand"]), "--policy", str(policy)]
    result = runner.invoke(
        app, [*args, "--task-column", "task", "--id", "item", "--seed", "5", "--format", "json"]
    )
    data = json.loads(result.stdout)
    verdicts = {t["task"]: t["verdict"] for t in data["tasks"]}
    assert verdicts == {"arc": "PASS", "gsm": "INCONCLUSIVE", "mmlu": "FAIL"}
    assert result.exit_code == EXIT_FAILED, result.output
    oracle = gate(sides["base"], sides["cand"], policy=json.loads(policy.read_text()), rng=5)
    assert [t["pvalue"] for t in data["tasks"]] == [t.pvalue for t in oracle.tasks]
    assert [t["p_adjusted"] for t in data["tasks"]] == [t.p_adjusted for t in oracle.tasks]


# --- standard input ------------------------------------------------------------------------


def _evalsig(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "evalsig", *args],
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
    )


def test_dash_reads_standard_input(pair_files: tuple[Path, Path]) -> None:
    base, cand = pair_files
    args = ["--format", "json", "--method", "permutation", "--seed", "3", "--resamples", "500"]
    from_file = _evalsig("compare", str(base), str(cand), *args)
    piped = _evalsig("compare", "-", str(cand), *args, stdin=base.read_bytes())
    assert from_file.returncode == piped.returncode == 0, piped.stderr
    file_data, pipe_data = json.loads(from_file.stdout), json.loads(piped.stdout)
    for key in ("estimate", "pvalue", "ci", "method", "n_items", "n01", "n10"):
        assert pipe_data[key] == file_data[key], key
    twice = _evalsig("compare", "-", "-", stdin=base.read_bytes())
    assert twice.returncode == EXIT_USAGE
    assert b"standard input (-) can be read once" in twice.stderr
    empty = _evalsig("compare", "-", str(cand))
    assert empty.returncode == EXIT_DATA_ERROR
    assert empty.stderr.decode().startswith("evalsig: error: standard input (-) is empty")


def test_standard_input_is_capped(pair_files: tuple[Path, Path]) -> None:
    base, _ = pair_files
    env = {**os.environ, "EVALSIG_MAX_DECOMPRESSED": "1K"}
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", "inspect", "-"],
        input=base.read_bytes() * 4,
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == EXIT_DATA_ERROR
    assert b"more than 1,024 bytes" in done.stderr


@pytest.mark.parametrize(
    ("head", "given", "suffix"),
    [
        (b"id,score\nq1,1\n", "auto", ".csv"),
        (b"id\tscore\nq1\t1\n", "auto", ".tsv"),
        (b'{"id": "q1", "score": 1}\n{"id": "q2", "score": 0}\n', "auto", ".jsonl"),
        (b'{"results": {"id": "q1"}}', "auto", ".json"),
        (b'[{"id": "q1"}]', "auto", ".json"),
        (b"PAR1\x15\x04", "auto", ".parquet"),
        (b'{"id": "q1"}\n{"id": "q2"}\n', "json", ".json"),
        (gzip.compress(b"id,score\nq1,1\n", mtime=0), "auto", ".csv.gz"),
        (gzip.compress(b'{"id": "q1"}\n{"id": "q2"}\n', mtime=0), "auto", ".jsonl.gz"),
    ],
)
def test_the_format_of_standard_input_is_told_by_its_content(
    head: bytes, given: str, suffix: str
) -> None:
    assert suffix_for(head, given) == suffix


# --- quiet and verbose ---------------------------------------------------------------------


def test_quiet_and_verbose(pair_files: tuple[Path, Path], tmp_path: Path) -> None:
    base, cand = map(str, pair_files)
    out = tmp_path / "r.json"
    normal = runner.invoke(app, ["compare", base, cand, "--format", "json", "-o", str(out)])
    assert normal.exit_code == 0
    assert normal.stderr.strip() == f"wrote {out}"
    quiet = runner.invoke(app, ["-q", "compare", base, cand, "--format", "json", "-o", str(out)])
    assert quiet.exit_code == 0
    assert quiet.stderr == ""
    rng = np.random.default_rng(5)
    base, cand = (
        str(_csv(tmp_path / f"{n}.csv", [(f"q{i}", rng.random()) for i in range(300)], "id,score"))
        for n in ("fb", "fc")
    )
    verbose = _evalsig("--verbose", "compare", base, cand, "--method", "bootstrap")
    assert verbose.returncode == 0
    lines = verbose.stderr.decode().strip().splitlines()
    assert lines[-1].startswith("evalsig: compare took ")
    assert any(line.endswith(" ...") for line in lines[:-1]), lines  # progress: a stage began
    assert any(": done in " in line for line in lines[:-1]), lines  # and ended
    plain = _evalsig("compare", base, cand, "--method", "bootstrap")
    assert plain.stderr == b""
    both = runner.invoke(app, ["-q", "-v", "compare", base, cand])
    assert both.exit_code == EXIT_USAGE


# --- errors that point the right way -------------------------------------------------------


def test_several_models_in_a_long_table_suggest_where_not_run(tmp_path: Path) -> None:
    rows = [(m, f"q{i}", i % 2) for m in ("a", "b", "c") for i in range(30)]
    table = str(_csv(tmp_path / "long.csv", rows, "model,id,score"))
    pooled = runner.invoke(app, ["compare", table, table])
    assert pooled.exit_code == EXIT_DATA_ERROR
    assert "--where model=NAME" in pooled.stderr
    assert "evalsig leaderboard" in pooled.stderr
    assert "--run" not in pooled.stderr
    typo = runner.invoke(
        app,
        ["compare", table, table, "--baseline-where", "model=x", "--candidate-where", "model=a"],
    )
    assert typo.exit_code == EXIT_DATA_ERROR
    assert "no record has model=x; 'model' holds 'a', 'b', 'c'" in typo.stderr


def test_a_saved_result_is_rendered_from_standard_input(pair_files: tuple[Path, Path]) -> None:
    base, cand = map(str, pair_files)
    saved = _evalsig("compare", base, cand, "--format", "json")
    assert saved.returncode == 0, saved.stderr
    piped = _evalsig("report", "-", "--format", "json", stdin=saved.stdout)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == json.loads(saved.stdout)
