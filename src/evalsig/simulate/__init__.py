"""Simulated benchmarks with known truth, for demos, power checks and method audits.

* :func:`simulate_benchmark`: a baseline and one candidate (the original simulator);
* :class:`MixtureDesign` and :func:`simulate_models`: a baseline, its clone and a
  fine-tune, optionally with clustered items of a chosen intra-cluster correlation;
* :func:`fit_design`: a generator fitted to your own runs (empirical Bayes);
* :func:`simulate_batch`: many benchmarks at once, compactly (for the method audit);
* :func:`simulation_report`: what a simulated benchmark looks like, and its power;
* the method audit's engine (``audit_runner``, ``audit_methods``, ``audit_article``),
  whose public names :mod:`evalsig.audit` gives beside the claim audit.
"""

from evalsig.simulate.batch import PairBatch, SimulationBatch, simulate_batch
from evalsig.simulate.benchmark import SimulatedBenchmark, simulate_benchmark, simulate_runs
from evalsig.simulate.clusters import cluster_codes, copula_icc, copula_rho, max_icc
from evalsig.simulate.design import MixtureDesign
from evalsig.simulate.fitted import FittedDesign, fit_design
from evalsig.simulate.models import Design, SimulatedModels, promote, simulate_models
from evalsig.simulate.summary import (
    ModelSummary,
    PairSummary,
    SimulationReport,
    pairwise_consistency,
    simulation_report,
)

__all__ = [
    "Design",
    "FittedDesign",
    "MixtureDesign",
    "ModelSummary",
    "PairBatch",
    "PairSummary",
    "SimulatedBenchmark",
    "SimulatedModels",
    "SimulationBatch",
    "SimulationReport",
    "cluster_codes",
    "copula_icc",
    "copula_rho",
    "fit_design",
    "max_icc",
    "pairwise_consistency",
    "promote",
    "simulate_batch",
    "simulate_benchmark",
    "simulate_models",
    "simulate_runs",
    "simulation_report",
]
