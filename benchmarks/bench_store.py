"""The results store on MMLU-Pro (29 models x 12,032 questions), beside re-reading the CSV.

Measured side by side in one run: ingesting the long table into a fresh DuckDB store,
re-ingesting it (skipped: its content hash is already stored), and reading the task back
as a models x items matrix from the store versus reading the CSV again.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _util import best_time, row
from evalsig.data.models import load_models

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TABLE = DATA / "mmlu_pro" / "mmlu_pro_long.csv.gz"
COLUMNS = {"id_column": "question_id", "score_column": "correct", "cluster_column": "category"}
POLICY = {"on_missing": "intersect", "on_mismatch": "exclude"}
"""Three models lack questions and 32 carry a revised gold answer: keep what all share."""


def main() -> dict[str, float]:
    if not TABLE.is_file():
        print(f"results store: skipped, the MMLU-Pro long table is not at {TABLE}")
        return {}
    try:
        import duckdb  # noqa: F401
    except ImportError:
        print(
            "results store: skipped, duckdb is not installed (pip install 'evalsig-stats[store]')"
        )
        return {}
    from evalsig.store import ResultsStore

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        counter = iter(range(100))

        def ingest() -> int:
            with ResultsStore(folder / f"fresh{next(counter)}.duckdb") as store:
                report = store.ingest(
                    TABLE, model_column="model", task="mmlu_pro", key_column="answer", **COLUMNS
                )
            return report.n_rows

        seconds, n_rows = best_time(ingest, 3)
        print(f"results store: MMLU-Pro long table, {n_rows:,} scores of 29 models")
        print(row("ingest into a fresh store", seconds, f"{n_rows / seconds:,.0f} scores/s"))
        out["ingest_seconds"] = seconds
        path = folder / "fresh0.duckdb"
        with ResultsStore(path) as store:
            skip, _ = best_time(
                lambda: store.ingest(TABLE, model_column="model", task="mmlu_pro", **COLUMNS), 3
            )
        print(row("re-ingest (skipped: same content hash)", skip))
        with ResultsStore(path, read_only=True) as store:
            stored, scores = best_time(lambda: store.model_scores("mmlu_pro", **POLICY), 3)
        csv, _ = best_time(lambda: load_models(TABLE, model_column="model", **COLUMNS, **POLICY), 3)
        print(row("store.model_scores('mmlu_pro')", stored, f"{scores.scores.shape}"))
        print(row("load_models(csv) (re-reading the file)", csv))
        print(f"  -> reading from the store is {csv / stored:.2f}x as fast as re-reading the CSV")
        out["read_ratio"] = csv / stored
    return out


if __name__ == "__main__":
    main()
