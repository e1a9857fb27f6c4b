"""Per-item index draws (continuous data): the pipelined engine equals a plain loop, bit for bit.

The engine draws chunks of item indices on a helper thread while the previous chunk is
gathered and summed; the draws must stay the ones a one-resample-at-a-time loop makes with
the same generator, and the intervals must stay the ones recorded before the pipeline.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from evalsig.inference import bootstrap, resampling
from evalsig.inference.resampling import bootstrap_totals


def _plain_loop(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """One resample at a time: n indices, gather, sum (the reference)."""
    n = x.shape[0]
    rows = [x[rng.integers(0, n, size=n, dtype=np.int32)].sum(axis=0) for _ in range(n_resamples)]
    return np.array(rows)


@pytest.mark.parametrize(
    ("shape", "n_resamples", "gather_bytes"),
    [
        ((1001,), 257, 50_000),  # odd n, many chunks, a short last chunk
        ((1001,), 257, 2**30),  # one chunk: no helper thread
        ((300, 3), 101, 40_000),  # rows of sufficient statistics, resampled jointly
        ((5,), 1, 1),  # one resample of a tiny sample
        ((5,), 0, 1),  # none at all: an empty array, nothing drawn
    ],
)
def test_totals_equal_a_plain_loop_over_the_same_generator(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...], n_resamples: int, gather_bytes: int
) -> None:
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 10**9)  # per-item index draws
    monkeypatch.setattr(resampling, "GATHER_BYTES", gather_bytes)
    x = np.random.default_rng(13).normal(size=shape)
    ours_rng, loop_rng = np.random.default_rng(14), np.random.default_rng(14)
    ours = bootstrap_totals(x, n_resamples, ours_rng)
    loop = _plain_loop(x, n_resamples, loop_rng)
    np.testing.assert_array_equal(ours, loop)
    # the generator is left where the loop leaves it: later draws do not change either
    assert ours_rng.integers(0, 2**62) == loop_rng.integers(0, 2**62)


def _recorded_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2024)
    x = rng.random(2001)
    y = np.clip(x + rng.normal(0.01, 0.2, 2001), 0, 1)
    a = np.column_stack([rng.random(1501), rng.random(1501) + 0.5])
    b = a + rng.normal(0, 0.1, a.shape)
    return x, y, a, b


# Recorded with the engine before the pipelined draws (commit b253d4a: int32 indices in
# 32 MB chunks, drawn and summed in one thread); every figure must stay exactly the same.
RECORDED = {
    "percentile": (0.0005065804654693747, 0.016197981794107676, 0.03332222592469177),
    "basic": (0.0003455382068428721, 0.016036939535481173, 0.042652449183605466),
    "bca": (0.00047906760855615497, 0.01606279263275381, 0.03487195700595884),
}
RECORDED_SE = 0.003945788179567494
RECORDED_RATIO = (-0.0065231268944291885, 0.0042935471207254895, 0.6723111572088865)
RECORDED_RATIO_SE = 0.002827280895506766


@pytest.mark.parametrize("kind", ["percentile", "basic", "bca"])
def test_continuous_intervals_are_the_recorded_ones(kind: str) -> None:
    x, y, _, _ = _recorded_data()
    r = bootstrap(x, y, method=kind, n_resamples=3000, rng=11)  # type: ignore[arg-type]
    if kind == "basic":
        # 2 * estimate - the percentile bounds (recorded exactly): the estimate's last bits
        # follow numpy's summation, which differs between its versions.
        pct_low, pct_high, _ = RECORDED["percentile"]
        assert (r.ci.low, r.ci.high) == (2 * r.estimate - pct_high, 2 * r.estimate - pct_low)
        assert r.ci.low == pytest.approx(RECORDED[kind][0], rel=1e-12)
        assert r.ci.high == pytest.approx(RECORDED[kind][1], rel=1e-12)
        assert r.pvalue == RECORDED[kind][2]
    else:
        assert (r.ci.low, r.ci.high, r.pvalue) == RECORDED[kind]
    assert r.se == RECORDED_SE


def test_statistic_of_totals_interval_is_the_recorded_one() -> None:
    _, _, a, b = _recorded_data()

    def ratio_difference(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
        return cand[..., 0] / cand[..., 1] - base[..., 0] / base[..., 1]

    r = bootstrap(a, b, statistic=ratio_difference, n_resamples=2000, rng=12)
    assert (r.ci.low, r.ci.high, r.pvalue) == RECORDED_RATIO
    assert r.se == RECORDED_RATIO_SE


class _FailingGenerator(np.random.Generator):
    """A generator whose third batch of draws fails (as if memory ran out)."""

    batches = 0

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        self.batches += 1
        if self.batches == 3:
            raise MemoryError("no memory for the third chunk of indices")
        return super().integers(*args, **kwargs)


def test_a_failed_draw_on_the_helper_thread_reaches_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(resampling, "COMPRESSION_GAIN", 10**9)
    monkeypatch.setattr(resampling, "GATHER_BYTES", 16 * 200 * 10)  # 10 resamples a chunk
    x = np.random.default_rng(15).normal(size=200)
    before = threading.active_count()
    with pytest.raises(MemoryError, match="third chunk"):
        bootstrap_totals(x, 100, _FailingGenerator(np.random.PCG64(16)))
    assert threading.active_count() == before  # the helper thread is gone
