"""AlpacaEval ``annotations.json``: pairwise preferences of a judge against a baseline.

Each record compares the model's output (``output_2``, ``generator_2``) with the baseline's
(``output_1``, ``generator_1``) on one instruction; ``preference`` lies in [1, 2] (weighted
judges give fractions; it may be stored as a string). The model's win rate is the mean of
``preference - 1``, so that is the per-item score here: continuous, in [0, 1].

Read here: item = ``instruction``; cluster = a record field when asked (``dataset``: the
source collection); content key = judge, baseline model and a digest of the baseline's
output, so two files judged by different judges or against different baselines are
refused as a pair. A file with several evaluated models needs ``where={"generator_2": ...}``.

Reference: tatsu-lab/alpaca_eval, ``results/<model>/<annotator>/annotations.json``;
Dubois et al. (2024), Length-controlled AlpacaEval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, read_bytes
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import loads
from evalsig.errors import DataError, FormatError

__all__ = ["ALPACA_EVAL"]


class _AlpacaEvalReader:
    name = "alpaca-eval"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix == ".json" and b'"preference"' in head and b'"generator_2"' in head

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        data = read_bytes(path, max_decompressed_bytes=options.max_decompressed_bytes)
        try:
            records = loads(data)
        except ValueError as exc:
            raise FormatError(f"{path}: not valid JSON ({exc}).") from None
        if not isinstance(records, list) or not records:
            raise FormatError(f"{path}: expected a non-empty JSON list of annotations.")
        models = {str(r.get("generator_2")) for r in records if isinstance(r, Mapping)}
        wanted = dict(options.where)
        if len(models) > 1 and "generator_2" not in wanted:
            raise DataError(
                f"{path}: holds annotations of {len(models)} models "
                f"({', '.join(sorted(models)[:5])}); choose one with "
                "where={'generator_2': ...} (CLI: --where generator_2=NAME)."
            )
        out.names.update({"id": "instruction", "score": "preference - 1"})
        out.offer(clusters=["dataset"], keys=["annotator", "generator_1", "output_1"])
        out.notes.append(f"{path}: score = preference - 1 against the baseline output_1.")
        for number, record in enumerate(records, start=1):
            self._add(record, f"record {number}", options, wanted, out)

    def _add(
        self,
        record: Any,
        position: str,
        options: ReadOptions,
        wanted: Mapping[str, str],
        out: Collector,
    ) -> None:
        if not isinstance(record, Mapping):
            out.bad(position, "is not a JSON object.")
            return
        if any(str(record.get(k)) != v for k, v in wanted.items()):
            return
        preference = record.get("preference")
        try:
            value = float(preference) - 1.0  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            out.bad(position, f"'preference' is {preference!r}, not a number in [1, 2].")
            return
        if not 0.0 <= value <= 1.0:
            out.bad(position, f"'preference' is {preference!r}, outside [1, 2].")
            return
        instruction = record.get("instruction")
        if not isinstance(instruction, str) or not instruction:
            out.bad(position, "has no 'instruction' (the item id).")
            return
        baseline = hashlib.sha256(str(record.get("output_1", "")).encode()).hexdigest()[:16]
        key = f"{record.get('annotator')}|{record.get('generator_1')}|{baseline}"
        cluster = None
        if options.cluster_column is not None:
            try:
                cluster = nested(record, options.cluster_column)
            except KeyError:
                out.bad(position, f"has no field {options.cluster_column!r}.")
                return
        out.add("alpaca_eval", instruction, value, position=position, cluster=cluster, key=key)


ALPACA_EVAL = _AlpacaEvalReader()
