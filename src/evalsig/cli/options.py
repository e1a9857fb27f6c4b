"""Command-line options shared by the commands that read results or write a report.

Every command that reads result files takes the same input options (:func:`read_options`
turns them into the keyword arguments of :func:`evalsig.load` / :func:`evalsig.load_tasks`),
under one name for each concept: ``--resamples``, ``--seed``, ``--confidence-level``,
``--alpha``, ``--input-format``, ``--format``, ``-o/--output``.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import typer

from evalsig.cli.app import OutputFormat, fail, note
from evalsig.cli.output import output_problem
from evalsig.defaults import DEFAULT_LOCK_TIMEOUT

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "INPUT_FORMATS",
    "ClusterColumn",
    "Filter",
    "Format",
    "IdColumn",
    "InputFormat",
    "InputFormatName",
    "KeyColumn",
    "LockTimeout",
    "Metric",
    "Output",
    "RunColumn",
    "ScoreColumn",
    "Separator",
    "Task",
    "TaskColumn",
    "Where",
    "numbers_for_files",
    "parse_input_format",
    "parse_where",
    "read_options",
    "renamed",
]

IdColumn = Annotated[str | None, typer.Option("--id", help="Item id column.")]
ScoreColumn = Annotated[str | None, typer.Option("--score", help="Score column.")]
RunColumn = Annotated[
    str | None,
    typer.Option("--run", help="Run column (sample, epoch or seed) for repeated runs."),
]
ClusterColumn = Annotated[
    str | None, typer.Option("--cluster", help="Cluster column (subject, passage, source).")
]
Where = Annotated[
    list[str] | None,
    typer.Option(help="Keep rows with COLUMN=VALUE (repeatable), e.g. model=gpt-4."),
]


def check_level(value: float) -> float:
    """A confidence level option's callback: strictly between 0 and 1."""
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1, e.g. 0.95; got {value}.")
    return value


def numbers_for_files(words: Sequence[str | Path]) -> list[str]:
    """The words of a list of paths that read as numbers and name no file (``-`` is
    standard input): numbers given where files go, for an error that says so."""
    out = []
    for word in map(str, words):
        try:
            float(word)
        except ValueError:
            continue
        if word != "-" and not Path(word).exists():
            out.append(word)
    return out


def parse_where(conditions: list[str] | None) -> dict[str, str]:
    """``["model=a", "task=b"]`` as ``{"model": "a", "task": "b"}``."""
    out = {}
    for condition in conditions or []:
        column, sep, value = condition.partition("=")
        if not sep or not column:
            raise typer.BadParameter(f"--where needs COLUMN=VALUE; got {condition!r}.")
        out[column] = value
    return out


KeyColumn = Annotated[
    str | None, typer.Option("--key", help="Content-key column (gold answer, target, hash).")
]


class OnMissing(str, Enum):
    error = "error"
    intersect = "intersect"


class OnMismatch(str, Enum):
    error = "error"
    exclude = "exclude"
    keep = "keep"


MissingPolicy = Annotated[
    OnMissing,
    typer.Option(help="Items not in every input: error, or compare only the items all share."),
]
MismatchPolicy = Annotated[
    OnMismatch,
    typer.Option(
        help="Items whose gold answer/target/hash differ between inputs: error, exclude or keep."
    ),
]
InputFormatName = Literal[
    "auto",
    "lm-eval",
    "inspect",
    "helm",
    "openai-evals",
    "every-eval-ever",
    "alpaca-eval",
    "lighteval",
    "lighteval-results",
    "promptfoo",
    "deepeval",
    "opencompass",
    "simple-evals",
    "human-eval",
    "csv",
    "jsonl",
    "json",
    "parquet",
]
"""auto, then the built-in readers (``evalsig.data.readers.READERS`` before plugins load; a
test keeps them equal)."""

INPUT_FORMATS: tuple[str, ...] = get_args(InputFormatName)


def parse_input_format(value: str) -> str:
    """A built-in format, or the name of a plugin's reader: plugins are loaded only for a
    name that is not built in (their names are not listed in ``--help``)."""
    if value in INPUT_FORMATS:
        return value
    from evalsig.data.readers import READERS, load_plugins

    load_plugins()
    if value in READERS:
        return value
    choices = ", ".join(
        map(repr, [*INPUT_FORMATS, *(n for n in READERS if n not in INPUT_FORMATS)])
    )
    raise typer.BadParameter(f"{value!r} is not one of {choices}.")


def _complete_input_format(incomplete: str) -> list[str]:
    return [name for name in INPUT_FORMATS if name.startswith(incomplete)]


InputFormat = Annotated[
    str,
    typer.Option(
        "--input-format",
        parser=parse_input_format,
        metavar=f"<{'|'.join(INPUT_FORMATS)}>",
        autocompletion=_complete_input_format,
        help="Input format; auto: from the name and content.",
    ),
]
Task = Annotated[str | None, typer.Option(help="Task to read, when files hold several.")]
TaskColumn = Annotated[str | None, typer.Option(help="Column naming each row's task.")]
Metric = Annotated[
    str | None, typer.Option(help="Metric: lm-eval metric, Inspect scorer, HELM stat.")
]
Filter = Annotated[
    str | None, typer.Option("--filter", help="lm-eval filter (none, strict-match, ...).")
]


def read_options(
    *,
    id_column: str | None = None,
    score_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    key_column: str | None = None,
    where: list[str] | None = None,
    task: str | None = None,
    task_column: str | None = None,
    metric: str | None = None,
    filter_name: str | None = None,
    input_format: str = "auto",
    separator: str | None = None,
) -> dict[str, Any]:
    """The input options given, as keyword arguments of ``evalsig.load`` / ``load_tasks``.

    Options left out are left out (empty when none was given), so the readers' defaults
    and detection apply.
    """
    given: dict[str, Any] = {
        "id_column": id_column,
        "score_column": score_column,
        "run_column": run_column,
        "cluster_column": cluster_column,
        "key_column": key_column,
        "where": parse_where(where) or None,
        "task": task,
        "task_column": task_column,
        "metric": metric,
        "filter": filter_name,
        "format": None if input_format == "auto" else input_format,
        "separator": separator,
    }
    return {name: value for name, value in given.items() if value is not None}


def renamed(old: str, new: str, old_value: Any, value: Any) -> Any:
    """The value of an option given under its old, hidden name (with a note), else ``value``."""
    if old_value is None:
        return value
    note(f"evalsig: {old} is deprecated; use {new}.")
    return old_value


Format = Annotated[OutputFormat, typer.Option("--format", help="Output format.")]
LockTimeout = Annotated[
    float,
    typer.Option(
        "--lock-timeout",
        min=0,
        metavar="SECONDS",
        help="Wait this long for another process that has the --store open (one process "
        "may write a store, or several read it, never both at once); 0: do not wait.",
    ),
]
Separator = Annotated[
    str | None,
    typer.Option(
        "--separator",
        help="CSV field separator, e.g. ';' or '\\t' (default: the suffix's, or the one the "
        "header line shows).",
    ),
]


def _check_output(value: Path | None) -> Path | None:
    """Refuse an unwritable --output before any work is done (one line, data-error code)."""
    if value is not None:
        problem = output_problem(value)
        if problem is not None:
            fail(problem)
    return value


Output = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the output to this file instead of stdout.",
        callback=_check_output,
    ),
]
