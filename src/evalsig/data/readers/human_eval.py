"""HumanEval: the JSON Lines results file written by OpenAI's ``human-eval`` harness.

``evaluate_functional_correctness samples.jsonl`` runs each sample's completion against its
problem's tests and writes ``samples.jsonl_results.jsonl``: every line of the samples file,
in its order, with the outcome added::

    {"task_id": "HumanEval/0", "completion": "    return ...", "result": "passed", "passed": true}
    {"task_id": "HumanEval/0", "completion": "    pass", "result": "failed: ", "passed": false}

The samples of one problem are the lines that share its ``task_id``; the file has no
sample number. Each line is one observation:

* item: ``task_id``;
* value: ``passed`` (true 1, false 0), under the metric ``passed``: the harness's own
  pass@k counts these per ``task_id`` (``human_eval.evaluation``);
* run: the line's index among the lines of its ``task_id``, in file order, so the samples
  of a problem are its runs (pass@k's samples, ``evalsig pass-at-k``);
* task: the part of ``task_id`` before its last ``/`` (``HumanEval``), or ``''``.

``result`` (the outcome in words) and ``completion`` are not scores and are not read. A
line whose ``passed`` is not true or false is malformed (an error, or skipped with
``skip_bad_lines``).

References
----------
.. [1] OpenAI human-eval, https://github.com/openai/human-eval:
   ``human_eval/evaluation.py`` (``evaluate_functional_correctness``, ``combine_results``)
   and ``human_eval/execution.py`` (``check_correctness``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson

from evalsig.data.readers.base import ReadOptions, first_line, open_text, unzipped_head
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import binary, jsonl_records
from evalsig.errors import DataError

__all__ = ["HUMAN_EVAL"]

METRIC = "passed"
FIELDS = ("task_id", "completion", "passed")
"""The fields every results line has (``result`` too, which is not read)."""


def _looks_like_results(head: bytes) -> bool:
    """Whether the first line is a sample with its outcome: ``task_id``, ``completion`` and
    ``passed`` (true or false)."""
    line = first_line(head)
    if not line.startswith(b"{"):
        return False
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:  # a long completion cut off by the head
        return all(f'"{name}"'.encode() in line for name in FIELDS[:2])
    return (
        isinstance(record, dict)
        and isinstance(record.get("task_id"), str)
        and "completion" in record
        and isinstance(record.get("passed"), bool)
    )


class _HumanEvalReader:
    name = "human-eval"

    def sniff(self, path: Path, head: bytes) -> bool:
        suffixes = path.suffixes
        if len(suffixes) >= 2 and suffixes[-1] == ".gz" and suffixes[-2] == ".jsonl":
            return _looks_like_results(unzipped_head(head))
        return path.suffix == ".jsonl" and _looks_like_results(head)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        source = str(path)
        out.version("results (JSON Lines)")
        if options.key_column is not None:
            raise DataError(
                f"{source}: human-eval results have no content key (the problems are named "
                f"by task_id alone); got key_column={options.key_column!r}."
            )
        out.names.update({"id": "task_id", "run": "sample of the task"})
        seen: Counter[str] = Counter()
        with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as text:
            for position, record in jsonl_records(binary(text), out):
                _add(record, position, seen, out)
        if not seen:
            raise DataError(f"{source}: no samples (the file has no results lines).")


def _add(record: object, position: int, seen: Counter[str], out: Collector) -> None:
    """Add one results line (its task_id's next sample)."""
    if not isinstance(record, dict):
        out.bad(position, f"is a JSON {type(record).__name__}, not an object.")
        return
    task_id, passed = record.get("task_id"), record.get("passed")
    if not isinstance(task_id, str) or not task_id:
        out.bad(position, f"has task_id {task_id!r}; expected the problem's name (text).")
        return
    if not isinstance(passed, bool):
        out.bad(position, f"has passed = {passed!r}; expected true or false.")
        return
    task = task_id.rpartition("/")[0]
    run = seen[task_id]
    seen[task_id] += 1
    out.add(task, task_id, float(passed), position=position, metric=METRIC, run=run)


HUMAN_EVAL = _HumanEvalReader()
