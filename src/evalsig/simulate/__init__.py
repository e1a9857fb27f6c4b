"""Simulated benchmarks with known truth, for demos, power checks and method audits."""

from evalsig.simulate.benchmark import SimulatedBenchmark, simulate_benchmark, simulate_runs

__all__ = ["SimulatedBenchmark", "simulate_benchmark", "simulate_runs"]
