"""The published calibration table the audit reproduces, and how to compare with it.

The article's table (500 simulated benchmarks of its default design, B = 30 resamples,
30 independent runs, 95% intervals) printed percentages of 500, so the counts are exact:
35.8% is 179 of 500. Its code, run as printed, gives these counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from evalsig.simulate.audit_methods import MethodSettings
from evalsig.simulate.design import MixtureDesign
from evalsig.simulate.models import Design

__all__ = ["ARTICLE", "PublishedRow", "agreement_pvalue", "published_rows"]

ARTICLE = (
    "cstorm125 (2026), 'Benchmaxxing Series: Abuse-Boostrapping-for-Narrower-Confidence-"
    "Intervals no Jutsu', calibration table (500 simulations)"
)
"""Where the reference numbers come from."""

ARTICLE_SIMULATIONS = 500


class _Hits(Protocol):
    @property
    def power_hits(self) -> int: ...
    @property
    def false_positive_hits(self) -> int: ...
    @property
    def n_simulations(self) -> int: ...


class HitRates:
    """Power and false-positive rate as shares of the simulated benchmarks (for records
    with ``power_hits``, ``false_positive_hits`` and ``n_simulations``)."""

    __slots__ = ()

    @property
    def power(self: _Hits) -> float:
        return self.power_hits / self.n_simulations

    @property
    def false_positive_rate(self: _Hits) -> float:
        return self.false_positive_hits / self.n_simulations


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishedRow(HitRates):
    """One method's published power, false-positive rate and median half-width."""

    power_hits: int
    false_positive_hits: int
    n_simulations: int
    median_half_width: float
    """In accuracy units (0.0117 = +/-1.17 points)."""
    analytical_power: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "power": self.power,
            "power_hits": self.power_hits,
            "false_positive_rate": self.false_positive_rate,
            "false_positive_hits": self.false_positive_hits,
            "n_simulations": self.n_simulations,
            "median_half_width": self.median_half_width,
            "analytical_power": self.analytical_power,
        }


_TABLE: tuple[tuple[str, int, int, float, float | None], ...] = (
    # method, power hits, false-positive hits (of 500), median half-width, analytical power
    ("mcnemar", 179, 29, 0.0117, 0.389),
    ("paired-t", 497, 29, 0.0050, 0.973),
    ("independent-runs", 500, 34, 0.0020, None),
    ("unpaired-bootstrap", 2, 0, 0.0189, None),
    ("run-bootstrap", 214, 0, 0.0104, None),
    ("run-bootstrap-sqrt-b", 500, 210, 0.0019, None),
)

_ROWS = {
    method: PublishedRow(
        power_hits=power_hits,
        false_positive_hits=false_positive_hits,
        n_simulations=ARTICLE_SIMULATIONS,
        median_half_width=half_width,
        analytical_power=analytical_power,
    )
    for method, power_hits, false_positive_hits, half_width, analytical_power in _TABLE
}


def published_rows(design: Design, settings: MethodSettings) -> dict[str, PublishedRow]:
    """The published rows when ``design`` and ``settings`` are the article's, else ``{}``."""
    article = MixtureDesign()
    same = (
        isinstance(design, MixtureDesign)
        and design == article
        and settings == MethodSettings(confidence_level=0.95, n_resamples=30, independent_runs=30)
    )
    return dict(_ROWS) if same else {}


def agreement_pvalue(hits: int, n: int, published_hits: int, published_n: int) -> float:
    """Two-sided Fisher exact p-value that two Monte Carlo counts share one rate.

    Both the published table and a new audit estimate a rejection rate from a finite
    number of simulations; a small p-value (below 0.001, say) means they disagree by more
    than Monte Carlo error.

    >>> round(agreement_pvalue(179, 500, 179, 500), 3)
    1.0
    """
    from scipy import stats  # 0.4 s to import: only the comparison with the article needs it

    table = [[hits, n - hits], [published_hits, published_n - published_hits]]
    return float(stats.fisher_exact(table).pvalue)
