"""Tiny samples, one cluster, huge and tiny magnitudes: a correct result or a clear error."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.data.models import load_models
from evalsig.errors import DataError
from evalsig.inference import bootstrap, cluster_robust, paired_t, permutation_test
from evalsig.power import benchmark_resolution

runner = CliRunner()


# --- small samples -------------------------------------------------------------------------


def test_two_items_never_give_a_tiny_bootstrap_p_value() -> None:
    r = compare([0.1, 0.2], [0.3, 0.5], method="bootstrap")
    assert r.method == "permutation-exact"
    assert r.pvalue == 0.5  # 2 of the 4 sign patterns are as extreme: 2 * 1/4
    assert r.method_reason.startswith("requested the bootstrap, but with 2 items (fewer than 50)")
    assert (r.ci.low, r.ci.high) == (-math.inf, math.inf)
    assert "smallest attainable one-sided p-value is 0.25" in r.notes[-1]


def test_the_switch_matches_the_permutation_test_and_keeps_bootstrap_at_50() -> None:
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=12), rng.normal(size=12) + 0.5
    switched = compare(x, y, method="bootstrap", variant="percentile")
    direct = permutation_test(x, y)
    assert (switched.pvalue, switched.ci) == (direct.pvalue, direct.ci)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert compare(x, y, method="bootstrap", rng=1).method == "bootstrap-bca"
    with pytest.raises(DataError, match="method 'bootstrap' has no variant 'exact'"):
        compare(x[:10], y[:10], method="bootstrap", variant="exact")


def test_the_array_bootstrap_refuses_small_samples() -> None:
    with pytest.raises(DataError, match=r"needs at least 50 items to be calibrated; got 49"):
        bootstrap(np.zeros(49), np.ones(49))
    with pytest.raises(DataError, match="use permutation_test"):
        bootstrap(np.zeros((3, 2)), np.ones((3, 2)), statistic=lambda a, b: b[..., 0])
    assert bootstrap(np.zeros(50), np.ones(50), n_resamples=100, rng=0).estimate == 1.0


def test_skew_note_appears_only_for_strong_skew_at_small_n() -> None:
    rng = np.random.default_rng(8)
    skewed = rng.exponential(1.0, 30) - 1.0
    note = [n for n in paired_t(np.zeros(30), skewed).notes if "strongly skewed" in n]
    assert len(note) == 1
    assert "method='permutation'" in note[0]
    assert not [n for n in paired_t(np.zeros(30), rng.normal(size=30)).notes if "skew" in n]
    big = rng.exponential(1.0, 200) - 1.0
    assert not [n for n in paired_t(np.zeros(200), big).notes if "skew" in n]
    via_compare = compare(np.zeros(30), skewed)
    assert any("strongly skewed" in n for n in via_compare.notes)


# --- clusters ------------------------------------------------------------------------------


def test_one_cluster_is_an_error_on_every_path() -> None:
    x, y = [0.1, 0.5, 0.3, 0.2], [0.3, 0.2, 0.6, 0.1]
    for variant in ("cr2", "cr1", "bootstrap", "wild"):
        with pytest.raises(DataError, match="all 4 items are in one cluster"):
            compare(x, y, method="cluster", variant=variant, cluster=["a"] * 4, rng=0)
    with pytest.raises(DataError, match="all 4 items are in one cluster"):
        compare(x, y, cluster=["a"] * 4)
    with pytest.raises(DataError, match="a single cluster"):
        cluster_robust(x, y, ["a"] * 4)


def test_one_cluster_is_an_error_in_benchmark_resolution(tmp_path: Path) -> None:
    rows = [
        {"model": m, "item": f"q{i}", "score": (i + k) % 2, "subject": "all"}
        for k, m in enumerate(["a", "b", "c"])
        for i in range(20)
    ]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    scores = load_models(path, cluster_column="subject")
    with pytest.raises(DataError, match="are all in one cluster"):
        benchmark_resolution(scores)


def test_one_cluster_through_the_cli(tmp_path: Path) -> None:
    for name, shift in (("a.csv", 0), ("b.csv", 1)):
        lines = ["id,score,cat"] + [f"q{i},{(i + shift) % 2},x" for i in range(30)]
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--cluster", "cat"]
    result = runner.invoke(app, args)
    assert result.exit_code == 4
    assert result.stderr.startswith("evalsig: error: all 30 items are in one cluster")
    assert result.stderr.count("\n") == 1


# --- magnitudes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("baseline", "largest"),
    [([1e308, -1e308, 3.0], "1e+308"), ([1e200, 2.0, 3.0], "1e+200"), ([1e51, 0, 1], "1e+51")],
)
def test_huge_scores_are_an_error_naming_the_cause(baseline: list[float], largest: str) -> None:
    for method in ("paired-t", "bootstrap", "permutation", "wilcoxon"):
        with pytest.raises(DataError, match=rf"as large as {re.escape(largest)}.*overflow"):
            compare(baseline, [0.0, 1.0, 2.0], method=method)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="overflow"):
        paired_t(baseline, [0.0, 1.0, 2.0])


def test_huge_scores_through_the_cli_json(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,score\nq1,1e308\nq2,-1e308\nq3,1\n", encoding="utf-8")
    b.write_text("id,score\nq1,0\nq2,1\nq3,1\n", encoding="utf-8")
    result = runner.invoke(app, ["compare", str(a), str(b), "--format", "json"])
    assert result.exit_code == 4
    assert "as large as 1e+308" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


unit = st.floats(-1.0, 1.0).filter(lambda v: v == 0 or abs(v) >= 1e-3)
pairs = st.integers(3, 12).flatmap(
    lambda n: st.tuples(arrays(np.float64, n, elements=unit), arrays(np.float64, n, elements=unit))
)
METHODS = [("paired-t", None), ("wilcoxon", None), ("permutation", "exact"), ("cluster", "cr2")]


@pytest.mark.parametrize(("method", "variant"), METHODS)
@given(data=pairs, exponent=st.sampled_from([-900, -300, -60, 0, 60, 150]))
def test_results_scale_exactly_with_the_scores(
    method: str, variant: str | None, data: tuple[np.ndarray, np.ndarray], exponent: int
) -> None:
    """Multiplying every score by 2**k (exact in floating point) scales the answer by 2**k
    and keeps the p-value (to rounding): no square, cube or tolerance underflows or
    overflows for scores from 1e-270 to 1e45."""
    x, y = data
    k = 2.0**exponent
    kw = {"method": method, "variant": variant, "cluster": [i % 2 for i in range(len(x))]}
    if method != "cluster":
        del kw["cluster"]
    a = compare(x, y, **kw)  # type: ignore[arg-type]
    b = compare(x * k, y * k, **kw)  # type: ignore[arg-type]
    assert b.pvalue == pytest.approx(a.pvalue, rel=1e-12, nan_ok=True)
    for ours, scaled in ((a.estimate, b.estimate), (a.ci.low, b.ci.low), (a.ci.high, b.ci.high)):
        assert scaled == pytest.approx(ours * k, rel=1e-9, abs=0) or ours * k == scaled


@given(
    x=arrays(np.float64, 6, elements=st.floats(allow_nan=True, allow_infinity=True)),
    y=arrays(np.float64, 6, elements=st.floats(allow_nan=True, allow_infinity=True)),
    method=st.sampled_from(["paired-t", "wilcoxon", "permutation", "bootstrap", "auto"]),
)
def test_any_floats_give_a_finite_answer_or_a_data_error(
    x: np.ndarray, y: np.ndarray, method: str
) -> None:
    try:
        r = compare(x, y, method=method, rng=0)  # type: ignore[arg-type]
    except DataError:
        return
    assert math.isfinite(r.estimate)
    assert math.isfinite(r.se) or r.method.startswith("wilcoxon")
    assert not math.isnan(r.ci.low)
    assert not math.isnan(r.ci.high)
    assert 0.0 <= r.pvalue <= 1.0 or (math.isnan(r.pvalue) and r.statistic != 0)
    json.dumps(r.to_dict(), allow_nan=False)
