"""The result of :func:`evalsig.arena.bradley_terry`: a leaderboard of pairwise scores."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.provenance import Provenance
from evalsig.result import Result

if TYPE_CHECKING:
    from evalsig.arena.elo_ratings import EloRatings

__all__ = ["ELO_SCALE", "ArenaResult", "Covariate"]

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per logit: a 400-point gap means 10:1 odds."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Covariate:
    """A style-control coefficient (logit scale, per unit of the feature difference)."""

    name: str
    estimate: float
    se: float
    """Of the result's interval method (sandwich, cluster-robust or bootstrap)."""
    se_model: float
    """Model-based (inverse information)."""
    df: float | None = None
    """Bell-McCaffrey degrees of freedom (CR2); None: normal."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArenaResult(Result):
    """Bradley-Terry scores of models from pairwise battles, best first.

    Per model (arrays in the order of ``models``): ``score``, ``se``, the interval
    ``ci_low`` .. ``ci_high``, ``rank`` (1 = best), the simultaneous rank interval
    ``rank_low`` .. ``rank_high``, the tie ``group`` and ``n_battles``.
    """

    kind: ClassVar[str] = "arena"

    models: tuple[str, ...]
    score: np.ndarray = field(repr=False)
    se: np.ndarray = field(repr=False)
    ci_low: np.ndarray = field(repr=False)
    ci_high: np.ndarray = field(repr=False)
    rank: np.ndarray = field(repr=False)
    rank_low: np.ndarray = field(repr=False)
    rank_high: np.ndarray = field(repr=False)
    group: np.ndarray = field(repr=False)
    n_battles: np.ndarray = field(repr=False)
    se_model: np.ndarray = field(repr=False)
    """Model-based standard errors (inverse information), for comparison."""
    ties: str
    scale: str
    anchor: str | None
    interval: str
    """'sandwich', 'cluster-robust sandwich' or 'bootstrap'."""
    cluster_correction: str | None = None
    """'CR2' (bias-reduced, t intervals) or 'CR1' for a cluster-robust sandwich."""
    df: np.ndarray | None = field(default=None, repr=False)
    """CR2: Bell-McCaffrey degrees of freedom of each score's t interval."""
    rank_df: float | None = None
    """Degrees of freedom of the multivariate t behind the rank intervals, if one was used."""
    rank_null: str = "normal"
    """The draws behind the rank intervals' critical value: 'normal', 'multivariate-t'
    (CR2 fallback) or 'cr2-studentized' (each draw's own CR2 standard errors)."""
    confidence_level: float
    critical_value: float
    """The max-T critical value of the simultaneous pairwise intervals behind the ranks."""
    n_draws: int
    n_resamples: int | None
    total_battles: int
    n_rows: int
    """Distinct battle rows after compression."""
    n_clusters: int | None
    covariates: tuple[Covariate, ...] = ()
    tie_parameter: tuple[float, float] | None = None
    """Davidson's ``nu`` and its standard error."""
    loglik: float
    iterations: int
    online_elo: EloRatings | None = None
    seed: int | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    cov: np.ndarray = field(repr=False, compare=False)
    """Covariance of the scores (on the result's scale), in ``models`` order."""

    def __getitem__(self, model: str) -> dict[str, Any]:
        """One model's row of ``to_dict()``."""
        for row in self.to_dict()["rows"]:
            if row["model"] == model:
                return dict(row)
        raise KeyError(f"no model {model!r}; the result has {list(self.models)}")

    def with_online_elo(self, ratings: EloRatings) -> ArenaResult:
        """This result with online Elo ratings shown beside the scores (for comparison)."""
        return dataclasses.replace(self, online_elo=ratings)

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON fields; nulls are explained under ``nulls``."""
        nulls: dict[str, str] = {}
        rows = []
        for i, model in enumerate(self.models):
            where = f"rows[{i}]"
            rows.append(
                {
                    "model": model,
                    "score": json_safe(float(self.score[i]), f"{where}.score", nulls, "no fit"),
                    "se": json_safe(float(self.se[i]), f"{where}.se", nulls, "undefined"),
                    "ci": {
                        "low": json_safe(float(self.ci_low[i]), f"{where}.ci.low", nulls, "none"),
                        "high": json_safe(
                            float(self.ci_high[i]), f"{where}.ci.high", nulls, "none"
                        ),
                    },
                    "rank": int(self.rank[i]),
                    "rank_low": int(self.rank_low[i]),
                    "rank_high": int(self.rank_high[i]),
                    "group": int(self.group[i]),
                    "n_battles": int(self.n_battles[i]),
                    "df": self._df(i),
                }
            )
        if self.tie_parameter is None:
            nulls["tie_parameter"] = f"ties counted as {self.ties!r}, not Davidson's"
        if self.anchor is None:
            nulls["anchor"] = "scores sum to zero (the mean is the scale's centre)"
        if self.n_resamples is None:
            nulls["n_resamples"] = "no bootstrap: sandwich intervals"
        if self.n_clusters is None:
            nulls["n_clusters"] = "no clusters given: each battle is its own unit"
        if self.cluster_correction is None:
            nulls["cluster_correction"] = "not a cluster-robust sandwich"
        if self.rank_df is None:
            nulls["rank_df"] = f"no multivariate t: {self.rank_null} draws"
        if any(row["df"] is None for row in rows):
            nulls["rows[].df"] = (
                "normal interval (no CR2 correction, or a score fixed by the anchor)"
            )
        if self.online_elo is None:
            nulls["online_elo"] = "not asked for"
        if self.seed is None:
            nulls["seed"] = "unknown: rng was a numpy Generator"
        return {
            "kind": "arena",
            "schema_version": SCHEMA_VERSION,
            "method": "bradley-terry",
            "ties": self.ties,
            "scale": self.scale,
            "anchor": self.anchor,
            "interval": self.interval,
            "cluster_correction": self.cluster_correction,
            "rank_df": self.rank_df,
            "rank_null": self.rank_null,
            "confidence_level": self.confidence_level,
            "critical_value": self.critical_value,
            "n_draws": self.n_draws,
            "n_resamples": self.n_resamples,
            "n_models": len(self.models),
            "n_battles": self.total_battles,
            "n_rows": self.n_rows,
            "n_clusters": self.n_clusters,
            "rows": rows,
            "covariates": [
                {
                    "name": c.name,
                    "estimate": c.estimate,
                    "se": c.se,
                    "se_model": c.se_model,
                    "df": c.df,
                }
                for c in self.covariates
            ],
            "tie_parameter": None
            if self.tie_parameter is None
            else {"estimate": self.tie_parameter[0], "se": self.tie_parameter[1]},
            "online_elo": None
            if self.online_elo is None
            else {
                "k": self.online_elo.k,
                "initial": self.online_elo.initial,
                "ratings": {m: float(self.online_elo[m]) for m in self.models},
                "note": self.online_elo.note,
            },
            "loglik": self.loglik,
            "iterations": self.iterations,
            "seed": self.seed,
            "notes": list(self.notes),
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "nulls": nulls,
        }

    def _df(self, i: int) -> float | None:
        if self.df is None or not np.isfinite(self.df[i]):
            return None
        return float(self.df[i])

    def to_frame(self) -> Any:
        """One row per model, best first: the numbers of ``to_dict()``'s rows (the interval
        as ci_low and ci_high; ``online_elo`` when computed)."""
        from evalsig._frame import data_frame

        columns: dict[str, Any] = {
            "rank": self.rank, "model": list(self.models), "score": self.score, "se": self.se,
            "ci_low": self.ci_low, "ci_high": self.ci_high, "rank_low": self.rank_low,
            "rank_high": self.rank_high, "group": self.group, "n_battles": self.n_battles,
        }  # fmt: skip
        if self.online_elo is not None:
            columns["online_elo"] = np.array([self.online_elo[m] for m in self.models])
        return data_frame(
            {k: np.asarray(v, dtype=np.int64) if k in _INTS else v for k, v in columns.items()}
        )


_INTS = ("rank", "rank_low", "rank_high", "group", "n_battles")
