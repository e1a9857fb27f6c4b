"""``evalsig score FILE...``: each model's mean score with an honest interval, one row per
file and task."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

import typer

from evalsig.cli.application import OutputFormat, command, data_errors
from evalsig.cli.options import (
    TABLE_OPTIONS,
    Destination,
    IntervalLevel,
    ReadFiles,
    reads_files,
    writes_output,
)
from evalsig.cli.output import deliver
from evalsig.cli.stdin import stdin_paths

__all__ = ["score_command"]


Method = Literal[
    "auto",
    "wilson",
    "wilson-cc",
    "clopper-pearson",
    "jeffreys",
    "agresti-coull",
    "bayes",
    "t",
    "bootstrap",
    "cluster",
    "stratified",
    "macro",
]


def _check_prior(value: tuple[float, float] | None) -> tuple[float, float] | None:
    if value is not None and not all(v > 0 for v in value):
        raise typer.BadParameter(
            f"the Beta(A, B) prior needs two positive numbers, e.g. 1 1; got {value[0]:g} "
            f"{value[1]:g}."
        )
    return value


@command("score", example="evalsig score results.jsonl --id doc_id --score acc")
@reads_files(*TABLE_OPTIONS)
@writes_output
def score_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Results of one model each: a file, a folder or a quoted glob (its files "
            "become runs), or - (stdin). One row per file and task."
        ),
    ],
    read: ReadFiles,
    method: Annotated[
        Method,
        typer.Option(
            help="Interval; auto picks by data shape (Clopper-Pearson below 1,000 items of "
            "one 0/1 run, Wilson from there; t on per-item means for runs or continuous "
            "scores; CR2 with --cluster; stratified with --strata, or macro: the mean of the "
            "strata's means)."
        ),
    ] = "auto",
    confidence_level: IntervalLevel = 0.95,
    prior: Annotated[
        tuple[float, float] | None,
        typer.Option(
            metavar="A B",
            help="Beta(A, B) prior of --method bayes (default 1 1, uniform).",
            callback=_check_prior,
        ),
    ] = None,
    resamples: Annotated[
        int, typer.Option(min=100, help="Resamples for --method bootstrap.")
    ] = 10_000,
    seed: Annotated[int | None, typer.Option(min=0, help="Random seed (bootstrap).")] = None,
    strata: Annotated[
        str | None,
        typer.Option(
            "--strata",
            help="Stratum column: fixed groups that make up the population (subjects, "
            "subtasks); the stratified mean's interval. Not with --cluster.",
        ),
    ] = None,
    facet: Annotated[
        list[str] | None,
        typer.Option(
            "--facet",
            help="A facet column of a long table, one score a row (repeat, the item column "
            "first: --facet item --facet prompt): the interval 'facets', its SE from the "
            "REML components of every facet, t on Satterthwaite's df.",
        ),
    ] = None,
    *,
    destination: Destination,
) -> None:
    """Each model's mean score with a confidence interval that covers honestly."""
    from dataclasses import replace

    from evalsig.data import load_tasks
    from evalsig.score import score

    if strata is not None and read.cluster_column is not None:
        raise typer.BadParameter(
            "give --cluster or --strata, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    if facet:
        with data_errors(), stdin_paths(paths, read.input_format) as read_paths:
            results = [
                _score_facets(path, facet, read, method, confidence_level) for path in read_paths
            ]
        _render(results, destination)
        return
    keywords = read.keywords() | ({"cluster_column": strata} if strata else {})
    with data_errors(), stdin_paths(paths, read.input_format) as read_paths:
        results = [
            score(
                replace(table, clusters=None) if strata else table,
                method=method,
                confidence_level=confidence_level,
                strata=table.clusters if strata else None,
                prior=prior,
                n_resamples=resamples,
                rng=seed,
            ).to_dict()
            for path in read_paths
            for table in load_tasks(path, **keywords).values()
        ]
    _render(results, destination)


def _score_facets(
    path: str, facets: list[str], read: ReadFiles, method: Any, confidence_level: float
) -> dict[str, Any]:
    """--facet: one long table read through the shared record reader; ``--where
    COLUMN=VALUE`` (one) chooses a model's rows."""
    from dataclasses import replace

    from evalsig.cli.application import EXIT_USAGE, fail
    from evalsig.cli.options import parse_where
    from evalsig.data.long_table import read_model_rows
    from evalsig.data.provenance import provenance
    from evalsig.score import score

    options = {"cluster_column": "--cluster", "run_column": "--run"}
    given = [flag for name, flag in options.items() if getattr(read, name)]
    if len(read.where) > 1:
        given.append("several --where")
    if given:
        fail(
            f"{given[0]} does not apply with --facet: runs and groups are facets (name each "
            "with --facet), the model's rows are chosen with one --where COLUMN=VALUE, and "
            "the score column is --score.",
            EXIT_USAGE,
        )
    data, notes, origin = read_model_rows(
        path,
        facets=facets,
        score_column=read.score_column or "score",
        where=parse_where(list(read.where)),
        separator=read.separator,
        choose="Choose one with --where model=NAME.",
    )
    result = score(data, facets=facets, method=method, confidence_level=confidence_level)
    result = replace(
        result, notes=(*notes, *result.notes), provenance=provenance({"model": origin})
    )
    return result.to_dict()


def _render(results: Sequence[Mapping[str, Any]], destination: Destination) -> None:
    """One score as its full view; several as a table (HTML: one section each; JSON: a list)."""
    from evalsig.report import score as views

    if len(results) == 1:
        destination.emit(results[0], style="bold", title="Score")
        return
    output_format = destination.output_format
    if output_format is OutputFormat.json:
        rendered = json.dumps(list(results), indent=2, allow_nan=False)
    elif output_format is OutputFormat.markdown:
        rendered = views.table_markdown(results)
    elif output_format is OutputFormat.html:
        from evalsig.report.html import page

        rendered = page(results, title="Scores")
    else:
        rendered = views.table_text(results)
    deliver(rendered, destination.output)
