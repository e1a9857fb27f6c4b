"""Every result kind has a JSON schema, and every result's ``to_dict()`` matches it.

For each kind, small real results are built through the public API (with and without
optional parts: clusters, a bootstrap, one-sided tests, undefined p-values) and validated
against the shipped schema (Draft 2020-12, ``additionalProperties: false`` everywhere, so
a new field without a schema update fails here). The kinds written in the code and the
schemas shipped must be the same set.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError
from evalsig.report.schemas import KINDS, registry, schema, schema_id

SRC = Path(__file__).parents[1] / "src" / "evalsig"
HOSTILE = "<script>alert(1)</script> | `x` *y*"


def _scores(n_models: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"m{k}": (rng.random(n_items) < 0.5 + 0.1 * k).astype(int) for k in range(n_models)}


def _comparison() -> list[Any]:
    from evalsig import compare

    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 300)
    y = np.where(rng.random(300) < 0.1, 1 - x, x)
    c = rng.random(200)
    return [
        compare(x, y),
        compare(x, y, one_sided=True, method="bootstrap", rng=1, n_resamples=200),
        compare(c, c + rng.normal(0, 0.1, 200), method="wilcoxon"),
        compare([0.1, 0.2, 0.3], [0.2, 0.3, 0.4]),
        compare(x, y, cluster=[i % 7 for i in range(300)]),
    ]


def _gate(tmp: Path) -> list[Any]:
    from evalsig.release import gate

    rng = np.random.default_rng(1)
    base = {n: rng.random(200) for n in ("a", HOSTILE)}
    cand = {n: v + rng.normal(0.02, 0.05, 200) for n, v in base.items()}
    policy = tmp / "policy.json"
    policy.write_text('{"name": "g", "tasks": ["a", "b"]}', "utf-8")
    files = {n: rng.random(100) for n in ("a", "b")}
    return [
        gate(base, cand, policy={"name": HOSTILE, "tasks": list(base)}),
        gate(files, {n: v + 0.01 for n, v in files.items()}, policy=policy),
    ]


def _registration(tmp: Path) -> list[Any]:
    from evalsig.release import load_policy, register

    policy = tmp / "reg.json"
    policy.write_text(
        '{"name": "g", "tasks": ["a", {"name": "b", "claim": "non-inferiority", "margin": 0.01}]}',
        "utf-8",
    )
    return [register(load_policy(policy))[0]]


def _leaderboard() -> list[Any]:
    from evalsig.leaderboard import leaderboard

    return [
        leaderboard(_scores(3, 200, 2)),
        leaderboard(_scores(3, 100, 3), n_resamples=50, rng=4, task=HOSTILE),
    ]


def _leaderboard_tasks() -> list[Any]:
    from evalsig.data.models import load_models
    from evalsig.leaderboard import leaderboard_tasks

    tasks = {t: load_models(_scores(3, 100, seed)) for seed, t in enumerate(("x", HOSTILE))}
    return [leaderboard_tasks(tasks)]


def _inference() -> list[Any]:
    from evalsig.inference import mcnemar, paired_t

    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    return [mcnemar(x, y), paired_t(rng.random(50), rng.random(50))]


def _multiplicity() -> list[Any]:
    from evalsig.inference import adjust

    return [
        adjust({"a": 0.01, "b": 0.04, HOSTILE: 0.3}, method="holm"),
        adjust([0.01, 0.02, 0.5], method="bh"),
    ]


def _sign_test() -> list[Any]:
    from evalsig.inference import sign_test

    return [sign_test({"a": 0.1, "b": -0.02, "c": 0.03}), sign_test([0.0, 0.0])]


def _dependence() -> list[Any]:
    from evalsig.inference import dependence

    rng = np.random.default_rng(6)
    a = {f"q{i}": v for i, v in enumerate(rng.normal(size=60))}
    b = {k: v + rng.normal() for k, v in a.items()}
    return [dependence({"a": a, "b": b})]


def _simultaneous() -> list[Any]:
    from evalsig.inference import romano_wolf

    rng = np.random.default_rng(7)
    tasks = {t: rng.normal(0.02, 0.2, 80) for t in ("a", "b", HOSTILE)}
    return [romano_wolf(tasks, n_resamples=200, rng=2, alternative="greater")]


def _random_effects() -> list[Any]:
    from evalsig.meta import random_effects

    return [
        random_effects([0.1, 0.2, 0.15, 0.3], [0.01, 0.02, 0.01, 0.03], labels=list("abcd")),
        random_effects([0.5], [0.01]),
    ]


def _meta_analysis() -> list[Any]:
    from evalsig.meta import synthesize

    rng = np.random.default_rng(11)
    reports = [
        {"model": model, "benchmark": bench, "source": f"paper {k}", "score": s, "n": 1000}
        for bench in ("mmlu", "gsm8k")
        for model, base in ((HOSTILE, 0.7), ("base", 0.6))
        for k, s in enumerate(base + rng.normal(0, 0.02, 4))
    ] + [{"model": "solo", "benchmark": "mmlu", "source": "one", "score": 0.5, "n": 1000}]
    return [synthesize(reports, n_resamples=100, rng=12), synthesize(reports, n_resamples=0)]


def _power() -> list[Any]:
    from evalsig.power import power_analysis

    return [power_analysis(p01=0.075, p10=0.065, n=4000, baseline_accuracy=0.57)]


def _sample_size() -> list[Any]:
    from evalsig.power import mcnemar_sample_size

    return [mcnemar_sample_size(0.075, 0.065)]


def _resolution() -> list[Any]:
    from evalsig.power import resolution_from_rates

    return [resolution_from_rates(4000, 0.075, 0.065)]


def _benchmark_resolution() -> list[Any]:
    from evalsig.data.models import load_models
    from evalsig.power import benchmark_resolution

    return [benchmark_resolution(load_models(_scores(3, 200, 8)), pairs="all")]


def _runs_tradeoff() -> list[Any]:
    from evalsig.power import runs_tradeoff

    return [runs_tradeoff(0.01, 0.2, 0.3)]


def _unpaired() -> list[Any]:
    from evalsig.power import unpaired_shortcut_sample_size

    return [unpaired_shortcut_sample_size(0.70, 0.75)]


def _sequential() -> list[Any]:
    from evalsig.sequential import confidence_sequence

    rng = np.random.default_rng(9)
    return [
        confidence_sequence(rng.choice([-1, 0, 0, 1], 400) + 0.0),
        confidence_sequence(rng.choice([-1, 0, 1], 50) + 0.0, method="bernstein"),
    ]


def _simulation() -> list[Any]:
    from evalsig.simulate import simulation_report

    return [simulation_report(rng=3, n_simulations=0), simulation_report(rng=3, n_simulations=20)]


def _audit() -> list[Any]:
    from evalsig.audit import audit
    from evalsig.simulate import MixtureDesign

    design = MixtureDesign(n_items=100, n_runs=3, uplift=0.02)
    return [audit(design, methods=["paired-t"], n_simulations=10, rng=1)]


def _claim_audit() -> list[Any]:
    from evalsig.audit import audit_claim

    rng = np.random.default_rng(10)
    base = (rng.random((3, 300)) < 0.6).astype(int)
    cand = (rng.random((3, 300)) < 0.62).astype(int)
    return [audit_claim(base, cand, half_width=0.02)]


BUILDERS: dict[str, Callable[[Path], list[Any]]] = {
    "comparison": lambda _: _comparison(),
    "gate": _gate,
    "gate-registration": _registration,
    "leaderboard": lambda _: _leaderboard(),
    "leaderboard-tasks": lambda _: _leaderboard_tasks(),
    "inference": lambda _: _inference(),
    "multiplicity": lambda _: _multiplicity(),
    "sign_test": lambda _: _sign_test(),
    "dependence": lambda _: _dependence(),
    "simultaneous": lambda _: _simultaneous(),
    "random-effects": lambda _: _random_effects(),
    "meta-analysis": lambda _: _meta_analysis(),
    "power": lambda _: _power(),
    "sample-size": lambda _: _sample_size(),
    "resolution": lambda _: _resolution(),
    "benchmark-resolution": lambda _: _benchmark_resolution(),
    "runs-tradeoff": lambda _: _runs_tradeoff(),
    "unpaired-shortcut": lambda _: _unpaired(),
    "sequential": lambda _: _sequential(),
    "simulation": lambda _: _simulation(),
    "audit": lambda _: _audit(),
    "claim-audit": lambda _: _claim_audit(),
}
"""How to build small real results of each kind through the public API."""


def kinds_in_code() -> set[str]:
    """Every ``"kind": "<name>"`` written by a result's ``to_dict()`` (the renderers in
    report/ only read kinds: their own dicts are sections, not results)."""
    found = set()
    for path in SRC.rglob("*.py"):
        if "report" not in path.relative_to(SRC).parts:
            found.update(re.findall(r'"kind": "([a-z_-]+)"', path.read_text("utf-8")))
    return found


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(schema(kind), registry=registry())


def test_every_kind_in_the_code_has_a_schema_and_every_schema_a_kind() -> None:
    assert kinds_in_code() == set(KINDS) == set(BUILDERS)


def test_schemas_are_valid_and_have_a_stable_id() -> None:
    for kind in KINDS:
        document = schema(kind)
        Draft202012Validator.check_schema(document)
        assert document["$id"] == f"https://evalsig.dev/schemas/{kind}/v{SCHEMA_VERSION}.json"
        assert document["$id"] == schema_id(kind)


def test_a_result_of_another_kind_fails_the_schema() -> None:
    comparison = _comparison()[0].to_dict()
    for kind in KINDS:
        if kind != "comparison":
            assert list(validator(kind).iter_errors(comparison)), kind


def test_every_object_in_a_schema_is_closed() -> None:
    """An object with listed properties refuses others: a new field must be described."""

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                assert node.get("additionalProperties") is False, where
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for kind in KINDS:
        walk(schema(kind), kind)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_results_match_their_schema(kind: str, tmp_path: Path) -> None:
    results = BUILDERS[kind](tmp_path)
    assert results
    check = validator(kind)
    for result in results:
        document = result.to_dict()
        assert document["kind"] == kind
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in check.iter_errors(document)]
        assert not errors, errors


def test_a_new_field_fails_the_schema() -> None:
    document = _comparison()[0].to_dict()
    document["surprise"] = 1
    assert list(validator("comparison").iter_errors(document))
    document = _comparison()[0].to_dict()
    document["provenance"]["inputs"]["baseline"]["surprise"] = 1
    assert list(validator("comparison").iter_errors(document))


def test_unknown_kind_lists_the_kinds() -> None:
    with pytest.raises(DataError, match="comparison") as info:
        schema("no-such-kind")
    assert "'no-such-kind'" in str(info.value)


def test_schema_returns_a_fresh_copy() -> None:
    first = schema("comparison")
    first["title"] = "changed"
    assert schema("comparison")["title"] != "changed"
