"""``evalsig inspect FILE...``: what evalsig sees in result files, before comparing them;
``evalsig plugins``: the readers, tests, methods and views installed packages add."""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from evalsig.cli.app import OutputFormat, command, data_errors
from evalsig.cli.options import (
    Format,
    IdColumn,
    InputFormat,
    RunColumn,
    ScoreColumn,
    TaskColumn,
    Where,
    parse_where,
)
from evalsig.cli.output import result_console
from evalsig.cli.stdin import stdin_paths

if TYPE_CHECKING:
    from evalsig.data import Description
    from evalsig.plugins import Plugin

__all__ = ["inspect_command", "plugins_command", "plugins_text"]


@command("inspect", example="evalsig inspect base.jsonl cand.jsonl")
def inspect_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Result files or directories, one model each; -: stdin.")
    ],
    input_format: InputFormat = "auto",
    id_column: IdColumn = None,
    score_column: ScoreColumn = None,
    run_column: RunColumn = None,
    task_column: TaskColumn = None,
    where: Where = None,
    output_format: Format = OutputFormat.text,
) -> None:
    """Show each file's format, tasks, metrics, filters, items, runs, clusters and problems.

    Tables (CSV, JSON, Parquet) are described with the column options that compare would
    be given, e.g. evalsig inspect scores.csv --task-column task --run seed.
    """
    from evalsig.data import describe

    conditions = parse_where(where)
    with data_errors(), stdin_paths(paths, input_format) as read_paths:
        found = [
            (
                path,
                describe(
                    path,
                    format=input_format,
                    skip_bad_lines=True,
                    where=conditions,
                    id_column=id_column,
                    score_column=score_column,
                    run_column=run_column,
                    task_column=task_column,
                ),
            )
            for path in map(Path, read_paths)
        ]
    if output_format is OutputFormat.json:
        payload = [{"path": str(p), **asdict(d)} for p, d in found]
        typer.echo(json.dumps(payload, indent=2, allow_nan=False))
        return
    console = result_console()
    for path, description in found:
        if output_format is OutputFormat.markdown:
            typer.echo(_markdown(path, description))
        else:
            _print(console, path, description)


def _print(console: Console, path: Path, d: Description) -> None:
    console.print(f"{path}  [{', '.join(d.layouts)}]", style="bold", markup=False)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("task", "items", "runs", "metrics", "filters", "scores", "missing"):
        table.add_column(column)
    for t in d.tasks:
        runs = f"{t.runs[0]}" if t.runs[0] == t.runs[1] else f"{t.runs[0]}-{t.runs[1]}"
        table.add_row(
            t.name or "(all rows)",
            f"{t.n_items:,}",
            runs,
            ", ".join(t.metrics),
            ", ".join(t.filters) or "-",
            t.scale,
            f"{t.n_missing:,}",
        )
    console.print(table)
    if d.cluster_fields:
        console.print(f"  cluster fields: {', '.join(d.cluster_fields)}", markup=False)
    if d.key_fields:
        console.print(f"  content keys:   {', '.join(d.key_fields)}", markup=False)
    if d.skipped:
        console.print(f"  {d.skipped} malformed record(s), e.g.:", style="red", markup=False)
        for problem in d.problems:
            console.print(f"   - {problem}", markup=False)
    for note in d.notes:
        console.print(f"  note: {note}", markup=False)
    if any(" --" in text for text in (*d.notes, *d.problems)):
        console.print(
            "  (the options named above are those of evalsig compare, leaderboard and gate)",
            markup=False,
        )
    console.print()


def _markdown(path: Path, d: Description) -> str:
    from evalsig.report.comparison import md as _md

    lines = [
        f"**{_md(str(path))}** ({_md(', '.join(d.layouts))})",
        "",
        "| task | items | runs | metrics | filters | missing |",
        "|---|---|---|---|---|---|",
    ]
    for t in d.tasks:
        lines.append(
            f"| {_md(t.name or '(all rows)')} | {t.n_items} | {t.runs[0]}-{t.runs[1]} | "
            f"{_md(', '.join(t.metrics))} | {_md(', '.join(t.filters) or '-')} | {t.n_missing} |"
        )
    lines += [f"- {_md(p)}" for p in d.problems] + [f"- {_md(n)}" for n in d.notes]
    return "\n".join(lines) + "\n"


class ListFormat(str, Enum):
    text = "text"
    json = "json"


@command("plugins", example="evalsig plugins --format json")
def plugins_command(
    output_format: Annotated[
        ListFormat, typer.Option("--format", help="Output format.")
    ] = ListFormat.text,
) -> None:
    """List the readers, paired tests, audit methods and report sections that installed
    packages add (entry points), with the distribution each comes from.

    A plugin that could not be loaded is listed with the reason.
    """
    from evalsig.plugins import GROUPS, PluginWarning, load_all

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)  # the listing gives each reason
        found = load_all()
    if output_format is ListFormat.json:
        payload = {group: [p.to_dict() for p in found if p.group == group] for group in GROUPS}
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo(plugins_text(found, GROUPS))


def plugins_text(found: tuple[Plugin, ...], groups: dict[str, str]) -> str:
    """One block per entry-point group: each plugin's entry point, what it added (or why it
    was skipped) and its distribution."""
    lines = []
    for group, expected in groups.items():
        lines.append(f"{group}: {expected}")
        mine = [p for p in found if p.group == group]
        for p in mine:
            where = f"{p.source} ({p.target})"
            line = f"{p.provides}, from {where}" if p.loaded else f"SKIPPED, {where}: {p.error}"
            lines.append(f"  {p.name}: {line}")
        if not mine:
            lines.append("  none installed")
    if not found:
        lines.append(
            "No plugins are installed: a plugin is a package declaring entry points in these "
            "groups (see the plugins guide of the documentation)."
        )
    return "\n".join(lines)
