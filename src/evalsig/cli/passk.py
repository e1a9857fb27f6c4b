"""``evalsig pass-at-k FILE [CANDIDATE]``: pass@k, pass^k or majority@k per k, with intervals
for one model or a paired test of two."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any, Literal

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.at_once import at_once
from evalsig.cli.options import (
    TABLE_OPTIONS,
    Alternative,
    ConfidenceLevel,
    Destination,
    Pairing,
    ReadFiles,
    Resamples,
    Seed,
    pairs_items,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths

__all__ = ["pass_at_k_command"]


Estimator = Literal["pass@k", "pass^k", "majority@k"]
Interval = Literal["t", "bootstrap"]
Method = Literal["paired-t", "permutation", "bootstrap"]
TooFew = Literal["error", "drop"]
Ties = Literal["half", "fail"]


@command("pass-at-k", example="evalsig pass-at-k logs/base.eval logs/cand.eval --k 1 --k 5")
@pairs_items
@reads_files(
    *TABLE_OPTIONS,
    "skip_bad_lines",
    help={
        "cluster_column": "Column naming each task's cluster (repository, problem family): "
        "the interval and the paired test become cluster-robust (CR2, Bell-McCaffrey).",
    },
)
@writes_output
def pass_at_k_command(
    file: Annotated[
        str,
        typer.Argument(
            help="Results with several samples (runs: epochs, repeats, a run column) per task: "
            "a file, a folder, a quoted glob, or - (stdin)."
        ),
    ],
    candidate: Annotated[
        str | None,
        typer.Argument(help="A second model's results on the same tasks: a paired test per k."),
    ] = None,
    ks: Annotated[
        list[int] | None,
        typer.Option("--k", min=1, help="Samples per attempt (repeatable); default 1."),
    ] = None,
    estimator: Annotated[
        Estimator,
        typer.Option(help="pass@k: some of k correct; pass^k: all k; majority@k: most of k."),
    ] = "pass@k",
    interval: Annotated[
        Interval | None,
        typer.Option(help="One model: t over tasks (default) or bootstrap over tasks."),
    ] = None,
    method: Annotated[
        Method | None,
        typer.Option(help="Two models: paired-t (default), permutation or bootstrap over tasks."),
    ] = None,
    alternative: Annotated[
        Alternative | None,
        typer.Option(help="Two models: greater means the candidate is better."),
    ] = None,
    confidence_level: ConfidenceLevel = 0.95,
    too_few_samples: Annotated[
        TooFew,
        typer.Option(help="Tasks with fewer than k samples: error, or drop them from that k."),
    ] = "error",
    ties: Annotated[
        Ties, typer.Option(help="majority@k, even k: a tie counts half or as a failure.")
    ] = "half",
    resamples: Resamples = 10_000,
    seed: Seed = None,
    *,
    read: ReadFiles,
    baseline_where: Annotated[
        list[str] | None, typer.Option(help="Like --where, for FILE only (e.g. model=base).")
    ] = None,
    candidate_where: Annotated[
        list[str] | None, typer.Option(help="Like --where, for CANDIDATE only.")
    ] = None,
    pairing: Pairing,
    destination: Destination,
) -> None:
    """pass@k (pass^k, majority@k) of FILE per --k, with intervals over tasks; with
    CANDIDATE, a paired test of the two models per --k.

    Scores must be 0/1; the runs of each task (Inspect epochs, lm-eval repeats, a --run
    column) are its samples, and tasks may have different numbers of them. With --cluster,
    tasks of one cluster are taken as correlated and the clusters as the units.
    """
    from evalsig.data import load
    from evalsig.passk import compare_pass_at_k, pass_at_k

    if candidate is None:
        for name, value in (("--method", method), ("--alternative", alternative)):
            if value is not None:
                raise typer.BadParameter(f"{name} is for a paired test: give CANDIDATE too.")
        if candidate_where:
            raise typer.BadParameter("--candidate-where needs CANDIDATE.")
    elif interval is not None:
        raise typer.BadParameter("--interval is for one model; with CANDIDATE use --method.")
    independent = interval == "bootstrap" or method not in (None, "paired-t")
    if read.cluster_column is not None and independent:
        raise typer.BadParameter(
            "--cluster gives the cluster-robust CR2 interval and t-test; the bootstrap and "
            "permutation methods treat tasks as independent: drop --interval / --method."
        )
    given = [file] if candidate is None else [file, candidate]
    sides = ("scores",) if candidate is None else ("baseline", "candidate")
    keywords = [read.keywords(where=extra) for extra in (baseline_where, candidate_where)]
    common: dict[str, Any] = {
        "estimator": estimator,
        "confidence_level": confidence_level,
        "too_few_samples": too_few_samples,
        "ties": ties,
        "n_resamples": resamples,
        "rng": seed,
    }
    with data_errors(), stdin_paths(given, read.input_format) as paths:
        tables = at_once(
            [
                partial(load, path, name=side, **options)
                for path, side, options in zip(paths, sides, keywords, strict=False)
            ]
        )
        if candidate is None:
            document = pass_at_k(
                tables[0],
                ks or [1],
                method=interval or "t",
                **common,
            ).to_dict()
            title = "pass@k"
        else:
            document = compare_pass_at_k(
                tables[0],
                tables[1],
                ks or [1],
                method=method or "paired-t",
                alternative=alternative or "two-sided",
                **pairing.keywords(),
                **common,
            ).to_dict()
            title = "pass@k comparison"
        document = as_given(document)
    destination.emit(document, title=title)
