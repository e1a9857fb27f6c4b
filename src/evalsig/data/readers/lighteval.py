"""lighteval details: one Parquet file per task and run, one row per document.

lighteval writes ``<output_dir>/details/<model>/<date>/details_<task>_<date>.parquet`` beside
``results/<model>/results_<date>.json`` (aggregates only). The details' columns changed:

================  ==========================================================================
lighteval         columns of a details file
================  ==========================================================================
v0.4 - v0.7       flat (``example``, ``full_prompt``, ``predictions``, ``gold``, ``metrics``
                  ...), every value stored as the text of its Python value
v0.8 - v0.10      the same columns with native types (``metrics`` a struct of numbers)
v0.11 and later   three structs: ``doc`` (``query``, ``choices``, ``gold_index``, ``id`` ...),
                  ``metric`` (the per-document scores) and ``model_response``
================  ==========================================================================

Read here: task = the ``<task>`` of the file name; metric = a field of ``metric`` /
``metrics`` (chosen with ``metric=`` when there are several); item = ``doc.id`` when the
file has one, else the row's position. Positions are not stable across lighteval versions,
so every item carries a content key, a hash of its query text (``doc.query``, or
``full_prompt`` / ``example`` in older files): two files whose position k holds different
queries stop with a mismatch (see ``on_mismatch``) instead of being paired wrongly.

Model: the details hold no model name, but lighteval files them under it: a details file at
``details/<model>/<date>/`` belongs to the run whose ``results/<model>/results_<date>.json``
names the model in ``config_general.model_name``; without that file (details copied alone),
the ``<model>`` folders, which lighteval names after ``model_name`` (``org/name`` as two
folders). A details file outside that layout names no model.

Reference: huggingface/lighteval at v0.5.0, v0.8.0 and v0.13.0,
``src/lighteval/logging/evaluation_tracker.py`` (``save``, ``save_results``,
``_get_details_sub_folder``) and ``src/lighteval/logging/info_loggers.py``
(``DetailsLogger.Detail``, ``GeneralConfigLogger.model_name``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from evalsig.data.readers.base import ReadOptions, read_bytes
from evalsig.data.readers.collect import Collector, Unusable
from evalsig.data.readers.streams import check_file
from evalsig.data.readers.tabular import loads
from evalsig.errors import DataError, FormatError

__all__ = ["LIGHTEVAL", "LIGHTEVAL_RESULTS", "model_of"]

DETAILS = re.compile(r"^details_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-:]+)\.parquet$")
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)"
_PAIR = re.compile(rf"""['"]([^'"]+)['"]\s*:\s*(?:np\.float64\()?({_NUMBER}|True|False)\)?""")


def task_of(path: Path) -> str | None:
    """The task in ``details_<task>_<date>.parquet``, else None."""
    match = DETAILS.match(path.name)
    return match.group("task") if match else None


def model_of(path: Path, options: ReadOptions, out: Collector) -> str | None:
    """The model of ``details/<model>/<date>/details_<task>_<date>.parquet``: the
    ``config_general.model_name`` of ``results/<model>/results_<date>.json``, else the
    ``<model>`` folders; None outside that layout."""
    match = DETAILS.match(path.name)
    parts = path.parts
    if match is None or len(parts) < 4 or parts[-2] != match.group("date"):
        return None
    tops = [i for i, part in enumerate(parts[:-3]) if part == "details"]
    if not tops:
        return None
    folders = parts[tops[-1] + 1 : -2]
    results = Path(*parts[: tops[-1]], "results", *folders, f"results_{match.group('date')}.json")
    if results.is_file():
        try:
            document = loads(
                read_bytes(results, max_decompressed_bytes=options.max_decompressed_bytes)
            )
        except (OSError, ValueError, DataError) as exc:
            out.notes.append(
                f"{results}: not read for the model's name ({exc}); named by its folder instead."
            )
        else:
            config = document.get("config_general") if isinstance(document, Mapping) else None
            name = config.get("model_name") if isinstance(config, Mapping) else None
            if isinstance(name, str) and name.strip():
                return name.strip()
    return "/".join(folders) or None


def _metrics_from_text(text: str) -> dict[str, float] | None:
    """The metric dict of a v0.4 - v0.7 file, stored as the text of a Python dict.

    Parsed with a pattern for ``'name': number`` pairs: never evaluated as code.
    """
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    pairs = _PAIR.findall(body)
    if body != "{}" and not pairs:
        return None
    values: dict[str, float] = {}
    for name, raw in pairs:
        values[name] = 1.0 if raw == "True" else 0.0 if raw == "False" else float(raw)
    return values


def _value(value: object) -> object:
    """A document's metric value as the collection takes it: a number as a float (NaN
    too: the collection names it, or leaves it out with skip_bad_lines, whichever metric
    is chosen), null as null, anything else marked unusable with the reason."""
    if isinstance(value, (bool, int, float)):
        try:
            return float(value)
        except OverflowError:
            return Unusable(f"is {value}, too large for a number")
    if value is None:
        return None
    return Unusable(f"is {_show(value)}, not a number")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _query_hash(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _details_in(directory: Path) -> list[Path]:
    """Details files in a folder and below it (``details/<model>/<date>/``), in name order;
    several dates of one task become runs of its items."""
    return sorted(p for p in directory.rglob("details_*.parquet") if p.is_file() and task_of(p))


class _LightevalReader:
    name = "lighteval"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return bool(_details_in(path))
        return path.is_file() and task_of(path) is not None and head[:4] == b"PAR1"

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if not path.is_dir():
            self._read_file(path, options, out)
            return
        for number, file in enumerate(_details_in(path)):
            out.folder_file(number, str(file), self.name)
            self._read_file(file, options, out)

    def _read_file(self, path: Path, options: ReadOptions, out: Collector) -> None:
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise DataError(
                f"{path}: reading lighteval details needs pyarrow; install it with "
                "pip install 'evalsig-stats[pandas]'."
            ) from None
        check_file(path)
        task = task_of(path) or path.stem
        try:
            with pq.ParquetFile(path) as parquet:
                names = set(parquet.schema_arrow.names)
                new = {"doc", "metric"} <= names
                if not new and "metrics" not in names:
                    raise FormatError(
                        f"{path}: a details file without 'metric' (v0.11+) or 'metrics' "
                        f"columns; columns: {', '.join(sorted(names))}."
                    )
                wanted = (
                    ["doc", "metric"]
                    if new
                    else [c for c in ("metrics", "full_prompt", "example") if c in names]
                )
                table = parquet.read(columns=wanted).to_pylist()
        except FormatError:
            raise
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise FormatError(f"{path}: not a readable Parquet file ({exc}).") from None
        out.names.update({"id": "doc.id" if new else "row"})
        out.offer(keys=["doc.query" if new else "full_prompt"])
        out.model(model_of(path, options, out))
        textual = False
        for number, row in enumerate(table, start=1):
            position = f"row {number}"
            if new:
                doc = row.get("doc") or {}
                metrics = row.get("metric")
                item = doc.get("id") or str(number - 1)
                key = _query_hash(doc.get("query"))
            else:
                metrics = row.get("metrics")
                if isinstance(metrics, str):
                    textual = True
                    metrics = _metrics_from_text(metrics)
                item = str(number - 1)
                key = _query_hash(row.get("full_prompt") or row.get("example"))
            if not isinstance(metrics, Mapping) or not metrics:
                out.bad(position, "has no per-document metric values.")
                continue
            for metric, value in metrics.items():
                out.add(task, item, _value(value), position=position, metric=metric, key=key)
        if new:
            out.version("v0.11 or later (doc / metric / model_response structs)")
        elif textual:
            out.version("v0.4-v0.7 (values stored as text)")
        else:
            out.version("v0.8-v0.10 (flat columns)")
        if not new:
            out.notes.append(
                f"{path.name}: items are positions in the file (this lighteval version "
                "stores no document id), checked by a hash of each prompt: a file of "
                "another version or order stops with a mismatch rather than pairing wrongly."
            )


class _LightevalResultsReader:
    """lighteval's ``results_<date>.json``: named correctly, and refused with the fix."""

    name = "lighteval-results"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix == ".json" and b'"config_general"' in head and b'"results"' in head

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        raise FormatError(
            f"{path}: a lighteval results file holds aggregate scores only; paired tests need "
            "the per-document details: pass details/<model>/<date>/details_<task>_<date>"
            ".parquet (written by lighteval with --save-details)."
        )


LIGHTEVAL = _LightevalReader()
LIGHTEVAL_RESULTS = _LightevalResultsReader()
