"""``evalsig judge FILE``: a judge's scores corrected with human labels (PPI++), for one
model or the paired difference of two."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evalsig.cli.app import OutputFormat, command, data_errors
from evalsig.cli.compare import Alternative
from evalsig.cli.options import ClusterColumn, Format, IdColumn, Output, Separator
from evalsig.cli.output import emit
from evalsig.cli.stdin import as_given, stdin_paths

__all__ = ["judge_command"]


def _check_level(value: float) -> float:
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1, e.g. 0.95; got {value}.")
    return value


@command(
    "judge",
    example="evalsig judge judged.csv --judge-column judge --human-column human",
)
def judge_command(
    file: Annotated[
        str,
        typer.Argument(
            help="A table (CSV, TSV, JSON Lines, JSON; .gz too, or - for stdin) with a judge "
            "score per row and a human label where humans labeled the item (empty elsewhere)."
        ),
    ],
    judge_column: Annotated[
        str, typer.Option("--judge-column", help="Column of the judge's score.")
    ],
    human_column: Annotated[
        str,
        typer.Option("--human-column", help="Column of the human label; empty = unlabeled."),
    ],
    id_column: IdColumn = None,
    cluster_column: ClusterColumn = None,
    model_column: Annotated[
        str | None,
        typer.Option("--model-column", help="Column naming the model (paired difference)."),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option(help="The baseline model's name in --model-column.")
    ] = None,
    candidate: Annotated[
        str | None, typer.Option(help="The candidate model's name in --model-column.")
    ] = None,
    alternative: Annotated[
        Alternative | None,
        typer.Option(help="Paired difference: greater means the candidate is better."),
    ] = None,
    plain: Annotated[
        bool, typer.Option("--plain", help="Plain PPI (lambda = 1) instead of PPI++.")
    ] = False,
    confidence_level: Annotated[
        float, typer.Option(help="Confidence level of the intervals.", callback=_check_level)
    ] = 0.95,
    separator: Separator = None,
    output_format: Format = OutputFormat.text,
    output: Output = None,
) -> None:
    """The mean human score of FILE's items, from the judge's scores on all of them and
    human labels on a random subset (prediction-powered inference, PPI++); with
    --model-column, --baseline and --candidate, candidate minus baseline.

    Rows with the same --id are one item (several judge samples are averaged). The labeled
    items must be a uniformly random subset of the items.
    """
    from dataclasses import replace

    from evalsig.data.provenance import file_record, provenance
    from evalsig.judge import ppi_mean, ppi_paired_difference
    from evalsig.judge.table import read_judge_table
    from evalsig.report import judge as views

    paired = (model_column, baseline, candidate)
    if any(v is not None for v in paired) and not all(v is not None for v in paired):
        raise typer.BadParameter(
            "a paired difference needs all of --model-column, --baseline and --candidate."
        )
    if baseline is None and alternative is not None:
        raise typer.BadParameter("--alternative is for a paired difference (--baseline ...).")
    models = () if baseline is None or candidate is None else (baseline, candidate)
    with data_errors(), stdin_paths([file]) as paths:
        table = read_judge_table(
            paths[0],
            judge_column=judge_column,
            human_column=human_column,
            id_column=id_column,
            cluster_column=cluster_column,
            model_column=model_column,
            models=models,
            separator=separator,
        )
        clusters = table.clusters() if cluster_column is not None else None
        common: dict[str, Any] = {
            "confidence_level": confidence_level,
            "tuned": not plain,
            "clusters": clusters,
        }
        if models:
            (bu, bl, bh), (cu, cl, ch) = table.split(0), table.split(1)
            result = ppi_paired_difference(
                (bu, cu),
                (bl, cl),
                (bh, ch),
                alternative=(alternative or Alternative.two_sided).value,
                baseline=models[0],
                candidate=models[1],
                **common,
            )
        else:
            result = ppi_mean(*table.split(0), **common)
        result = replace(
            result,
            notes=(*table.notes, *result.notes),
            provenance=provenance(files={"data": file_record(paths[0])}),
        )
        document = as_given(result.to_dict())
    emit(
        document,
        output_format,
        output,
        text=views.as_text,
        markdown=views.as_markdown,
        title="judge correction",
    )
