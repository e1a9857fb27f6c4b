"""``evalsig agreement FILE``: how well a judge agrees with human labels (Cohen's kappa,
sensitivity, specificity, Fleiss' kappa, Krippendorff's alpha), or how well several raters
agree with one another (Fleiss' kappa, Krippendorff's alpha)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import ConfidenceLevel, Destination, ReadFiles, reads_files, writes_output
from evalsig.cli.stdin import stdin_paths
from evalsig.errors import examples

__all__ = ["agreement_command"]


Scale = Literal["nominal", "ordinal", "interval"]


@command(
    "agreement",
    example="evalsig agreement labels.csv --judge-column judge --human-column human --seed 0",
)
@reads_files("id_column", "separator")
@writes_output
def agreement_command(
    file: Annotated[
        str,
        typer.Argument(
            help="A table (CSV, TSV, JSON Lines, JSON; .gz too, or - for stdin): one row per "
            "item with the judge's and the human label, or one row per rating (item, rater, "
            "label)."
        ),
    ],
    judge_column: Annotated[
        str | None, typer.Option("--judge-column", help="Column of the judge's label.")
    ] = None,
    human_column: Annotated[
        str | None,
        typer.Option("--human-column", help="Column of the human label; empty = unlabeled."),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(help="The positive label, for sensitivity and specificity (default 1)."),
    ] = None,
    rater_column: Annotated[
        str | None,
        typer.Option("--rater-column", help="Column naming the rater (one row per rating)."),
    ] = None,
    label_column: Annotated[
        str | None,
        typer.Option("--label-column", help="Column of the rating (one row per rating)."),
    ] = None,
    *,
    read: ReadFiles,
    scale: Annotated[
        Scale,
        typer.Option(
            help="Several raters: the labels' scale, for Krippendorff's alpha (ordinal and "
            "interval need numbers)."
        ),
    ] = "nominal",
    confidence_level: ConfidenceLevel = 0.95,
    resamples: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples for Fleiss' kappa and alpha.")
    ] = 2000,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Random seed (default: drawn, and recorded in the result)."),
    ] = None,
    destination: Destination,
) -> None:
    """Agreement of a judge with human labels (--judge-column, --human-column), or among
    several raters (--rater-column, --label-column, --id).

    Judge vs humans: one row per item; rows without a human label are left out (a note
    counts them). Raw agreement, Cohen's kappa, sensitivity and specificity (two labels),
    and the judge and the humans as two raters for Fleiss' kappa and Krippendorff's alpha.

    Several raters: one row per rating; a rater with no row (or an empty label) for an
    item did not rate it. Krippendorff's alpha (--scale), and Fleiss' kappa when every
    rater rated every item.
    """
    id_column, separator = read.id_column, read.separator
    pairwise = judge_column is not None or human_column is not None
    raters = rater_column is not None or label_column is not None
    if pairwise == raters:
        raise typer.BadParameter(
            "give --judge-column and --human-column (judge vs humans), or --rater-column, "
            "--label-column and --id (several raters), one of the two."
        )
    if pairwise and (judge_column is None or human_column is None):
        raise typer.BadParameter("judge vs humans needs both --judge-column and --human-column.")
    if raters and (rater_column is None or label_column is None or id_column is None):
        raise typer.BadParameter(
            "several raters need --rater-column, --label-column and --id (the item)."
        )
    if raters and positive is not None:
        raise typer.BadParameter("--positive is for judge vs humans (--judge-column ...).")
    if pairwise and scale != "nominal":
        raise typer.BadParameter(
            "--scale is for several raters (--rater-column ...); judge vs humans is nominal."
        )
    if seed is None:  # drawn from the system's entropy and recorded, so a rerun can repeat it
        import numpy as np

        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    common: dict[str, Any] = {
        "confidence_level": confidence_level,
        "n_resamples": resamples,
        "rng": seed,
    }
    with data_errors(), stdin_paths([file]) as paths:
        result: Any
        if judge_column is not None and human_column is not None:
            result = _judge_vs_humans(
                paths[0], judge_column, human_column, id_column, positive, separator, common
            )
        elif rater_column is not None and label_column is not None and id_column is not None:
            result = _raters(
                paths[0], id_column, rater_column, label_column, scale, separator, common
            )
        else:  # every other combination was refused above
            raise typer.BadParameter("give the columns of judge vs humans or of raters.")
        destination.emit_from_file(result, paths[0], title="agreement", seed=seed)


def _judge_vs_humans(
    path: str,
    judge_column: str,
    human_column: str,
    id_column: str | None,
    positive: str | None,
    separator: str | None,
    common: dict[str, Any],
) -> Any:
    from evalsig.data.readers.records import read_records
    from evalsig.errors import DataError
    from evalsig.judge import judge_agreement
    from evalsig.judge._input import check_label_set
    from evalsig.judge.table import label

    columns = [judge_column, human_column, *([id_column] if id_column else [])]
    judge: list[Any] = []
    human: list[Any] = []
    seen: dict[str, str] = {}
    unlabeled = 0
    for place, row in read_records(path, columns=columns, separator=separator, what="labels"):
        where = str(place)
        if id_column is not None:
            key = str(row[id_column])
            if key in seen:
                raise DataError(
                    f"{where}: item {key!r} ({id_column}) is on {seen[key]} too; give one row "
                    "per item (the judge's label and the human's)."
                )
            seen[key] = place.short
        h = label(row[human_column], human_column, where)
        if h is None:
            unlabeled += 1
            continue
        j = label(row[judge_column], judge_column, where)
        if j is None:
            raise DataError(
                f"{where}: {judge_column} is empty but {human_column} is {examples([h], 1)}; "
                "the judge must label every item the humans labeled (or drop the row)."
            )
        judge.append(j)
        human.append(h)
    if len(judge) < 2:
        raise DataError(
            f"{path}: {len(judge)} row(s) have a human label in {human_column!r}; agreement "
            "needs at least 2."
        )
    check_label_set(judge, judge_column, rows=len(judge))
    check_label_set(human, human_column, rows=len(human))
    result = judge_agreement(
        judge, human, positive=None if positive is None else label(positive, "--positive"), **common
    )
    if unlabeled:
        from dataclasses import replace

        note = f"{unlabeled:,} row(s) without a human label ({human_column} empty) left out."
        result = replace(result, notes=(note, *result.notes))
    return result


def _raters(
    path: str,
    id_column: str,
    rater_column: str,
    label_column: str,
    metric: Any,
    separator: str | None,
    common: dict[str, Any],
) -> Any:
    from evalsig.data.readers.records import read_records
    from evalsig.errors import DataError
    from evalsig.judge import rater_agreement
    from evalsig.judge._input import check_label_set
    from evalsig.judge.table import label

    ratings: dict[str, dict[str, Any]] = {}
    raters: dict[str, None] = {}
    lines: dict[tuple[str, str], str] = {}
    empty = 0
    columns = [id_column, rater_column, label_column]
    for place, row in read_records(path, columns=columns, separator=separator, what="ratings"):
        where = str(place)
        item, rater = (
            _name(row[id_column], id_column, where),
            _name(row[rater_column], rater_column, where),
        )
        if (item, rater) in lines:
            raise DataError(
                f"{where}: rater {rater!r} rated item {item!r} on {lines[item, rater]} too; "
                "give one rating per rater and item."
            )
        lines[item, rater] = place.short
        raters.setdefault(rater)
        value = label(row[label_column], label_column, where)
        if value is None:
            empty += 1
        elif metric != "nominal" and isinstance(value, str):
            raise DataError(
                f"{where}: {label_column} is {examples([value], 1)}, not a number, but "
                f"--scale {metric} needs numbers; map the labels to numbers or use --scale nominal."
            )
        ratings.setdefault(item, {})[rater] = value
    if not ratings:
        raise DataError(f"{path}: no rows to read.")
    if len(raters) < 2:
        raise DataError(
            f"{path}: every row names rater {next(iter(raters))!r} in {rater_column!r}; "
            "agreement needs at least 2 raters."
        )
    check_label_set(
        (value for rated in ratings.values() for value in rated.values()),
        label_column,
        rows=len(lines) - empty,
        scale=metric,
    )
    names = list(raters)
    table = [[ratings[item].get(r) for r in names] for item in ratings]
    result = rater_agreement(table, raters=names, metric=metric, **common)
    if empty:
        from dataclasses import replace

        note = f"{empty:,} row(s) with an empty {label_column} count as not rated."
        result = replace(result, notes=(note, *result.notes))
    return result


def _name(value: Any, column: str, where: str) -> str:
    from evalsig.errors import DataError

    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(f"{where}: {column} is empty; every row needs one.")
    return str(value)
