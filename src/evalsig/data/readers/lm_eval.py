"""lm-evaluation-harness ``--log_samples`` output.

The harness writes, per run, ``results_<datetime>.json`` (aggregate scores and the task
configs) and one ``samples_<task>_<datetime>.jsonl`` per task: one line per document and
filter, with ``doc_id``, ``doc``, ``target``, the responses, ``filter`` (``none``,
``strict-match``, ``flexible-extract`` ...), ``metrics`` (the names of the per-document
metric fields, in recent versions), ``doc_hash`` / ``prompt_hash`` / ``target_hash``, and
each metric's value as a top-level field (``acc``, ``acc_norm``, ``exact_match`` ...).

Read here: item = ``doc_id``; task = the ``<task>`` of the file name; metric and filter as
chosen (an error lists them when several exist and none was chosen); content key =
``doc_hash`` (or the field named by ``key_column``, e.g. ``target``), so that two runs on
different dataset revisions are caught; clusters from a field of ``doc`` (``doc.subject``).
Metrics whose per-document value is not a number (BLEU-style corpus metrics keep
references and predictions per document) are not per-item scores and are refused with an
explanation. A directory ``<output_path>/<model>/`` is read whole: one task per samples
file, and several samples files of one task (repeated runs) become runs of its items.

Reference: EleutherAI lm-evaluation-harness, ``docs/interface.md`` (``--log_samples``) and
``lm_eval/evaluator.py`` (the per-sample record).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard

from evalsig.data.readers.base import ReadOptions, open_text
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import binary, jsonl_records, loads
from evalsig.errors import DataError, FormatError

__all__ = ["LM_EVAL", "task_of"]

SAMPLES = re.compile(r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+))?\.jsonl$")
RESERVED = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash", "task_name",
}  # fmt: skip


def task_of(path: Path) -> str | None:
    """The task name in ``samples_<task>_<datetime>.jsonl``, or None for another name."""
    match = SAMPLES.match(path.name.removesuffix(".gz"))
    return match.group("task") if match else None


def _samples_in(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and task_of(p) is not None)


class _LmEvalReader:
    name = "lm-eval"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return bool(_samples_in(path))
        if path.name.startswith("results_") and path.suffix == ".json":
            return b'"results"' in head and (b'"configs"' in head or b'"versions"' in head)
        return task_of(path) is not None or (
            path.suffix in (".jsonl", ".gz") and b'"doc_id"' in head and b'"doc_hash"' in head
        )

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if path.is_dir():
            files = _samples_in(path)
            for file in files:
                out.start_file(str(file), self.name)
                self._read_samples(file, options, out)
            _check_against_results(path, files, out)
            return
        if path.suffix == ".json":
            samples = _samples_in(path.parent)
            raise FormatError(
                f"{path}: an lm-evaluation-harness results file holds aggregate scores only; "
                "paired tests need the per-document samples written with --log_samples"
                + (f" (e.g. {samples[0].name} beside it)." if samples else ".")
            )
        self._read_samples(path, options, out)
        _check_against_results(path.parent, [path], out)

    def _read_samples(self, path: Path, options: ReadOptions, out: Collector) -> None:
        task = task_of(path) or path.name.split(".")[0]
        out.names.update({"id": "doc_id", "run": "file"})
        cluster = options.cluster_column
        key_field = options.key_column or "doc_hash"
        emit, file_no = out.rows.append, out.file_number
        offered = False
        corpus: set[str] = set()
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
            for position, record in jsonl_records(binary(f), out):
                if type(record) is not dict or "doc_id" not in record:
                    out.bad(position, "not an lm-evaluation-harness sample (no 'doc_id').")
                    continue
                if not offered:
                    doc = record.get("doc")
                    out.offer(
                        clusters=[f"doc.{k}" for k, v in doc.items() if _scalar(v)]
                        if isinstance(doc, Mapping)
                        else (),
                        keys=[k for k in ("doc_hash", "target_hash", "target") if k in record],
                    )
                    offered = True
                metrics = _metric_names(record)
                if not metrics:
                    out.bad(position, "has no per-document metric fields.")
                    continue
                try:
                    label = None if cluster is None else _cluster(record, cluster)
                except KeyError:
                    out.bad(position, f"has no field {cluster!r} for the cluster label.")
                    continue
                key = record.get(key_field)
                key = None if key is None else str(key)
                kept = record.get("filter")
                if kept is not None and type(kept) is not str:
                    out.bad(position, f"'filter' is {kept!r}, not a filter name (a string).")
                    continue
                for metric in metrics:
                    value = record.get(metric)
                    if not _number(value):
                        if options.metric != metric and len(metrics) > 1:
                            corpus.add(metric)  # beside per-item metrics: noted, not used
                            continue
                        raise DataError(
                            f"{path}: {position}: metric {metric!r} is not a per-document "
                            f"number ({_show(value)}): it is a corpus-level metric aggregated "
                            "over documents. Choose a per-document metric, or compute the "
                            "corpus metric from per-item sufficient statistics with "
                            "evalsig.inference.bootstrap(statistic=...)."
                        )
                    emit(  # a Collector row: see collect.TASK ... POSITION
                        (task, record["doc_id"], float(value), metric, kept,
                         None, label, key, file_no, position)
                    )  # fmt: skip
        if corpus:
            out.notes.append(
                f"{path.name}: metric(s) {', '.join(sorted(corpus))} hold corpus-level data, "
                "not per-document numbers, and cannot be compared item by item."
            )


def _metric_names(record: Mapping[str, Any]) -> list[str]:
    names = record.get("metrics")
    if isinstance(names, list):
        return [n for n in names if isinstance(n, str) and n in record]
    return [k for k, v in record.items() if k not in RESERVED and _number(v)]


def _number(value: object) -> TypeGuard[float]:
    """A JSON number evalsig can use (bool is an int: 0/1; not an integer past float range)."""
    return isinstance(value, float) or (isinstance(value, int) and -_BIG < value < _BIG)


_BIG = 2**1023


def _scalar(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _cluster(record: Mapping[str, Any], name: str) -> object:
    """A cluster label: a dotted path in the record, or a field of ``doc``."""
    try:
        return nested(record, name)
    except KeyError:
        return nested(record["doc"], name) if isinstance(record.get("doc"), Mapping) else None


def _check_against_results(directory: Path, files: list[Path], out: Collector) -> None:
    """Compare document counts with the results file's ``n-samples``, when it is there."""
    results = sorted(p for p in directory.glob("results_*.json") if p.is_file())
    if not results:
        return
    try:
        with open(results[-1], "rb") as f:
            summary = loads(f.read())
    except (OSError, ValueError):
        out.notes.append(f"{results[-1]}: could not be read; document counts not checked.")
        return
    counts = summary.get("n-samples") if isinstance(summary, Mapping) else None
    if not isinstance(counts, Mapping):
        return
    for file in files:
        task = task_of(file)
        reported = counts.get(task, {}) if task else {}
        effective = reported.get("effective") if isinstance(reported, Mapping) else None
        if not isinstance(effective, int):
            continue
        seen = {row[1] for row in out.rows if row[0] == task}
        if len(seen) != effective:
            out.notes.append(
                f"{file.name}: holds {len(seen)} documents but {results[-1].name} reports "
                f"{effective} evaluated: is the samples file truncated or from another run?"
            )


LM_EVAL = _LmEvalReader()
