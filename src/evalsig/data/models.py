"""Many models on one benchmark: a models x items matrix of per-item mean scores.

Leaderboards and benchmark-level diagnostics compare every model with every other on the
items both answered. Items are aligned by id; an item a model lacks is missing (NaN) for
that model, never scored as wrong, and the matrix records how many each model lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalsig.data.build import factorize
from evalsig.data.load import load, load_tasks
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError, examples

__all__ = ["ModelScores", "load_models", "model_scores"]


@dataclass(frozen=True, slots=True, eq=False)
class ModelScores:
    """Per-item mean scores of several models on a shared set of items."""

    names: tuple[str, ...]
    item_ids: np.ndarray
    """``(N,)`` item ids (strings)."""
    scores: np.ndarray
    """``(M, N)`` per-item mean scores; NaN where a model lacks the item."""
    binary: bool
    """Every score is 0 or 1 (and every model has one run per item)."""
    n_runs: tuple[int, ...]
    """Largest number of runs per item, for each model."""
    cluster_codes: np.ndarray | None = None
    """``(N,)`` integer cluster of each item, or None."""
    cluster_labels: np.ndarray | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_models(self) -> int:
        return len(self.names)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def present(self) -> np.ndarray:
        """``(M, N)`` whether each model has each item."""
        mask: np.ndarray = ~np.isnan(self.scores)
        return mask

    @property
    def means(self) -> np.ndarray:
        """``(M,)`` each model's score over the items it has."""
        means: np.ndarray = np.nanmean(self.scores, axis=1)
        return means


def model_scores(tables: Mapping[str, ScoreTable], /) -> ModelScores:
    """Stack per-model tables into one matrix aligned by item id (see :class:`ModelScores`)."""
    if len(tables) < 2:
        raise DataError(
            f"a benchmark view needs at least 2 models; got {len(tables)} "
            f"({examples(tables)}). Check the model column."
        )
    names = tuple(str(k) for k in tables)
    for name, table in tables.items():
        if table.item_ids is None:
            raise DataError(
                f"model {name!r} has no item ids; several models are aligned by item id, so "
                "give every model an id column."
            )
    all_ids = np.concatenate([t.item_ids for t in tables.values()])
    codes, ids = factorize(all_ids)
    scores = np.full((len(names), len(ids)), np.nan)
    clusters = np.full(len(ids), None, dtype=object)
    start = 0
    by_note: dict[str, list[str]] = {}
    for row, (name, table) in enumerate(tables.items()):
        where = codes[start : start + table.n_items]
        start += table.n_items
        scores[row, where] = table.means
        if table.clusters is not None:
            known = clusters[where]
            clash = np.array(
                [k is not None and k != c for k, c in zip(known, table.clusters, strict=True)]
            )
            if clash.any():
                bad = where[np.flatnonzero(clash)]
                raise DataError(
                    f"model {name!r} puts items {examples(ids[bad])} in other clusters than "
                    "an earlier model does; cluster labels must describe the items."
                )
            clusters[where] = table.clusters
        for note in table.notes:
            by_note.setdefault(note, []).append(name)
    notes = [
        note if len(who) == len(names) else f"{', '.join(who)}: {note}"
        for note, who in by_note.items()
    ]
    missing = np.isnan(scores).sum(axis=1)
    for name, lacks in zip(names, missing, strict=True):
        if lacks:
            notes.append(
                f"{name} lacks {int(lacks)} of {len(ids)} items; pairs with it use the "
                "items both models have"
            )
    cluster_codes = cluster_labels = None
    if any(t.clusters is not None for t in tables.values()):
        if any(c is None for c in clusters):
            raise DataError(
                "some items have no cluster label (some models' files lack the cluster "
                "column); give every model the cluster column or none."
            )
        cluster_codes, cluster_labels = factorize(clusters.astype(str))
    return ModelScores(
        names=names,
        item_ids=ids,
        scores=scores,
        binary=all(t.binary and t.n_runs == 1 for t in tables.values()),
        n_runs=tuple(t.n_runs for t in tables.values()),
        cluster_codes=cluster_codes,
        cluster_labels=cluster_labels,
        notes=tuple(notes),
    )


def load_models(
    data: Any,
    /,
    *,
    model_column: str = "model",
    id_column: str | None = None,
    score_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    format: str = "auto",
) -> ModelScores:
    """Read many models' per-item scores: a long table with a model column, or a mapping.

    Parameters
    ----------
    data : path, DataFrame or mapping
        A long-format file or DataFrame with one row per model and item (and run), or a
        mapping ``{model name: scores}`` with anything :func:`evalsig.load` accepts.
    model_column : str, default "model"
        The column naming the model of each row (long tables only).
    """
    if isinstance(data, Mapping):
        tables = {
            str(name): load(
                scores,
                name=str(name),
                id_column=id_column,
                score_column=score_column,
                run_column=run_column,
                cluster_column=cluster_column,
                format=format,
            )
            for name, scores in data.items()
        }
    else:
        tables = load_tasks(
            data,
            task_column=model_column,
            id_column=id_column,
            score_column=score_column,
            run_column=run_column,
            cluster_column=cluster_column,
            format=format,
        )
    return model_scores(tables)
