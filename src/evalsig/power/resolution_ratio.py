"""Is this comparison resolved? The resolution ratio q = N / N* of a paired comparison.

``N*`` is the number of items the paired test needs to detect the observed difference at
(alpha, power); ``q >= 1`` means the benchmark is large enough to resolve the pair,
``q < 1`` that the difference is below what it can resolve. With item clusters the
design effect inflates ``N*``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.loading import load_pair
from evalsig.data.paired import OnMismatch, OnMissing, PairedScores
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.inference._common import Alternative, check_alternative
from evalsig.power._common import (
    check_alpha,
    check_n,
    check_power,
    check_rates,
    discordance_rates,
    paired_provenance,
)
from evalsig.power.cluster import design_effect
from evalsig.power.mcnemar import mcnemar_detectable_effect, mcnemar_sample_size
from evalsig.power.paired_t import (
    paired_t_detectable_effect,
    paired_t_sample_size,
    variance_components,
)
from evalsig.power.results import SampleSize, ratio
from evalsig.result import Result

__all__ = ["Resolution", "resolution", "resolution_from_rates", "resolution_paired"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution(Result):
    """Whether a paired comparison of ``n_items`` items resolves its observed difference."""

    kind: ClassVar[str] = "resolution"

    n_items: int
    effect: float
    """The observed (or given) difference, candidate minus baseline."""
    n_required: float
    """N*: items needed to detect ``effect`` at (alpha, power); inf for no difference."""
    q: float
    """``n_items / n_required``."""
    detectable_effect: float | None
    """The smallest difference ``n_items`` items detect (MDE), a magnitude."""
    design: str
    """'mcnemar' (one run of right/wrong scores) or 'paired-t' (per-item mean differences)."""
    alpha: float
    power: float
    alternative: Alternative
    inputs: dict[str, float] = field(default_factory=dict)
    """p01, p10 and discordance (McNemar), or sd, sd_between, sd_within (paired t)."""
    design_effect: float | None = None
    """Variance inflation from item clusters (None without clusters)."""
    icc: float | None = None
    n_clusters: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = field(default=None, compare=False)
    """The compared files (hashes, models, choices), the version and the time; no inputs
    for given rates."""

    @property
    def n_required_clustered(self) -> float | None:
        """``N* x deff``: items needed once clustering is accounted for."""
        return None if self.design_effect is None else self.n_required * self.design_effect

    @property
    def q_clustered(self) -> float | None:
        """``N / (N* deff)``: the resolution ratio under clustering."""
        needed = self.n_required_clustered
        return None if needed is None else ratio(self.n_items, needed)

    @property
    def resolved(self) -> bool:
        """``q >= 1``, using the clustered ratio when clusters are known."""
        q = self.q if self.q_clustered is None else self.q_clustered
        return q >= 1.0

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        why = "no difference between the models: no number of items detects it"
        clustered = self.n_required_clustered
        return {
            "kind": "resolution",
            "schema_version": SCHEMA_VERSION,
            "n_items": self.n_items,
            "effect": self.effect,
            "n_required": json_safe(self.n_required, "n_required", nulls, why),
            "q": self.q,
            "resolved": self.resolved,
            "detectable_effect": self.detectable_effect,
            "design": self.design,
            "alpha": self.alpha,
            "power": self.power,
            "alternative": self.alternative,
            "inputs": dict(self.inputs),
            "design_effect": self.design_effect,
            "icc": self.icc,
            "n_clusters": self.n_clusters,
            "n_required_clustered": (
                None
                if clustered is None
                else json_safe(clustered, "n_required_clustered", nulls, why)
            ),
            "q_clustered": self.q_clustered,
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }


def resolution(
    baseline: Any,
    candidate: Any,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    cluster: Any = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> Resolution:
    """The resolution ratio of a comparison, estimated from its (pilot) data.

    Takes the same inputs as :func:`evalsig.compare`. One run of right/wrong scores uses
    McNemar's N* from the observed discordance rates; several runs or continuous scores
    use the paired t-test's N* from the SD of per-item mean differences. ``cluster``
    adds the design effect of the item clusters.

    Examples
    --------
    >>> from evalsig.simulate import simulate_benchmark
    >>> bench = simulate_benchmark(n_items=4000, n_runs=1, uplift=0.01, rng=3)
    >>> r = resolution(bench.baseline, bench.candidate)
    >>> r.design, r.resolved
    ('mcnemar', False)
    """
    paired = load_pair(
        baseline, candidate, cluster=cluster, on_missing=on_missing, on_mismatch=on_mismatch
    )
    return resolution_paired(paired, alpha=alpha, power=power, alternative=alternative)


def resolution_paired(
    paired: PairedScores,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> Resolution:
    """:func:`resolution` on scores already aligned by :func:`evalsig.pair`."""
    alpha, power = check_alpha(alpha), check_power(power)
    alternative = check_alternative(alternative)
    n = paired.n_items
    d = paired.differences()
    notes = list(paired.notes)
    if paired.binary and paired.single_run:
        base = _from_rates(n, *discordance_rates(d), alpha, power, alternative)
    else:
        parts = variance_components(paired)
        sd = parts.sd_observed
        effect = float(d.mean())
        size = paired_t_sample_size(effect, sd, alpha=alpha, power=power, alternative=alternative)
        mde = paired_t_detectable_effect(n, sd, alpha=alpha, power=power, alternative=alternative)
        inputs = {"sd": sd, "sd_between": parts.sd_between}
        if parts.sd_within is not None:
            inputs["sd_within"] = parts.sd_within
            inputs["runs"] = min(parts.runs_baseline, parts.runs_candidate)
        notes.extend(parts.notes)
        notes.extend(size.notes)
        base = _against(n, size, mde, inputs)
    origins = paired_provenance(paired)
    if paired.cluster_codes is None:
        return _with(base, notes=tuple(notes) + base.notes, provenance=origins)
    deff = design_effect(d, paired.cluster_codes)
    notes.extend(deff.notes)
    return _with(
        base,
        design_effect=deff.design_effect,
        icc=deff.icc,
        n_clusters=deff.n_clusters,
        notes=tuple(notes) + base.notes,
        provenance=origins,
    )


def resolution_from_rates(
    n: float,
    p01: float,
    p10: float,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    design_effect: float | None = None,
) -> Resolution:
    """The resolution ratio of an N-item McNemar comparison with these discordance rates.

    Examples
    --------
    >>> r = resolution_from_rates(4000, 0.075, 0.065)
    >>> round(r.q, 3), r.resolved
    (0.364, False)
    """
    size = check_n(n)
    a, b = check_rates(p01, p10)
    base = _from_rates(
        int(size), a, b, check_alpha(alpha), check_power(power), check_alternative(alternative)
    )
    if design_effect is None:
        return base
    if not float(design_effect) >= 1.0:
        raise DataError(f"`design_effect` must be at least 1; got {design_effect!r}.")
    return _with(base, design_effect=float(design_effect))


def _from_rates(
    n: int, p01: float, p10: float, alpha: float, power: float, alternative: Alternative
) -> Resolution:
    size = mcnemar_sample_size(p01, p10, alpha=alpha, power=power, alternative=alternative)
    disc = p01 + p10
    mde = (
        mcnemar_detectable_effect(n, disc, alpha=alpha, power=power, alternative=alternative)
        if disc > 0
        else None
    )
    notes = size.notes if disc > 0 else ("the models never disagree: nothing to resolve",)
    inputs = {"p01": p01, "p10": p10, "discordance": disc}
    return _against(n, size, mde, inputs, notes=tuple(notes), provenance=provenance())


def _against(
    n: int,
    size: SampleSize,
    mde: float | None,
    inputs: dict[str, float],
    *,
    notes: tuple[str, ...] = (),
    provenance: Provenance | None = None,
) -> Resolution:
    """``n`` items against the sample size ``size``: ``q = n / N*``, with the effect,
    design and test (alpha, power, alternative) that ``size`` was solved for."""
    return Resolution(
        n_items=n,
        effect=size.effect,
        n_required=size.n,
        q=ratio(n, size.n),
        detectable_effect=mde,
        design=size.design,
        alpha=size.alpha,
        power=size.power,
        alternative=size.alternative,
        inputs=inputs,
        notes=notes,
        provenance=provenance,
    )


def _with(base: Resolution, **changes: Any) -> Resolution:
    return replace(base, **changes)
