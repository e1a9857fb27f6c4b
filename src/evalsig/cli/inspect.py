"""``evalsig inspect FILE...``: what evalsig sees in result files, before comparing them,
with each task's score and its interval (as ``evalsig score`` gives it); ``evalsig
plugins``: the readers, tests, methods and views installed packages add."""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from evalsig.cli.application import OutputFormat, command, data_errors
from evalsig.cli.options import Format, ReadFiles, TextOrJson, TextOrJsonFormat, reads_files
from evalsig.cli.output import result_console
from evalsig.cli.stdin import stdin_paths

if TYPE_CHECKING:
    from evalsig.data import Description
    from evalsig.data.readers import TaskDescription
    from evalsig.plugins import Plugin

__all__ = ["inspect_command", "plugins_command", "plugins_text"]


@command("inspect", example="evalsig inspect base.jsonl cand.jsonl")
@reads_files("id_column", "score_column", "run_column", "where", "task_column", "input_format")
def inspect_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Result files or directories, one model each; -: stdin.")
    ],
    read: ReadFiles,
    output_format: Format = OutputFormat.text,
) -> None:
    """Show each file's format, tasks, metrics, filters, items, runs, clusters and problems,
    and each task's score with its interval (the default of evalsig score).

    Tables (CSV, JSON, Parquet) are described with the column options that compare would
    be given, e.g. evalsig inspect scores.csv --task-column task --run seed. Bookkeeping
    statistics (HELM's token counts, runtimes, request settings) are described by their
    mean, never scored; a folder of several models' logs is scored model by model.
    """
    from evalsig.data import describe

    given = {"format": read.input_format, "skip_bad_lines": True, "where": {}}
    options: dict[str, Any] = given | read.keywords()
    with data_errors(), stdin_paths(paths, read.input_format) as read_paths:
        found = []
        for path in map(Path, read_paths):
            description = describe(path, **options)
            found.append((path, description, scores(path, description, options)))
    payload = [{"path": str(p), **asdict(d), "scores": s} for p, d, s in found]
    if output_format is OutputFormat.json:
        typer.echo(json.dumps(payload, indent=2, allow_nan=False))
        return
    if output_format is OutputFormat.html:
        from evalsig.report import inspect as views
        from evalsig.report.html import page

        typer.echo(page([{"kind": views.KIND, **entry} for entry in payload], title="Inspect"))
        return
    console = result_console()
    for path, description, scored in found:
        if output_format is OutputFormat.markdown:
            typer.echo(_markdown(path, description, scored))
        else:
            _print(console, path, description, scored)


def scores(path: Path, d: Description, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each task's (and metric's, filter's) score with its interval: :func:`evalsig.score`
    with its defaults, as ``evalsig score`` gives it, on the data read as ``describe`` read
    them. One entry per task, metric and filter: ``task``, ``metric``, ``filter``, ``score``
    (the :class:`~evalsig.score.ScoreResult` JSON) and ``error`` (why it could not be
    scored; one of the two is null); files of several models give one entry per model
    too, with its ``model``. Bookkeeping statistics (:attr:`TaskDescription.descriptive`)
    are not scores and get no entry."""
    from evalsig.data import load, load_tasks
    from evalsig.errors import EvalsigError
    from evalsig.score import score

    def scored(table: Any) -> dict[str, Any]:
        try:
            return {"score": score(table).to_dict(), "error": None}
        except EvalsigError as exc:
            return {"score": None, "error": str(exc)}

    metrics = {t.name: _scored_metrics(t) for t in d.tasks}
    if len(d.models) > 1:
        by_model = _by_model(path, options)
        if by_model is not None:
            return [
                {"task": task, "metric": table.origin.metric if table.origin else "score"}
                | {"filter": table.origin.filter if table.origin else None, "model": model}
                | scored(table)
                for model, tables in by_model.items()
                for task, table in tables.items()
            ]
    if all(
        len(m) == 1 and len(t.filters) <= 1 for t, m in zip(d.tasks, metrics.values(), strict=True)
    ):
        try:  # one read for every task
            tables = load_tasks(path, **options)
        except EvalsigError:
            tables = {}  # read task by task below, so that each says what is wrong with it
        if set(tables) == {t.name for t in d.tasks}:
            return [
                {"task": t.name, "metric": t.metrics[0], "filter": (t.filters or (None,))[0]}
                | scored(tables[t.name])
                for t in d.tasks
            ]
    out = []
    for t in d.tasks:
        for metric in metrics[t.name]:
            for chosen in t.filters or (None,):
                entry: dict[str, Any] = {"task": t.name, "metric": metric, "filter": chosen}
                try:
                    table = load(
                        path,
                        task=t.name or None,
                        metric=metric if len(t.metrics) > 1 else None,
                        filter=chosen if len(t.filters) > 1 else None,
                        **options,
                    )
                except EvalsigError as exc:
                    out.append(entry | {"score": None, "error": str(exc)})
                    continue
                out.append(entry | scored(table))
    return out


def _scored_metrics(t: TaskDescription) -> list[str]:
    """A task's metrics that are scores (not bookkeeping statistics)."""
    bookkeeping = {metric for metric, _, _ in t.descriptive}
    return [metric for metric in t.metrics if metric not in bookkeeping]


def _by_model(path: Path, options: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """Each model's tables of logs that name several models; None when they cannot be
    read so (several metrics to choose, say): each task then says why it is not scored."""
    from evalsig.data.models import harness_models
    from evalsig.errors import EvalsigError

    read = {k: v for k, v in options.items() if k in HARNESS_OPTIONS and v is not None}
    try:
        return harness_models(path, **read)
    except EvalsigError:
        return None


HARNESS_OPTIONS = ("format", "where", "id_column", "score_column", "run_column")
"""The options of ``inspect`` that :func:`evalsig.data.models.harness_models` takes."""


def _print(console: Console, path: Path, d: Description, scored: list[dict[str, Any]]) -> None:
    from evalsig.report import inspect as views

    console.print(f"{path}  [{', '.join(d.layouts)}]", style="bold", markup=False)
    if len(d.models) > 1:
        console.print(f"  models: {', '.join(d.models)}", markup=False)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("task", "items", "runs", "metrics", "filters", "scores", "missing"):
        table.add_column(column)
    for t in d.tasks:
        runs = f"{t.runs[0]}" if t.runs[0] == t.runs[1] else f"{t.runs[0]}-{t.runs[1]}"
        table.add_row(
            t.name or "(all rows)",
            f"{t.n_items:,}",
            runs,
            ", ".join(t.metrics) or "-",
            ", ".join(t.filters) or "-",
            t.scale,
            f"{t.n_missing:,}",
        )
    console.print(table)
    if scored:
        console.print("  scores (the interval of evalsig score, method auto):", markup=False)
        for line in _aligned([list(views.SCORE_HEADER), *views.score_rows(scored)]):
            console.print(f"    {line}", markup=False)
        for line in views.unscored(scored):
            console.print(f"    {line}", style="red", markup=False)
    described = views.descriptive_rows([asdict(t) for t in d.tasks])
    if described:
        console.print(f"  {BOOKKEEPING}:", markup=False)
        for line in _aligned([list(views.DESCRIPTIVE_HEADER), *described]):
            console.print(f"    {line}", markup=False)
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


BOOKKEEPING = (
    "bookkeeping statistics (token counts, runtimes, request settings: not scores, so their "
    "mean and no interval)"
)


def _aligned(table: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def _markdown(path: Path, d: Description, scored: list[dict[str, Any]]) -> str:
    from evalsig.report import inspect as views
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
            f"{_md(', '.join(t.metrics) or '-')} | {_md(', '.join(t.filters) or '-')} | "
            f"{t.n_missing} |"
        )
    header: tuple[str, ...] = views.SCORE_HEADER
    if scored:
        lines += ["", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in views.score_rows(scored)]
        lines.append("")
        lines += [f"- {_md(line)}" for line in views.unscored(scored)]
    described = views.descriptive_rows([asdict(t) for t in d.tasks])
    if described:
        header = views.DESCRIPTIVE_HEADER
        lines += ["", f"{BOOKKEEPING}:", ""]
        lines += ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in described]
        lines.append("")
    lines += [f"- {_md(p)}" for p in d.problems] + [f"- {_md(n)}" for n in d.notes]
    return "\n".join(lines) + "\n"


@command("plugins", example="evalsig plugins --format json")
def plugins_command(
    output_format: TextOrJsonFormat = TextOrJson.text,
) -> None:
    """List the readers, paired tests, audit methods and report sections that installed
    packages add (entry points), with the distribution each comes from.

    A plugin that could not be loaded is listed with the reason.
    """
    from evalsig.plugins import GROUPS, PluginWarning, load_all

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)  # the listing gives each reason
        found = load_all()
    if output_format is TextOrJson.json:
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
