"""Export a stored task as score columns: one Parquet column per model, read lazily later.

:func:`evalsig.leaderboard.leaderboard_from_columns` ranks the exported models block of
model pairs by block, each block reading its own columns (on a Dask cluster or in this
process), so ranking thousands of models never holds the whole matrix.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.leaderboard.columns import MODELS_PER_FILE, ScoreColumns, write_score_columns
from evalsig.store.duckdb_store import ResultsStore

__all__ = ["export_score_columns"]


def export_score_columns(
    store: ResultsStore,
    task: str,
    directory: str | os.PathLike[str],
    /,
    *,
    metric: str | None = None,
    filter: str | None = None,
    models: Sequence[str] | None = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    models_per_file: int = MODELS_PER_FILE,
) -> ScoreColumns:
    """Write ``task``'s models x items matrix to ``directory`` as score columns.

    The matrix is :meth:`ResultsStore.model_scores` with the same arguments (so the
    columns rank exactly as the store's matrix does), written by
    :func:`evalsig.leaderboard.write_score_columns`. The export holds that one matrix in
    memory once; the leaderboard over the columns never does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, answers in (("a", "1,0,1"), ("b", "1,1,1")):
    ...     rows = [f"q{i},{v}" for i, v in enumerate(answers.split(","))]
    ...     _ = (folder / f"{name}.csv").write_text("id,correct\\n" + "\\n".join(rows) + "\\n")
    >>> with ResultsStore(folder / "results.duckdb") as store:
    ...     for name in ("a", "b"):
    ...         _ = store.ingest(folder / f"{name}.csv", model=name, task="quiz")
    ...     columns = export_score_columns(store, "quiz", folder / "quiz-columns")
    >>> columns.names, columns.n_items
    (('a', 'b'), 3)
    """
    scores = store.model_scores(
        task,
        metric=metric,
        filter=filter,
        models=models,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
    )
    return write_score_columns(scores, directory, models_per_file=models_per_file)
