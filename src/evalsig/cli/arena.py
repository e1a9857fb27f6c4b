"""``evalsig arena FILE``: a Bradley-Terry leaderboard from pairwise battles, with honest
intervals, rank intervals and tie groups."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import ConfidenceLevel, Destination, Seed, writes_output

__all__ = ["arena_command"]


FormatIn = Literal["auto", "fastchat", "arena-hard", "alpaca-eval"]
Ties = Literal["half", "davidson"]
Scale = Literal["elo", "logit"]
Interval = Literal["sandwich", "bootstrap"]
ClusterCorrection = Literal["CR2", "CR1"]


@command("arena", example="evalsig arena clean_battle.json --ties davidson --elo")
@writes_output
def arena_command(
    file: Annotated[
        str,
        typer.Argument(
            help="A battle log: FastChat / Chatbot Arena battles (JSON or JSON Lines), "
            "arena-hard-auto judgments (a .jsonl or its folder), or AlpacaEval annotations."
        ),
    ],
    format_in: Annotated[
        FormatIn, typer.Option("--format-in", help="The log's format (default: detected).")
    ] = "auto",
    ties: Annotated[
        Ties, typer.Option(help="half: a tie is half a win each way; davidson: a tie parameter.")
    ] = "half",
    elo: Annotated[
        bool, typer.Option("--elo", help="Also show online Elo (K-factor; order-dependent).")
    ] = False,
    k_factor: Annotated[float, typer.Option("--k", min=0.0, help="K-factor of --elo.")] = 4.0,
    scale: Annotated[Scale, typer.Option(help="Elo scale (400/ln10 * s + 1000) or logit.")] = (
        "elo"
    ),
    anchor: Annotated[
        str | None, typer.Option(help="A model fixed at 1000 (default: scores average 1000).")
    ] = None,
    interval: Annotated[
        Interval, typer.Option(help="sandwich (cluster-robust by prompt when known) or bootstrap.")
    ] = "sandwich",
    cluster_correction: Annotated[
        ClusterCorrection,
        typer.Option(
            help="Clustered sandwich: CR2 (small-sample, t intervals) or CR1 (normal).",
            case_sensitive=False,
        ),
    ] = "CR2",
    baseline: Annotated[
        str | None, typer.Option(help="arena-hard: the baseline model (default gpt-4-0314).")
    ] = None,
    style: Annotated[
        bool, typer.Option("--style", help="FastChat: control for answer length.")
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(help="FastChat: a field whose equal values share a prompt (question_id)."),
    ] = None,
    confidence_level: ConfidenceLevel = 0.95,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 1000,
    seed: Seed = None,
    *,
    destination: Destination,
) -> None:
    """Bradley-Terry scores of the models in FILE, with intervals, simultaneous rank
    intervals and tie groups.

    Battles on one prompt (arena-hard questions, AlpacaEval instructions) are clustered,
    so the intervals account for prompts shared by battles.
    """
    from evalsig.arena import bradley_terry
    from evalsig.arena import elo as online_elo
    from evalsig.arena.readers import read_battles

    if k_factor <= 0:
        raise typer.BadParameter("--k must be positive, e.g. 4.")
    with data_errors():
        data = read_battles(file, format=format_in, baseline=baseline, style=style, cluster=cluster)
        result = bradley_terry(
            data,
            ties=ties,
            anchor=anchor,
            scale=scale,
            method=interval,
            variant=cluster_correction,
            confidence_level=confidence_level,
            n_resamples=resamples,
            rng=seed,
        )
        if elo:
            result = result.with_online_elo(online_elo(data, k=k_factor))
        document = result.to_dict()
    destination.emit(document, title="arena leaderboard")
