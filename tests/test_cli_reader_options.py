"""The reader options are declared once (``evalsig.cli.options.reads_files``): every command
that takes one takes it with the same name, type, default and metavar, and hands ``load``
the same keywords."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.cli.options import READER_OPTIONS, TABLE_OPTIONS, ReadFiles, reads_files

GROUP: Any = typer.main.get_command(app)

FLAGS = {
    "id_column": "--id",
    "score_column": "--score",
    "run_column": "--run",
    "cluster_column": "--cluster",
    "key_column": "--key",
    "prediction_column": "--prediction",
    "answer_column": "--answer",
    "where": "--where",
    "task": "--task",
    "task_column": "--task-column",
    "metric": "--metric",
    "filter_name": "--filter",
    "split": "--split",
    "input_format": "--input-format",
    "separator": "--separator",
    "skip_bad_lines": "--skip-bad-lines",
}
OWN = {
    ("arena", "cluster_column"),  # a FastChat field, read by the arena reader
    ("leaderboard", "task"),  # repeatable: the tasks to rank
    ("leaderboard", "task_column"),
    ("monitor", "input_format"),  # a stream: csv, tsv or jsonl
}
"""Commands whose option of a reader option's name is their own (not the reader's)."""


def _probe() -> Any:
    probe = typer.Typer()

    @probe.command()
    @reads_files()
    def every(read: ReadFiles) -> None:
        """Probe."""

    return typer.main.get_command(probe)


def _params(command: Any) -> dict[str, Any]:
    return {param.name: param for param in command.params if param.name is not None}


def test_the_flags_are_the_reader_options() -> None:
    assert set(FLAGS) == set(READER_OPTIONS)
    assert set(TABLE_OPTIONS) < set(READER_OPTIONS)
    shared = _params(_probe())
    assert [shared[name].opts[0] for name in READER_OPTIONS] == list(FLAGS.values())


@pytest.mark.parametrize("name", sorted(GROUP.commands))
def test_a_command_declares_reader_options_as_declared_once(name: str) -> None:
    shared = _params(_probe())
    for param_name, param in _params(GROUP.commands[name]).items():
        if param_name not in shared or (name, param_name) in OWN:
            continue
        one: Any = shared[param_name]
        got: Any = param
        assert (got.opts, got.secondary_opts) == (one.opts, one.secondary_opts), name
        assert (got.default, got.multiple, got.is_flag, got.metavar) == (
            one.default,
            one.multiple,
            one.is_flag,
            one.metavar,
        ), (name, param_name)


def test_the_command_receives_one_read_files() -> None:
    seen: list[ReadFiles] = []
    probe = typer.Typer()

    @probe.command()
    @reads_files("id_column", "where", "input_format", "skip_bad_lines")
    def one(path: str, read: ReadFiles, *, extra: int = 1) -> None:
        seen.append(read)

    result = CliRunner().invoke(
        probe,
        ["x.csv", "--id", "q", "--where", "model=a", "--where", "task=t", "--skip-bad-lines"],
    )
    assert result.exit_code == 0, result.output
    assert seen == [ReadFiles(id_column="q", where=("model=a", "task=t"), skip_bad_lines=True)]
    assert seen[0].keywords() == {
        "id_column": "q",
        "where": {"model": "a", "task": "t"},
        "skip_bad_lines": True,
    }
    assert "--score" not in CliRunner().invoke(probe, ["--help"]).output


def test_keywords_leave_out_what_was_not_given() -> None:
    assert ReadFiles().keywords() == {}
    read = ReadFiles(input_format="csv", filter_name="none", where=("model=a",))
    assert read.keywords() == {"format": "csv", "filter": "none", "where": {"model": "a"}}
    # a side's condition adds to --where; on the same column the side's wins
    assert read.keywords(where=["model=b", "task=t"])["where"] == {"model": "b", "task": "t"}


def test_a_bad_where_is_a_usage_error_naming_it() -> None:
    with pytest.raises(typer.BadParameter, match="--where needs COLUMN=VALUE; got 'model'"):
        ReadFiles(where=("model",)).keywords()


@pytest.mark.parametrize(
    ("names", "kwargs"),
    [
        (("id",), {}),
        (("id_column",), {"omit": ["nope"]}),
        (("id_column",), {"help": {"task": "x"}}),
    ],
)
def test_reads_files_refuses_an_unknown_option(names: tuple[str, ...], kwargs: Any) -> None:
    with pytest.raises(TypeError, match="not a reader option"):
        reads_files(*names, **kwargs)


def test_compare_reads_both_sides_with_the_shared_options(tmp_path: Path) -> None:
    rows = "model,item,correct\n" + "".join(
        f"{m},q{i},{int((i + (m == 'b')) % 3 == 0)}\n" for m in "ab" for i in range(30)
    )
    (tmp_path / "s.csv").write_text(rows, encoding="utf-8")
    args = ["compare", str(tmp_path / "s.csv"), str(tmp_path / "s.csv"), "--id", "item"]
    args += ["--score", "correct", "--baseline-where", "model=a", "--candidate-where"]
    result = CliRunner().invoke(app, [*args, "model=b", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"n_items": 30' in result.output or '"n": 30' in result.output


def test_reads_files_needs_the_read_parameter() -> None:
    def command(path: str) -> None:
        """No read parameter."""

    with pytest.raises(TypeError, match="command has no `read: ReadFiles` parameter"):
        reads_files()(command)
