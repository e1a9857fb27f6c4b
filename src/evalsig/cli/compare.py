"""``evalsig compare BASELINE CANDIDATE``: a paired comparison of two result files."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from evalsig.cli.app import OutputFormat, app, data_errors
from evalsig.comparison import VARIANTS, ComparisonResult, compare
from evalsig.data import load
from evalsig.report.comparison import as_markdown, as_text

__all__ = ["compare_command", "render"]


class Method(str, Enum):
    auto = "auto"
    mcnemar = "mcnemar"
    paired_t = "paired-t"
    permutation = "permutation"
    bootstrap = "bootstrap"
    wilcoxon = "wilcoxon"
    cluster = "cluster"


class Alternative(str, Enum):
    two_sided = "two-sided"
    greater = "greater"
    less = "less"


class OnMissing(str, Enum):
    error = "error"
    intersect = "intersect"


def _check_variant(ctx: typer.Context, value: str | None) -> str | None:
    method = ctx.params.get("method")
    name = getattr(method, "value", method) or "auto"
    if value is None:
        return None
    if name == "auto":
        raise typer.BadParameter("--variant needs an explicit --method.")
    if value not in VARIANTS[name]:
        allowed = ", ".join(VARIANTS[name]) or "none"
        raise typer.BadParameter(f"method {name!r} has no variant {value!r} (choose: {allowed}).")
    return value


def _check_level(value: float) -> float:
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1, e.g. 0.95; got {value}.")
    return value


@app.command("compare")
def compare_command(
    baseline: Annotated[Path, typer.Argument(help="Baseline results (CSV, JSONL, JSON, Parquet).")],
    candidate: Annotated[Path, typer.Argument(help="Candidate results, same items.")],
    id_column: Annotated[str | None, typer.Option("--id", help="Item id column.")] = None,
    score_column: Annotated[str | None, typer.Option("--score", help="Score column.")] = None,
    run_column: Annotated[
        str | None,
        typer.Option("--run", help="Run column (sample, epoch or seed) for repeated runs."),
    ] = None,
    cluster_column: Annotated[
        str | None,
        typer.Option("--cluster", help="Cluster column (subject, passage, source)."),
    ] = None,
    input_format: Annotated[
        str, typer.Option("--input-format", help="Input format, or auto to detect it.")
    ] = "auto",
    method: Annotated[Method, typer.Option(help="Test; auto picks by data shape.")] = Method.auto,
    variant: Annotated[
        str | None,
        typer.Option(
            help="Method variant, e.g. exact (mcnemar), bca (bootstrap), cr1 (cluster).",
            callback=_check_variant,
        ),
    ] = None,
    alternative: Annotated[
        Alternative, typer.Option(help="greater: the candidate is better.")
    ] = Alternative.two_sided,
    one_sided: Annotated[
        bool, typer.Option("--one-sided", help="Same as --alternative greater.")
    ] = False,
    confidence_level: Annotated[
        float, typer.Option(help="Confidence level of the interval.", callback=_check_level)
    ] = 0.95,
    resamples: Annotated[
        int, typer.Option(min=100, help="Resamples for bootstrap and permutation methods.")
    ] = 10_000,
    seed: Annotated[int | None, typer.Option(min=0, help="Random seed.")] = None,
    on_missing: Annotated[
        OnMissing, typer.Option(help="Items on one side only: error, or compare the shared ones.")
    ] = OnMissing.error,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Output format.")
    ] = OutputFormat.text,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the output to this file instead of stdout."),
    ] = None,
) -> None:
    """Compare CANDIDATE with BASELINE on the same items, with a paired test."""
    with data_errors():
        tables = [
            load(
                path,
                id_column=id_column,
                score_column=score_column,
                run_column=run_column,
                cluster_column=cluster_column,
                format=input_format,
            )
            for path in (baseline, candidate)
        ]
        result = compare(
            tables[0],
            tables[1],
            method=method.value,
            variant=variant,
            alternative=alternative.value,
            one_sided=one_sided or None,
            on_missing=on_missing.value,
            confidence_level=confidence_level,
            n_resamples=resamples,
            rng=seed,
        )
    render(result, output_format, output)


def render(result: ComparisonResult, output_format: OutputFormat, output: Path | None) -> None:
    """Print or write a result in the chosen format."""
    if output_format is OutputFormat.json:
        text = json.dumps(result.to_dict(), indent=2, allow_nan=False)
    elif output_format is OutputFormat.markdown:
        text = as_markdown(result)
    else:
        text = as_text(result)
    if output is not None:
        output.write_text(text + "\n", encoding="utf-8")
        return
    if output_format is OutputFormat.text:
        console = Console(highlight=False, soft_wrap=True)
        first, _, rest = text.partition("\n")
        style = (
            "yellow" if not result.significant() else ("green" if result.estimate > 0 else "red")
        )
        console.print(first, style=f"bold {style}", markup=False)
        console.print(rest, markup=False)
    else:
        typer.echo(text)
