"""Many simulated benchmarks at once, in a compact form that keeps every draw.

Items a model always gets right or always gets wrong answer identically in every run, so
only their numbers matter; :func:`simulate_batch` draws runs only for the other items
("random items", ``0 < p < 1``) and keeps, per benchmark, how many deterministic items
there are. Nothing is approximated: :meth:`SimulationBatch.expand` rebuilds the full
``runs x items`` matrices of any benchmark in the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalsig.errors import DataError
from evalsig.simulate.models import Design

__all__ = ["PairBatch", "SimulationBatch", "simulate_batch"]

Candidate = Literal["clone", "finetune"]

_DRAW_BYTES = 2 * 2**20
"""Uniform draws for the runs are made in blocks of about this size (cache-sized)."""


@dataclass(frozen=True, slots=True, eq=False)
class PairBatch:
    """A baseline and one candidate on ``S`` simulated benchmarks, compactly.

    ``fixed[s]`` counts the items deterministic for both models, as (both right, both
    wrong, only the candidate right, only the baseline right); the random items have their
    latent probabilities and 0/1 runs, padded to a common width ``M`` (``valid`` marks the
    real ones; padding has ``p = 0`` and no successes).
    """

    n_items: int
    n_runs: int
    fixed: np.ndarray
    """``(S, 4)`` int64 counts of deterministic items (11, 00, 01, 10)."""
    p_baseline: np.ndarray
    """``(S, M)`` latent p of the baseline on the random items."""
    p_candidate: np.ndarray
    """``(S, M)`` latent p of the candidate on the random items."""
    valid: np.ndarray
    """``(S, M)`` bool."""
    baseline: np.ndarray
    """``(S, R, M)`` bool runs of the baseline on the random items."""
    candidate: np.ndarray
    """``(S, R, M)`` bool runs of the candidate."""
    k_baseline: np.ndarray
    """``(S, M)`` int64 runs the baseline answered right, per random item (0 on padding)."""
    k_candidate: np.ndarray
    """``(S, M)`` int64 runs the candidate answered right."""

    @property
    def size(self) -> int:
        return int(self.fixed.shape[0])

    @property
    def ones_baseline(self) -> np.ndarray:
        """``(S,)`` items the baseline always gets right."""
        return np.asarray(self.fixed[:, 0] + self.fixed[:, 3])

    @property
    def ones_candidate(self) -> np.ndarray:
        return np.asarray(self.fixed[:, 0] + self.fixed[:, 2])

    def successes(self, model: Literal["baseline", "candidate"]) -> np.ndarray:
        """``(S, M)`` runs answered right per random item (0 on padding)."""
        return self.k_baseline if model == "baseline" else self.k_candidate


@dataclass(frozen=True, slots=True, eq=False)
class SimulationBatch:
    """``S`` simulated benchmarks of a baseline, its clone and its fine-tune."""

    n_items: int
    n_runs: int
    latent: np.ndarray
    """``(S, n)`` latent p of the baseline (and clone)."""
    promoted: np.ndarray
    """``(S, P)`` items the fine-tune turned from always-wrong to always-right."""
    ones: np.ndarray
    """``(S,)`` items with p = 1 for the baseline."""
    zeros: np.ndarray
    """``(S,)`` items with p = 0 for the baseline (promoted ones included)."""
    positions: np.ndarray
    """``(S, M)`` item index of each random item (0 on padding)."""
    valid: np.ndarray
    """``(S, M)`` bool: which of the M slots hold a random item."""
    p_random: np.ndarray
    """``(S, M)`` latent p of the random items (0 on padding)."""
    runs: np.ndarray
    """``(S, 3, R, M)`` bool runs of the baseline, clone and fine-tune on random items."""
    successes: np.ndarray
    """``(S, 3, M)`` int64 runs right per random item of each model (0 on padding)."""
    clusters: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.latent.shape[0])

    @property
    def n_promote(self) -> int:
        return int(self.promoted.shape[1])

    def pair(self, candidate: Candidate) -> PairBatch:
        """The baseline against the clone (true difference 0) or the fine-tune."""
        p = self.n_promote
        if candidate == "finetune":
            fixed = np.stack(
                [self.ones, self.zeros - p, np.full_like(self.ones, p), np.zeros_like(self.ones)],
                axis=1,
            )
            model = 2
        elif candidate == "clone":
            zero = np.zeros_like(self.ones)
            fixed = np.stack([self.ones, self.zeros, zero, zero], axis=1)
            model = 1
        else:
            raise DataError(f"`candidate` must be 'clone' or 'finetune'; got {candidate!r}.")
        return PairBatch(
            n_items=self.n_items,
            n_runs=self.n_runs,
            fixed=fixed.astype(np.int64),
            p_baseline=self.p_random,
            p_candidate=self.p_random,
            valid=self.valid,
            baseline=self.runs[:, 0],
            candidate=self.runs[:, model],
            k_baseline=self.successes[:, 0],
            k_candidate=self.successes[:, model],
        )

    def expand(
        self, index: int, candidate: Candidate
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Full ``(R, n)`` int8 runs of baseline and candidate and their ``(n,)`` latent p,
        for benchmark ``index`` of the batch."""
        which = {"clone": 1, "finetune": 2}.get(candidate)
        if which is None:
            raise DataError(f"`candidate` must be 'clone' or 'finetune'; got {candidate!r}.")
        p_base = self.latent[index]
        keep = self.valid[index]
        where = self.positions[index, keep]
        out = []
        for model in (0, which):
            scores = np.zeros((self.n_runs, self.n_items), dtype=np.int8)
            scores[:, p_base == 1.0] = 1
            scores[:, where] = self.runs[index, model][:, keep]
            out.append(scores)
        p_cand = p_base.copy()
        if candidate == "finetune":
            p_cand[self.promoted[index]] = 1.0
            out[1][:, self.promoted[index]] = 1
        return out[0], out[1], p_base, p_cand


def simulate_batch(design: Design, size: int, rng: np.random.Generator) -> SimulationBatch:
    """Simulate ``size`` benchmarks of ``design`` (baseline, clone and fine-tune runs).

    Draws, in order: the latent p of every benchmark (``design.latent_batch``), a uniform
    key per item to choose the promoted always-wrong items (the ``n_promote`` smallest
    keys among them: a uniformly random subset), and uniforms for the runs of the three
    models on the random items, block by block.

    Raises
    ------
    DataError
        If some benchmark has fewer always-wrong items than the fine-tune promotes.
    """
    n, runs_per_model = design.n_items, design.n_runs
    latent = design.latent_batch(size, rng)
    hard = latent == 0.0
    n_promote = design.n_promote
    if n_promote:
        keys = np.where(hard, rng.random(latent.shape), 2.0)
        promoted = np.argpartition(keys, n_promote - 1, axis=1)[:, :n_promote]
        short = np.flatnonzero(np.take_along_axis(keys, promoted, axis=1).max(axis=1) >= 2.0)
        if short.size:
            have = int(hard[short[0]].sum())
            raise DataError(
                f"a simulated benchmark has only {have} always-wrong items but the fine-tune "
                f"promotes {n_promote}; lower the uplift or raise the always-wrong share."
            )
        promoted = np.sort(promoted, axis=1)
    else:
        promoted = np.zeros((size, 0), dtype=np.intp)
    random = (latent > 0.0) & (latent < 1.0)
    counts = random.sum(axis=1)
    width = int(counts.max()) if size else 0
    order = np.argsort(~random, axis=1, kind="stable")[:, :width]
    valid = np.arange(width)[None, :] < counts[:, None]
    p_random = np.where(valid, np.take_along_axis(latent, order, axis=1), 0.0)
    positions = np.where(valid, order, 0)
    runs = np.empty((size, 3, runs_per_model, width), dtype=bool)
    per_benchmark = max(1, 3 * runs_per_model * width * 8)
    step = min(size, max(1, _DRAW_BYTES // per_benchmark))
    u = np.empty((step, 3, runs_per_model, width))
    for start in range(0, size, step):
        stop = min(start + step, size)
        rng.random(out=u[: stop - start])
        np.less(u[: stop - start], p_random[start:stop, None, None, :], out=runs[start:stop])
    return SimulationBatch(
        n_items=n,
        n_runs=runs_per_model,
        latent=latent,
        promoted=promoted,
        ones=(latent == 1.0).sum(axis=1).astype(np.int64),
        zeros=hard.sum(axis=1).astype(np.int64),
        positions=positions,
        valid=valid,
        p_random=p_random,
        runs=runs,
        successes=_count(runs),
        clusters=design.clusters,
    )


def _count(runs: np.ndarray) -> np.ndarray:
    """``(S, 3, M)`` int64 sums over the runs axis (counted in bytes when R < 256)."""
    if runs.shape[2] < 256:
        return np.asarray(runs.view(np.uint8).sum(axis=2, dtype=np.uint8), dtype=np.int64)
    return np.asarray(runs.sum(axis=2, dtype=np.int64))
