"""``evalsig.score``: routing and reasons at each data shape, golden values, inputs, errors,
and every rendering of the result (JSON against its schema, markdown, HTML, frames).

Golden values come from the reference implementations called beside ours: scipy's
``binomtest(k, n).proportion_ci`` and ``ttest_1samp(...).confidence_interval``, the Beta
posterior's quantiles (``scipy.stats.beta``), and evalsig's own tested paired tests
(``cluster_robust``, ``bootstrap``) on the same numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from scipy import stats

import evalsig
from evalsig import DataError, load
from evalsig.inference import bootstrap, cluster_robust
from evalsig.score import WILSON_FROM, ScoreResult, VarianceComponents, score

SCHEMA = Path(__file__).parents[1] / "src" / "evalsig" / "report" / "schemas" / "score.schema.json"
HOSTILE = "<script>alert(1)</script> | `x` *y*"


def _binary(n: int, k: int) -> np.ndarray:
    """n items of one run, the first k right."""
    data = np.zeros(n, dtype=np.int8)
    data[:k] = 1
    return data


def _runs(n_items: int = 200, n_runs: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.beta(1.5, 1.0, n_items)
    return (rng.random((n_runs, n_items)) < p).astype(np.int8)


def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _strict_json(result: ScoreResult) -> dict[str, Any]:
    document = result.to_dict()
    text = json.dumps(document, allow_nan=False)
    parsed: dict[str, Any] = json.loads(text)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(parsed)]
    assert not errors, errors
    return parsed


# --- routing and reasons -------------------------------------------------------------------


def test_one_run_of_binary_scores_below_the_switch_is_clopper_pearson() -> None:
    result = score(_binary(120, 66))
    assert result.method == "clopper-pearson"
    assert result.method_reason.startswith(
        "small sample: asymptotic intervals under-cover below N=1,000 "
    )
    assert "one run of 0/1 scores on 120 items: Clopper-Pearson exact interval" in (
        result.method_reason
    )
    expected = stats.binomtest(66, 120).proportion_ci(method="exact")
    assert result.ci.low == pytest.approx(expected.low, abs=1e-10)
    assert result.ci.high == pytest.approx(expected.high, abs=1e-10)
    assert (result.estimate, result.n_correct, result.n_items, result.n_runs) == (0.55, 66, 120, 1)
    assert result.se == pytest.approx(math.sqrt(0.55 * 0.45 / 120))
    assert (result.df, result.variance, result.prior, result.n_clusters) == (None, None, None, None)
    assert result.percent_scale


def test_one_run_of_binary_scores_from_the_switch_is_wilson() -> None:
    result = score(_binary(WILSON_FROM, 713))
    assert result.method == "wilson"
    assert result.method_reason == "one run of 0/1 scores on 1,000 items: Wilson score interval"
    expected = stats.binomtest(713, WILSON_FROM).proportion_ci(method="wilson")
    assert result.ci.low == pytest.approx(expected.low, abs=1e-12)
    assert result.ci.high == pytest.approx(expected.high, abs=1e-12)
    assert score(_binary(WILSON_FROM - 1, 713)).method == "clopper-pearson"


def test_several_runs_give_the_t_interval_on_item_means() -> None:
    runs = _runs()
    result = score(runs)
    assert result.method == "t"
    assert result.method_reason == (
        "several runs per item (4 runs): t interval on per-item means, with items as the "
        "independent units"
    )
    means = runs.mean(axis=0)
    expected = stats.ttest_1samp(means, 0.0).confidence_interval(0.95)
    assert result.ci.low == pytest.approx(expected.low, abs=1e-12)
    assert result.ci.high == pytest.approx(expected.high, abs=1e-12)
    assert result.estimate == pytest.approx(means.mean(), abs=1e-15)
    assert result.se == pytest.approx(stats.sem(means), rel=1e-12)
    assert (result.df, result.n_runs, result.n_correct) == (199.0, 4, None)


def test_continuous_single_run_gives_the_t_interval() -> None:
    values = np.random.default_rng(1).gamma(2.0, 0.2, 80)
    result = score(values)
    assert (result.method, result.method_reason) == (
        "t",
        "continuous scores: t interval on per-item scores",
    )
    expected = stats.ttest_1samp(values, 0.0).confidence_interval(0.9)
    assert result.confidence_interval(0.9).low == pytest.approx(expected.low, abs=1e-12)
    assert result.confidence_interval(0.9).high == pytest.approx(expected.high, abs=1e-12)
    assert result.variance is None
    assert not score(values * 100).percent_scale


def test_clusters_give_cr2_with_bell_mccaffrey_df() -> None:
    """The example of cluster_robust's documentation: estimate 0.6667, SE 0.1826, df 2.8125."""
    scores = [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1]
    subject = ["a", "a", "a", "b", "b", "b", "b", "c", "c", "d", "d", "d"]
    result = score(scores, cluster=subject)
    assert result.method == "cluster-cr2"
    assert result.method_reason == (
        "items are grouped in 4 clusters: cluster-robust standard error (CR2, "
        "Bell-McCaffrey degrees of freedom) on per-item means"
    )
    assert (round(result.estimate, 4), round(result.se, 4), round(result.df or 0, 4)) == (
        0.6667,
        0.1826,
        2.8125,
    )
    reference = cluster_robust([0] * 12, scores, subject)
    # the same interval, clipped to [0, 1], the range of the scores (noted)
    assert reference.ci.high > 1.0
    assert (result.ci.low, result.ci.high) == (reference.ci.low, 1.0)
    assert any("reached outside [0, 1]" in note for note in result.notes)
    assert result.n_clusters == 4
    assert any("only 4 clusters" in note for note in result.notes)
    assert any("12 items in 4 clusters (sizes 2 to 4)" in note for note in result.notes)


def test_clusters_by_mapping_and_by_column() -> None:
    table = {f"q{i}": i % 3 != 0 for i in range(40)}
    by_id = {f"q{i}": f"s{i % 5}" for i in range(40)}
    mapped = score({k: int(v) for k, v in table.items()}, cluster=by_id)
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {"id": list(table), "score": [int(v) for v in table.values()], "subject": by_id.values()}
    )
    columned = score(frame, cluster="subject")
    assert mapped.method == columned.method == "cluster-cr2"
    assert (mapped.ci.low, mapped.ci.high, mapped.n_clusters) == (
        columned.ci.low,
        columned.ci.high,
        5,
    )


def test_a_method_other_than_cluster_notes_that_it_ignores_the_clusters() -> None:
    result = score(_binary(100, 40), cluster=[i % 10 for i in range(100)], method="wilson")
    assert result.method == "wilson"
    assert result.n_clusters == 10
    assert any("method='wilson' ignores them" in note for note in result.notes)


def test_ragged_runs_weigh_items_equally_and_say_so() -> None:
    data = {"a": [1, 1, 1, 0], "b": [0], "c": [1, 0], "d": [1, 1, 0]}
    result = score(data)
    means = np.array([0.75, 0.0, 0.5, 2 / 3])
    assert result.method == "t"
    assert result.estimate == pytest.approx(means.mean())
    assert any("ragged: 1-4 runs per item" in note for note in result.notes)
    assert "ragged: 1-4 runs per item (mean 2.50)" in result.method_reason
    # pooled run-to-run variance: sum of squared deviations / sum of (runs - 1)
    squares = [sum((x - np.mean(r)) ** 2 for x in r) for r in data.values()]
    pooled = sum(squares) / sum(len(r) - 1 for r in data.values())
    components = result.variance
    assert components is not None
    assert components.within_item == pytest.approx(pooled)
    within = pooled * np.mean([1 / len(r) for r in data.values()])
    assert components.within_contribution == pytest.approx(within)
    assert components.item_means == pytest.approx(np.var(means, ddof=1))


def test_the_variance_components_of_several_runs() -> None:
    """Miller (2024): Var(item mean) = between-item variance + run-to-run variance / R."""
    runs = _runs(n_items=150, n_runs=5, seed=3)
    result = score(runs)
    components = result.variance
    assert isinstance(components, VarianceComponents)
    item_means = runs.mean(axis=0)
    within = np.mean(runs.var(axis=0, ddof=1))  # each item's run-to-run variance, averaged
    assert components.item_means == pytest.approx(np.var(item_means, ddof=1), rel=1e-12)
    assert components.within_item == pytest.approx(within, rel=1e-12)
    assert components.within_contribution == pytest.approx(within / 5, rel=1e-12)
    assert components.between_item == pytest.approx(
        np.var(item_means, ddof=1) - within / 5, rel=1e-12
    )
    assert components.within_share == pytest.approx(within / 5 / np.var(item_means, ddof=1))
    assert components.within_share + components.between_share == pytest.approx(1.0)
    assert result.se**2 == pytest.approx(components.item_means / 150, rel=1e-12)


def test_a_negative_between_item_estimate_is_shown_as_zero_with_a_note() -> None:
    runs = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1]])  # every item's mean is 0.5
    result = score(runs)
    components = result.variance
    assert components is not None
    assert (components.item_means, components.within_item) == (0.0, 0.5)
    assert components.between_item == 0.0
    assert math.isnan(components.within_share)
    assert any("between-item variance estimate is negative (-0.25)" in n for n in result.notes)
    assert any("every item has the same mean score 0.5" in n for n in result.notes)
    assert (result.se, result.ci.low, result.ci.high) == (0.0, 0.5, 0.5)
    document = _strict_json(result)
    assert document["variance"]["within_share"] is None
    assert document["nulls"]["variance.within_share"] == "undefined: no variation"


def test_the_bootstrap_when_asked_and_its_fallback_below_fifty_items() -> None:
    values = np.random.default_rng(4).random(120)
    result = score(values, method="bootstrap", n_resamples=2000, rng=7)
    reference = bootstrap(np.zeros(120), values, n_resamples=2000, rng=7)
    assert result.method == "bootstrap-bca"
    assert (result.ci.low, result.ci.high) == (reference.ci.low, reference.ci.high)
    assert (result.n_resamples, result.seed, result.method_reason) == (2000, 7, "requested")
    again = score(values, method="bootstrap", n_resamples=2000, rng=result.seed)
    assert (again.ci.low, again.ci.high) == (result.ci.low, result.ci.high)
    drawn = score(values, method="bootstrap", n_resamples=200)
    assert drawn.seed is not None
    small = score(values[:20], method="bootstrap")
    assert small.method == "t"
    assert small.method_reason.startswith(
        "requested the bootstrap, but with 20 items (fewer than 50)"
    )
    generator = score(values, method="bootstrap", n_resamples=200, rng=np.random.default_rng(1))
    assert generator.seed is None
    assert _strict_json(generator)["nulls"]["seed"] == "unknown: rng was a numpy Generator"


@pytest.mark.parametrize("method", ["wilson-cc", "jeffreys", "agresti-coull", "clopper-pearson"])
def test_requested_intervals_of_a_proportion(method: Any) -> None:
    from statsmodels.stats.proportion import proportion_confint

    result = score(_binary(50, 9), method=method)
    assert (result.method, result.method_reason) == (method, "requested")
    if method != "wilson-cc":
        names = {"jeffreys": "jeffreys", "agresti-coull": "agresti_coull"}
        low, high = proportion_confint(9, 50, method=names.get(method, "beta"))
        assert (result.ci.low, result.ci.high) == pytest.approx((low, high), abs=1e-12)


def test_bayes_is_the_beta_posterior_interval_under_the_stated_prior() -> None:
    result = score(_binary(30, 9), method="bayes")
    assert result.prior == (1.0, 1.0)
    assert result.ci.low == pytest.approx(stats.beta.ppf(0.025, 10, 22), abs=1e-12)
    assert result.ci.high == pytest.approx(stats.beta.isf(0.025, 10, 22), abs=1e-12)
    assert any("Beta(9 + 1, 21 + 1) posterior under a Beta(1, 1) prior" in n for n in result.notes)
    jeffreys = score(_binary(30, 9), method="bayes", prior=(0.5, 0.5))
    assert jeffreys.prior == (0.5, 0.5)
    assert jeffreys.ci.high == pytest.approx(stats.beta.isf(0.025, 9.5, 21.5), abs=1e-12)
    none_right = score(_binary(30, 0), method="bayes")
    assert none_right.ci.low == 0.0
    assert none_right.ci.high == pytest.approx(1 - 0.05 ** (1 / 31), abs=1e-12)
    assert _strict_json(result)["prior"] == {"a": 1.0, "b": 1.0}


def test_other_levels_by_the_same_method() -> None:
    result = score(_binary(200, 150))
    wider = result.confidence_interval(0.99)
    expected = stats.binomtest(150, 200).proportion_ci(0.99, method="exact")
    assert (wider.low, wider.high) == pytest.approx((expected.low, expected.high), abs=1e-10)
    assert wider.confidence_level == 0.99
    level = score(_binary(200, 150), confidence_level=0.99)
    assert (level.ci.low, level.ci.high) == (wider.low, wider.high)
    assert level.confidence_level == 0.99


# --- inputs --------------------------------------------------------------------------------


def test_array_mapping_table_and_path_give_the_same_interval(tmp_path: Path) -> None:
    values = [int(i % 3 != 0) for i in range(90)]
    path = tmp_path / "scores.csv"
    path.write_text("id,correct\n" + "".join(f"q{i},{v}\n" for i, v in enumerate(values)))
    results = [
        score(values),
        score(np.array(values)),
        score({f"q{i}": v for i, v in enumerate(values)}),
        score(load(str(path))),
        score(str(path)),
        score(path),
    ]
    assert {(r.ci.low, r.ci.high, r.method, r.n_items) for r in results} == {
        (results[0].ci.low, results[0].ci.high, "clopper-pearson", 90)
    }
    document = _strict_json(results[-1])
    (origin,) = document["provenance"]["inputs"].values()
    assert origin["files"][0]["path"] == str(path)
    assert len(origin["files"][0]["sha256"]) == 64
    assert origin["model"] == "scores"  # the file's stem
    assert _strict_json(results[0])["provenance"]["inputs"]["model"]["format"] == "array"


def test_two_dimensional_arrays_are_runs_by_items() -> None:
    runs = _runs(n_items=30, n_runs=3)
    result = score(runs)
    assert (result.n_items, result.n_runs) == (30, 3)
    assert score(runs.tolist()).ci == result.ci


def test_unpacking_as_estimate_and_interval_is_deprecated() -> None:
    """Only a test result unpacks (as ``statistic, pvalue``); a score did as
    ``estimate, (low, high)``, which works with a warning for one release."""
    result = score(_binary(40, 10))
    with pytest.warns(DeprecationWarning, match=r"result\.estimate and result\.ci"):
        estimate, (low, high) = result
    assert (estimate, low, high) == (0.25, result.ci.low, result.ci.high)
    low, high = result.ci
    assert result.ci[0] == low


def test_evalsig_score_is_callable_however_it_was_imported() -> None:
    """Importing the module ``evalsig.score`` makes it the package's attribute; calling it
    still scores."""
    import evalsig.score as module

    assert evalsig.ScoreResult is ScoreResult
    assert isinstance(evalsig.score([1, 0, 1]), ScoreResult)
    assert isinstance(module([1, 0, 1]), ScoreResult)
    from evalsig import score as imported

    assert imported([1, 0, 1]).n_items == 3


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "options", "message"),
    [
        ([1, 0], {"method": "exact"}, r"`method` must be one of 'auto', .* got 'exact'"),
        (
            [[1, 0, 1], [1, 1, 0]],
            {"method": "wilson"},
            r"method='wilson' is an interval for a proportion and needs one run of 0/1 scores "
            r"per item, but the data have 2 runs; use method='t'",
        ),
        (
            [0.5, 0.25, 1.0],
            {"method": "clopper-pearson"},
            r"needs 0/1 scores, but the scores include other values; use method='t'",
        ),
        ([1, 0, 1], {"method": "cluster"}, r"method='cluster' needs cluster labels: pass cluster="),
        ([1, 0, 1], {"prior": (1, 1)}, r"`prior` is used only by method='bayes'"),
        (
            [1, 0, 1],
            {"method": "bayes", "prior": (-1, 2)},
            r"`prior` must be two positive numbers \(a, b\).*got \(-1, 2\)",
        ),
        ([1, 0, 1], {"confidence_level": 95}, r"`confidence_level` must be .* got 95"),
        (
            [1, 0, 1],
            {"cluster": "subject"},
            r"`cluster`='subject' names a column, but the data have no columns",
        ),
        (
            [1, 0, 1, 1],
            {"cluster": ["a", "b", "a"]},
            r"`cluster` has 3 labels but the scores have 4 items",
        ),
        ([1, 0, 1, 1], {"cluster": ["a"] * 4}, r"all 4 items are in one cluster \('a'\)"),
        (
            [1, 0, 1],
            {"cluster": {"q1": "a"}},
            r"`cluster` is a mapping from item id to label, but the items have no ids",
        ),
        (
            {"q1": 1, "q2": 0, "q3": 1},
            {"cluster": {"q1": "a", "q2": "b"}},
            r"`cluster` has no label for 1 item\(s\) \('q3'\)",
        ),
        (
            [1, 0, 1, 1],
            {"cluster": ["a", None, "b", "b"]},
            r"`cluster` is missing for 1 item\(s\) \(positions 1\)",
        ),
        ([0.5], {}, r"the t interval needs at least 2 items .* got 1"),
        ([1, 0] * 30, {"method": "bootstrap", "n_resamples": 10}, r"`n_resamples` must be"),
        ([1, 0] * 30, {"method": "bootstrap", "rng": "x"}, r"`rng` must be a numpy"),
        ([1.0, float("nan")], {}, r"NaN"),
        ([], {}, r"empty"),
    ],
)
def test_errors_name_the_argument_and_the_bad_value(
    data: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(DataError, match=message):
        score(data, **options)


def test_clusters_given_twice_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("id,score,subject\n" + "".join(f"q{i},{i % 2},s{i % 3}\n" for i in range(9)))
    table = load(str(path), cluster_column="subject")
    assert score(table).method == "cluster-cr2"
    with pytest.raises(DataError, match="cluster labels were given twice"):
        score(table, cluster=[0, 1, 2] * 3)


def test_one_item_of_binary_scores_has_an_exact_interval() -> None:
    result = score([1])
    assert result.method == "clopper-pearson"
    assert (result.ci.low, result.ci.high) == pytest.approx((0.025, 1.0), abs=1e-12)


# --- renderings ----------------------------------------------------------------------------


def test_to_dict_is_strict_json_that_matches_the_schema() -> None:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    assert schema["$id"] == "urn:evalsig-stats:schema:score:v1"
    for result in [
        score(_binary(120, 66)),
        score(_binary(1500, 700)),
        score(_runs()),
        score(np.random.default_rng(2).random(60), method="bootstrap", n_resamples=200, rng=1),
        score(_binary(60, 20), cluster=[i % 6 for i in range(60)]),
        score(_binary(30, 9), method="bayes", prior=(0.5, 2.0)),
        score([3.5, 7.0, 2.25]),
    ]:
        document = _strict_json(result)
        assert document["kind"] == "score"
        assert document["schema_version"] == 1
    document = score(_binary(10, 3)).to_dict()
    document["surprise"] = 1
    assert list(_validator().iter_errors(document))


def _hostile_results(tmp_path: Path) -> list[ScoreResult]:
    """Scores whose model and task names are hostile markup."""
    named = score(load({f"q{i}": i % 2 for i in range(20)}, name=HOSTILE))
    path = tmp_path / "tasks.csv"
    path.write_text(
        "id,score,task\n" + "".join(f'q{i},{i % 2},"{HOSTILE}"\n' for i in range(20)), "utf-8"
    )
    tasked = score(load(str(path), task_column="task", task=HOSTILE))
    return [named, tasked]


def test_markdown_and_html_escape_hostile_names(tmp_path: Path) -> None:
    for result in _hostile_results(tmp_path):
        markdown = result._repr_markdown_()
        assert "<script>" not in markdown
        assert "&lt;script&gt;alert(1)&lt;/script&gt; \\| \\`x\\` \\*y\\*" in markdown
        assert markdown.startswith("### Score")
        assert "| Method | clopper-pearson: small sample: asymptotic intervals" in markdown
        page = result._repr_html_()
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "has no dedicated view" not in page  # the score section is registered


def test_text_renderings() -> None:
    result = score(_binary(120, 66))
    assert str(result) == (
        f"score = 55.00% (95% CI {100 * result.ci.low:.2f}% to {100 * result.ci.high:.2f}%) "
        "[clopper-pearson, n = 120 items (66 right)]"
    )
    from evalsig.report.score import as_text

    text = as_text(result.to_dict())
    assert text.startswith("Score: 55.00% (95% CI 45.65% to 64.09%)")
    assert "standard error  4.54 pp (binomial, sqrt(p (1 - p) / n)" in text
    runs = as_text(score(_runs()).to_dict())
    assert "variance of the per-item means" in runs
    assert "with unlimited runs the standard error would still be" in runs
    assert str(score([3.5, 7.0, 2.25])).startswith("score = 4.25 (95% CI ")


def test_to_frame_has_the_numbers_of_to_dict() -> None:
    pytest.importorskip("pandas")
    result = score(_runs())
    frame = result.to_frame()
    document = result.to_dict()
    assert len(frame) == 1
    row = frame.iloc[0]
    assert row["estimate"] == document["estimate"]
    assert (row["ci_low"], row["ci_high"]) == (document["ci"]["low"], document["ci"]["high"])
    assert (row["se"], row["df"], row["method"]) == (document["se"], 199.0, "t")
    assert (row["n_items"], row["n_runs"]) == (200, 4)
    assert frame["n_clusters"].isna().all()
    assert frame["n_correct"].isna().all()
    assert row["variance_within_share"] == document["variance"]["within_share"]
    one_run = score(_binary(50, 20)).to_frame()
    assert one_run["n_correct"].tolist() == [20]
    assert math.isnan(one_run["df"].iloc[0])
    assert math.isnan(one_run["variance_item_means"].iloc[0])
    assert frame.dtypes["n_items"] == np.int64
