"""``evalsig compare BASELINE CANDIDATE``: a paired comparison of two result files."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.at_once import at_once
from evalsig.cli.options import (
    Destination,
    IntervalLevel,
    Pairing,
    ReadFiles,
    Resamples,
    Seed,
    TestSide,
    pairs_items,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths

if TYPE_CHECKING:
    from evalsig.comparison import ComparisonResult

__all__ = ["compare_command", "render"]


METHODS = (
    "auto",
    "mcnemar",
    "paired-t",
    "permutation",
    "bootstrap",
    "wilcoxon",
    "cluster",
    "stratified",
)
"""The built-in tests, as ``--help`` lists them (a plugin's test is accepted by its name)."""


def parse_method(value: str) -> str:
    """A built-in test, or a registered one (plugins load only for a name not built in)."""
    if value in METHODS:
        return value
    from evalsig.comparison import registered_tests

    tests = registered_tests()
    if value in tests:
        return value
    choices = ", ".join(map(repr, [*METHODS, *tests]))
    raise typer.BadParameter(f"{value!r} is not one of {choices}.")


def _check_variant(ctx: typer.Context, value: str | None) -> str | None:
    name = ctx.params.get("method") or "auto"
    if value is None:
        return None
    if name == "auto":
        raise typer.BadParameter("--variant needs an explicit --method.")
    from evalsig.comparison import VARIANTS, registered_tests

    tests = registered_tests()
    choices = tests[name].variants if name in tests else VARIANTS.get(name, ())
    if value not in choices:
        allowed = ", ".join(choices) or "none"
        raise typer.BadParameter(f"method {name!r} has no variant {value!r} (choose: {allowed}).")
    return value


@command("compare", example="evalsig compare base.jsonl cand.jsonl --id doc_id --score acc")
@pairs_items
@reads_files(
    help={
        "task": "Task to compare, when files hold several.",
        "where": "Keep rows with COLUMN=VALUE (repeatable), e.g. task=arc.",
    }
)
@writes_output
def compare_command(
    baseline: Annotated[
        str,
        typer.Argument(help="Baseline results: a file, a folder, a quoted glob, or - (stdin)."),
    ],
    candidate: Annotated[str, typer.Argument(help="Candidate results on the same items.")],
    read: ReadFiles,
    baseline_where: Annotated[
        list[str] | None,
        typer.Option(help="Like --where, for the baseline only (e.g. model=base)."),
    ] = None,
    candidate_where: Annotated[
        list[str] | None,
        typer.Option(help="Like --where, for the candidate only (e.g. model=finetune)."),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            parser=parse_method,
            metavar=f"<{'|'.join(METHODS)}>",
            help="Test; auto picks by data shape (or a plugin's test, by name).",
        ),
    ] = "auto",
    variant: Annotated[
        str | None,
        typer.Option(
            help="Method variant, e.g. exact (mcnemar), bca (bootstrap), cr1 (cluster).",
            callback=_check_variant,
        ),
    ] = None,
    alternative: TestSide = "two-sided",
    one_sided: Annotated[
        bool, typer.Option("--one-sided", help="Same as --alternative greater.")
    ] = False,
    confidence_level: IntervalLevel = 0.95,
    resamples: Resamples = 10_000,
    seed: Seed = None,
    strata: Annotated[
        str | None,
        typer.Option(
            "--strata",
            help="Stratum column: fixed groups that make up the population (subjects, "
            "subtasks); the stratified t-test. Not with --cluster.",
        ),
    ] = None,
    facet: Annotated[
        list[str] | None,
        typer.Option(
            "--facet",
            help="A facet column of long tables, one score a row (repeat, the item column "
            "first: --facet item --facet prompt): the test 'facets', its SE from the REML "
            "components of every facet, t on Satterthwaite's df.",
        ),
    ] = None,
    *,
    pairing: Pairing,
    destination: Destination,
) -> None:
    """Compare CANDIDATE with BASELINE on the same items, with a paired test."""
    from evalsig.data import load

    if facet:
        with data_errors(), stdin_paths([baseline, candidate], read.input_format) as paths:
            result = _compare_facets(
                paths,
                facet,
                read,
                (baseline_where or [], candidate_where or []),
                method=method,
                variant=variant,
                alternative=alternative,
                one_sided=one_sided or None,
                confidence_level=confidence_level,
                on_missing=pairing.on_missing,
            )
            render(result, destination)
        return
    if strata is not None and read.cluster_column is not None:
        raise typer.BadParameter(
            "give --cluster or --strata, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    keywords = read.keywords() | ({"cluster_column": strata} if strata else {})
    with data_errors(), stdin_paths([baseline, candidate], read.input_format) as paths:
        tables = list(
            at_once(
                [
                    partial(load, path, **(keywords | read.keywords(where=side)))
                    for path, side in zip(paths, (baseline_where, candidate_where), strict=True)
                ]
            )
        )
        from evalsig.comparison import compare  # after reading: scipy loads meanwhile (preload)

        labels = _strata(tables) if strata else None
        result = compare(
            tables[0],
            tables[1],
            method=method,
            variant=variant,
            alternative=alternative,
            one_sided=one_sided or None,
            strata=labels,
            confidence_level=confidence_level,
            n_resamples=resamples,
            rng=seed,
            **pairing.keywords(),
        )
        render(result, destination)  # inside: standard input is named "-"


def _compare_facets(
    paths: list[str],
    facets: list[str],
    read: ReadFiles,
    wheres: tuple[list[str], list[str]],
    **settings: Any,
) -> ComparisonResult:
    """--facet: each side a long table read through the shared record reader; a side's
    ``--baseline-where``/``--candidate-where`` (one COLUMN=VALUE) chooses its model's rows."""
    from dataclasses import replace

    from evalsig.cli.application import EXIT_USAGE, fail
    from evalsig.cli.options import parse_where
    from evalsig.comparison import compare
    from evalsig.data.long_table import read_model_rows
    from evalsig.data.provenance import provenance

    options = {"where": "--where", "cluster_column": "--cluster", "run_column": "--run"}
    given = [flag for name, flag in options.items() if getattr(read, name)]
    if given:
        fail(
            f"{given[0]} does not apply with --facet: runs, clusters and groups are facets "
            "(name each with --facet), a side's rows are chosen with --baseline-where / "
            "--candidate-where COLUMN=VALUE, and the score column is --score.",
            EXIT_USAGE,
        )
    tables, notes, origins = [], [], {}
    for side, path, where in zip(("baseline", "candidate"), paths, wheres, strict=True):
        chosen = parse_where(where)
        if len(chosen) > 1:
            fail(
                f"with --facet, a side's rows are chosen by one COLUMN=VALUE; got {where}.",
                EXIT_USAGE,
            )
        table, read_notes, origins[side] = read_model_rows(
            path,
            facets=facets,
            score_column=read.score_column or "score",
            where=chosen,
            separator=read.separator,
            choose="Choose each side's rows with --baseline-where model=NAME and "
            "--candidate-where model=NAME.",
        )
        tables.append(table)
        notes += [f"{side}: {note}" for note in read_notes]
    result = compare(tables[0], tables[1], facets=facets, **settings)
    return replace(result, notes=(*notes, *result.notes), provenance=provenance(origins))


def _strata(tables: list[Any]) -> dict[str, object]:
    """The stratum of each item, read as the files' group column; both sides must agree
    on the items they share. The tables lose the labels (they are strata, not clusters)."""
    from dataclasses import replace

    from evalsig.errors import DataError

    labels: dict[str, object] = {}
    for i, table in enumerate(tables):
        if table.item_ids is None or table.clusters is None:
            raise DataError("--strata needs item ids and a stratum label on every row.")
        for item, label in zip(table.item_ids, table.clusters, strict=True):
            if labels.setdefault(item, label) != label:
                raise DataError(
                    f"item {item!r} is in stratum {labels[item]!r} in the baseline but "
                    f"{label!r} in the candidate; label each item with one stratum."
                )
        tables[i] = replace(table, clusters=None)
    return labels


def render(result: ComparisonResult, destination: Destination) -> None:
    """Print or write a comparison in the chosen format."""
    data = as_given(result.to_dict())
    significant = result.significant()
    style = (
        "bold yellow" if not significant else ("bold green" if result.estimate > 0 else "bold red")
    )
    destination.emit(data, style=style, title="Paired comparison")
