"""compare() on real per-question results of real models (../shared/data; skipped if absent)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalsig import compare
from evalsig.errors import AlignmentError

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def mmlu_pro(shared_data: Path) -> pd.DataFrame:
    return pd.read_csv(shared_data / "mmlu_pro" / "mmlu_pro_long.csv.gz")


@pytest.fixture(scope="module")
def alpaca(shared_data: Path) -> pd.DataFrame:
    frame = pd.read_csv(shared_data / "alpaca_eval" / "alpaca_eval_weighted_long.csv.gz")
    return frame.assign(score=frame["preference"] - 1)


def _model(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    return frame[frame["model"] == name]


def test_llama_instruct_vs_base_on_mmlu_pro(mmlu_pro: pd.DataFrame) -> None:
    base = _model(mmlu_pro, "Meta-Llama-3_1-8B_5shots")
    inst = _model(mmlu_pro, "Meta-Llama-3_1-8B-Instruct_5shots")
    r = compare(base, inst, cluster="category")
    assert r.n_items == 12_032
    assert round(r.baseline_mean, 4) == 0.3649  # data/README.md: 0.4419 vs 0.3649
    assert round(r.candidate_mean, 4) == 0.4419
    assert r.n_clusters == 14
    assert r.method == "cluster-cr2"
    assert any("only 14 clusters" in n for n in r.notes)
    assert r.pvalue < 1e-3
    single = compare(base, inst)
    assert single.method == "mcnemar-asymptotic"
    assert single.n01 is not None
    assert single.n10 is not None
    assert single.estimate == pytest.approx((single.n01 - single.n10) / 12_032)
    # ignoring subject clustering understates the standard error here
    assert single.se < r.se


def test_missing_questions_are_reported(mmlu_pro: pd.DataFrame) -> None:
    base = _model(mmlu_pro, "Meta-Llama-3_1-8B_5shots")
    flash = _model(mmlu_pro, "gemini-1.5-flash-002_5shots")  # 12,012 of 12,032 questions
    with pytest.raises(
        AlignmentError,
        match="baseline has 12032 items and candidate has 12012; 20 only in baseline",
    ):
        compare(base, flash)
    # the gemini runs used the revised answer key on 30 of the shared questions: the
    # DataFrames' 'answer' column is their content key, so that is caught too
    with pytest.raises(AlignmentError, match=r"30 item\(s\) have a different content key"):
        compare(base, flash, on_missing="intersect")
    r = compare(base, flash, on_missing="intersect", on_mismatch="exclude")
    assert r.n_items == 12_012 - 30
    assert r.n_dropped == (20, 0)
    assert r.n_mismatched == 30


def test_alpaca_eval_win_rates(alpaca: pd.DataFrame) -> None:
    def model(name: str) -> pd.DataFrame:
        return alpaca[alpaca["generator_2"] == name].rename(columns={"idx": "item"})

    claude, gpt35 = model("claude-2"), model("gpt-3.5-turbo-1106")
    r = compare(gpt35, claude, cluster="dataset")
    assert r.n_items == 805
    assert r.candidate_mean * 100 == pytest.approx(17.188240356708075, abs=1e-9)
    assert r.n_clusters == 5
    assert not r.percent_scale or 0 <= r.candidate_mean <= 1
    t = compare(gpt35, claude)
    assert t.method == "paired-t"
    assert t.method_reason == "continuous scores: paired t-test on per-item differences"
    with pytest.raises(AlignmentError, match="805 items and candidate has 804"):
        compare(claude, model("alpaca-7b_concise"))
