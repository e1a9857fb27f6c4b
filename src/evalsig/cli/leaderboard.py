"""``evalsig leaderboard``: rank many models with honest ties, from files, folders or a store."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evalsig.cli.app import OutputFormat, app, data_errors
from evalsig.cli.options import (
    DEFAULT_LOCK_TIMEOUT,
    ClusterColumn,
    Format,
    IdColumn,
    KeyColumn,
    LockTimeout,
    MismatchPolicy,
    MissingPolicy,
    OnMismatch,
    OnMissing,
    Output,
    ScoreColumn,
)
from evalsig.cli.output import emit
from evalsig.errors import DataError

if TYPE_CHECKING:
    from evalsig.data.models import ModelScores

__all__ = ["leaderboard_command"]


class Correction(str, Enum):
    holm = "holm"
    bh = "bh"


@app.command("leaderboard")
def leaderboard_command(
    source: Annotated[
        str | None,
        typer.Argument(
            help="A long table with a model column, or a folder with one entry per model."
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
    model_column: Annotated[str, typer.Option("--model", help="Model column.")] = "model",
    id_column: IdColumn = None,
    score_column: ScoreColumn = None,
    cluster_column: ClusterColumn = None,
    key_column: KeyColumn = None,
    metric: Annotated[str | None, typer.Option(help="Metric, for harness logs.")] = None,
    on_missing: MissingPolicy = OnMissing.error,
    on_mismatch: MismatchPolicy = OnMismatch.error,
    correction: Annotated[
        Correction, typer.Option(help="Over all pairs: holm (FWER) or bh (FDR).")
    ] = Correction.holm,
    alpha: Annotated[float, typer.Option(help="Level of the pairwise tests.")] = 0.05,
    bootstrap: Annotated[
        int, typer.Option(min=0, help="Bootstrap resamples for percentile rank intervals.")
    ] = 0,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Bootstrap seed (default: drawn, and shown in the result)."),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Run on a local Dask cluster of N processes.")
    ] = None,
    output_format: Format = OutputFormat.text,
    output: Output = None,
    lock_timeout: LockTimeout = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Rank models with every pairwise paired test, tie groups and rank intervals."""
    from evalsig.distributed import executor_for
    from evalsig.leaderboard import leaderboard, leaderboard_tasks
    from evalsig.report import leaderboard as views

    with data_errors(), executor_for(scheduler, workers) as executor:
        tasks = _read(
            source,
            store,
            task or [],
            task_column=task_column,
            model_column=model_column,
            id_column=id_column,
            score_column=score_column,
            cluster_column=cluster_column,
            key_column=key_column,
            metric=metric,
            policy={"on_missing": on_missing.value, "on_mismatch": on_mismatch.value},
            lock_timeout=lock_timeout,
        )
        common: dict[str, Any] = {
            "correction": correction.value,
            "alpha": alpha,
            "on_missing": on_missing.value,
            "on_mismatch": on_mismatch.value,
            "executor": executor,
        }
        if len(tasks) == 1:
            ((name, scores),) = tasks.items()
            result: Any = leaderboard(
                scores, task=name or None, n_resamples=bootstrap, rng=seed, **common
            )
            text, markdown = views.as_text, views.as_markdown
        else:
            if bootstrap:
                raise DataError("--bootstrap applies to one task; drop it or give one --task.")
            result = leaderboard_tasks(tasks, **common)
            text, markdown = views.tasks_text, views.tasks_markdown
    emit(result.to_dict(), output_format, output, text=text, markdown=markdown, title="Leaderboard")


def _read(
    source: str | None,
    store: Path | None,
    tasks: list[str],
    *,
    task_column: str | None,
    model_column: str,
    id_column: str | None,
    score_column: str | None,
    cluster_column: str | None,
    key_column: str | None = None,
    metric: str | None,
    policy: dict[str, Any],
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> dict[str, ModelScores]:
    """{task: ModelScores} from a store, a folder of per-model results or a long table.

    ``policy`` holds ``on_missing`` and ``on_mismatch``, applied to each task's models.
    """
    from evalsig.data.models import load_models

    if (source is None) == (store is None):
        raise DataError("give either a SOURCE (file or folder) or --store, not both or neither.")
    if store is not None:
        return _from_store(store, tasks, metric, lock_timeout, policy)
    assert source is not None
    path = Path(source)
    if path.is_dir():
        return _from_folder(
            path, tasks, id_column, score_column, cluster_column, metric, key_column, policy
        )
    columns: dict[str, Any] = {
        "model_column": model_column,
        "id_column": id_column,
        "score_column": score_column,
        "cluster_column": cluster_column,
        "key_column": key_column,
    }
    if task_column is None:
        if tasks:
            raise DataError("--task needs --task-column to pick rows of a long table.")
        return {"": load_models(source, **columns, **policy)}
    if not tasks:
        raise DataError(f"with --task-column {task_column!r}, name the task(s) with --task.")
    return {t: _long_task(source, task_column, t, columns, policy) for t in tasks}


def _long_task(
    source: str, task_column: str, task: str, columns: dict[str, Any], policy: dict[str, Any]
) -> ModelScores:
    from evalsig.data import load_tasks
    from evalsig.data.models import model_scores

    tables = load_tasks(
        source,
        task_column=columns["model_column"],
        id_column=columns["id_column"],
        score_column=columns["score_column"],
        cluster_column=columns["cluster_column"],
        key_column=columns["key_column"],
        where={task_column: task},
    )
    return model_scores(tables, **policy)


def _from_folder(
    folder: Path,
    tasks: list[str],
    id_column: str | None,
    score_column: str | None,
    cluster_column: str | None,
    metric: str | None,
    key_column: str | None,
    policy: dict[str, Any],
) -> dict[str, ModelScores]:
    """One entry (file or folder) per model, named after it; tasks come from the readers."""
    from evalsig.data import load_tasks
    from evalsig.data.models import model_scores

    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    if len(entries) < 2:
        raise DataError(
            f"{folder}: {len(entries)} entries; a leaderboard folder holds one file or "
            "folder of results per model (at least 2)."
        )
    per_model = {
        entry.stem if entry.is_file() else entry.name: load_tasks(
            str(entry),
            id_column=id_column,
            score_column=score_column,
            cluster_column=cluster_column,
            key_column=key_column,
            metric=metric,
        )
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
    store: Path, tasks: list[str], metric: str | None, lock_timeout: float, policy: dict[str, Any]
) -> dict[str, ModelScores]:
    from evalsig.store import ResultsStore

    with ResultsStore(store, read_only=True, lock_timeout=lock_timeout) as db:
        chosen = tasks or list(db.tasks())
        return {t: db.model_scores(t, metric=metric, **policy) for t in chosen}
