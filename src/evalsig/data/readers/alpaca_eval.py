"""AlpacaEval ``annotations.json``: pairwise preferences of a judge against a baseline.

Each record compares the model's output (``output_2``, ``generator_2``) with the baseline's
(``output_1``, ``generator_1``) on one instruction. AlpacaEval 2's weighted judges give a
``preference`` in [1, 2]; AlpacaEval 1 gives 1 (baseline wins) or 2 (model wins), and a
draw as 0 or 1.5 (it may be stored as a string). The win rate is the mean of
``preference - 1`` with a draw counted as half a win, as alpaca_eval's ``get_winrate``
does, so that is the per-item score here: in [0, 1].

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

from evalsig.data.readers.base import ReadOptions, first_record
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import read_json
from evalsig.errors import DataError, FormatError

__all__ = ["ALPACA_EVAL"]


class _AlpacaEvalReader:
    name = "alpaca-eval"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix != ".json":
            return False
        record = first_record(head)
        if record is None:  # a first record longer than the head
            return b'"preference"' in head and b'"generator_2"' in head
        return "preference" in record and "generator_2" in record

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        records = read_json(path, options)
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
        out.model(wanted.get("generator_2", next(iter(models)) if len(models) == 1 else None))
        out.names.update({"id": "instruction", "score": "preference - 1"})
        out.offer(clusters=["dataset"], keys=["annotator", "generator_1", "output_1"])
        out.notes.append(f"{path}: score = preference - 1 against the baseline output_1.")
        seen: list[float] = []
        texts: list[str] = []
        for number, record in enumerate(records, start=1):
            value = self._add(record, f"record {number}", options, wanted, out, texts)
            if value is not None:
                seen.append(value)
        discrete = all(v in DISCRETE for v in seen)
        out.version(
            "AlpacaEval 1 (preference 1 or 2; 0 or 1.5 a draw)"
            if discrete
            else "AlpacaEval 2 (weighted preferences in [1, 2])"
        )
        if texts:
            out.notes.append(
                f"{path}: 'preference' is text in {len(texts)} record(s) (e.g. {texts[0]}), "
                "read as the number it spells; AlpacaEval writes numbers."
            )
        draws = seen.count(0.0)
        if draws:
            out.notes.append(
                f"{path}: {draws} draw(s) coded as preference 0 (AlpacaEval 1) read as 1.5, "
                "half a win, as alpaca_eval's own win rate counts them."
            )

    def _add(
        self,
        record: Any,
        position: str,
        options: ReadOptions,
        wanted: Mapping[str, str],
        out: Collector,
        texts: list[str],
    ) -> float | None:
        """Add one annotation; return its preference (None when it was not added); the
        positions of preferences given as text go to ``texts`` (for a note)."""
        if not isinstance(record, Mapping):
            out.bad(position, "is not a JSON object.")
            return None
        if any(str(record.get(k)) != v for k, v in wanted.items()):
            return None
        preference = record.get("preference")
        try:
            if isinstance(preference, bool) or not isinstance(preference, (int, float, str)):
                raise TypeError  # null, true: never read as a number
            given = float(preference)
        except (TypeError, ValueError, OverflowError):
            out.bad(position, f"'preference' is {_show(preference)}, not a number in [1, 2].")
            return None
        if isinstance(preference, str):
            texts.append(position)
        if not (given == 0.0 or 1.0 <= given <= 2.0):
            out.bad(position, f"'preference' is {_show(preference)}, outside [1, 2] (0: a draw).")
            return None
        value = 0.5 if given == 0.0 else given - 1.0
        instruction = record.get("instruction")
        if not isinstance(instruction, str) or not instruction:
            out.bad(position, "has no 'instruction' (the item id).")
            return None
        baseline = hashlib.sha256(str(record.get("output_1", "")).encode()).hexdigest()[:16]
        key = f"{record.get('annotator')}|{record.get('generator_1')}|{baseline}"
        cluster = None
        if options.cluster_column is not None:
            try:
                cluster = nested(record, options.cluster_column)
            except KeyError:
                out.bad(position, f"has no field {options.cluster_column!r}.")
                return None
        out.add("alpaca_eval", instruction, value, position=position, cluster=cluster, key=key)
        return given


DISCRETE = frozenset({0.0, 1.0, 1.5, 2.0})
"""AlpacaEval 1's preferences: 1 the baseline wins, 2 the model wins, 0 or 1.5 a draw."""


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


ALPACA_EVAL = _AlpacaEvalReader()
