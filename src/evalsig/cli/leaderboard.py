"""``evalsig leaderboard``: rank many models with honest ties, from files, folders or a store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.options import (
    DEFAULT_LOCK_TIMEOUT,
    TABLE_OPTIONS,
    Destination,
    LockTimeout,
    ModelColumn,
    Pairing,
    PairingKeywords,
    ReadFiles,
    Scheduler,
    Workers,
    pairs_items,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths
from evalsig.errors import DataError

if TYPE_CHECKING:
    from evalsig.data.models import ModelScores

__all__ = ["leaderboard_command", "read_models"]


LOAD_MODELS_OPTIONS = frozenset(
    {"id_column", "score_column", "run_column", "cluster_column", "key_column", "format"}
)
"""Input options :func:`evalsig.data.models.load_models` takes; others read by task."""


Correction = Literal["holm", "bh"]


@command("leaderboard", example="evalsig leaderboard long.csv --id question_id --score correct")
@reads_files(*TABLE_OPTIONS, omit=["task", "task_column"])
@pairs_items
@writes_output
def leaderboard_command(
    source: Annotated[
        str | None,
        typer.Argument(
            help="A long table with a model column, or a folder with one entry per model "
            "(-: standard input)."
        ),
    ] = None,
    store: Annotated[
        Path | None, typer.Option(help="Read from a results store made by evalsig ingest.")
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option(help="Task to rank (repeat for an aggregate).")
    ] = None,
    task_column: Annotated[
        str | None, typer.Option(help="Column naming each row's task (long tables).")
    ] = None,
    model_column: ModelColumn = "model",
    *,
    read: ReadFiles,
    pairing: Pairing,
    correction: Annotated[
        Correction, typer.Option(help="Over all pairs: holm (FWER) or bh (FDR).")
    ] = "holm",
    alpha: Annotated[float, typer.Option(help="Level of the pairwise tests.")] = 0.05,
    resamples: Annotated[
        int, typer.Option(min=0, help="Bootstrap resamples for percentile rank intervals.")
    ] = 0,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Bootstrap seed (default: drawn, and shown in the result)."),
    ] = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
    strata: Annotated[
        str | None,
        typer.Option(
            "--strata",
            help="Stratum column: fixed groups that make up the population (subjects, "
            "categories); stratified tests and intervals. Not with --cluster.",
        ),
    ] = None,
    destination: Destination,
    lock_timeout: LockTimeout = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Rank models with every pairwise paired test, tie groups and rank intervals."""
    from evalsig.distributed import executor_for
    from evalsig.leaderboard import leaderboard, leaderboard_tasks

    if strata is not None and read.cluster_column is not None:
        raise typer.BadParameter(
            "give --cluster or --strata, not both: strata are fixed groups that make up the "
            "population (subjects), clusters groups sampled from a larger set (passages)."
        )
    keywords = read.keywords() | ({"cluster_column": strata} if strata else {})
    with (
        data_errors(),
        stdin_paths([] if source is None else [source], read.input_format) as paths,
        executor_for(scheduler, workers) as executor,
    ):
        tasks = _read(
            paths[0] if paths else None,
            store,
            task or [],
            task_column=task_column,
            model_column=model_column,
            read=keywords,
            policy=pairing.keywords(),
            lock_timeout=lock_timeout,
        )
        common: dict[str, Any] = {
            "correction": correction,
            "alpha": alpha,
            **pairing.keywords(),
            "executor": executor,
        }
        if len(tasks) == 1:
            ((name, scores),) = tasks.items()
            result: Any = leaderboard(
                scores,
                task=name or None,
                n_resamples=resamples,
                rng=seed,
                strata=True if strata else None,
                **common,
            )
        else:
            if resamples:
                raise DataError("--resamples applies to one task; drop it or give one --task.")
            if strata:
                raise DataError("--strata applies to one task; drop it or give one --task.")
            result = leaderboard_tasks(tasks, **common)
        document = as_given(result.to_dict())  # standard input named "-", not its file
    destination.emit(document, title="Leaderboard")


def _read(
    source: str | None,
    store: Path | None,
    tasks: list[str],
    *,
    task_column: str | None,
    model_column: str,
    read: dict[str, Any],
    policy: PairingKeywords,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> dict[str, ModelScores]:
    """{task: ModelScores} from a store, a folder of per-model results or a long table.

    ``read`` holds the input options (:meth:`evalsig.cli.options.ReadFiles.keywords`); ``policy``
    holds ``on_missing`` and ``on_mismatch``, applied to each task's models.
    """
    from evalsig.data.models import load_models

    if (source is None) == (store is None):
        raise DataError("give either a SOURCE (file or folder) or --store, not both or neither.")
    if store is not None:
        if set(read) - {"metric"}:
            raise DataError(
                "--store holds scores already read; the input options other than --metric "
                "apply to files: drop them, or read the files with SOURCE."
            )
        return _from_store(store, tasks, read.get("metric"), lock_timeout, policy)
    assert source is not None
    path = Path(source)
    if path.is_dir():
        return _from_folder(path, tasks, read, policy)
    if task_column is None:
        if tasks:
            raise DataError("--task needs --task-column to pick rows of a long table.")
        if set(read) <= LOAD_MODELS_OPTIONS:
            return {"": load_models(source, model_column=model_column, **read, **policy)}
        return {"": _long_task(source, model_column, read, policy)}
    if not tasks:
        raise DataError(f"with --task-column {task_column!r}, name the task(s) with --task.")
    return {
        t: _long_task(source, model_column, _with_where(read, {task_column: t}), policy)
        for t in tasks
    }


def read_models(
    paths: list[str],
    *,
    task: str | None,
    task_column: str | None,
    model_column: str,
    read: dict[str, Any],
    policy: PairingKeywords,
) -> ModelScores:
    """One task's models: by :func:`evalsig.data.models.load_models` when its options
    suffice, else from one long table or folder as :func:`_read` reads them."""
    from evalsig.data.models import load_models

    if set(read) <= LOAD_MODELS_OPTIONS and not (task or task_column):
        source = paths if len(paths) > 1 else paths[0]
        return load_models(source, model_column=model_column, **read, **policy)
    if len(paths) == 1:
        tasks = _read(
            paths[0],
            None,
            [task] if task else [],
            task_column=task_column,
            model_column=model_column,
            read=read,
            policy=policy,
        )
        if len(tasks) > 1:
            raise DataError(
                f"{paths[0]}: tasks {', '.join(map(repr, tasks))}; choose one with --task."
            )
        return next(iter(tasks.values()))
    raise DataError(
        "several files are read as they are; give one long table or folder to use "
        "--where, --task, --task-column, --metric, --filter or --separator."
    )


def _with_where(read: dict[str, Any], where: dict[str, str]) -> dict[str, Any]:
    """The input options with more ``where`` conditions."""
    return {**read, "where": {**read.get("where", {}), **where}}


def _long_task(
    source: str, model_column: str, read: dict[str, Any], policy: PairingKeywords
) -> ModelScores:
    """The models of a long table's rows that pass ``read``'s where conditions."""
    from evalsig.data import load_tasks
    from evalsig.data.models import model_scores

    tables = load_tasks(source, **{**read, "task_column": model_column})
    return model_scores(tables, **policy)


def _from_folder(
    folder: Path,
    tasks: list[str],
    read: dict[str, Any],
    policy: PairingKeywords,
) -> dict[str, ModelScores]:
    """One entry (file or folder) per model, named after it; tasks come from the readers.
    A folder of logs that name their models (an Inspect eval set) is read by those names."""
    from evalsig.data import load_tasks
    from evalsig.data.models import harness_models, model_scores

    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    per_model = harness_models(str(folder), **read)
    if per_model is None and len(entries) < 2:
        raise DataError(
            f"{folder}: {len(entries)} entries; a leaderboard folder holds one file or "
            "folder of results per model (at least 2)."
        )
    if per_model is None:
        per_model = {
            entry.stem if entry.is_file() else entry.name: load_tasks(str(entry), **read)
            for entry in entries
        }
    shared = set.intersection(*(set(t) for t in per_model.values()))
    chosen = tasks or sorted(shared)
    if not chosen:
        raise DataError(f"{folder}: no task is present for every model; check the folders.")
    for name in chosen:
        if name not in shared:
            lacking = [m for m, t in per_model.items() if name not in t]
            raise DataError(f"task {name!r} is missing for models {', '.join(lacking[:3])}.")
    return {
        name: model_scores({m: t[name] for m, t in per_model.items()}, **policy) for name in chosen
    }


def _from_store(
    store: Path, tasks: list[str], metric: str | None, lock_timeout: float, policy: PairingKeywords
) -> dict[str, ModelScores]:
    from evalsig.store import ResultsStore

    with ResultsStore(store, read_only=True, lock_timeout=lock_timeout) as db:
        chosen = tasks or list(db.tasks())
        return {t: db.model_scores(t, metric=metric, **policy) for t in chosen}
