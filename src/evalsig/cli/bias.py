"""``evalsig position-bias FILE`` and ``evalsig length-bias FILE``: does a pairwise judge
favour the response shown first, or the longer response?"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import ConfidenceLevel, Destination, ReadFiles, reads_files, writes_output
from evalsig.cli.stdin import stdin_paths
from evalsig.errors import examples

__all__ = ["length_bias_command", "position_bias_command"]

File = Annotated[
    str,
    typer.Argument(
        help="A table (CSV, TSV, JSON Lines, JSON; .gz too, or - for stdin), one row per judgment."
    ),
]

_A, _B = {"a", "model_a"}, {"b", "model_b"}


@command(
    "position-bias",
    example="evalsig position-bias judgments.csv --choice-column choice --first-column first",
)
@reads_files("separator")
@writes_output
def position_bias_command(
    file: File,
    choice_column: Annotated[
        str, typer.Option("--choice-column", help="Column of the response the judge chose.")
    ],
    first_column: Annotated[
        str,
        typer.Option("--first-column", help="Column of the response shown first (same names)."),
    ],
    pair_column: Annotated[
        str | None,
        typer.Option(
            "--pair-column",
            help="Column of the pair's id: a pair judged in both orders gives the consistency "
            "rate, and pairs become clusters.",
        ),
    ] = None,
    confidence_level: ConfidenceLevel = 0.95,
    *,
    read: ReadFiles,
    destination: Destination,
) -> None:
    """How often the judge prefers the response shown first, minus 1/2 (0: no position
    bias), with an exact interval and test; with --pair-column, pairs are clusters and the
    consistency rate is the share of pairs judged in both orders with the same choice."""
    from evalsig.data.readers.records import read_records
    from evalsig.judge import position_bias
    from evalsig.judge.table import label

    columns = [choice_column, first_column, *([pair_column] if pair_column else [])]
    with data_errors(), stdin_paths([file]) as paths:
        chosen, first, pairs = [], [], []
        rows = read_records(paths[0], columns=columns, separator=read.separator, what="judgments")
        for place, row in rows:
            where = str(place)
            chosen.append(
                _present(label(row[choice_column], choice_column, where), choice_column, where)
            )
            first.append(
                _present(label(row[first_column], first_column, where), first_column, where)
            )
            if pair_column is not None:
                raw = row[pair_column]
                text = None if raw is None or not str(raw).strip() else str(raw).strip()
                pairs.append(_present(text, pair_column, where))  # an id, read as text
        result = position_bias(
            chosen,
            first,
            pair=pairs if pair_column is not None else None,
            confidence_level=confidence_level,
        )
        destination.emit_from_file(result, paths[0], title="position bias")


@command(
    "length-bias",
    example="evalsig length-bias judgments.csv --preference-column winner "
    "--length-a-column len_a --length-b-column len_b",
)
@reads_files("separator")
@writes_output
def length_bias_command(
    file: File,
    preference_column: Annotated[
        str,
        typer.Option(
            "--preference-column",
            help="Column of the judge's preference: 1 or A (response A), 0 or B (response B).",
        ),
    ],
    length_a_column: Annotated[
        str | None, typer.Option("--length-a-column", help="Column of response A's length.")
    ] = None,
    length_b_column: Annotated[
        str | None, typer.Option("--length-b-column", help="Column of response B's length.")
    ] = None,
    length_difference_column: Annotated[
        str | None,
        typer.Option(
            "--length-difference-column",
            help="Column of len(A) - len(B) (instead of --length-a-column and -b-column).",
        ),
    ] = None,
    human_column: Annotated[
        str | None,
        typer.Option(
            "--human-column",
            help="Column of the human preference (1/A, 0/B; empty where humans did not judge).",
        ),
    ] = None,
    confidence_level: ConfidenceLevel = 0.95,
    *,
    read: ReadFiles,
    destination: Destination,
) -> None:
    """How the judge's preference for A follows the length difference len(A) - len(B):
    correlation and logistic slope (sandwich SE, per unit of length), beside the humans'
    with --human-column, and the slope difference judge - human."""
    from evalsig.data.readers.records import read_records
    from evalsig.errors import DataError
    from evalsig.judge import length_bias
    from evalsig.judge.bias import length_difference

    pair = (length_a_column, length_b_column)
    if length_difference_column is not None and any(c is not None for c in pair):
        raise typer.BadParameter(
            "give --length-difference-column, or --length-a-column and --length-b-column, not both."
        )
    if length_difference_column is None and not all(c is not None for c in pair):
        raise typer.BadParameter(
            "give --length-a-column and --length-b-column (or --length-difference-column)."
        )
    lengths = [c for c in (length_difference_column, *pair) if c is not None]
    columns = [preference_column, *lengths, *([human_column] if human_column else [])]
    with data_errors(), stdin_paths([file]) as paths:
        preference: list[int] = []
        sizes: list[list[float]] = [[] for _ in lengths]
        human: list[float | None] = []
        rows = read_records(paths[0], columns=columns, separator=read.separator, what="judgments")
        for place, row in rows:
            where = str(place)
            value = _preference(row[preference_column], preference_column, where)
            if value is None:
                raise DataError(
                    f"{where}: {preference_column} is empty; the judge must judge every row "
                    "(drop the rows it did not judge)."
                )
            preference.append(value)
            for column, values in zip(lengths, sizes, strict=True):
                values.append(_number(row[column], column, where))
                if length_difference_column is None and values[-1] < 0:
                    raise DataError(
                        f"{where}: {column} is {examples([row[column]], 1)}, a negative "
                        "length; a length counts tokens, words or characters, so it is 0 or "
                        "more. Check the column."
                    )
            if human_column is not None:
                human.append(_preference(row[human_column], human_column, where))
        difference = sizes[0] if len(sizes) == 1 else length_difference(*sizes)
        result = length_bias(
            preference,
            difference,
            human=human if human_column is not None else None,
            confidence_level=confidence_level,
        )
        destination.emit_from_file(result, paths[0], title="length bias")


def _present(value: Any, column: str, where: str) -> Any:
    from evalsig.errors import DataError

    if value is None:
        raise DataError(
            f"{where}: {column} is empty; every judgment needs one (drop the rows without)."
        )
    return value


def _preference(value: Any, column: str, where: str) -> int | None:
    """1 (A preferred) or 0 (B), None when empty."""
    from evalsig.errors import DataError
    from evalsig.judge.table import label

    read = label(value, column, where)
    if read is None:
        return None
    if isinstance(read, str) and read.lower() in _A | _B:
        return 1 if read.lower() in _A else 0
    if read == 0 or read == 1:
        return int(read)
    raise DataError(
        f"{where}: {column} is {examples([value], 1)}; use 1 or A when response A is "
        "preferred, 0 or B when B is (leave ties out, or map them first)."
    )


def _number(value: Any, column: str, where: str) -> float:
    from evalsig.errors import DataError
    from evalsig.judge.table import label

    read = label(value, column, where)
    if read is None or isinstance(read, str):
        raise DataError(
            f"{where}: {column} is {examples([value], 1)}, not a number; give every "
            "response's length."
        )
    return float(read)
