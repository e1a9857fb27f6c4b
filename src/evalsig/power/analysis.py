"""One power analysis: N*, power and MDE at a given N, a power curve, and the shortcuts.

:func:`power_analysis` is what ``evalsig power`` shows: the design's required items, the
power and minimum detectable effect at the size you have (or plan), the power curve
around N*, how more runs trade against more items, and what an unpaired calculator would
have said.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.paired import PairedScores
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.inference._common import (
    Alternative,
    check_alternative,
    check_count,
    check_number,
)
from evalsig.power._common import (
    check_alpha,
    check_n,
    check_power,
    discordance_rates,
    paired_provenance,
)
from evalsig.power.mcnemar import (
    mcnemar_detectable_effect,
    mcnemar_power,
    mcnemar_sample_size,
)
from evalsig.power.paired_t import (
    RunsTradeoff,
    paired_t_detectable_effect,
    paired_t_power,
    paired_t_sample_size,
    runs_tradeoff,
    variance_components,
)
from evalsig.power.results import Method, SampleSize, ratio
from evalsig.power.unpaired import UnpairedShortcut, unpaired_shortcut_sample_size
from evalsig.result import Result

__all__ = ["PowerAnalysis", "power_analysis", "power_analysis_paired"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PowerAnalysis(Result):
    """Required items, power and MDE at ``n``, a power curve, and the alternatives."""

    kind: ClassVar[str] = "power"

    sample_size: SampleSize
    n: int | None
    """The size you have or plan (None: only N* was asked for)."""
    power_at_n: float | None
    detectable_effect: float | None
    """MDE at ``n`` (a magnitude, in score units)."""
    curve: tuple[tuple[float, float], ...]
    """(items, power) points around N* and ``n``."""
    runs: RunsTradeoff | None = None
    unpaired: UnpairedShortcut | None = None
    source: str = "given rates"
    """Where the inputs came from: 'given rates' or the pilot files."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    provenance: Provenance | None = field(default=None, compare=False)
    """The pilot files (their hashes, models and choices), the version and the time; no
    inputs for given rates."""

    @property
    def q(self) -> float | None:
        """``n / N*``, when ``n`` is known."""
        return None if self.n is None else ratio(self.n, self.sample_size.n)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        q = self.q
        return {
            "kind": "power",
            "schema_version": SCHEMA_VERSION,
            "source": self.source,
            "sample_size": self.sample_size.to_dict(),
            "n": self.n,
            "power_at_n": self.power_at_n,
            "detectable_effect": self.detectable_effect,
            "q": None if q is None else json_safe(q, "q", nulls, "undefined"),
            "resolved": None if q is None else q >= 1.0,
            "curve": [[x, y] for x, y in self.curve],
            "runs": None if self.runs is None else self.runs.to_dict(),
            "unpaired": None if self.unpaired is None else self.unpaired.to_dict(),
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """The power curve: n (items, int64), power. The runs trade-off is
        ``runs.to_frame()``."""
        from evalsig._frame import data_frame

        return data_frame(
            {
                "n": np.array([n for n, _ in self.curve], dtype=np.int64),
                "power": np.array([p for _, p in self.curve], dtype=np.float64),
            }
        )


def power_analysis(
    *,
    p01: float | None = None,
    p10: float | None = None,
    discordance: float | None = None,
    effect: float | None = None,
    sd: float | None = None,
    sd_within: float | None = None,
    runs: int = 1,
    n: int | None = None,
    baseline_accuracy: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    method: Method = "normal",
    source: str = "given rates",
) -> PowerAnalysis:
    """Power analysis of a paired comparison from its rates or its effect and spread.

    Parameters
    ----------
    p01, p10 : float, optional
        Discordance rates of a one-run right/wrong comparison (McNemar's design).
    discordance : float, optional
        ``p01 + p10`` alone, with ``n``: the effect is then the MDE at ``n``.
    effect, sd : float, optional
        Otherwise: the mean difference to detect and the SD of per-item (mean)
        differences between items (the paired t-test's design); ``sd`` alone, with ``n``,
        solves for the MDE.
    sd_within, runs : optional
        Run-to-run SD of one run's difference within an item, and the runs per item
        planned: the per-item SD is then ``sqrt(sd^2 + sd_within^2 / runs)`` and the
        result includes the runs trade-off.
    n : int, optional
        The number of items you have or plan: adds power, MDE and q at ``n``.
    baseline_accuracy : float, optional
        With ``p01, p10``: adds the unpaired Cohen's-h shortcut for comparison.

    Examples
    --------
    >>> a = power_analysis(p01=0.075, p10=0.065, n=4000)
    >>> a.sample_size.n_items, round(a.power_at_n, 3)
    (10987, 0.394)
    """
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    size_n = None if n is None else int(check_n(n))
    runs = check_count(runs, "runs", fix="It is the runs per item planned.")
    sd, sd_within = (
        None if value is None else check_number(value, name, low=0.0, fix=f"It is {what}.")
        for value, name, what in (
            (sd, "sd", "the SD of per-item differences"),
            (sd_within, "sd_within", "the run-to-run SD of one run's difference"),
        )
    )
    binary = p01 is not None or p10 is not None or discordance is not None
    if binary == (effect is not None or sd is not None):
        raise DataError(
            "give either `p01` and `p10` (one run scored right/wrong) or `effect` and `sd` "
            "(mean difference and SD of per-item differences), not both or neither."
        )
    sign = -1.0 if alternative == "less" else 1.0
    target = _Target(alpha=alpha, power=power, alternative=alternative)
    if discordance is not None:
        p01, p10 = _rates_at_mde(discordance, p01, p10, size_n, sign, target)
    if sd is not None and effect is None:
        if size_n is None or size_n < 2:
            raise DataError("`sd` without `effect` needs `n` (at least 2): the MDE is solved for.")
        effect = sign * target.detectable_effect(size_n, _total_sd(sd, sd_within, runs))
    if binary:
        design = _mcnemar_design(p01, p10, size_n, baseline_accuracy, method, target)
    else:
        design = _paired_t_design(effect, sd, sd_within, runs, size_n, target)
    sample = design.sample
    curve = _curve(sample.n, size_n, design.power_at)
    notes = sample.notes
    if sample.effect == 0 and size_n is not None:
        notes += (
            f"with no difference the 'power' at {size_n:,} items is the test's size, its "
            "false-positive rate (alpha), not a power; give the difference to detect.",
        )
    return PowerAnalysis(
        sample_size=sample,
        n=size_n,
        power_at_n=None if size_n is None else design.power_at(size_n),
        detectable_effect=design.mde,
        curve=curve,
        runs=design.runs,
        unpaired=design.unpaired,
        source=source,
        notes=notes,
        provenance=provenance(),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Target:
    """The test's level, side and the power sought."""

    alpha: float
    power: float
    alternative: Alternative

    def detectable_effect(self, n: int, sd: float) -> float:
        """The paired t-test's MDE on ``n`` items of per-item SD ``sd``."""
        return paired_t_detectable_effect(
            n, sd, alpha=self.alpha, power=self.power, alternative=self.alternative
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Design:
    """One design's N*, its power at any size, its MDE at ``n`` and what goes beside them."""

    sample: SampleSize
    power_at: Callable[[float], float]
    mde: float | None
    runs: RunsTradeoff | None = None
    unpaired: UnpairedShortcut | None = None


def _rates_at_mde(
    discordance: float,
    p01: float | None,
    p10: float | None,
    size_n: int | None,
    sign: float,
    target: _Target,
) -> tuple[float, float]:
    """``p01, p10`` of the given discordance split by the MDE at ``size_n`` items."""
    if p01 is not None or p10 is not None:
        raise DataError("give `discordance` or `p01` and `p10`, not both.")
    if size_n is None:
        raise DataError("`discordance` alone needs `n`: the MDE at n items is solved for.")
    found = mcnemar_detectable_effect(
        size_n, discordance, alpha=target.alpha, power=target.power, alternative=target.alternative
    )
    if found is None:
        raise DataError(
            f"no effect is detectable on {size_n:,} items at discordance {discordance:g}: "
            "even a one-way split of every disagreement falls short; add items."
        )
    return (discordance + sign * found) / 2, (discordance - sign * found) / 2


def _mcnemar_design(
    p01: float | None,
    p10: float | None,
    size_n: int | None,
    baseline_accuracy: float | None,
    method: Method,
    target: _Target,
) -> _Design:
    """McNemar's design from the discordance rates, with the unpaired shortcut beside it."""
    if p01 is None or p10 is None:
        raise DataError("give both `p01` and `p10`.")
    alpha, power, alternative = target.alpha, target.power, target.alternative
    sample = mcnemar_sample_size(
        p01, p10, power=power, method=method, alpha=alpha, alternative=alternative
    )

    def power_at(k: float) -> float:
        return mcnemar_power(k, p01, p10, method=method, alpha=alpha, alternative=alternative)

    mde = (
        None
        if size_n is None or p01 + p10 == 0
        else mcnemar_detectable_effect(
            size_n, p01 + p10, power=power, alpha=alpha, alternative=alternative
        )
    )
    unpaired = None
    if baseline_accuracy is not None:
        unpaired = unpaired_shortcut_sample_size(
            baseline_accuracy,
            baseline_accuracy + p01 - p10,
            p01=p01,
            p10=p10,
            power=power,
            alpha=alpha,
            alternative=alternative,
        )
    return _Design(sample=sample, power_at=power_at, mde=mde, unpaired=unpaired)


def _paired_t_design(
    effect: float | None,
    sd: float | None,
    sd_within: float | None,
    runs: int,
    size_n: int | None,
    target: _Target,
) -> _Design:
    """The paired t-test's design, with the runs trade-off when ``sd_within`` is given."""
    if effect is None or sd is None:
        raise DataError("give both `effect` and `sd`.")
    alpha, power, alternative = target.alpha, target.power, target.alternative
    total_sd = _total_sd(sd, sd_within, runs)
    sample = paired_t_sample_size(
        effect, total_sd, power=power, alpha=alpha, alternative=alternative
    )

    def power_at(k: float) -> float:
        return paired_t_power(max(k, 2.0), effect, total_sd, alpha=alpha, alternative=alternative)

    mde = None if size_n is None or size_n < 2 else target.detectable_effect(size_n, total_sd)
    trade = None
    if sd_within is not None:
        trade = runs_tradeoff(
            effect, sd, sd_within, power=power, alpha=alpha, alternative=alternative
        )
    return _Design(sample=sample, power_at=power_at, mde=mde, runs=trade)


def _total_sd(sd: float, sd_within: float | None, runs: int) -> float:
    """``sqrt(sd^2 + sd_within^2 / runs)``, without overflow for huge SDs."""
    return math.hypot(sd, (sd_within or 0.0) / math.sqrt(runs))


def power_analysis_paired(
    paired: PairedScores,
    /,
    *,
    n: int | None = None,
    effect: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    method: Method = "normal",
    source: str = "pilot data",
) -> PowerAnalysis:
    """Power analysis with the inputs estimated from a pilot comparison.

    One run of right/wrong scores gives ``p01, p10`` (rescaled to ``effect`` when given,
    holding the discordance); otherwise the variance components of per-item differences.
    ``n`` defaults to the pilot's number of items.
    """
    size = paired.n_items if n is None else n
    d = paired.differences()
    if paired.binary and paired.single_run:
        n01, n10 = discordance_rates(d)
        if effect is not None:
            disc = n01 + n10
            if not abs(effect) <= disc:
                raise DataError(
                    f"`effect` {effect:+g} exceeds the pilot's discordance {disc:.4g}; no "
                    "pair of rates with that discordance has this difference."
                )
            n01, n10 = (disc + effect) / 2, (disc - effect) / 2
        accuracy = float(paired.baseline.mean)
        analysis = power_analysis(
            p01=n01,
            p10=n10,
            n=size,
            baseline_accuracy=accuracy,
            alpha=alpha,
            power=power,
            alternative=alternative,
            method=method,
            source=source,
        )
        return replace(
            analysis,
            notes=paired.notes + analysis.notes,
            provenance=paired_provenance(paired),
        )
    parts = variance_components(paired)
    runs = round(min(parts.runs_baseline, parts.runs_candidate))
    analysis = power_analysis(
        effect=float(d.mean()) if effect is None else effect,
        sd=parts.sd_between if parts.sd_within is not None else parts.sd_observed,
        sd_within=parts.sd_within,
        runs=max(1, runs),
        n=size,
        alpha=alpha,
        power=power,
        alternative=alternative,
        source=source,
    )
    return replace(
        analysis,
        notes=paired.notes + analysis.notes + parts.notes,
        provenance=paired_provenance(paired),
    )


def _curve(
    n_star: float, n: int | None, power_at: Any, points: int = 40
) -> tuple[tuple[float, float], ...]:
    """Power on a log grid spanning N*/8 .. 4 N* (and ``n``)."""
    anchors = [v for v in (n_star, n) if v is not None and math.isfinite(v) and v > 0]
    if not anchors:
        return ()
    lo, hi = max(2.0, min(anchors) / 8), max(anchors) * 4
    grid = np.unique(np.round(np.geomspace(lo, hi, points)))
    return tuple((float(k), float(power_at(k))) for k in grid)
