"""OpenCompass: the per-sample ``details`` of ``results/<model>/<dataset>.json``.

OpenCompass writes ``outputs/<config>/<timestamp>/predictions/<model>/<dataset>.json`` (the
model's raw outputs: ``{"0": {"origin_prompt", "prediction", "gold"}, ...}``, split into
``<dataset>_0.json``, ``<dataset>_1.json`` ... for large datasets) and
``results/<model>/<dataset>.json``: the aggregate metrics and, when details are dumped
(OpenCompass's option ``dump-eval-details``: off unless given before v0.5.0, on by default
since), a ``details`` field whose layout changed:

==================  ========================================================================
OpenCompass         ``details`` of a results file
==================  ========================================================================
v0.1.7 - v0.4.2     an object keyed by sample index, ``"0"``, ``"1"`` ... of ``{prompt,
                    origin_prediction, predictions, references, correct}`` (``correct`` a
                    boolean; ``type`` GEN or PPL beside the metrics)
v0.4.1 - v0.4.2     the same, each value a one-element list (``"correct": [true]``)
v0.4.1 and later    a list of ``{example_abbr: "<dataset>_<index>", <field>: [one value per
                    repeat]}`` (the evaluator's fields: ``pred``, ``answer``, ``correct`` ...;
                    with ``n`` repeats, ``n`` values and the ``G-Pass@k`` of the sample)
v0.5 and later      keyed by sample index, with ``"type": "PPL"`` (or GEN) among the keys,
                    when the evaluator gave no details (PPL: ``prediction == reference``)
v0.2.2 - v0.4.2     the evaluator's own details (an object or a list of ``{pred, answer,
                    correct}`` ...) when OpenCompass could not reformat them
==================  ========================================================================

Read here: task = the dataset (the file's stem); model = the folder above it; item = the
sample index (the key, the ``<index>`` of ``example_abbr``, or the position in a list);
run = the repeat (v0.4.1+ with ``n`` > 1); metric = the per-sample score field present
(``correct``, ``is_correct``, ``cascade_correct``, ``model_extract_correct`` or a numeric
``score``; choose with ``metric=`` when several); content key = the reference answer
(``gold``, ``references``, ``answer`` ...). A results file without details is refused with
the fix; a predictions file is read only when asked, as ``prediction == gold``. A folder
is one model's ``results/<model>/`` (each dataset a task; files without per-sample scores
are passed over with a note), or ``results/`` or ``outputs/<config>/<timestamp>/`` with
``where={"model": ...}`` when it holds several models.

Reference: open-compass/opencompass at 0.3.9 (2024-12-31) and 0.5.0 (2025-09-01),
``opencompass/tasks/openicl_eval.py`` (``format_details``, ``dump_details``),
``opencompass/openicl/icl_evaluator/icl_base_evaluator.py`` (``BaseEvaluator.evaluate``),
``opencompass/openicl/icl_inferencer/icl_base_inferencer.py`` (the predictions files).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsig.data.readers.base import ReadOptions, first_record
from evalsig.data.readers.collect import Collector, nested
from evalsig.data.readers.tabular import read_json
from evalsig.errors import DataError, FormatError

__all__ = ["OPENCOMPASS"]

SCORE_FIELDS = ("correct", "is_correct", "cascade_correct", "model_extract_correct", "score")
"""Per-sample score fields of OpenCompass details; the first three are those its own
G-Pass@k counts (``BaseEvaluator.evaluate``)."""
KEY_FIELDS = ("gold", "references", "reference", "refr", "ref", "answer", "answers", "target")
"""Fields holding a sample's reference answer (the content key), in order of preference."""
OUTPUT_FIELDS = ("pred", "prediction", "predictions", "origin_prediction", "origin_prompt")

INDEXED = "v0.1.7-v0.4.2 (details keyed by sample index)"
INDEXED_LISTS = "v0.4.1-v0.4.2 (details keyed by sample index, one-element lists)"
INDEXED_TYPED = "v0.5 or later (details keyed by sample index, no evaluator details)"
BY_EXAMPLE = "v0.4.1 or later (details per example_abbr, one value per repeat)"
RAW = "v0.2.2-v0.4.2 (the evaluator's own details, not reformatted)"
PREDICTIONS = "predictions file (scored here as prediction == answer)"

DUMP_DETAILS = "--dump-eval-details"
"""OpenCompass's own option that writes per-sample details."""

_RUNS_AVERAGE = re.compile(r" \(\d+ runs average\)$")
"""The suffix of a metric averaged over OpenCompass's ``n`` repeats (v0.4.1+)."""
_PREDICTIONS_START = re.compile(
    rb'^\{\s*"0"\s*:\s*\{\s*"(?:origin_prompt|in-context examples|testing input)"'
)
_RAW_SCORE = re.compile(rb'"(?:correct|is_correct|cascade_correct)"\s*:\s*(?:true|false|\[)')


class _OpenCompassReader:
    name = "opencompass"
    accepts_where = True
    """``where={"model": ...}`` chooses a model's folder under ``results/``."""

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return _sniff_folder(path)
        if path.suffix != ".json":
            return False
        if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            return False  # a JSON array: first_record would give its first element
        document = first_record(head)
        if document is None:  # a document longer than the head
            return _sniff_bytes(head)
        return _kind(document, path) is not None

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        wanted = dict(options.where)
        if set(wanted) - {"model"}:
            raise DataError(
                f"{path}: OpenCompass keeps one model per folder (results/<model>/); where= "
                f"can only choose 'model', got {', '.join(map(repr, sorted(wanted)))}."
            )
        if path.is_dir():
            _read_folder(path, options, out, wanted.get("model"))
            return
        model = path.parent.name
        if "model" in wanted and wanted["model"] != model:
            raise DataError(
                f"{path}: this file is model {model!r} (its folder), not {wanted['model']!r}."
            )
        document = _load(path, options)
        if _kind(document, path) == "predictions":
            _read_predictions(path, document, options, out)
            return
        refusal = _refusal(path, document)
        if refusal is not None:
            raise FormatError(refusal)
        _read_details(path, document, options, out)


# --- detection -------------------------------------------------------------------------------


def _kind(document: Mapping[str, Any], path: Path) -> str | None:
    """'details', 'predictions' or 'aggregate' (a results file without details), else None."""
    details = document.get("details")
    if details:
        return "details" if _looks_like_details(details) else None
    if _is_predictions(document):
        return "predictions"
    if any(_is_number(v) for v in document.values()) and (
        any(_RUNS_AVERAGE.search(k) for k in document) or _predictions_beside(path)
    ):
        return "aggregate"
    return None


def _looks_like_details(details: object) -> bool:
    entry = _first_entry(details)
    if not isinstance(entry, Mapping):
        return False
    if "example_abbr" in entry or "origin_prediction" in entry:
        return True
    outputs = any(f in entry for f in (*OUTPUT_FIELDS, *KEY_FIELDS))
    return outputs and (any(f in entry for f in SCORE_FIELDS) or "prediction" in entry)


def _first_entry(details: object) -> object:
    if isinstance(details, list):
        return details[0] if details else None
    if isinstance(details, Mapping):
        return next((v for k, v in details.items() if not isinstance(v, str)), None)
    return None


def _is_predictions(document: Mapping[str, Any]) -> bool:
    """An inferencer's output: ``{"0": {"origin_prompt", "prediction", "gold"}, ...}``."""
    entry = document.get("0")
    if not isinstance(entry, Mapping) or "prediction" not in entry:
        return False
    return (
        "origin_prompt" in entry
        or "pred_label" in entry
        or any(str(k).startswith("label: ") for k in entry)
    )


def _predictions_beside(path: Path) -> bool:
    """Whether ``path`` is ``<work_dir>/results/<model>/<dataset>.json`` beside the run's
    ``<work_dir>/predictions/<model>/<dataset>.json`` (or its first part ``_0``)."""
    if path.parent.parent.name != "results":
        return False
    folder = path.parent.parent.parent / "predictions" / path.parent.name
    return (folder / path.name).is_file() or (folder / f"{path.stem}_0.json").is_file()


def _sniff_bytes(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{"):
        return False
    if _PREDICTIONS_START.match(text):
        return b'"prediction"' in head
    if b'"details"' not in head:
        return False
    if b'"example_abbr"' in head or b'"origin_prediction"' in head:
        return True
    return bool(_RAW_SCORE.search(head)) and (b'"pred"' in head or b'"answer"' in head)


def _model_folders(path: Path) -> dict[str, Path]:
    """``results/<model>/`` folders: ``path`` itself, or under ``path`` or ``path/results``."""
    if _json_files(path):
        return {path.name: path}
    results = path / "results" if (path / "results").is_dir() else path
    return {d.name: d for d in sorted(results.iterdir()) if d.is_dir() and _json_files(d)}


def _json_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.is_file())


def _sniff_folder(path: Path) -> bool:
    """Whether the first results file of the first model folder is OpenCompass's."""
    try:
        folders = _model_folders(path)
        if not folders:
            return False
        first = _json_files(next(iter(folders.values())))[0]
        with open(first, "rb") as f:
            head = f.read(1 << 20)
    except OSError:
        return False
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    document = first_record(head)
    if document is None:
        return _sniff_bytes(head) and not _PREDICTIONS_START.match(head.lstrip())
    return _kind(document, first) in ("details", "aggregate")


# --- reading ---------------------------------------------------------------------------------


def _load(path: Path, options: ReadOptions) -> Mapping[str, Any]:
    document = read_json(path, options, ending="; is the file truncated?")
    if not isinstance(document, Mapping):
        raise FormatError(
            f"{path}: expected a JSON object (an OpenCompass results or predictions file); "
            f"got a JSON {type(document).__name__}."
        )
    return document


def _entries(details: object) -> list[tuple[str, str, object]]:
    """``(position, sample index, entry)`` of each detail; a v0.5 ``type`` key is not one."""
    if isinstance(details, list):
        return [(f"details[{i}]", str(i), entry) for i, entry in enumerate(details)]
    if isinstance(details, Mapping):
        return [
            (f"details[{k!r}]", str(k), e)
            for k, e in details.items()
            if not (k == "type" and isinstance(e, str))
        ]
    return []


def _score_fields(entries: list[tuple[str, str, object]]) -> list[str]:
    present = {f for *_, e in entries if isinstance(e, Mapping) for f in SCORE_FIELDS if f in e}
    return [f for f in SCORE_FIELDS if f in present]


def _refusal(path: Path, document: Mapping[str, Any]) -> str | None:
    """Why a results file cannot give per-sample scores, or None when it can."""
    details = document.get("details")
    if not details:
        return _no_details(path, document)
    if not _looks_like_details(details):
        return (
            f"{path}: its 'details' are not in a layout of OpenCompass evalsig knows (the "
            f"first is {_show(_first_entry(details))}); pass --input-format json after "
            "flattening them, or report the OpenCompass version."
        )
    if not _score_fields(_entries(details)):
        return (
            f"{path}: its details hold no per-sample score (none of "
            f"{', '.join(map(repr, SCORE_FIELDS))}): an LLM-judge evaluator "
            "(GenericLLMEvaluator) stores the judge's raw replies there, and a generation "
            "scored without evaluator details keeps only predictions and references. Use an "
            "evaluator that scores each sample, or score the predictions file yourself."
        )
    return None


def _no_details(path: Path, document: Mapping[str, Any]) -> str:
    metrics = ", ".join(repr(k) for k, v in document.items() if _is_number(v)) or "none"
    return (
        f"{path}: an OpenCompass results file with aggregate scores only (metrics: {metrics}) "
        "and no per-sample 'details'; paired tests need them: rerun the evaluation with "
        f"OpenCompass's {DUMP_DETAILS} (on by default since v0.5.0; before, off unless "
        "given) and pass results/<model>/<dataset>.json again."
    )


def _read_folder(path: Path, options: ReadOptions, out: Collector, model: str | None) -> None:
    """One model's ``results/<model>/`` folder: each dataset's file is a task."""
    folders = _model_folders(path)
    if model is None and len(folders) > 1:
        raise DataError(
            f"{path}: holds the results of {len(folders)} models "
            f"({', '.join(map(repr, folders))}); choose one with where={{'model': ...}} "
            "(CLI: --where model=NAME), or pass results/<model>/."
        )
    chosen = next(iter(folders)) if model is None else model
    if chosen not in folders:
        raise DataError(f"{path}: no model {chosen!r}; models: {', '.join(map(repr, folders))}.")
    passed: list[str] = []
    read = 0
    for file in _json_files(folders[chosen]):
        if options.task is not None and file.stem != options.task:
            out.tasks_seen.add(file.stem)
            continue
        document = _load(file, options)
        refusal = _refusal(file, document)
        if refusal is not None:
            if options.task is not None:  # the user asked for this one
                raise FormatError(refusal)
            passed.append(file.name)
            continue
        out.folder_file(read, str(file), OPENCOMPASS.name)
        out.model(file.parent.name)  # results/<model>/<dataset>.json
        _read_details(file, document, options, out)
        read += 1
    if not passed:
        return
    named = ", ".join(passed[:5]) + (", ..." if len(passed) > 5 else "")
    if not read and options.task is None:
        raise FormatError(
            f"{folders[chosen]}: none of its {len(passed)} results file(s) ({named}) holds "
            f"per-sample scores; rerun the evaluation with OpenCompass's {DUMP_DETAILS} (on by "
            "default since v0.5.0), or pass one file to see why."
        )
    out.notes.append(
        f"{folders[chosen]}: passed over {len(passed)} file(s) without per-sample scores "
        f"({named}); pass one of them, or task=, to see why."
    )


def _read_details(
    path: Path, document: Mapping[str, Any], options: ReadOptions, out: Collector
) -> None:
    details = document["details"]
    typed = isinstance(details, Mapping) and isinstance(details.get("type"), str)
    entries = _entries(details)
    by_example = any(isinstance(e, Mapping) and "example_abbr" in e for *_, e in entries)
    fields = _score_fields(entries)
    first = next((e for *_, e in entries if isinstance(e, Mapping)), {})
    key_field = options.key_column or next((f for f in KEY_FIELDS if f in first), None)
    task = path.stem
    out.names["id"] = "sample index"
    out.offer(keys=[key_field] if key_field else [])
    reader = _Entries(task, fields, key_field, options.cluster_column, by_example, out)
    for position, index, entry in entries:
        reader.add(position, index, entry)
    if by_example:
        version = BY_EXAMPLE
    elif typed:
        version = INDEXED_TYPED
    elif reader.wrapped:
        version = INDEXED_LISTS
    elif any(isinstance(e, Mapping) and "origin_prediction" in e for *_, e in entries):
        version = INDEXED
    else:
        version = RAW
    out.version(version)
    if reader.repeats > 1:
        out.names["run"] = "repeat"
        out.notes.append(
            f"{path.name}: {reader.repeats} repeats of each sample (OpenCompass's n) read as "
            "runs; its G-Pass@k fields are not read."
        )


class _Entries:
    """Turns the detail entries of one results file into observations."""

    def __init__(
        self,
        task: str,
        fields: list[str],
        key_field: str | None,
        cluster: str | None,
        by_example: bool,
        out: Collector,
    ) -> None:
        self.task = task
        self.fields = fields
        self.key_field = key_field
        self.cluster = cluster
        self.by_example = by_example
        self.out = out
        self.repeats = 0
        """Values per field in the per-example layout (OpenCompass's n), from the first."""
        self.wrapped = False
        """Whether index-keyed entries hold one-element lists (v0.4.1-v0.4.2)."""

    def add(self, position: str, index: str, entry: object) -> None:
        if not isinstance(entry, Mapping):
            self.out.bad(position, f"is a JSON {type(entry).__name__}, not an object.")
            return
        item = self._item(position, index, entry)
        if item is None:
            return
        present = [f for f in self.fields if f in entry]
        if not present:
            self.out.bad(
                position,
                f"has none of the score fields {', '.join(map(repr, self.fields))} "
                f"(fields: {', '.join(map(repr, list(entry)[:8]))}).",
            )
            return
        scores: dict[str, list[float]] = {}
        for field in present:
            values = self._values(position, field, entry[field])
            if values is None:
                return
            scores[field] = values
        context = self._context(position, entry)
        if context is None:
            return
        key, cluster = context
        for field, values in scores.items():
            for run, value in enumerate(values):
                self.out.add(
                    self.task,
                    item,
                    value,
                    position=position,
                    metric=field,
                    run=run if self.repeats > 1 else None,
                    key=key,
                    cluster=cluster,
                )

    def _item(self, position: str, index: str, entry: Mapping[str, Any]) -> str | None:
        if not self.by_example:
            return index
        abbr = entry.get("example_abbr")
        _, _, number = str(abbr).rpartition("_")
        if not isinstance(abbr, str) or not number.isdigit():
            self.out.bad(
                position,
                f"'example_abbr' is {_show(abbr)}, not '<dataset>_<sample index>'.",
            )
            return None
        return number

    def _values(self, position: str, field: str, raw: object) -> list[float] | None:
        """A field's scores: one per repeat (per-example layout), else one."""
        if self.by_example:
            if not isinstance(raw, list) or not raw:
                self.out.bad(
                    position,
                    f"{field!r} is {_show(raw)}, not a list of one score per repeat.",
                )
                return None
            self.repeats = self.repeats or len(raw)
            if len(raw) != self.repeats:
                self.out.bad(
                    position,
                    f"{field!r} has {len(raw)} values, but the first sample has "
                    f"{self.repeats} (one per repeat).",
                )
                return None
            values = raw
        elif isinstance(raw, list):
            if len(raw) != 1:
                self.out.bad(
                    position,
                    f"{field!r} is a list of {len(raw)} values ({_show(raw)}); OpenCompass "
                    "writes one score per sample here, so evalsig will not choose among them.",
                )
                return None
            self.wrapped = True
            values = raw
        else:
            values = [raw]
        scores = [_score(v) for v in values]
        if any(s is None for s in scores):
            self.out.bad(position, f"{field!r} is {_show(raw)}, not a boolean or a number.")
            return None
        return [s for s in scores if s is not None]

    def _context(self, position: str, entry: Mapping[str, Any]) -> tuple[object, object] | None:
        """The content key and cluster label of an entry (the first repeat's)."""
        key: object = None
        if self.key_field is not None:
            if self.key_field not in entry:
                self.out.bad(position, f"has no field {self.key_field!r} (the content key).")
                return None
            key = _key_text(_unwrap(entry[self.key_field], self.by_example or self.wrapped))
        cluster: object = None
        if self.cluster is not None:
            try:
                cluster = _unwrap(nested(entry, self.cluster), self.by_example)
            except KeyError:
                self.out.bad(position, f"has no field {self.cluster!r} (the cluster).")
                return None
        return key, cluster


def _read_predictions(
    path: Path, document: Mapping[str, Any], options: ReadOptions, out: Collector
) -> None:
    """An inferencer's predictions: scored as ``str(prediction) == str(answer)`` when asked."""
    prediction, answer = options.prediction_column, options.answer_column
    if prediction is None or answer is None:
        raise FormatError(
            f"{path}: an OpenCompass predictions file holds the model's raw outputs, not "
            f"scores: pass results/<model>/<dataset>.json written with {DUMP_DETAILS} "
            "(OpenCompass's own scoring), or score exact matches of this file with "
            "--prediction prediction --answer gold (prediction_column='prediction', "
            "answer_column='gold')."
        )
    out.names.update({"id": "sample index", "score": f"{prediction} == {answer}"})
    out.offer(keys=[answer])
    for index, entry in document.items():
        position = f"sample {index!r}"
        if not isinstance(entry, Mapping):
            out.bad(position, f"is a JSON {type(entry).__name__}, not an object.")
            continue
        if answer not in entry or entry[answer] is None:
            out.bad(position, f"has no {answer!r} (the answer); every sample needs one.")
            continue
        if prediction not in entry:
            out.bad(position, f"has no field {prediction!r} (the prediction).")
            continue
        gold, predicted = entry[answer], entry[prediction]
        value = float(predicted is not None and str(predicted) == str(gold))
        out.add(path.stem, str(index), value, position=position, key=_key_text(gold))
    out.version(PREDICTIONS)
    out.notes.append(
        f"{path.name}: score = str({prediction!r}) == str({answer!r}), the raw output without "
        "OpenCompass's post-processing; for generated text prefer the results file."
    )
    base, _, part = path.stem.rpartition("_")
    if part.isdigit() and (path.parent / f"{base}_0.json").is_file():
        out.notes.append(
            f"{path.name}: one part of a split dataset; its sample indices start at 0 in "
            "each part, so pair it only with the same part of another model."
        )


def _score(value: object) -> float | None:
    """A boolean as 1/0, a finite number as itself; None for anything else."""
    if isinstance(value, bool):
        return float(value)
    if not _is_number(value):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:  # an integer of hundreds of digits
        return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _unwrap(value: object, wrapped: bool) -> object:
    """The first repeat's value of a per-repeat list."""
    if wrapped and isinstance(value, list):
        return value[0] if value else None
    return value


def _key_text(value: object) -> str | None:
    """A reference answer as a content key: its text, or a digest of a long one."""
    if value is None:
        return None
    text = str(value)
    if len(text) <= 80:
        return text
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


OPENCOMPASS = _OpenCompassReader()
