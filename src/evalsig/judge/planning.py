r"""How many human labels a judge correction needs, from the judge's correlation with humans.

With ``N`` judge-scored unlabeled items, human SD :math:`\sigma_h`, judge SD
:math:`\sigma_j` and correlation :math:`\rho`, the PPI variance with ``n`` labels is

.. math:: V(n) = \frac{\sigma_h^2 - 2\lambda\rho\sigma_h\sigma_j + \lambda^2\sigma_j^2}{n}
   + \frac{\lambda^2\sigma_j^2}{N}.

Plain PPI has :math:`\lambda = 1`, so :math:`V(n) \le v` when
:math:`n \ge \mathrm{Var}(h - j) / (v - \sigma_j^2/N)`. PPI++ uses the best
:math:`\lambda = c/(1 + n/N)`, :math:`c = \rho\sigma_h/\sigma_j` (clipped to [0, 1]);
unclipped this gives :math:`V(n) = \sigma_h^2 (1 - \rho^2 N/(N + n)) / n`, and
:math:`V(n) \le v` is the quadratic :math:`n^2 + (N - s) n - s N (1 - \rho^2) \ge 0` with
:math:`s = \sigma_h^2 / v` (the labels the human-only mean needs), so

.. math:: n = \tfrac12\left[s - N + \sqrt{(N - s)^2 + 4 s N (1 - \rho^2)}\right].

The target variance is :math:`v = (w/z)^2` for an interval half-width ``w``, or
:math:`v = (\delta / (z_{1-\alpha} + z_{\text{power}}))^2` to detect a difference
:math:`\delta` (:math:`z_{1-\alpha/2}` when two-sided).

References
----------
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2024). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from scipy import special

from evalsig._json import SCHEMA_VERSION
from evalsig.data.provenance import Provenance
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    check_alternative,
    check_confidence_level,
    check_count,
    check_number,
)
from evalsig.judge._input import check_same_items, finite_numbers
from evalsig.result import Result

__all__ = [
    "LabelPlan",
    "Pilot",
    "labels_for_half_width",
    "labels_for_power",
    "pilot",
    "ppi_variance",
]


MAX_LABELS = 1e15
"""More labels than any plan can need: inputs asking for more are on different scales."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pilot:
    """What a plan needs from a pilot: the judge's correlation with the humans and the
    per-item standard deviations (``ddof=1``), measured on ``n`` items both scored."""

    n: int
    correlation: float
    human_sd: float
    judge_sd: float


def pilot(judge: Any, human: Any, /) -> Pilot:
    """The correlation and standard deviations of a pilot's judge scores and human labels.

    Parameters
    ----------
    judge, human : sequence of numbers
        The judge's score and the human label of each pilot item, in one order.

    Returns
    -------
    Pilot
        ``correlation`` (Pearson), ``human_sd`` and ``judge_sd`` (``ddof=1``), and ``n``.

    Raises
    ------
    DataError
        Missing values, different lengths, fewer than 3 items, or scores that do not vary.

    Examples
    --------
    >>> p = pilot([1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1])
    >>> round(p.correlation, 4), round(p.human_sd, 4)
    (0.7071, 0.5477)
    """
    j = _pilot_values(judge, "judge")
    h = _pilot_values(human, "human")
    check_same_items(j, h, counted="pilot scores", both="scores")
    if len(j) < 3:
        raise DataError(f"the pilot has {len(j)} item(s); a correlation needs at least 3.")
    sd_j, sd_h = float(np.std(j, ddof=1)), float(np.std(h, ddof=1))
    for name, sd in (("judge", sd_j), ("human", sd_h)):
        if not sd > 0:
            raise DataError(
                f"the pilot's {name} scores are all {(j if name == 'judge' else h)[0]:g}: "
                "the correlation is undefined. Label a pilot where both scores vary."
            )
    return Pilot(n=len(j), correlation=float(np.corrcoef(j, h)[0, 1]), human_sd=sd_h, judge_sd=sd_j)


def _pilot_values(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise DataError(
            f"`{name}` must be numbers, one per pilot item; got {values!r:.60}."
        ) from None
    return finite_numbers(
        array, name, per="pilot item", fix="the pilot needs both scores of every item"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelPlan(Result):
    """Human labels needed for a target precision (JSON kind ``"judge-plan"``)."""

    kind: ClassVar[str] = "judge-plan"

    n_labels: int | None
    """Labels PPI (or PPI++) needs; None when no number suffices (see notes)."""
    n_classical: int
    """Labels the human-only mean needs for the same precision."""
    lambda_: float | None
    """The judge's weight at ``n_labels`` (PPI++ tuned; PPI 1)."""
    target_se: float
    n_unlabeled: int
    correlation: float
    human_sd: float
    judge_sd: float
    method: str
    target: str = ""
    """The precision asked for, in words (an interval's half-width, or a power)."""
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "judge-plan",
            "schema_version": SCHEMA_VERSION,
            "n_labels": self.n_labels,
            "n_classical": self.n_classical,
            "lambda": self.lambda_,
            "target_se": self.target_se,
            "n_unlabeled": self.n_unlabeled,
            "correlation": self.correlation,
            "human_sd": self.human_sd,
            "judge_sd": self.judge_sd,
            "method": self.method,
            "target": self.target,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """One row: method, n_labels (<NA> when no number suffices), n_classical, lambda
        (NaN when undefined), target_se, n_unlabeled, correlation, human_sd, judge_sd."""
        from evalsig._frame import Nullable, data_frame, floats, ints

        return data_frame(
            {
                "method": [self.method],
                "n_labels": Nullable([self.n_labels], "Int64"),
                "n_classical": ints([self.n_classical]),
                "lambda": floats([self.lambda_]),
                "target_se": floats([self.target_se]),
                "n_unlabeled": ints([self.n_unlabeled]),
                "correlation": floats([self.correlation]),
                "human_sd": floats([self.human_sd]),
                "judge_sd": floats([self.judge_sd]),
            },
            attrs={"target": self.target},
        )


def ppi_variance(
    n: float,
    *,
    n_unlabeled: int,
    correlation: float,
    human_sd: float,
    judge_sd: float,
    tuned: bool = True,
) -> tuple[float, float]:
    """``(V(n), lambda)``: the PPI variance with ``n`` labels (see the module), lambda tuned
    and clipped to [0, 1] for PPI++, 1 for PPI."""
    big_n = n_unlabeled
    if tuned:
        lam = min(max(correlation * human_sd / judge_sd / (1.0 + n / big_n), 0.0), 1.0)
    else:
        lam = 1.0
    judged = lam * judge_sd  # products, not powers: huge values give inf, not an error
    residual = human_sd * human_sd - 2 * correlation * human_sd * judged + judged * judged
    return residual / n + judged * judged / big_n, lam


def labels_for_half_width(
    half_width: float,
    /,
    *,
    n_unlabeled: int,
    correlation: float,
    human_sd: float,
    judge_sd: float | None = None,
    confidence_level: float = 0.95,
    tuned: bool = True,
) -> LabelPlan:
    """Human labels for a two-sided interval no wider than ``estimate +/- half_width``.

    Parameters
    ----------
    half_width : float
        The interval's target half-width, on the scale of the scores.
    n_unlabeled : int
        Items only the judge scores.
    correlation : float
        Of the judge's and the humans' scores per item (from a pilot).
    human_sd, judge_sd : float
        Per-item SDs of the human and judge scores (``sqrt(p (1 - p))`` for 0/1 labels of
        rate ``p``); ``judge_sd`` defaults to ``human_sd``.
    confidence_level : float
    tuned : bool
        PPI++ (True) or plain PPI.

    Examples
    --------
    >>> plan = labels_for_half_width(0.03, n_unlabeled=5000, correlation=0.8, human_sd=0.5)
    >>> plan.n_labels, plan.n_classical
    (440, 1068)
    """
    level = check_confidence_level(confidence_level)
    half_width = check_number(
        half_width, "half_width", low=0.0, open_low=True, fix="Give it on the scores' scale."
    )
    z = float(special.ndtri(0.5 + level / 2.0))
    plan = _plan(half_width / z, n_unlabeled, correlation, human_sd, judge_sd, tuned)
    return replace(plan, target=f"{100 * level:g}% interval half-width {half_width:g}")


def labels_for_power(
    effect: float,
    /,
    *,
    n_unlabeled: int,
    correlation: float,
    human_sd: float,
    judge_sd: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    tuned: bool = True,
) -> LabelPlan:
    """Human labels to detect a difference ``effect`` with the given power (z-test).

    For a paired difference, pass the SDs and correlation of the per-item differences.

    Examples
    --------
    >>> plan = labels_for_power(0.05, n_unlabeled=4000, correlation=0.7, human_sd=0.6)
    >>> plan.n_labels < plan.n_classical
    True
    """
    effect = check_number(effect, "effect", fix="Give it on the scores' scale.")
    if effect == 0:
        raise DataError(
            "`effect` is 0: no number of labels detects no difference (the power at 0 is "
            "the test's level alpha, whatever the labels); give the smallest difference "
            "worth detecting, e.g. 0.05."
        )
    for name, value in (("alpha", alpha), ("power", power)):
        check_number(value, name, low=0.0, high=1.0, open_low=True, open_high=True)
    side = check_alternative(alternative)
    tail = alpha / 2.0 if side == "two-sided" else alpha
    spread = float(special.ndtri(1.0 - tail) + special.ndtri(power))
    plan = _plan(abs(effect) / spread, n_unlabeled, correlation, human_sd, judge_sd, tuned)
    return replace(plan, target=f"power {power:g} to detect {effect:g} ({side}, alpha {alpha:g})")


def _plan(
    target_se: float,
    n_unlabeled: int,
    correlation: float,
    human_sd: float,
    judge_sd: float | None,
    tuned: bool,
) -> LabelPlan:
    big_n = check_count(n_unlabeled, "n_unlabeled", fix="It counts the judge-only items.")
    correlation = check_number(correlation, "correlation", low=-1.0, high=1.0)
    human_sd = check_number(human_sd, "human_sd", low=0.0, open_low=True)
    sd_j = (
        human_sd if judge_sd is None else check_number(judge_sd, "judge_sd", low=0.0, open_low=True)
    )
    # ratios and products, never **: extreme values give inf (refused below), not an error
    ratio = human_sd / target_se if target_se > 0 else math.inf
    s = ratio * ratio
    if not s < MAX_LABELS:
        raise DataError(
            f"`human_sd` {human_sd:g} against a target standard error of {target_se:.4g} "
            f"needs more than {MAX_LABELS:.0e} labels: give the SDs and the target "
            "(half-width or effect) on one scale, the scale of the scores."
        )
    v = target_se * target_se
    notes: list[str] = []
    n: float | None
    if tuned:
        gap = big_n - s
        n = 0.5 * (s - big_n + math.sqrt(gap * gap + 4 * s * big_n * (1 - correlation**2)))
        if correlation <= 0:
            n = s
            notes.append("the judge does not correlate positively: lambda = 0 (humans only).")
        elif correlation * human_sd / sd_j / (1.0 + n / big_n) > 1.0:
            n = _plain(v, big_n, correlation, human_sd, sd_j)  # lambda clipped at 1
    else:
        n = _plain(v, big_n, correlation, human_sd, sd_j)
    if n is not None and not n < MAX_LABELS:
        raise DataError(
            f"the judge's own noise on {big_n:,} items (SD {sd_j:.4g} / sqrt(N)) all but "
            f"fills the target standard error {target_se:.4g}: PPI needs more than "
            f"{MAX_LABELS:.0e} labels. Add unlabeled items, widen the target, or use PPI++."
        )
    if n is None:
        notes.append(
            f"the judge's own noise on {big_n:,} items (SD {sd_j:.4g} / sqrt(N)) exceeds the "
            "target with lambda = 1: add unlabeled items, or use PPI++ (tuned)."
        )
        n_labels, lam = None, (1.0 if not tuned else None)
    else:
        n_labels = max(math.ceil(n - 1e-9 * max(n, 1.0)), 1)
        lam = ppi_variance(
            n_labels,
            n_unlabeled=big_n,
            correlation=correlation,
            human_sd=human_sd,
            judge_sd=sd_j,
            tuned=tuned,
        )[1]
    return LabelPlan(
        n_labels=n_labels,
        n_classical=math.ceil(s - 1e-9 * s),
        lambda_=lam,
        target_se=target_se,
        n_unlabeled=big_n,
        correlation=correlation,
        human_sd=human_sd,
        judge_sd=sd_j,
        method="ppi++" if tuned else "ppi",
        notes=tuple(notes),
    )


def _plain(v: float, big_n: int, rho: float, sd_h: float, sd_j: float) -> float | None:
    room = v - sd_j * sd_j / big_n
    if room <= 0:
        return None
    return (sd_h * sd_h - 2 * rho * sd_h * sd_j + sd_j * sd_j) / room
