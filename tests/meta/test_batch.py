"""The batched random-effects path (``random_effects_batch``) against ``random_effects`` cell by
cell, metafor golden values, statsmodels, and scipy's ``brentq`` for the vectorised root finder."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, special
from statsmodels.stats.meta_analysis import combine_effects

from evalsig.errors import DataError
from evalsig.inference._roots import brentq_rows
from evalsig.meta import METHODS, MetaConvergenceWarning, MetaResult, random_effects, synthesize
from evalsig.meta.batch import MetaBatch, random_effects_batch
from evalsig.meta.estimators import generalized_q, tau2_batch

REL = 1e-8
"""Batched versus one cell at a time: the same steps, summed in another order."""

# Found by hypothesis (tests/meta/test_estimators.py): Fisher scoring oscillates around the
# REML optimum; the bracket and Brent's method finish it.
OSCILLATING = [
    ([0.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.125]),
    (
        [2.0, 2.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        [1.0, 2.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 2.0, 0.0625],
    ),
]


def _cells(n: int = 300, seed: int = 20240607) -> list[tuple[np.ndarray, np.ndarray]]:
    """Cells of 1-12 reports: heterogeneous, homogeneous (tau^2 = 0 boundary), identical
    reports, variances spanning 12 orders of magnitude, all variances tiny or huge, and the
    oscillating cases."""
    rng = np.random.default_rng(seed)
    cells = []
    for c in range(n):
        k = int(rng.integers(1, 13))
        kind = c % 6
        v = rng.uniform(0.05, 4.0, k)
        if kind == 1:
            v = 10.0 ** rng.uniform(-6.0, 6.0, k)
        elif kind == 2:
            v = v * 10.0 ** rng.choice([-8.0, 8.0])
        tau2 = rng.choice([0.0, 0.5, 3.0]) * v.mean()
        y = 70.0 + rng.normal(0.0, np.sqrt(v + tau2))
        if kind == 3:
            y = np.full(k, 61.5)
        elif kind == 4:
            y = 70.0 + 0.05 * rng.normal(0.0, np.sqrt(v))
        cells.append((y, v))
    return cells + [(np.array(y), np.array(v)) for y, v in OSCILLATING]


def _flat(cells: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    y = np.concatenate([c[0] for c in cells])
    v = np.concatenate([c[1] for c in cells])
    codes = np.repeat(np.arange(len(cells)), [c[0].size for c in cells])
    return y, v, codes


def _same(got: float | None, want: float | None, scale: float) -> bool:
    """Equal to REL relative, with the floor REL * scale for values that round near 0."""
    if got is None or want is None:
        return got is want
    if not math.isfinite(want):
        return got == want or (math.isnan(got) and math.isnan(want))
    return abs(got - want) <= REL * max(abs(want), scale)


def _assert_same(got: MetaResult, want: MetaResult) -> None:
    """Every field of ``random_effects``' result: exact for the discrete ones and the data."""
    for name in ("k", "df", "q_df", "method", "test", "converged", "i2_basis", "labels"):
        assert getattr(got, name) == getattr(want, name), name
    assert got.notes == want.notes
    assert got.confidence_level == want.confidence_level
    np.testing.assert_array_equal(got.estimates, want.estimates)
    np.testing.assert_array_equal(got.variances, want.variances)
    np.testing.assert_allclose(got.weights, want.weights, rtol=REL, atol=REL * 100.0)
    # The sums run in another order, which can end Brent's search a step sooner (a score
    # that rounds to exactly 0) or move a last Fisher step across the stopping threshold.
    # Where variances of 1e-8 meet scores of 70, 7 digits cancel in y - mu, and the rounding
    # of numpy's summation (which differs between its versions) moves the stopping step by
    # several iterations: there only the results are compared (below, to REL).
    cancelled = float(np.abs(want.estimates).max() / np.sqrt(want.variances.min()))
    if cancelled < 1e4:
        assert abs(got.iterations - want.iterations) <= 1
    location, spread = math.sqrt(float(want.variances.mean())), float(want.variances.mean())
    scales = {"mu": location, "se": location, "statistic": 1.0, "pvalue": 0.0, "tau2": spread}
    scales.update({"i2": 1.0, "h2": 1.0, "q": 1.0, "q_pvalue": 0.0, "hksj_scale": spread})
    for name, scale in scales.items():
        assert _same(getattr(got, name), getattr(want, name), scale), name
    intervals = {"ci": location, "prediction_interval": location, "tau2_ci": spread}
    intervals.update({"i2_ci": 1.0, "h2_ci": 1.0})
    for name, scale in intervals.items():
        a, b = getattr(got, name), getattr(want, name)
        assert _same(a.low, b.low, scale), name
        assert _same(a.high, b.high, scale), name
        assert a.confidence_level == b.confidence_level


def _one_by_one(cells: list[tuple[np.ndarray, np.ndarray]], **options: object) -> list[MetaResult]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaConvergenceWarning)
        return [random_effects(y, v, **options) for y, v in cells]  # type: ignore[arg-type]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("test", ["z", "hksj"])
def test_batch_equals_random_effects_cell_by_cell(method: str, test: str) -> None:
    cells = _cells()
    y, v, codes = _flat(cells)
    # the cells' reports interleaved in any order (each cell's reference sees them in
    # that order too)
    order = np.random.default_rng(1).permutation(y.size)
    y, v, codes = y[order], v[order], codes[order]
    by_cell = [(y[codes == c], v[codes == c]) for c in range(len(cells))]
    want = _one_by_one(by_cell, method=method, test=test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaConvergenceWarning)
        batch = random_effects_batch(y, v, codes, method=method, test=test)
    got = batch.results()
    assert len(got) == len(batch) == len(cells)
    for g, w in zip(got, want, strict=True):
        _assert_same(g, w)
    for i in (0, 7, len(cells) - 1):  # the one-cell accessor gives the same
        _assert_same(batch.result(i), want[i])
    # the cases the oracle must exercise are present
    k = batch.k
    assert {1, 2, 12} <= set(k.tolist())
    if method not in ("fe", "sj"):
        assert ((batch.tau2 == 0.0) & (k >= 3)).sum() >= 20  # boundary estimates
    assert any(g.hksj_scale == 0.0 for g in got) == (test == "hksj")  # identical reports


@pytest.mark.parametrize("method", ["reml", "dl"])
def test_batch_i2_from_q_and_other_level(method: str) -> None:
    cells = _cells(120, seed=5)
    y, v, codes = _flat(cells)
    options = {"method": method, "i2_basis": "q", "confidence_level": 0.9}
    batch = random_effects_batch(y, v, codes, **options)  # type: ignore[arg-type]
    for g, w in zip(batch.results(), _one_by_one(cells, **options), strict=True):
        _assert_same(g, w)


def test_oscillating_cells_are_finished_by_brent_in_the_batch() -> None:
    # Several copies of each oscillating cell: the vectorised scoring hands them to the
    # vectorised Brent, which must land where the one-cell brentq lands.
    cells = [(np.array(y), np.array(v)) for y, v in OSCILLATING for _ in range(3)]
    y, v, codes = _flat(cells)
    batch = random_effects_batch(y, v, codes)
    assert batch.converged.all()
    for g, w in zip(batch.results(), _one_by_one(cells), strict=True):
        _assert_same(g, w)
        assert g.iterations == w.iterations


# --- golden values (../shared/REFERENCE.md) -----------------------------------------------


Data = tuple[np.ndarray, np.ndarray]


def _golden_batch(bcg: Data, kacker: Data, **options: object) -> MetaBatch:
    """BCG (cell 0) and Kacker (cell 1) among other cells, in one batch."""
    rng = np.random.default_rng(9)
    cells = [bcg, kacker]
    cells += [(rng.normal(0, 1, 13), rng.uniform(0.01, 0.5, 13)) for _ in range(5)]
    cells += [(rng.normal(60, 1, 9), rng.uniform(0.02, 2.0, 9)) for _ in range(5)]
    y, v, codes = _flat(cells)
    return random_effects_batch(y, v, codes, **options)  # type: ignore[arg-type]


def test_golden_bcg_reml(bcg_data: Data, kacker: Data) -> None:
    # rma(yi, vi, data=dat) (REML): tau^2 0.313243325980895 (metafor at its 1e-5 threshold;
    # the optimum is 7e-8 lower); predict(res, transf=exp): 0.4894209 (0.3440743, 0.6961661)
    res = _golden_batch(bcg_data, kacker).result(0)
    assert res.tau2 == pytest.approx(0.313243325980895, abs=1e-7)
    assert math.exp(res.mu) == pytest.approx(0.4894209, abs=5e-8)
    assert [math.exp(b) for b in res.ci] == pytest.approx([0.3440743, 0.6961661], abs=5e-8)
    # with metafor's absolute threshold 1e-5 the same iterations give metafor's number
    tol = 1e-5 / float(bcg_data[1].mean())
    metafor_like = _golden_batch(bcg_data, kacker, tol=tol).result(0)
    assert metafor_like.tau2 == pytest.approx(0.313243325980895, abs=1e-12)


def test_golden_bcg_dersimonian_laird_and_q_profile(bcg_data: Data, kacker: Data) -> None:
    # rma(yi, vi, data=dat, method="DL"); confint(): tau^2 (0.1197, 1.1115)
    res = _golden_batch(bcg_data, kacker, method="dl").result(0)
    assert res.mu == pytest.approx(-0.7141172221, abs=1e-10)
    assert res.se == pytest.approx(0.1787420895, abs=1e-10)
    assert res.tau2 == pytest.approx(0.3087602629, abs=1e-10)
    assert res.i2 == pytest.approx(92.11734685, abs=1e-8)
    assert tuple(res.tau2_ci) == pytest.approx((0.1197, 1.1115), abs=1e-4)
    y, v = bcg_data  # the bounds solve the Q-profile equations to full precision
    assert generalized_q(y, v, res.tau2_ci.low) == pytest.approx(special.chdtri(12, 0.025))
    assert generalized_q(y, v, res.tau2_ci.high) == pytest.approx(special.chdtri(12, 0.975))


def test_golden_kacker_paule_mandel(bcg_data: Data, kacker: Data) -> None:
    # rma(y, v, method="PM", control=list(tol=1e-9)) (statsmodels results_meta.py)
    res = _golden_batch(bcg_data, kacker, method="pm").result(1)
    assert res.mu == pytest.approx(62.4076199113286, abs=1e-8)
    assert res.se == pytest.approx(0.338030602684471, abs=1e-8)
    assert tuple(res.ci) == pytest.approx((61.7450921043947, 63.0701477182625), abs=1e-8)
    assert res.tau2 == pytest.approx(0.705395309224248, abs=1e-8)
    assert res.q == pytest.approx(24.801897741835, abs=1e-8)
    assert res.q_pvalue == pytest.approx(0.00167935146372742, abs=1e-8)
    assert res.i2 == pytest.approx(83.7218626490482, abs=1e-8)
    assert res.h2 == pytest.approx(6.14320900751909, abs=1e-8)


def test_statsmodels_paule_mandel_per_cell() -> None:
    # statsmodels' combine_effects(method_re="iterated") is Paule-Mandel (its closest to REML)
    rng = np.random.default_rng(20240601)
    cells = []
    for k in (3, 5, 8, 20, 5, 5):
        v = rng.uniform(0.05, 2.0, k)
        cells.append((rng.normal(0.0, np.sqrt(v + 0.8)), v))
    y, v, codes = _flat(cells)
    batch = random_effects_batch(y, v, codes, method="pm", test="hksj")
    for i, (yc, vc) in enumerate(cells):
        ref = combine_effects(yc, vc, method_re="iterated", atol=1e-13, maxiter=1000)
        assert batch.tau2[i] == pytest.approx(max(ref.tau2, 0.0), rel=1e-9, abs=1e-12)
        assert batch.mu[i] == pytest.approx(ref.mean_effect_re, rel=1e-9)
        _, _, _, ci_hk = ref.conf_int(alpha=0.05, use_t=True)
        assert (batch.ci_low[i], batch.ci_high[i]) == pytest.approx(tuple(ci_hk), rel=1e-8)


# --- the engines ------------------------------------------------------------------------


def test_brentq_rows_takes_scipys_steps() -> None:
    # Q-profile equations of many cells: the same roots and iteration counts, bit for bit,
    # when each function is evaluated the same way.
    rng = np.random.default_rng(4)
    problems = []
    for _ in range(400):
        k = int(rng.integers(2, 13))
        v = np.exp(rng.uniform(-4.0, 3.0, k))
        y = rng.normal(0.0, np.sqrt(v + rng.uniform(0.0, 3.0)))
        target = float(special.chdtri(k - 1, 0.975))
        if generalized_q(y, v, 0.0) > target:
            hi = float(((y - y.mean()) ** 2).sum()) / target * (1 + 1e-9)
            problems.append((y, v, target, hi, 1e-10 * float(v.mean())))

    def f(rows: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.array(
            [
                generalized_q(*problems[r][:2], t) - problems[r][2]
                for r, t in zip(rows, x, strict=True)
            ]
        )

    roots = brentq_rows(
        f,
        np.zeros(len(problems)),
        np.array([p[3] for p in problems]),
        xtol=np.array([p[4] for p in problems]),
        maxiter=500,
    )
    assert len(problems) > 300
    assert roots.converged.all()
    for i, (y, v, target, hi, xtol) in enumerate(problems):
        root, info = optimize.brentq(
            lambda t: generalized_q(y, v, t) - target,  # noqa: B023
            0.0,
            hi,
            xtol=xtol,
            maxiter=500,
            full_output=True,
        )
        assert roots.x[i] == root
        assert roots.iterations[i] == info.iterations


def test_brentq_rows_ends_and_bad_brackets() -> None:
    def f(rows: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x + np.array([-1.0, -1.0, 5.0])[rows]

    roots = brentq_rows(
        f, np.array([1.0, 0.0, 0.0]), np.array([2.0, 1.0, 1.0]), xtol=1e-12, maxiter=50
    )
    assert roots.x[:2].tolist() == [1.0, 1.0]  # a root at either end: no iteration
    assert roots.iterations[:2].tolist() == [0, 0]
    assert np.isnan(roots.x[2])  # no sign change (scipy raises)
    assert not roots.converged[2]


@given(
    st.integers(min_value=2, max_value=8).flatmap(
        lambda k: st.lists(
            st.tuples(
                st.lists(st.floats(-10, 10, allow_nan=False), min_size=k, max_size=k),
                st.lists(st.floats(0.05, 4.0, allow_nan=False), min_size=k, max_size=k),
            ),
            min_size=2,
            max_size=6,
        )
    ),
    st.sampled_from(("reml", "ml", "eb", "pm")),
)
def test_rows_with_own_variances_match_one_row_at_a_time(data, method) -> None:  # type: ignore[no-untyped-def]
    rows = np.array([d[0] for d in data])
    v = np.array([d[1] for d in data])
    batch = tau2_batch(rows, v, method, tol=1e-10, max_iter=1000)
    for i in range(rows.shape[0]):
        single = tau2_batch(rows[i][None, :], v[i], method, tol=1e-10, max_iter=1000)
        assert batch.converged[i] == single.converged[0]
        assert batch.reset_to_zero[i] == single.reset_to_zero[0]
        assert batch.tau2[i] == pytest.approx(single.tau2[0], rel=1e-6, abs=1e-9 * v[i].mean())


# --- non-convergence, inputs, synthesize --------------------------------------------------


def test_unconverged_cells_are_counted_and_undefined() -> None:
    cells = _cells(40, seed=3)
    y, v, codes = _flat(cells)
    with pytest.warns(MetaConvergenceWarning) as caught:
        batch = random_effects_batch(y, v, codes, max_iter=1)
    failed = np.flatnonzero(~batch.converged)
    assert 0 < failed.size < 40
    (warning,) = caught
    assert str(warning.message).startswith(
        f"In {failed.size} of 42 cells the REML estimator of tau^2 did not converge in 1 "
    )
    for g, w in zip(batch.results(), _one_by_one(cells, max_iter=1), strict=True):
        _assert_same(g, w)
    assert np.isnan(batch.mu[failed]).all()
    assert np.isnan(batch.tau2_ci_low[failed]).all()
    assert all("did not converge in 1 iterations" in batch.notes[i][0] for i in failed)


def test_labels_and_defaults() -> None:
    batch = random_effects_batch(
        [1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0], [1, 0, 1, 0], labels=["a", "b", "c", "d"]
    )
    assert batch.result(0).labels == ("b", "d")
    assert batch.result(1).labels == ("a", "c")
    assert random_effects_batch([1.0, 2.0], [1.0, 1.0], [0, 0]).result(0).labels == ("1", "2")


@pytest.mark.parametrize(
    ("cells", "match"),
    [
        ([0, 1], "one cell number per report"),
        ([0.0, 1.0, 1.0], "integer cell numbers"),
        ([True, False, False], "integer cell numbers"),
        ([0, -1, 0], "negative"),
        ([0, 2, 2], "skips the cell numbers 1"),
    ],
)
def test_bad_cells(cells: list[object], match: str) -> None:
    with pytest.raises(DataError, match=match):
        random_effects_batch([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], cells)


def test_bad_inputs() -> None:
    with pytest.raises(DataError, match="`labels` has 1 names for 2 reports"):
        random_effects_batch([1.0, 2.0], [1.0, 1.0], [0, 0], labels=["a"])
    with pytest.raises(DataError, match="`variances` must be finite and positive"):
        random_effects_batch([1.0, 2.0], [1.0, 0.0], [0, 0])
    with pytest.raises(DataError, match="`method`"):
        random_effects_batch([1.0, 2.0], [1.0, 1.0], [0, 0], method="bogus")  # type: ignore[arg-type]


def test_synthesize_counts_cells_that_did_not_converge() -> None:
    # Cells of two reports (no Egger, trim and fill or gap fits; REML converges in one step
    # there, ML does not): the failures counted by synthesize are exactly the cells whose
    # random_effects fit does not converge.
    rng = np.random.default_rng(12)
    scores, ses = rng.normal(70, 3, (30, 2)), rng.uniform(0.5, 2, (30, 2))
    rows = [
        {"model": f"m{m}", "benchmark": "b", "source": f"p{s}", "score": x, "se": se}
        for m in range(30)
        for s, (x, se) in enumerate(zip(scores[m], ses[m], strict=True))
    ]
    with pytest.warns(MetaConvergenceWarning) as caught:
        res = synthesize(rows, method="ml", n_resamples=0, max_iter=1)
    expected = 0
    for m in range(30):
        with warnings.catch_warnings(record=True) as one:
            warnings.simplefilter("always", MetaConvergenceWarning)
            ref = random_effects(
                scores[m], ses[m] ** 2, method="ml", labels=["p0", "p1"], max_iter=1
            )
        expected += len(one)
        _assert_same(res.cell(f"m{m}", "b").meta, ref)
    assert 0 < expected < 30
    assert f"{expected} fits did not converge" in " ".join(res.notes)
    assert [str(w.message) for w in caught] == [n for n in res.notes if "did not converge" in n]
