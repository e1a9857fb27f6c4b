"""``evalsig register POLICY`` and ``evalsig gate --policy POLICY BASELINE CANDIDATE``.

Exit codes of ``gate`` (the scheme of every command, :data:`evalsig.cli.application.EXIT_CODES`):
0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 usage error, 4 data error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from evalsig.cli.application import OutputFormat, command, data_errors
from evalsig.cli.options import (
    TABLE_OPTIONS,
    Destination,
    Output,
    ReadFiles,
    Seed,
    reads_files,
    writes_output,
)
from evalsig.cli.output import result_console
from evalsig.cli.stdin import as_given, stdin_paths
from evalsig.report.gate import HEADER, family_line, rows

__all__ = ["gate_command", "register_command"]


@command("register", example="evalsig register policy.yaml")
def register_command(
    policy: Annotated[Path, typer.Argument(help="The gate policy (YAML or JSON).")],
    output: Output = None,
) -> None:
    """Pre-register a gate policy: record its content hash and task family, before results."""
    from evalsig.release import load_policy, register

    with data_errors():
        record, path = register(load_policy(policy), path=output)
    typer.echo(
        f"registered {record.policy_name!r}: {len(record.family)} task(s) "
        f"({', '.join(record.family)}), digest {record.policy_digest[:12]}, at "
        f"{record.registered_at}; record written to {path}"
    )


@command("gate", example="evalsig gate --policy policy.yaml results/base results/cand")
@reads_files(*TABLE_OPTIONS, omit=["task"])
@writes_output
def gate_command(
    baseline: Annotated[
        str, typer.Argument(help="Baseline results: a directory or files (-: stdin).")
    ],
    candidate: Annotated[str, typer.Argument(help="Candidate results on the same tasks.")],
    policy: Annotated[Path, typer.Option("--policy", help="The gate policy (YAML or JSON).")],
    read: ReadFiles,
    registration: Annotated[
        Path | None,
        typer.Option(help="Registration record (default: <policy>.registration.json)."),
    ] = None,
    allow_changed_policy: Annotated[
        bool,
        typer.Option(help="Run although the policy differs from its registration (reported)."),
    ] = False,
    resamples: Annotated[
        int, typer.Option(min=100, help="Resamples for resampling methods.")
    ] = 10_000,
    seed: Seed = None,
    strata: Annotated[
        str | None,
        typer.Option(
            "--strata",
            help="Stratum column: fixed groups that make up the population (subjects); "
            "the stratified t-test for claims with method auto. Not with --cluster.",
        ),
    ] = None,
    *,
    destination: Destination,
) -> None:
    """Decide a release: test every pre-registered task claim, correct, apply the rule.

    The input options read the files as compare does (a long table names its tasks with
    --task-column); without them the files are read as they come.
    """
    from evalsig.release import gate

    if strata is not None and read.cluster_column is not None:
        raise typer.BadParameter(
            "give --cluster or --strata, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    keywords = read.keywords() | ({"cluster_column": strata} if strata else {})
    with (
        data_errors(),
        stdin_paths([baseline, candidate], read.input_format) as (base_path, cand_path),
    ):
        result = gate(
            _results(base_path, keywords),
            _results(cand_path, keywords),
            policy=policy,
            registration=registration,
            allow_changed_policy=allow_changed_policy,
            n_resamples=resamples,
            rng=seed,
            strata=strata is not None,
        )
        document = as_given(result.to_dict())  # standard input named "-", not its file
    _render(document, destination)
    raise typer.Exit(result.exit_code)


def _results(path: str, read: dict[str, Any]) -> Any:
    """One side's results for :func:`evalsig.release.gate`: the path as it is, or, when input
    options were given, the tables they read, ``{task: ScoreTable}``."""
    if not read:
        return path
    from evalsig.data import load_tasks

    return load_tasks(path, **read)


STYLES = {"PASS": "bold green", "FAIL": "bold red", "INCONCLUSIVE": "bold yellow"}


def _render(data: dict[str, Any], destination: Destination) -> None:
    if destination.output_format is OutputFormat.text and destination.output is None:
        _print_rich(data)
        return
    destination.emit(
        data,
        style=STYLES[data["verdict"]],
        title=f"Release gate {data['policy']['name']}",
    )


def _print_rich(data: dict[str, Any]) -> None:
    """The gate in the terminal: coloured verdicts in a table."""
    console = result_console()
    console.print(
        f"{data['verdict']}: {data['reason']}", style=STYLES[data["verdict"]], markup=False
    )
    console.print(f"gate {data['policy']['name']!r}: {family_line(data)}", markup=False)
    console.print(f"registration: {data['registration']['summary']}", markup=False)
    table = Table(show_edge=False, pad_edge=False)
    for name in HEADER:
        table.add_column(name, justify="right" if "p" in name.split() else "left")
    for row in rows(data):
        table.add_row(*row[:-1], Text(row[-1], style=STYLES[row[-1]]))
    console.print(table)
    for task in data["tasks"]:
        if task["verdict"] != "PASS":
            console.print(f"  {task['task']}: {task['reason']}", markup=False)
    for note in data["notes"]:
        console.print(f"  note: {note}", markup=False, style="dim")
