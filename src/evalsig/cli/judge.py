"""``evalsig judge FILE``: a judge's scores corrected with human labels (PPI++), for one
model or the paired difference of two."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import (
    Alternative,
    ConfidenceLevel,
    Destination,
    ReadFiles,
    check_level,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths

__all__ = ["judge_command", "judge_plan_command"]

Plain = Annotated[bool, typer.Option("--plain", help="Plain PPI (lambda = 1) instead of PPI++.")]


@command(
    "judge",
    example="evalsig judge judged.csv --judge-column judge --human-column human",
)
@reads_files("id_column", "cluster_column", "separator")
@writes_output
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
    read: ReadFiles,
    model_column: Annotated[
        str | None,
        typer.Option(
            "--model-column",
            help="Column naming each row's model (default: a column named model, model_name, "
            "model_id or generator).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Use only this model's rows (of the model column)."),
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
    plain: Plain = False,
    confidence_level: ConfidenceLevel = 0.95,
    *,
    destination: Destination,
) -> None:
    """The mean human score of FILE's items, from the judge's scores on all of them and
    human labels on a random subset (prediction-powered inference, PPI++); with
    --model-column, --baseline and --candidate, candidate minus baseline.

    Rows with the same --id are one item (several judge samples are averaged). The labeled
    items must be a uniformly random subset of the items. A model column holding several
    models is never pooled: choose one with --model, or two with --baseline and --candidate.
    """
    from dataclasses import replace

    from evalsig.judge import ppi_mean, ppi_paired_difference
    from evalsig.judge.table import read_judge_table

    paired = (baseline, candidate)
    if any(v is not None for v in paired) and (
        model_column is None or not all(v is not None for v in paired)
    ):
        raise typer.BadParameter(
            "a paired difference needs all of --model-column, --baseline and --candidate."
        )
    if model is not None and baseline is not None:
        raise typer.BadParameter(
            "give --model (one model) or --baseline and --candidate (two), not both."
        )
    if baseline is None and alternative is not None:
        raise typer.BadParameter("--alternative is for a paired difference (--baseline ...).")
    models = () if baseline is None or candidate is None else (baseline, candidate)
    with data_errors(), stdin_paths([file]) as paths:
        table = read_judge_table(
            paths[0],
            judge_column=judge_column,
            human_column=human_column,
            id_column=read.id_column,
            cluster_column=read.cluster_column,
            model_column=model_column,
            models=models,
            model=model,
            separator=read.separator,
        )
        clusters = table.clusters() if read.cluster_column is not None else None
        common: dict[str, Any] = {
            "confidence_level": confidence_level,
            "tuned": not plain,
            "cluster": clusters,
        }
        if models:
            (bu, bl, bh), (cu, cl, ch) = table.split(0), table.split(1)
            result = ppi_paired_difference(
                (bu, cu),
                (bl, cl),
                (bh, ch),
                alternative=alternative or "two-sided",
                baseline=models[0],
                candidate=models[1],
                **common,
            )
        else:
            result = ppi_mean(*table.split(0), **common)
        result = replace(result, notes=(*table.notes, *result.notes))
        destination.emit_from_file(result, paths[0], title="judge correction")


@command(
    "judge-plan",
    example="evalsig judge-plan pilot.csv --judge-column judge --human-column human "
    "--half-width 0.03",
)
@reads_files("separator")
@writes_output
def judge_plan_command(
    file: Annotated[
        str | None,
        typer.Argument(
            help="A pilot table (CSV, TSV, JSON Lines, JSON; .gz too, or - for stdin): the "
            "judge's score per row, a human label on some rows. Or give --correlation and "
            "--human-sd instead."
        ),
    ] = None,
    judge_column: Annotated[
        str | None, typer.Option("--judge-column", help="Pilot: column of the judge's score.")
    ] = None,
    human_column: Annotated[
        str | None,
        typer.Option("--human-column", help="Pilot: column of the human label; empty = none."),
    ] = None,
    model_column: Annotated[
        str | None,
        typer.Option(
            "--model-column",
            help="Pilot: column naming each row's model (default: a column named model, "
            "model_name, model_id or generator).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Pilot: use only this model's rows."),
    ] = None,
    correlation: Annotated[
        float | None,
        typer.Option(min=-1.0, max=1.0, help="Judge-human correlation (without a pilot)."),
    ] = None,
    human_sd: Annotated[
        float | None, typer.Option("--human-sd", help="SD of the human scores (no pilot).")
    ] = None,
    judge_sd: Annotated[
        float | None,
        typer.Option("--judge-sd", help="SD of the judge scores (no pilot; default --human-sd)."),
    ] = None,
    n_unlabeled: Annotated[
        int | None,
        typer.Option(
            "--n-unlabeled",
            min=1,
            help="Items only the judge will score (default: the pilot's rows without a label).",
        ),
    ] = None,
    half_width: Annotated[
        float | None, typer.Option(help="Target half-width of the interval.")
    ] = None,
    effect: Annotated[
        float | None, typer.Option(help="Difference to detect (instead of --half-width).")
    ] = None,
    power: Annotated[float, typer.Option(help="With --effect: the power.")] = 0.8,
    alpha: Annotated[float, typer.Option(help="With --effect: the test's level.")] = 0.05,
    alternative: Annotated[
        Alternative, typer.Option(help="With --effect: the test's side.")
    ] = "two-sided",
    plain: Plain = False,
    confidence_level: Annotated[
        float, typer.Option(help="With --half-width: the interval's level.", callback=check_level)
    ] = 0.95,
    *,
    read: ReadFiles,
    destination: Destination,
) -> None:
    """How many human labels a judge correction (PPI++) needs for an interval of
    --half-width, or to detect --effect with --power; beside the labels the humans alone
    would need. The judge's correlation with the humans and the SDs come from a pilot
    FILE (rows with both scores) or from --correlation and --human-sd."""
    from dataclasses import replace

    from evalsig.data.provenance import file_record, provenance
    from evalsig.judge import labels_for_half_width, labels_for_power, pilot
    from evalsig.judge.table import read_judge_table

    if (half_width is None) == (effect is None):
        raise typer.BadParameter("give --half-width (an interval) or --effect (a test), one.")
    given = (correlation, human_sd, judge_sd)
    if file is not None:
        if judge_column is None or human_column is None:
            raise typer.BadParameter("a pilot FILE needs --judge-column and --human-column.")
        if any(v is not None for v in given):
            raise typer.BadParameter(
                "give a pilot FILE or --correlation / --human-sd / --judge-sd, not both."
            )
    elif model is not None or model_column is not None:
        raise typer.BadParameter("--model and --model-column choose rows of a pilot FILE.")
    elif correlation is None or human_sd is None:
        raise typer.BadParameter("without a pilot FILE, give --correlation and --human-sd.")
    elif n_unlabeled is None:
        raise typer.BadParameter("without a pilot FILE, give --n-unlabeled.")
    with data_errors(), stdin_paths([] if file is None else [file]) as paths:
        notes: list[str] = []
        record = None
        if file is not None and judge_column is not None and human_column is not None:
            table = read_judge_table(
                paths[0],
                judge_column=judge_column,
                human_column=human_column,
                model_column=model_column,
                model=model,
                separator=read.separator,
            )
            unlabeled, labeled, human = table.split(0)
            measured = pilot([sum(s) / len(s) for s in labeled], human)
            correlation, human_sd = measured.correlation, measured.human_sd
            judge_sd = measured.judge_sd
            notes.append(
                f"correlation and SDs measured on the {measured.n:,} pilot items with a "
                "human label."
            )
            if n_unlabeled is None:
                n_unlabeled = len(unlabeled)
                notes.append(
                    f"{n_unlabeled:,} judge-scored items: the pilot's rows without a label."
                )
                if not n_unlabeled:
                    from evalsig.errors import DataError

                    raise DataError(
                        f"{file}: every row has a human label; give --n-unlabeled, the items "
                        "the judge alone will score."
                    )
            record = provenance(files={"pilot": file_record(paths[0])})
        moments: dict[str, Any] = {
            "n_unlabeled": n_unlabeled,
            "correlation": correlation,
            "human_sd": human_sd,
            "judge_sd": judge_sd,
            "tuned": not plain,
        }
        if half_width is not None:
            plan = labels_for_half_width(half_width, confidence_level=confidence_level, **moments)
        elif effect is not None:
            plan = labels_for_power(
                effect, alpha=alpha, power=power, alternative=alternative, **moments
            )
        else:  # refused above
            raise typer.BadParameter("give --half-width or --effect.")
        plan = replace(plan, notes=(*notes, *plan.notes), provenance=record)
        document = as_given(plan.to_dict())
    destination.emit(document, title="human labels for a judge correction")
