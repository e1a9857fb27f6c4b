"""``evalsig power`` (N*, power or MDE) and ``evalsig resolution`` (benchmark-level table)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Annotated, Literal

import typer

from evalsig.cli.application import EXIT_USAGE, command, data_errors, fail
from evalsig.cli.at_once import at_once
from evalsig.cli.options import (
    TABLE_OPTIONS,
    Destination,
    ModelColumn,
    Pairing,
    ReadFiles,
    Seed,
    TestSide,
    numbers_for_files,
    pairs_items,
    reads_files,
    renamed,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths
from evalsig.errors import DataError

__all__ = ["power_command", "resolution_command"]


SizeMethod = Literal["normal", "exact", "score"]
Pairs = Literal["adjacent", "all"]
Correction = Literal["holm", "bonferroni", "hochberg", "hommel", "bh", "by"]


Alpha = Annotated[float, typer.Option(help="Significance level of the test.")]
Power = Annotated[float, typer.Option("--power", help="Target power (1 - beta).")]


@command("power", example="evalsig power --p01 0.075 --p10 0.065 --n 4000")
@reads_files(*TABLE_OPTIONS)
@writes_output
def power_command(
    pilot: Annotated[
        list[str] | None,
        typer.Argument(help="Optional pilot BASELINE and CANDIDATE results (-: stdin)."),
    ] = None,
    p01: Annotated[float | None, typer.Option(help="P(baseline wrong, candidate right).")] = None,
    p10: Annotated[float | None, typer.Option(help="P(baseline right, candidate wrong).")] = None,
    discordance: Annotated[
        float | None, typer.Option(help="p01 + p10 alone, with --n: solve for the MDE.")
    ] = None,
    effect: Annotated[
        float | None, typer.Option(help="Mean difference to detect (score units, 0.01 = 1 pp).")
    ] = None,
    sd: Annotated[
        float | None, typer.Option(help="SD of per-item differences (between items).")
    ] = None,
    sd_within: Annotated[
        float | None, typer.Option(help="Run-to-run SD of one run's difference within an item.")
    ] = None,
    runs: Annotated[int, typer.Option(min=1, help="Runs per item planned.")] = 1,
    n: Annotated[
        int | None, typer.Option("--n", min=2, help="Items you have or plan: power, MDE, q.")
    ] = None,
    accuracy: Annotated[
        float | None,
        typer.Option(help="Baseline accuracy: adds the unpaired Cohen's-h shortcut."),
    ] = None,
    alpha: Alpha = 0.05,
    power: Power = 0.8,
    alternative: TestSide = "two-sided",
    method: Annotated[
        SizeMethod,
        typer.Option(
            help="McNemar N*: normal (Connor), exact (binomial test) or score (the test "
            "compare runs: score test, continuity-corrected below 25 discordant items)."
        ),
    ] = "normal",
    *,
    read: ReadFiles,
    destination: Destination,
) -> None:
    """Items needed (N*), power at --n, or the smallest detectable effect.

    From rates (--p01 --p10), from --effect and --sd, or estimated from pilot results
    (BASELINE CANDIDATE files; --effect then sets the difference to plan for).
    """
    from evalsig.data import load, pair
    from evalsig.power import power_analysis, power_analysis_paired

    numbers = numbers_for_files(pilot or [])
    if numbers:
        fail(
            f"{' '.join(numbers)}: the arguments of power are pilot result files (BASELINE "
            "CANDIDATE), not numbers; give rates as --p01 and --p10 (e.g. --p01 0.075 --p10 "
            "0.065), or --effect and --sd.",
            EXIT_USAGE,
        )
    with data_errors():
        common = {"alpha": alpha, "power": power, "alternative": alternative}
        if pilot:
            if len(pilot) != 2:
                raise DataError(
                    f"pilot data are two result files, BASELINE and CANDIDATE; got {len(pilot)}."
                )
            if any(v is not None for v in (p01, p10, discordance, sd, sd_within)):
                raise DataError(
                    "with pilot files the rates and SDs are estimated; drop --p01, --p10, "
                    "--discordance, --sd and --sd-within (or drop the files)."
                )
            with stdin_paths(pilot, read.input_format) as paths:
                tables = at_once(
                    [
                        partial(load, path, name=side, **read.keywords())
                        for side, path in zip(("baseline", "candidate"), paths, strict=True)
                    ]
                )
                document = as_given(
                    power_analysis_paired(
                        pair(tables[0], tables[1]),
                        n=n,
                        effect=effect,
                        method=method,
                        source=f"pilot: {pilot[0]} vs {pilot[1]}",
                        **common,  # type: ignore[arg-type]
                    ).to_dict()
                )
        else:
            document = power_analysis(
                p01=p01,
                p10=p10,
                discordance=discordance,
                effect=effect,
                sd=sd,
                sd_within=sd_within,
                runs=runs,
                n=n,
                baseline_accuracy=accuracy,
                method=method,
                **common,  # type: ignore[arg-type]
            ).to_dict()
    destination.emit(document, title="Power analysis")


@command(
    "resolution", example="evalsig resolution long.csv --id question_id --score correct --top 10"
)
@reads_files(*TABLE_OPTIONS)
@pairs_items
@writes_output
def resolution_command(
    results: Annotated[
        list[str],
        typer.Argument(
            help="A long table with a model column (CSV, JSONL, Parquet ...), a folder with "
            "one entry per model, or - (stdin)."
        ),
    ],
    model_column: ModelColumn = "model",
    *,
    read: ReadFiles,
    pairing: Pairing,
    pairs: Annotated[
        Pairs, typer.Option(help="Adjacent pairs of the ranking, or all pairs.")
    ] = "adjacent",
    top: Annotated[int | None, typer.Option(min=2, help="Only the best TOP models.")] = None,
    alpha: Alpha = 0.05,
    power: Power = 0.8,
    correction: Annotated[
        Correction, typer.Option(help="Multiplicity correction over the pairs.")
    ] = "holm",
    resamples: Annotated[
        int, typer.Option(min=0, help="Category-bootstrap resamples (needs --cluster).")
    ] = 0,
    bootstrap: Annotated[int | None, typer.Option(min=0, hidden=True)] = None,
    seed: Seed = None,
    destination: Destination,
) -> None:
    """Which pairs of a leaderboard can this benchmark resolve? N*, q = N/N* per pair."""
    from evalsig.cli.leaderboard import read_models
    from evalsig.power import benchmark_resolution

    resamples = renamed("--bootstrap", "--resamples", bootstrap, resamples)
    keywords = replace(read, task=None, task_column=None).keywords()
    with data_errors(), stdin_paths(results, read.input_format) as paths:
        scores = read_models(
            paths,
            task=read.task,
            task_column=read.task_column,
            model_column=model_column,
            read=keywords,
            policy=pairing.keywords(),
        )
        result = benchmark_resolution(
            scores,
            pairs=pairs,
            top=top,
            alpha=alpha,
            power=power,
            correction=correction,
            n_resamples=resamples,
            rng=seed,
        )
        document = as_given(result.to_dict())
    destination.emit(document, title="Benchmark resolution")
