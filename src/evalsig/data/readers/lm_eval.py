"""lm-evaluation-harness ``--log_samples`` output, in every layout the harness has written.

=====================  ===========================================================  ===========
harness version        files (per model)                                            ``filter``
=====================  ===========================================================  ===========
v0.4.0 - v0.4.2        ``results.json`` and ``<model_args>_<task>.jsonl`` holding    no
                       one pretty-printed JSON array of samples
main, May - June 2024  ``results_<date>.json``, ``samples_<task>_<date>.json``       no
                       holding JSON Lines
v0.4.3 - v0.4.6        ``results_<date>.json``, ``samples_<task>_<date>.jsonl``      no
v0.4.7 and later       the same, each sample with ``filter`` and ``metrics``         yes
=====================  ===========================================================  ===========

A sample holds ``doc_id``, ``doc``, ``target``, the responses, each metric's value as a
top-level field (``acc``, ``acc_norm``, ``exact_match`` ...) and, from v0.4.3,
``doc_hash`` / ``prompt_hash`` / ``target_hash``. Before v0.4.7 a task with several filters
(``strict-match``, ``flexible-extract``) wrote every document once per filter, in the
order of the task config's ``filter_list``, without naming the filter: the k-th
occurrence of a document is read as the k-th filter, named from the results file's task
config when it is there.

Read here: item = ``doc_id``; task = the ``<task>`` of the file name (for v0.4.0 - v0.4.2,
the task of ``results.json`` the file name ends with); metric and filter as chosen (an
error lists them when several exist and none was chosen); content key = ``doc_hash`` (or
the field named by ``key_column``, e.g. ``target``), so that two runs on different dataset
revisions are caught; clusters from a field of ``doc`` (``doc.subject``). Metrics whose
per-document value is not a number (BLEU-style corpus metrics keep references and
predictions per document) are not per-item scores and are refused with an explanation. A
directory ``<output_path>/<model>/`` is read whole: one task per samples file, and several
samples files of one task (repeated runs) become runs of its items.

Reference: EleutherAI lm-evaluation-harness at v0.4.0, v0.4.2, v0.4.3 and v0.4.7
(``lm_eval/__main__.py``, ``lm_eval/evaluator.py``, ``lm_eval/loggers/evaluation_tracker.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard

from evalsig.data.readers.base import ReadOptions, open_text
from evalsig.data.readers.collect import FILTER, Collector, nested
from evalsig.data.readers.inspect_ai import looks_like_log
from evalsig.data.readers.tabular import binary, jsonl_records, loads, read_json
from evalsig.errors import DataError, FormatError, examples

__all__ = ["LM_EVAL", "known_release", "task_of"]

SAMPLES = re.compile(
    r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+))?\.(?P<ext>jsonl|json)$"
)
RESERVED = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash", "task_name",
}  # fmt: skip


LMMS_SAMPLES = re.compile(r"^(?P<date>\d{8}_\d{6})_samples_(?P<task>.+)\.jsonl$")
"""lmms-eval's name for the same samples: ``<YYYYmmdd_HHMMSS>_samples_<task>.jsonl``."""


def task_of(path: Path) -> str | None:
    """The task in ``samples_<task>_<datetime>.jsonl`` (or ``.json``), or in lmms-eval's
    ``<datetime>_samples_<task>.jsonl``; else None."""
    name = path.name.removesuffix(".gz")
    match = SAMPLES.match(name) or LMMS_SAMPLES.match(name)
    return match.group("task") if match else None


def _results(directory: Path) -> Mapping[str, Any]:
    """The newest results file of a run folder (``results*.json``), or an empty mapping."""
    found = {*directory.glob("results*.json"), *directory.glob("*_results.json")}
    files = sorted(p for p in found if p.is_file())
    for file in reversed(files):
        try:
            if file.stat().st_size > 1 << 28:
                continue
            with open(file, "rb") as f:
                summary = loads(f.read())
        except (OSError, ValueError):
            continue
        if isinstance(summary, Mapping) and isinstance(summary.get("results"), Mapping):
            return summary
    return {}


def _legacy_task(path: Path, summary: Mapping[str, Any]) -> str | None:
    """The task of a v0.4.0 - v0.4.2 ``<model_args>_<task>.jsonl``: the longest task of
    the results file that the file name ends with."""
    tasks = summary.get("configs") or summary.get("results") or {}
    stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
    found = [t for t in tasks if isinstance(t, str) and stem.endswith(f"_{t}")]
    return max(found, key=len) if found else None


def _samples_in(directory: Path) -> list[tuple[Path, str]]:
    """Samples files of a run folder, with their tasks, in every layout."""
    files = sorted(p for p in directory.iterdir() if p.is_file())
    out = [(p, t) for p in files if (t := task_of(p)) is not None]
    if out:
        return out
    summary = _results(directory)
    if not summary:
        return []
    return [
        (p, t)
        for p in files
        if p.name.removesuffix(".gz").endswith(".jsonl")
        and (t := _legacy_task(p, summary)) is not None
    ]


def _model_folders(directory: Path) -> list[Path]:
    """The model folders of an ``--output_path`` (lm-eval writes ``<output_path>/<model>/``)."""
    return sorted(c for c in directory.iterdir() if c.is_dir() and _samples_in(c))


def _one_model_folder(directory: Path, out: Collector) -> Path:
    """The one model folder of an output path; several models are an error naming them."""
    folders = _model_folders(directory)
    if len(folders) != 1:
        raise DataError(
            f"{directory}: holds the samples of {len(folders)} models "
            f"({examples(f.name for f in folders)}); evalsig reads one model at a time: pass "
            f"its folder, e.g. {folders[0]}."
        )
    out.notes.append(f"{directory}: read the samples of its one model folder, {folders[0].name}.")
    return folders[0]


def _filter_names(summary: Mapping[str, Any], task: str) -> list[str]:
    """The names in a task config's ``filter_list`` (the order samples were written in)."""
    config = (summary.get("configs") or {}).get(task)
    filters = config.get("filter_list") if isinstance(config, Mapping) else None
    if not isinstance(filters, list):
        return []
    return [f["name"] for f in filters if isinstance(f, Mapping) and isinstance(f.get("name"), str)]


def _is_array(path: Path, options: ReadOptions) -> bool:
    """Whether the file is one pretty-printed JSON array (its first line is ``[``)."""
    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
        for line in f:
            if line.strip():
                return line.strip() in ("[", "[]")
    return False


class _LmEvalReader:
    name = "lm-eval"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return bool(_samples_in(path)) or bool(_model_folders(path))
        if path.suffix == ".json" and (
            path.name.startswith("results") or path.name.endswith("_results.json")
        ):
            if b'"config_general"' in head:  # lighteval's results file
                return False
            return b'"results"' in head and (b'"configs"' in head or b'"versions"' in head)
        if task_of(path) is not None:
            if path.suffix == ".json" and looks_like_log(head):
                return False  # an Inspect log whose name looks like lm-eval's samples
            return path.suffix != ".json" or head.lstrip()[:1] in (b"{", b"[")
        return path.name.removesuffix(".gz").endswith(".jsonl") and (
            b'"doc_id"' in head
            and (b'"doc_hash"' in head or (head.lstrip()[:1] == b"[" and b'"resps"' in head))
        )

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if path.is_dir() and not _samples_in(path):
            path = _one_model_folder(path, out)
        if path.is_dir():
            files = _samples_in(path)
            summary = _results(path)
            for number, (file, task) in enumerate(files):
                out.folder_file(number, str(file), self.name)
                self._read_samples(file, task, summary, options, out)
            _check_against_results(path, [f for f, _ in files], out)
            return
        if path.suffix == ".json" and task_of(path) is None:
            samples = _samples_in(path.parent)
            raise FormatError(
                f"{path}: an lm-evaluation-harness results file holds aggregate scores only; "
                "paired tests need the per-document samples written with --log_samples"
                + (f" (e.g. {samples[0][0].name} beside it)." if samples else ".")
            )
        summary = _results(path.parent)
        task = task_of(path) or _legacy_task(path, summary) or path.name.split(".")[0]
        self._read_samples(path, task, summary, options, out)
        _check_against_results(path.parent, [path], out)

    def _read_samples(
        self,
        path: Path,
        task: str,
        summary: Mapping[str, Any],
        options: ReadOptions,
        out: Collector,
    ) -> None:
        start = len(out.rows)
        if _is_array(path, options):
            out.version("v0.4.0-v0.4.2 (<model_args>_<task>.jsonl holding a JSON array)")
            document = read_json(path, options)
            if not isinstance(document, list):
                raise FormatError(f"{path}: expected a JSON array of samples.")
            records: Any = ((f"record {i}", r) for i, r in enumerate(document, start=1))
            self._feed(path, task, records, options, out)
        else:
            with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as f:
                self._feed(path, task, jsonl_records(binary(f), out), options, out)
        _name_filters(out, start, _filter_names(summary, task), path)
        _check_version(summary, out)

    def _feed(
        self, path: Path, task: str, records: Any, options: ReadOptions, out: Collector
    ) -> None:
        out.names.update({"id": "doc_id", "run": "file"})
        cluster = options.cluster_column
        key_field = options.key_column or "doc_hash"
        emit, file_no = out.rows.append, out.file_number
        first = True
        occurrences: dict[object, int] = {}
        corpus: set[str] = set()
        for position, record in records:
            if type(record) is not dict or "doc_id" not in record:
                if first and _inspect_log(record):
                    raise FormatError(
                        f"{path}: an Inspect AI log (it has 'eval' and 'status'), not "
                        "lm-evaluation-harness samples; read it with --input-format inspect "
                        "(format='inspect')."
                    )
                out.bad(position, "not an lm-evaluation-harness sample (no 'doc_id').")
                continue
            if first:
                first = False
                _describe_layout(path, record, out)
                doc = record.get("doc")
                out.offer(
                    clusters=[f"doc.{k}" for k, v in doc.items() if _scalar(v)]
                    if isinstance(doc, Mapping)
                    else (),
                    keys=[k for k in ("doc_hash", "target_hash", "target") if k in record],
                )
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
            kept: object = record.get("filter")
            if kept is None:  # before v0.4.7: the k-th copy of a document is the k-th filter
                doc_id = record["doc_id"]
                try:
                    kept = occurrences.get(doc_id, 0)
                    occurrences[doc_id] = kept + 1
                except TypeError:  # an unhashable id: the table reports it by name
                    kept = 0
            elif type(kept) is not str:
                out.bad(position, f"'filter' is {_show(kept)}, not a filter name (a string).")
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


KNOWN_RELEASES = ("0.4",)
"""lm-evaluation-harness releases whose layouts evalsig knows (see the module's table)."""


def known_release(summary: Mapping[str, Any]) -> bool:
    """Whether a results file's ``lm_eval_version`` is a release evalsig knows (or absent)."""
    release = summary.get("lm_eval_version")
    if not isinstance(release, str) or not release:
        return True
    match = re.match(r"v?(\d+)\.(\d+)", release)
    return match is not None and f"{match[1]}.{match[2]}" in KNOWN_RELEASES


def _check_version(summary: Mapping[str, Any], out: Collector) -> None:
    """A results file naming a release newer than evalsig knows: said, with the layout the
    samples were read as (the layouts are told apart by their fields, not the release)."""
    if not known_release(summary):
        layout = out.versions[out.file_number] or "the newest layout"
        out.unknown_version("lm_eval_version", summary["lm_eval_version"], layout)


def _describe_layout(path: Path, record: Mapping[str, Any], out: Collector) -> None:
    """Name the harness version that wrote ``path``, from its name and first sample."""
    if out.versions[out.file_number] is not None:
        return  # the JSON-array layout, already named
    layout = layout_of(path, record)
    if layout is not None:
        out.version(layout)


def layout_of(path: Path, record: Mapping[str, Any]) -> str | None:
    """The harness version that wrote a JSON Lines samples file, from its name and first
    sample (None when they do not tell)."""
    if LMMS_SAMPLES.match(path.name.removesuffix(".gz")):
        return "lmms-eval (<date>_samples_<task>.jsonl)"
    if path.name.removesuffix(".gz").endswith(".json"):
        return "main of May-June 2024 (samples_<task>_<date>.json holding JSON Lines)"
    if "filter" in record:
        return "v0.4.7 or later"
    if "doc_hash" in record:
        return "v0.4.3-v0.4.6"
    return None


def _name_filters(out: Collector, start: int, names: list[str], path: Path) -> None:
    """Replace the occurrence numbers of filter-less samples by filter names.

    One copy per document: no filter column (None), as before. Several: the k-th copy is
    the k-th filter of the task config, or 'filter k' when the config is not at hand.
    """
    rows = out.rows
    numbered = [i for i in range(start, len(rows)) if type(rows[i][FILTER]) is int]
    if not numbered:
        return
    copies = 1 + max(rows[i][FILTER] for i in numbered)
    if copies == 1:
        labels: list[str | None] = [None]
    elif len(names) == copies:
        labels = list(names)
    else:
        labels = [f"filter {k + 1}" for k in range(copies)]
        out.notes.append(
            f"{path.name}: each document appears {copies} times without a filter name (one "
            "copy per filter, before v0.4.7); named them 'filter 1' ... in file order, since "
            "the results file's task config does not list the filters."
        )
    for i in numbered:
        row = rows[i]
        rows[i] = (*row[:FILTER], labels[row[FILTER]], *row[FILTER + 1 :])


def _metric_names(record: Mapping[str, Any]) -> list[str]:
    names = record.get("metrics")
    if isinstance(names, list):
        return [n for n in names if isinstance(n, str) and n in record]
    return [k for k, v in record.items() if k not in RESERVED and _number(v)]


def _number(value: object) -> TypeGuard[float]:
    """A JSON number evalsig can use (bool is an int: 0/1; not an integer past float range)."""
    return isinstance(value, float) or (isinstance(value, int) and -_BIG < value < _BIG)


_BIG = 2**1023


def _inspect_log(record: object) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("eval"), dict)
        and ("status" in record or "version" in record)
    )


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


def _check_against_results(
    directory: Path, files: list[Path], out: Collector, documents: Mapping[str, int] | None = None
) -> None:
    """Compare document counts with the results file's ``n-samples``, when it is there.

    ``documents`` gives each task's count of distinct doc_ids when ``out`` holds no rows
    (the columnar path, :mod:`~evalsig.data.readers.lm_eval_columnar`).
    """
    results = sorted(p for p in directory.glob("results_*.json") if p.is_file())
    if not results:
        return
    try:
        with open(results[-1], "rb") as f:
            summary = loads(f.read())
    except (OSError, ValueError):
        out.notes.append(f"{results[-1]}: could not be read; document counts not checked.")
        return
    out.model(model_name(summary))
    counts = summary.get("n-samples") if isinstance(summary, Mapping) else None
    if not isinstance(counts, Mapping):
        return
    for file in files:
        task = task_of(file)
        reported = counts.get(task, {}) if task else {}
        effective = reported.get("effective") if isinstance(reported, Mapping) else None
        if not task or not isinstance(effective, int):
            continue
        if documents is not None:
            seen = documents[task]
        else:
            seen = len({row[1] for row in out.rows if row[0] == task})
        if seen != effective:
            out.notes.append(
                f"{file.name}: holds {seen} documents but {results[-1].name} reports "
                f"{effective} evaluated: is the samples file truncated or from another run?"
            )


def model_name(summary: object) -> str | None:
    """The model of a results file: its ``model_name``, else ``pretrained=`` (or the whole
    ``model_args``) of its ``config``."""
    if not isinstance(summary, Mapping):
        return None
    if isinstance(summary.get("model_name"), str) and summary["model_name"]:
        return str(summary["model_name"])
    config = summary.get("config")
    args = config.get("model_args") if isinstance(config, Mapping) else None
    if isinstance(args, Mapping):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    if not isinstance(args, str) or not args:
        return None
    for part in args.split(","):
        key, _, value = part.partition("=")
        if key.strip() in ("pretrained", "model", "engine") and value.strip():
            return value.strip()
    return args


LM_EVAL = _LmEvalReader()
