"""What a simulated benchmark looks like, and how much power its design gives.

:func:`simulation_report` draws one benchmark (baseline, clone, fine-tune), reports each
model's true and observed accuracy, run-to-run SD and answer consistency, the discordance
of each pair, the honest tests on it, and the analytical power of McNemar's test (one run)
and of the paired t-test (R runs) for the design beside their empirical power over many
simulated benchmarks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.comparison import ComparisonResult, compare
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError
from evalsig.power import design_effect, mcnemar_power, paired_t_power
from evalsig.result import Result
from evalsig.simulate.audit_runner import audit
from evalsig.simulate.design import MixtureDesign
from evalsig.simulate.fitted import design_inputs
from evalsig.simulate.models import Design, SimulatedModels, simulate_models

__all__ = [
    "ARTICLE_PRINTOUT",
    "ModelSummary",
    "PairSummary",
    "SimulationReport",
    "pairwise_consistency",
    "simulation_report",
]


ARTICLE_SEED = 20260504

ARTICLE_PRINTOUT = {
    "baseline": (0.5706, 0.5688, 0.00432, 0.868),
    "clone": (0.5706, 0.5687, 0.00663, 0.867),
    "fine-tune": (0.5806, 0.5804, 0.00411, 0.866),
}
"""What the article printed for its design at seed 20260504, per model: true accuracy,
observed accuracy, per-run SD and pairwise consistency (models A, B and C)."""


def pairwise_consistency(runs: np.ndarray, /) -> float:
    """Share of run pairs that give an item the same score, averaged over items.

    Notes
    -----
    An item right in ``k`` of ``R`` runs has ``C(k, 2) + C(R - k, 2)`` agreeing pairs out
    of ``C(R, 2)``: the article's loop over run pairs, in closed form.

    Examples
    --------
    >>> pairwise_consistency(np.array([[1, 0], [1, 1], [1, 0]]))
    0.6666666666666666
    """
    runs = np.asarray(runs)
    r = runs.shape[0]
    if runs.ndim != 2 or r < 2:
        raise DataError(f"pairwise consistency needs runs x items with 2+ runs; got {runs.shape}.")
    k = runs.sum(axis=0, dtype=np.int64)
    agree = (k * (k - 1) + (r - k) * (r - k - 1)) // 2
    return float(agree.sum() / (runs.shape[1] * (r * (r - 1) // 2)))


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSummary:
    """One simulated model: truth, observation and run-to-run behaviour."""

    name: str
    true_accuracy: float
    observed_accuracy: float
    per_run_sd: float
    """SD of the runs' accuracies (``ddof = 1``); NaN with one run."""
    expected_per_run_sd: float
    """``sqrt(sum_i p_i (1 - p_i)) / n`` for this benchmark's latent p."""
    consistency: float
    """Pairwise answer consistency across runs; NaN with one run."""
    expected_consistency: float
    """``1 - 2 mean_i p_i (1 - p_i)``."""

    def to_dict(self, nulls: dict[str, str] | None = None, prefix: str = "model") -> dict[str, Any]:
        """JSON-safe fields; NaN becomes null with its reason in ``nulls`` (when given)."""
        nulls = {} if nulls is None else nulls
        return {
            "name": self.name,
            "true_accuracy": self.true_accuracy,
            "observed_accuracy": self.observed_accuracy,
            "per_run_sd": json_safe(self.per_run_sd, f"{prefix}.per_run_sd", nulls, "one run"),
            "expected_per_run_sd": self.expected_per_run_sd,
            "consistency": json_safe(self.consistency, f"{prefix}.consistency", nulls, "one run"),
            "expected_consistency": self.expected_consistency,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PairSummary:
    """The baseline against one candidate on the simulated benchmark."""

    name: str
    true_difference: float
    observed_difference: float
    discordance: float
    """Share of items where run r of the two models disagree, averaged over runs."""
    expected_discordance: float
    """``mean_i [p_x (1 - p_y) + p_y (1 - p_x)]``."""
    mcnemar: ComparisonResult
    """McNemar's asymptotic test on the first run of each model."""
    paired_t: ComparisonResult
    """The paired t-test on per-item means over all runs."""
    icc_differences: float | None = None
    """ANOVA ICC of per-item mean differences within clusters (clustered designs)."""

    def to_dict(self, nulls: dict[str, str] | None = None, prefix: str = "pair") -> dict[str, Any]:
        """JSON-safe fields; NaN becomes null with its reason in ``nulls`` (when given)."""
        nulls = {} if nulls is None else nulls

        def test(r: ComparisonResult, name: str) -> dict[str, Any]:
            return {
                "method": r.method,
                "estimate": r.estimate,
                "low": json_safe(r.ci.low, f"{prefix}.{name}.low", nulls, "undefined"),
                "high": json_safe(r.ci.high, f"{prefix}.{name}.high", nulls, "undefined"),
                "statistic": json_safe(r.statistic, f"{prefix}.{name}.statistic", nulls, "none"),
                "pvalue": json_safe(r.pvalue, f"{prefix}.{name}.pvalue", nulls, "undefined"),
            }

        return {
            "name": self.name,
            "true_difference": self.true_difference,
            "observed_difference": self.observed_difference,
            "discordance": self.discordance,
            "expected_discordance": self.expected_discordance,
            "mcnemar": test(self.mcnemar, "mcnemar"),
            "paired_t": test(self.paired_t, "paired_t"),
            "icc_differences": self.icc_differences,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SimulationReport(Result):
    """One simulated benchmark described, and the power its design gives."""

    kind: ClassVar[str] = "simulation"

    design: Design
    seed: int
    models: tuple[ModelSummary, ...]
    pairs: tuple[PairSummary, ...]
    mcnemar_power: float | None
    """Analytical power of McNemar's test on one run (Connor 1987)."""
    paired_t_power: float | None
    """Analytical power of the paired t-test on R-run means (noncentral t)."""
    empirical_mcnemar_power: float | None
    empirical_paired_t_power: float | None
    n_simulations: int
    """Simulated benchmarks behind the empirical powers (0: not computed)."""
    alpha: float
    icc_scores: float | None = None
    """Realised ANOVA ICC of the baseline's single-run scores (mean over runs)."""
    published: dict[str, tuple[float, float, float, float]] | None = None
    """The article's printout, when the design and seed are the article's."""
    simulation: SimulatedModels | None = None
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = None
    """The runs a fitted design was fitted to (files and hashes), the seed, the version and
    the time."""

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        mc_se = {
            key: (
                None
                if value is None or not self.n_simulations
                else math.sqrt(value * (1 - value) / self.n_simulations)
            )
            for key, value in (
                ("mcnemar", self.empirical_mcnemar_power),
                ("paired_t", self.empirical_paired_t_power),
            )
        }
        return {
            "kind": "simulation",
            "schema_version": SCHEMA_VERSION,
            "design": self.design.to_dict(),
            "seed": self.seed,
            "alpha": self.alpha,
            "models": [m.to_dict(nulls, f"models[{i}]") for i, m in enumerate(self.models)],
            "pairs": [p.to_dict(nulls, f"pairs[{i}]") for i, p in enumerate(self.pairs)],
            "power": {
                "mcnemar": {
                    "p01": self.design.mean_pq + self.design.true_uplift,
                    "p10": self.design.mean_pq,
                    "discordance": 2 * self.design.mean_pq + self.design.true_uplift,
                    "analytical": self.mcnemar_power,
                    "empirical": self.empirical_mcnemar_power,
                    "empirical_se": mc_se["mcnemar"],
                },
                "paired_t": {
                    "analytical": self.paired_t_power,
                    "empirical": self.empirical_paired_t_power,
                    "empirical_se": mc_se["paired_t"],
                },
                "n_simulations": self.n_simulations,
            },
            "icc": {
                "target": self.design.to_dict().get("icc"),
                "realized_scores": self.icc_scores,
                "n_clusters": self.design.to_dict().get("n_clusters"),
            },
            "published": None
            if self.published is None
            else {
                name: dict(
                    zip(
                        ("true_accuracy", "observed_accuracy", "per_run_sd", "consistency"),
                        values,
                        strict=True,
                    )
                )
                for name, values in self.published.items()
            },
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """One row per simulated model: name, true_accuracy, observed_accuracy, per_run_sd,
        expected_per_run_sd, consistency, expected_consistency (NaN with one run)."""
        from evalsig._frame import data_frame, floats

        names: tuple[str, ...] = ("true_accuracy", "observed_accuracy", "per_run_sd")
        names += ("expected_per_run_sd", "consistency", "expected_consistency")
        return data_frame(
            {
                "name": [m.name for m in self.models],
                **{name: floats(getattr(m, name) for m in self.models) for name in names},
            }
        )

    def pairs_frame(self) -> Any:
        """One row per candidate against the baseline: name, true_difference,
        observed_difference, discordance, expected_discordance, then estimate, ci_low,
        ci_high and pvalue of McNemar's test (``mcnemar_``) and of the paired t-test
        (``paired_t_``), and icc_differences (NaN without clusters)."""
        from evalsig._frame import data_frame, floats

        pairs = self.pairs
        names = ("true_difference", "observed_difference", "discordance", "expected_discordance")
        columns: dict[str, Any] = {"name": [p.name for p in pairs]}
        columns |= {name: floats(getattr(p, name) for p in pairs) for name in names}
        for test in ("mcnemar", "paired_t"):
            results = [getattr(p, test) for p in pairs]
            columns[f"{test}_estimate"] = floats(r.estimate for r in results)
            columns[f"{test}_ci_low"] = floats(r.ci.low for r in results)
            columns[f"{test}_ci_high"] = floats(r.ci.high for r in results)
            columns[f"{test}_pvalue"] = floats(r.pvalue for r in results)
        columns["icc_differences"] = floats(p.icc_differences for p in pairs)
        return data_frame(columns)


def simulation_report(
    design: Design | None = None,
    /,
    *,
    rng: int | None = None,
    n_simulations: int = 1000,
    alpha: float = 0.05,
) -> SimulationReport:
    """Simulate one benchmark and describe it, with analytical and empirical power.

    Parameters
    ----------
    design : MixtureDesign or FittedDesign, optional
        Default ``MixtureDesign()``, the article's design.
    rng : int or None
        Seed of the benchmark (drawn as :func:`simulate_models` draws it) and of the
        power simulations; recorded in the result.
    n_simulations : int, default 1000
        Benchmarks for the empirical power (0 skips it).
    alpha : float, default 0.05
        Level of the tests.

    Returns
    -------
    SimulationReport

    Notes
    -----
    Analytical powers for the design: McNemar with ``p10 = E[p (1 - p)]`` and
    ``p01 = p10 + delta`` (Connor's normal approximation); the paired t with
    ``sd^2 = 2 E[p (1 - p)] / R + delta (1 - delta)`` (noncentral t). For the article's
    design these are 38.9% and 97.3%. Discordance of one run of each model:
    ``mean_i [p_x (1 - p_y) + p_y (1 - p_x)]``; pairwise consistency of a model's runs:
    ``1 - 2 mean_i p_i (1 - p_i)`` in expectation.

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43(1), 207-211. cstorm125 (2026). Benchmaxxing Series:
    Abuse-Boostrapping-for-Narrower-Confidence-Intervals no Jutsu (the design and its
    printed numbers).

    Examples
    --------
    >>> report = simulation_report(rng=20260504, n_simulations=0)
    >>> [round(100 * m.observed_accuracy, 2) for m in report.models]
    [56.88, 56.87, 58.04]
    >>> round(report.mcnemar_power, 3), round(report.paired_t_power, 3)
    (0.389, 0.973)
    """
    design = MixtureDesign() if design is None else design
    _check_arguments(rng, n_simulations, alpha)
    seed = int(np.random.SeedSequence(rng).entropy)  # type: ignore[arg-type]
    sim = simulate_models(design, rng=seed)
    models = tuple(
        _model(name, runs, p)
        for name, runs, p in (
            ("baseline", sim.baseline, sim.p_baseline),
            ("clone", sim.clone, sim.p_baseline),
            ("fine-tune", sim.finetune, sim.p_finetune),
        )
    )
    level = 1 - alpha
    pairs = tuple(
        _pair(name, sim, runs, p, level)
        for name, runs, p in (
            ("clone", sim.clone, sim.p_baseline),
            ("fine-tune", sim.finetune, sim.p_finetune),
        )
    )
    analytic_mcnemar, analytic_t = _analytical_powers(design, alpha)
    empirical_mcnemar = empirical_t = None
    if n_simulations:
        empirical_mcnemar, empirical_t = _empirical_powers(design, n_simulations, level, seed)
    icc = None
    notes: list[str] = []
    if sim.clusters is not None:
        icc = float(
            np.mean([design_effect(run.astype(float), sim.clusters).icc for run in sim.baseline])
        )
    if design.n_runs < 2:
        notes.append("one run per model: no run-to-run SD or consistency")
    return SimulationReport(
        design=design,
        seed=seed,
        models=models,
        pairs=pairs,
        mcnemar_power=analytic_mcnemar,
        paired_t_power=analytic_t,
        empirical_mcnemar_power=empirical_mcnemar,
        empirical_paired_t_power=empirical_t,
        n_simulations=int(n_simulations),
        alpha=float(alpha),
        icc_scores=icc,
        published=ARTICLE_PRINTOUT if seed == ARTICLE_SEED and design == MixtureDesign() else None,
        simulation=sim,
        notes=tuple(notes),
        provenance=provenance(design_inputs(design), seed=seed),
    )


def _check_arguments(rng: object, n_simulations: object, alpha: float) -> None:
    """An integer seed or None, ``n_simulations >= 0`` and ``0 < alpha < 1``."""
    if rng is not None and (isinstance(rng, bool) or not isinstance(rng, (int, np.integer))):
        raise DataError(f"`rng` must be an integer seed or None; got {rng!r}.")
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)):
        raise DataError(f"`n_simulations` must be an integer >= 0; got {n_simulations!r}.")
    if n_simulations < 0:
        raise DataError(f"`n_simulations` must be >= 0; got {n_simulations}.")
    if not 0 < alpha < 1:
        raise DataError(f"`alpha` must be in (0, 1); got {alpha!r}.")


def _analytical_powers(design: Design, alpha: float) -> tuple[float | None, float]:
    """McNemar's power (None without discordance) and the paired t's, from the design."""
    delta, noise = design.true_uplift, design.mean_pq
    analytic_mcnemar = (
        mcnemar_power(design.n_items, noise + delta, noise, alpha=alpha)
        if noise + delta > 0
        else None
    )
    sd = math.sqrt(2 * noise / design.n_runs + delta * (1 - delta))
    analytic_t = paired_t_power(design.n_items, delta, sd, alpha=alpha)
    return analytic_mcnemar, analytic_t


def _empirical_powers(
    design: Design, n_simulations: int, level: float, seed: int
) -> tuple[float, float]:
    """McNemar's and the paired t's power over simulated benchmarks (via the audit)."""
    result = audit(
        design,
        methods=["mcnemar", "paired-t"],
        n_simulations=int(n_simulations),
        confidence_level=level,
        rng=seed,
    )
    return result.method("mcnemar").power, result.method("paired-t").power


def _model(name: str, runs: np.ndarray, p: np.ndarray) -> ModelSummary:
    per_run = runs.mean(axis=1)
    several = runs.shape[0] > 1
    n = runs.shape[1]
    pq = p * (1 - p)
    return ModelSummary(
        name=name,
        true_accuracy=float(p.mean()),
        observed_accuracy=float(per_run.mean()),
        per_run_sd=float(per_run.std(ddof=1)) if several else math.nan,
        expected_per_run_sd=float(math.sqrt(pq.sum()) / n),
        consistency=pairwise_consistency(runs) if several else math.nan,
        expected_consistency=float(1 - 2 * pq.mean()),
    )


def _pair(
    name: str, sim: SimulatedModels, runs: np.ndarray, p: np.ndarray, level: float
) -> PairSummary:
    base, p_base = sim.baseline, sim.p_baseline
    discord = float(np.mean(base != runs))
    expected = float(np.mean(p_base * (1 - p) + p * (1 - p_base)))
    icc = None
    if sim.clusters is not None:
        d = runs.mean(axis=0) - base.mean(axis=0)
        icc = design_effect(d, sim.clusters).icc
    return PairSummary(
        name=name,
        true_difference=float(p.mean() - p_base.mean()),
        observed_difference=float(runs.mean() - base.mean()),
        discordance=discord,
        expected_discordance=expected,
        mcnemar=compare(
            base[0], runs[0], method="mcnemar", variant="asymptotic", confidence_level=level
        ),
        paired_t=compare(base, runs, method="paired-t", confidence_level=level),
        icc_differences=icc,
    )
