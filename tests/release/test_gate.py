"""The release gate: verdicts, bounds against margins, files, registration, calibration."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.errors import DataError
from evalsig.inference.multiplicity import adjust
from evalsig.release import gate, load_policy, register
from evalsig.release.decision import _claim_pvalue


def _scores(rng: np.random.Generator, n: int, p: float, shift: float) -> tuple[np.ndarray, ...]:
    """Paired continuous scores with a true mean improvement ``shift``."""
    item = rng.beta(2, 2, n)
    base = np.clip(item + rng.normal(0, 0.05, n), 0, 1)
    cand = np.clip(item + shift + rng.normal(0, 0.05, n), 0, 1)
    return base, cand


def _suite(seed: int, shifts: dict[str, float], n: int = 1000) -> tuple[dict[str, Any], ...]:
    rng = np.random.default_rng(seed)
    base, cand = {}, {}
    for task, shift in shifts.items():
        base[task], cand[task] = _scores(rng, n, 0.5, shift)
    return base, cand


POLICY = {
    "name": "release",
    "tasks": [
        {"name": "up"},
        {"name": "flat"},
        {"name": "down"},
        {"name": "near", "claim": "non-inferiority", "margin": 0.02},
    ],
}


def test_verdicts_per_task_and_overall() -> None:
    base, cand = _suite(1, {"up": 0.03, "flat": 0.0, "down": -0.03, "near": -0.005})
    result = gate(base, cand, policy=POLICY)
    verdicts = {t.task.name: t.verdict for t in result.tasks}
    assert verdicts == {"up": "PASS", "flat": "INCONCLUSIVE", "down": "FAIL", "near": "PASS"}
    assert result.verdict == "FAIL"
    assert result.exit_code == 1
    assert "can no longer be reached" in result.reason
    raw = {t.task.name: t.pvalue for t in result.tasks}
    holm = adjust(raw, method="holm", alpha=0.05)
    assert [t.p_adjusted for t in result.tasks] == pytest.approx(list(holm.p_adjusted))
    assert result.registration.status == "unregistered"
    assert result.uncorrected_fwer == pytest.approx(1 - 0.95**4)


def test_rules() -> None:
    base, cand = _suite(1, {"up": 0.03, "flat": 0.0, "down": -0.03, "near": -0.005})
    two = gate(base, cand, policy={**POLICY, "rule": "at-least", "at_least": 2})
    assert (two.verdict, two.exit_code) == ("PASS", 0)
    three = gate(base, cand, policy={**POLICY, "rule": "at-least", "at_least": 3})
    assert three.verdict == "INCONCLUSIVE"
    assert three.exit_code == 3
    wins = gate(base, cand, policy={**POLICY, "rule": "sign-test"})
    assert wins.verdict == "INCONCLUSIVE"  # 3 of 4 wins is no evidence


def test_the_bound_must_clear_the_margin_not_the_estimate() -> None:
    z = np.random.default_rng(2).normal(size=30)
    z = (z - z.mean()) / z.std(ddof=1)
    base = np.full(30, 0.5)
    cand = base - 0.015 + 0.05 * z  # mean improvement -0.015 exactly, few noisy items
    policy = {"tasks": [{"name": "t", "claim": "non-inferiority", "margin": 0.02}]}
    result = gate({"t": base}, {"t": cand}, policy=policy)
    (task,) = result.tasks
    assert task.comparison.estimate > -0.02  # the point estimate clears the margin ...
    assert task.lower_bound < -0.02  # ... the bound does not
    assert task.verdict == "INCONCLUSIVE"


def test_claim_pvalue_inverts_the_bound() -> None:
    rng = np.random.default_rng(3)
    base, cand = _scores(rng, 400, 0.5, 0.004)
    r = compare(base, cand, method="paired-t", alternative="greater")
    d = cand - base
    for threshold in (0.0, -0.01, 0.005):
        expected = stats.ttest_1samp(d - threshold, 0.0, alternative="greater").pvalue
        assert _claim_pvalue(r, threshold) == pytest.approx(expected, rel=1e-6)


def test_claim_pvalue_is_one_half_when_the_estimate_sits_on_the_threshold() -> None:
    """Neither one-sided bound clears the threshold before alpha = 1/2: p = 1/2, as
    ``ttest_1samp`` gives, not 1."""
    rng = np.random.default_rng(5)
    base, cand = _scores(rng, 300, 0.5, 0.0)
    r = compare(base, cand, method="paired-t", alternative="greater")
    d = cand - base
    assert _claim_pvalue(r, r.estimate) == pytest.approx(0.5, abs=1e-6)
    expected = stats.ttest_1samp(d - d.mean(), 0.0, alternative="greater").pvalue
    assert _claim_pvalue(r, float(d.mean())) == pytest.approx(expected, abs=1e-6)


def test_a_refuted_non_inferiority_claim_reads_plainly() -> None:
    base, cand = _suite(1, {"near": -0.06})
    policy = {"tasks": [{"name": "near", "claim": "non-inferiority", "margin": 0.02}]}
    (task,) = gate(base, cand, policy=policy).tasks
    assert task.verdict == "FAIL"
    assert task.reason.endswith("the data show the candidate is worse by 0.02 or more.")
    assert "not not" not in task.reason
    base, cand = _suite(1, {"up": -0.06})
    (task,) = gate(base, cand, policy={"tasks": [{"name": "up"}]}).tasks
    assert task.reason.endswith("the data show the candidate is not better.")


def test_direction_lower_is_better() -> None:
    rng = np.random.default_rng(4)
    base, cand = _scores(rng, 800, 0.5, -0.04)  # the candidate's error rate is lower
    result = gate(
        {"err": base}, {"err": cand}, policy={"tasks": [{"name": "err", "direction": "lower"}]}
    )
    assert result.tasks[0].comparison.estimate == pytest.approx(np.mean(base - cand))
    assert result.verdict == "PASS"


def test_missing_and_extra_tasks() -> None:
    base, cand = _suite(5, {"up": 0.03, "flat": 0.0, "down": -0.03, "near": 0.0, "bonus": 0.1})
    result = gate(base, cand, policy=POLICY)
    assert any("'bonus', outside the pre-registered family: not tested" in n for n in result.notes)
    del cand["flat"]
    with pytest.raises(
        DataError, match="task 'flat' of the policy's family is missing from the candidate"
    ):
        gate(base, cand, policy=POLICY)


def test_worked_example_from_the_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    """The multi-task release gate of the multiple-comparisons page, run as written."""
    data = _suite(
        6, {"mmlu": 0.02, "gpqa": 0.0, "aime": 0.015, "swe-bench": 0.0, "terminal-bench": -0.01}
    )

    def load_baseline(task: str) -> np.ndarray:
        return data[0][task]

    def load_candidate(task: str) -> np.ndarray:
        return data[1][task]

    namespace = {"load_baseline": load_baseline, "load_candidate": load_candidate}
    exec(
        """
from evalsig import compare, ComparisonResult
from evalsig.inference import holm
tasks = ["mmlu", "gpqa", "aime", "swe-bench", "terminal-bench"]
results: dict[str, ComparisonResult] = {
    t: compare(load_baseline(t), load_candidate(t), one_sided=True)
    for t in tasks
}
p_values = [results[t].p_value for t in tasks]
adj = holm(p_values, alpha=0.05)
for t, p, rej in zip(tasks, adj.p_adjusted, adj.reject):
    print(f"{t:18} raw p = {p:.4f} reject = {rej}")
""",
        namespace,
    )
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "mmlu",
        "gpqa",
        "aime",
        "swe-bench",
        "terminal-bench",
    ]
    assert lines[0].endswith("reject = True")
    assert lines[1].endswith("reject = False")


def _lm_eval_dir(root: Path, scores: dict[str, np.ndarray]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for task, values in scores.items():
        with (root / f"samples_{task}_2026-01-01T00-00-00.000000.jsonl").open("w") as f:
            for i, v in enumerate(values):
                f.write(
                    json.dumps(
                        {
                            "doc_id": i,
                            "filter": "none",
                            "metrics": ["acc"],
                            "doc_hash": f"{task}{i}",
                            "acc": float(v),
                        }
                    )
                    + "\n"
                )
    return root


def test_gate_on_harness_directories_with_registration(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    base = {t: (rng.random(3000) < 0.6).astype(float) for t in ("arc", "hellaswag")}
    cand = {
        "arc": np.where(rng.random(3000) < 0.08, 1.0, base["arc"]),
        "hellaswag": base["hellaswag"].copy(),
    }
    a, b = _lm_eval_dir(tmp_path / "base", base), _lm_eval_dir(tmp_path / "cand", cand)
    policy_path = tmp_path / "gate.yaml"
    policy_path.write_text(
        "name: ship\ntasks:\n  - arc\n  - name: hellaswag\n    claim: "
        "non-inferiority\n    margin: 0.01\n",
        encoding="utf-8",
    )
    register(load_policy(policy_path))
    result = gate(a, b, policy=policy_path)
    assert result.registration.status == "registered"
    assert [t.verdict for t in result.tasks] == ["PASS", "PASS"]
    assert result.tasks[0].comparison.method == "mcnemar-asymptotic"
    # the family changed after registration: refused unless overridden
    policy_path.write_text("name: ship\ntasks:\n  - arc\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"dropped hellaswag\): refused"):
        gate(a, b, policy=policy_path)
    overridden = gate(a, b, policy=policy_path, allow_changed_policy=True)
    assert overridden.registration.overridden
    runner = CliRunner()
    refused = runner.invoke(app, ["gate", "--policy", str(policy_path), str(a), str(b)])
    assert refused.exit_code == 4
    assert refused.stderr.startswith(
        f"evalsig: error: {policy_path}: the policy differs from its registration"
    )
    ok = runner.invoke(
        app,
        [
            "gate",
            "--policy",
            str(policy_path),
            str(a),
            str(b),
            "--allow-changed-policy",
            "--format",
            "markdown",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "| arc | better |" in ok.stdout
    assert "raw p | adjusted p" in ok.stdout
    assert "run anyway because the override was given" in ok.stdout


def test_cli_exit_codes(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    flat = {"t": (rng.random(400) < 0.5).astype(float)}
    a, b = _lm_eval_dir(tmp_path / "a", flat), _lm_eval_dir(tmp_path / "b", flat)
    policy = tmp_path / "p.yaml"
    policy.write_text("tasks: [t]\n", encoding="utf-8")
    runner = CliRunner()
    same = runner.invoke(app, ["gate", "--policy", str(policy), str(a), str(b)])
    assert same.exit_code == 3  # identical models: the claim cannot be resolved
    assert same.stdout.startswith("INCONCLUSIVE")
    usage = runner.invoke(app, ["gate", str(a), str(b)])
    assert usage.exit_code == 2
    missing = runner.invoke(app, ["gate", "--policy", str(tmp_path / "none.yaml"), str(a), str(b)])
    assert missing.exit_code == 4
    registered = runner.invoke(app, ["register", str(policy)])
    assert registered.exit_code == 0
    assert "registered 'p': 1 task(s) (t)" in registered.stdout


def test_piped_output_is_never_cut(tmp_path: Path) -> None:
    """A CI log is not a terminal: a narrow COLUMNS must not cut verdicts or task names."""
    rng = np.random.default_rng(8)
    task = "a_long_task_name_as_harnesses_write_them_with_subject_and_shots"
    flat = {task: (rng.random(400) < 0.5).astype(float)}
    a, b = _lm_eval_dir(tmp_path / "a", flat), _lm_eval_dir(tmp_path / "b", flat)
    policy = tmp_path / "p.yaml"
    policy.write_text(f"tasks: [{task}]\n", encoding="utf-8")
    narrow = CliRunner().invoke(
        app, ["gate", "--policy", str(policy), str(a), str(b)], env={"COLUMNS": "30"}
    )
    assert narrow.exit_code == 3
    row = next(line for line in narrow.stdout.splitlines() if line.startswith(task))
    assert "INCONCLUSIVE" in row
    assert "\u2026" not in narrow.stdout  # no ellipsis anywhere


def test_romano_wolf_with_shared_items() -> None:
    rng = np.random.default_rng(9)
    gain = rng.normal(0.004, 0.05, 1500)  # the improvement varies by item, for every metric
    base = {m: rng.beta(2, 2, 1500) for m in ("m1", "m2", "m3")}
    cand = {m: v + gain + rng.normal(0, 0.02, 1500) for m, v in base.items()}
    policy = {"tasks": ["m1", "m2", "m3"], "correction": "romano-wolf", "shared_items": True}
    result = gate(base, cand, policy=policy, rng=1, n_resamples=2000)
    assert result.correction.method == "romano-wolf"
    assert result.dependence is not None
    assert result.dependence.mean_abs_correlation > 0.3


@pytest.mark.slow
def test_familywise_false_pass_rate_with_20_null_tasks() -> None:
    """K = 20 tasks with no true improvement: some task passes in at most alpha of gates."""
    rng = np.random.default_rng(2026)
    tasks = [f"t{k}" for k in range(20)]
    n_gates, false_passes = 400, 0
    for _ in range(n_gates):
        base, cand = {}, {}
        for t in tasks:
            base[t], cand[t] = _scores(rng, 150, 0.5, 0.0)
        result = gate(base, cand, policy={"tasks": tasks})
        false_passes += any(v.verdict == "PASS" for v in result.tasks)
    upper = stats.binom.ppf(0.995, n_gates, 0.05)
    assert false_passes == 26  # 4.9% over 1,500 gates with another seed
    assert false_passes <= upper


@pytest.mark.slow
def test_false_discovery_proportion_under_bh() -> None:
    """10 real improvements and 10 nulls: BH keeps the mean false discovery proportion <= alpha."""
    rng = np.random.default_rng(2027)
    shifts = {f"t{k}": (0.012 if k < 10 else 0.0) for k in range(20)}
    n_gates, fdp = 300, []
    for _ in range(n_gates):
        base, cand = {}, {}
        for t, s in shifts.items():
            base[t], cand[t] = _scores(rng, 150, 0.5, s)
        result = gate(base, cand, policy={"tasks": list(shifts), "error_rate": "fdr"})
        passed = [v.task.name for v in result.tasks if v.verdict == "PASS"]
        false = sum(shifts[t] == 0 for t in passed)
        fdp.append(false / len(passed) if passed else 0.0)
    mean = float(np.mean(fdp))
    assert mean == pytest.approx(0.0281, abs=5e-5)
    assert mean <= 0.05 + 2.576 * np.std(fdp) / np.sqrt(n_gates)


def test_strata_give_each_claim_the_stratified_test(tmp_path: Path) -> None:
    """gate(strata=True) reads the tables' groups as strata: each claim with method auto
    is the stratified t-test of compare(strata=...) on that task; the CLI's --strata reads
    the column so; a table without groups is refused."""
    from evalsig.data import load_tasks

    rng = np.random.default_rng(4)
    rows = []
    for task in ("arc", "mmlu"):
        for i in range(200):
            subject = f"s{i % 4}"
            p = 0.4 + 0.1 * (i % 4)
            for model, shift in (("base", 0.0), ("cand", 0.05)):
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "item": f"{task}{i}",
                        "subject": subject,
                        "correct": int(rng.random() < p + shift),
                    }
                )
    frame = pd.DataFrame(rows)
    for model in ("base", "cand"):
        frame[frame["model"] == model].drop(columns="model").to_csv(
            tmp_path / f"{model}.csv", index=False
        )
    read = {"id_column": "item", "score_column": "correct", "task_column": "task"}
    sides = [
        load_tasks(tmp_path / f"{m}.csv", cluster_column="subject", **read)
        for m in ("base", "cand")
    ]
    policy = {"tasks": [{"name": "arc"}, {"name": "mmlu"}]}
    result = gate(sides[0], sides[1], policy=policy, strata=True)
    for verdict in result.tasks:
        task = verdict.task.name
        groups = [str(s) for s in sides[0][task].clusters]
        expected = compare(
            replace(sides[0][task], clusters=None),
            replace(sides[1][task], clusters=None),
            strata=groups,
            alternative="greater",
            confidence_level=0.95,
        )
        assert verdict.comparison.method == "stratified-proportional"
        assert verdict.comparison.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    policy_path = tmp_path / "p.yaml"
    policy_path.write_text("tasks: [arc, mmlu]\n", encoding="utf-8")
    args = ["gate", "--policy", str(policy_path), str(tmp_path / "base.csv")]
    args += [str(tmp_path / "cand.csv"), "--id", "item", "--score", "correct"]
    args += ["--task-column", "task", "--strata", "subject", "--format", "json"]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code in (0, 1, 3), shown.output
    document = json.loads(shown.stdout)
    assert {t["comparison"]["method"] for t in document["tasks"]} == {"stratified-proportional"}
    plain = [load_tasks(tmp_path / f"{m}.csv", **read) for m in ("base", "cand")]
    with pytest.raises(DataError, match="they have none"):
        gate(plain[0], plain[1], policy=policy, strata=True)
