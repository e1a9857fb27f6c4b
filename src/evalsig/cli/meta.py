"""``evalsig meta REPORTS``: random-effects synthesis of published benchmark scores."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from evalsig.cli.application import EXIT_USAGE, command, data_errors, fail, note
from evalsig.cli.options import Destination, check_level, numbers_for_files, writes_output
from evalsig.cli.stdin import stdin_paths

__all__ = ["meta_command"]


MethodOption = Literal["reml", "ml", "dl", "pm", "he", "sj", "hs", "eb", "fe"]
TestOption = Literal["z", "hksj"]
ScaleOption = Literal["auto", "points", "proportion"]


@command("meta", example="evalsig meta reports.csv --format markdown")
@writes_output
def meta_command(
    reports: Annotated[
        Path,
        typer.Argument(
            help="Table of reports (CSV, TSV, JSONL, JSON or Parquet): model, benchmark, "
            "source, score, and se or n; optional self_reported, harness, prompt, temperature "
            "(-: standard input)."
        ),
    ],
    method: Annotated[
        MethodOption, typer.Option(help="Estimator of tau^2 (between-report variance).")
    ] = "reml",
    test: Annotated[
        TestOption, typer.Option(help="Inference for the pooled score: z or hksj (t, k-1 df).")
    ] = "z",
    confidence_level: Annotated[
        float, typer.Option(callback=check_level, help="Level of every interval.")
    ] = 0.95,
    scale: Annotated[
        ScaleOption, typer.Option(help="Scores in points (0-100) or proportions (0-1).")
    ] = "auto",
    resamples: Annotated[
        int, typer.Option(min=0, help="Parametric-bootstrap replicates per cell (0: none).")
    ] = 2000,
    top: Annotated[int, typer.Option(min=1, help="Leaderboard depth compared.")] = 10,
    seed: Annotated[int | None, typer.Option(min=0, help="Random seed of the bootstrap.")] = None,
    plots: Annotated[
        Path | None,
        typer.Option(help="Write forest and funnel plots (PNG and SVG) to this folder."),
    ] = None,
    *,
    destination: Destination,
) -> None:
    """Pool each model's reported scores per benchmark with a random-effects model, rank by
    the synthesized scores, and test funnel asymmetry and self-report gaps."""
    from evalsig.meta import synthesize

    if numbers_for_files([reports]):
        fail(
            f"{reports}: no such file; meta reads a table of reports (model, benchmark, "
            "source, score, and se or n), one row per reported score, not numbers: write the "
            "scores into a CSV file and give its path.",
            EXIT_USAGE,
        )
    with data_errors(), stdin_paths([reports]) as paths:
        result = synthesize(
            Path(paths[0]),
            method=method,
            test=test,
            confidence_level=confidence_level,
            scale=scale,
            n_resamples=resamples,
            top=top,
            rng=seed,
        )
        if plots is not None:
            from evalsig.meta.plots import write_plots

            written = write_plots(result, plots)
            note(f"wrote {len(written)} plot files to {plots}")
    destination.emit(result.to_dict(), title="Meta-analysis of published benchmark scores")
