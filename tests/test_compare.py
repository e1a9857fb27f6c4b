"""compare(): method selection, the documented API, results, inputs in every form."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import evalsig
from evalsig import ComparisonResult, compare
from evalsig.errors import AlignmentError, DataError
from evalsig.simulate import simulate_benchmark


@pytest.fixture(scope="module")
def bench() -> evalsig.simulate.SimulatedBenchmark:
    return simulate_benchmark(n_items=4000, n_runs=8, uplift=0.01, rng=20260504)


class TestAutoMethod:
    def test_binary_single_run_is_mcnemar(self, bench: evalsig.simulate.SimulatedBenchmark) -> None:
        r = compare(bench.baseline[0], bench.candidate[0])
        assert r.method == "mcnemar-asymptotic"
        assert "McNemar" in r.method_reason
        assert r.n01 is not None
        assert r.n10 is not None
        assert r.estimate == pytest.approx((r.n01 - r.n10) / 4000)

    def test_small_discordance_is_the_corrected_score_test(self) -> None:
        r = compare([1, 0, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 1, 1])
        assert r.method == "mcnemar-score-cc"
        assert "continuity-corrected below 25" in r.method_reason

    def test_several_runs_on_few_items_is_the_adjusted_t(self) -> None:
        base = [[1, 0, 1, 1, 0, 1], [1, 0, 1, 1, 1, 1]]
        cand = [[1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1]]
        r = compare(base, cand)
        assert r.method == "paired-t-adjusted"
        assert "fewer than 1,000" in r.method_reason
        assert r.estimate == pytest.approx(1 / 6)
        assert r.df == 7.0  # 6 items + 2 pseudo-items - 1
        explicit = compare(base, cand, method="paired-t")
        assert explicit.method == "paired-t"
        assert explicit.pvalue < r.pvalue  # the adjustment is the more cautious

    def test_several_runs_of_other_scales_keep_the_t_test(self) -> None:
        r = compare([[0, 5, 10, 3], [1, 5, 9, 3]], [[2, 6, 10, 4], [2, 7, 9, 5]])
        assert r.method == "paired-t"

    def test_several_runs_is_paired_t_on_item_means(
        self, bench: evalsig.simulate.SimulatedBenchmark
    ) -> None:
        r = compare(bench.baseline, bench.candidate)
        assert r.method == "paired-t"
        assert "several runs per item (8 and 8 runs)" in r.method_reason
        d = bench.candidate.mean(axis=0) - bench.baseline.mean(axis=0)
        assert r.estimate == pytest.approx(d.mean())
        assert r.se == pytest.approx(d.std(ddof=1) / np.sqrt(4000))
        assert r.n_runs == (8, 8)
        assert r.n01 is None

    def test_continuous_is_paired_t(self) -> None:
        rng = np.random.default_rng(0)
        r = compare(rng.random(100), rng.random(100))
        assert (r.method, r.method_reason) == (
            "paired-t",
            "continuous scores: paired t-test on per-item differences",
        )

    def test_clusters_select_cluster_robust(self) -> None:
        rng = np.random.default_rng(1)
        x, y = rng.integers(0, 2, 600), rng.integers(0, 2, 600)
        r = compare(x, y, cluster=[f"s{i % 40}" for i in range(600)])
        assert r.method == "cluster-cr2"
        assert r.n_clusters == 40
        assert "40 clusters" in r.method_reason

    def test_few_clusters_are_flagged(self) -> None:
        rng = np.random.default_rng(2)
        x, y = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
        r = compare(x, y, cluster=[i % 6 for i in range(300)])
        assert any("6 clusters" in note for note in r.notes)


class TestDocumentedApi:
    def test_one_sided_example_runs_as_written(
        self, bench: evalsig.simulate.SimulatedBenchmark
    ) -> None:
        results: dict[str, ComparisonResult] = {
            t: compare(bench.baseline, bench.candidate, one_sided=True) for t in ["mmlu"]
        }
        assert results["mmlu"].alternative == "greater"
        assert results["mmlu"].p_value == results["mmlu"].pvalue < 0.05

    def test_one_sided_conflict(self) -> None:
        with pytest.raises(
            DataError, match="`one_sided=True` tests whether the candidate is better"
        ):
            compare([0, 1], [1, 1], one_sided=True, alternative="less")

    def test_confidence_interval_at_another_level(
        self, bench: evalsig.simulate.SimulatedBenchmark
    ) -> None:
        r = compare(bench.baseline, bench.candidate)
        wide = r.confidence_interval(0.99)
        assert wide.low < r.ci.low < r.estimate < r.ci.high < wide.high
        assert wide.confidence_level == 0.99

    def test_result_is_frozen(self) -> None:
        r = compare([0, 1, 1], [1, 1, 1])
        with pytest.raises(AttributeError):
            r.pvalue = 0.0  # type: ignore[misc]


class TestOutputs:
    def test_to_dict_is_strict_json(self) -> None:
        r = compare([0, 1, 1, 0, 1], [1, 1, 1, 1, 1], method="paired-t", alternative="greater")
        text = json.dumps(r.to_dict(), allow_nan=False)
        data = json.loads(text)
        assert data["ci"]["high"] is None
        assert data["nulls"]["ci.high"] == "one-sided interval (+inf)"
        assert data["kind"] == "comparison"
        assert data["schema_version"] == 1
        assert data["alternative"] == "greater"

    def test_undefined_pvalue_is_null_with_reason(self) -> None:
        r = compare([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])
        data = r.to_dict()
        assert data["pvalue"] is None
        assert "pvalue" in data["nulls"]
        assert any("zero variance" in n for n in data["notes"])

    def test_str_is_one_line(self, bench: evalsig.simulate.SimulatedBenchmark) -> None:
        text = str(compare(bench.baseline, bench.candidate))
        assert "\n" not in text
        assert text.startswith("candidate - baseline = +")
        assert "pp (95% CI" in text
        assert "paired-t, n = 4,000 items x 8 runs" in text

    def test_html_escapes_user_strings(self) -> None:
        base = {"<script>alert(1)</script>": 1, "b": 0}
        cand = {"<script>alert(1)</script>": 1, "b": 1}
        r = compare(base, cand, cluster={"<script>alert(1)</script>": "<b>x</b>", "b": "y"})
        html = r._repr_html_()
        assert "<script>" not in html
        assert "<b>x</b>" not in html


class TestInputs:
    def test_dicts_in_any_order(self) -> None:
        a = {"q1": 1, "q2": 0, "q3": 1, "q4": 0}
        b = {"q4": 1, "q3": 1, "q2": 1, "q1": 1}
        r = compare(a, b, method="paired-t")
        assert r.estimate == 0.5

    def test_missing_items(self) -> None:
        with pytest.raises(AlignmentError, match="1 only in candidate"):
            compare({"a": 1, "b": 0}, {"a": 1, "b": 1, "c": 0})
        r = compare({"a": 1, "b": 0}, {"a": 1, "b": 1, "c": 0}, on_missing="intersect")
        assert r.n_items == 2
        assert r.n_dropped == (0, 1)

    def test_dataframes_with_cluster_column(self) -> None:
        rows = [
            (f"q{i}", r, f"s{i % 5}", int((i * 7 + r) % 3 == 0))
            for i in range(200)
            for r in range(2)
        ]
        a = pd.DataFrame(rows, columns=["item", "run", "subject", "score"])
        b = a.assign(score=[(s + (i % 11 == 0)) % 2 for i, s in enumerate(a["score"])])
        r = compare(a, b, cluster="subject")
        assert r.method == "cluster-cr2"
        assert r.n_clusters == 5
        assert r.n_runs == (2, 2)

    def test_ragged_runs_use_item_means(self) -> None:
        a = {"q1": [1, 1, 0], "q2": [0], "q3": [1, 1], "q4": [0, 0, 0, 1]}
        b = {"q1": [1], "q2": [1, 1], "q3": [1, 0], "q4": [1, 1]}
        r = compare(a, b)
        expected = np.mean([1 - 2 / 3, 1 - 0, 0.5 - 1, 1 - 0.25])
        assert r.estimate == pytest.approx(expected)
        assert any("ragged" in n for n in r.notes)

    def test_files(self, tmp_path: pytest.TempPathFactory) -> None:
        from pathlib import Path

        base, cand = Path(str(tmp_path)) / "a.csv", Path(str(tmp_path)) / "b.jsonl"
        base.write_text("item,score\nq1,1\nq2,0\nq3,1\n", encoding="utf-8")
        cand.write_text(
            "\n".join(json.dumps({"item": f"q{i}", "score": 1}) for i in (3, 1, 2)),
            encoding="utf-8",
        )
        r = compare(base, cand, method="paired-t")
        assert r.estimate == pytest.approx(1 / 3)


class TestMethods:
    @pytest.mark.parametrize(
        ("method", "variant", "expected"),
        [
            ("mcnemar", "mid-p", "mcnemar-mid-p"),
            ("bootstrap", "percentile", "bootstrap-percentile"),
            ("bootstrap", None, "bootstrap-bca"),
            ("permutation", "monte-carlo", "permutation"),
            ("wilcoxon", None, None),
            ("cluster", "cr1", "cluster-cr1"),
            ("cluster", "bootstrap", "cluster-bootstrap"),
            ("cluster", "wild", "cluster-wild-bootstrap"),
        ],
    )
    def test_every_method_runs(
        self, method: str, variant: str | None, expected: str | None
    ) -> None:
        rng = np.random.default_rng(3)
        x = rng.integers(0, 2, 400)
        y = np.where(rng.random(400) < 0.2, 1 - x, x)
        r = compare(
            x,
            y,
            method=method,
            variant=variant,
            rng=4,
            n_resamples=2000,  # type: ignore[arg-type]
            cluster=[i % 40 for i in range(400)] if method == "cluster" else None,
        )
        if expected:
            assert r.method == expected
        assert r.method_reason == "requested"
        assert r.ci.low <= r.estimate <= r.ci.high or method == "wilcoxon"
        assert 0 <= r.pvalue <= 1

    def test_mcnemar_refuses_several_runs(self, bench: evalsig.simulate.SimulatedBenchmark) -> None:
        with pytest.raises(DataError, match=r"needs one run per item.*8 \(baseline\)"):
            compare(bench.baseline, bench.candidate, method="mcnemar")

    def test_mcnemar_refuses_continuous(self) -> None:
        with pytest.raises(DataError, match="method='mcnemar' needs 0/1 scores"):
            compare([0.5, 0.2], [0.1, 0.3], method="mcnemar")

    def test_cluster_needs_labels(self) -> None:
        with pytest.raises(DataError, match="method='cluster' needs cluster labels"):
            compare([0, 1, 1], [1, 1, 0], method="cluster")

    def test_clusters_ignored_by_other_methods_are_noted(self) -> None:
        r = compare([0, 1, 1, 0], [1, 1, 0, 1], method="paired-t", cluster=["a", "a", "b", "b"])
        assert any("ignores them" in n for n in r.notes)

    def test_bad_method_and_variant(self) -> None:
        with pytest.raises(DataError, match="`method` must be 'auto' or one of"):
            compare([0, 1], [1, 1], method="ttest")  # type: ignore[arg-type]
        with pytest.raises(DataError, match="method 'bootstrap' has no variant 'studentized'"):
            compare([0, 1], [1, 1], method="bootstrap", variant="studentized")
        with pytest.raises(DataError, match=r"method 'paired-t' has no variant 'welch'.*none"):
            compare([0, 1], [1, 1], method="paired-t", variant="welch")


def test_identical_models() -> None:
    r = compare([1, 0, 1, 1], [1, 0, 1, 1])
    assert r.pvalue == 1.0
    assert r.estimate == 0.0
    assert not r.significant()
    assert math.isfinite(r.ci.low)
