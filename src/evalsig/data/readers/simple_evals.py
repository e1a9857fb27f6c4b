"""OpenAI simple-evals output: ``/tmp/<eval>_<model>[_<date>][_DEBUG]<suffix>``.

For each eval and model, ``simple_evals.py`` writes (``run_multilingual_mmlu.py`` and
``healthbench_eval.py`` (physician runs) write the same kinds):

=======================  ==================================================================
file                     what it holds
=======================  ==================================================================
``<stem>.html``          the report: aggregate metrics, then each example's rendered HTML
``<stem>.json``          aggregate metrics only: ``{"score": ..., "score:std": ..., ...}``
                         (every version, since the first commit of 2024-04-11)
``_allresults.json``     the whole ``EvalResult``: ``score``, ``metrics``, ``htmls``,
                         ``convos``, ``metadata`` (since commit 5e623c2, 2025-05-12)
=======================  ==================================================================

Only one of these holds per-question scores: the ``_allresults.json`` of a HealthBench
run (``healthbench``, ``healthbench_hard``, ``healthbench_consensus``, and the physician
baselines), whose ``metadata.example_level_metadata`` has one record per example with
``score``, ``prompt_id``, ``prompt`` and the graded ``rubric_items``. The other evals
leave ``example_level_metadata`` null (``common.aggregate_results``); their per-example
score appears only inside the rendered HTML, which is not parsed here. Those files and
the metrics and HTML files are recognised and refused with what to pass instead.

Read here: task = the eval of the file name; item = ``prompt_id``; run = the repeat
(``n_repeats`` lists the examples n times over, so the k-th occurrence of a prompt is
repeat k); score = the example's ``score``, unclipped (HealthBench's reported score is
the mean clipped to [0, 1]); content key = a hash of the first user message, so files
pair only when their questions match. The model is the file name's, one per file.

Reference: openai/simple-evals at 5e623c2 and ee3b031 (2025-07-09), ``simple_evals.py``
(``main``), ``types.py`` (``EvalResult``), ``common.py`` (``aggregate_results``),
``healthbench_eval.py`` (``HealthBenchEval.__call__``, ``physician_completions_main``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_record, stem
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import read_json
from evalsig.errors import DataError, FormatError

__all__ = ["SIMPLE_EVALS"]

EVALS = (
    "healthbench_consensus",
    "healthbench_hard",
    "healthbench_meta",
    "healthbench",
    "browsecomp",
    "humaneval",
    "simpleqa",
    "mmlu",
    "math",
    "gpqa",
    "mgsm",
    "drop",
)
"""Eval names ``simple_evals.py`` accepts, longer names first (they share prefixes)."""
PER_QUESTION_EVALS = ("healthbench", "healthbench_hard", "healthbench_consensus")
"""Evals whose _allresults.json holds per-question scores (example_level_metadata)."""
FILE_NAME = re.compile(
    rf"^(?P<eval>{'|'.join(EVALS)})_(?P<model>.+?)(?:_\d{{8}}_\d{{4}}(?:\d{{2}})?)?"
    r"(?:_DEBUG)?(?:_allresults)?$"
)
"""``<eval>_<model>_<%Y%m%d_%H%M%S>[_DEBUG][_allresults]``; the date since 2025-05-12
(``%Y%m%d_%H%M`` for HealthBench's physician baselines, whose "model" is the group)."""
ALL_RESULTS_FIELDS = frozenset({"score", "metrics", "htmls", "convos"})
ALL_RESULTS_START = re.compile(
    r'\A\s*\{\s*"score"\s*:\s*(?:null|NaN|-?Infinity|[-+\d.eE]+)\s*,\s*"metrics"\s*:'
)
"""The start of ``json.dumps(result_dict, indent=2)``, for files whose head holds no
whole object (the HTML of every example makes them large)."""
AGGREGATE_KEY = re.compile(r"^(?P<name>.+):(?:std|bootstrap_std|n_samples)$")
"""``name:stat`` keys of ``aggregate_results``: the mark of a metrics file."""
VERSION = "5e623c2 (2025-05-12) or later: HealthBench _allresults.json"
EXPORT = (
    "export one row per example (item, score; e.g. from the SingleEvalResult list before "
    "common.aggregate_results) as CSV or JSON Lines and pass that"
)


class _SimpleEvalsReader:
    name = "simple-evals"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.name.endswith((".html", ".html.gz")):
            return b"<h1>Examples</h1>" in head and b".message.assistant" in head
        if not path.name.endswith((".json", ".json.gz")):
            return False
        record = first_record(head)
        if record is None:  # an _allresults.json longer than the head
            text = head[:4096].decode("utf-8", errors="ignore")
            return ALL_RESULTS_START.match(text) is not None and b'"htmls"' in head
        return record.keys() >= ALL_RESULTS_FIELDS or _is_metrics(record)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if path.name.endswith((".html", ".html.gz")):
            raise FormatError(
                f"{path}: a simple-evals HTML report: it shows the aggregate metrics and each "
                "example rendered as HTML, not per-question scores in a form evalsig reads. "
                + _what_to_pass(path, stem(path).removesuffix(".html"))
            )
        document = read_json(path, options)
        if isinstance(document, Mapping) and document.keys() >= ALL_RESULTS_FIELDS:
            self._read_all_results(path, document, out)
            return
        if isinstance(document, Mapping) and _is_metrics(document):
            raise FormatError(_metrics_message(path, document))
        raise FormatError(
            f"{path}: not a simple-evals file: expected an _allresults.json object with "
            "'score', 'metrics', 'htmls', 'convos' and 'metadata'; pass --input-format json "
            "if it is a plain table."
        )

    def _read_all_results(self, path: Path, document: Mapping[str, Any], out: Collector) -> None:
        eval_name, model = _names(path)
        examples = _example_records(document)
        if examples is None:
            raise FormatError(_aggregates_only_message(path, eval_name, document))
        _check_model(path, model, out)
        task = eval_name or "healthbench"
        out.version(VERSION)
        out.names.update({"id": "prompt_id", "score": "example_level_metadata.score"})
        out.offer(keys=["first user message (hash)"])
        convos = document.get("convos")
        convos = convos if isinstance(convos, list) else []
        seen: Counter[str] = Counter()
        rows: list[tuple[str, float, str, str | None]] = []
        for number, record in enumerate(examples):
            position = f"example {number} (metadata.example_level_metadata[{number}])"
            convo = convos[number] if number < len(convos) else None
            row = _example(record, convo, position, out)
            if row is not None:
                prompt_id, value, key = row
                rows.append((prompt_id, value, position, key))
                seen[prompt_id] += 1
        repeated = any(count > 1 for count in seen.values())
        occurrences: Counter[str] = Counter()
        for prompt_id, value, position, key in rows:
            run = occurrences[prompt_id] if repeated else None
            occurrences[prompt_id] += 1
            out.add(task, prompt_id, value, position=position, run=run, key=key)
        out.notes.append(_note(path, eval_name, task, model, repeated))


def _is_metrics(record: Mapping[str, Any]) -> bool:
    """A flat object of numbers with ``name`` beside ``name:std`` (or ``:bootstrap_std``,
    ``:n_samples``): the ``<stem>.json`` that ``simple_evals.py`` writes."""
    if not record or not all(_number(v) or v is None for v in record.values()):
        return False
    return any(
        (match := AGGREGATE_KEY.match(key)) is not None and match.group("name") in record
        for key in record
    )


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _names(path: Path) -> tuple[str | None, str | None]:
    """The eval and model of ``<eval>_<model>_<date>[_DEBUG]_allresults.json``."""
    match = FILE_NAME.match(stem(path))
    return (match.group("eval"), match.group("model")) if match else (None, None)


def _example_records(document: Mapping[str, Any]) -> list[Any] | None:
    """``metadata.example_level_metadata`` when it holds per-example records, else None."""
    metadata = document.get("metadata")
    if not isinstance(metadata, Mapping):
        return None
    examples = metadata.get("example_level_metadata")
    if not isinstance(examples, list) or all(record is None for record in examples):
        return None
    return examples


def _example(
    record: Any, convo: Any, position: str, out: Collector
) -> tuple[str, float, str | None] | None:
    """``(prompt_id, score, content key)`` of one example, or None when it is malformed."""
    if not isinstance(record, Mapping):
        out.bad(position, f"is {_show(record)}, not an object with 'score' and 'prompt_id'.")
        return None
    prompt_id = record.get("prompt_id")
    if not isinstance(prompt_id, str) or not prompt_id:
        out.bad(position, f"'prompt_id' (the item id) is {_show(prompt_id)}, not a string.")
        return None
    score = record.get("score")
    value = _finite(score)
    if not math.isfinite(value):
        out.bad(position, f"'score' of prompt {prompt_id!r} is {_show(score)}, not a number.")
        return None
    prompt = record.get("prompt")
    return prompt_id, value, _first_user_hash(prompt if prompt is not None else convo)


def _finite(value: object) -> float:
    """A score as a float (True/False: 1/0); NaN when it is not a finite number."""
    if not isinstance(value, (int, float)):
        return math.nan
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float
        return math.nan


def _first_user_hash(messages: Any) -> str | None:
    """A digest of the first user message's content (text, or its JSON when structured)."""
    if not isinstance(messages, list):
        return None
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
            return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return None


def _check_model(path: Path, model: str | None, out: Collector) -> None:
    """Files of two models (by their names) are never pooled as runs of one. A ``where``
    never reaches here: these files hold one model, and ``collect`` refuses it."""
    if model is None:
        return
    for source, reader in zip(out.sources[:-1], out.formats[:-1], strict=True):
        other = _names(Path(source))[1]
        if reader == SIMPLE_EVALS.name and other is not None and other != model:
            raise DataError(
                f"{path}: model {model!r} (from the file name), but {source} holds model "
                f"{other!r}: files of two models would be pooled as runs of one. Pass each "
                "model's files as its own side (evalsig compare A_FILE B_FILE)."
            )


def _note(path: Path, eval_name: str | None, task: str, model: str | None, repeated: bool) -> str:
    named = (
        f"eval {eval_name!r}, model {model!r} (from the file name)"
        if eval_name is not None
        else f"a file name without a simple-evals eval name, read as task {task!r}"
    )
    runs = "; run = the repeat (n_repeats)" if repeated else ""
    return (
        f"{path.name}: {named}; item = prompt_id{runs}; score = the example's HealthBench "
        "score, unclipped (the reported score is the mean clipped to [0, 1]), checked by a "
        "hash of the first user message."
    )


def _metrics_message(path: Path, record: Mapping[str, Any]) -> str:
    shown = ", ".join(list(record)[:4]) + (", ..." if len(record) > 4 else "")
    return (
        f"{path}: a simple-evals metrics file (<eval>_<model>.json): it holds aggregate "
        f"scores only ({shown}), not per-question scores. " + _what_to_pass(path, stem(path))
    )


def _what_to_pass(path: Path, file_stem: str) -> str:
    """The fix for a metrics file or report: HealthBench's _allresults.json, else a table."""
    eval_name = _names(path.with_name(f"{file_stem}.json"))[0]
    beside = (
        f"pass the {file_stem}_allresults.json written beside it (simple-evals 2025-05-12 or later)"
    )
    if eval_name is None:
        return f"For HealthBench {beside}; for other evals {EXPORT}."
    if eval_name in PER_QUESTION_EVALS:
        return f"For {eval_name}, {beside}."
    return f"simple-evals keeps no per-question scores of {eval_name!r} in a file: {EXPORT}."


def _aggregates_only_message(path: Path, eval_name: str | None, document: Mapping[str, Any]) -> str:
    which = f" of eval {eval_name!r}" if eval_name is not None else ""
    htmls = document.get("htmls")
    count = f"{len(htmls)} examples" if isinstance(htmls, list) else "the examples"
    return (
        f"{path}: a simple-evals _allresults.json{which}: it holds aggregate metrics only; "
        f"for {count} it keeps the conversation and rendered HTML, and "
        "metadata.example_level_metadata holds no per-question scores (simple-evals records "
        f"them there for HealthBench only). To compare per question, {EXPORT}."
    )


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


SIMPLE_EVALS = _SimpleEvalsReader()
