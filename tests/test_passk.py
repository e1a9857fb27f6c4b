"""pass_at_k, compare_pass_at_k and pass_at_k_power: inputs (harness logs whose runs are
samples, arrays, counts), numbers against scipy, errors, JSON schemas and renderings."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from scipy import stats

from evalsig.data import load
from evalsig.errors import AlignmentError, DataError
from evalsig.inference import passk as numerics
from evalsig.passk import SampleCounts, compare_pass_at_k, pass_at_k
from evalsig.power.paired_t import paired_t_sample_size
from evalsig.power.passk import pass_at_k_power, pass_at_k_sample_size

SCHEMAS = Path(__file__).parents[1] / "src" / "evalsig" / "report" / "schemas"
HOSTILE = "<script>alert(1)</script>|`x`"


def _validate(document: dict[str, Any]) -> None:
    schema = json.loads((SCHEMAS / f"{document['kind']}.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in
              Draft202012Validator(schema).iter_errors(document)]  # fmt: skip
    assert not errors, errors
    json.dumps(document, allow_nan=False)  # strict JSON


def _samples(seed: int, tasks: int = 80, n: int = 10, a: float = 0.6, b: float = 0.9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((tasks, n)) < rng.beta(a, b, (tasks, 1))).astype(np.int8)


# --- harness logs: runs are samples --------------------------------------------------------


def _inspect_sample(item: str, epoch: int, value: str) -> dict[str, Any]:
    return {
        "id": item,
        "epoch": epoch,
        "input": f"task {item}",
        "target": "ok",
        "messages": [],
        "output": {"completion": "..."},
        "scores": {"verify": {"value": value, "answer": "..."}},
        "metadata": {},
    }


def _inspect_log(path: Path, outcomes: dict[str, list[int]], model: str) -> Path:
    """An Inspect .eval archive: one sample per task and epoch, scored C or I."""
    header = {
        "version": 2,
        "status": "success",
        "eval": {"task": "swe_tasks", "model": model, "config": {"epochs": 5}},
        "plan": {"steps": []},
        "results": {"total_samples": len(outcomes), "scores": [{"name": "verify"}]},
        "stats": {},
    }
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
        for item, values in outcomes.items():
            for epoch, value in enumerate(values, start=1):
                sample = _inspect_sample(item, epoch, "C" if value else "I")
                archive.writestr(f"samples/{item}_epoch_{epoch}.json", json.dumps(sample))
        archive.writestr("summaries.json", "[]")
        archive.writestr("header.json", json.dumps(header))
    return path


def test_inspect_epochs_are_the_samples_of_each_task(tmp_path: Path) -> None:
    matrix = _samples(1, tasks=30, n=5)
    outcomes = {f"task-{i}": row.tolist() for i, row in enumerate(matrix)}
    outcomes["task-short"] = [1, 0, 1]  # an epoch short: 3 samples
    path = _inspect_log(tmp_path / "base.eval", outcomes, "openai/base")
    table = load(path)
    assert table.n_runs == 5
    assert table.ragged
    result = pass_at_k(path, [1, 3])  # the path through load
    counts = SampleCounts(
        n=[len(v) for v in outcomes.values()],
        c=[sum(v) for v in outcomes.values()],
        tasks=list(outcomes),
    )
    expected = pass_at_k(counts, [1, 3])
    for k in (1, 3):
        assert result[k].estimate == pytest.approx(expected[k].estimate, rel=1e-14)
        assert result[k].n_tasks == 31
    assert result.samples == (3, 5)
    assert result.provenance is not None
    origin = dict(result.provenance.inputs)["scores"]
    assert origin is not None
    assert origin.format == "inspect"
    assert origin.model == "openai/base"
    assert any("epoch" in note for note in result.notes)
    with pytest.raises(DataError, match=r"'task-short': 3 samples\); pass@5 needs at least 5"):
        pass_at_k(path, 5)
    dropped = pass_at_k(path, 5, too_few_samples="drop")[5]
    assert (dropped.n_tasks, dropped.n_dropped) == (30, 1)
    assert (
        "left out 1 task(s) with fewer than 5 samples ('task-short': 3 samples)" in dropped.notes[0]
    )
    _validate(result.to_dict())


def test_two_inspect_logs_compared_task_by_task(tmp_path: Path) -> None:
    base, cand = _samples(2, tasks=40, n=4), _samples(3, tasks=40, n=4, a=1.2, b=0.6)
    names = [f"t{i}" for i in range(40)]
    base_path = _inspect_log(
        tmp_path / "b.eval", dict(zip(names, base.tolist(), strict=True)), "m/base"
    )
    cand_items = dict(zip(names, cand.tolist(), strict=True))
    shuffled = dict(reversed(list(cand_items.items())))  # a different order: matched by id
    cand_path = _inspect_log(tmp_path / "c.eval", shuffled, "m/cand")
    result = compare_pass_at_k(base_path, cand_path, [1, 2])
    arrays = compare_pass_at_k(base, cand, [1, 2])
    for k in (1, 2):
        assert result[k].estimate == pytest.approx(arrays[k].estimate, rel=1e-13)
        assert result[k].pvalue == pytest.approx(arrays[k].pvalue, rel=1e-10)
    assert "m/cand vs m/base" in str(result)


def _lm_eval_samples(path: Path, correct: list[int]) -> Path:
    records = [
        {
            "doc_id": i,
            "doc": {"question": f"q{i}"},
            "target": "A",
            "arguments": [["prompt", " A"]],
            "resps": [[["x"]]],
            "filtered_resps": [["x"]],
            "filter": "none",
            "metrics": ["exact_match"],
            "doc_hash": f"hash{i}",
            "prompt_hash": "p",
            "target_hash": "t",
            "exact_match": float(v),
        }
        for i, v in enumerate(correct)
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_lm_eval_repeats_are_the_samples_of_each_task(tmp_path: Path) -> None:
    matrix = _samples(4, tasks=25, n=3)
    for r in range(3):  # one samples file per repeat
        _lm_eval_samples(tmp_path / f"samples_gsm8k_2026-01-0{r + 1}T10-00-00.000000.jsonl",
                         matrix[:, r].tolist())  # fmt: skip
    result = pass_at_k(tmp_path, [1, 2, 3])
    expected = pass_at_k(matrix, [1, 2, 3])
    for k in (1, 2, 3):
        assert result[k].estimate == pytest.approx(expected[k].estimate, rel=1e-14)
        assert result[k].se == pytest.approx(expected[k].se, rel=1e-12)


def test_a_long_table_with_a_run_column(tmp_path: Path) -> None:
    matrix = _samples(5, tasks=20, n=6)
    rows = [f"q{i},{r},{v}" for i, row in enumerate(matrix) for r, v in enumerate(row)]
    path = tmp_path / "long.csv"
    path.write_text("item,run,correct\n" + "\n".join(rows) + "\n", "utf-8")
    result = pass_at_k(load(path, run_column="run"), 3)
    assert result[3].estimate == pytest.approx(pass_at_k(matrix, 3)[3].estimate, rel=1e-14)


# --- inputs --------------------------------------------------------------------------------


def test_every_input_form_gives_the_same_numbers() -> None:
    matrix = _samples(6, tasks=12, n=7)
    n, c = np.full(12, 7), matrix.sum(axis=1)
    forms = [
        matrix,
        matrix.astype(bool),
        matrix.tolist(),
        SampleCounts(n=n, c=c),
        SampleCounts(n=n.astype(float), c=c.astype(float)),
        {f"t{i}": row.tolist() for i, row in enumerate(matrix)},  # through load
    ]
    reference = pass_at_k(matrix, [1, 4, 7])
    for form in forms:
        got = pass_at_k(form, [1, 4, 7])
        for k in (1, 4, 7):
            assert got[k].estimate == pytest.approx(reference[k].estimate, rel=1e-14)
            assert got[k].ci == reference[k].ci


def test_tasks_may_have_different_numbers_of_samples() -> None:
    ragged = [[1, 0, 0, 1], [0, 0], [1, 1, 1], [0, 1, 0, 0, 0, 1]]
    result = pass_at_k(ragged, 2)
    per_task = [numerics.pass_at_k([len(s)], [sum(s)], 2)[0] for s in ragged]
    assert result[2].estimate == pytest.approx(np.mean(per_task), rel=1e-14)
    assert result.samples == (2, 6)
    frame = result.tasks_frame()
    assert frame["pass@2"].tolist() == pytest.approx(per_task)
    assert frame["n"].tolist() == [4, 2, 3, 6]


def test_bad_inputs_are_named() -> None:
    with pytest.raises(DataError, match=r"`scores`: task 1 has 1 missing \(NaN\) sample"):
        pass_at_k(np.array([[1, 0, 1], [0, np.nan, 1]]), 1)
    with pytest.raises(DataError, match=r"sample scores other than 0 and 1"):
        pass_at_k([[0.5, 1], [1, 1]], 1)
    with pytest.raises(
        DataError, match=r"holds scores other than 0 and 1 \(e\.g\. 'b', mean 0\.75"
    ):
        pass_at_k({"a": [1, 0], "b": [1, 0.5]}, 1)
    with pytest.raises(
        DataError, match=r"1 task\(s\) have fewer than 4 samples \(task 1: 3 samples\)"
    ):
        pass_at_k([[1, 0, 1, 1], [0, 0, 1]], 4)
    with pytest.raises(DataError, match=r"over 1 task\(s\)"):
        pass_at_k([[1, 0, 1]], 1)
    with pytest.raises(DataError, match=r"`k` lists a value twice"):
        pass_at_k(_samples(0), [1, 1])
    with pytest.raises(DataError, match=r"`method` must be 't' or 'bootstrap'"):
        pass_at_k(_samples(0), 1, method="wald")
    with pytest.raises(DataError, match=r"`too_few_samples` must be 'error' or 'drop'"):
        pass_at_k(_samples(0), 1, too_few_samples="skip")
    with pytest.raises(DataError, match=r"task 0 has c = 4 correct of n = 3"):
        pass_at_k(SampleCounts(n=[3, 3], c=[4, 1]), 1)
    with pytest.raises(DataError, match=r"`scores`.tasks must name each of the 2 tasks once"):
        pass_at_k(SampleCounts(n=[3, 3], c=[1, 1], tasks=["a", "a"]), 1)


# --- one model: the numbers -----------------------------------------------------------------


def test_t_interval_and_se_are_scipys_on_the_per_task_estimates() -> None:
    matrix = _samples(7, tasks=45, n=10)
    result = pass_at_k(matrix, [1, 5], confidence_level=0.9)
    for k in (1, 5):
        per_task = numerics.pass_at_k(np.full(45, 10), matrix.sum(axis=1), k)
        row = result[k]
        assert row.estimate == pytest.approx(per_task.mean(), rel=1e-14)
        assert row.se == pytest.approx(stats.sem(per_task), rel=1e-12)
        expected = stats.t.interval(0.9, 44, loc=per_task.mean(), scale=stats.sem(per_task))
        assert (row.ci.low, row.ci.high) == pytest.approx(expected, rel=1e-12)
        assert row.confidence_interval(0.99).low < row.ci.low
        within = numerics.within_task_variance(np.full(45, 10), matrix.sum(axis=1), k)
        assert row.se_within == pytest.approx(math.sqrt(within.sum()) / 45, rel=1e-12)
        limit = math.sqrt(max(0.0, per_task.var(ddof=1) - within.mean()) / 45)
        assert row.se_limit == pytest.approx(limit, rel=1e-12)
        assert row.df == 44.0
        assert row.method == "t"
    assert result.seed is None
    assert result.to_dict()["nulls"]["seed"] == "no random draws"


def test_within_part_is_null_without_2k_samples_and_says_why() -> None:
    result = pass_at_k(_samples(8, n=6), [3, 4])
    assert result[3].se_within is not None
    assert result[4].se_within is None
    assert result[4].se_limit is None
    document = result.to_dict()
    assert "fewer than 2k = 8 samples" in document["nulls"]["rows[1].se_within"]
    assert any("fewer than 2k samples" in n for n in result[4].notes)


def test_bootstrap_over_tasks_is_seeded_and_falls_back_below_50_tasks() -> None:
    matrix = _samples(9, tasks=120)
    first = pass_at_k(matrix, [1, 5], method="bootstrap", rng=3, n_resamples=2000)
    again = pass_at_k(matrix, [1, 5], method="bootstrap", rng=3, n_resamples=2000)
    assert first[5].ci == again[5].ci
    assert first.seed == 3
    assert first[5].method.startswith("bootstrap")
    assert first[5].n_resamples == 2000
    t = pass_at_k(matrix, 5)[5]
    assert abs(first[5].ci.low - t.ci.low) < 0.02  # near the t interval, not equal
    assert first[5].ci != t.ci
    few = pass_at_k(matrix[:30], 5, method="bootstrap", rng=3)[5]
    assert few.method == "t"
    assert "fewer than 50" in few.method_reason
    assert pass_at_k(matrix[:30], 5, method="bootstrap", rng=3).seed is None


def test_constant_estimates_and_clipping_are_noted() -> None:
    all_right = pass_at_k(np.ones((10, 4), dtype=int), 2)[2]
    assert (all_right.estimate, all_right.se) == (1.0, 0.0)
    assert all_right.ci.low == all_right.ci.high == 1.0
    assert any("the standard error is 0" in n for n in all_right.notes)
    clipped = pass_at_k([[1, 1], [1, 1], [1, 1], [0, 0]], 1)[1]
    assert clipped.ci.high == 1.0
    assert any("it is cut to" in n for n in clipped.notes)


def test_majority_and_pass_hat_k_are_reported_with_their_ties() -> None:
    result = pass_at_k(_samples(10), [2, 3], estimator="majority@k", ties="fail")
    assert result.ties == "fail"
    assert result.to_dict()["ties"] == "fail"
    per_task = numerics.majority_at_k(np.full(80, 10), _samples(10).sum(axis=1), 2, ties="fail")
    assert result[2].estimate == pytest.approx(per_task.mean(), rel=1e-13)
    assert "a tie counts as a failure" in str(result)
    hat = pass_at_k(_samples(10), 3, estimator="pass^k")
    assert hat.ties is None
    assert "pass^3" in str(hat)
    assert hat[3].estimate < pass_at_k(_samples(10), 3)[3].estimate


# --- two models ----------------------------------------------------------------------------


def test_paired_t_is_scipys_on_per_task_differences() -> None:
    base, cand = _samples(11), _samples(12, a=0.9, b=0.6)
    result = compare_pass_at_k(base, cand, [1, 5], alternative="greater")
    for k in (1, 5):
        pb = numerics.pass_at_k(np.full(80, 10), base.sum(axis=1), k)
        pc = numerics.pass_at_k(np.full(80, 10), cand.sum(axis=1), k)
        expected = stats.ttest_rel(pc, pb, alternative="greater")
        row = result[k]
        assert row.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert row.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
        assert row.estimate == pytest.approx((pc - pb).mean(), rel=1e-13)
        assert (row.baseline, row.candidate) == pytest.approx((pb.mean(), pc.mean()))
        assert row.ci.high == math.inf
        assert row.confidence_interval(0.95, alternative="two-sided").high < math.inf
        assert row.significant() == (row.pvalue <= 0.05)
    _validate(result.to_dict())
    assert result.to_frame()["ci_high"].tolist() == [math.inf, math.inf]


def test_swapping_the_models_flips_the_sign() -> None:
    base, cand = _samples(13), _samples(14, a=0.9, b=0.6)
    forward = compare_pass_at_k(base, cand, 3, method="permutation", rng=1)[3]
    backward = compare_pass_at_k(cand, base, 3, method="permutation", rng=1)[3]
    assert backward.estimate == pytest.approx(-forward.estimate, rel=1e-13)
    assert backward.pvalue == pytest.approx(forward.pvalue)
    assert (backward.ci.low, backward.ci.high) == pytest.approx((-forward.ci.high, -forward.ci.low))


def test_permutation_is_exact_for_few_tasks_and_bootstrap_falls_back() -> None:
    base, cand = _samples(15, tasks=12), _samples(16, tasks=12, a=2.0, b=0.5)
    exact = compare_pass_at_k(base, cand, 2, method="permutation")
    assert exact[2].method == "permutation-exact"
    assert exact.seed is None
    fallback = compare_pass_at_k(base, cand, 2, method="bootstrap", rng=4)[2]
    assert fallback.method == "permutation-exact"
    assert "requested the bootstrap, but with 12 tasks" in fallback.method_reason
    assert fallback.pvalue == exact[2].pvalue
    boot = compare_pass_at_k(_samples(17, 90), _samples(18, 90), 1, method="bootstrap", rng=4)
    assert boot[1].method == "bootstrap-bca"
    assert boot.seed == 4
    assert boot[1].n_resamples == 10_000


def test_tasks_are_matched_by_id_and_missing_ones_are_refused() -> None:
    base = {f"t{i}": [1, 0, i % 2, 1] for i in range(20)}
    cand = {f"t{i}": [1, 1, i % 3 == 0, 1] for i in reversed(range(21))}
    with pytest.raises(AlignmentError, match=r"1 only in candidate \('t20'\)"):
        compare_pass_at_k(base, cand, 1)
    result = compare_pass_at_k(base, cand, 1, on_missing="intersect")
    assert result.n_tasks == 20
    assert result.n_dropped == (0, 1)
    same = compare_pass_at_k(base, {k: cand[k] for k in base}, 1)
    assert result[1].estimate == same[1].estimate


def test_different_numbers_of_samples_per_side_and_too_few_samples() -> None:
    base = [[1, 0, 1, 0, 1, 1]] * 4 + [[0, 0, 1]] * 4
    cand = [[1, 1, 1, 0, 1, 1, 0, 1]] * 8
    with pytest.raises(DataError, match=r"`baseline`: 4 task\(s\) have fewer than 4 samples"):
        compare_pass_at_k(base, cand, 4)
    result = compare_pass_at_k(base, cand, [1, 4], too_few_samples="drop")
    assert (result[4].n_tasks, result[4].n_dropped) == (4, 4)
    assert result[1].n_tasks == 8
    assert result.samples == ((3, 6), (8, 8))
    assert not any("per-item means are compared" in n for n in result.notes)


def test_se_within_of_a_difference_adds_both_models() -> None:
    base, cand = _samples(19, n=12), _samples(20, n=12)
    row = compare_pass_at_k(base, cand, 3)[3]
    vb = numerics.within_task_variance(np.full(80, 12), base.sum(axis=1), 3)
    vc = numerics.within_task_variance(np.full(80, 12), cand.sum(axis=1), 3)
    assert row.se_within == pytest.approx(math.sqrt((vb + vc).sum()) / 80, rel=1e-12)


# --- planning ------------------------------------------------------------------------------


def test_the_plan_at_the_pilots_samples_is_the_pilots_spread() -> None:
    """sigma_b^2 + V(n_pilot) = s_d^2: at the pilot's own samples the planned SD is the
    observed SD of per-task differences, so N* there is paired_t_sample_size on it."""
    base, cand = _samples(21, n=12), _samples(22, n=12, a=0.8, b=0.7)
    plan = pass_at_k_power(base, cand, 3, effect=0.04, samples=[3, 12, 48])
    assert plan.sd_observed is not None
    assert plan.sd[1] == pytest.approx(plan.sd_observed, rel=1e-12)
    assert plan.n_required[1] == pytest.approx(paired_t_sample_size(0.04, plan.sd_observed).n)
    assert plan.sd[0] > plan.sd[1] > plan.sd[2] > plan.sd_between
    assert plan.n_required[0] > plan.n_required[1] > plan.n_required[2] > plan.n_limit
    assert plan.evaluations[1] == pytest.approx(plan.n_required[1] * 12)
    _validate(plan.to_dict())
    frame = plan.to_frame()
    assert frame["n_tasks"].tolist() == [math.ceil(n - 1e-9) for n in plan.n_required]


def test_the_plan_reaches_its_power_in_simulation() -> None:
    """A population of tasks with known rates: from a pilot with 8 samples per task, the plan
    for 4 samples (the within-task part projected) needs N* tasks; experiments of N* tasks
    with 4 samples, drawn from the population, reject at about the planned power."""
    rng = np.random.default_rng(23)
    population = 4000
    p_base = rng.beta(0.8, 1.2, population)
    p_cand = np.clip(p_base + rng.normal(0.05, 0.05, population), 0, 1)
    k, n_pilot, n, effect = 2, 8, 4, 0.04
    pilot = 400
    index = rng.choice(population, pilot, replace=False)
    draw = rng.random
    base = (draw((pilot, n_pilot)) < p_base[index, None]).astype(int)
    cand = (draw((pilot, n_pilot)) < p_cand[index, None]).astype(int)
    plan = pass_at_k_power(
        base, cand, k, effect=effect, samples=[n, n_pilot], alternative="greater"
    )
    tasks = math.ceil(plan.n_required[0])
    assert tasks > math.ceil(plan.n_required[1])  # fewer samples, more tasks
    shift = effect - float(
        np.mean(1 - (1 - p_cand) ** k) - np.mean(1 - (1 - p_base) ** k)
    )  # make the true difference in pass@2 the planned effect
    replicates, rejected = 600, 0
    for _ in range(replicates):
        pick = rng.choice(population, tasks)
        cb = rng.binomial(n, p_base[pick])
        cc = rng.binomial(n, p_cand[pick])
        d = (
            numerics.pass_at_k(np.full(tasks, n), cc, k)
            - numerics.pass_at_k(np.full(tasks, n), cb, k)
            + shift
        )
        rejected += stats.ttest_1samp(d, 0.0, alternative="greater").pvalue <= 0.05
    low, high = stats.binom.ppf([0.005, 0.995], replicates, 0.8)
    # the pilot's variance estimate has its own error (400 tasks): allow 5 points more
    assert low - 30 <= rejected <= high + 30, (rejected, tasks)


def test_sample_size_from_a_given_sd() -> None:
    size = pass_at_k_sample_size(0.05, 0.25)
    assert size.n_items == paired_t_sample_size(0.05, 0.25).n_items
    assert any("tasks" in note for note in size.notes)


def test_planning_needs_2k_samples() -> None:
    with pytest.raises(DataError, match=r"planning pass@4 \(the within-task variance needs two"):
        pass_at_k_power(_samples(24, n=6), _samples(25, n=6), 4, effect=0.05)


# --- renderings ----------------------------------------------------------------------------


def test_renderings_escape_names_and_show_the_numbers() -> None:
    base = SampleCounts(
        n=[10] * 40, c=[i % 11 for i in range(40)], tasks=[f"t{i}" for i in range(40)]
    )
    cand = SampleCounts(n=[10] * 40, c=[min(10, i % 11 + 1) for i in range(40)],
                        tasks=[f"t{i}" for i in range(40)])  # fmt: skip
    table = base.table(HOSTILE)
    result = compare_pass_at_k(table, cand, [1, 5])
    html = result._repr_html_()
    assert "<script>alert" not in html
    assert "&lt;script&gt;" in html
    assert "<svg" in html
    markdown = result._repr_markdown_()
    assert "<script>" not in markdown
    assert "\\|" in markdown
    text = str(result)
    assert text.startswith("pass@1: The candidate is better than the baseline by +")
    assert "p-values are per k" in text
    single = pass_at_k(table, [1, 5])
    assert "<script>alert" not in single._repr_html_()
    assert "| pass@5 |" in single._repr_markdown_()
    plan = pass_at_k_power(table, cand, 1, effect=0.05, samples=[2, 10])
    assert "Tasks needed to detect +5.00 pp in pass@1" in str(plan)
    assert "<script>alert" not in plan._repr_html_()
    assert "<svg" in plan._repr_html_()


def test_frames_hold_the_rows() -> None:
    result = pass_at_k(_samples(26), [1, 5, 10])
    frame = result.to_frame()
    assert frame["k"].tolist() == [1, 5, 10]
    assert frame["estimate"].tolist() == [row.estimate for row in result.rows]
    assert np.isnan(frame["se_within"].iloc[2])  # 10 samples: no 2k = 20
    assert result[5] is result.rows[1]
    assert result.ks == (1, 5, 10)
    with pytest.raises(KeyError, match=r"no row for k = 2"):
        result[2]
