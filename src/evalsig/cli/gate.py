"""``evalsig register POLICY`` and ``evalsig gate --policy POLICY BASELINE CANDIDATE``.

Exit codes of ``gate``: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 usage error, 4 data error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from evalsig.cli.app import FAILURES, OutputFormat, app, failure_line
from evalsig.cli.options import Format, Output
from evalsig.cli.output import emit, result_console
from evalsig.report.gate import HEADER, as_markdown, as_text, family_line, rows

if TYPE_CHECKING:
    from evalsig.release import GateResult

__all__ = ["gate_command", "register_command"]

DATA_ERROR = 4


def _fail(exc: BaseException, code: int) -> typer.Exit:
    typer.echo(f"evalsig: error: {failure_line(exc)}", err=True)
    return typer.Exit(code)


@app.command("register")
def register_command(
    policy: Annotated[Path, typer.Argument(help="The gate policy (YAML or JSON).")],
    output: Output = None,
) -> None:
    """Pre-register a gate policy: record its content hash and task family, before results."""
    from evalsig.release import load_policy, register

    try:
        record, path = register(load_policy(policy), path=output)
    except FAILURES as exc:
        raise _fail(exc, 1) from None
    typer.echo(
        f"registered {record.policy_name!r}: {len(record.family)} task(s) "
        f"({', '.join(record.family)}), digest {record.policy_digest[:12]}, at "
        f"{record.registered_at}; record written to {path}"
    )


@app.command("gate")
def gate_command(
    baseline: Annotated[str, typer.Argument(help="Baseline results: a directory or files.")],
    candidate: Annotated[str, typer.Argument(help="Candidate results on the same tasks.")],
    policy: Annotated[Path, typer.Option("--policy", help="The gate policy (YAML or JSON).")],
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
    seed: Annotated[int | None, typer.Option(min=0, help="Random seed.")] = None,
    output_format: Format = OutputFormat.text,
    output: Output = None,
) -> None:
    """Decide a release: test every pre-registered task claim, correct, apply the rule."""
    from evalsig.release import gate

    try:
        result = gate(
            baseline,
            candidate,
            policy=policy,
            registration=registration,
            allow_changed_policy=allow_changed_policy,
            n_resamples=resamples,
            rng=seed,
        )
    except FAILURES as exc:
        raise _fail(exc, DATA_ERROR) from None
    _render(result, output_format, output)
    raise typer.Exit(result.exit_code)


STYLES = {"PASS": "bold green", "FAIL": "bold red", "INCONCLUSIVE": "bold yellow"}


def _render(result: GateResult, output_format: OutputFormat, output: Path | None) -> None:
    data = result.to_dict()
    if output_format is OutputFormat.text and output is None:
        _print_rich(data)
        return
    emit(
        data,
        output_format,
        output,
        text=as_text,
        markdown=as_markdown,
        style=STYLES[result.verdict],
        title=f"Release gate {result.policy.name}",
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
