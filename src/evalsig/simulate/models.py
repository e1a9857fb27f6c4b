"""One simulated benchmark with three models: a baseline, its clone and a fine-tune.

The clone has the baseline's latent difficulty profile exactly (a failed fine-tune, true
difference 0); the fine-tune promotes ``n_promote`` always-wrong items to always-right
(true uplift ``n_promote / n``). Each model is run ``n_runs`` times independently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import seeded
from evalsig.simulate.benchmark import SimulatedBenchmark, simulate_runs
from evalsig.simulate.design import MixtureDesign
from evalsig.simulate.fitted import FittedDesign

__all__ = ["Design", "SimulatedModels", "promote", "simulate_models"]

Design = MixtureDesign | FittedDesign
"""A design the simulators and the method audit accept."""

Candidate = Literal["clone", "finetune"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SimulatedModels:
    """Runs of a baseline, its clone and its fine-tune on the same simulated items."""

    design: Design
    p_baseline: np.ndarray
    """``(n,)`` latent success probability of the baseline (and of the clone)."""
    p_finetune: np.ndarray
    """``(n,)`` latent success probability of the fine-tune."""
    baseline: np.ndarray
    """``(R, n)`` 0/1 scores, runs x items."""
    clone: np.ndarray
    finetune: np.ndarray
    clusters: np.ndarray | None = None
    """``(n,)`` cluster code of each item, or None."""
    seed: int | None = None
    """``simulate_models(design, rng=seed)`` regenerates exactly these draws (None: ``rng``
    was a Generator)."""

    def pair(self, candidate: Candidate = "finetune") -> SimulatedBenchmark:
        """The baseline and one candidate as a :class:`SimulatedBenchmark`."""
        if candidate == "finetune":
            return SimulatedBenchmark(
                self.p_baseline, self.p_finetune, self.baseline, self.finetune, self.clusters
            )
        if candidate == "clone":
            return SimulatedBenchmark(
                self.p_baseline, self.p_baseline, self.baseline, self.clone, self.clusters
            )
        raise DataError(f"`candidate` must be 'clone' or 'finetune'; got {candidate!r}.")


def promote(p: np.ndarray, n_promote: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``p`` with ``n_promote`` random always-wrong items made always-right.

    The draw is the article's ``derive_finetune``: ``rng.choice`` of the always-wrong
    positions without replacement (called even when ``n_promote`` is 0).
    """
    hard = np.flatnonzero(p == 0.0)
    if n_promote > len(hard):
        raise DataError(
            f"the fine-tune needs {n_promote} always-wrong items to promote, but this "
            f"benchmark has {len(hard)}; lower the uplift or raise the always-wrong share."
        )
    out = np.array(p, dtype=np.float64)
    out[rng.choice(hard, size=n_promote, replace=False)] = 1.0
    return out


def simulate_models(
    design: Design | None = None,
    /,
    *,
    rng: np.random.Generator | int | None = None,
) -> SimulatedModels:
    """Simulate a baseline, its clone and its fine-tune on one benchmark.

    Parameters
    ----------
    design : MixtureDesign or FittedDesign, optional
        Default: ``MixtureDesign()``, the article's design.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    SimulatedModels

    Notes
    -----
    Random draws in order: the baseline's latent ``p``, the promoted items, then the runs
    of the baseline, the clone and the fine-tune. For the default design and
    ``rng=20260504`` these are the draws of the article's display benchmark.

    Examples
    --------
    >>> sim = simulate_models(rng=20260504)
    >>> round(100 * float(sim.p_baseline.mean()), 2), round(100 * float(sim.baseline.mean()), 2)
    (57.06, 56.88)
    """
    design = MixtureDesign() if design is None else design
    generator, seed = seeded(rng)
    p = design.latent(generator)
    p_finetune = promote(p, design.n_promote, generator)
    runs = design.n_runs
    return SimulatedModels(
        design=design,
        p_baseline=p,
        p_finetune=p_finetune,
        baseline=simulate_runs(p, runs, generator),
        clone=simulate_runs(p, runs, generator),
        finetune=simulate_runs(p_finetune, runs, generator),
        clusters=design.clusters,
        seed=seed,
    )
