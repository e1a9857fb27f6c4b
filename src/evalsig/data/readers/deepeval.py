"""DeepEval test runs: one pydantic ``TestRun`` dumped as JSON with its camelCase aliases.

``deepeval test run`` and ``evaluate()`` save a run when ``DEEPEVAL_RESULTS_FOLDER`` (or
``evaluate(..., results_folder=)``) is set, and deepeval keeps the last run under
``.deepeval/``. The test cases and their per-metric results changed shape over time:

=======================  ===================================================================
deepeval                 file, test cases, one metric's result
=======================  ===================================================================
v0.20.17 - v0.20.71      ``<YYYYMMDD_HHMMSS>`` (no suffix); test cases under
                         ``dict_test_cases`` (keyed by Python object id, ``testCases``
                         empty); ``metricsMetadata`` [{``metric``, ``score``, ``threshold``
                         (``minimumScore`` before v0.20.19), ``success``}]
v0.20.72 - v0.21.77      ``testCases`` and ``conversationalTestCases``;
                         ``metricsMetadata`` [{``metric``, ``score``, ``error`` ...}]
v0.21.78 - v3.9.7        ``metricsData`` [{``name``, ``score``, ``threshold``, ``success``,
                         ``error``, ``strictMode``, ``evaluationModel`` ...}]; a
                         conversation's turns under ``testCases`` until v3.0.6, as ``turns``
                         ({``role``, ``content``}) from v3.0.8
v3.0.6 and later         ``.deepeval/.latest_test_run.json``: the run under ``testRunData``
                         (only ``testRunLink`` when the run went to Confident AI)
v3.9.8 and later         ``test_run_<YYYYMMDD_HHMMSS>.json`` and ``.deepeval/
                         .latest_run_full.json``: the run after wrap-up (``testPassed`` ...)
=======================  ===================================================================

Read here: task = ``datasetAlias``, else the ``testFile`` name, else 'deepeval' (and
'<task> (conversational)' for conversations); item = the test case ``name``; metric = a
metric's ``name`` (``metric`` before v0.21.78), chosen with ``metric=`` when there are
several; score = its ``score`` (continuous), or its pass/fail (``success``: 1/0) with
``metric='<name>:success'``. A metric that errored or has no score is a malformed record,
never a 0. Names are pytest test names, or ``test_case_<position>`` in the list given to
``evaluate()``: so every item carries a content key, a hash of its input and expected
output (a conversation's scenario and expected outcome, or its first user turn) with the
judge (``evaluationModel``), and the threshold for pass/fail. ``id_column='input'`` pairs
test cases by that hash instead of by name. Names ending in pytest-repeat's ``[k-N]``
(``deepeval test run -r N``) are read as run k of one test case.

Reference: confident-ai/deepeval at v0.20.50, v0.21.50, v0.21.78, v3.0.8, v3.9.8 and
v4.1.8: ``deepeval/test_run/test_run.py`` (``TestRun``, ``save_test_run_locally``),
``deepeval/test_run/api.py`` (``LLMApiTestCase``, ``ConversationalApiTestCase``,
``MetricData``), ``deepeval/evaluate/local_store.py`` (``write_test_run``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_record
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import read_json
from evalsig.errors import DataError, FormatError, examples

__all__ = ["DEEPEVAL"]

WRAPPER = "testRunData"
"""The key of ``.deepeval/.latest_test_run.json`` holding the run (v3.0.6 and later)."""
LINK = "testRunLink"
SUCCESS = ":success"
"""Suffix of a metric name asking for its pass/fail instead of its score."""
CONVERSATIONAL = " (conversational)"
REPEAT = re.compile(r"^(?P<head>.*?)(?P<sep>\[|-)(?P<k>\d+)-(?P<n>\d+)\]$")
"""pytest-repeat's id: 'test_x[2-3]' or 'test_x[golden0-2-3]' is run 2 of 3."""
POSITIONAL = re.compile(r"^(conversational_)?test_case_\d+$")
_RUN_KEYS = re.compile(rb'"(?:testCases|dict_test_cases)"\s*:\s*[\[{]')
_FIRST_CASE = re.compile(
    rb'"(?:testCases"\s*:\s*\[|dict_test_cases"\s*:\s*\{\s*"\d+"\s*:)\s*'
    rb'\{\s*"name"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"(?:input|multimodalInput|actualOutput)"\s*:'
)
"""The start of a run's first test case (its ``name``, then its input), for a run whose
first record is longer than the head."""


@dataclass(frozen=True, slots=True)
class _Case:
    """One test case or conversation (or, before v3.0.8, one scored turn of one)."""

    task: str
    position: str
    record: Mapping[str, Any]
    digest: str | None
    """A hash of what was asked: input and expected output (see :func:`_digest`)."""


def _is_test_run(record: Mapping[str, Any]) -> bool:
    cases = isinstance(record.get("testCases"), list) or isinstance(
        record.get("dict_test_cases"), dict
    )
    return cases and ("metricsScores" in record or "metricScores" in record)


class _DeepEvalReader:
    name = "deepeval"

    def sniff(self, path: Path, head: bytes) -> bool:
        record = first_record(head)
        if record is None:  # a run longer than the head: its first keys and a metric list
            start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
            if not start.startswith(b"{"):
                return False
            if _FIRST_CASE.search(start[:8192]):
                return True
            return _RUN_KEYS.search(start[:4096]) is not None and (
                b'"metricsData"' in head or b'"metricsMetadata"' in head
            )
        if set(record) == {LINK}:
            return isinstance(record[LINK], str)
        run = record.get(WRAPPER, record)
        return isinstance(run, Mapping) and _is_test_run(run)

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        _check_options(path, options)
        document = read_json(path, options)
        run = _unwrap(path, document)
        task = _task_name(run)
        cases = list(_llm_cases(run, task, out)) + list(
            _conversation_cases(run, task + CONVERSATIONAL, out)
        )
        out.version(_layout(document, run, cases))
        out.names.update(
            {"id": "hash of input" if options.id_column == "input" else "name", "score": "score"}
        )
        out.offer(keys=["input", "expectedOutput", "evaluationModel"])
        _describe_run(path, run, out)
        items = _item_ids(path, cases, options, out)
        tally = _Tally(wanted=options.metric, metric_names=_metric_names(cases))
        for case in cases:
            if case.position in items:
                item, repeat = items[case.position]
                _add_case(case, item, repeat, options, tally, out)
        tally.report(path, out)


def _check_options(path: Path, options: ReadOptions) -> None:
    if options.id_column not in (None, "name", "input"):
        raise FormatError(
            f"{path}: deepeval test cases are named by 'name' (the default) or by a hash of "
            f"their 'input' (id_column='input'); got id_column={options.id_column!r}."
        )
    if options.key_column is not None:
        raise FormatError(
            f"{path}: the content key of a deepeval test case is built automatically (a hash "
            f"of its input and expected output, with the judge); got "
            f"key_column={options.key_column!r}: drop it."
        )


def _unwrap(path: Path, document: Any) -> Mapping[str, Any]:
    """The ``TestRun`` object of a document, refusing what holds none."""
    if isinstance(document, Mapping) and set(document) == {LINK}:
        raise FormatError(
            f"{path}: holds only the link to the test run on Confident AI "
            f"({str(document[LINK])[:80]!r}): its results were uploaded, not kept. Set "
            "DEEPEVAL_RESULTS_FOLDER (or evaluate(..., results_folder=...)) to save each "
            "run as test_run_<timestamp>.json, and pass that file."
        )
    run = document.get(WRAPPER, document) if isinstance(document, Mapping) else None
    if not isinstance(run, Mapping) or not _is_test_run(run):
        raise FormatError(
            f"{path}: not a deepeval test run (expected a JSON object with 'testCases' and "
            "'metricsScores', or one under 'testRunData')."
        )
    return run


def _task_name(run: Mapping[str, Any]) -> str:
    """``datasetAlias``, else the name of ``testFile``, else 'deepeval'.

    Never ``identifier`` nor ``hyperparameters``: they name the model or configuration,
    which differ between the two runs being compared."""
    alias = run.get("datasetAlias")
    if isinstance(alias, str) and alias:
        return alias
    test_file = run.get("testFile")
    if isinstance(test_file, str) and test_file.strip("./"):
        return Path(test_file).name
    return "deepeval"


def _llm_cases(run: Mapping[str, Any], task: str, out: Collector) -> Iterator[_Case]:
    listed = run.get("testCases")
    records: list[tuple[str, object]] = [
        (f"testCases[{i}]", record) for i, record in enumerate(listed or [])
    ]
    early = run.get("dict_test_cases")  # v0.20.17 - v0.20.71: testCases stays empty
    if not records and isinstance(early, Mapping):
        records = [(f"dict_test_cases[{key!r}]", record) for key, record in early.items()]
    for position, record in records:
        if not isinstance(record, Mapping):
            out.bad(position, f"is {_show(record)}, not a JSON object (a test case).")
            continue
        source = record.get("input")
        if source is None:
            source = record.get("multimodalInput")
        expected = record.get("expectedOutput", record.get("multimodalExpectedOutput"))
        yield _Case(task, position, record, _digest([source, expected]) if source else None)


def _conversation_cases(run: Mapping[str, Any], task: str, out: Collector) -> Iterator[_Case]:
    """Conversations, and (before v3.0.8) their turns that were scored on their own."""
    for i, record in enumerate(run.get("conversationalTestCases") or []):
        position = f"conversationalTestCases[{i}]"
        if not isinstance(record, Mapping):
            out.bad(position, f"is {_show(record)}, not a JSON object (a conversation).")
            continue
        turns = record.get("turns", record.get("testCases"))
        turns = turns if isinstance(turns, list) else []
        digest = _conversation_digest(record, turns)
        if _entries(record) or not any(_entries(t) for t in turns if isinstance(t, Mapping)):
            yield _Case(task, position, record, digest)
        if "testCases" not in record:
            continue
        for j, turn in enumerate(turns):
            if isinstance(turn, Mapping) and _entries(turn):
                parent = record.get("name")
                scored = {**turn, "name": f"{parent}/{turn.get('name')}" if parent else None}
                source = [turn.get("input"), turn.get("expectedOutput")]
                yield _Case(task, f"{position}.testCases[{j}]", scored, _digest(source))


def _conversation_digest(record: Mapping[str, Any], turns: list[Any]) -> str | None:
    """What a conversation asks, the same for every model: its scenario and expected
    outcome (v3.2.6 and later), else its first user turn (or first turn's input)."""
    golden = [record.get("scenario"), record.get("expectedOutcome")]
    if any(golden):
        return _digest(golden)
    for turn in turns:
        if not isinstance(turn, Mapping):
            continue
        if "role" in turn:
            if turn.get("role") == "user":
                return _digest([turn.get("content")])
        elif turn.get("input") is not None:
            return _digest([turn.get("input")])
    return None


def _digest(parts: Sequence[object]) -> str:
    text = json.dumps(list(parts), ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _entries(record: Mapping[str, Any]) -> Any:
    """The per-metric results of a test case: ``metricsData`` (v0.21.78+) or
    ``metricsMetadata`` (before)."""
    return record["metricsData"] if "metricsData" in record else record.get("metricsMetadata")


def _layout(document: Any, run: Mapping[str, Any], cases: list[_Case]) -> str:
    if "dict_test_cases" in run and not run.get("testCases"):
        return "v0.20.17-v0.20.71 (dict_test_cases, metricsMetadata)"
    if any("metricsMetadata" in case.record for case in cases):
        return "v0.20.72-v0.21.77 (metricsMetadata)"
    if isinstance(document, Mapping) and WRAPPER in document:
        return "v3.0.6 or later (.latest_test_run.json, testRunData)"
    if "testPassed" in run:
        return "v3.9.8 or later (test_run_<timestamp>.json)"
    return "v0.21.78-v3.9.7 (metricsData)"


def _describe_run(path: Path, run: Mapping[str, Any], out: Collector) -> None:
    """A note naming the run and its model, so that ``inspect`` shows whose it is."""
    parts = []
    identifier = run.get("identifier")
    if isinstance(identifier, str):
        parts.append(f"identifier {identifier!r}")
    settings = run.get("hyperparameters", run.get("configurations"))
    if isinstance(settings, Mapping) and settings:
        shown = [f"{k}={_show(v)}" for k, v in list(settings.items())[:4]]
        parts.append("hyperparameters " + ", ".join(shown))
    if parts:
        out.notes.append(f"{path.name}: deepeval test run with {'; '.join(parts)}.")


def _item_ids(
    path: Path, cases: list[_Case], options: ReadOptions, out: Collector
) -> dict[str, tuple[str, int | None]]:
    """Each case's (item, run) by position: its name or input hash, and its pytest-repeat
    run number (None without repeats)."""
    named: dict[str, list[tuple[str, str]]] = {}  # task -> [(position, id)]
    for case in cases:
        given = case.digest if options.id_column == "input" else case.record.get("name")
        if not isinstance(given, str) or not given:
            field = "input" if options.id_column == "input" else "name"
            out.bad(case.position, f"has no {field!r} (the item id); it is {_show(given)}.")
            continue
        named.setdefault(case.task, []).append((case.position, given))
    result: dict[str, tuple[str, int | None]] = {}
    for task, pairs in named.items():
        repeats, count = _repeats([given for _, given in pairs])
        if repeats:
            out.notes.append(
                f"{path.name}: test case names end in pytest-repeat's [k-{count}] (deepeval "
                f"test run -r {count}): read as {count} runs of each test case."
            )
        ids = {position: repeats.get(given, (given, None)) for position, given in pairs}
        _refuse_duplicates(path, task, ids, options)
        result.update(ids)
    if options.id_column is None and any(
        POSITIONAL.match(given) for pairs in named.values() for _, given in pairs
    ):
        out.notes.append(
            f"{path.name}: items named test_case_<k> are positions in the list given to "
            "evaluate(), checked by a hash of each input and expected output: a file whose "
            "test_case_<k> asks something else stops with a mismatch (pair by content with "
            "id_column='input' / --id input)."
        )
    return result


def _repeats(names: list[str]) -> tuple[dict[str, tuple[str, int | None]], int]:
    """({name: (test case, run)}, N) when every name ends in one pytest-repeat count
    N >= 2; else ({}, 0)."""
    found = {}
    for name in names:
        match = REPEAT.match(name)
        if match is None:
            return {}, 0
        head = match["head"] + ("]" if match["sep"] == "-" else "")
        found[name] = (head, int(match["k"]), int(match["n"]))
    counts = {n for _, _, n in found.values()}
    if len(counts) != 1 or min(counts) < 2:
        return {}, 0
    if any(not 1 <= k <= n for _, k, n in found.values()):
        return {}, 0
    return {name: (head, k) for name, (head, k, _) in found.items()}, min(counts)


def _refuse_duplicates(
    path: Path, task: str, ids: Mapping[str, tuple[str, int | None]], options: ReadOptions
) -> None:
    """Two test cases under one id would be pooled as one item: refuse, with the fix."""
    seen = Counter(ids.values())
    repeated = next((key for key, count in seen.items() if count > 1), None)
    if repeated is None:
        return
    where = [position for position, key in ids.items() if key == repeated]
    if options.id_column == "input":
        raise DataError(
            f"{path}: {len(where)} test cases of task {task!r} ask the same input and "
            f"expected output ({examples(where)}); pair them by 'name' instead (drop "
            "id_column='input')."
        )
    raise DataError(
        f"{path}: the test case name {repeated[0]!r} is shared by {len(where)} test cases "
        f"({examples(where)}) in task {task!r}: one test that evaluates several cases, or "
        "several evaluate() calls in one run. Give each LLMTestCase its own name=, or pair "
        "the test cases by a hash of their input with id_column='input' (--id input)."
    )


def _metric_names(cases: list[_Case]) -> dict[str, set[str]]:
    """The metric names of each task."""
    names: dict[str, set[str]] = {}
    for case in cases:
        entries = _entries(case.record)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping):
                name = _metric_name(entry)
                if isinstance(name, str):
                    names.setdefault(case.task, set()).add(name)
    return names


def _metric_name(entry: Mapping[str, Any]) -> object:
    return entry["name"] if "name" in entry else entry.get("metric")


@dataclass(slots=True)
class _Tally:
    """Which metric results matter, and counts of those left out (for the notes)."""

    wanted: str | None
    metric_names: dict[str, set[str]]
    """The metric names of each task."""
    unscored: int = 0
    errored: Counter[str] | None = None

    def relevant(self, task: str, metric: str) -> bool:
        """Whether a missing score of ``metric`` is an error: it is (or will be) chosen."""
        if self.wanted is not None:
            return self.wanted in (metric, metric + SUCCESS)
        return len(self.metric_names.get(task, ())) == 1

    def scored_in(self, task: str) -> bool:
        """Whether the wanted metric is one of the task's (so a case without it is noted)."""
        wanted = self.wanted
        return wanted is not None and wanted.removesuffix(SUCCESS) in self.metric_names.get(
            task, ()
        )

    def count_error(self, metric: str) -> None:
        self.errored = self.errored or Counter()
        self.errored[metric] += 1

    def report(self, path: Path, out: Collector) -> None:
        if self.unscored:
            out.notes.append(
                f"{path.name}: {self.unscored} test case(s) were not scored with metric "
                f"{self.wanted!r}: left out."
            )
        if self.errored:
            shown = ", ".join(f"{m!r} ({n})" for m, n in sorted(self.errored.items()))
            out.notes.append(
                f"{path.name}: metrics with errored or missing scores: {shown}; they are "
                "malformed records when the metric is chosen."
            )
        if self.metric_names and self.wanted is None:
            first = min(min(names) for names in self.metric_names.values())
            out.notes.append(
                f"{path.name}: scores are each metric's 'score'; for its pass/fail against "
                f"its threshold pass metric='<name>{SUCCESS}' (e.g. --metric "
                f"'{first}{SUCCESS}')."
            )


def _add_case(
    case: _Case,
    item: str,
    repeat: int | None,
    options: ReadOptions,
    tally: _Tally,
    out: Collector,
) -> None:
    entries = _entries(case.record)
    if not isinstance(entries, list) or not entries:
        out.bad(case.position, _no_metrics(case.record, entries))
        return
    cluster = None
    if options.cluster_column is not None:
        cluster = _cluster(case, options.cluster_column, out)
        if cluster is None:
            return
    else:
        _hint_clusters(case.record, out)
    found = False
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(_metric_name(entry), str):
            out.bad(case.position, f"{item!r}: a metric result without a name: {_show(entry)}.")
            continue
        name = str(_metric_name(entry))
        found = found or tally.wanted in (name, name + SUCCESS)
        _add_metric(case, item, repeat, name, entry, cluster, tally, out)
    if not found and tally.scored_in(case.task):
        tally.unscored += 1


def _add_metric(
    case: _Case,
    item: str,
    repeat: int | None,
    name: str,
    entry: Mapping[str, Any],
    cluster: object,
    tally: _Tally,
    out: Collector,
) -> None:
    """The score of one metric result (and its pass/fail when ``metric='<name>:success'``)."""
    judge = entry.get("evaluationModel")
    key = case.digest and (
        case.digest
        + (f"|judge={judge}" if judge else "")
        + ("|strict" if entry.get("strictMode") else "")
    )
    error = entry.get("error")
    score = entry.get("score")
    value = None if error else _number(score)
    if value is None:
        if tally.relevant(case.task, name):
            out.bad(case.position, f"{item!r}: metric {name!r} has {_problem(error, score)}.")
        else:
            tally.count_error(name)
        return
    if tally.wanted == name + SUCCESS:
        success = entry.get("success")
        if not isinstance(success, bool):
            out.bad(case.position, f"{item!r}: metric {name!r} has 'success' {_show(success)}.")
            return
        threshold = entry.get("threshold", entry.get("minimumScore"))
        out.add(
            case.task,
            item,
            1.0 if success else 0.0,
            position=case.position,
            metric=name + SUCCESS,
            run=repeat,
            cluster=cluster,
            key=key and f"{key}|threshold={threshold}",
        )
    out.add(
        case.task,
        item,
        value,
        position=case.position,
        metric=name,
        run=repeat,
        cluster=cluster,
        key=key,
    )


def _no_metrics(record: Mapping[str, Any], entries: object) -> str:
    trace = record.get("trace")
    spans = trace.values() if isinstance(trace, Mapping) else ()
    if any(
        isinstance(s, list) and any(_entries(x) for x in s if isinstance(x, Mapping)) for s in spans
    ):
        return (
            f"{_show(record.get('name'))}: no metric results of its own; its scores are on "
            "trace spans (component-level evaluation), which evalsig does not read: score "
            "the test case end to end (metrics= of evaluate() / assert_test)."
        )
    field = "metricsMetadata" if "metricsMetadata" in record else "metricsData"
    return f"{_show(record.get('name'))}: {field!r} is {_show(entries)}: no scores."


def _cluster(case: _Case, column: str, out: Collector) -> object:
    try:
        value = nested(case.record, column)
    except KeyError:
        out.bad(case.position, f"has no field {column!r} (the cluster).")
        return None
    if value is None or isinstance(value, (list, dict)):
        out.bad(case.position, f"field {column!r} is {_show(value)}, not one cluster label.")
        return None
    return value


def _hint_clusters(record: Mapping[str, Any], out: Collector) -> None:
    for field in ("metadata", "additionalMetadata"):
        values = record.get(field)
        if isinstance(values, Mapping):
            for key, value in values.items():
                out.hint_cluster(f"{field}.{key}", value)


def _number(value: object) -> float | None:
    """A finite score as a float; None for null, NaN, infinities, booleans and text."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the float range
        return None
    return number if math.isfinite(number) else None


def _problem(error: object, score: object) -> str:
    if error:
        return f"no score: it errored ({_show(error)})"
    if score is None:
        return "no 'score'"
    return f"'score' {_show(score)}, not a number"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


DEEPEVAL = _DeepEvalReader()
