"""Every Eval Ever instance-level JSONL (``instance_level_eval.schema.json``).

A shared format that converters produce from Inspect AI, HELM and lm-evaluation-harness
logs: one JSON object per evaluated sample with ``evaluation_name``, ``model_id``,
``sample_id``, ``sample_hash`` (a hash of input and references, to check that two models
saw the same sample), ``evaluation.score`` (a number) and ``evaluation.is_correct`` (a
boolean), and string ``metadata``.

Read here: task = ``evaluation_name``; item = ``sample_id``; metric ``score`` or
``is_correct`` (the schema has both; choose with ``metric=`` when they are both present);
content key = ``sample_hash``; clusters from a ``metadata`` field. A file holding several
models needs ``where={"model_id": ...}``.

Reference: evaleval/every_eval_ever, ``instance_level_eval.schema.json`` (versions 0.2 -
0.3.0; each record names its ``schema_version``, shown by ``evalsig inspect``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_record, open_text
from evalsig.data.readers.collect import Collector, Unusable
from evalsig.data.readers.tabular import binary, jsonl_records
from evalsig.errors import DataError

__all__ = ["EVERY_EVAL_EVER"]

REQUIRED = ("evaluation_id", "sample_id", "interaction_type")
"""Fields every instance record has (the schema requires them), telling the format apart."""


KNOWN_SCHEMAS = ("0.2", "0.3")
"""The instance schema versions evalsig knows (0.2 to 0.3.x: their fields are read alike);
others are read as the latest, with a note."""
LATEST = "0.3.0"


class _EveryEvalEverReader:
    name = "every-eval-ever"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if not any(s in (".jsonl", ".ndjson") for s in path.suffixes):
            return False
        record = first_record(head)
        if record is None:  # a first record longer than the head
            return all(f'"{name}"'.encode() in head for name in REQUIRED)
        return all(name in record for name in REQUIRED)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        wanted = dict(options.where)
        out.names.update({"id": "sample_id"})
        out.offer(keys=["sample_hash"])
        models: set[str] = set()
        versions: set[str] = set()
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            for position, record in jsonl_records(binary(f), out):
                if type(record) is not dict:
                    out.bad(position, "is not a JSON object.")
                    continue
                if any(str(record.get(k)) != v for k, v in wanted.items()):
                    continue
                model = record.get("model_id")
                if not isinstance(model, str) or not model.strip():
                    out.bad(position, f"'model_id' is {model!r}, not the name of a model.")
                    continue
                models.add(model)
                versions.add(str(record.get("schema_version", "")))
                self._add(record, position, options, out)
        named = sorted(v for v in versions if v)
        unknown = [v for v in named if not _known(v)]
        if unknown:
            out.unknown_version("instance schema", ", ".join(unknown), f"schema {LATEST}")
        else:
            out.version(
                f"instance schema {', '.join(named)}"
                if named
                else "(records name no schema_version)"
            )
        if len(models) > 1 and "model_id" not in wanted:
            raise DataError(
                f"{path}: holds samples of {len(models)} models "
                f"({', '.join(sorted(models)[:5])}); choose one with where={{'model_id': ...}} "
                "(CLI: --where model_id=NAME)."
            )
        out.model(next(iter(models)) if len(models) == 1 else None)

    def _add(
        self, record: dict[str, Any], position: int, options: ReadOptions, out: Collector
    ) -> None:
        evaluation = record.get("evaluation")
        item = record.get("sample_id")
        if not isinstance(evaluation, Mapping) or not isinstance(item, (str, int)):
            out.bad(position, "needs 'sample_id' and an 'evaluation' object.")
            return
        metadata = record.get("metadata")
        metadata = metadata if isinstance(metadata, Mapping) else {}
        out.offer(clusters=metadata.keys())
        cluster = None
        if options.cluster_column is not None:
            cluster = metadata.get(options.cluster_column.removeprefix("metadata."))
        task = str(record.get("evaluation_name", ""))
        key = record.get("sample_hash")
        added = False
        for metric in ("score", "is_correct"):
            value = evaluation.get(metric)
            if isinstance(value, float) or (isinstance(value, int) and abs(value) < 2**1023):
                # a bool is 0/1; an integer past float range is not a score
                out.add(task, item, float(value), position=position, metric=metric,
                        cluster=cluster, key=key)  # fmt: skip
                added = True
            elif value is not None:  # present but no number: an error if this metric is read
                reason = f"is {_show(value)} in 'evaluation', not a number"
                out.add(task, item, Unusable(reason), position=position, metric=metric,
                        cluster=cluster, key=key)  # fmt: skip
        if not added:
            out.bad(position, "'evaluation' has neither a numeric 'score' nor 'is_correct'.")


def _known(version: str) -> bool:
    """Whether a ``schema_version`` ('instance_level_eval_0.2.1', '0.3.0') is one evalsig
    knows: its number is 0.2 or 0.3 (any patch)."""
    match = re.search(r"(\d+)\.(\d+)(?:\.\d+)*$", version)
    return match is not None and f"{match[1]}.{match[2]}" in KNOWN_SCHEMAS


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


EVERY_EVAL_EVER = _EveryEvalEverReader()
