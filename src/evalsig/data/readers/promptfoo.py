"""promptfoo ``promptfoo eval --output results.json`` (or ``.jsonl``): one result per test row
and column, a column being one provider with one prompt.

=====================  ======================================================================
promptfoo              what ``--output`` writes
=====================  ======================================================================
0.24 - 0.91 (.json)    ``{evalId, results, config, shareableUrl}`` (``evalId`` since 0.59-0.69):
                       ``results`` is EvaluateSummary version 2, ``{version, timestamp,
                       results, table, stats}``; ``results`` lists results in the order they
                       finished, without their row, so the ``table`` is read: ``head.prompts``
                       (one per column: ``provider``, ``label`` or ``display``) and ``body``
                       (one per test row: ``vars``, ``test``, ``outputs[column]`` with
                       ``pass``, ``score``, ``namedScores``)
0.92 and later (.json) the same wrapper (after 0.99 also ``metadata.promptfooVersion``) around
                       EvaluateSummary version 3, ``{version, timestamp, prompts, results,
                       stats}``: every result carries ``testIdx``, ``promptIdx``,
                       ``provider {id, label}``, ``testCase``, ``vars``, ``success``,
                       ``score``, ``namedScores``, later ``failureReason`` (2: an error)
0.99 and later         one result per line, the fields of version 3 (0.99 also ``evalId``;
(.jsonl)               it appended to the file and glued batches together with no newline
                       between them: ``}{``; both are read, an appended file chosen by eval)
=====================  ======================================================================

Read here: task = ``promptfoo``; item = ``testIdx`` (the table row in version 2); metric =
``score`` (promptfoo's per-result score, the weighted mean of its assertions' scores), or
``pass`` (``success`` as 1/0: what promptfoo's pass rate counts), or a named score
(``namedScores``, metrics named in the config) with ``metric=``. An error (a provider or
runtime failure, not a graded answer) is a failure with score 0, as promptfoo counts it, and
noted. ``--repeat N`` gives each repeat its own ``testIdx`` and records no repeat number, so
rows holding the same test case (same vars, assertions, description) are runs of one item,
the item being the first row's ``testIdx``; the content key is a hash of the test's vars.
A file of several providers or prompts is chosen from with ``where={'provider': ...}``
(id or label) and ``where={'prompt': ...}`` (label, prompt id or ``promptIdx``).

Model: the chosen column's provider as promptfoo shows it, its ``label`` when the config
gives one (two configurations of one model are told apart by it), else its ``id``
(``openai:gpt-4o-mini``); version 2 takes it from the table head (``head.prompts[c].provider``)
or the results. A version 2 file of promptfoo before 0.31, whose columns name no provider,
names no model.

Reference: promptfoo/promptfoo, ``src/util/output.ts`` (``writeOutput``; earlier
``src/util/index.ts``, and ``src/util.ts`` before 0.80), ``src/models/eval.ts``
(``toEvaluateSummary``), ``src/evaluator.ts`` (the ``repeatIndex`` loop); the npm releases
0.24.2, 0.43.1, 0.58.0, 0.69.2, 0.70.1, 0.91.3, 0.92.2, 0.99.0 and 0.121.20.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_record, open_text
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import loads, read_json, suffix
from evalsig.errors import DataError, FormatError

__all__ = ["PROMPTFOO"]

TASK = "promptfoo"
ERROR = 2
"""``failureReason`` of a result that failed with an error (promptfoo's ResultFailureReason)."""
WHERE_KEYS = ("prompt", "provider", "evalId")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
WRAPPER_START = re.compile(
    rb'\A\s*\{\s*(?:"evalId"\s*:\s*(?:"[^"]*"|null)\s*,\s*)?"results"\s*:\s*\{\s*"version"\s*:'
)
MISSING = object()
UNKNOWN_PROVIDER = "unknown provider"
"""A version 2 column whose provider the file does not record."""
DISPLAY_PROVIDER = re.compile(r"\A\[([^\]]+)\] ")
"""promptfoo before 0.43 named a column '[provider id] prompt' when there were several."""


@dataclass(frozen=True, slots=True)
class _Column:
    """One column of a promptfoo eval: a provider with a prompt."""

    provider: str
    """The provider as promptfoo shows it: its label, else its id."""
    aliases: frozenset[str]
    """Names that choose it with ``where={'provider': ...}``: id and label."""
    prompt: str
    prompt_idx: int
    prompt_keys: frozenset[str]
    """Names that choose the prompt: its label, its id, its ``promptIdx``."""
    eval_id: str | None

    def names(self, field: str) -> set[str]:
        """The values of ``field`` (a ``where`` key) that choose this column."""
        if field == "evalId":
            return {self.eval_id} if self.eval_id else set()
        return set(self.aliases if field == "provider" else self.prompt_keys)

    def shown(self, field: str) -> str:
        """This column in a list of choices of ``field``."""
        if field == "evalId":
            return repr(self.eval_id)
        if field == "provider":
            others = sorted(self.aliases - {self.provider})
            return repr(self.provider) + (f" (id {others[0]!r})" if others else "")
        return f"{self.prompt!r} (promptIdx {self.prompt_idx})"


@dataclass(frozen=True, slots=True)
class _Result:
    """One graded result (a cell of promptfoo's table)."""

    position: int | str
    test_idx: int
    column: _Column
    success: bool
    score: float
    named: Mapping[str, Any]
    error: bool
    test: Mapping[str, Any]
    vars: Mapping[str, Any]
    identity: str | None
    """A digest of the test case: equal for repeats of one test; None when stripped."""


class _PromptfooReader:
    name = "promptfoo"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        kind = suffix(path)
        if kind not in (".json", *JSONL_SUFFIXES):
            return False
        record = first_record(head)
        if record is None:  # a first record longer than the head
            return _sniff_bytes(head, jsonl=kind != ".json")
        if kind == ".json":
            return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{" and _summary(record) is not None
        return _looks_like_result(record)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        unknown = sorted({key for key, _ in options.where} - set(WHERE_KEYS))
        if unknown:
            raise DataError(
                f"{path}: where= key(s) {', '.join(map(repr, unknown))} are not promptfoo "
                "fields; choose with 'provider' (id or label), 'prompt' (label, prompt id or "
                "promptIdx) or 'evalId'."
            )
        if suffix(path) in JSONL_SUFFIXES:
            results = _jsonl_results(path, options, out)
        else:
            results = _document_results(path, options, out)
        chosen = _choose(results, dict(options.where), path)
        if chosen and chosen[0].column.provider != UNKNOWN_PROVIDER:
            out.model(chosen[0].column.provider)
        _Emitter(path, options, out).emit(chosen)


# --- detection ---------------------------------------------------------------------------


def _summary(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The EvaluateSummary in an output file: ``results`` with a results list, and a table
    (version 2) or prompts (version 3); None when the document is not one."""
    summary = document.get("results")
    if not isinstance(summary, dict) or not isinstance(summary.get("results"), list):
        return None
    if isinstance(summary.get("table"), dict) or isinstance(summary.get("prompts"), list):
        return summary
    return None


def _looks_like_result(record: Mapping[str, Any]) -> bool:
    """An EvaluateResult: the indices of its cell, a test case, a verdict and a score."""
    return (
        isinstance(record.get("testIdx"), int)
        and "promptIdx" in record
        and isinstance(record.get("testCase"), dict)
        and "success" in record
        and "score" in record
    )


def _sniff_bytes(head: bytes, *, jsonl: bool) -> bool:
    """A file whose first record is longer than the head (a long response or grading): by
    the fields that precede the response in promptfoo's key order."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if jsonl:
        return text[:1] == b"{" and all(f in head for f in (b'"promptIdx":', b'"promptId":'))
    return (
        WRAPPER_START.match(text) is not None
        and b'"provider"' in head
        and (b'"prompt"' in head or b'"testPassCount"' in head)
    )


# --- parsing -----------------------------------------------------------------------------


def _document_results(path: Path, options: ReadOptions, out: Collector) -> list[_Result]:
    """The results of a ``.json`` output file, version 3 or (from its table) version 2."""
    document = read_json(path, options)
    summary = _summary(document) if isinstance(document, dict) else None
    if summary is None:
        raise FormatError(
            f"{path}: not a promptfoo output file: expected an object whose 'results' holds "
            "'version', a 'results' list and a 'table' (version 2) or 'prompts' (version 3), "
            "as promptfoo eval --output results.json writes."
        )
    eval_id = _text(document.get("evalId"))
    version = summary.get("version")
    listed = summary["results"]
    if version == 3 or (listed and isinstance(listed[0], dict) and "testIdx" in listed[0]):
        if version == 3:
            out.version(_version_3(document))
        else:
            out.unknown_version("EvaluateSummary version", version, "version 3 (its results)")
        return [
            result
            for number, record in enumerate(listed)
            if (result := _result(record, f"results[{number}]", eval_id, out)) is not None
        ]
    if not isinstance(summary.get("table"), dict):
        raise FormatError(
            f"{path}: EvaluateSummary version {version!r} has results without 'testIdx' and "
            "no 'table' to place them in rows; export the eval again with a current "
            "promptfoo (promptfoo export eval EVAL_ID --output results.json)."
        )
    if version == 2:
        out.version("v2 (EvaluateSummary version 2: its table; promptfoo 0.91 or earlier)")
    else:
        out.unknown_version("EvaluateSummary version", version, "version 2 (its table)")
    return _table_results(summary, eval_id, path, out)


def _version_3(document: Mapping[str, Any]) -> str:
    metadata = document.get("metadata")
    release = metadata.get("promptfooVersion") if isinstance(metadata, dict) else None
    made = f"promptfoo {release}" if isinstance(release, str) else "promptfoo 0.92 or later"
    return f"v3 (EvaluateSummary version 3; {made})"


def _jsonl_results(path: Path, options: ReadOptions, out: Collector) -> list[_Result]:
    """One result per line; batches glued by promptfoo 0.99 (``}{``) are split."""
    out.version("JSONL (one result per line; promptfoo 0.99 or later)")
    results: list[_Result] = []
    glued = 0
    with open_text(path, max_decompressed_bytes=options.max_decompressed_bytes) as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            records = _line_records(line, number, out)
            glued += len(records) > 1
            for record in records:
                result = _result(record, number, None, out)
                if result is not None:
                    results.append(result)
    if glued:
        out.notes.append(
            f"{path.name}: {glued} line(s) held several results written without a newline "
            "between them (promptfoo 0.99 joined its JSONL batches so); each was read."
        )
    return results


def _line_records(line: str, number: int, out: Collector) -> list[Any]:
    try:
        return [loads(line)]
    except ValueError as exc:
        first = exc
    records: list[Any] = []
    decoder, at, end = json.JSONDecoder(), 0, len(line.rstrip())
    try:
        while at < end:
            record, at = decoder.raw_decode(line, at)
            records.append(record)
            while at < end and line[at] in " \t\r":
                at += 1
    except (ValueError, RecursionError):
        out.bad(number, f"is not valid JSON ({first}); is the line truncated?")
        return []
    return records


def _result(
    record: Any, position: int | str, eval_id: str | None, out: Collector
) -> _Result | None:
    """A version 3 EvaluateResult, checked; None (and ``out.bad``) when malformed."""
    if not isinstance(record, dict):
        out.bad(position, f"is {_show(record)}, not a result object.")
        return None
    checked = _checked(record, position, out)
    if checked is None:
        return None
    test_idx, prompt_idx, provider, success, score = checked
    test, prompt = _dict(record.get("testCase")), _dict(record.get("prompt"))
    variables = _dict(record.get("vars")) or _dict(test.get("vars"))
    reason = record.get("failureReason")
    if isinstance(reason, int) and not isinstance(reason, bool):
        error = reason == ERROR
    else:  # before failureReason: an error has no grading
        error = not success and bool(record.get("error")) and not record.get("gradingResult")
    label = _text(prompt.get("label")) or _text(prompt.get("display")) or f"prompt {prompt_idx}"
    column = _Column(
        provider=_text(provider.get("label")) or str(provider["id"]),
        aliases=frozenset(filter(None, (_text(provider.get("id")), _text(provider.get("label"))))),
        prompt=label,
        prompt_idx=prompt_idx,
        prompt_keys=frozenset(
            filter(None, (label, _text(record.get("promptId")), str(prompt_idx)))
        ),
        eval_id=_text(record.get("evalId")) or eval_id,
    )
    return _Result(
        position=position,
        test_idx=test_idx,
        column=column,
        success=success,
        score=score,
        named=_dict(record.get("namedScores")),
        error=error,
        test=test,
        vars=variables,
        identity=_identity(test, variables, prompt.get("raw")),
    )


def _checked(
    record: Mapping[str, Any], position: int | str, out: Collector
) -> tuple[int, int, Mapping[str, Any], bool, float] | None:
    """testIdx, promptIdx, provider, success and score of a result, or None (reported)."""
    for field in ("testIdx", "promptIdx"):
        value = record.get(field, MISSING)
        if not _index(value):
            out.bad(position, f"{field!r} is {_show(value)}, not an index (an integer >= 0).")
            return None
    provider = record.get("provider")
    if not isinstance(provider, dict) or not isinstance(provider.get("id"), str):
        out.bad(position, f"'provider' is {_show(provider)}, not an object with an 'id'.")
        return None
    verdicts = _verdicts(record.get("success", MISSING), record.get("score", MISSING))
    if isinstance(verdicts, str):
        out.bad(position, verdicts)
        return None
    return record["testIdx"], record["promptIdx"], provider, *verdicts


def _verdicts(success: Any, score: Any, *, name: str = "success") -> tuple[bool, float] | str:
    """The pass/fail verdict and the score, or what is wrong with them."""
    if not isinstance(success, bool):
        return f"{name!r} is {_show(success)}, not true or false."
    if not _finite(score):
        return f"'score' is {_show(score)}, not a finite number."
    return success, float(score)


def _table_results(
    summary: Mapping[str, Any], eval_id: str | None, path: Path, out: Collector
) -> list[_Result]:
    """The cells of a version 2 table: row index = testIdx, column = head.prompts index."""
    table = summary["table"]
    head, body = table.get("head"), table.get("body")
    if not isinstance(head, dict) or not isinstance(head.get("prompts"), list):
        raise FormatError(f"{path}: results.table has no 'head.prompts' list (its columns).")
    if not isinstance(body, list):
        raise FormatError(f"{path}: results.table has no 'body' list (its rows).")
    names = head["vars"] if isinstance(head.get("vars"), list) else []
    columns = _table_columns(head["prompts"], body, summary["results"], eval_id)
    results: list[_Result] = []
    for row_idx, row in enumerate(body):
        if not isinstance(row, dict) or not isinstance(row.get("outputs"), list):
            out.bad(f"table.body[{row_idx}]", "is not a row object with an 'outputs' list.")
            continue
        test, variables = _row_test(row, names)
        identity = _identity(test, variables, None)
        for col, cell in enumerate(row["outputs"]):
            if cell is None:  # this column did not run this test
                continue
            position = f"table.body[{row_idx}].outputs[{col}]"
            if not isinstance(cell, dict) or col >= len(columns):
                out.bad(position, f"is {_show(cell)}, not an output of a column in head.prompts.")
                continue
            verdicts = _verdicts(cell.get("pass", MISSING), cell.get("score", MISSING), name="pass")
            if isinstance(verdicts, str):
                out.bad(position, verdicts)
                continue
            success, score = verdicts
            results.append(
                _Result(
                    position=position,
                    test_idx=row_idx,
                    column=columns[col],
                    success=success,
                    score=score,
                    named=_dict(cell.get("namedScores")),
                    error=not success and not cell.get("gradingResult"),
                    test=test,
                    vars=variables,
                    identity=identity,
                )
            )
    return results


def _row_test(
    row: Mapping[str, Any], names: list[Any]
) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """A table row's test case and vars: ``row.test`` (0.43+), else its vars by name."""
    test = row.get("test")
    if isinstance(test, dict):
        variables = test.get("vars")
        return test, variables if isinstance(variables, dict) else {}
    shown = row.get("vars")
    variables = (
        dict(zip(map(str, names), shown, strict=True))
        if isinstance(shown, list) and len(shown) == len(names)
        else {}
    )
    return {"vars": variables, "description": row.get("description")}, variables


def _table_columns(
    prompts: list[Any], body: list[Any], listed: list[Any], eval_id: str | None
) -> list[_Column]:
    """Each column's provider: ``head.prompts[c].provider`` (0.43+), else the outputs'
    ``provider`` (0.31+), else the one provider of the results, else '[id] ' in the name."""
    aliases: dict[str, set[str]] = {}
    for record in listed:
        provider = record.get("provider") if isinstance(record, dict) else None
        if isinstance(provider, dict):
            names = {_text(provider.get("id")), _text(provider.get("label"))} - {None}
            shown = _text(provider.get("label")) or _text(provider.get("id"))
            if shown:
                aliases.setdefault(shown, set()).update(n for n in names if n)
    columns = []
    for col, given in enumerate(prompts):
        prompt = _dict(given)
        label = _text(prompt.get("label")) or _text(prompt.get("display")) or f"prompt {col}"
        provider = (
            _text(prompt.get("provider"))
            or _cell_provider(body, col)
            or (next(iter(aliases)) if len(aliases) == 1 else None)
            or _display_provider(label)
            or UNKNOWN_PROVIDER
        )
        columns.append(
            _Column(
                provider=provider,
                aliases=frozenset({provider, *aliases.get(provider, ())}),
                prompt=label,
                prompt_idx=col,
                prompt_keys=frozenset(filter(None, (label, _text(prompt.get("id")), str(col)))),
                eval_id=eval_id,
            )
        )
    return columns


def _cell_provider(body: list[Any], col: int) -> str | None:
    for row in body:
        outputs = row.get("outputs") if isinstance(row, dict) else None
        if isinstance(outputs, list) and col < len(outputs) and isinstance(outputs[col], dict):
            return _text(outputs[col].get("provider"))
    return None


def _display_provider(label: str) -> str | None:
    match = DISPLAY_PROVIDER.match(label)
    return match.group(1) if match else None


# --- choosing a column -------------------------------------------------------------------


def _choose(results: list[_Result], wanted: dict[str, str], path: Path) -> list[_Result]:
    """The results of one eval, one provider and one prompt: given by ``where`` or the only."""
    for field in WHERE_KEYS[::-1]:  # evalId, provider, prompt
        given = wanted.get(field)
        if given is not None:
            kept = [r for r in results if given in r.column.names(field)]
            if not kept:
                present = sorted({r.column.shown(field) for r in results if r.column.names(field)})
                raise DataError(
                    f"{path}: no result with {field} {given!r}; {field} values: "
                    f"{', '.join(present) or 'none'}."
                )
            results = kept
        present = sorted({r.column.shown(field) for r in results if r.column.names(field)})
        if len(present) > 1:
            raise DataError(_several(path, field, present, given))
    return results


def _several(path: Path, field: str, present: list[str], given: str | None) -> str:
    what, named = {
        "evalId": ("evals appended to one file (promptfoo 0.99 appended to JSONL)", "its id"),
        "provider": ("providers, each one model", "its label or id"),
        "prompt": ("prompts for this provider", "its label, prompt id or promptIdx"),
    }[field]
    held = f"{field} {given!r} matches" if given is not None else "holds results of"
    return (
        f"{path}: {held} {len(present)} {what}: {', '.join(present)}; choose one with "
        f"where={{'{field}': ...}} ({named}; CLI: --where {field}=...)."
    )


# --- observations ------------------------------------------------------------------------


class _Emitter:
    """Adds one column's results to the collector: items, runs, metrics, notes."""

    def __init__(self, path: Path, options: ReadOptions, out: Collector) -> None:
        self.path, self.options, self.out = path, options, out

    def emit(self, results: list[_Result]) -> None:
        results = self._unique(sorted(results, key=lambda r: r.test_idx))
        items = _items(results)
        repeated = any(run for _, run in items)
        self.out.names.update({"id": "testIdx", "run": "repeat"})
        self.out.offer(clusters=_metadata_keys(results), keys=["vars"])
        missing = 0
        for result, (item, run) in zip(results, items, strict=True):
            cluster = self._cluster(result)
            if cluster is _BAD:
                continue
            values, key = self._values(result), _vars_key(result.vars)
            missing += self.options.metric is not None and self.options.metric not in values
            for metric, value in values.items():
                self.out.add(
                    TASK,
                    item,
                    value,
                    position=result.position,
                    metric=metric,
                    run=run if repeated else None,
                    cluster=cluster,
                    key=key,
                )
        self._notes(results, items, missing)

    def _unique(self, results: list[_Result]) -> list[_Result]:
        """One result per testIdx: a second one is malformed (two evals in one file?)."""
        seen: dict[int, int | str] = {}
        kept = []
        for result in results:
            if result.test_idx in seen:
                self.out.bad(
                    result.position,
                    f"repeats testIdx {result.test_idx} of {_where(seen[result.test_idx])} for "
                    "the same provider and prompt; were two evals written to one file?",
                )
                continue
            seen[result.test_idx] = result.position
            kept.append(result)
        return kept

    def _values(self, result: _Result) -> dict[str, float]:
        """The result's metrics: only 'score' unless a metric was asked for."""
        values = {"score": result.score}
        if self.options.metric is None:
            return values
        values["pass"] = float(result.success)
        for name, value in result.named.items():
            metric = _named(name)
            if _finite(value):
                values[metric] = float(value)
            elif metric == self.options.metric:
                self.out.bad(
                    result.position, f"named score {name!r} is {_show(value)}, not a number."
                )
        return values

    def _cluster(self, result: _Result) -> object:
        column = self.options.cluster_column
        if column is None:
            return None
        for place in (result.test, result.test.get("metadata"), result.vars):
            if isinstance(place, dict):
                try:
                    return nested(place, column)
                except KeyError:
                    continue
        self.out.bad(
            result.position,
            f"has no field {column!r} in its test case, test metadata or vars (the cluster).",
        )
        return _BAD

    def _notes(self, results: list[_Result], items: list[tuple[int, int]], missing: int) -> None:
        name, notes = self.path.name, self.out.notes
        if results:
            column = results[0].column
            notes.append(
                f"{name}: provider {column.shown('provider')}, prompt {column.shown('prompt')}."
            )
        if self.options.metric is None:
            named = sorted({_named(k) for r in results for k in r.named})
            also = "".join(f", {n!r}" for n in named[:10]) + (", ..." if len(named) > 10 else "")
            notes.append(
                f"{name}: metric 'score' is promptfoo's per-result score (the weighted mean of its "
                "assertions' scores); the file also holds 'pass' (success as 1/0, what "
                f"promptfoo's pass rate counts){also}: choose with metric= (CLI: --metric)."
            )
        errors = [r.test_idx for r in results if r.error]
        if errors:
            shown = ", ".join(map(str, errors[:3])) + (", ..." if len(errors) > 3 else "")
            notes.append(
                f"{name}: {len(errors)} of {len(results)} results are errors (provider or "
                f"runtime failures, not graded answers: testIdx {shown}); promptfoo counts them "
                "as failures with score 0, and so do 'score' and 'pass' here (they have no named "
                "scores). To compare answers only, rerun them (promptfoo eval --retry-errors in "
                "recent versions)."
            )
        runs = len(results) - len({item for item, _ in items})
        if runs:
            notes.append(
                f"{name}: {runs} of {len(results)} test rows repeat the test case of an earlier "
                "row (promptfoo --repeat gives each repeat its own testIdx): they are read as "
                "runs of one item, whose id is its first testIdx."
            )
        if any(r.identity is None for r in results):
            notes.append(
                f"{name}: test vars and prompts were stripped (PROMPTFOO_STRIP_TEST_VARS, "
                "PROMPTFOO_STRIP_PROMPT_TEXT), so repeats of a test cannot be recognised: each "
                "testIdx is read as its own item."
            )
        if missing:
            notes.append(
                f"{name}: {missing} result(s) have no named score {self.options.metric!r} "
                "(errors, or tests without an assertion of that metric); they are left out."
            )


_BAD = object()


def _items(results: list[_Result]) -> list[tuple[int, int]]:
    """(item, run) per result, in testIdx order: results of one test case share the item
    (its first testIdx) and count runs 0, 1, ..."""
    first: dict[str, int] = {}
    counts: Counter[str] = Counter()
    items = []
    for result in results:
        if result.identity is None:
            items.append((result.test_idx, 0))
            continue
        item = first.setdefault(result.identity, result.test_idx)
        items.append((item, counts[result.identity]))
        counts[result.identity] += 1
    return items


def _identity(test: Mapping[str, Any], variables: Mapping[str, Any], prompt: Any) -> str | None:
    """A digest of a test case: repeats of one test give one digest. With the vars stripped
    the rendered prompt tells tests apart; with both stripped nothing does (None)."""
    if "vars" in test or variables:
        return _digest({"test": test, "vars": variables})
    if isinstance(prompt, str) and prompt != "[prompt stripped]":
        return _digest({"test": test, "prompt": prompt})
    return None


def _vars_key(variables: Mapping[str, Any]) -> str | None:
    """The content key: a hash of the vars as promptfoo's table shows them (text, else
    JSON; empty values left out), so that version 2 and 3 files give one key."""
    shown = {}
    for name, value in variables.items():
        if value in (None, "", 0, False) or value == []:
            continue
        shown[str(name)] = value if isinstance(value, str) else _json(value)
    return _digest(shown)[:16] if shown else None


def _digest(value: Any) -> str:
    return hashlib.sha256(_json(value, sort=True).encode("utf-8")).hexdigest()


def _json(value: Any, *, sort: bool = False) -> str:
    return json.dumps(value, sort_keys=sort, separators=(",", ":"), ensure_ascii=False, default=str)


def _metadata_keys(results: list[_Result]) -> list[str]:
    keys: set[str] = set()
    for result in results:
        keys.update(str(key) for key in _dict(result.test.get("metadata")))
    return sorted(keys)


def _named(name: str) -> str:
    """A named score's metric name; 'namedScores.<name>' when it would shadow score/pass."""
    return f"namedScores.{name}" if name in ("score", "pass") else str(name)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _where(position: int | str) -> str:
    return f"line {position}" if isinstance(position, int) else position


def _show(value: object) -> str:
    text = "missing" if value is MISSING else repr(value)
    return text if len(text) < 60 else text[:57] + "..."


PROMPTFOO = _PromptfooReader()
