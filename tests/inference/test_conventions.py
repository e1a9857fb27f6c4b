"""scipy's conventions: intervals index and results unpack as scipy's do."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference import bootstrap, paired_t

RNG = np.random.default_rng(7)
X = RNG.random(60)
Y = np.clip(X + RNG.normal(0.05, 0.1, 60), 0, 1)


def test_interval_indexes_like_scipys() -> None:
    r = paired_t(X, Y)
    theirs = stats.ttest_rel(Y, X).confidence_interval()
    assert (r.ci[0], r.ci[1]) == (r.ci.low, r.ci.high)
    assert r.ci[-1] == r.ci.high
    assert len(r.ci) == 2
    low, high = r.ci
    assert (low, high) == pytest.approx((theirs[0], theirs[1]), rel=1e-12)
    with pytest.raises(IndexError):
        r.ci[2]


def test_result_unpacks_to_statistic_and_pvalue() -> None:
    t, p = paired_t(X, Y)
    theirs_t, theirs_p = stats.ttest_rel(Y, X)
    assert (t, p) == pytest.approx((theirs_t, theirs_p), rel=1e-12)


def test_str_html_markdown_and_json_show_the_same_numbers() -> None:
    r = bootstrap(X, Y, n_resamples=1000, rng=3)
    text = str(r)
    assert "candidate - baseline" in text
    assert f"{r.estimate:+.6g}" in text
    assert f"{r.estimate:+.6g}" in r._repr_html_()
    assert f"{r.estimate:+.6g}" in r._repr_markdown_()
    assert "seed 3" in text
    document = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert document["kind"] == "inference"
    assert document["estimate"] == r.estimate
    assert document["seed"] == 3
    assert document["ci"]["low"] == r.ci.low


def test_one_sided_bound_is_null_in_json_with_the_reason() -> None:
    document = paired_t(baseline=X, candidate=Y, alternative="greater").to_dict()
    assert document["ci"]["high"] is None
    assert "one-sided" in document["nulls"]["ci.high"]
    assert document["nulls"]["seed"] == "no random draws"


def test_markdown_and_html_escape_notes() -> None:
    r = replace(paired_t(X, Y), notes=("a|b <script>x</script>\nnext",))
    markdown = r._repr_markdown_()
    assert "<script>" not in markdown
    assert "a\\|b &lt;script&gt;" in markdown
    assert "<script>" not in r._repr_html_()
    assert "&lt;script&gt;" in r._repr_html_()


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_direction_agrees_with_scipy_when_sides_are_named(alternative: str) -> None:
    ours = paired_t(baseline=X, candidate=Y, alternative=alternative)
    theirs = stats.ttest_rel(Y, X, alternative=alternative)  # scipy: first minus second
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-12)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.estimate > 0  # Y was built above X
    assert (ours.pvalue < 0.5) == (alternative == "greater")


SIDED = {
    "paired_t": lambda f, **kw: f(X, Y, **kw),
    "mcnemar": lambda f, **kw: f(X > 0.5, Y > 0.5, **kw),
    "wilcoxon": lambda f, **kw: f(X, Y, **kw),
    "bootstrap": lambda f, **kw: f(X, Y, n_resamples=200, rng=0, **kw),
    "permutation_test": lambda f, **kw: f(X, Y, n_resamples=200, rng=0, **kw),
    "cluster_robust": lambda f, **kw: f(X, Y, np.arange(60) % 12, **kw),
    "cluster_bootstrap": lambda f, **kw: f(X, Y, np.arange(60) % 12, n_resamples=200, **kw),
}


@pytest.mark.parametrize("name", sorted(SIDED))
def test_one_sided_tests_refuse_unnamed_sides(name: str) -> None:
    import evalsig.inference as inference

    test = getattr(inference, name)
    call = SIDED[name]
    with pytest.raises(DataError, match=rf"{name}\(baseline=x, candidate=y, alternative='less'\)"):
        call(test, alternative="less")
    with pytest.raises(DataError, match="opposite order"):
        call(test, alternative="greater")
    two_sided = call(test)  # the sides only change the sign: positional is allowed
    assert np.isfinite(two_sided.pvalue)


def test_a_comparison_unpacks_and_renders_markdown_like_the_other_results() -> None:
    from evalsig import compare

    result = compare(X, Y, method="paired-t")
    statistic, pvalue = result
    theirs = stats.ttest_rel(Y, X)
    assert (statistic, pvalue) == pytest.approx((theirs.statistic, theirs.pvalue), rel=1e-10)
    text = result._repr_markdown_()
    assert f"| Data | n = {result.n_items} items |" in text
    assert "| Difference (candidate - baseline) |" in text
