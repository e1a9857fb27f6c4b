"""Inspect AI logs in memory: an ``EvalLog`` as a :class:`~evalsig.data.ScoreTable`, and two
logs compared.

What ``inspect_ai.eval()`` returns, or ``inspect_ai.log.read_eval_log()`` reads, is read as
evalsig reads the log's file (:mod:`evalsig.data.readers.inspect_ai`), by the same code:
item = sample ``id``, run = ``epoch``, metric = scorer, content key = ``target``, cluster =
a metadata field; values mapped as Inspect's ``value_to_float`` maps them, and the same
errors for a multi-value scorer, an errored, invalidated or unscored sample, several
scorers without a choice. Nothing here imports ``inspect_ai``: the log's fields are read.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evalsig.comparison import ComparisonResult, Method, compare
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import FileRecord, Origin, file_record
from evalsig.data.readers.base import ReadOptions
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.inspect_ai import INSPECT, read_log_records
from evalsig.data.table import ScoreTable
from evalsig.errors import DataError, FormatError
from evalsig.inference import Alternative

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

__all__ = ["compare_logs", "table_from_eval_log"]

FORMAT = "EvalLog"
"""The origin's format: the Python type read (see :class:`~evalsig.data.provenance.Origin`)."""


def table_from_eval_log(
    log: EvalLog,
    /,
    *,
    scorer: str | None = None,
    cluster: str | None = None,
    skip_bad_lines: bool = False,
) -> ScoreTable:
    """One model's per-sample scores from an Inspect ``EvalLog`` in memory.

    Parameters
    ----------
    log : inspect_ai.log.EvalLog
        A log as ``inspect_ai.eval()`` returns it or ``inspect_ai.log.read_eval_log()``
        reads it (whole: not ``header_only``).
    scorer : str, optional
        Which scorer's scores (a key of the samples' ``scores``); needed when the log
        holds several.
    cluster : str, optional
        A field of the samples' metadata naming each sample's cluster (dots reach into
        nested objects).
    skip_bad_lines : bool
        Skip errored, invalidated or unscored samples and unusable values instead of
        failing; the table's notes say how many and which.

    Returns
    -------
    ScoreTable
        Items are the sample ids (as strings), runs the epochs, keys the targets. Its
        ``origin`` names the model (``log.eval.model``), the task (``log.eval.task``), the
        scorer, and the log's file (``log.location``, with its size and SHA-256) when it is
        a file on this machine.

    Raises
    ------
    DataError
        Not an ``EvalLog``; several scorers and no ``scorer``, or an unknown one; no
        cluster field ``cluster``.
    FormatError
        A log without samples; a sample that errored, was invalidated or was not scored,
        or whose value is not a score (unless ``skip_bad_lines``). The message names the
        log (its file, else its task and model) and the sample.
    """
    spec = getattr(log, "eval", None)
    task, model = getattr(spec, "task", None), getattr(spec, "model", None)
    if not isinstance(task, str) or not hasattr(log, "samples"):
        raise DataError(
            f"`log` is a {type(log).__name__}, not an Inspect EvalLog; pass what "
            "inspect_ai.eval() returns or inspect_ai.log.read_eval_log() reads (for a log "
            "file, evalsig.load(path) reads it directly)."
        )
    location = str(getattr(log, "location", "") or "")
    source = location or f"EvalLog of task {task!r} (model {model!r})"
    if log.samples is None:
        raise FormatError(
            f"{source}: the EvalLog holds no samples: it was read with header_only=True or "
            "written without samples (--no-log-samples); read the whole log with "
            "inspect_ai.log.read_eval_log(path)."
        )
    options = ReadOptions(metric=scorer, cluster_column=cluster, skip_bad_lines=skip_bad_lines)
    out = _LogCollector(options, log_files=_files(location))
    out.start_file(source, INSPECT.name)
    reduced = bool(getattr(log, "reductions", None))
    read_log_records(_header(log), _samples(log), source, options, out, reduced=reduced)
    out.version(f"log format {getattr(log, 'version', '?')} (EvalLog in memory)")
    (table,) = out.tables().values()
    return table


def compare_logs(
    baseline_log: EvalLog,
    candidate_log: EvalLog,
    /,
    *,
    scorer: str | None = None,
    cluster: str | None = None,
    method: Method = "auto",
    variant: str | None = None,
    alternative: Alternative = "two-sided",
    one_sided: bool | None = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    skip_bad_lines: bool = False,
) -> ComparisonResult:
    """Compare two models' Inspect logs of one task, sample by sample.

    Samples are paired by id, their epochs are runs, and the test is chosen and run as
    :func:`evalsig.compare` chooses and runs it; ``scorer``, ``cluster`` and
    ``skip_bad_lines`` are read as :func:`table_from_eval_log` reads them (the same for
    both logs), every other option is :func:`evalsig.compare`'s.

    Raises
    ------
    AlignmentError
        Samples in one log only (unless ``on_missing="intersect"``), or whose targets
        differ (unless ``on_mismatch`` is ``"exclude"`` or ``"keep"``).
    DataError, FormatError
        As :func:`table_from_eval_log` and :func:`evalsig.compare` raise them.
    """
    tables = [
        table_from_eval_log(log, scorer=scorer, cluster=cluster, skip_bad_lines=skip_bad_lines)
        for log in (baseline_log, candidate_log)
    ]
    return compare(
        tables[0],
        tables[1],
        method=method,
        variant=variant,
        alternative=alternative,
        one_sided=one_sided,
        on_missing=on_missing,
        on_mismatch=on_mismatch,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )


@dataclass
class _LogCollector(Collector):
    """A collector of one in-memory log: its origin names the log, not a file it read, and
    its messages name the scorer as :func:`table_from_eval_log` does (``scorer=``)."""

    log_files: tuple[FileRecord, ...] = ()
    """The log's file, when it has one on this machine (a record of where it came from)."""

    def _choose(self, what: str, flag: str, given: str | None, present: Counter[str]) -> str:
        if what == "metric":
            what, flag = "scorer", "scorer="
        return super()._choose(what, flag, given, present)

    def origin(
        self,
        files: Sequence[int],
        *,
        task: str,
        metric: str | None,
        filter: str | None,
        paths: Sequence[str] = (),
        format: str = "",
        layout: str | None = None,
    ) -> Origin:
        model = self.models.get(0)
        return Origin(
            files=self.log_files,
            format=FORMAT,
            layout=self.versions[0],
            model=model,
            model_from="harness metadata" if model else None,
            task=task or None,
            metric=metric,
            filter=filter,
        )


def _files(location: str) -> tuple[FileRecord, ...]:
    """The log's file, when ``location`` is a file here (not an S3 or other remote URL)."""
    return (file_record(location),) if location and os.path.isfile(location) else ()


def _header(log: Any) -> dict[str, Any]:
    """The fields of a log file's header that the reader uses, from the log's attributes."""
    error = getattr(log, "error", None)
    scorers = getattr(getattr(log, "results", None), "scores", None) or []
    return {
        "version": getattr(log, "version", None),
        "status": getattr(log, "status", None),
        "eval": {"task": log.eval.task, "model": getattr(log.eval, "model", None)},
        "error": None if error is None else {"message": getattr(error, "message", error)},
        "results": {"scores": [{"name": getattr(s, "name", None)} for s in scorers]},
    }


def _samples(log: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each sample as the record a log file holds, named as a JSON log's are."""
    for number, sample in enumerate(log.samples):
        yield f"samples[{number}]", _record(sample)


def _record(sample: Any) -> dict[str, Any]:
    scores = getattr(sample, "scores", None)
    error = getattr(sample, "error", None)
    invalidation = getattr(sample, "invalidation", None)
    return {
        "id": getattr(sample, "id", None),
        "epoch": getattr(sample, "epoch", None),
        "target": getattr(sample, "target", None),
        "metadata": getattr(sample, "metadata", None),
        "scores": None
        if scores is None
        else {name: {"value": getattr(score, "value", None)} for name, score in scores.items()},
        "error": None if error is None else {"message": getattr(error, "message", error)},
        "invalidation": None
        if invalidation is None
        else {"reason": getattr(invalidation, "reason", None)},
    }
