"""Which model a harness log scored, as the log's own metadata names it.

Each harness records the evaluated model somewhere of its own:

* lm-evaluation-harness: ``model_name`` in the ``results_<datetime>.json`` written beside
  the ``samples_<task>_<datetime>.jsonl`` files (the one with the same datetime when there
  are several), or, in older versions, the ``pretrained=`` / ``model=`` entry of
  ``config.model_args``;
* Inspect AI: ``eval.model`` in the log header;
* HELM: ``adapter_spec.model`` in each run's ``run_spec.json``, or the ``model=`` entry of
  the run name (HELM's own naming of run folders) when the spec does not say;
* OpenAI evals: the one completion function in the run spec (``spec.completion_fns``);
* Every Eval Ever: the records' ``model_id``; AlpacaEval: the records' ``generator_2``.

Generic tables (CSV, JSON Lines, JSON, Parquet) name no model: the caller gives it, or a
model column. A name is never guessed from other parts of a path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalsig.data.readers.archive import Archive
from evalsig.data.readers.base import ReadOptions, open_text
from evalsig.data.readers.helm import _runs, run_spec, task_name
from evalsig.data.readers.lm_eval import SAMPLES
from evalsig.data.readers.tabular import binary, loads, read_json
from evalsig.errors import DataError, examples

__all__ = ["ModelName", "Naming", "harness_model"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelName:
    """A model name and where it was found (for the ingest report)."""

    name: str
    origin: str
    """E.g. "eval.model in the log header"."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Naming:
    """The model of each task of one input: one for all tasks, or one per task (HELM)."""

    default: ModelName | None = None
    by_task: Mapping[str, ModelName] = field(default_factory=dict)
    hint: str = ""
    """Why no name was found, when none was (for the error message)."""

    def of(self, task: str) -> ModelName | None:
        """The model of ``task``, or None when the metadata does not name it."""
        return self.by_task.get(task, self.default)


def harness_model(path: Path, format: str, options: ReadOptions) -> Naming:
    """The model named by the metadata of ``path``, read as the reader ``format`` reads it.

    Parameters
    ----------
    path : Path
        A result file or directory, as given to the reader.
    format : str
        The name of the reader that read it ('lm-eval', 'inspect', 'helm', ...).
    options : ReadOptions
        The read options (``where`` may choose the model of a multi-model file).

    Returns
    -------
    Naming
        Empty (with a hint) for formats that name no model.

    Examples
    --------
    >>> harness_model(Path("scores.csv"), "csv", ReadOptions()).of("task") is None
    True
    """
    if format == "lm-eval":
        return _lm_eval(path, options)
    if format == "inspect":
        return _inspect(path, options)
    if format == "helm":
        return _helm(path, options)
    if format == "openai-evals":
        return _openai_evals(path, options)
    if format == "every-eval-ever":
        return _records_field(path, options, "model_id", jsonl=True)
    if format == "alpaca-eval":
        return _records_field(path, options, "generator_2", jsonl=False)
    return Naming(hint=f"{format} files do not name the model they scored")


# --- lm-evaluation-harness ----------------------------------------------------------------

_MODEL_ARG = re.compile(r"(?:^|,)\s*(?:pretrained|model)\s*=\s*([^,]+)")


def _lm_eval(path: Path, options: ReadOptions) -> Naming:
    directory = path if path.is_dir() else path.parent
    results = sorted(directory.glob("results_*.json"))
    if not results:
        return Naming(
            hint="lm-evaluation-harness samples name no model, and there is no "
            f"results_*.json beside them in {directory}"
        )
    if not path.is_dir():
        match = SAMPLES.match(path.name.removesuffix(".gz"))
        date = match.group("date") if match else None
        same_run = [r for r in results if date is not None and r.stem == f"results_{date}"]
        results = same_run or results
    found = [(result, _lm_eval_name(result, options)) for result in results]
    named = [(result, name) for result, name in found if name is not None]
    if not named:
        return Naming(hint=f"{results[-1].name} has no 'model_name' or 'config.model_args'")
    names = {name.name for _, name in named}
    if len(names) > 1:
        raise DataError(
            f"{directory}: the results files name different models "
            f"({examples(sorted(names))}); pass one run's samples files, or give the model "
            "with --model (model=)."
        )
    return Naming(default=named[-1][1])


def _lm_eval_name(result: Path, options: ReadOptions) -> ModelName | None:
    summary = read_json(result, options)
    if not isinstance(summary, Mapping):
        return None
    name = summary.get("model_name")
    if isinstance(name, str) and name:
        return ModelName(name=name, origin=f"'model_name' in {result.name}")
    config = summary.get("config")
    args = config.get("model_args") if isinstance(config, Mapping) else None
    if isinstance(args, Mapping):
        for key in ("pretrained", "model"):
            value = args.get(key)
            if isinstance(value, str) and value:
                return ModelName(name=value, origin=f"config.model_args.{key} in {result.name}")
        return None
    if isinstance(args, str):
        match = _MODEL_ARG.search(args)
        if match:
            return ModelName(
                name=match.group(1).strip(), origin=f"config.model_args in {result.name}"
            )
    return None


# --- Inspect AI ---------------------------------------------------------------------------


def _inspect(path: Path, options: ReadOptions) -> Naming:
    if path.suffix == ".eval":
        with Archive.open(path) as archive:
            members = archive.members
            name = "header.json" if "header.json" in members else "_journal/start.json"
            if name not in members:
                return Naming(hint="the log has no header")
            header = loads(archive.read(members[name], options.max_decompressed_bytes))
    else:
        header = read_json(path, options)
    spec = header.get("eval") if isinstance(header, Mapping) else None
    model = spec.get("model") if isinstance(spec, Mapping) else None
    if not isinstance(model, str) or not model:
        return Naming(hint="the log header has no 'eval.model'")
    return Naming(default=ModelName(name=model, origin="eval.model in the log header"))


# --- HELM ---------------------------------------------------------------------------------


def _helm(path: Path, options: ReadOptions) -> Naming:
    by_task: dict[str, ModelName] = {}
    for stats in _runs(path):
        spec = run_spec(stats, options)
        model: ModelName | None = None
        if spec.model is not None:
            model = ModelName(
                name=spec.model, origin=f"adapter_spec.model in {stats.parent.name}/run_spec.json"
            )
        else:
            entry = _run_name_model(spec.name)
            if entry is not None:
                model = ModelName(
                    name=entry, origin=f"the 'model=' entry of the HELM run name {spec.name!r}"
                )
        if model is not None:
            by_task[task_name(spec.name)] = model
    return Naming(by_task=by_task, hint="the HELM run spec names no model")


def _run_name_model(run_name: str) -> str | None:
    """The value of the ``model=`` entry of a HELM run name, if it has one."""
    _, sep, args = run_name.partition(":")
    if not sep:
        _, sep, args = run_name.partition("-")
    for entry in args.split(","):
        key, eq, value = entry.partition("=")
        if eq and key == "model" and value:
            return value
    return None


# --- OpenAI evals, Every Eval Ever, AlpacaEval ---------------------------------------------


def _openai_evals(path: Path, options: ReadOptions) -> Naming:
    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as text:
        for raw in binary(text):
            if not raw.strip():
                continue
            try:
                record = loads(raw)
            except ValueError:
                break
            spec = record.get("spec") if isinstance(record, Mapping) else None
            functions = spec.get("completion_fns") if isinstance(spec, Mapping) else None
            if isinstance(functions, list) and len(functions) == 1 and functions[0]:
                return Naming(
                    default=ModelName(
                        name=str(functions[0]), origin="spec.completion_fns of the run spec"
                    )
                )
            if isinstance(functions, list) and len(functions) > 1:
                return Naming(
                    hint=f"the run spec names {len(functions)} completion functions "
                    f"({examples(functions)})"
                )
            break
    return Naming(hint="the log has no run spec naming its completion function")


def _records_field(path: Path, options: ReadOptions, column: str, *, jsonl: bool) -> Naming:
    chosen = dict(options.where).get(column)
    if chosen is not None:
        return Naming(default=ModelName(name=chosen, origin=f"--where {column}={chosen}"))
    value: object = None
    if jsonl:
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as text:
            for raw in binary(text):
                if raw.strip():
                    record = _loads_or_none(raw)
                    if isinstance(record, Mapping) and record.get(column):
                        value = record[column]
                        break
    else:
        document = read_json(path, options)
        if isinstance(document, list):
            value = next(
                (r[column] for r in document if isinstance(r, Mapping) and r.get(column)), None
            )
    if value is None:
        return Naming(hint=f"its records have no {column!r}")
    return Naming(default=ModelName(name=str(value), origin=f"{column!r} of its records"))


def _loads_or_none(raw: bytes) -> Any:
    try:
        return loads(raw)
    except ValueError:
        return None
