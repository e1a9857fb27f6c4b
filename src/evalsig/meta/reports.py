"""A table of published benchmark scores: one row per (model, benchmark, source) report.

Columns: ``model``, ``benchmark``, ``source``, ``score`` and either ``se`` (the standard
error, in the units of the score) or ``n`` (the number of evaluation items; the SE is then
imputed from the binomial, ``sqrt(p (1 - p) / n)``). Optional: ``self_reported`` (the
model's own authors), ``harness``, ``prompt``, ``temperature``; other columns are ignored.
Scores are either all proportions (0-1) or all points (0-100); mixing is an error.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from evalsig._documents import MAX_BYTES, load_json, read_text, short
from evalsig.errors import DataError, FormatError
from evalsig.inference._common import check_choice

__all__ = ["ReportTable", "Scale", "read_reports"]

Scale = Literal["auto", "points", "proportion"]

REQUIRED = ("model", "benchmark", "source", "score")
SE_NAMES = ("se", "stderr", "standard_error")
N_NAMES = ("n", "n_items")
SETTINGS = ("harness", "prompt", "temperature")
_TRUE = {"true", "yes", "1", "y", "t"}
_FALSE = {"false", "no", "0", "n", "f"}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ReportTable:
    """Validated reports on one scale; the SE of each report given or imputed."""

    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    sources: tuple[str, ...]
    scores: np.ndarray
    se: np.ndarray
    imputed: np.ndarray
    """True where the SE was imputed from ``n`` (binomial)."""
    n_items: np.ndarray
    """Items per report (NaN where not given)."""
    self_reported: tuple[bool | None, ...]
    settings: Mapping[str, tuple[str | None, ...]]
    """harness / prompt / temperature, as text (None where not given)."""
    scale: str
    """'points' (0-100) or 'proportion' (0-1)."""
    scale_detected: bool
    origin: str
    """Where the table came from (a path, 'DataFrame' or 'records')."""

    @property
    def n_reports(self) -> int:
        return len(self.models)

    @property
    def n_imputed(self) -> int:
        return int(self.imputed.sum())

    def row(self, i: int) -> str:
        """'row 3 (model 'x', benchmark 'y', source 'z')' for messages (1-based)."""
        return (
            f"row {i + 1} (model {short(self.models[i])}, benchmark {short(self.benchmarks[i])}, "
            f"source {short(self.sources[i])})"
        )


def read_reports(data: Any, /, *, scale: Scale = "auto") -> ReportTable:
    """Read and validate a table of reports.

    Parameters
    ----------
    data : path, DataFrame, sequence of mappings or ReportTable
        A CSV / TSV, JSON Lines, JSON (a list of objects) or Parquet file; a pandas
        DataFrame; or a list of dicts with the columns described in the module docstring.
    scale : {"auto", "points", "proportion"}, default "auto"
        The unit of ``score`` and ``se``. "auto" takes proportions when every score is
        within [0, 1] and points otherwise, and refuses tables that look mixed (a cell or
        a benchmark whose scores are all <= 1 beside others above 1); pass the scale
        explicitly to accept such a table as it is.

    Returns
    -------
    ReportTable

    Raises
    ------
    DataError
        Naming the row, column and value: a missing column or score, an SE <= 0, n < 1 or
        not a whole number, neither SE nor n, a score outside the scale, a binomial SE of
        0 (score 0 or 100% with only n), an SE too large for the scale, or mixed scales.

    Examples
    --------
    >>> rows = [
    ...     {"model": "m", "benchmark": "b", "source": "p1", "score": 81.2, "n": 1000},
    ...     {"model": "m", "benchmark": "b", "source": "p2", "score": 79.9, "se": 1.1},
    ... ]
    >>> table = read_reports(rows)
    >>> table.scale, table.n_imputed, round(float(table.se[0]), 4)
    ('points', 1, 1.2355)
    """
    if isinstance(data, ReportTable):
        return data
    scale = cast(
        Scale,
        check_choice(
            scale, ("auto", "points", "proportion"), "`scale`", "Use 'auto' to detect it."
        ),
    )
    records, origin = _records(data)
    if not records:
        raise DataError(f"{origin}: no reports; the table needs at least one row.")
    return _validate(records, origin, scale)


# --- reading -------------------------------------------------------------------------------


def _records(data: Any) -> tuple[list[Mapping[str, Any]], str]:
    if isinstance(data, (str, Path)):
        path = Path(data)
        return _read_file(path), str(path)
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        frame = data.astype(object).where(data.notna(), None)
        return list(frame.to_dict(orient="records")), "DataFrame"
    if isinstance(data, Iterable) and not isinstance(data, (bytes, Mapping)):
        records = list(data)
        for i, r in enumerate(records):
            if not isinstance(r, Mapping):
                raise DataError(
                    f"reports row {i + 1} is a {type(r).__name__}, not a mapping; give a "
                    "list of dicts with model, benchmark, source, score and se or n."
                )
        return records, "records"
    raise DataError(
        f"reports must be a file path, a DataFrame or a list of dicts; got {type(data).__name__}."
    )


def _read_file(path: Path) -> list[Mapping[str, Any]]:
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            return _read_parquet(path)
        text = read_text(path, what="a table of reports", max_bytes=MAX_BYTES)
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror or exc}).") from None
    except DataError as exc:  # too large, unreadable or not UTF-8
        raise FormatError(str(exc)) from None
    if suffix in (".jsonl", ".ndjson"):
        out = []
        for line_no, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                out.append(_json_object(line, f"{path} line {line_no}"))
        return out
    if suffix == ".json":
        try:
            loaded = load_json(text, str(path))
        except DataError as exc:
            raise FormatError(str(exc)) from None
        if not isinstance(loaded, list):
            raise FormatError(f"{path}: expected a JSON list of report objects.")
        return [_json_object(item, f"{path} item {i + 1}") for i, item in enumerate(loaded)]
    if suffix in (".csv", ".tsv", ".txt", ""):
        delimiter = "\t" if suffix == ".tsv" else ","
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
        rows: list[Mapping[str, Any]] = []
        for row in reader:
            if None in row:
                raise FormatError(
                    f"{path} line {reader.line_num}: more fields than the header has columns."
                )
            rows.append({k.strip(): (v if v is None else v.strip()) for k, v in row.items()})
        return rows
    raise FormatError(
        f"{path}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .json or .parquet."
    )


def _json_object(item: Any, where: str) -> Mapping[str, Any]:
    if isinstance(item, str):
        try:
            item = load_json(item, where)
        except DataError as exc:
            raise FormatError(str(exc)) from None
    if not isinstance(item, dict):
        raise FormatError(f"{where}: expected a JSON object, got {type(item).__name__}.")
    return item


def _read_parquet(path: Path) -> list[Mapping[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise FormatError(
            f"{path}: reading Parquet needs pyarrow: pip install 'evalsig-stats[columnar]'."
        ) from None
    return list(pq.read_table(path).to_pylist())


# --- validation ----------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == "" or value.strip().lower() in ("na", "nan", "null", "none")
    return isinstance(value, float) and math.isnan(value)


def _column(columns: set[str], names: Sequence[str]) -> str | None:
    present = [n for n in names if n in columns]
    if len(present) > 1:
        raise DataError(
            f"columns {', '.join(map(repr, present))} all give the same quantity; keep one."
        )
    return present[0] if present else None


def _number(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool):
        raise DataError(f"{where}: `{what}` is {short(value)}, not a number.")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"{where}: `{what}` is {short(value)}, not a number.") from None
    if not math.isfinite(x):
        raise DataError(f"{where}: `{what}` is {short(value)}; give a finite number.")
    return x


def _flag(value: Any, where: str) -> bool | None:
    if _missing(value):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise DataError(
        f"{where}: `self_reported` is {short(value)}; use true/false (or 1/0; empty for unknown)."
    )


def _validate(records: list[Mapping[str, Any]], origin: str, scale: Scale) -> ReportTable:
    columns = set().union(*(r.keys() for r in records))
    absent = [c for c in REQUIRED if c not in columns]
    if absent:
        raise DataError(
            f"{origin}: missing column(s) {', '.join(map(repr, absent))}; the table has "
            f"{', '.join(map(repr, sorted(map(str, columns))))}. Name them model, benchmark, "
            "source, score (and se or n)."
        )
    se_col, n_col = _column(columns, SE_NAMES), _column(columns, N_NAMES)
    if se_col is None and n_col is None:
        raise DataError(
            f"{origin}: no standard-error column ({', '.join(SE_NAMES)}) and no item-count "
            f"column ({', '.join(N_NAMES)}); each report needs one of them."
        )
    k = len(records)
    text: dict[str, list[str]] = {c: [] for c in ("model", "benchmark", "source")}
    scores, ses, ns = np.empty(k), np.full(k, math.nan), np.full(k, math.nan)
    flags: list[bool | None] = []
    settings: dict[str, list[str | None]] = {c: [] for c in SETTINGS}
    for i, r in enumerate(records):
        where = f"{origin} row {i + 1}"
        for c in text:
            value = r.get(c)
            if _missing(value):
                raise DataError(f"{where}: `{c}` is empty; every report needs a {c}.")
            if isinstance(value, (Mapping, list, tuple, set, bytes)):  # str() would invent one
                raise DataError(
                    f"{where}: `{c}` is {short(value)}; give a name (text), not a "
                    f"{type(value).__name__}."
                )
            text[c].append(str(value).strip())
        where = f"{where} (model {short(text['model'][i])}, source {short(text['source'][i])})"
        if _missing(r.get("score")):
            raise DataError(f"{where}: `score` is missing; drop the row or fill in the score.")
        scores[i] = _number(r["score"], "score", where)
        se_raw = r.get(se_col) if se_col else None
        n_raw = r.get(n_col) if n_col else None
        if not _missing(se_raw):
            ses[i] = _number(se_raw, str(se_col), where)
            if ses[i] <= 0:
                raise DataError(
                    f"{where}: `{se_col}` is {short(se_raw)}; a standard error must be > 0 "
                    "(leave it empty and give n to impute it)."
                )
        if not _missing(n_raw):
            ns[i] = _number(n_raw, str(n_col), where)
            if ns[i] < 1 or ns[i] != round(ns[i]):
                raise DataError(
                    f"{where}: `{n_col}` is {short(n_raw)}; the number of items must be a whole "
                    "number >= 1."
                )
        if math.isnan(ses[i]) and math.isnan(ns[i]):
            raise DataError(
                f"{where}: neither `{se_col or SE_NAMES[0]}` nor `{n_col or N_NAMES[0]}` is "
                "given; the report needs a standard error or its number of items."
            )
        flags.append(_flag(r.get("self_reported"), where))
        for c in SETTINGS:
            value = r.get(c)
            settings[c].append(None if _missing(value) else str(value))
    models, benchmarks = tuple(text["model"]), tuple(text["benchmark"])
    chosen, detected = _scale(scores, models, benchmarks, scale, origin)
    unit = 100.0 if chosen == "points" else 1.0
    for i in range(k):
        where = (
            f"{origin} row {i + 1} (model {short(models[i])}, source {short(text['source'][i])})"
        )
        if not 0.0 <= scores[i] <= unit:
            raise DataError(
                f"{where}: score {scores[i]:g} is outside [0, {unit:g}] for the {chosen} scale."
            )
        if not math.isnan(ses[i]) and ses[i] > 0.5 * unit:
            raise DataError(
                f"{where}: se {ses[i]:g} exceeds {0.5 * unit:g}, the largest possible SE of a "
                f"score on the {chosen} scale; is the SE on another scale than the score?"
            )
    imputed = np.isnan(ses)
    p = scores / unit
    binomial = unit * np.sqrt(p * (1.0 - p) / np.where(imputed, ns, 1.0))
    zero = np.flatnonzero(imputed & (binomial <= 0))
    if zero.size:
        i = int(zero[0])
        raise DataError(
            f"{origin} row {i + 1} (model {short(models[i])}, source "
            f"{short(text['source'][i])}): score "
            f"{scores[i]:g} with only n = {ns[i]:g}: the binomial standard error is 0; give "
            f"an se for this report ({zero.size} such rows)."
        )
    se = np.where(imputed, binomial, ses)
    return ReportTable(
        models=models,
        benchmarks=benchmarks,
        sources=tuple(text["source"]),
        scores=scores,
        se=se,
        imputed=imputed,
        n_items=ns,
        self_reported=tuple(flags),
        settings={c: tuple(v) for c, v in settings.items()},
        scale=chosen,
        scale_detected=detected,
        origin=origin,
    )


def _scale(
    scores: np.ndarray,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    scale: Scale,
    origin: str,
) -> tuple[str, bool]:
    """The scale: given, or detected with a refusal of tables that look mixed."""
    if scale != "auto":
        return scale, False
    if np.all((scores >= 0) & (scores <= 1)):
        return "proportion", True
    small = scores <= 1
    for key, label in ((zip(models, benchmarks, strict=True), "cell"), (benchmarks, "benchmark")):
        groups: dict[Any, list[int]] = {}
        for i, g in enumerate(key):
            groups.setdefault(g, []).append(i)
        for g, idx in groups.items():
            part = small[idx]
            if label == "cell" and part.any() and not part.all():
                raise DataError(
                    f"{origin}: model {short(g[0])} on {short(g[1])} has scores on both scales "
                    f"({', '.join(f'{scores[i]:g}' for i in idx[:4])}); convert them to one "
                    "scale, or pass scale='points' if they are all points."
                )
            if label == "benchmark" and part.all():
                raise DataError(
                    f"{origin}: every score on benchmark {short(g)} is <= 1 while others exceed 1: "
                    "proportions mixed with points? Convert them, or pass scale='points' if "
                    "they are points."
                )
    return "points", True
