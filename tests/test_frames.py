"""Tables for notebooks: ``to_frame()`` of every tabular result, ``_repr_markdown_`` and the
scoped styles of HTML fragments.

Each frame is checked against the result's own JSON (``to_dict()``): the same rows in the
same order, the same numbers (NaN or an infinity where the JSON has null), typed columns,
and every row even where ``str()`` shows the first ones only.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalsig.errors import DataError

pd = pytest.importorskip("pandas")

HOSTILE = "a|b <script>alert(1)</script> `x`\r\nnext *y* [z](http://e.invalid)"
"""A model / task / label name that must not break a markdown table or inject HTML."""


# --- helpers -----------------------------------------------------------------------------


def _same(value: Any, expected: Any) -> bool:
    """A frame cell against its JSON value: null matches NaN, <NA> or an infinity."""
    if expected is None:
        return value is None or value is pd.NA or not math.isfinite(float(value))
    if isinstance(expected, list):
        return tuple(value) == tuple(expected)
    return bool(value == expected)


def _assert_rows(frame: Any, rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> None:
    """Every JSON row matches its frame row, column ``frame_name`` against ``json_key``."""
    assert len(frame) == len(rows)
    for frame_name, key in names.items():
        for i, row in enumerate(rows):
            cell = frame[frame_name].iloc[i]
            assert _same(cell, row[key]), (frame_name, i, cell, row[key])


def _assert_types(frame: Any, **kinds: str) -> None:
    """Column kinds: 'int' (int64), 'float' (float64), 'bool' (bool), 'text' (strings)."""
    for name, kind in kinds.items():
        dtype = frame[name].dtype
        if kind == "int":
            assert dtype == np.int64, (name, dtype)
        elif kind == "float":
            assert dtype == np.float64, (name, dtype)
        elif kind == "bool":
            assert dtype == np.bool_, (name, dtype)
        else:
            assert pd.api.types.is_string_dtype(dtype) or dtype.kind == "O", (name, dtype)


def _cells(line: str) -> int:
    """Cells of a markdown table row: unescaped pipes minus one."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def _assert_safe_markdown(text: str) -> None:
    """No raw HTML, and every table row has as many cells as its header."""
    assert "<script" not in text
    assert "\r" not in text
    width = None
    for line in text.splitlines():
        if not line.startswith("|"):
            width = None
            continue
        if width is None:
            width = _cells(line)
        assert _cells(line) == width, line


# --- inference ---------------------------------------------------------------------------


def test_multiplicity_frame_has_every_hypothesis() -> None:
    from evalsig.inference import holm

    pvalues = np.random.default_rng(0).uniform(0, 0.2, 120)
    result = holm(pvalues)
    assert str(result).count("\n") < 60  # str() shows the first 50 rows
    frame = result.to_frame()
    assert list(frame.columns) == ["label", "pvalue", "p_adjusted", "reject"]
    assert frame["label"].tolist() == [str(i) for i in range(120)]
    np.testing.assert_array_equal(frame["pvalue"], result.pvalues)
    np.testing.assert_array_equal(frame["p_adjusted"], result.p_adjusted)
    np.testing.assert_array_equal(frame["reject"], result.reject)
    _assert_types(frame, label="text", pvalue="float", p_adjusted="float", reject="bool")
    d = result.to_dict()
    assert frame["p_adjusted"].tolist() == d["p_adjusted"]
    assert frame["reject"].tolist() == d["reject"]


def test_multiplicity_frame_and_markdown_keep_labels() -> None:
    from evalsig.inference import holm

    result = holm({HOSTILE: 0.001, "b": 0.04, "c": 0.3})
    frame = result.to_frame()
    assert frame["label"].tolist() == [HOSTILE, "b", "c"]
    frame.loc[0, "pvalue"] = 0.5  # a copy: editing the frame leaves the result alone
    assert result.pvalues[0] == 0.001
    text = result._repr_markdown_()
    _assert_safe_markdown(text)
    assert "a\\|b &lt;script&gt;" in text
    assert text.startswith("### Holm adjustment (FWER) at alpha = 0.05: 1 of 3 rejected\n")
    many = holm(np.linspace(0.001, 0.5, 60))._repr_markdown_()
    assert "... 10 more (see p\\_adjusted and reject)" in many
    assert many.count("\n| ") == 51  # header and the 50 rows str() shows


def test_simultaneous_frame_matches_to_dict() -> None:
    from evalsig.inference import romano_wolf

    rng = np.random.default_rng(1)
    tasks = {f"task {k}": rng.normal(0.05 * (k % 3), 1.0, 12) for k in range(55)}
    tasks[HOSTILE] = np.full(12, 0.1)  # zero standard error: t = +inf, p undefined
    result = romano_wolf(tasks, n_resamples=200, alternative="greater", rng=2)
    frame = result.to_frame()
    columns = ["task", "estimate", "se", "n_items", "null", "statistic", "pvalue"]
    columns += ["p_adjusted", "reject", "ci_low", "ci_high"]
    assert list(frame.columns) == columns
    assert len(frame) == 56
    assert frame["task"].tolist() == list(tasks)
    d = result.to_dict()
    keys = {name: name for name in columns} | {"task": "tasks", "pvalue": "pvalues"}
    rows = [{k: d[k][i] for k in keys.values()} for i in range(56)]
    _assert_rows(frame, rows, keys)
    assert np.isposinf(frame["ci_high"]).all()  # one-sided: unbounded above, null in JSON
    assert np.isnan(frame["pvalue"].iloc[-1])
    assert np.isposinf(frame["statistic"].iloc[-1])  # the number itself, null in JSON
    _assert_types(frame, task="text", n_items="int", estimate="float", reject="bool")
    text = result._repr_markdown_()
    _assert_safe_markdown(text)
    assert "... 6 more tasks (see the arrays)" in text


def test_dependence_frame_is_the_upper_triangle() -> None:
    from evalsig.inference import dependence

    rng = np.random.default_rng(3)
    items = [f"q{i}" for i in range(30)]
    base = rng.normal(size=30)
    diffs = {
        t: dict(zip(items, base * w + rng.normal(size=30), strict=True))
        for t, w in (("arc", 1.0), (HOSTILE, 0.5), ("gsm", 0.0))
    }
    result = dependence(diffs)
    frame = result.to_frame()
    assert list(frame.columns) == ["task_a", "task_b", "correlation", "shared_items"]
    assert list(zip(frame["task_a"], frame["task_b"], strict=True)) == [
        ("arc", HOSTILE),
        ("arc", "gsm"),
        (HOSTILE, "gsm"),
    ]
    d = result.to_dict()
    expected = [d["correlation"][i][j] for i, j in ((0, 1), (0, 2), (1, 2))]
    assert frame["correlation"].tolist() == expected
    assert frame["shared_items"].tolist() == [30, 30, 30]
    _assert_types(frame, correlation="float", shared_items="int")
    _assert_safe_markdown(result._repr_markdown_())


# --- leaderboards ------------------------------------------------------------------------


def _scores(names: Sequence[str], seed: int, n: int = 300) -> Any:
    from evalsig.data import load
    from evalsig.data.models import model_scores

    rng = np.random.default_rng(seed)
    tables = {
        name: load({f"q{i}": int(rng.random() < 0.45 + 0.03 * k) for i in range(n)}, name=name)
        for k, name in enumerate(names)
    }
    return model_scores(tables)


NAMES = (HOSTILE, "pipe | and `tick`", "base", "m3", "m4", "m5")


def test_leaderboard_frame_matches_to_dict() -> None:
    from evalsig.leaderboard import leaderboard

    board = leaderboard(_scores(NAMES, 4), n_resamples=50, rng=5)
    frame = board.to_frame()
    d = board.to_dict()
    keys = ["rank", "model", "score", "score_low", "score_high", "n_items", "n_input", "group"]
    keys += ["rank_low", "rank_high", "bootstrap_rank_low", "bootstrap_rank_high"]
    assert list(frame.columns) == keys
    _assert_rows(frame, d["rows"], {k: k for k in keys})
    _assert_types(frame, rank="int", model="text", score="float", group="int", rank_low="int")
    _assert_types(frame, bootstrap_rank_high="int", n_items="int", n_input="int")
    _assert_types(frame, score_low="float", score_high="float")
    plain = leaderboard(_scores(NAMES, 4)).to_frame()
    assert "bootstrap_rank_low" not in plain.columns


def test_leaderboard_pairs_frame_is_long_form() -> None:
    from evalsig.leaderboard import leaderboard

    board = leaderboard(_scores(NAMES, 6))
    pairs = board.pairs_frame()
    m = len(NAMES)
    assert len(pairs) == m * (m - 1) // 2
    assert list(pairs.columns) == ["model_a", "model_b", "difference", "pvalue", "p_adjusted"]
    d = board.to_dict()
    position = {name: i for i, name in enumerate(board.models)}
    for row in pairs.itertuples(index=False):
        i, j = position[row.model_a], position[row.model_b]
        assert i < j
        assert row.difference == d["difference"][i][j]
        assert row.pvalue == d["pvalue"][i][j]
        assert row.p_adjusted == d["p_adjusted"][i][j]
    _assert_types(pairs, model_a="text", model_b="text", difference="float", p_adjusted="float")


def test_leaderboard_markdown_and_html_escape_model_names() -> None:
    from evalsig.leaderboard import leaderboard

    board = leaderboard(_scores(NAMES, 7))
    text = board._repr_markdown_()
    _assert_safe_markdown(text)
    assert "a\\|b &lt;script&gt;alert(1)&lt;/script&gt; \\`x\\`" in text
    html = board._repr_html_()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_task_leaderboards_stack_the_tasks() -> None:
    from evalsig.leaderboard import leaderboard_tasks

    names = ("x", "y", "z")
    result = leaderboard_tasks({"arc": _scores(names, 8), HOSTILE: _scores(names, 9)})
    frame = result.to_frame()
    assert frame.columns[0] == "task"
    assert frame["task"].tolist() == ["arc"] * 3 + [HOSTILE] * 3
    assert frame.index.tolist() == list(range(6))
    for task, board in result.tasks.items():
        part = frame[frame["task"] == task].drop(columns="task").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, board.to_frame())
    pairs = result.pairs_frame()
    assert len(pairs) == 6
    assert pairs["task"].tolist() == ["arc"] * 3 + [HOSTILE] * 3
    _assert_types(frame, rank="int", score="float")
    _assert_safe_markdown(result._repr_markdown_())


# --- release gate ------------------------------------------------------------------------


def test_gate_frame_matches_to_dict() -> None:
    from evalsig.release import gate

    rng = np.random.default_rng(10)
    names = ["arc", HOSTILE, "gsm"]
    base = {n: rng.random(200) for n in names}
    cand = {n: v + rng.normal(0.02, 0.05, 200) for n, v in base.items()}
    policy = {
        "name": "ship",
        "tasks": ["arc", HOSTILE, {"name": "gsm", "claim": "non-inferiority", "margin": 0.01}],
    }
    result = gate(base, cand, policy=policy)
    frame = result.to_frame()
    keys = ["task", "claim", "margin", "direction", "threshold", "verdict", "estimate"]
    keys += ["lower_bound", "adjusted_lower_bound", "upper_bound", "pvalue", "p_adjusted"]
    keys += ["reason"]
    assert list(frame.columns) == keys
    rows = [t | {"estimate": t["comparison"]["estimate"]} for t in result.to_dict()["tasks"]]
    _assert_rows(frame, rows, {k: k for k in keys})
    _assert_types(frame, task="text", margin="float", threshold="float", pvalue="float")
    assert frame["threshold"].tolist() == [0.0, 0.0, -0.01]
    _assert_safe_markdown(result._repr_markdown_())


# --- meta-analysis -----------------------------------------------------------------------


def test_random_effects_frame_has_reports_and_the_summary_in_attrs() -> None:
    from evalsig.meta import random_effects

    y = [0.61, 0.64, 0.58, 0.66, 0.6]
    v = [0.0004, 0.0009, 0.0002, 0.0006, 0.0003]
    result = random_effects(y, v, labels=[HOSTILE, "b", "c", "d", "e"])
    frame = result.to_frame()
    d = result.to_dict()
    assert list(frame.columns) == ["label", "estimate", "se", "weight"]
    _assert_rows(frame, d["reports"], {k: k for k in frame.columns})
    assert frame["weight"].sum() == pytest.approx(100.0, rel=1e-12)
    attrs = frame.attrs
    assert attrs["mu"] == d["mu"]
    assert (attrs["ci_low"], attrs["ci_high"]) == (d["ci"]["low"], d["ci"]["high"])
    pi = d["prediction_interval"]
    assert (attrs["pi_low"], attrs["pi_high"]) == (pi["low"], pi["high"])
    for key in ("se", "pvalue", "tau2", "i2", "q", "q_pvalue", "k", "method", "test"):
        assert attrs[key] == d[key], key
    _assert_types(frame, label="text", estimate="float", se="float", weight="float")
    _assert_safe_markdown(result._repr_markdown_())


def test_one_report_gives_nan_where_the_json_has_null() -> None:
    from evalsig.meta import random_effects

    frame = random_effects([0.5], [0.01]).to_frame()
    assert len(frame) == 1
    assert math.isnan(frame.attrs["tau2"])
    assert math.isnan(frame.attrs["pi_low"])


REPORTS = [
    {"model": model, "benchmark": bench, "source": f"paper {k}", "score": s, "n": 1000}
    for bench in ("mmlu", "gsm8k")
    for model, base in ((HOSTILE, 0.7), ("base", 0.6), ("other", 0.64))
    for k, s in enumerate(base + np.random.default_rng(11).normal(0, 0.02, 4))
] + [{"model": "solo", "benchmark": "mmlu", "source": "one", "score": 0.5, "n": 1000}]


def test_synthesis_frames_match_to_dict() -> None:
    from evalsig.meta import synthesize

    result = synthesize(REPORTS, n_resamples=100, rng=12)
    d = result.to_dict()
    frame = result.to_frame()
    assert len(frame) == len(d["cells"]) == 7
    cells = [
        c
        | {
            "ci_low": c["ci"]["low"],
            "ci_high": c["ci"]["high"],
            "pi_low": c["prediction_interval"]["low"],
            "pi_high": c["prediction_interval"]["high"],
            "egger_pvalue": None if c["egger"] is None else c["egger"]["pvalue"],
            "synthesized_half_width": None
            if c["bootstrap"] is None
            else c["bootstrap"]["synthesized_half_width"],
            "single_report_half_width": None
            if c["bootstrap"] is None
            else c["bootstrap"]["single_report_half_width"],
        }
        for c in d["cells"]
    ]
    _assert_rows(frame, cells, {k: k for k in frame.columns})
    assert frame["synthesized_half_width"].notna().sum() == 6  # the solo cell has no bootstrap
    _assert_types(frame, model="text", k="int", mu="float", converged="bool", i2="float")
    board = result.leaderboard_frame()
    rows = [{"benchmark": b["benchmark"]} | r for b in d["leaderboards"] for r in b["rows"]]
    _assert_rows(board, rows, {k: k for k in board.columns})
    assert list(board.columns) == [
        "benchmark", "rank", "model", "mu", "ci_low", "ci_high", "k", "max_reported", "rank_max"
    ]  # fmt: skip
    _assert_types(board, rank="int", rank_max="int", k="int", mu="float")
    _assert_safe_markdown(result._repr_markdown_())


def test_meta_regression_frame_is_the_coefficients() -> None:
    from evalsig.meta import meta_regression

    rng = np.random.default_rng(13)
    flag = np.array([0, 1] * 6)
    y = 0.6 + 0.03 * flag + rng.normal(0, 0.01, 12)
    result = meta_regression(y, np.full(12, 1e-4), flag)
    frame = result.to_frame()
    d = result.to_dict()
    assert frame["term"].tolist() == ["intercept", "slope"]
    assert frame["estimate"].tolist() == [d["intercept"], d["slope"]]
    assert frame["se"].tolist() == [d["intercept_se"], d["slope_se"]]
    assert frame["ci_low"].tolist() == [d["intercept_ci"]["low"], d["slope_ci"]["low"]]
    assert frame["ci_high"].tolist() == [d["intercept_ci"]["high"], d["slope_ci"]["high"]]
    for key in ("statistic", "pvalue", "tau2", "q_residual", "q_residual_df", "k", "method"):
        assert frame.attrs[key] == d[key], key


def test_trim_and_fill_frame_is_the_imputed_reports() -> None:
    from evalsig.meta import trim_and_fill

    y = [0.1, 0.15, 0.2, 0.22, 0.3, 0.35, 0.5, 0.6, 0.7, 0.8]
    v = [0.001, 0.002, 0.002, 0.003, 0.004, 0.006, 0.01, 0.015, 0.02, 0.03]
    result = trim_and_fill(y, v)
    frame = result.to_frame()
    d = result.to_dict()
    assert result.k0 > 0
    _assert_rows(frame, d["filled"], {"estimate": "estimate", "se": "se"})
    assert frame.attrs["k0"] == d["k0"]
    assert frame.attrs["adjusted_mu"] == d["adjusted_mu"]
    _assert_types(frame, estimate="float", se="float")


# --- audits ------------------------------------------------------------------------------


def test_audit_frame_matches_to_dict() -> None:
    from evalsig.audit import audit
    from evalsig.simulate import MixtureDesign

    result = audit(MixtureDesign(n_items=200, n_runs=3, uplift=0.02), n_simulations=20, rng=1)
    frame = result.to_frame()
    rows = result.to_dict()["methods"]
    assert len(frame) == len(rows) == len(result.methods)
    _assert_rows(frame, rows, {k: k for k in frame.columns})
    assert frame.columns[:4].tolist() == ["name", "label", "category", "n_simulations"]
    _assert_types(frame, name="text", n_simulations="int", power_hits="int", power="float")
    _assert_types(frame, false_positive_se="float", coverage="float", analytical_power="float")
    _assert_safe_markdown(result._repr_markdown_())


def test_claim_audit_frame_lists_the_candidates() -> None:
    from evalsig.audit import audit_claim
    from evalsig.simulate import simulate_models

    sim = simulate_models(rng=20260504)
    result = audit_claim(sim.baseline, sim.finetune, half_width=0.002, n_resamples=30)
    frame = result.to_frame()
    rows = result.to_dict()["candidates"]
    keys = ["name", "label", "honest", "causes", "se", "ratio", "matches", "resamples"]
    assert list(frame.columns) == keys
    _assert_rows(frame, rows, {k: k for k in keys})
    assert all(isinstance(c, tuple) for c in frame["causes"])
    _assert_types(frame, honest="bool", matches="bool", se="float", resamples="float")
    _assert_safe_markdown(result._repr_markdown_())


# --- power -------------------------------------------------------------------------------


def test_power_curve_frame() -> None:
    from evalsig.power import power_analysis

    result = power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57)
    frame = result.to_frame()
    curve = result.to_dict()["curve"]
    assert list(frame.columns) == ["n", "power"]
    assert frame["n"].tolist() == [n for n, _ in curve]
    assert frame["power"].tolist() == [p for _, p in curve]
    _assert_types(frame, n="int", power="float")
    _assert_safe_markdown(result._repr_markdown_())


def test_runs_tradeoff_frame_marks_undetectable_effects() -> None:
    from evalsig.power import runs_tradeoff

    result = runs_tradeoff(0.01, 0.2, 0.3)
    frame = result.to_frame()
    rows = result.to_dict()["rows"]
    _assert_rows(frame, rows, {k: k for k in ("runs", "n_required", "n_items", "evaluations")})
    assert str(frame["n_items"].dtype) == "Int64"
    _assert_types(frame, runs="int", n_required="float", evaluations="float")
    never = runs_tradeoff(0.0, 0.2, 0.3).to_frame()
    assert np.isposinf(never["n_required"]).all()
    assert never["n_items"].isna().all()


def test_benchmark_resolution_frame_matches_to_dict() -> None:
    from evalsig.power import benchmark_resolution

    result = benchmark_resolution(_scores(NAMES, 14), pairs="all")
    frame = result.to_frame()
    rows = result.to_dict()["pairs"]
    assert len(frame) == len(rows) == 15
    _assert_rows(frame, rows, {k: k for k in frame.columns})
    assert str(frame["resolved_clustered"].dtype) == "boolean"
    assert frame["resolved_clustered"].isna().all()  # no clusters
    _assert_types(frame, baseline="text", n_items="int", resolved="bool", q="float")
    _assert_types(frame, p01="float", design_effect="float", resolved_family="bool")
    _assert_safe_markdown(result._repr_markdown_())


# --- simulation, sequential, store -------------------------------------------------------


def test_simulation_frames_match_to_dict() -> None:
    from evalsig.simulate import simulation_report

    result = simulation_report(rng=3, n_simulations=0)
    d = result.to_dict()
    models = result.to_frame()
    _assert_rows(models, d["models"], {k: k for k in models.columns})
    _assert_types(models, name="text", per_run_sd="float", consistency="float")
    pairs = result.pairs_frame()
    rows = [
        p | {f"{t}_{k}": p[t][key] for t in ("mcnemar", "paired_t") for k, key in
             (("estimate", "estimate"), ("ci_low", "low"), ("ci_high", "high"),
              ("pvalue", "pvalue"))}
        for p in d["pairs"]
    ]  # fmt: skip
    _assert_rows(pairs, rows, {k: k for k in pairs.columns})
    assert pairs["icc_differences"].isna().all()
    _assert_safe_markdown(result._repr_markdown_())


def test_sequential_frame_is_the_whole_path() -> None:
    from evalsig.sequential import SequentialMonitor, confidence_sequence

    rng = np.random.default_rng(15)
    d = rng.choice([-1.0, 0.0, 1.0], 3000, p=[0.06, 0.86, 0.08])
    result = confidence_sequence(d)
    frame = result.to_frame()
    assert len(frame) == 3000  # to_dict() keeps about 400 points
    assert len(result.to_dict()["path"]["n"]) < 3000
    assert frame["n"].tolist() == list(range(1, 3001))
    assert result.path is not None
    np.testing.assert_array_equal(frame["lower"], result.path.lower)
    np.testing.assert_array_equal(frame["estimate"], np.cumsum(d) / np.arange(1, 3001))
    _assert_types(frame, n="int", estimate="float", lower="float", upper="float")
    last = frame.iloc[-1]
    assert (last["lower"], last["upper"]) == (result.lower, result.upper)
    monitor = SequentialMonitor()
    state = monitor.update(d[:100])
    with pytest.raises(DataError, match=r"monitor\.result\(\)"):
        state.to_frame()
    assert len(monitor.result().to_frame()) == 1
    _assert_safe_markdown(result._repr_markdown_())


def test_store_frames(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    from evalsig.store import ResultsStore

    path = tmp_path / "long.csv"
    models = ("small", HOSTILE.replace("\r\n", " "), "large")
    rows = [f'"{m}",q{i},{int((i + j) % 3 == 0)}' for j, m in enumerate(models) for i in range(9)]
    path.write_text("model,id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with ResultsStore(tmp_path / "r.duckdb") as store:
        report = store.ingest(path, model_column="model", task="arith")
        again = store.ingest(path, model_column="model", task="arith")
        contents = store.contents()
    frame = report.to_frame()
    assert frame["models"].tolist() == [models]
    assert frame["n_rows"].tolist() == [27]
    _assert_types(frame, path="text", status="text", n_rows="int")
    _assert_rows(frame, report.to_dict()["sources"], {k: k for k in frame.columns})
    skipped = again.to_frame()
    assert skipped["status"].tolist() == ["skipped"]
    assert skipped["duplicate_of"].notna().all()
    _assert_safe_markdown(report._repr_markdown_())
    (task,) = contents
    stored = task.to_frame()
    assert stored["model"].tolist() == [m.name for m in task.models]
    assert set(stored["task"]) == {"arith"}
    assert stored["n_items"].tolist() == [9, 9, 9]
    _assert_types(stored, n_items="int", n_scores="int", min_runs="int", max_runs="int")


# --- without pandas, start-up, scoped styles ---------------------------------------------


def test_without_pandas_the_error_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalsig.inference import holm

    result = holm([0.01, 0.2])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'evalsig-stats[columnar]'")):
        result.to_frame()
    assert "| raw p | adjusted p |" in result._repr_markdown_()  # markdown needs no pandas


def test_import_evalsig_and_markdown_do_not_load_pandas() -> None:
    code = (
        "import sys, evalsig\n"
        "from evalsig.inference import holm\n"
        "holm({'a': 0.01, 'b': 0.2})._repr_markdown_()\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_fragment_styles_are_scoped_to_their_wrapper() -> None:
    from evalsig.power import power_analysis
    from evalsig.report.html import FRAGMENT_CLASS

    html = power_analysis(p01=0.075, p10=0.065, n=4000)._repr_html_()
    assert html.startswith(f'<div class="{FRAGMENT_CLASS}"><style>')
    (css,) = re.findall(r"<style>(.*?)</style>", html, flags=re.DOTALL)
    css = re.sub(r"@media[^{]*\{", "", css)  # the rules inside @media blocks are checked too
    selectors = [s.strip() for head in re.findall(r"([^{}]+)\{", css) for s in head.split(",")]
    assert selectors
    scope = f".{FRAGMENT_CLASS}"
    assert all(s == scope or s.startswith(scope + " ") for s in selectors), selectors
    assert not any(re.search(r"\b(body|html|h1|nav|footer)\b|:root", s) for s in selectors)


def test_markdown_text_keeps_one_row_per_line() -> None:
    from evalsig.report.markdown import markdown_table

    text = markdown_table(HOSTILE, ["name", "value"], [[HOSTILE, "1"], ["", "2"]], notes=[HOSTILE])
    _assert_safe_markdown(text)
    lines = text.splitlines()
    assert lines[0].startswith("### a\\|b")
    assert len([line for line in lines if line.startswith("|")]) == 4
    assert lines[-1].startswith("- note: a\\|b &lt;script&gt;")
    assert "\\[z\\](http://e.invalid)" in text  # the link stays text


def test_single_results_have_markdown_beside_html() -> None:
    from evalsig.power import mcnemar_sample_size, resolution_from_rates

    for result in (resolution_from_rates(4000, 0.075, 0.065), mcnemar_sample_size(0.075, 0.065)):
        text = result._repr_markdown_()
        _assert_safe_markdown(text)
        assert text.startswith("### ")
        assert "| Items needed (N\\*) |" in text
