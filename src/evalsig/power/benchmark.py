"""Benchmark-level resolution: which displayed rankings can the benchmark actually resolve?

For models scored on the same items, every adjacent pair of the ranking (or every pair)
gets McNemar's N*, its resolution ratio q = N / N*, the same under item clustering (the
design effect of subject-level correlation), a multiplicity-corrected test, and the
stability of the unresolved count when the benchmark's categories are resampled.

Everything comes from per-cluster pair statistics built with matrix products (items never
revisited), so a category bootstrap is a weighted sum of small matrices per resample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.models import ModelScores, check_clusters
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.inference._common import UNKNOWN_SEED, seeded
from evalsig.inference.allpairs import (
    design_effects,
    model_means,
    model_shapes,
    pair_statistics,
    pair_sums,
    pair_tests,
)
from evalsig.inference.multiplicity import Method as Correction
from evalsig.inference.multiplicity import adjust
from evalsig.power._common import check_alpha, check_power, z_alpha, z_power
from evalsig.progress import report
from evalsig.result import Result

__all__ = ["BenchmarkResolution", "PairResolution", "benchmark_resolution"]

Pairs = Literal["adjacent", "all"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PairResolution:
    """One pair of models: the lower-ranked is the baseline, the higher the candidate."""

    baseline: str
    candidate: str
    n_items: int
    """Items both models answered."""
    effect: float
    """Candidate minus baseline on those items."""
    p01: float | None
    p10: float | None
    sd: float
    """SD of per-item differences."""
    n_required: float
    q: float
    design_effect: float | None
    icc: float | None
    q_clustered: float | None
    pvalue: float
    p_adjusted: float
    n_required_family: float
    """N* at the Bonferroni level alpha / m of the whole family of pairs."""
    q_family: float

    @property
    def resolved(self) -> bool:
        return self.q >= 1.0

    @property
    def resolved_clustered(self) -> bool | None:
        return None if self.q_clustered is None else self.q_clustered >= 1.0

    @property
    def resolved_family(self) -> bool:
        return self.q_family >= 1.0


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchmarkResolution(Result):
    """Resolution of every compared pair, with counts and their category-bootstrap spread."""

    kind: ClassVar[str] = "benchmark-resolution"

    models: tuple[str, ...]
    """Models in ranking order, best first."""
    means: tuple[float, ...]
    n_items: int
    pairs: tuple[PairResolution, ...]
    which: Pairs
    alpha: float
    power: float
    correction: str
    design: str
    """'mcnemar' or 'paired-t' (per-item differences of mean scores)."""
    n_clusters: int | None = None
    bootstrap: dict[str, Any] | None = None
    """``n_resamples``, and for ``unresolved`` (and ``unresolved_clustered``) the count
    of unresolved pairs in each resample summarised as ``{count: share}``."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    provenance: Provenance | None = field(default=None, compare=False)
    """Each model's origin (files, hashes, choices), the bootstrap's seed, the version and
    the time."""

    @property
    def n_unresolved(self) -> int:
        return sum(not p.resolved for p in self.pairs)

    @property
    def n_unresolved_clustered(self) -> int | None:
        if self.n_clusters is None:
            return None
        return sum(not p.resolved_clustered for p in self.pairs)

    @property
    def n_unresolved_family(self) -> int:
        return sum(not p.resolved_family for p in self.pairs)

    @property
    def n_not_significant(self) -> int:
        return sum(p.p_adjusted > self.alpha for p in self.pairs)

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        why = "the two models score the same: no number of items separates them"
        if self.bootstrap is not None and self.bootstrap.get("seed") is None:
            nulls["bootstrap.seed"] = "unknown: rng was a numpy Generator"
        rows = []
        for i, p in enumerate(self.pairs):
            rows.append(
                {
                    "baseline": p.baseline,
                    "candidate": p.candidate,
                    "n_items": p.n_items,
                    "effect": p.effect,
                    "p01": p.p01,
                    "p10": p.p10,
                    "sd": p.sd,
                    "n_required": json_safe(p.n_required, f"pairs[{i}].n_required", nulls, why),
                    "q": p.q,
                    "resolved": p.resolved,
                    "design_effect": p.design_effect,
                    "icc": p.icc,
                    "q_clustered": p.q_clustered,
                    "resolved_clustered": p.resolved_clustered,
                    "pvalue": p.pvalue,
                    "p_adjusted": p.p_adjusted,
                    "n_required_family": json_safe(
                        p.n_required_family, f"pairs[{i}].n_required_family", nulls, why
                    ),
                    "q_family": p.q_family,
                    "resolved_family": p.resolved_family,
                }
            )
        return {
            "kind": "benchmark-resolution",
            "schema_version": SCHEMA_VERSION,
            "models": list(self.models),
            "means": list(self.means),
            "n_items": self.n_items,
            "which": self.which,
            "alpha": self.alpha,
            "power": self.power,
            "correction": self.correction,
            "design": self.design,
            "n_clusters": self.n_clusters,
            "n_pairs": len(self.pairs),
            "n_unresolved": self.n_unresolved,
            "n_unresolved_clustered": self.n_unresolved_clustered,
            "n_unresolved_family": self.n_unresolved_family,
            "n_not_significant": self.n_not_significant,
            "pairs": rows,
            "bootstrap": self.bootstrap,
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """One row per compared pair: baseline, candidate, n_items, effect, p01, p10, sd,
        n_required, q, resolved, design_effect, icc, q_clustered, resolved_clustered
        (nullable boolean, <NA> without clusters), pvalue, p_adjusted, n_required_family,
        q_family, resolved_family."""
        from evalsig._frame import Nullable, data_frame, floats

        pairs = self.pairs

        def column(name: str) -> Any:
            values = [getattr(p, name) for p in pairs]
            if name in ("baseline", "candidate"):
                return values
            if name == "resolved_clustered":
                return Nullable(values, "boolean")
            if name == "n_items":
                return np.array(values, dtype=np.int64)
            if name in ("resolved", "resolved_family"):
                return np.array(values, dtype=bool)
            return floats(values)

        names: tuple[str, ...] = ("baseline", "candidate", "n_items", "effect", "p01", "p10", "sd")
        names += ("n_required", "q", "resolved", "design_effect", "icc", "q_clustered")
        names += ("resolved_clustered", "pvalue", "p_adjusted", "n_required_family", "q_family")
        names += ("resolved_family",)
        return data_frame({name: column(name) for name in names})


def benchmark_resolution(
    scores: ModelScores,
    /,
    *,
    pairs: Pairs = "adjacent",
    top: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    correction: Correction = "holm",
    n_resamples: int = 0,
    rng: np.random.Generator | int | None = None,
) -> BenchmarkResolution:
    """Resolution diagnostics for a set of models on one benchmark.

    Parameters
    ----------
    scores : ModelScores
        From :func:`evalsig.data.load_models` (a long table with a model column).
    pairs : {"adjacent", "all"}
        Neighbours in the ranking by mean score, or every pair.
    top : int, optional
        Only the ``top`` best models (the top-10 of a leaderboard).
    alpha, power : float
        The resolution target, two-sided: (0.05, 0.8) by default.
    correction : str
        Multiplicity correction of the pairs' p-values (see
        :func:`evalsig.inference.adjust`); the family's N* uses Bonferroni's ``alpha / m``.
    n_resamples : int, default 0
        Category-bootstrap resamples (needs clusters): resample clusters with replacement,
        re-rank, recount unresolved pairs.
    rng : Generator, int or None
        Seed of the bootstrap. When None one is drawn from the operating system's
        entropy and recorded as ``bootstrap['seed']``, so ``rng=seed`` reproduces it
        exactly (a Generator has no recoverable seed: recorded as None, with a note).

    Notes
    -----
    One run of right/wrong scores: McNemar's N* (Connor 1987) from the pair's discordance
    rates on the items both models answered. Otherwise the paired t-test's N*, by the
    normal approximation with Guenther's correction ``(z_a + z_b)^2 sd^2 / delta^2 +
    z_a^2 / 2`` (within about one item of the noncentral-t solution). The design effect is
    the ANOVA intra-cluster correlation of per-item differences, ``1 + (m_eff - 1) icc``,
    at least 1. Bootstrap resamples weight whole clusters (a cluster drawn twice counts as
    two clusters).
    """
    alpha, power = check_alpha(alpha), check_power(power)
    _check_options(scores, pairs, top, n_resamples)
    stats_g = pair_sums(scores.scores, scores.cluster_codes)
    binary = scores.binary
    totals = stats_g.sum(axis=0)
    means = model_means(stats_g.sum(axis=0))
    order = _ranking(means, top)
    chosen = _pairs(order, pairs)
    z = (z_alpha(alpha, "two-sided"), z_power(power))
    family_alpha = alpha / max(1, len(chosen))
    z_family = (z_alpha(family_alpha, "two-sided"), z_power(power))
    rows = _pair_rows(scores, chosen, stats_g, totals, z, z_family, correction, alpha)
    boot = None
    seed = None
    notes = list(scores.notes)
    if n_resamples:
        generator, seed = seeded(rng)
        boot = _category_bootstrap(stats_g, binary, top, pairs, z, n_resamples, generator)
        boot["seed"] = seed
        if seed is None:
            notes.append(UNKNOWN_SEED)
    if not binary:
        notes.append("scores are not one run of 0/1: N* from the paired t-test on item means")
    return BenchmarkResolution(
        models=tuple(scores.names[i] for i in order),
        means=tuple(float(means[i]) for i in order),
        n_items=scores.n_items,
        pairs=tuple(rows),
        which=pairs,
        alpha=alpha,
        power=power,
        correction=str(correction),
        design="mcnemar" if binary else "paired-t",
        n_clusters=None if scores.cluster_labels is None else len(scores.cluster_labels),
        bootstrap=boot,
        notes=tuple(notes),
        provenance=provenance(
            zip(scores.names, scores.origins or (None,) * scores.n_models, strict=True),
            seed=seed,
        ),
    )


def _check_options(scores: ModelScores, pairs: Pairs, top: int | None, n_resamples: int) -> None:
    """``pairs``, ``top`` and ``n_resamples`` are valid, and the clusters they need are there."""
    n_models = scores.n_models
    if pairs not in ("adjacent", "all"):
        raise DataError(f"`pairs` must be 'adjacent' or 'all'; got {pairs!r}.")
    if top is not None and (isinstance(top, bool) or not 2 <= int(top) <= n_models):
        raise DataError(f"`top` must be between 2 and the {n_models} models; got {top!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise DataError(f"`n_resamples` must be a non-negative integer; got {n_resamples!r}.")
    if n_resamples and scores.cluster_codes is None:
        raise DataError(
            "a category bootstrap needs item clusters; give a cluster column (e.g. "
            "cluster_column='category') or set n_resamples=0."
        )
    check_clusters(scores)


def _pair_rows(
    scores: ModelScores,
    chosen: list[tuple[int, int]],
    stats_g: np.ndarray,
    totals: np.ndarray,
    z: tuple[float, float],
    z_family: tuple[float, float],
    correction: Correction,
    alpha: float,
) -> list[PairResolution]:
    """Each chosen pair's N*, resolution ratios, design effect and corrected test."""
    binary = scores.binary
    base_idx = np.array([b for b, _ in chosen])
    cand_idx = np.array([c for _, c in chosen])
    pair_stats = pair_statistics(totals, base_idx, cand_idx)
    n_req = _n_required(pair_stats, binary, *z)
    n_req_family = _n_required(pair_stats, binary, *z_family)
    clustered = scores.cluster_codes is not None
    deff, icc = design_effects(stats_g, base_idx, cand_idx) if clustered else (None, None)
    shapes = model_shapes(scores.n_runs, scores.scores)
    tests = pair_tests(
        totals[None], base_idx, cand_idx, binary=binary, clustered=False, shapes=shapes
    )
    pvalues = tests.pvalue
    adjusted = adjust(pvalues, method=correction, alpha=alpha).p_adjusted
    rows = []
    for k, (b, c) in enumerate(chosen):
        n = int(pair_stats["n"][k])
        rows.append(
            PairResolution(
                baseline=scores.names[b],
                candidate=scores.names[c],
                n_items=n,
                effect=float(pair_stats["mean"][k]),
                p01=float(pair_stats["n01"][k] / n) if binary else None,
                p10=float(pair_stats["n10"][k] / n) if binary else None,
                sd=float(pair_stats["sd"][k]),
                n_required=float(n_req[k]),
                q=_ratio(n, n_req[k]),
                design_effect=None if deff is None else float(deff[k]),
                icc=None if icc is None else float(icc[k]),
                q_clustered=None if deff is None else _ratio(n, n_req[k] * deff[k]),
                pvalue=float(pvalues[k]),
                p_adjusted=float(adjusted[k]),
                n_required_family=float(n_req_family[k]),
                q_family=_ratio(n, n_req_family[k]),
            )
        )
    return rows


def _ranking(means: np.ndarray, top: int | None) -> np.ndarray:
    order = np.argsort(-means, kind="stable")
    return order if top is None else order[: int(top)]


def _pairs(order: np.ndarray, which: Pairs) -> list[tuple[int, int]]:
    """(baseline, candidate) index pairs: the lower-ranked model is the baseline."""
    if which == "adjacent":
        return [(int(order[k + 1]), int(order[k])) for k in range(len(order) - 1)]
    return [
        (int(order[j]), int(order[i])) for i in range(len(order)) for j in range(i + 1, len(order))
    ]


def _n_required(s: dict[str, np.ndarray], binary: bool, za: float, zb: float) -> np.ndarray:
    """Connor's N* (0/1 scores) or Guenther's paired-t N*; inf when the means are equal."""
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.abs(s["mean"])
        if binary:
            disc = (s["n01"] + s["n10"]) / s["n"]
            n = (za * np.sqrt(disc) + zb * np.sqrt(np.maximum(disc - delta**2, 0))) ** 2
            n = n / delta**2
        else:
            n = (za + zb) ** 2 * s["sd"] ** 2 / delta**2 + za**2 / 2
    result: np.ndarray = np.where(delta > 0, n, np.inf)
    return result


def _category_bootstrap(
    stats_g: np.ndarray,
    binary: bool,
    top: int | None,
    which: Pairs,
    z: tuple[float, float],
    n_resamples: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Resample clusters with replacement; re-rank; count unresolved pairs each time."""
    n_clusters = len(stats_g)
    plain = np.empty(n_resamples, dtype=np.int64)
    clustered = np.empty(n_resamples, dtype=np.int64)
    flat = stats_g.reshape(n_clusters, -1)
    for r in range(n_resamples):
        w = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters)).astype(float)
        total = (w @ flat).reshape(stats_g.shape[1:])
        order = _ranking(model_means(total), top)
        chosen = _pairs(order, which)
        b = np.array([p[0] for p in chosen])
        c = np.array([p[1] for p in chosen])
        s = pair_statistics(total, b, c)
        n_req = _n_required(s, binary, *z)
        deff, _ = design_effects(stats_g, b, c, w)
        plain[r] = int(np.sum(s["n"] < n_req))
        clustered[r] = int(np.sum(s["n"] < n_req * deff))
        if r % 50 == 0 or r == n_resamples - 1:
            report("category bootstrap", r + 1, n_resamples)
    return {
        "n_resamples": n_resamples,
        "n_clusters": n_clusters,
        "seed": None,
        "unresolved": _distribution(plain),
        "unresolved_clustered": _distribution(clustered),
    }


def _distribution(counts: np.ndarray) -> dict[str, float]:
    values, freq = np.unique(counts, return_counts=True)
    return {str(int(v)): float(f / len(counts)) for v, f in zip(values, freq, strict=True)}


def _ratio(n: float, needed: float) -> float:
    return 0.0 if math.isinf(needed) else float(n / needed)
