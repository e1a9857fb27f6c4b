"""Inspect AI evaluation logs: ``.eval`` archives and ``.json`` logs (no ``inspect_ai`` needed).

A ``.eval`` log is a zip archive: ``header.json`` (``version``, ``status``, ``eval`` with the
task, model and config, ``plan``, ``results``, ``stats``), one ``samples/<id>_epoch_<n>.json``
per sample and epoch, ``reductions.json`` (scores reduced over epochs), ``summaries.json``
and a ``_journal/`` (an unfinished log has ``_journal/start.json`` but no header). A
``.json`` log is one object with the same fields and the samples inline.

Read here: task = ``eval.task``; item = sample ``id`` (as a string); run = ``epoch`` (the
epoch reductions are ignored); metric = scorer name (a key of the sample's ``scores``);
content key = ``target`` (a list of targets as JSON text); cluster = a ``metadata`` field
(dots reach into nested objects). Values are mapped as Inspect's ``value_to_float`` maps
them: ``"C"`` 1, ``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0; numbers as they are, booleans 1 / 0;
``"yes"`` / ``"true"`` 1 and ``"no"`` / ``"false"`` 0 in any case; a string holding a
finite number as that number. Where Inspect would warn and count 0 (a dict or list from a
multi-value scorer, another string, null) the record is refused, as are NaN (Inspect's
mark for a sample its scorer left unscored) and errored, invalidated or unscored samples:
an error naming the sample, or skipped and counted with ``skip_bad_lines``. Text values
other than Inspect's letters are read as ``value_to_float`` reads them, with a note. Archives
are read in memory, a member at a time: absolute or ``..`` member paths are refused, and the
decompressed size is capped per member and in total by ``max_decompressed_bytes``.

Models. Each log names the model it evaluated (``eval.model``; a name that is empty is an
error). Logs of several models, given as a folder (an eval set written by
``inspect_ai.eval_set``, with its ``eval-set.json`` and ``logs.json`` manifests beside the
logs, which are recognised and never read as logs) or a glob, are never runs of one model:
reading them as one model's scores is an error naming the models; ``where={'model': NAME}``
keeps one model's logs, and :func:`evalsig.data.models.harness_models` (``evalsig
leaderboard``) reads each model on its own. A log whose samples were never scored (its
header has no scorer's results, its samples no scores) is described as such by
``evalsig inspect`` and is an error to read ("run ``inspect score``"). A log ``version``
other than 1 or 2 is read as version 2, with a note saying so.

References
----------
Inspect AI, "Eval Logs", https://inspect.aisi.org.uk/eval-logs.html; in its source
(UKGovernmentBEIS/inspect_ai), ``value_to_float`` in ``src/inspect_ai/scorer/_metric.py``
and the ``.eval`` layout in ``src/inspect_ai/log/_recorders/eval.py``.
"""

from __future__ import annotations

import math
import re
import reprlib
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from evalsig.data.readers.archive import Archive, TooLarge
from evalsig.data.readers.base import ReadOptions, read_bytes
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.streams import raise_cap_hint
from evalsig.data.readers.tabular import loads
from evalsig.errors import DataError, FormatError

__all__ = ["INSPECT", "read_log_records", "score_value"]

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_EVAL_KEY = re.compile(rb'"eval"\s*:\s*\{')
_STATUS_KEY = re.compile(rb'"(?:version"\s*:\s*\d|status"\s*:\s*")')
_LOGS_MANIFEST = re.compile(rb'\A\s*\{\s*"[^"]*\.(?:eval|json)"\s*:\s*\{')
_EVAL_SET_MANIFEST = re.compile(rb'\A\s*\{\s*"eval_set_id"\s*:')
KNOWN_VERSIONS = (1, 2)
"""Versions of Inspect's log format evalsig knows (``LOG_SCHEMA_VERSION`` is 2 since
inspect_ai 0.3.26; version 1 logs are read the same way)."""
_MISSING = object()
_SKIP = "or pass skip_bad_lines=True (CLI: --skip-bad-lines) to leave it out, counted in the notes"
_ACCEPTED = (
    "evalsig accepts one value per scorer and sample: a number, a boolean, Inspect's "
    "'C'/'I'/'P'/'N' (1, 0, 0.5, 0), 'yes'/'no'/'true'/'false' (any case) or a numeric string"
)


def score_value(value: object) -> float | None:
    """An Inspect score value as a number, as Inspect's ``value_to_float`` maps it.

    Parameters
    ----------
    value : object
        The ``value`` of a sample's score, as parsed from JSON.

    Returns
    -------
    float or None
        The number; None where Inspect would warn and return 0 (a dict, a list, null or
        any other string), and for NaN (Inspect's unscored mark) and infinite values.

    Examples
    --------
    >>> [score_value(v) for v in ("C", "I", "P", "N", True, 3, "Yes", "false", " 0.25")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 3.0, 1.0, 0.0, 0.25]
    >>> score_value({"a": 1}) is None, score_value("maybe") is None
    (True, True)
    """
    if isinstance(value, str):
        if value in _LETTERS:
            return _LETTERS[value]
        if value.lower() in _WORDS:
            return _WORDS[value.lower()]
    elif not isinstance(value, (bool, int, float)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _refusal(scorer: str, raw: object) -> str:
    if raw is _MISSING:
        what = "no 'value'"
    elif isinstance(raw, dict):
        what = f"a dict of values {reprlib.repr(raw)} (a multi-value scorer)"
    elif isinstance(raw, list):
        what = f"a list of values {reprlib.repr(raw)}"
    elif isinstance(raw, float) and math.isnan(raw):
        what = "NaN, Inspect's mark for a sample the scorer left unscored"
    else:
        what = f"{reprlib.repr(raw)}, which is not a score"
    return f"scorer {scorer!r} gave {what}; {_ACCEPTED}. Fix the scorer, {_SKIP}."


def _leaves(metadata: Mapping[str, Any]) -> Iterator[str]:
    """Metadata field names, nested objects flattened with dots ('nested.foo')."""
    stack: list[tuple[str, Mapping[str, Any]]] = [("", metadata)]
    while stack:
        prefix, record = stack.pop()
        for key, value in record.items():
            if isinstance(value, Mapping) and value:
                stack.append((f"{prefix}{key}.", value))
            else:
                yield prefix + str(key)


def _lookup(metadata: Mapping[str, Any], path: str) -> object:
    """A metadata field, by its dotted path (an optional 'metadata.' prefix is allowed)."""
    for candidate in dict.fromkeys((path, path.removeprefix("metadata."))):
        try:
            return nested(metadata, candidate)
        except KeyError:
            continue
    return None


def _content_key(target: object) -> str | None:
    """The target as text: a string as it is, a list of strings as JSON (one: the string)."""
    if isinstance(target, str):
        return target
    if isinstance(target, list) and all(isinstance(t, str) for t in target):
        return target[0] if len(target) == 1 else orjson.dumps(target).decode()
    return None


def _first_line(error: object) -> str:
    message = error.get("message") if isinstance(error, Mapping) else error
    lines = str(message).strip().splitlines() or [""]
    return reprlib.repr(lines[0])


@dataclass(slots=True)
class _Log:
    """One log's header, and the samples fed to the collector."""

    source: str
    task: str
    status: str
    """'' for a finished log, else " (the log's status is 'error')"."""
    legacy_scorer: str
    options: ReadOptions
    out: Collector
    model: str = ""
    """The model the log evaluated (``eval.model``)."""
    unscored_header: bool = False
    """The header records no scorer's results: the log may never have been scored."""
    scored: int = 0
    """Samples with scores."""
    pending: list[tuple[str, str, object]] = field(default_factory=list)
    """Samples without scores (where, why, id), reported at the end unless the whole log
    is unscored."""
    texts: dict[str, tuple[int, str, object]] = field(default_factory=dict)
    """Per scorer: how many values were text read as numbers, the first one's sample and
    value (for a note)."""

    @classmethod
    def start(
        cls, header: object, source: str, options: ReadOptions, out: Collector, *, reduced: bool
    ) -> _Log:
        spec = header.get("eval") if isinstance(header, dict) else None
        task = spec.get("task") if isinstance(spec, dict) else None
        if not isinstance(header, dict) or not isinstance(task, str):
            raise FormatError(
                f"{source}: not an Inspect log: expected a JSON object whose 'eval' object "
                "names the task ('eval.task')."
            )
        model = spec.get("model") if isinstance(spec, dict) else None
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise FormatError(
                f"{source}: the log's model is {model!r} ('eval.model'), not a name; an "
                "Inspect log records the model it evaluated, so this one is damaged or "
                "hand-made: give it the model's name."
            )
        status = str(header.get("status") or "started")
        if status != "success":
            error = header.get("error")
            why = f" (error: {_first_line(error)})" if error else ""
            out.notes.append(
                f"{source}: the log's status is {status!r}, not 'success'{why}; only the "
                "samples it logged were read."
            )
        if reduced:
            out.notes.append(
                f"{source}: read each epoch's scores as a run; the log's epoch reductions "
                "were ignored."
            )
        try:  # names the scorer of logs written before samples had 'scores'
            legacy = str(header["results"]["scores"][0]["name"])
        except (KeyError, IndexError, TypeError):
            legacy = "score"
        out.offer(keys=["target"])
        out.names.update({"id": "id", "run": "epoch"})
        if options.cluster_column is not None:
            out.names["cluster"] = f"metadata.{options.cluster_column.removeprefix('metadata.')}"
        unfinished = "" if status == "success" else f" (the log's status is {status!r})"
        out.model(model)
        version = header.get("version")
        kind = ".eval archive" if source.endswith(".eval") else "JSON"
        if isinstance(version, int) and not isinstance(version, bool):
            if version in KNOWN_VERSIONS:
                out.version(f"log format {version} ({kind})")
            else:
                out.unknown_version("Inspect log format", version, f"log format 2 ({kind})")
        else:
            out.version(f"({kind})")
        results = header.get("results")
        unscored = not (isinstance(results, dict) and results.get("scores"))
        named = model.strip() if isinstance(model, str) else ""
        return cls(source, task, unfinished, legacy, options, out, named, unscored)

    def finish(self) -> None:
        """Samples without scores: the whole log unscored is described as such (an error
        to read); otherwise each is a malformed sample."""
        if self.pending and not self.scored and self.unscored_header:
            items = len({str(item) for *_, item in self.pending})
            self.out.no_scores(
                self.task,
                items,
                f"no scores: none of its {items} samples was scored (the log was written "
                f"without scoring{self.status}); score it with Inspect (inspect score "
                f"{self.source}), then read the scored log.",
            )
        else:
            for where, reason, _ in self.pending:
                self.out.bad(where, reason)
        for scorer, (count, where, raw) in self.texts.items():
            self.out.notes.append(
                f"{self.source}: scorer {scorer!r} gave {count} value(s) as text (e.g. "
                f"{raw!r} at {where}), read as numbers as Inspect's value_to_float reads "
                "them ('yes'/'true' 1, 'no'/'false' 0, a numeric string its number)."
            )

    def no_samples(self) -> FormatError:
        return FormatError(
            f"{self.source}: the log holds no samples{self.status}; evalsig needs per-sample "
            "scores (was it written with --no-log-samples, or did the run stop before any "
            "sample finished?)."
        )

    def feed(self, sample: object, where: str) -> None:
        """Add one sample's scores (one observation per scorer), or report it as bad."""
        out = self.out
        if not isinstance(sample, dict):
            out.bad(where, f"is a JSON {type(sample).__name__}, not an Inspect sample object.")
            return
        item, epoch, metadata = sample.get("id"), sample.get("epoch"), sample.get("metadata")
        if type(item) not in (int, str) or item == "" or type(epoch) is not int or epoch < 1:
            out.bad(
                where,
                f"needs an 'id' and an 'epoch' (Inspect numbers epochs from 1); got {item!r} "
                f"and {epoch!r}.",
            )
            return
        position = f"sample {item!r} (epoch {epoch})"
        metadata = metadata if isinstance(metadata, dict) else {}
        out.offer(clusters=_leaves(metadata))
        scores = self._scores(sample, position)
        if scores is None:
            return
        column = self.options.cluster_column
        cluster = None if column is None else _lookup(metadata, column)
        key = _content_key(sample.get("target"))
        wanted = self.options.metric
        self.scored += 1
        for scorer, score in scores.items():
            raw = score.get("value", _MISSING) if isinstance(score, dict) else _MISSING
            value = score_value(raw)
            if value is None:
                if wanted is None or scorer == wanted:  # another scorer's values are unused
                    out.bad(position, _refusal(scorer, raw))
                continue
            if isinstance(raw, str) and raw not in _LETTERS:
                count, first, shown = self.texts.get(scorer, (0, position, raw))
                self.texts[scorer] = (count + 1, first, shown)
            out.add(
                self.task,
                str(item),
                value,
                position=position,
                metric=scorer,
                run=epoch,
                cluster=cluster,
                key=key,
            )

    def _scores(self, sample: dict[str, Any], position: str) -> dict[str, Any] | None:
        out = self.out
        invalidation = sample.get("invalidation")
        scores = sample.get("scores")
        if scores is None and "score" in sample:  # logs written before 'scores' (one scorer)
            scores = {self.legacy_scorer: sample["score"]}
        if sample.get("error"):
            reason = f"errored ({_first_line(sample['error'])}) and was not scored; re-run it"
        elif invalidation:
            why = invalidation.get("reason") if isinstance(invalidation, dict) else None
            reason = f"was invalidated{f' ({why!r})' if why else ''}; re-run it"
        elif not scores:
            reason = f"has no scores{self.status}; score the log (inspect score)"
            if self.unscored_header and not self.scored:  # the whole log may be unscored
                self.pending.append((position, f"{reason}, {_SKIP}.", sample.get("id")))
                return None
        elif not isinstance(scores, dict):
            reason = f"has 'scores' that are a JSON {type(scores).__name__}, not an object"
        else:
            return scores
        out.bad(position, f"{reason}, {_SKIP}.")
        return None


@dataclass(slots=True)
class _Members:
    """JSON members of an archive, with a cap on the total bytes expanded."""

    archive: Archive
    cap: int
    used: int = 0

    def json(self, info: zipfile.ZipInfo) -> Any:
        name, path = info.filename, self.archive.path
        # A member over the cap on its own is reported as such; otherwise the total counts.
        limit = self.cap if info.file_size > self.cap else self.cap - self.used
        try:
            data = self.archive.read(info, limit)
        except TooLarge:
            if limit == self.cap:
                raise
            raise FormatError(
                f"{path}: member {name!r} would take the archive's decompressed size past "
                f"the {self.cap:,}-byte cap ({self.used:,} bytes read before it); refusing to "
                "read further (a corrupt or malicious archive?). If the log is genuine, "
                f"{raise_cap_hint(self.cap)}."
            ) from None
        self.used += len(data)
        try:
            return loads(data)
        except (ValueError, RecursionError) as exc:
            raise FormatError(f"{path}: member {name!r} is not valid JSON ({exc}).") from None


def _sample_order(name: str) -> tuple[int, str]:
    """Inspect's sample order (epoch, then id, numeric ids by value) from a member name."""
    item, _, epoch = name.removeprefix("samples/").removesuffix(".json").rpartition("_epoch_")
    return (int(epoch) if epoch.isdigit() else 0, item.zfill(20) if item.isdigit() else item)


def _read_eval(path: Path, options: ReadOptions, out: Collector) -> str:
    source = str(path)
    with Archive.open(path, kind=".eval log") as archive:
        members = archive.members
        reader = _Members(archive, options.max_decompressed_bytes)
        header_name = "header.json" if "header.json" in members else "_journal/start.json"
        if header_name not in members:
            raise FormatError(
                f"{source}: no header.json or _journal/start.json in the archive; not an "
                "Inspect .eval log."
            )
        header = reader.json(members[header_name])
        names = sorted(
            (n for n in members if n.startswith("samples/") and n.endswith(".json")),
            key=_sample_order,
        )
        samples = ((name, reader.json(members[name])) for name in names)
        reduced = "reductions.json" in members
        return read_log_records(header, samples, source, options, out, reduced=reduced)


def _read_json(path: Path, options: ReadOptions, out: Collector) -> str:
    source = str(path)
    data = read_bytes(path, max_decompressed_bytes=options.max_decompressed_bytes)
    what = manifest(bytes(data[: 1 << 16]))
    if what is not None:
        raise FormatError(
            f"{source}: not an Inspect log but {what}; pass the folder, or its .eval / .json "
            "logs (evalsig leaderboard ranks the models of an eval-set folder)."
        )
    try:
        document = loads(data)
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"{source}: not valid JSON ({exc}); is the log truncated?") from None
    reduced = isinstance(document, dict) and bool(document.get("reductions"))
    samples = document.get("samples") if isinstance(document, dict) else None
    listed = enumerate(samples if isinstance(samples, list) else [])
    records = ((f"samples[{number}]", sample) for number, sample in listed)
    return read_log_records(document, records, source, options, out, reduced=reduced)


def read_log_records(
    header: object,
    samples: Iterable[tuple[str, object]],
    source: str,
    options: ReadOptions,
    out: Collector,
    *,
    reduced: bool,
) -> str:
    """Read one log given as records: the header and the samples, parsed from JSON or built
    from an ``EvalLog`` in memory (:mod:`evalsig.integrations.inspect_ai`).

    ``header`` holds ``eval`` (``task``, ``model``), ``status``, ``version``, ``error`` and
    ``results`` as a log file does; ``samples`` gives each sample record with the position
    messages name it by (``'samples[3]'``); ``reduced`` says whether the log holds epoch
    reductions (noted as ignored). Returns the model the log names ('' when none); a log
    without samples is a :class:`~evalsig.errors.FormatError`.
    """
    wanted = dict(options.where)
    if set(wanted) - {"model"}:
        raise DataError(
            f"{source}: Inspect logs can be chosen by 'model' only (the log's eval.model, "
            f"e.g. --where model=openai/gpt-4o); got {', '.join(map(repr, wanted))}."
        )
    named = _model_of(header)
    if "model" in wanted and named is not None and named != wanted["model"]:
        out.passed.append(named)
        return named
    log = _Log.start(header, source, options, out, reduced=reduced)
    empty = True
    for where, sample in samples:
        log.feed(sample, where)
        empty = False
    if empty:
        raise log.no_samples()
    log.finish()
    return log.model


def _model_of(header: object) -> str | None:
    spec = header.get("eval") if isinstance(header, dict) else None
    model = spec.get("model") if isinstance(spec, dict) else None
    return model.strip() if isinstance(model, str) and model.strip() else None


def looks_like_log(head: bytes) -> bool:
    """Whether the start of a JSON file is an Inspect log (a JSON object with an ``eval``
    object and a ``version`` or ``status``), not one of the manifests beside the logs."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return (
        text.startswith(b"{")
        and manifest(text) is None
        and bool(_EVAL_KEY.search(head))
        and bool(_STATUS_KEY.search(head))
    )


def manifest(head: bytes) -> str | None:
    """What an Inspect log folder's manifest is, from its first bytes: ``logs.json`` (the
    headers of the folder's logs, keyed by file name) or ``eval-set.json`` (an eval set's
    tasks and models); None for anything else."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if _LOGS_MANIFEST.match(text) and _EVAL_KEY.search(text):
        return "the headers of the logs beside it (logs.json), without their samples"
    if _EVAL_SET_MANIFEST.match(text):
        return "an eval set's list of tasks and models (eval-set.json), without scores"
    return None


class _InspectReader:
    """Inspect AI logs; see the module docstring for what is read and how."""

    name = "inspect"
    accepts_where = True
    """``where={'model': NAME}`` keeps the logs of one model (e.g. of an eval set)."""
    logs_name_models = True
    """A folder of logs may hold several models (an eval set): each log names its own."""

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return bool(_logs_in(path))
        if path.suffix == ".eval":
            return head.startswith(_ZIP_MAGIC)
        if path.suffix != ".json":
            return False
        return looks_like_log(head) or manifest(head) is not None

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if not path.is_dir():
            _read_log(path, options, out)
            return
        for number, log in enumerate(_logs_in(path)):
            out.folder_file(number, str(log), self.name)
            _read_log(log, options, out)


def _read_log(path: Path, options: ReadOptions, out: Collector) -> str:
    return (
        _read_eval(path, options, out) if path.suffix == ".eval" else _read_json(path, options, out)
    )


def _logs_in(directory: Path) -> list[Path]:
    """The Inspect logs in a folder (not its subfolders): ``.eval`` archives and JSON logs."""
    logs = []
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.suffix not in (".eval", ".json"):
            continue
        try:
            with open(path, "rb") as f:
                head = f.read(1 << 16)
        except OSError:
            continue
        if (path.suffix == ".eval" and head.startswith(_ZIP_MAGIC)) or (
            path.suffix == ".json" and looks_like_log(head)
        ):
            logs.append(path)
    return logs


INSPECT = _InspectReader()
