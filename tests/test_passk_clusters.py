"""pass@k with clustered tasks: the CR2 (Bell-McCaffrey) interval and paired test against the
cluster-robust core and a plain-loop CR2, inputs and errors, and seeded coverage."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from scipy import stats

from evalsig.data import load
from evalsig.errors import DataError
from evalsig.inference import cluster_robust
from evalsig.inference import passk as numerics
from evalsig.passk import SampleCounts, compare_pass_at_k, pass_at_k

SCHEMAS = Path(__file__).parents[1] / "src" / "evalsig" / "report" / "schemas"


def _validate(document: dict[str, Any]) -> None:
    schema = json.loads((SCHEMAS / f"{document['kind']}.schema.json").read_text("utf-8"))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in
              Draft202012Validator(schema).iter_errors(document)]  # fmt: skip
    assert not errors, errors
    json.dumps(document, allow_nan=False)


def _clustered(
    rng: np.random.Generator, groups: int = 30, size: int = 8, n: int = 5, phi: float = 20.0
) -> np.ndarray:
    """Correct samples per task: a cluster's rate q_g ~ Beta(2, 2) (mean 1/2), its tasks'
    rates p ~ Beta(phi q_g, phi (1 - q_g)) around it, then c ~ Binomial(n, p). pass@1 of
    the population of tasks is exactly 1/2; tasks of a cluster are strongly correlated."""
    q = np.repeat(rng.beta(2.0, 2.0, groups), size)
    return rng.binomial(n, rng.beta(phi * q, phi * (1.0 - q)))


def _cr2(values: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Plain-loop CR2 standard error of a mean and its Bell-McCaffrey degrees of freedom
    (Imbens & Kolesar 2016, the intercept-only regression): V = sum_g E_g^2 / (1 - n_g/n)
    / n^2; df = (tr S)^2 / tr(S^2) with S = C' M C, c_g = 1_g / (n sqrt(1 - n_g/n))."""
    n = len(values)
    mean = sum(values) / n
    groups = sorted(set(labels.tolist()))
    variance = 0.0
    columns = []
    for g in groups:
        members = [i for i in range(n) if labels[i] == g]
        share = len(members) / n
        residual = sum(values[i] - mean for i in members)
        variance += residual**2 / (1.0 - share) / n**2
        columns.append(
            [(1.0 if labels[i] == g else 0.0) / (n * math.sqrt(1 - share)) for i in range(n)]
        )
    c = np.array(columns).T
    m = np.eye(n) - np.ones((n, n)) / n
    s = c.T @ m @ c
    return math.sqrt(variance), float(np.trace(s) ** 2 / np.trace(s @ s))


# --- the numbers ---------------------------------------------------------------------------


def test_interval_is_the_cluster_robust_core_and_a_plain_loop_cr2() -> None:
    rng = np.random.default_rng(3)
    c = _clustered(rng, groups=12, size=5, n=6)
    labels = np.repeat([f"repo{g}" for g in range(12)], 5)
    labels[:3] = "repo-x"  # unequal sizes: df below G - 1
    result = pass_at_k(SampleCounts(n=np.full(60, 6), c=c), [1, 3], cluster=labels)
    for k in (1, 3):
        p = numerics.pass_at_k(np.full(60, 6), c, k)
        oracle = cluster_robust(np.zeros(60), p, labels)
        row = result[k]
        assert (row.method, row.n_clusters) == ("cluster-cr2", 13)
        assert row.estimate == pytest.approx(oracle.estimate, rel=1e-14)
        assert row.se == pytest.approx(oracle.se, rel=1e-12)
        assert row.df == pytest.approx(oracle.df, rel=1e-12)
        se, df = _cr2(p, labels)
        assert (row.se, row.df) == pytest.approx((se, df), rel=1e-10)
        assert row.df < 12
        half = stats.t.ppf(0.975, df) * se
        expected = (max(p.mean() - half, 0.0), min(p.mean() + half, 1.0))
        assert (row.ci.low, row.ci.high) == pytest.approx(expected, rel=1e-10)
        wider = row.confidence_interval(0.99)
        assert wider.high - wider.low > row.ci.high - row.ci.low
        assert "13 clusters" in row.method_reason
        assert any("only 13 clusters" in note for note in row.notes)
    _validate(result.to_dict())


def test_paired_test_is_the_cluster_robust_core_on_per_task_differences() -> None:
    rng = np.random.default_rng(4)
    base, cand = _clustered(rng, groups=20, size=4), _clustered(rng, groups=20, size=4)
    labels = np.repeat(np.arange(20), 4)
    nb = np.full(80, 5)
    for alternative in ("two-sided", "greater", "less"):
        result = compare_pass_at_k(
            SampleCounts(n=nb, c=base), SampleCounts(n=nb, c=cand), [1, 2],
            cluster=labels, alternative=alternative,
        )  # fmt: skip
        for k in (1, 2):
            pb, pc = numerics.pass_at_k(nb, base, k), numerics.pass_at_k(nb, cand, k)
            oracle = cluster_robust(
                baseline=pb, candidate=pc, cluster=labels, alternative=alternative
            )
            row = result[k]
            assert (row.method, row.n_clusters) == ("cluster-cr2", 20)
            assert row.estimate == pytest.approx(oracle.estimate, rel=1e-13)
            assert (row.se, row.df) == pytest.approx((oracle.se, oracle.df), rel=1e-12)
            assert row.statistic == pytest.approx(oracle.statistic, rel=1e-12)
            assert row.pvalue == pytest.approx(oracle.pvalue, rel=1e-12)
            assert (row.ci.low, row.ci.high) == pytest.approx(tuple(oracle.ci), rel=1e-12)
            assert row.significant() == (row.pvalue <= 0.05)
            assert (row.se, row.df) == pytest.approx(_cr2(pc - pb, labels), rel=1e-10)
        _validate(result.to_dict())


def test_every_task_its_own_cluster_is_the_t_interval_and_paired_t() -> None:
    rng = np.random.default_rng(5)
    c, c2 = _clustered(rng, groups=40, size=1), _clustered(rng, groups=40, size=1)
    data, other = SampleCounts(n=np.full(40, 5), c=c), SampleCounts(n=np.full(40, 5), c=c2)
    alone = np.arange(40)
    plain, robust = pass_at_k(data, 2)[2], pass_at_k(data, 2, cluster=alone)[2]
    assert (robust.se, robust.df) == pytest.approx((plain.se, plain.df), rel=1e-12)
    assert (robust.ci.low, robust.ci.high) == pytest.approx(tuple(plain.ci), rel=1e-12)
    assert (robust.se_within, robust.se_limit) == pytest.approx(
        (plain.se_within, plain.se_limit), rel=1e-10
    )
    paired = compare_pass_at_k(data, other, 1)[1]
    clustered = compare_pass_at_k(data, other, 1, cluster=alone)[1]
    assert clustered.pvalue == pytest.approx(paired.pvalue, rel=1e-10)
    assert (clustered.ci.low, clustered.ci.high) == pytest.approx(tuple(paired.ci), rel=1e-10)


def test_se_limit_is_what_the_robust_se_keeps_without_within_task_noise() -> None:
    rng = np.random.default_rng(6)
    c = _clustered(rng, groups=30, size=6, n=8)
    labels = np.repeat(np.arange(30), 6)
    row = pass_at_k(SampleCounts(n=np.full(180, 8), c=c), 2, cluster=labels)[2]
    variance = numerics.within_task_variance(np.full(180, 8), c, 2)
    assert row.se_within == pytest.approx(math.sqrt(variance.sum()) / 180, rel=1e-12)
    assert row.se_limit == pytest.approx(math.sqrt(row.se**2 - row.se_within**2), rel=1e-12)
    assert row.se_limit > pass_at_k(SampleCounts(n=np.full(180, 8), c=c), 2)[2].se_limit


# --- calibration ---------------------------------------------------------------------------


def test_on_clustered_tasks_the_plain_interval_under_covers_and_cr2_covers() -> None:
    """1,000 benchmarks of 30 clusters x 8 tasks, 5 samples each, pass@1 = 1/2 exactly. The
    99% binomial band of 1,000 draws at 95% is 931..967 (scipy.stats.binom.interval)."""
    rng = np.random.default_rng(20260)
    labels = np.repeat(np.arange(30), 8)
    n = np.full(240, 5)
    plain = robust = 0
    for _ in range(1000):
        data = SampleCounts(n=n, c=_clustered(rng))
        plain += pass_at_k(data, 1)[1].ci.contains(0.5)
        robust += pass_at_k(data, 1, cluster=labels)[1].ci.contains(0.5)
    low, high = stats.binom.interval(0.99, 1000, 0.95)
    assert (low, high) == (931, 967)
    assert (plain, robust) == (633, 941)  # seeded counts
    assert plain < low  # about 63%: the tasks' correlation makes s / sqrt(T) too small
    assert low <= robust <= high


def test_on_clustered_tasks_the_plain_paired_test_over_rejects_and_cr2_holds() -> None:
    """1,000 pairs of models with the same pass@1 (each cluster's rate drawn afresh for
    each model): false positives at alpha = 0.05; the 99% band is 33..69."""
    rng = np.random.default_rng(20261)
    labels = np.repeat(np.arange(30), 8)
    n = np.full(240, 5)
    plain = robust = 0
    for _ in range(1000):
        base = SampleCounts(n=n, c=_clustered(rng))
        cand = SampleCounts(n=n, c=_clustered(rng))
        plain += compare_pass_at_k(base, cand, 1)[1].pvalue <= 0.05
        robust += compare_pass_at_k(base, cand, 1, cluster=labels)[1].pvalue <= 0.05
    low, high = stats.binom.interval(0.99, 1000, 0.05)
    assert (plain, robust) == (376, 54)  # seeded counts
    assert plain > high  # about 38%: differences of one cluster move together
    assert low <= robust <= high


# --- inputs and errors ---------------------------------------------------------------------


def _long_csv(path: Path, c: np.ndarray, n: int, groups: np.ndarray) -> Path:
    rows = [f"t{t},{s},{int(s < c[t])},repo{groups[t]}" for t in range(len(c)) for s in range(n)]
    path.write_text("item,epoch,correct,repo\n" + "\n".join(rows) + "\n", "utf-8")
    return path


def test_labels_as_a_column_a_mapping_or_a_sequence_agree(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    c, groups = _clustered(rng, groups=10, size=4), np.repeat(np.arange(10), 4)
    path = _long_csv(tmp_path / "scores.csv", c, 5, groups)
    by_table = pass_at_k(load(path, cluster_column="repo"), 1)[1]  # the table brings them
    by_name = pass_at_k(path, 1, cluster="repo")[1]
    by_mapping = pass_at_k(path, 1, cluster={f"t{t}": f"r{groups[t]}" for t in range(40)})[1]
    by_sequence = pass_at_k(SampleCounts(n=np.full(40, 5), c=c), 1, cluster=groups)[1]
    p = numerics.pass_at_k(np.full(40, 5), c, 1)
    oracle = cluster_robust(np.zeros(40), p, groups)
    for row in (by_table, by_name, by_mapping, by_sequence):
        assert (row.method, row.n_clusters) == ("cluster-cr2", 10)
        assert (row.se, row.df) == pytest.approx((oracle.se, oracle.df), rel=1e-12)
    with pytest.raises(DataError, match=r"cluster labels were given twice"):
        pass_at_k(load(path, cluster_column="repo"), 1, cluster=groups)


def test_bad_cluster_labels_are_named() -> None:
    data = SampleCounts(n=[4] * 6, c=[1, 2, 3, 0, 4, 2], tasks=list("abcdef"))
    with pytest.raises(DataError, match=r"`cluster` has 5 labels but there are 6 tasks"):
        pass_at_k(data, 1, cluster=[1, 1, 2, 2, 3])
    with pytest.raises(DataError, match=r"`cluster` is missing for 1 task\(s\) \(positions 2\)"):
        pass_at_k(data, 1, cluster=[1, 1, None, 2, 3, 3])
    with pytest.raises(DataError, match=r"`cluster` has no label for 1 task\(s\) \('f'\)"):
        pass_at_k(data, 1, cluster={t: "x" if t < "c" else "y" for t in "abcde"})
    with pytest.raises(DataError, match=r"all 6 tasks are in one cluster \('x'\)"):
        pass_at_k(data, 1, cluster=["x"] * 6)
    with pytest.raises(DataError, match=r"`cluster`='repo' names a column, but `scores` has no"):
        pass_at_k([[1, 0], [0, 1]], 1, cluster="repo")
    with pytest.raises(DataError, match=r"task id -> label; got int"):
        pass_at_k(data, 1, cluster=3)
    with pytest.raises(DataError, match=r"`method`='bootstrap' resamples tasks as if independent"):
        pass_at_k(data, 1, cluster=[1, 1, 2, 2, 3, 3], method="bootstrap")
    with pytest.raises(DataError, match=r"`method`='permutation' treats tasks as independent"):
        compare_pass_at_k(data, data, 1, cluster=[1, 1, 2, 2, 3, 3], method="permutation")
    short = SampleCounts(n=[4, 4, 2, 2], c=[1, 2, 1, 0])
    with pytest.raises(DataError, match=r"are all in one cluster: a cluster-robust interval"):
        pass_at_k(short, 3, cluster=["a", "a", "b", "b"], too_few_samples="drop")


def test_dropping_tasks_recodes_their_clusters_and_renderings_say_so() -> None:
    data = SampleCounts(n=[6, 6, 6, 6, 2, 6, 6, 6], c=[1, 3, 5, 2, 1, 4, 6, 0])
    labels = ["a", "a", "b", "b", "c", "c", "d", "d"]
    row = pass_at_k(data, 3, cluster=labels, too_few_samples="drop")[3]
    assert (row.n_tasks, row.n_dropped, row.n_clusters) == (7, 1, 4)
    kept = [0, 1, 2, 3, 5, 6, 7]
    oracle = cluster_robust(np.zeros(7), row.task_estimates, [labels[i] for i in kept])
    assert row.se == pytest.approx(oracle.se, rel=1e-12)
    result = pass_at_k(data, 3, cluster=labels, too_few_samples="drop")
    assert "7 in 4 clusters (1 left out)" in str(result)
    assert "7 in 4 clusters" in result._repr_markdown_()
    assert result.to_frame()["n_clusters"].tolist() == [4]
    plain = pass_at_k(data, 1).to_dict()
    assert plain["rows"][0]["n_clusters"] is None
    assert "not clustered" in plain["nulls"]["rows[0].n_clusters"]
    _validate(plain)


def test_equal_cluster_means_give_a_zero_width_result_that_says_why() -> None:
    base = SampleCounts(n=[4] * 6, c=[1, 3, 1, 3, 1, 3])
    shifted = SampleCounts(n=[4] * 6, c=[2, 4, 2, 4, 2, 4])
    labels = [0, 0, 1, 1, 2, 2]
    row = pass_at_k(base, 1, cluster=labels)[1]
    assert (row.se, row.ci.low, row.ci.high) == (0.0, 0.5, 0.5)
    assert any("every cluster's mean pass@1 is 0.5" in note for note in row.notes)
    same = compare_pass_at_k(base, base, 1, cluster=labels)[1]
    assert (same.pvalue, same.estimate) == (1.0, 0.0)
    assert "every per-task difference is 0: no evidence of a difference (p = 1)." in same.notes
    result = compare_pass_at_k(base, shifted, 1, cluster=labels)
    moved = result[1]
    assert math.isnan(moved.pvalue)
    assert any("same mean difference +0.25" in note for note in moved.notes)
    assert result.to_dict()["nulls"]["rows[0].pvalue"] == "undefined (see the notes)"
