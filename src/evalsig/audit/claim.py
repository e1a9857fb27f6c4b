"""Audit a reported claim: is a published interval or p-value consistent with the data?

Given the per-item runs behind a reported comparison, :func:`audit_claim` recomputes the
honest paired analysis (as :func:`evalsig.compare` chooses it) and the standard error each
known shortcut would report on the same data, then says which one the reported interval
matches. The candidates are expected standard errors, exact for the bootstrap variants (the
variance of one bootstrap replicate, which B resamples estimate):

* paired (honest): ``sd(d_i) / sqrt(n)`` on per-item mean differences ``d_i``;
* McNemar (honest, one 0/1 run): ``sqrt(n01 + n10) / n``;
* unpaired question bootstrap: ``sqrt(var(xbar_i) + var(ybar_i)) / sqrt(n)`` (variances
  over items, ``ddof = 0``): pairing lost;
* run bootstrap: ``sqrt(sum_i (v_xi + v_yi)) / n`` with ``v_i`` an item's run-to-run
  variance (``ddof = 0``): decoding runs resampled instead of questions;
* SE across runs: ``sqrt(var_r(acc_x) / R + var_r(acc_y) / R)``, runs (seeds) as the unit;
* runs pooled as items: ``sqrt(var_x / (n R) + var_y / (n R))`` over all n R scores;
* any of the bootstrap SEs divided by ``sqrt(B)``, the replicates treated as independent
  runs (with B given, or the B that would match).

A reported interval ``(low, high)`` at level ``1 - alpha`` implies ``SE = (high - low) /
(2 z)``; a reported two-sided p-value with estimate ``e`` implies ``SE = |e| / z_p``,
``z_p = Phi^-1(1 - p/2)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.comparison import ComparisonResult, compare_paired
from evalsig.data import PairedScores, ScoreTable, load_pair
from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level
from evalsig.result import Result

__all__ = ["ClaimAudit", "ClaimCandidate", "audit_claim"]

Units = Literal["score", "points"]
Verdict = Literal[
    "consistent", "too narrow", "wider than needed", "estimate differs", "undetermined"
]

SQRT_B = "sqrt(B) in the SE"
RUNS = "resampling decoding runs instead of questions"
UNPAIRED = "unpaired resampling"
PSEUDO = "runs counted as extra questions"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCandidate:
    """What one procedure would report on these data."""

    name: str
    label: str
    honest: bool
    causes: tuple[str, ...]
    """The shortcuts this procedure takes (empty for honest ones)."""
    se: float
    """Its expected standard error on these data."""
    ratio: float
    """Reported SE / this SE (1 = the reported interval has exactly this width)."""
    matches: bool
    """Whether ``ratio`` is within the tolerance of 1."""
    resamples: float | None = None
    """For SE / sqrt(B) procedures: the B used (given) or the B that would match."""

    def to_dict(
        self, nulls: dict[str, str] | None = None, prefix: str = "candidate"
    ) -> dict[str, Any]:
        """JSON-safe fields; NaN becomes null with its reason in ``nulls`` (when given)."""
        nulls = {} if nulls is None else nulls
        return {
            "name": self.name,
            "label": self.label,
            "honest": self.honest,
            "causes": list(self.causes),
            "se": json_safe(self.se, f"{prefix}.se", nulls, "undefined on these data"),
            "ratio": json_safe(self.ratio, f"{prefix}.ratio", nulls, "undefined"),
            "matches": self.matches,
            "resamples": json_safe(self.resamples, f"{prefix}.resamples", nulls, "undefined"),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ClaimAudit(Result):
    """A reported interval or p-value, checked against the honest paired analysis."""

    kind: ClassVar[str] = "claim-audit"

    honest: ComparisonResult
    reported_low: float | None
    reported_high: float | None
    reported_pvalue: float | None
    reported_estimate: float
    """The reported estimate (or the data's, when none was reported)."""
    reported_se: float
    """The standard error the report implies."""
    confidence_level: float
    n_resamples: int | None
    tolerance: float
    candidates: tuple[ClaimCandidate, ...]
    verdict: Verdict
    """"too narrow" (flagged), "wider than needed", "consistent", "estimate differs" (the
    reported difference lies outside the honest interval) or "undetermined"."""
    likely_cause: str | None
    explanation: str
    notes: tuple[str, ...] = ()

    @property
    def honest_se(self) -> float:
        return float(self.honest.se)

    @property
    def narrower_by(self) -> float:
        """How many times narrower the reported interval is than the honest one."""
        return self.honest_se / self.reported_se if self.reported_se > 0 else math.inf

    @property
    def reported_half_width(self) -> float:
        return _z(self.confidence_level) * self.reported_se

    @property
    def reported_significant(self) -> bool:
        if self.reported_pvalue is not None:
            return self.reported_pvalue <= 1 - self.confidence_level
        return abs(self.reported_estimate) > self.reported_half_width

    @property
    def honest_significant(self) -> bool:
        return self.honest.significant(1 - self.confidence_level)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        h = self.honest
        return {
            "kind": "claim-audit",
            "schema_version": SCHEMA_VERSION,
            "verdict": self.verdict,
            "likely_cause": self.likely_cause,
            "explanation": self.explanation,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "tolerance": self.tolerance,
            "reported": {
                "low": self.reported_low,
                "high": self.reported_high,
                "pvalue": self.reported_pvalue,
                "estimate": self.reported_estimate,
                "se": json_safe(self.reported_se, "reported.se", nulls, "no width implied"),
                "half_width": json_safe(
                    self.reported_half_width, "reported.half_width", nulls, "no width implied"
                ),
                "significant": self.reported_significant,
            },
            "honest": {
                "method": h.method,
                "estimate": json_safe(h.estimate, "honest.estimate", nulls, "undefined"),
                "se": json_safe(h.se, "honest.se", nulls, "undefined"),
                "low": json_safe(h.ci.low, "honest.low", nulls, "undefined"),
                "high": json_safe(h.ci.high, "honest.high", nulls, "undefined"),
                "half_width": json_safe(
                    (h.ci.high - h.ci.low) / 2, "honest.half_width", nulls, "undefined"
                ),
                "pvalue": json_safe(h.pvalue, "honest.pvalue", nulls, "undefined"),
                "significant": self.honest_significant,
            },
            "narrower_by": json_safe(self.narrower_by, "narrower_by", nulls, "zero width"),
            "n_items": h.n_items,
            "n_runs": {"baseline": h.n_runs[0], "candidate": h.n_runs[1]},
            "percent_scale": h.percent_scale,
            "candidates": [
                c.to_dict(nulls, f"candidates[{i}]") for i, c in enumerate(self.candidates)
            ],
            "notes": list(self.notes),
            "provenance": None if h.provenance is None else h.provenance.to_dict(),
            "nulls": nulls,
        }

    def to_frame(self) -> Any:
        """One row per candidate procedure: name, label, honest, causes (a tuple), se,
        ratio (reported SE / this SE), matches, resamples."""
        from evalsig._frame import data_frame, floats

        rows = self.candidates
        return data_frame(
            {
                "name": [c.name for c in rows],
                "label": [c.label for c in rows],
                "honest": np.array([c.honest for c in rows], dtype=bool),
                "causes": [c.causes for c in rows],
                "se": floats(c.se for c in rows),
                "ratio": floats(c.ratio for c in rows),
                "matches": np.array([c.matches for c in rows], dtype=bool),
                "resamples": floats(c.resamples for c in rows),
            }
        )


def audit_claim(
    baseline: Any,
    candidate: Any,
    /,
    *,
    ci: tuple[float, float] | None = None,
    half_width: float | None = None,
    pvalue: float | None = None,
    estimate: float | None = None,
    n_resamples: int | None = None,
    confidence_level: float = 0.95,
    units: Units = "score",
    tolerance: float = 0.2,
    cluster: Any = None,
) -> ClaimAudit:
    """Check a reported interval or p-value against the honest analysis of the same data.

    Parameters
    ----------
    baseline, candidate : array, file path, ScoreTable, ...
        Per-item results (runs x items) of the two models, in any form
        :func:`evalsig.compare` reads; items are matched by id.
    ci : (low, high), optional
        The reported interval for candidate minus baseline.
    half_width : float, optional
        The reported "+/-" (instead of ``ci``).
    pvalue : float, optional
        The reported two-sided p-value (alone, or besides an interval).
    estimate : float, optional
        The reported difference; default: the interval's centre, else the data's.
    n_resamples : int, optional
        The bootstrap resamples B the report used, if known; otherwise the B that would
        explain an SE / sqrt(B) error is reported.
    confidence_level : float, default 0.95
        Of the reported interval.
    units : {"score", "points"}
        "points": the reported numbers are percentage points (0.19 means 0.0019).
    tolerance : float, default 0.2
        Relative difference within which a reported SE matches a procedure's SE, and
        below which (``1 - tolerance`` of the honest SE) it is flagged as too narrow. With
        ``n_resamples`` given, an SE estimated from B bootstrap replicates varies by about
        ``1 / sqrt(2 (B - 1))`` (13% at B = 30), so resampling procedures match within
        ``max(tolerance, 2.5 / sqrt(2 (B - 1)))``, as does the honest width.
    cluster : str, sequence or mapping, optional
        Clusters of items, for a cluster-robust honest analysis.

    Returns
    -------
    ClaimAudit

    Raises
    ------
    DataError
        No reported interval or p-value, both ``ci`` and ``half_width``, or bad values.

    Notes
    -----
    The verdict compares the implied SE with the honest one: below ``1 - tolerance`` of it
    "too narrow", above ``1 / (1 - tolerance)`` "wider than needed"; a reported difference
    outside the honest interval is "estimate differs". The likely cause is the shortcut of
    the closest matching procedure (``|ratio - 1|`` within the tolerance).

    References
    ----------
    cstorm125 (2026). Benchmaxxing Series: Abuse-Boostrapping-for-Narrower-Confidence-
    Intervals no Jutsu. Efron, B. & Tibshirani, R. J. (1993). An Introduction to the
    Bootstrap. Chapman & Hall (the bootstrap SE as the SD of the replicates).

    Examples
    --------
    >>> from evalsig.simulate import simulate_models
    >>> sim = simulate_models(rng=20260504)
    >>> result = audit_claim(sim.baseline, sim.clone, half_width=0.0019, n_resamples=30)
    >>> result.verdict, result.likely_cause
    ('too narrow', 'sqrt(B) in the SE')
    """
    level = check_confidence_level(confidence_level)
    scale = _units(units)
    tol = _check_request(tolerance, ci, half_width, pvalue, n_resamples)
    paired = load_pair(baseline, candidate, cluster=cluster)
    honest = compare_paired(paired, confidence_level=level)
    z = _z(level)
    claim = _reported_claim(
        honest, ci=ci, half_width=half_width, pvalue=pvalue, estimate=estimate, scale=scale, z=z
    )
    allow = tol if n_resamples is None else max(tol, 2.5 / math.sqrt(2 * (n_resamples - 1)))
    candidates = _candidates(paired, claim.se, n_resamples, tol, allow)
    verdict, cause, explanation = _claim_verdict(
        honest, claim, candidates, allow=allow, z=z, level=level, n_resamples=n_resamples
    )
    notes = list(claim.notes)
    if paired.n_clusters is None and honest.method != "paired-t" and "mcnemar" not in honest.method:
        notes.append(f"the honest analysis used {honest.method}")
    return ClaimAudit(
        honest=honest,
        reported_low=claim.low,
        reported_high=claim.high,
        reported_pvalue=claim.pvalue,
        reported_estimate=claim.estimate,
        reported_se=claim.se,
        confidence_level=level,
        n_resamples=None if n_resamples is None else int(n_resamples),
        tolerance=tol,
        candidates=candidates,
        verdict=verdict,
        likely_cause=cause,
        explanation=explanation,
        notes=tuple(notes),
    )


def _check_request(
    tolerance: float,
    ci: object,
    half_width: object,
    pvalue: object,
    n_resamples: object,
) -> float:
    """The tolerance, once the request names one reported interval or p-value and a valid B."""
    tol = float(tolerance)
    if not 0 < tol < 1:
        raise DataError(f"`tolerance` must be in (0, 1); got {tolerance!r}.")
    if ci is not None and half_width is not None:
        raise DataError("give the reported interval as `ci` or as `half_width`, not both.")
    if ci is None and half_width is None and pvalue is None:
        raise DataError(
            "nothing to audit: give the reported interval (`ci` or `half_width`) or `pvalue`."
        )
    if n_resamples is not None and (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 2
    ):
        raise DataError(f"`n_resamples` must be an integer >= 2; got {n_resamples!r}.")
    return tol


@dataclass(frozen=True, slots=True, kw_only=True)
class _Claim:
    """What the report states, on the data's scale, and the standard error it implies."""

    low: float | None
    high: float | None
    estimate: float
    se: float
    pvalue: float | None
    notes: tuple[str, ...]


def _reported_claim(
    honest: ComparisonResult,
    *,
    ci: tuple[float, float] | None,
    half_width: float | None,
    pvalue: float | None,
    estimate: float | None,
    scale: float,
    z: float,
) -> _Claim:
    """The reported interval, estimate and p-value, and the standard error they imply."""
    notes: list[str] = []
    low = high = None
    if ci is not None:
        low, high = (_number(v, "ci") * scale for v in ci)
        if low > high:
            raise DataError(f"`ci` must be (low, high) with low <= high; got {ci!r}.")
        centre = (low + high) / 2
        se_rep = (high - low) / (2 * z)
    elif half_width is not None:
        width = _number(half_width, "half_width") * scale
        if width < 0:
            raise DataError(f"`half_width` must be >= 0; got {half_width!r}.")
        centre = honest.estimate if estimate is None else _number(estimate, "estimate") * scale
        low, high = centre - width, centre + width
        se_rep = width / z
    else:
        centre = honest.estimate if estimate is None else _number(estimate, "estimate") * scale
        se_rep = math.nan
    reported_estimate = centre if estimate is None else _number(estimate, "estimate") * scale
    p_rep = None
    if pvalue is not None:
        p_rep = _number(pvalue, "pvalue")
        if not 0 <= p_rep <= 1:
            raise DataError(f"`pvalue` must be in [0, 1]; got {pvalue!r}.")
        if ci is None and half_width is None:
            if p_rep >= 1 or reported_estimate == 0:
                notes.append("a p-value of 1 or a zero estimate implies no standard error")
            elif p_rep == 0:
                se_rep = 0.0
            else:
                se_rep = abs(reported_estimate) / -float(special.ndtri(p_rep / 2))
    if abs(reported_estimate - honest.estimate) > max(0.5 * honest.se, 1e-12):
        notes.append(
            f"the reported estimate {reported_estimate:+.4g} differs from the data's "
            f"{honest.estimate:+.4g} by more than half an honest SE"
        )
    return _Claim(
        low=low, high=high, estimate=reported_estimate, se=se_rep, pvalue=p_rep, notes=tuple(notes)
    )


def _claim_verdict(
    honest: ComparisonResult,
    claim: _Claim,
    candidates: tuple[ClaimCandidate, ...],
    *,
    allow: float,
    z: float,
    level: float,
    n_resamples: int | None,
) -> tuple[Verdict, str | None, str]:
    """The verdict on the width, unless the estimate lies outside the honest interval."""
    verdict, cause, explanation = _verdict(honest, claim.se, candidates, allow, z, n_resamples)
    show = _formatter(honest.percent_scale)
    honest_half = (honest.ci.high - honest.ci.low) / 2
    if abs(claim.estimate - honest.estimate) > honest_half:
        verdict, cause = "estimate differs", None
        explanation = (
            f"The reported difference {_signed(claim.estimate, honest.percent_scale)} lies "
            f"outside the honest interval around the data's "
            f"{_signed(honest.estimate, honest.percent_scale)} ({show(honest_half)}): the "
            "claim does not describe these data. " + explanation
        )
    significant = (
        claim.pvalue <= 1 - level
        if claim.pvalue is not None
        else math.isfinite(claim.se) and abs(claim.estimate) > z * claim.se
    )
    if significant and not honest.significant(1 - level):
        explanation += (
            f" The report calls the difference significant; the honest analysis does not "
            f"(p = {honest.pvalue:.3g})."
        )
    return verdict, cause, explanation


def _z(level: float) -> float:
    return float(special.ndtri(1.0 - (1.0 - level) / 2.0))


def _units(units: object) -> float:
    if units == "score":
        return 1.0
    if units == "points":
        return 0.01
    raise DataError(f"`units` must be 'score' or 'points'; got {units!r}.")


def _number(value: object, name: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise DataError(f"`{name}` must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise DataError(f"`{name}` must be finite; got {value!r}.")
    return number


def _item_stats(table: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
    """Per-item mean and run-to-run variance (``ddof = 0``)."""
    means = table.sums / table.counts
    var = np.maximum(table.sumsq / table.counts - means * means, 0.0)
    return np.asarray(means), np.asarray(var)


def _standard_errors(paired: PairedScores) -> dict[str, float]:
    b, c = paired.baseline, paired.candidate
    n = paired.n_items
    xbar, vx = _item_stats(b)
    ybar, vy = _item_stats(c)
    d = ybar - xbar
    out = {
        "paired": float(np.std(d, ddof=1) / math.sqrt(n)),
        "unpaired-bootstrap": float(math.sqrt(np.var(xbar) + np.var(ybar)) / math.sqrt(n)),
    }
    if paired.single_run and paired.binary:
        n01 = int(np.count_nonzero((xbar == 0) & (ybar == 1)))
        n10 = int(np.count_nonzero((xbar == 1) & (ybar == 0)))
        out["mcnemar"] = math.sqrt(n01 + n10) / n
    if b.n_runs > 1 or c.n_runs > 1:
        out["run-bootstrap"] = float(math.sqrt(vx.sum() + vy.sum()) / n)
        if b.runs is not None and c.runs is not None and b.n_runs > 1 and c.n_runs > 1:
            acc_x, acc_y = b.runs.mean(axis=1), c.runs.mean(axis=1)
            out["runs-as-unit"] = float(
                math.sqrt(np.var(acc_x, ddof=1) / len(acc_x) + np.var(acc_y, ddof=1) / len(acc_y))
            )
        total = [float(t.counts.sum()) for t in (b, c)]
        pooled = [
            float(t.sumsq.sum()) / m - (float(t.sums.sum()) / m) ** 2
            for t, m in zip((b, c), total, strict=True)
        ]
        out["pooled-runs"] = math.sqrt(max(pooled[0], 0) / total[0] + max(pooled[1], 0) / total[1])
    return out


_LABELS: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "paired": ("paired analysis (paired t / paired question bootstrap)", True, ()),
    "mcnemar": ("McNemar's test (Wald SE)", True, ()),
    "unpaired-bootstrap": ("unpaired question bootstrap", False, (UNPAIRED,)),
    "run-bootstrap": ("run bootstrap (resampling decoding runs)", False, (RUNS,)),
    "runs-as-unit": ("SE across runs (seeds as the unit)", False, (RUNS,)),
    "pooled-runs": ("all runs pooled as independent items", False, (PSEUDO, UNPAIRED)),
}

_SQRT_B_OF = {
    "run-bootstrap": ("run bootstrap with SE / sqrt(B)", (SQRT_B, RUNS)),
    "paired": ("paired question bootstrap with SE / sqrt(B)", (SQRT_B,)),
    "unpaired-bootstrap": ("unpaired question bootstrap with SE / sqrt(B)", (SQRT_B, UNPAIRED)),
}


_RESAMPLED = frozenset({"paired", "unpaired-bootstrap", "run-bootstrap"})
"""Procedures whose reported SE may come from B bootstrap replicates (and so vary)."""


def _candidates(
    paired: PairedScores, se_rep: float, n_resamples: int | None, tol: float, allow: float
) -> tuple[ClaimCandidate, ...]:
    ses = _standard_errors(paired)
    out = []

    def ratio_of(se: float) -> float:
        if not math.isfinite(se_rep):
            return math.nan
        return se_rep / se if se > 0 else (math.inf if se_rep > 0 else 1.0)

    for name, se in ses.items():
        label, honest, causes = _LABELS[name]
        r = ratio_of(se)
        out.append(
            ClaimCandidate(
                name=name,
                label=label,
                honest=honest,
                causes=causes,
                se=se,
                ratio=r,
                matches=bool(abs(r - 1) <= (allow if name in _RESAMPLED else tol)),
            )
        )
    for base, (label, causes) in _SQRT_B_OF.items():
        if base not in ses:
            continue
        se = ses[base]
        resamples: float | None
        if n_resamples is not None:
            shrunk = se / math.sqrt(n_resamples)
            r = ratio_of(shrunk)
            matches, resamples = bool(abs(r - 1) <= allow), float(n_resamples)
        else:
            implied = (se / se_rep) ** 2 if se_rep > 0 and math.isfinite(se_rep) else math.nan
            matches = bool(math.isfinite(implied) and implied >= 2)
            shrunk = se / math.sqrt(implied) if matches else math.nan
            r = 1.0 if matches else math.nan
            resamples = implied if math.isfinite(implied) else None
        out.append(
            ClaimCandidate(
                name=f"{base}-sqrt-b",
                label=label,
                honest=False,
                causes=causes,
                se=shrunk,
                ratio=r,
                matches=matches,
                resamples=resamples,
            )
        )
    return tuple(out)


def _verdict(
    honest: ComparisonResult,
    se_rep: float,
    candidates: tuple[ClaimCandidate, ...],
    tol: float,
    z: float,
    n_resamples: int | None,
) -> tuple[Verdict, str | None, str]:
    if not math.isfinite(se_rep) or not math.isfinite(honest.se) or honest.se <= 0:
        return "undetermined", None, "The report implies no standard error to compare."
    if se_rep <= 0:
        return (
            "too narrow",
            None,
            (
                "The report implies a standard error of 0: no procedure that looks at the data "
                "gives that (a p-value of 0 or an interval of zero width)."
            ),
        )
    show = _formatter(honest.percent_scale)
    ratio = se_rep / honest.se
    half = z * se_rep
    honest_half = (honest.ci.high - honest.ci.low) / 2
    reference = f"the honest paired one ({show(honest_half)}, {honest.method})"
    verdict: Verdict
    if ratio < 1 - tol:
        verdict = "too narrow"
        head = (
            f"The reported half-width {show(half)} is {1 / ratio:.2f}x narrower than {reference}."
        )
    elif ratio > 1 / (1 - tol):
        verdict = "wider than needed"
        head = (
            f"The reported half-width {show(half)} is {ratio:.2f}x wider than {reference}: "
            "conservative, not overstated."
        )
    else:
        return (
            "consistent",
            None,
            (f"The reported half-width {show(half)} is within {100 * tol:g}% of {reference}."),
        )
    exact = sorted(
        (
            c
            for c in candidates
            if c.matches and not c.honest and (c.resamples is None or n_resamples is not None)
        ),
        key=lambda c: abs(math.log(c.ratio)),
    )
    if exact:
        best = exact[0]
        at = f" at B = {best.resamples:g}" if best.resamples is not None else ""
        match = (
            f" It matches the {best.label}{at} (expected half-width {show(z * best.se)}, "
            f"reported / expected = {best.ratio:.2f})."
        )
        return verdict, best.causes[0], head + match
    flexible = [c for c in candidates if c.matches and c.resamples is not None]
    if verdict == "too narrow" and flexible and n_resamples is None:
        options = "; ".join(f"the {c.label} with B = {c.resamples:.1f}" for c in flexible)
        match = (
            f" No fixed procedure matches; an SE divided by sqrt(B) would: {options} (give "
            "the number of resamples to decide)."
        )
        return verdict, SQRT_B, head + match
    return verdict, None, head + " No known shortcut matches its width."


def _signed(value: float, percent: bool) -> str:
    return f"{100 * value:+.3g} pp" if percent else f"{value:+.4g}"


def _formatter(percent: bool) -> Any:
    def show(value: float) -> str:
        return f"+/-{100 * value:.3g} pp" if percent else f"+/-{value:.4g}"

    return show
