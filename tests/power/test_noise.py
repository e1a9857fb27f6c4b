"""Benchmark noise diagnostics: variance components against REML and a plain-loop ANOVA,
unbiasedness by simulation, the signal-to-noise ratio of Heineman et al. (2025), the MDE,
design options, renderings and the JSON schema."""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from evalsig.data import load
from evalsig.data.models import load_models
from evalsig.errors import DataError
from evalsig.power import minimum_detectable_effect
from evalsig.power.noise import benchmark_noise

HOSTILE = "<script>alert(1)</script>|`x`"


def _simulate(
    rng: np.random.Generator,
    *,
    n_models: int = 3,
    n_items: int = 60,
    runs: int | np.ndarray = 3,
    s_item: float = 1.0,
    s_run: float = 1.0,
    shift: float = 0.3,
) -> dict[str, Any]:
    """Normal scores: model shift + item effect + run noise. Ragged ``runs`` (one count per
    item) gives ``{item_id: [run scores]}`` mappings, else ``runs x items`` arrays."""
    out: dict[str, Any] = {}
    for k in range(n_models):
        items = rng.normal(0.0, s_item, n_items) + shift * k + 5.0
        if isinstance(runs, np.ndarray):
            out[f"m{k}"] = {
                f"q{i}": list(items[i] + rng.normal(0.0, s_run, int(r))) for i, r in enumerate(runs)
            }
        else:
            out[f"m{k}"] = items[None, :] + rng.normal(0.0, s_run, (runs, n_items))
    return out


def _loop_anova(runs_of_items: list[list[float]]) -> tuple[float, float]:
    """The one-way random-effects moment estimators, item by item and run by run."""
    means = [sum(r) / len(r) for r in runs_of_items]
    ssw = sum(sum((y - m) ** 2 for y in r) for r, m in zip(runs_of_items, means, strict=True))
    dfw = sum(len(r) - 1 for r in runs_of_items)
    s_run = ssw / dfw
    grand = sum(means) / len(means)
    var_means = sum((m - grand) ** 2 for m in means) / (len(means) - 1)
    inverse = sum(1 / len(r) for r in runs_of_items) / len(runs_of_items)
    return var_means - s_run * inverse, s_run


# --- oracles -----------------------------------------------------------------------------


def test_components_match_statsmodels_reml_on_balanced_data() -> None:
    pytest.importorskip("statsmodels")
    import pandas as pd
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(11)
    models = _simulate(rng, n_items=80, runs=4, s_item=0.8, s_run=1.2)
    result = benchmark_noise(models)
    for row in result.models:
        matrix = models[row.model]
        frame = pd.DataFrame(
            {
                "y": matrix.T.ravel(),
                "item": np.repeat(np.arange(matrix.shape[1]), matrix.shape[0]),
            }
        )
        # statsmodels 0.15: MixedLM(y ~ 1, groups=item), REML (the default)
        fit = smf.mixedlm("y ~ 1", frame, groups=frame["item"]).fit(reml=True)
        assert row.item_variance == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-4)
        assert row.run_variance == pytest.approx(float(fit.scale), rel=1e-4)
        assert row.mean == pytest.approx(float(fit.fe_params.iloc[0]), rel=1e-9)


def test_components_match_a_plain_loop_anova_with_ragged_runs() -> None:
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 6, 70)
    models = _simulate(rng, n_items=70, runs=counts)
    result = benchmark_noise(models)
    raw = []
    for row in result.models:
        per_item = list(models[row.model].values())
        item, run = _loop_anova(per_item)
        raw.append(item)
        assert row.run_variance == pytest.approx(run, rel=1e-12)
        assert row.item_variance == pytest.approx(max(item, 0.0), rel=1e-12, abs=1e-15)
        assert row.runs == pytest.approx(float(counts.mean()))
        assert row.noise_sd == pytest.approx(math.sqrt(run / 70), rel=1e-12)
    assert result.item_variance == pytest.approx(max(float(np.mean(raw)), 0.0), rel=1e-12)
    assert result.run_variance == pytest.approx(
        float(np.mean([r.run_variance for r in result.models])), rel=1e-12
    )


@pytest.mark.parametrize("ragged", [False, True])
def test_components_are_unbiased(ragged: bool) -> None:
    """Seeded Monte Carlo (600 estimates of each): means within 4 Monte Carlo SEs of the truth."""
    rng = np.random.default_rng(2024 + ragged)
    s_item2, s_run2 = 1.5, 1.0
    runs: int | np.ndarray = rng.integers(2, 6, 60) if ragged else 3
    items, noise = [], []
    for _ in range(120):
        result = benchmark_noise(
            _simulate(
                rng, n_models=5, n_items=60, runs=runs, s_item=s_item2**0.5, s_run=s_run2**0.5
            ),
            runs=(1,),
            items=(60,),
        )
        assert not any(m.truncated for m in result.models)
        items += [m.item_variance for m in result.models]
        noise += [m.run_variance for m in result.models]
    for estimates, truth in ((items, s_item2), (noise, s_run2)):
        values = np.array(estimates, dtype=float)
        mc_se = values.std(ddof=1) / math.sqrt(len(values))
        assert abs(values.mean() - truth) < 4 * mc_se


def test_noise_sd_is_the_run_to_run_sd_of_a_benchmark_score() -> None:
    """Many runs of fixed items: the SD of one run's score is sqrt(s_run^2 / N)."""
    rng = np.random.default_rng(3)
    n = 200
    models = _simulate(rng, n_models=2, n_items=n, runs=400, s_run=0.7)
    result = benchmark_noise(models)
    for row in result.models:
        per_run_scores = models[row.model].mean(axis=1)
        assert row.noise_sd == pytest.approx(float(per_run_scores.std(ddof=1)), rel=0.08)
        assert row.noise_sd == pytest.approx(0.7 / math.sqrt(n), rel=0.03)


def test_signal_noise_and_snr_follow_heineman_et_al() -> None:
    rng = np.random.default_rng(8)
    models = _simulate(rng, n_models=4, n_items=300, runs=2, shift=0.05)
    result = benchmark_noise(models)
    m = np.array([row.mean for row in result.models])
    # snr/metrics.py of allenai/signal-and-noise: max_{j,k} |m_j - m_k| / mean
    dispersion = max(abs(a - b) for a in m for b in m)
    assert result.signal == pytest.approx(dispersion / m.mean(), rel=1e-12)
    noise_sd = math.sqrt(np.mean([r.run_variance for r in result.models]) / 300)
    assert result.noise == pytest.approx(noise_sd / m.mean(), rel=1e-12)
    assert result.snr == pytest.approx(result.signal / result.noise, rel=1e-12)
    assert result.sd_means == pytest.approx(float(np.std(m, ddof=1)))


def test_mde_reuses_the_paired_mde_with_the_pooled_paired_sd() -> None:
    rng = np.random.default_rng(9)
    models = _simulate(rng, n_models=4, n_items=120, runs=2)
    result = benchmark_noise(models, alpha=0.01, power=0.9)
    item_means = [models[f"m{k}"].mean(axis=0) for k in range(4)]
    pair_vars = [
        np.var(item_means[a] - item_means[b], ddof=1) for a in range(4) for b in range(a + 1, 4)
    ]
    assert result.sd_paired == pytest.approx(math.sqrt(np.mean(pair_vars)), rel=1e-10)
    expected = minimum_detectable_effect(120, sd=result.sd_paired, alpha=0.01, power=0.9)
    assert result.mde == pytest.approx(expected, rel=1e-12)


def test_design_options_and_tradeoff_are_consistent_with_the_current_design() -> None:
    rng = np.random.default_rng(10)
    models = _simulate(rng, n_models=3, n_items=400, runs=4, s_item=0.5, s_run=2.0)
    result = benchmark_noise(models, runs=(1, 4, 16), items=(400, 1600))
    a, b = result.item_variance, result.run_variance
    assert b is not None
    options = {(o.n_items, o.runs): o for o in result.options}
    assert sorted(options) == [(400, 1), (400, 4), (400, 16), (1600, 1), (1600, 4), (1600, 16)]
    for (n, r), o in options.items():
        assert o.se == pytest.approx(math.sqrt(a / n + b / (n * r)), rel=1e-12)
        assert o.evaluations == n * r
    # balanced and untruncated: the pooled SE at the current design is the models' RMS SE
    rms = math.sqrt(np.mean([m.se**2 for m in result.models]))
    assert options[(400, 4)].se == pytest.approx(rms, rel=1e-10)
    assert options[(400, 4)].mde == pytest.approx(result.mde, rel=1e-9)
    # the runs trade-off at the current runs needs the current items to resolve the MDE
    assert result.tradeoff is not None
    assert result.tradeoff.n_required[1] == pytest.approx(400, rel=1e-6)
    assert result.tradeoff.n_required[0] > 400 > result.tradeoff.n_required[2]

    # per model call: one more item (4 calls) against one more run of every item (400 calls)
    def se(n: float, r: float) -> float:
        return math.sqrt(a / n + b / (n * r))

    assert result.gain_per_item == pytest.approx((se(400, 4) - se(401, 4)) / 4, rel=1e-9)
    assert result.gain_per_run == pytest.approx((se(400, 4) - se(400, 5)) / 400, rel=1e-9)
    assert result.better == "items"
    assert result.gain_per_item / result.gain_per_run > 1 + a * 4 / b


def test_items_win_by_less_when_run_noise_dominates() -> None:
    """Items give more per call either way; their lead shrinks as s_run^2 outgrows s_item^2."""
    rng = np.random.default_rng(12)
    leads = []
    for s_item, s_run in ((1.0, 0.5), (0.05, 3.0)):
        result = benchmark_noise(_simulate(rng, n_items=100, runs=2, s_item=s_item, s_run=s_run))
        assert result.better == "items"
        assert result.gain_per_item is not None
        assert result.gain_per_run is not None
        leads.append(result.gain_per_item / result.gain_per_run)
    assert leads[0] > 3 * leads[1] > 3


# --- degenerate cases, inputs and errors --------------------------------------------------


def test_negative_item_component_is_truncated_with_a_note() -> None:
    base = np.array([[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]])  # every item mean 2/3 or 1/3?
    same = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 1, 1]])  # every item mean 2/3
    result = benchmark_noise({"a": same, "b": base})
    a = result.models[0]
    assert a.truncated
    assert a.item_variance == 0.0
    assert any("model 'a'" in n and "set to 0" in n for n in result.notes)
    assert result.to_dict()["models"][0]["truncated"] is True


def test_single_run_models_have_no_run_component() -> None:
    rng = np.random.default_rng(1)
    scores = {f"m{k}": (rng.random(300) < 0.5 + 0.05 * k).astype(int) for k in range(3)}
    result = benchmark_noise(scores)
    assert result.run_variance is None
    assert result.noise is None
    assert result.snr is None
    assert result.options == ()
    assert result.tradeoff is None
    assert result.better is None
    assert result.models[0].item_variance == pytest.approx(np.var(scores["m0"], ddof=1))
    doc = result.to_dict()
    assert "one run per item" in doc["nulls"]["snr"]
    assert any("one run per item" in n for n in doc["notes"])
    assert doc["mde"] == pytest.approx(result.mde)
    assert result.mde > 0


def test_model_scores_keep_only_means_and_say_so() -> None:
    rng = np.random.default_rng(2)
    models = _simulate(rng, n_items=50, runs=3)
    scores = load_models(models)
    result = benchmark_noise(scores)
    assert result.run_variance is None
    assert any("only per-item means" in n for n in result.notes)
    full = benchmark_noise(models)
    assert [m.mean for m in result.models] == pytest.approx([m.mean for m in full.models])
    assert result.mde == pytest.approx(full.mde, rel=1e-12)


def test_items_are_aligned_by_id_not_position() -> None:
    rng = np.random.default_rng(4)
    models = _simulate(rng, n_items=30, runs=np.full(30, 3))
    shuffled = {name: dict(reversed(list(items.items()))) for name, items in models.items()}
    shuffled["m1"] = dict(sorted(models["m1"].items(), key=lambda kv: kv[1][0]))
    a, b = benchmark_noise(models), benchmark_noise(shuffled)
    for x, y in zip(a.models, b.models, strict=True):
        assert x.item_variance == pytest.approx(y.item_variance, rel=1e-12)
        assert x.run_variance == pytest.approx(y.run_variance, rel=1e-12)
    assert a.sd_paired == pytest.approx(b.sd_paired, rel=1e-12)


def test_score_tables_and_long_tables_are_accepted(tmp_path: Any) -> None:
    rng = np.random.default_rng(6)
    models = _simulate(rng, n_items=20, runs=2)
    tables = {name: load(matrix, name=name) for name, matrix in models.items()}
    rows = ["model,item,run,score"]
    for name, matrix in models.items():
        rows += [f"{name},q{i},{r},{float(matrix[r, i])!r}" for r in range(2) for i in range(20)]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    expected = benchmark_noise(models)
    for given in (tables, str(path)):
        result = benchmark_noise(given)
        assert [m.run_variance for m in result.models] == pytest.approx(
            [m.run_variance for m in expected.models], rel=1e-12
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": ()}, "`runs` is empty"),
        ({"runs": (0,)}, "`runs` must be a positive integer"),
        ({"items": (1,)}, "`items` must be integers of at least 2"),
        ({"items": (2.5,)}, "`items` must be a positive integer"),
        ({"alpha": 0.7}, "`alpha`"),
        ({"power": 1.0}, "`power`"),
    ],
)
def test_bad_options_are_errors(kwargs: dict[str, Any], message: str) -> None:
    models = {"a": np.ones((2, 5)), "b": np.zeros((2, 5))}
    with pytest.raises(DataError, match=message):
        benchmark_noise(models, **kwargs)


def test_bad_inputs_are_errors() -> None:
    with pytest.raises(DataError, match="`models` is a int"):
        benchmark_noise(3)
    with pytest.raises(DataError, match="at least 2 models"):
        benchmark_noise({"a": np.ones((2, 5))})


# --- outputs ------------------------------------------------------------------------------


def _validator() -> Draft202012Validator:
    text = (
        resources.files("evalsig.report") / "schemas" / "benchmark-noise.schema.json"
    ).read_text()
    return Draft202012Validator(json.loads(text))


def test_to_dict_is_strict_json_and_matches_the_schema() -> None:
    rng = np.random.default_rng(7)
    with_runs = benchmark_noise(_simulate(rng, n_items=40, runs=3))
    single = benchmark_noise({"a": np.array([1, 0, 1, 1]), "b": np.array([1, 1, 1, 1])})
    zero_noise = benchmark_noise({"a": np.ones((2, 4)), "b": np.zeros((2, 4))})
    nothing = benchmark_noise({"a": np.ones((2, 4)), "b": np.ones((2, 4))})
    for result in (with_runs, single, zero_noise, nothing):
        doc = result.to_dict()
        json.dumps(doc, allow_nan=False)
        _validator().validate(doc)
        assert doc["kind"] == "benchmark-noise"
    # no run-to-run noise: the SNR is undefined (not infinite), and so is the MDE
    assert zero_noise.snr is not None
    assert math.isnan(zero_noise.snr)
    assert zero_noise.to_dict()["snr"] is None
    assert zero_noise.to_dict()["nulls"]["snr"].startswith("undefined: the scores do not vary")
    assert zero_noise.to_dict()["mde"] is None
    assert nothing.snr is not None
    assert math.isnan(nothing.snr)
    assert nothing.to_dict()["nulls"]["snr"].startswith("undefined: the scores do not vary")
    assert nothing.tradeoff is None


def test_frames_hold_the_same_numbers() -> None:
    pytest.importorskip("pandas")
    rng = np.random.default_rng(7)
    result = benchmark_noise(_simulate(rng, n_items=40, runs=3))
    frame = result.to_frame()
    doc = result.to_dict()
    assert list(frame["model"]) == [m["model"] for m in doc["models"]]
    assert frame["run_variance"].tolist() == [m["run_variance"] for m in doc["models"]]
    assert frame.attrs["mde"] == doc["mde"]
    options = result.options_frame()
    assert options["se"].tolist() == [o["se"] for o in doc["options"]]


def test_renderings_escape_model_names() -> None:
    rng = np.random.default_rng(7)
    models = _simulate(rng, n_items=40, runs=3)
    models[HOSTILE] = models.pop("m2")
    result = benchmark_noise(models)
    html = result._repr_html_()
    assert "<script>alert" not in html
    assert "&lt;script&gt;" in html
    assert "Benchmark noise" in html
    assert "<svg" in html
    markdown = result._repr_markdown_()
    assert "<script>" not in markdown
    assert r"\|" in markdown
    text = str(result)
    assert HOSTILE in text
    assert "Design options" in text
    assert "add items" in text
