"""OpenAI evals: the JSON Lines event logs written by ``oaieval`` (its ``LocalRecorder``).

A log starts with the run spec, continues with one event per line, and ends with the
final report::

    {"spec": {"completion_fns": ["gpt-4"], "eval_name": "test-match.s1.simple-v0",
              "base_eval": "test-match", "split": "s1", "run_config": {...},
              "created_by": "", "run_id": "2304...", "created_at": "..."}}
    {"run_id": "2304...", "event_id": 0, "sample_id": "test-match.s1.0",
     "type": "sampling", "data": {"prompt": ..., "sampled": [...]}, "created_by": "",
     "created_at": "..."}
    {"run_id": "2304...", "event_id": 1, "sample_id": "test-match.s1.0", "type": "match",
     "data": {"correct": true, "expected": "Hello", "picked": "Hello", ...}, ...}
    {"final_report": {"accuracy": 1.0}, "run_id": "2304..."}

Each event of type ``match`` (``RecorderBase.record_match``, which the basic evals
``Match``, ``Includes`` and ``FuzzyMatch`` call once per sample and completion) is one
observation:

* item: ``sample_id`` (``<base eval>.<split>.<index>``);
* value: ``data.correct`` (true 1, false 0), under the metric ``match``; the eval's
  reported accuracy is the mean of these (``evals.metrics.get_accuracy``);
* run: the event's index among the ``match`` events of its sample, in file order, so
  several completions of one prompt are several runs;
* task: the spec's ``eval_name`` (an events-only log has the task ``''``);
* content key ``expected``: ``data.expected``, a string, with a list of several
  acceptable answers joined by ``" | "``; two logs that expect different answers for one
  sample did not score the same thing, and :func:`evalsig.compare` says so.

``match`` is the only event type with a defined per-sample score. ``metrics`` events hold
whatever keyword arguments an eval passes to ``record_metrics`` (numbers, labels, nested
objects, ``None``), with no declaration of which is a score or how it aggregates, and
``sampling``, ``embedding``, ``cond_logp``, ``pick_option``, ``error`` and ``extra``
events score nothing; all these are ignored on purpose. A log without ``match`` events
is an error naming the event types it has.

References
----------
.. [1] OpenAI evals, https://github.com/openai/evals: ``evals/record.py`` (``Event``,
   ``RecorderBase.record_match``, ``LocalRecorder``), ``evals/base.py`` (``RunSpec``),
   ``evals/api.py`` (``record_and_check_match``), ``evals/eval.py`` (sample ids) and
   ``evals/elsuite/basic/match.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import orjson

from evalsig.data.readers.base import ReadOptions, first_line, open_text, unzipped_head
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import binary, jsonl_records
from evalsig.errors import DataError, FormatError

__all__ = ["OPENAI_EVALS", "canonical_key"]

METRIC = "match"
KEY_FIELD = "expected"
_EVENT_FIELDS = (b'"run_id"', b'"sample_id"', b'"type"')


def canonical_key(expected: object) -> str | None:
    """The content key of an expected answer: text, with a list's answers joined.

    Parameters
    ----------
    expected : object
        ``data.expected`` of a match event: a string, a list of acceptable answers, None.

    Returns
    -------
    str or None
        The text; list items joined by ``" | "``; other JSON values as sorted JSON.

    Examples
    --------
    >>> canonical_key("Paris")
    'Paris'
    >>> canonical_key(["4", "four"])
    '4 | four'
    >>> canonical_key(None) is None
    True
    """
    if expected is None:
        return None
    if isinstance(expected, str):
        return expected
    if isinstance(expected, (list, tuple)):
        return " | ".join(canonical_key(e) or "" for e in expected)
    return orjson.dumps(expected, option=orjson.OPT_SORT_KEYS).decode()


def _looks_like_log(head: bytes) -> bool:
    """Whether the first line is a run spec with an eval name, or an event."""
    line = first_line(head)
    if not line.startswith(b"{"):
        return False
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:  # a long first line cut off by the head
        return (line.startswith(b'{"spec"') and b'"eval_name"' in line) or all(
            f in line for f in _EVENT_FIELDS
        )
    if not isinstance(record, dict):
        return False
    spec = record.get("spec")
    if isinstance(spec, dict):
        return "eval_name" in spec
    return all(k in record for k in ("run_id", "sample_id", "type"))


class _OpenAIEvalsReader:
    name = "openai-evals"

    def sniff(self, path: Path, head: bytes) -> bool:
        suffixes = path.suffixes
        if len(suffixes) >= 2 and suffixes[-1] == ".gz" and suffixes[-2] in (".jsonl", ".log"):
            return _looks_like_log(unzipped_head(head))
        return path.suffix in (".jsonl", ".log", ".txt", "") and _looks_like_log(head)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        out.version("event log (JSON Lines)")
        if options.key_column not in (None, KEY_FIELD):
            raise DataError(
                f"{source}: OpenAI evals logs have one content key, {KEY_FIELD!r} (used "
                f"automatically); got key_column={options.key_column!r}."
            )
        out.names.update({"id": "sample_id", "run": "match event of the sample"})
        task: str | None = None
        seen: Counter[tuple[str, object]] = Counter()
        types: Counter[str] = Counter()
        keyed = False
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as text:
            lines = binary(text)
            for position, record in jsonl_records(lines, out):
                if not isinstance(record, dict):
                    out.bad(position, f"is a JSON {type(record).__name__}, not an object.")
                elif "spec" in record:
                    task = _eval_name(record["spec"], position, out, task)
                    out.model(_completion_fns(record["spec"]))
                elif "final_report" in record:
                    continue
                elif isinstance(record.get("type"), str) and "sample_id" in record:
                    types[record["type"]] += 1
                    if record["type"] == METRIC:
                        keyed = _add_match(record, position, task, seen, out) or keyed
                else:
                    out.bad(
                        position,
                        "is neither the spec line, an event (with 'type' and 'sample_id') "
                        "nor the final report.",
                    )
        if not types[METRIC]:
            found = ", ".join(f"{t!r} ({n})" for t, n in types.most_common()) or "none"
            raise FormatError(
                f"{source}: no 'match' events, the only per-sample scores evalsig reads from "
                f"OpenAI evals logs; event types found: {found}."
            )
        if task is None:
            out.notes.append(f"{source}: no spec line, so the eval has no name (task '').")
        if keyed:
            out.offer(keys=[KEY_FIELD])


def _completion_fns(spec: object) -> str | None:
    """The model(s) a run spec evaluated: its ``completion_fns``, joined with ' + '."""
    fns = spec.get("completion_fns") if isinstance(spec, Mapping) else None
    return " + ".join(map(str, fns)) if isinstance(fns, list) and fns else None


def _eval_name(spec: object, position: object, out: Collector, current: str | None) -> str | None:
    name = spec.get("eval_name") if isinstance(spec, Mapping) else None
    if not isinstance(name, str) or not name:
        out.bad(position, "the spec line has no 'eval_name' (a string).")
        return current
    return name


def _add_match(
    event: Mapping[str, Any],
    position: object,
    task: str | None,
    seen: Counter[tuple[str, object]],
    out: Collector,
) -> bool:
    """Add one match event; whether it had an expected answer."""
    sample = event["sample_id"]
    data = event.get("data")
    if not isinstance(sample, (str, int)):
        out.bad(position, f"the match event has sample_id {sample!r}; expected a string.")
        return False
    correct = data.get("correct") if isinstance(data, dict) else None
    if not isinstance(correct, bool):
        out.bad(
            position,
            f"the match event has data.correct = {correct!r}; expected true or false.",
        )
        return False
    try:
        key = canonical_key(cast(dict[str, Any], data).get("expected"))
    except (RecursionError, orjson.JSONEncodeError) as exc:  # deep nesting, huge integers
        out.bad(position, f"data.expected cannot be read as a content key ({exc}).")
        return False
    name = task or ""
    run = seen[(name, sample)]
    seen[(name, sample)] += 1
    out.add(
        name,
        sample,
        float(correct),
        position=position,
        metric=METRIC,
        run=run,
        key=key,
    )
    return key is not None


OPENAI_EVALS = _OpenAIEvalsReader()
