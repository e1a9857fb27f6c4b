"""One vocabulary across the Python API, as tests/test_cli_consistency.py holds the CLI.

The rule, for the inputs of every public function, method and class (each public module's
``__all__``; not the CLI, whose option names tests/test_cli_consistency.py holds):

- ``method``: the one choice of procedure a function offers: the test (McNemar's
  "exact", the cluster-robust "cr2"), the interval ("bca", "t", "sandwich", "wilson"),
  the estimator of tau^2 ("reml"), as ``scipy.stats`` names it (``wilcoxon(method=)``,
  ``bootstrap(method=)``).
- ``variant``: only beside ``method``, where ``method`` picks a family of procedures and
  ``variant`` the one within it: ``compare(method="cluster", variant="cr1")``,
  ``bradley_terry(method="sandwich", variant="CR1")``, a gate's ``TaskClaim``. A function
  with no ``method`` calls its choice ``method``.
- ``cluster``: the cluster label of each item (battle, task) given to a statistical function.
- ``confidence_level`` for the level of an interval; ``alpha`` only for a decision
  threshold; ``alternative`` in {"two-sided", "greater", "less"} for the side.
- ``rng``: the source of random draws: a numpy Generator, an int or a SeedSequence.

Records keep the names of what they hold (explicitly listed below, each with its reason):
a result's or data set's ``seed`` is the seed that reproduces its draws (``rng=result.seed``),
not a source of randomness; a table's ``clusters`` field holds its labels, and the builders
that fill it take the field's name; an arena result records the ``interval`` and
``cluster_correction`` it used under the names of its JSON document; a result's ``interval``
function (``interval(confidence_level, alternative)``, a callable) is not a choice.

A retired spelling keeps working for one release with a DeprecationWarning that names the
new one (:func:`evalsig._deprecation.renamed`); the second half of this file holds that.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import pkgutil
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import evalsig
from evalsig._deprecation import renamed, renamed_parameters
from evalsig.data.provenance import without_time

RETIRED = {
    "variant": "method",  # unless the signature also has `method` (then: the sub-choice)
    "interval": "method",  # unless it is a callable (a result's interval function)
    "cluster_correction": "variant",
    "clusters": "cluster",
    "cluster_labels": "cluster",
    "seed": "rng",
    "random_state": "rng",
    "random_seed": "rng",
    "level": "confidence_level",
    "conf_level": "confidence_level",
    "ci_level": "confidence_level",
    "sided": "alternative",
    "tail": "alternative",
    "tails": "alternative",
    "two_sided": "alternative",
}
"""Retired spelling -> preferred spelling."""

_SEED = "the seed that reproduces the draws (`rng=result.seed`), recorded, not a source"
_TABLE = "the cluster labels the data set holds (a field, or the builder that fills it)"
RECORDS: dict[tuple[str, str], str] = {
    ("evalsig.arena.result.ArenaResult", "interval"): "the interval used, as its document",
    ("evalsig.arena.result.ArenaResult", "cluster_correction"): "the correction used",
    ("evalsig.arena.result.ArenaResult", "seed"): _SEED,
    ("evalsig.comparison.ComparisonResult", "seed"): _SEED,
    ("evalsig.data.provenance.Provenance", "seed"): _SEED,
    ("evalsig.facets.sources.VarianceSourcesResult", "seed"): _SEED,
    ("evalsig.inference.components.ComponentIntervals", "seed"): _SEED,
    ("evalsig.data.provenance.provenance", "seed"): _SEED + " (fills Provenance.seed)",
    ("evalsig.inference._common.InferenceResult", "seed"): _SEED,
    ("evalsig.inference.simultaneous.SimultaneousResult", "seed"): _SEED,
    ("evalsig.leaderboard.board.Leaderboard", "seed"): _SEED,
    ("evalsig.leaderboard.board.leaderboard_from_sums", "seed"): _SEED
    + " (of a bootstrap already drawn: `boot`; fills Leaderboard.seed)",
    ("evalsig.leaderboard.board.leaderboard_from_tests", "seed"): _SEED
    + " (of a bootstrap already drawn: `boot`; fills Leaderboard.seed)",
    ("evalsig.meta.synthesis.SynthesisResult", "seed"): _SEED,
    ("evalsig.passk._results.PassAtKComparison", "seed"): _SEED,
    ("evalsig.passk._results.PassAtKResult", "seed"): _SEED,
    ("evalsig.release.decision.GateResult", "seed"): _SEED,
    ("evalsig.score.ScoreResult", "seed"): _SEED,
    ("evalsig.simulate.audit_runner.AuditResult", "seed"): _SEED,
    ("evalsig.simulate.benchmark.SimulatedBenchmark", "seed"): _SEED,
    ("evalsig.simulate.models.SimulatedModels", "seed"): _SEED,
    ("evalsig.simulate.summary.SimulationReport", "seed"): _SEED,
    ("evalsig.data.table.ScoreTable", "clusters"): _TABLE,
    ("evalsig.data.models.ModelScores", "cluster_labels"): _TABLE,
    ("evalsig.data.paired.PairedScores", "cluster_labels"): _TABLE,
    ("evalsig.data.build.table_from_long", "clusters"): _TABLE,
    ("evalsig.data.paired.pair", "clusters"): _TABLE,
    ("evalsig.data.readers.collect.Collector.offer", "clusters"): _TABLE,
    ("evalsig.simulate.audit_methods.MethodInput", "clusters"): _TABLE,
    ("evalsig.simulate.batch.SimulationBatch", "clusters"): _TABLE,
    ("evalsig.simulate.benchmark.SimulatedBenchmark", "clusters"): _TABLE,
    ("evalsig.simulate.models.SimulatedModels", "clusters"): _TABLE,
}
"""(where, parameter) -> why it keeps a retired spelling."""


def _public_modules() -> Iterator[Any]:
    for info in pkgutil.walk_packages(evalsig.__path__, "evalsig."):
        parts = info.name.split(".")[1:]
        if parts[0] == "cli" or any(part.startswith("_") for part in parts):
            continue
        if info.name == "evalsig.leaderboard.ranking":  # deprecated: every name warns
            continue
        yield importlib.import_module(info.name)


def _signatures() -> dict[str, inspect.Signature]:
    """Every public function, public method and class of every public module's ``__all__``,
    by qualified name (where it is defined)."""
    found: dict[str, inspect.Signature] = {}

    def add(name: str, target: Any) -> None:
        with contextlib.suppress(TypeError, ValueError):  # builtins without a signature
            found.setdefault(name, inspect.signature(target))

    for module in _public_modules():
        for attribute in getattr(module, "__all__", ()):
            obj = getattr(module, attribute)
            home = getattr(obj, "__module__", module.__name__)
            where = f"{home}.{getattr(obj, '__qualname__', attribute)}"
            if inspect.isclass(obj):
                add(where, obj)
                for name, member in vars(obj).items():
                    if name.startswith("_"):
                        continue
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if inspect.isfunction(member):
                        add(f"{where}.{name}", member)
            elif callable(obj):
                add(where, obj)
    return found


SIGNATURES = _signatures()


def _problems() -> list[str]:
    problems = []
    for where, signature in sorted(SIGNATURES.items()):
        names = set(signature.parameters)
        for name, parameter in signature.parameters.items():
            if name not in RETIRED or (where, name) in RECORDS:
                continue
            if name == "variant" and "method" in names:
                continue  # the choice within the family that `method` picks
            if name == "interval" and "Callable" in str(parameter.annotation):
                continue  # an interval function, not a choice
            problems.append(f"{where}({name}=...): call it `{RETIRED[name]}`")
    return problems


def test_the_walk_finds_the_public_api() -> None:
    """The walk reaches the functions and classes of the packages (it cannot pass empty)."""
    for where in (
        "evalsig.comparison.compare",
        "evalsig.inference._mcnemar.mcnemar",
        "evalsig.arena.model.bradley_terry",
        "evalsig.judge.ppi.ppi_mean",
        "evalsig.passk._estimates.pass_at_k",
        "evalsig.release.policy.TaskClaim",
        "evalsig.distributed.Executor.bootstrap_ranks",
        "evalsig.meta.regression.Fit.wald",
    ):
        assert where in SIGNATURES, where
    assert len(SIGNATURES) > 300


def test_no_public_parameter_uses_a_retired_spelling() -> None:
    problems = _problems()
    assert not problems, "\n".join(problems)


def test_every_exception_is_still_needed() -> None:
    """An exception whose parameter went (or was renamed) is removed from the list."""
    stale = [
        key
        for key in RECORDS
        if key[0] not in SIGNATURES or key[1] not in SIGNATURES[key[0]].parameters
    ]
    assert not stale


def test_the_preferred_names_are_the_ones_in_use() -> None:
    """Each preferred name is a parameter somewhere (the rule speaks of the real API)."""
    used = {name for signature in SIGNATURES.values() for name in signature.parameters}
    assert set(RETIRED.values()) <= used


# --- the retired spellings still work, for one release, and warn ---------------------------

RENAMED: dict[str, dict[str, str]] = {
    "evalsig.inference._mcnemar.mcnemar": {"variant": "method"},
    "evalsig.inference._mcnemar.mcnemar_from_table": {"variant": "method"},
    "evalsig.inference._cluster.cluster_robust": {"variant": "method", "clusters": "cluster"},
    "evalsig.inference._cluster.cluster_bootstrap": {"variant": "method", "clusters": "cluster"},
    "evalsig.inference._bootstrap.bootstrap": {"interval": "method"},
    "evalsig.inference.passk_tasks.mean_over_tasks": {"interval": "method"},
    "evalsig.inference.ranking.bootstrap_ranks": {"seed": "rng"},
    "evalsig.distributed.Executor.bootstrap_ranks": {"seed": "rng"},
    "evalsig.passk._estimates.pass_at_k": {"interval": "method"},
    "evalsig.arena.model.bradley_terry": {"interval": "method", "cluster_correction": "variant"},
    "evalsig.arena.battle_arrays.battles": {"clusters": "cluster"},
    "evalsig.arena.bootstrap.bootstrap_params": {"seed": "rng"},
    "evalsig.arena.cr2.studentized_maxima": {"seed": "rng"},
    "evalsig.arena.ranks.simultaneous_ranks": {"seed": "rng"},
    "evalsig.judge.ppi.ppi_mean": {"clusters": "cluster"},
    "evalsig.judge.ppi.ppi_paired_difference": {"clusters": "cluster"},
    "evalsig.meta.regression.Fit.wald": {"level": "confidence_level"},
    "evalsig.report.formatting.interval": {"level": "confidence_level"},
}
"""Where each retired spelling was the parameter's name: old -> new, kept for one release."""


def _function(where: str) -> Callable[..., Any]:
    module, _, name = where.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]
    except ModuleNotFoundError:  # a method: module.Class.name
        module, _, owner = module.rpartition(".")
        return getattr(getattr(importlib.import_module(module), owner), name)  # type: ignore[no-any-return]


def test_every_renamed_parameter_is_declared_and_shows_only_its_new_name() -> None:
    declared = {}
    for where in SIGNATURES:
        try:
            mapping = renamed_parameters(_function(where))
        except (AttributeError, ImportError):  # a name defined inside a function
            continue
        if mapping:
            declared[where] = mapping
    assert declared == RENAMED
    for where, mapping in RENAMED.items():
        parameters = SIGNATURES[where].parameters
        for old, new in mapping.items():
            assert new in parameters, (where, new)
            assert old not in parameters, (where, old)


Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], Any]
"""A function, its positional arguments, its other keywords, and the renamed one's value."""


def _calls() -> dict[tuple[str, str], Call]:
    """(function, old name) -> (function, positional arguments, other keywords, value)."""
    from evalsig import inference
    from evalsig.arena import battles, bradley_terry
    from evalsig.arena.battle_arrays import compress
    from evalsig.arena.bootstrap import bootstrap_params
    from evalsig.arena.cr2 import studentized_maxima
    from evalsig.arena.fit import fit
    from evalsig.arena.ranks import simultaneous_ranks
    from evalsig.distributed import local
    from evalsig.inference.passk_tasks import mean_over_tasks
    from evalsig.inference.ranking import bootstrap_ranks
    from evalsig.judge import ppi_mean, ppi_paired_difference
    from evalsig.meta.regression import fit_design
    from evalsig.passk import pass_at_k
    from evalsig.report.formatting import interval

    rng = np.random.default_rng(3)
    x = (rng.random(60) < 0.6).astype(int)
    y = (rng.random(60) < 0.7).astype(int)
    c = np.arange(60) % 6
    a = rng.integers(0, 3, 300)
    b = (a + rng.integers(1, 3, 300)) % 3
    won = (rng.random(300) < 0.5) * 1.0
    names = np.array(["m0", "m1", "m2"], dtype=object)
    clustered = battles(names[a], names[b], won, cluster=np.arange(300) % 10)
    rows = compress(clustered)
    start = np.delete(fit(rows, ties="half", anchor=0).params, 0)
    center = np.delete(np.eye(3) - 1.0 / 3, 0, axis=1).T
    cr2 = fit(rows, ties="half", anchor=0, correction="CR2", contrasts=center).cr2
    sums, counts = rng.integers(0, 5, (3, 20)).astype(float), np.full((3, 20), 5.0)
    j, h = rng.random(100), (rng.random(100) < 0.5).astype(float)
    labels = (np.arange(80) % 8, np.arange(20) % 8)
    design = fit_design(
        rng.normal(0, 1, 8), np.full(8, 0.1), np.column_stack([np.ones(8), np.arange(8.0)]),
        method="reml", test="z",
    )  # fmt: skip
    samples = (rng.random((60, 5)) < 0.5).astype(int)
    values = rng.random(60)
    return {
        ("evalsig.inference._mcnemar.mcnemar", "variant"): (
            inference.mcnemar, (x, y), {}, "exact"),
        ("evalsig.inference._mcnemar.mcnemar_from_table", "variant"): (
            inference.mcnemar_from_table, ([[20, 8], [3, 30]],), {}, "exact"),
        ("evalsig.inference._cluster.cluster_robust", "variant"): (
            inference.cluster_robust, (x, y, c), {}, "cr1"),
        ("evalsig.inference._cluster.cluster_robust", "clusters"): (
            inference.cluster_robust, (x, y), {}, c),
        ("evalsig.inference._cluster.cluster_bootstrap", "variant"): (
            inference.cluster_bootstrap, (x, y, c), {}, "wild"),
        ("evalsig.inference._cluster.cluster_bootstrap", "clusters"): (
            inference.cluster_bootstrap, (x, y), {"n_resamples": 200, "rng": 1}, c),
        ("evalsig.inference._bootstrap.bootstrap", "interval"): (
            inference.bootstrap, (x, y), {"n_resamples": 200, "rng": 1}, "percentile"),
        ("evalsig.inference.passk_tasks.mean_over_tasks", "interval"): (
            lambda **kw: mean_over_tasks(values, confidence_level=0.9, n_resamples=200,
                                         rng=np.random.default_rng(1), name="pass@1", **kw),
            (), {}, "bootstrap"),
        ("evalsig.inference.ranking.bootstrap_ranks", "seed"): (
            bootstrap_ranks, (sums, counts), {"n_resamples": 50}, 5),
        ("evalsig.distributed.Executor.bootstrap_ranks", "seed"): (
            local().bootstrap_ranks, (sums, counts), {"n_resamples": 50}, 5),
        ("evalsig.passk._estimates.pass_at_k", "interval"): (
            pass_at_k, (samples, 1), {"n_resamples": 200, "rng": 1}, "bootstrap"),
        ("evalsig.arena.model.bradley_terry", "interval"): (
            bradley_terry, (clustered,), {"n_resamples": 100, "n_draws": 1000, "rng": 1},
            "bootstrap"),
        ("evalsig.arena.model.bradley_terry", "cluster_correction"): (
            bradley_terry, (clustered,), {"n_draws": 1000, "rng": 1}, "CR1"),
        ("evalsig.arena.battle_arrays.battles", "clusters"): (
            battles, (names[a], names[b], won), {}, np.arange(300) % 10),
        ("evalsig.arena.bootstrap.bootstrap_params", "seed"): (
            bootstrap_params, (rows, start), {"ties": "half", "anchor": 0, "n_resamples": 20},
            np.random.SeedSequence(5)),
        ("evalsig.arena.cr2.studentized_maxima", "seed"): (
            studentized_maxima, (cr2, center, ~np.eye(3, dtype=bool)), {"n_draws": 40},
            np.random.SeedSequence(5)),
        ("evalsig.arena.ranks.simultaneous_ranks", "seed"): (
            simultaneous_ranks, (np.array([1.0, 0.0, -0.1]), np.eye(3) * 0.01),
            {"confidence_level": 0.95, "n_draws": 1000}, np.random.SeedSequence(5)),
        ("evalsig.judge.ppi.ppi_mean", "clusters"): (
            ppi_mean, (j[20:], j[:20], h[:20]), {}, labels),
        ("evalsig.judge.ppi.ppi_paired_difference", "clusters"): (
            ppi_paired_difference, ((j[20:], j[20:] ** 2), (j[:20], j[:20] ** 2),
                                    (h[:20], h[:20] ** 2)), {}, labels),
        ("evalsig.meta.regression.Fit.wald", "level"): (design.wald, (1,), {}, 0.9),
        ("evalsig.report.formatting.interval", "level"): (
            interval, (0.01, 0.02), {"percent": True}, 0.9),
    }  # fmt: skip


RENAMED_PARAMETERS = sorted((where, old) for where, mapping in RENAMED.items() for old in mapping)


@pytest.fixture(scope="module")
def calls() -> dict[tuple[str, str], Call]:
    return _calls()


def test_every_renamed_parameter_has_a_call_below(calls: dict[tuple[str, str], Call]) -> None:
    assert sorted(calls) == RENAMED_PARAMETERS


def _same(first: Any, second: Any) -> None:
    if isinstance(first, tuple):
        for one, two in zip(first, second, strict=True):
            _same(one, two)
    elif isinstance(first, np.ndarray):
        np.testing.assert_array_equal(first, second)
    elif callable(first):  # a result's interval function: its numbers are the fields
        pass
    elif hasattr(first, "to_dict"):  # the two calls may fall in different seconds
        assert without_time(first.to_dict()) == without_time(second.to_dict())
    elif dataclasses.is_dataclass(first):
        for field in dataclasses.fields(first):
            _same(getattr(first, field.name), getattr(second, field.name))
    else:
        assert first == second or (first != first and second != second)


@pytest.mark.parametrize("key", RENAMED_PARAMETERS, ids=lambda key: f"{key[0]}:{key[1]}")
def test_a_retired_spelling_still_works_and_warns(
    key: tuple[str, str], calls: dict[tuple[str, str], Call]
) -> None:
    where, old = key
    new = RENAMED[where][old]
    function, args, keywords, value = calls[key]
    expected = function(*args, **keywords, **{new: value})
    message = f"`{old}=` is now `{new}=`"
    with pytest.warns(DeprecationWarning, match=re.escape(message)) as caught:
        got = function(*args, **keywords, **{old: value})
    assert all(w.filename == __file__ for w in caught if w.category is DeprecationWarning)
    _same(expected, got)
    with pytest.raises(TypeError, match=re.escape(f"got both `{old}=` and `{new}=`")):
        function(*args, **keywords, **{old: value, new: value})


def test_the_new_spellings_do_not_warn(calls: dict[tuple[str, str], Call]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for (where, old), (function, args, keywords, value) in calls.items():
            function(*args, **keywords, **{RENAMED[where][old]: value})


def test_renamed_keeps_the_signature_and_names_the_function() -> None:
    @renamed(clusters="cluster")
    def f(x: int, *, cluster: object = None) -> object:
        """Doc."""
        return cluster

    assert list(inspect.signature(f).parameters) == ["x", "cluster"]
    assert f.__doc__ == "Doc."
    assert f.__name__ == "f"
    with pytest.warns(DeprecationWarning, match=r"^`clusters=` is now `cluster=` \(in f\(\)\); "):
        assert f(1, clusters=2) == 2
    assert f(1) is None
