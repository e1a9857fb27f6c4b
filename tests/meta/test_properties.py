"""Invariances of the random-effects model (hypothesis): permutation, scale and location."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalsig.meta import METHODS, random_effects
from evalsig.meta.estimators import tau2_batch

reports = st.integers(min_value=2, max_value=12).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(-10, 10, allow_nan=False), min_size=k, max_size=k),
        st.lists(st.floats(0.05, 4.0, allow_nan=False), min_size=k, max_size=k),
    )
)
methods = st.sampled_from(METHODS)
tests = st.sampled_from(("z", "hksj"))


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return bool(abs(a - b) <= 1e-7 * scale * (1 + abs(a) + abs(b)))


@given(reports, methods, tests, st.randoms(use_true_random=False))
def test_permutation_invariance(data, method, test, random) -> None:  # type: ignore[no-untyped-def]
    y, v = map(np.array, data)
    order = list(range(y.size))
    random.shuffle(order)
    a = random_effects(y, v, method=method, test=test)
    b = random_effects(y[order], v[order], method=method, test=test)
    scale = 1 + float(v.mean())
    assert _close(a.mu, b.mu, scale)
    assert _close(a.tau2, b.tau2, scale)
    assert _close(a.se, b.se, scale)
    assert _close(a.q, b.q, 1 + a.q)
    assert np.allclose(a.weights[order], b.weights, rtol=1e-6, atol=1e-9)


@given(reports, methods, st.floats(0.01, 100.0), st.floats(-50.0, 50.0))
def test_affine_equivariance(data, method, c, shift) -> None:  # type: ignore[no-untyped-def]
    # y -> c y + shift, v -> c^2 v: mu -> c mu + shift, tau^2 -> c^2 tau^2; Q, I^2 unchanged
    y, v = map(np.array, data)
    a = random_effects(y, v, method=method)
    b = random_effects(c * y + shift, c * c * v, method=method)
    scale = 1 + float(v.mean())
    assert b.mu == pytest.approx(c * a.mu + shift, rel=1e-7, abs=1e-7 * c * scale)
    assert b.tau2 == pytest.approx(c * c * a.tau2, rel=1e-6, abs=1e-8 * c * c * scale)
    assert b.se == pytest.approx(c * a.se, rel=1e-6)
    assert b.q == pytest.approx(a.q, rel=1e-7, abs=1e-9)
    assert b.i2 == pytest.approx(a.i2, rel=1e-6, abs=1e-6)


@given(reports, methods)
def test_interval_ordering(data, method) -> None:  # type: ignore[no-untyped-def]
    y, v = map(np.array, data)
    res = random_effects(y, v, method=method)
    assert res.ci.low <= res.mu <= res.ci.high
    # the prediction interval contains the confidence interval (tau^2 >= 0)
    assert res.prediction_interval.low <= res.ci.low + 1e-12
    assert res.prediction_interval.high >= res.ci.high - 1e-12
    assert res.tau2 >= 0
    if method != "fe":
        assert res.tau2_ci.low <= res.tau2_ci.high
    assert 0.0 <= res.i2 <= 100.0
    assert np.isclose(res.weights.sum(), 100.0)
    assert min(y) - 1e-9 <= res.mu <= max(y) + 1e-9  # a weighted mean


rows_sharing_variances = st.integers(min_value=2, max_value=8).flatmap(
    lambda k: st.tuples(
        st.lists(
            st.lists(st.floats(-10, 10, allow_nan=False), min_size=k, max_size=k),
            min_size=2,
            max_size=6,
        ),
        st.lists(st.floats(0.05, 4.0, allow_nan=False), min_size=k, max_size=k),
    )
)


@given(rows_sharing_variances, st.sampled_from(("reml", "ml", "eb", "pm")))
def test_vectorised_engine_matches_one_row_at_a_time(data, method) -> None:  # type: ignore[no-untyped-def]
    # the bootstrap's vectorised iterations give each row's own estimate
    rows, v = np.array(data[0]), np.array(data[1])
    batch = tau2_batch(rows, v, method, tol=1e-10, max_iter=1000)
    for i, row in enumerate(rows):
        single = tau2_batch(row[None, :], v, method, tol=1e-10, max_iter=1000)
        assert batch.tau2[i] == pytest.approx(single.tau2[0], rel=1e-6, abs=1e-9 * v.mean())
