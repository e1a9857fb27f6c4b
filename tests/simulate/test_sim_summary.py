"""The simulation report against the article's printed numbers for its seed design.

Article output (``SEED = 20260504``): accuracies and consistency per model; McNemar on run 1
(``mcnemar_test(scores["A"][0], ...)``): A vs B +0.92 pp, z = 1.64, p = 0.101; A vs C
+2.05 pp, z = 3.47, p = 0.001; paired t on 8-run means (``paired_t_over_runs``): A vs B
-0.01 pp, +/-0.40 pp, p = 0.9635; A vs C +1.17 pp, +/-0.52 pp, z = 4.43; expected
discordance 14.2%; analytical power 38.9% (McNemar) and 97.3% (paired t).
"""

from __future__ import annotations

import json

import pytest

from evalsig.errors import DataError
from evalsig.simulate import MixtureDesign, SimulationReport, simulation_report

SEED = 20260504


@pytest.fixture(scope="module")
def report() -> SimulationReport:
    return simulation_report(rng=SEED, n_simulations=400)


def test_models_match_the_article(report: SimulationReport) -> None:
    shown = [
        (
            round(100 * m.true_accuracy, 2),
            round(100 * m.observed_accuracy, 2),
            round(100 * m.per_run_sd, 3),
            round(100 * m.consistency, 1),
        )
        for m in report.models
    ]
    assert shown == [
        (57.06, 56.88, 0.432, 86.8),
        (57.06, 56.87, 0.663, 86.7),
        (58.06, 58.04, 0.411, 86.6),
    ]
    assert report.published is not None
    for model, (true_acc, obs, sd, consistency) in zip(
        report.models, report.published.values(), strict=True
    ):
        # formatted as the article prints them
        assert f"{100 * model.true_accuracy:.2f}" == f"{100 * true_acc:.2f}"
        assert f"{100 * model.observed_accuracy:.2f}" == f"{100 * obs:.2f}"
        assert f"{100 * model.per_run_sd:.3f}" == f"{100 * sd:.3f}"
        assert f"{100 * model.consistency:.1f}" == f"{100 * consistency:.1f}"
    assert "The article printed for this design and seed" in str(report)
    expected_sd = report.models[0].expected_per_run_sd
    assert report.models[2].expected_per_run_sd == pytest.approx(expected_sd)


def test_tests_match_the_article(report: SimulationReport) -> None:
    clone, tuned = report.pairs
    assert round(100 * clone.mcnemar.estimate, 2) == 0.92
    assert round(clone.mcnemar.statistic, 2) == 1.64
    assert round(clone.mcnemar.pvalue, 3) == 0.101
    assert round(100 * tuned.mcnemar.estimate, 2) == 2.05
    assert round(tuned.mcnemar.statistic, 2) == 3.47
    assert round(tuned.mcnemar.pvalue, 3) == 0.001
    assert round(100 * clone.paired_t.estimate, 2) == -0.01
    assert round(clone.paired_t.pvalue, 4) == 0.9635
    assert round(100 * tuned.paired_t.estimate, 2) == 1.17
    assert round(tuned.paired_t.statistic, 2) == 4.43
    # the article's +/-0.40 and +/-0.52 are 1.96 SE; ours are t intervals (df 3999)
    assert round(100 * 1.96 * clone.paired_t.se, 2) == 0.40
    assert round(100 * 1.96 * tuned.paired_t.se, 2) == 0.52
    assert tuned.true_difference == pytest.approx(0.01)
    assert tuned.discordance == pytest.approx(tuned.expected_discordance, abs=0.005)


def test_power_analytical_and_empirical(report: SimulationReport) -> None:
    assert round(report.mcnemar_power or 0, 3) == 0.389
    assert round(report.paired_t_power or 0, 3) == 0.973
    assert report.to_dict()["power"]["mcnemar"]["discordance"] == pytest.approx(0.142)
    assert report.n_simulations == 400
    assert report.empirical_mcnemar_power == pytest.approx(0.39, abs=0.08)
    assert report.empirical_paired_t_power == pytest.approx(0.99, abs=0.02)
    data = report.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["kind"] == "simulation"
    assert data["power"]["mcnemar"]["empirical_se"] == pytest.approx(
        (report.empirical_mcnemar_power or 0) ** 0.5
        * (1 - (report.empirical_mcnemar_power or 0)) ** 0.5
        / 20
    )
    assert "57.06%" in str(report)


def test_one_run_and_clusters() -> None:
    design = MixtureDesign(n_items=2000, n_runs=1, n_clusters=40, icc=0.2)
    report = simulation_report(design, rng=1, n_simulations=0)
    data = report.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["models"][0]["per_run_sd"] is None
    assert data["nulls"]["models[0].per_run_sd"] == "one run"
    assert data["published"] is None
    assert report.empirical_mcnemar_power is None
    assert report.icc_scores == pytest.approx(0.2, abs=0.1)
    assert report.pairs[1].icc_differences is not None
    assert "40 clusters: target ICC" in str(report)


def test_validation() -> None:
    with pytest.raises(DataError, match="n_simulations"):
        simulation_report(n_simulations=-1)
    with pytest.raises(DataError, match="alpha"):
        simulation_report(alpha=1.5)
    with pytest.raises(DataError, match="rng"):
        simulation_report(rng="x")  # type: ignore[arg-type]
