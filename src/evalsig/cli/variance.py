"""``evalsig variance FILE``: where a score's variance comes from (items, prompt templates,
runs, judges ...), and the standard error and MDE of other designs (a decision study).

The file is one long table, one score a row and a column per facet, read by
:func:`evalsig.data.readers.records.read_records`. A score is a finite number: in a CSV or
TSV table a cell that reads as one, in JSON a number or ``true``/``false`` (a JSON string
``"1"`` is text, not a number). A facet label is text or a number; an empty, null or nested
label, or a score that is not a finite number, is an error naming the line, never a level
or a value read as something else. A model column holding several models is never pooled:
choose one (``--model``), or two whose paired difference to decompose (``--baseline``,
``--candidate``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evalsig.cli.application import EXIT_USAGE, command, data_errors, fail
from evalsig.cli.options import ConfidenceLevel, Destination, ReadFiles, reads_files, writes_output
from evalsig.cli.stdin import as_given, stdin_paths

if TYPE_CHECKING:
    from evalsig.data.long_table import Table
    from evalsig.facets import VarianceSourcesResult

__all__ = ["parse_design", "variance_command"]


@command(
    "variance",
    example="evalsig variance long.csv --facet item --facet prompt --facet run --score correct "
    "--seed 0",
)
@reads_files(
    "id_column",
    "score_column",
    "task",
    "metric",
    "filter_name",
    "separator",
    help={
        "score_column": "Score column, one score a row (default: score).",
        "id_column": "With --files-as: the item id column of the files.",
        "task": "With --files-as: the task to read, when the files hold several.",
        "metric": "With --files-as: the metric (acc, acc_norm, exact_match ...).",
        "filter_name": "With --files-as: the lm-eval filter.",
    },
)
@writes_output
def variance_command(
    files: Annotated[
        list[str],
        typer.Argument(
            help="A long table (CSV, TSV, JSON Lines, JSON; .gz too, or - for stdin): one "
            "score a row, a column per facet. With --files-as: several results files of one "
            "model (any format evalsig reads), each one level of that facet."
        ),
    ],
    facet: Annotated[
        list[str] | None,
        typer.Option(
            "--facet",
            help="A facet column (repeat): item, prompt, run, judge ...; crossed or nested as "
            "its labels say.",
        ),
    ] = None,
    files_as: Annotated[
        str | None,
        typer.Option(
            "--files-as",
            help="Read each FILE as one level of this facet (e.g. prompt: one results file "
            "per prompt template), items crossed with it, runs nested in each cell.",
        ),
    ] = None,
    model_column: Annotated[
        str,
        typer.Option(
            "--model-column",
            help="Column naming each row's model; a file without it holds one model.",
        ),
    ] = "model",
    model: Annotated[
        str | None, typer.Option(help="Decompose this model's score (its rows only).")
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="With --candidate: decompose the paired difference candidate - baseline."
        ),
    ] = None,
    candidate: Annotated[
        str | None, typer.Option(help="The model compared with --baseline, cell by cell.")
    ] = None,
    *,
    read: ReadFiles,
    resamples: Annotated[
        int,
        typer.Option(
            min=0,
            help="Parametric-bootstrap resamples of the components (each a REML fit): 0 (no "
            "intervals) or at least 100.",
        ),
    ] = 200,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Random seed (default: drawn, and recorded in the result)."),
    ] = None,
    confidence_level: ConfidenceLevel = 0.95,
    design: Annotated[
        list[str] | None,
        typer.Option(
            "--design",
            help="A design to project the SE (and MDE) to, as FACET=LEVELS,FACET=LEVELS "
            "(repeat); a facet not named keeps its levels.",
        ),
    ] = None,
    project: Annotated[
        bool,
        typer.Option(
            "--project",
            help="Project the SE (and MDE) to each facet at 0.5, 1, 2 and 4 times its levels.",
        ),
    ] = False,
    object_of_measurement: Annotated[
        str | None,
        typer.Option(
            "--object",
            help="A facet whose levels are told apart, not averaged over (the model column, "
            "also given as a --facet, on a leaderboard): the decision study gives G and Phi.",
        ),
    ] = None,
    cost: Annotated[
        list[str] | None,
        typer.Option(
            "--cost",
            help="Cost of each combination of levels of facets, as FACET:FACET=COST (repeat), "
            "e.g. item:prompt:run=0.01 for a model call.",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        typer.Option(min=0.0, help="With --cost: the design of least error within this budget."),
    ] = None,
    half_width: Annotated[
        float | None,
        typer.Option(
            "--half-width",
            min=0.0,
            help="With --cost: the cheapest design whose (1 - alpha) interval has at most "
            "this half-width.",
        ),
    ] = None,
    max_levels: Annotated[
        list[str] | None,
        typer.Option(
            "--max-levels",
            help="The most levels the allocation may choose, as FACET=LEVELS (repeat), e.g. "
            "item=12032.",
        ),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(help="Level of the paired test of the MDE (default 0.05; a projection)."),
    ] = None,
    power: Annotated[
        float | None,
        typer.Option(help="Power of the paired test of the MDE (default 0.8; a projection)."),
    ] = None,
    destination: Destination,
) -> None:
    """Where a score's variance comes from: REML variance components of its facets
    (items, prompts, runs, judges ...), each with its share of the squared standard error;
    with --baseline and --candidate, those of the paired difference of two models.

    With --project or --design, the decision study instead: the SE (and, for a paired
    difference, the MDE at --alpha and --power) projected to other numbers of each facet's
    levels, each with its interval over the components' bootstrap resamples. With --object
    (a leaderboard's model column, given as a facet too) each design's G and Phi; with
    --cost and --budget or --half-width, the design that buys the most.
    """
    if files_as is not None:
        _check_files_mode(files, facet, read, (model, baseline, candidate, object_of_measurement))
        facets: tuple[str, ...] = ("item", files_as)
    elif len(files) != 1 or not facet:
        fail(
            "give one long table and its --facet columns, or several results files with "
            "--files-as FACET (one level each).",
            EXIT_USAGE,
        )
    elif {read.id_column, read.task, read.metric, read.filter_name} != {None}:
        fail("--id, --task, --metric and --filter are for results files (--files-as).", EXIT_USAGE)
    score = read.score_column or "score"
    board = object_of_measurement is not None and object_of_measurement == model_column
    if files_as is None:
        facets = _check_columns(facet or [], score, None if board else model_column)
    chosen = _chosen(model, baseline, candidate)
    if board and chosen:
        fail(
            f"--object {model_column!r} tells the file's models apart: leave out --model, "
            "--baseline and --candidate.",
            EXIT_USAGE,
        )
    designs = [parse_design(text, facets) for text in design or []]
    study: dict[str, Any] = {
        "object_of_measurement": object_of_measurement,
        "costs": _costs(cost or [], facets),
        "budget": budget,
        "half_width": half_width,
        "max_levels": {
            name: levels
            for text in max_levels or []
            for name, levels in parse_design(text, facets, option="--max-levels").items()
        },
    }
    projecting = (
        project or bool(designs) or any(value not in (None, (), {}) for value in study.values())
    )
    limits = {"--alpha": (alpha, 0.5), "--power": (power, 1.0)}
    for name, (value, high) in limits.items():
        if value is not None and not projecting:
            fail(f"{name} is for the decision study: add --project or --design.", EXIT_USAGE)
        if value is not None and not 0.0 < value < high:
            fail(
                f"{name}: {value!r} is out of range; it must be above 0 and below {high}.",
                EXIT_USAGE,
            )
    if 0 < resamples < 100:
        fail(
            f"--resamples: {resamples} is too few for a percentile interval; give at least "
            "100, or 0 for no intervals.",
            EXIT_USAGE,
        )
    drawn = resamples > 0 and seed is None
    if drawn:  # drawn from the system's entropy and recorded, so a rerun can repeat it
        import numpy as np

        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    from evalsig.data.long_table import files_table, read_long_table

    with data_errors(), stdin_paths(files) as paths:
        if files_as is not None:
            score = "score"
            tables, notes = files_table(paths, files_as, read.keywords())
        else:
            tables, notes = read_long_table(
                paths[0],
                facets=facets,
                score_column=score,
                model_column=None if board else model_column,
                models=chosen,
                separator=read.separator,
            )
        sources = _sources(tables, facets, score, resamples, confidence_level, seed)
        if drawn:
            notes.append(
                f"seed {seed} drawn for the components' bootstrap resamples; --seed {seed} "
                "repeats them"
            )
        result: Any = sources
        if projecting:
            from evalsig.facets import decision_study

            result = decision_study(
                sources,
                designs=designs or None,
                alpha=0.05 if alpha is None else alpha,
                power=0.8 if power is None else power,
                object_of_measurement=study["object_of_measurement"],
                costs=study["costs"] or None,
                budget=study["budget"],
                half_width=study["half_width"],
                max_levels=study["max_levels"] or None,
            )
            if resamples and not drawn:
                notes.append(f"the components' bootstrap resamples drew on --seed {seed}")
        from dataclasses import replace

        result = replace(result, notes=(*notes, *result.notes))
        title = "Decision study" if projecting else "Variance sources"
        destination.emit(as_given(result.to_dict()), title=title)


def _check_files_mode(
    files: list[str], facet: list[str] | None, read: ReadFiles, models: tuple[Any, ...]
) -> None:
    """--files-as takes several files of one model and no --facet."""
    if facet:
        fail("--files-as names the facet of the files; leave out --facet.", EXIT_USAGE)
    if len(files) < 2:
        fail("--files-as needs at least two files, one level of the facet each.", EXIT_USAGE)
    if any(value is not None for value in models):
        fail(
            "--files-as reads one model's files: leave out --model, --baseline, --candidate "
            "and --object.",
            EXIT_USAGE,
        )


def _sources(
    tables: list[Table],
    facets: tuple[str, ...],
    score: str,
    resamples: int,
    confidence_level: float,
    seed: int | None,
) -> VarianceSourcesResult:
    """The components of one model's table, or of the paired difference tables[0] -
    tables[1]."""
    from evalsig.facets import variance_sources

    return variance_sources(
        tables[0],
        facets=facets,
        score_column=score,
        baseline=tables[1] if len(tables) == 2 else None,
        n_resamples=resamples,
        confidence_level=confidence_level,
        rng=seed,
    )


def _check_columns(facets: list[str], score: str, model_column: str | None) -> tuple[str, ...]:
    """The facets, distinct and other than the score and the model column."""
    repeated = sorted({name for name in facets if facets.count(name) > 1})
    if repeated:
        fail(f"--facet {repeated[0]!r} is given twice; name each facet column once.", EXIT_USAGE)
    if score in facets:
        fail(
            f"--facet {score!r} is the score column (--score); name the facets and the score "
            "with different columns.",
            EXIT_USAGE,
        )
    if model_column is not None and (model_column in facets or model_column == score):
        fail(
            f"--model-column {model_column!r} is also a facet or the score column; the model "
            "column names which model a row scores (give --model-column another column).",
            EXIT_USAGE,
        )
    return tuple(facets)


def _chosen(model: str | None, baseline: str | None, candidate: str | None) -> tuple[str, ...]:
    """The models whose rows are read: none (the file holds one), one (--model), or the
    candidate and the baseline of a paired difference."""
    if model is not None and (baseline is not None or candidate is not None):
        fail("give one model (--model) or two to compare (--baseline ...), not both.", EXIT_USAGE)
    if (baseline is None) != (candidate is None):
        fail(
            "a paired difference needs both --baseline and --candidate (or --model for one "
            "model's score).",
            EXIT_USAGE,
        )
    if baseline is not None and candidate is not None:
        if baseline == candidate:
            fail(f"--baseline and --candidate are both {baseline!r}; name two models.", EXIT_USAGE)
        return (candidate, baseline)
    return () if model is None else (model,)


def parse_design(text: str, facets: Sequence[str], *, option: str = "--design") -> dict[str, int]:
    """``"prompt=10,run=1"`` as ``{"prompt": 10, "run": 1}``; a facet not among ``facets``,
    a facet named twice, or levels that are not a whole number of at least 1 is a usage
    error (one line naming the text)."""
    design: dict[str, int] = {}
    for part in text.split(","):
        name, equals, levels = (piece.strip() for piece in part.partition("="))
        if not equals or not name:
            fail(
                f"{option} {text!r}: {part.strip()!r} is not FACET=LEVELS; write e.g. "
                f"{option} {facets[-1]}=10.",
                EXIT_USAGE,
            )
        if name not in facets:
            fail(
                f"{option} {text!r}: {name!r} is not a facet (--facet): "
                f"{', '.join(map(repr, facets))}.",
                EXIT_USAGE,
            )
        if name in design:
            fail(f"{option} {text!r}: {name!r} is given twice; name each facet once.", EXIT_USAGE)
        if not (levels.isascii() and levels.isdigit()) or int(levels) < 1:
            fail(
                f"{option} {text!r}: {name}={levels!r} is not a whole number of levels of at "
                "least 1.",
                EXIT_USAGE,
            )
        design[name] = int(levels)
    return design


def _costs(texts: list[str], facets: Sequence[str]) -> dict[str, float]:
    """``--cost item:prompt=0.5`` as ``{"item:prompt": 0.5}`` (checked by the decision
    study); a text that is not COMBINATION=COST is a usage error."""
    costs: dict[str, float] = {}
    for text in texts:
        name, equals, value = (piece.strip() for piece in text.partition("="))
        try:
            number = float(value) if equals and name else math.nan
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or number < 0 or name in costs:
            fail(
                f"--cost {text!r} is not FACET:FACET=COST with a finite cost at least 0, "
                f"each combination once; write e.g. --cost {':'.join(facets)}=0.01.",
                EXIT_USAGE,
            )
        costs[name] = number
    return costs
