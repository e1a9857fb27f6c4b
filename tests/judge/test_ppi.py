"""PPI / PPI++ against the reference implementation ppi_py, calibration, clusters, errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.judge import ppi_lambda, ppi_mean, ppi_paired_difference


def _data(seed: int, n: int, big_n: int, kind: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    if kind == "binary":
        h = rng.random(n + big_n) < 0.6
        j = np.where(h, rng.random(n + big_n) > 0.1, rng.random(n + big_n) < 0.3)
        h, j = h.astype(float), j.astype(float)
    elif kind == "negative":  # a judge that disagrees: lambda clipped to 0
        h = rng.normal(size=n + big_n)
        j = -h + rng.normal(scale=0.3, size=n + big_n)
    else:  # continuous, judge on another scale: lambda above 1 before clipping
        h = rng.normal(2.0, 1.0, size=n + big_n)
        j = 0.3 * h + rng.normal(scale=0.05, size=n + big_n)
    return j[n:], j[:n], h[:n]


CASES = [
    (1, 50, 400, "binary"),
    (2, 200, 2000, "binary"),
    (3, 30, 35, "continuous"),
    (4, 100, 1000, "continuous"),
    (5, 80, 300, "negative"),
]


@pytest.mark.parametrize(("seed", "n", "big_n", "kind"), CASES)
@pytest.mark.parametrize("tuned", [True, False])
def test_matches_ppi_py(seed: int, n: int, big_n: int, kind: str, tuned: bool) -> None:
    ppi_py = pytest.importorskip("ppi_py", reason="the oracle needs ppi-python")
    j_u, j_l, h = _data(seed, n, big_n, kind)
    result = ppi_mean(j_u, j_l, h, tuned=tuned, confidence_level=0.9)
    lam = None if tuned else 1
    # ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.1, lam=None or 1)
    low, high = ppi_py.ppi_mean_ci(h, j_l, j_u, alpha=0.1, lam=lam)
    point = ppi_py.ppi_mean_pointestimate(h, j_l, j_u, lam=lam)
    assert result.estimate == pytest.approx(float(point[0]), abs=1e-8)
    assert result.ci.low == pytest.approx(float(low[0]), abs=1e-8)
    assert result.ci.high == pytest.approx(float(high[0]), abs=1e-8)


@pytest.mark.parametrize(("seed", "n", "big_n", "kind"), CASES)
def test_lambda_matches_ppi_py(seed: int, n: int, big_n: int, kind: str) -> None:
    pytest.importorskip("ppi_py", reason="the oracle needs ppi-python")
    from ppi_py.ppi import _calc_lam_glm

    j_u, j_l, h = _data(seed, n, big_n, kind)
    # ppi_py's own tuning: gradients of the squared loss at any point, identity Hessian
    expected = _calc_lam_glm(h - 0.5, j_l - 0.5, j_u - 0.5, np.eye(1), clip=True)
    assert ppi_lambda(j_u, j_l, h) == pytest.approx(expected, abs=1e-10)
    assert ppi_mean(j_u, j_l, h).lambda_ == pytest.approx(expected, abs=1e-10)
    if kind == "negative":
        assert ppi_lambda(j_u, j_l, h) == 0.0
    if kind == "continuous":
        assert ppi_lambda(j_u, j_l, h) == 1.0


def test_formula_by_hand() -> None:
    # n = 4, N = 4; h - j = (0, -1, 0, 0) at lambda = 1
    result = ppi_mean([1, 1, 0, 1], [1, 1, 0, 0], [1, 0, 0, 0], tuned=False)
    assert result.estimate == pytest.approx(0.75 - 0.25)
    se = math.sqrt(np.var([0, -1, 0, 0]) / 4 + np.var([1, 1, 0, 1]) / 4)
    assert result.se == pytest.approx(se)
    assert result.naive.estimate == pytest.approx(5 / 8)
    assert result.classical is not None
    assert result.classical.estimate == pytest.approx(0.25)


def _coverage(method: str, tuned: bool, truth: float, samples: tuple[np.ndarray, ...]) -> int:
    hits = 0
    for j_u, j_l, h in zip(*samples, strict=True):
        result = ppi_mean(j_u, j_l, h, tuned=tuned)
        ci = result.ci if method == "ppi" else result.naive.ci
        hits += ci.contains(truth)
    return hits


@pytest.mark.slow
def test_calibration_biased_judge() -> None:
    """A judge that calls 20% of failures passes and 5% of passes failures (bias +5 pp):
    its own interval almost never covers the human mean; PPI and PPI++ cover 95%."""
    reps, big_n, n, p = 2000, 2000, 200, 0.6
    rng = np.random.default_rng(2)
    h = (rng.random((reps, n + big_n)) < p).astype(float)
    u = rng.random((reps, n + big_n))
    j = np.where(h == 1, u > 0.05, u < 0.20).astype(float)
    samples = (j[:, n:], j[:, :n], h[:, :n])
    band = stats.binom.interval(0.99, reps, 0.95)
    naive = _coverage("naive", True, p, samples)
    tuned = _coverage("ppi", True, p, samples)
    plain = _coverage("ppi", False, p, samples)
    assert (naive, tuned, plain) == (0, 1909, 1910)  # this seed's counts
    assert naive < 0.05 * reps  # far below the 95% it claims
    assert band[0] <= tuned <= band[1]
    assert band[0] <= plain <= band[1]


def test_cluster_duplicates_equal_the_items() -> None:
    """Three identical copies of every item, clustered by item, carry the information of
    one copy: the cluster-robust SE is the plain SE times sqrt(G / (G - 1))."""
    j_u, j_l, h = _data(7, 40, 120, "binary")
    plain = ppi_mean(j_u, j_l, h, tuned=False)
    copies = ppi_mean(
        np.repeat(j_u, 3),
        np.repeat(j_l, 3),
        np.repeat(h, 3),
        tuned=False,
        cluster=(np.repeat(np.arange(120), 3), np.repeat(np.arange(120, 160), 3)),
    )
    g = 160
    assert copies.estimate == pytest.approx(plain.estimate)
    assert copies.se == pytest.approx(plain.se * math.sqrt(g / (g - 1)), rel=1e-12)
    assert copies.n_clusters == g
    unclustered_copies = ppi_mean(np.repeat(j_u, 3), np.repeat(j_l, 3), np.repeat(h, 3))
    assert unclustered_copies.se < 0.6 * copies.se  # ignoring the clusters understates it


def test_judge_samples_are_averaged() -> None:
    rng = np.random.default_rng(3)
    j_u, j_l = rng.random((50, 4)), rng.random((20, 4))
    h = (rng.random(20) < 0.5).astype(float)
    result = ppi_mean(j_u, j_l, h)
    assert result.estimate == ppi_mean(j_u.mean(axis=1), j_l.mean(axis=1), h).estimate
    assert any("4 judge samples per item" in note for note in result.notes)
    ragged = ppi_mean([[1, 0], [1], [0, 0, 1], [1]], [[1], [0, 1], [1, 1]], [1, 0, 1])
    expected = ppi_mean([0.5, 1, 1 / 3, 1], [1, 0.5, 1], [1, 0, 1])
    assert ragged.estimate == pytest.approx(expected.estimate)
    assert any("1 to 3 judge samples" in note for note in ragged.notes)


def test_paired_difference_is_ppi_on_differences() -> None:
    rng = np.random.default_rng(11)
    b = [rng.random(size) for size in (300, 60)]
    c = [x + rng.normal(0.05, 0.2, len(x)) for x in b]
    hb, hc = (b[1] > 0.4).astype(float), (c[1] > 0.35).astype(float)
    result = ppi_paired_difference((b[0], c[0]), (b[1], c[1]), (hb, hc))
    direct = ppi_mean(c[0] - b[0], c[1] - b[1], hc - hb)
    assert result.estimate == pytest.approx(direct.estimate)
    assert result.se == pytest.approx(direct.se)
    z = result.estimate / result.se
    assert result.statistic == pytest.approx(z)
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)))
    swapped = ppi_paired_difference(
        (c[0], b[0]), (c[1], b[1]), (hc, hb), baseline="candidate", candidate="baseline"
    )
    assert swapped.estimate == pytest.approx(-result.estimate)
    assert swapped.pvalue == pytest.approx(result.pvalue)
    greater = ppi_paired_difference((b[0], c[0]), (b[1], c[1]), (hb, hc), alternative="greater")
    less = ppi_paired_difference((b[0], c[0]), (b[1], c[1]), (hb, hc), alternative="less")
    assert greater.pvalue + less.pvalue == pytest.approx(1.0)
    assert greater.ci.high == math.inf
    assert greater.ci.low > result.ci.low
    assert "candidate minus baseline" in greater.estimand


def test_paired_difference_oracle() -> None:
    ppi_py = pytest.importorskip("ppi_py", reason="the oracle needs ppi-python")
    rng = np.random.default_rng(5)
    jb, jc = rng.random(500), rng.random(500)
    hb, hc = (jb[:80] + rng.normal(0, 0.3, 80) > 0.5), (jc[:80] + rng.normal(0, 0.3, 80) > 0.4)
    result = ppi_paired_difference((jb[80:], jc[80:]), (jb[:80], jc[:80]), (hb, hc))
    dh, dj = hc.astype(float) - hb, jc - jb
    low, high = ppi_py.ppi_mean_ci(dh, dj[:80], dj[80:], alpha=0.05)
    assert (result.ci.low, result.ci.high) == pytest.approx((low[0], high[0]), abs=1e-8)


def test_to_dict_is_strict_json() -> None:
    import json

    j_u, j_l, h = _data(1, 50, 400, "binary")
    document = ppi_paired_difference((j_u, j_u), (j_l, j_l), (h, h), alternative="greater")
    text = json.dumps(document.to_dict(), allow_nan=False)
    back = json.loads(text)
    assert back["kind"] == "judge"
    assert back["ci"]["high"] is None
    assert "ci.high" in back["nulls"]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([0, 1, 1], [0, 1], [1]), {}, "`judge_labeled` has 2 items but `human_labeled` has 1"),
        (([0, 1, 1], [0], [1]), {}, "only 1 labeled item"),
        (([0], [0, 1], [1, 1]), {}, "only 1 unlabeled item"),
        (([0, 1, 1], [0, np.nan], [1, 0]), {}, "`judge_labeled` has 1 missing"),
        (([0, 1, 1], [0, 1], [1, 0]), {"tuned": "yes"}, "`tuned` must be True"),
        (
            ([0, 1, 1], [0, 1], [1, 0]),
            {"cluster": (["a", "a", "a"], ["a", "a"])},
            "all 5 items are in one cluster",
        ),
        (
            ([0, 1, 1], [0, 1], [1, 0]),
            {"cluster": (["a", "b"], ["a", "b"])},
            "`cluster[0] (unlabeled items)` has 2 cluster labels but there are 3 items",
        ),
    ],
)
def test_errors(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        ppi_mean(*args, **kwargs)


def test_an_undefined_lambda_is_null_in_json_with_its_reason() -> None:
    """A power-tuned lambda that is NaN (hostile scores: 0/0) is null in the strict JSON,
    with the reason under ``nulls``, not a NaN that no JSON reader accepts."""
    import dataclasses
    import json
    import math

    from evalsig.judge import ppi_mean

    result = dataclasses.replace(ppi_mean([1.0] * 20, [1.0] * 10, [1, 0] * 5), lambda_=math.nan)
    document = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert document["lambda"] is None
    assert "do not vary" in document["nulls"]["lambda"]
