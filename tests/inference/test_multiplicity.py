"""Multiple-testing corrections: golden values, statsmodels and scipy oracles, Hommel against
closed testing, Storey against a plain loop, properties, bad input and the result object."""

from __future__ import annotations

import gc
import itertools
import json
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError
from evalsig.inference.multiplicity import (
    MultipleTestResult,
    adjust,
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    hochberg,
    holm,
    holm_sidak,
    hommel,
    sidak,
    storey,
)

P4 = [0.01, 0.04, 0.06, 0.20]

FUNCTIONS: dict[str, Callable[..., MultipleTestResult]] = {
    "bonferroni": bonferroni,
    "sidak": sidak,
    "holm": holm,
    "holm-sidak": holm_sidak,
    "hochberg": hochberg,
    "hommel": hommel,
    "bh": benjamini_hochberg,
    "by": benjamini_yekutieli,
    "storey": storey,
}
STATSMODELS = {
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "holm": "holm",
    "holm-sidak": "holm-sidak",
    "hochberg": "simes-hochberg",
    "hommel": "hommel",
    "bh": "fdr_bh",
    "by": "fdr_by",
}
FWER_CHAIN = ["bonferroni", "holm", "hochberg", "hommel"]  # each rejects at least the previous


def statsmodels_adjust(p: np.ndarray, method: str, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    # statsmodels' Holm runs a full garbage collection on every call (gc.collect() in
    # multitest.py), a second in a long test session; the values do not depend on it.
    with np.errstate(divide="ignore"), mock.patch.object(gc, "collect", return_value=0):
        # (the errstate: statsmodels' Sidak takes log1p(-1) for p = 1)
        reject, adjusted, _, _ = multipletests(p, alpha=alpha, method=STATSMODELS[method])
    return adjusted, reject


def random_pvalues(rng: np.random.Generator, m: int) -> np.ndarray:
    """Uniform, tied, clustered near 0, or rounded with exact zeros and ones."""
    kind = int(rng.integers(0, 4))
    if kind == 0:
        return rng.random(m)
    if kind == 1:
        return rng.choice([0.0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0], m)
    if kind == 2:
        return np.where(rng.random(m) < 0.3, rng.random(m) * 1e-3, rng.random(m))
    p = np.round(rng.random(m), int(rng.integers(1, 4)))
    p[rng.random(m) < 0.15] = 0.0
    p[rng.random(m) < 0.15] = 1.0
    return p


def assert_same_decisions(ours: MultipleTestResult, reject: np.ndarray, alpha: float) -> None:
    """Rejections agree wherever the adjusted p-value is not within rounding of alpha."""
    clear = np.abs(ours.p_adjusted - alpha) > 1e-12
    np.testing.assert_array_equal(ours.reject[clear], reject[clear])


class TestGolden:
    # Every row: statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.06, 0.20],
    # alpha=0.05, method=<statsmodels name>)[1]; BH and BY also equal
    # scipy.stats.false_discovery_control([0.01, 0.04, 0.06, 0.20], method="bh" / "by").
    @pytest.mark.parametrize(
        ("method", "expected", "n_rejected"),
        [
            ("bonferroni", [0.04, 0.16, 0.24, 0.80], 1),  # method="bonferroni"
            ("sidak", [0.03940399, 0.15065344, 0.21925104, 0.5904], 1),  # method="sidak"
            ("holm-sidak", [0.03940399, 0.115264, 0.1164, 0.20], 1),  # method="holm-sidak"
            ("holm", [0.04, 0.12, 0.12, 0.20], 1),  # method="holm"
            ("hochberg", [0.04, 0.12, 0.12, 0.20], 1),  # method="simes-hochberg"
            ("hommel", [0.04, 0.09, 0.12, 0.20], 1),  # method="hommel"
            ("bh", [0.04, 0.08, 0.08, 0.20], 1),  # method="fdr_bh"
        ],
    )
    def test_four_pvalues(self, method: str, expected: list[float], n_rejected: int) -> None:
        r = FUNCTIONS[method](P4, alpha=0.05)
        np.testing.assert_allclose(r.p_adjusted, expected, rtol=0, atol=1e-12)
        assert r.reject.tolist() == [True, False, False, False]
        assert r.n_rejected == n_rejected
        assert r.method == method

    # multipletests(P4, alpha=0.05, method="fdr_by")[1]
    # -> [0.0833333333, 0.1666666667, 0.1666666667, 0.4166666667], nothing rejected
    def test_benjamini_yekutieli(self) -> None:
        r = benjamini_yekutieli(P4, alpha=0.05)
        expected = [0.0833333333, 0.1666666667, 0.1666666667, 0.4166666667]
        np.testing.assert_allclose(r.p_adjusted, expected, rtol=0, atol=1e-10)
        assert r.reject.tolist() == [False, False, False, False]

    def test_documentation_examples(self) -> None:
        out = bonferroni([0.01, 0.04, 0.06, 0.20])
        assert out.p_adjusted.tolist() == pytest.approx([0.04, 0.16, 0.24, 0.80], abs=1e-15)
        assert out.reject.tolist() == [True, False, False, False]
        assert holm(P4).p_adjusted.tolist() == pytest.approx([0.04, 0.12, 0.12, 0.20])
        bh = benjamini_hochberg(P4).p_adjusted.tolist()
        assert bh == pytest.approx([0.04, 0.08, 0.08, 0.20])
        tasks = ["mmlu", "gpqa", "aime", "swe-bench", "terminal-bench"]
        p_values = [0.001, 0.02, 0.04, 0.30, 0.012]
        adj = holm(p_values, alpha=0.05)
        decided = {
            t: bool(rej) for t, _, rej in zip(tasks, adj.p_adjusted, adj.reject, strict=True)
        }
        assert decided == {
            "mmlu": True,
            "gpqa": False,  # 3 * 0.02 = 0.06 after mmlu (5 * 0.001) and terminal-bench
            "aime": False,
            "swe-bench": False,
            "terminal-bench": True,  # 4 * 0.012 = 0.048 <= 0.05
        }


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("method", list(STATSMODELS))
def test_matches_statsmodels(method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for m in (1, 2, 3, int(rng.integers(4, 40)), int(rng.integers(40, 501)), 500):
        p = random_pvalues(rng, m)
        alpha = float(rng.choice([0.01, 0.05, 0.1, 0.25]))
        ours = FUNCTIONS[method](p, alpha=alpha)
        adjusted, reject = statsmodels_adjust(p, method, alpha)
        np.testing.assert_allclose(ours.p_adjusted, adjusted, rtol=1e-12, atol=1e-15)
        assert_same_decisions(ours, reject, alpha)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("method", ["bh", "by"])
def test_matches_scipy_false_discovery_control(method: str, seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    for m in (1, 2, int(rng.integers(3, 50)), int(rng.integers(50, 501))):
        p = random_pvalues(rng, m)
        theirs = stats.false_discovery_control(p, method=method)
        np.testing.assert_allclose(FUNCTIONS[method](p).p_adjusted, theirs, rtol=1e-12, atol=1e-15)


def closed_testing_simes(p: Sequence[Any]) -> list[float]:
    """Hommel by definition: the largest Simes p-value over all intersections containing i
    (in the arithmetic of the elements: floats, or Fractions for exact values)."""
    m = len(p)
    adjusted = [p[i] * 0 for i in range(m)]
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(m), size):
            q = sorted(p[i] for i in subset)
            simes = min(size * q[k] / (k + 1) for k in range(size))
            for i in subset:
                adjusted[i] = max(adjusted[i], simes)
    return [float(x) for x in adjusted]


class TestHommel:
    def test_thousands_of_random_vectors_match_statsmodels(self) -> None:
        rng = np.random.default_rng(2024)
        for _ in range(3000):
            p = random_pvalues(rng, int(rng.integers(1, 41)))
            adjusted, _ = statsmodels_adjust(p, "hommel", 0.05)
            np.testing.assert_allclose(hommel(p).p_adjusted, adjusted, rtol=1e-12, atol=1e-15)

    def test_matches_the_closed_testing_definition(self) -> None:
        rng = np.random.default_rng(7)
        for _ in range(400):
            p = random_pvalues(rng, int(rng.integers(1, 8)))
            np.testing.assert_allclose(
                hommel(p).p_adjusted, closed_testing_simes(p), rtol=1e-12, atol=1e-15
            )

    def test_zero_and_subnormal_pvalues_exactly(self) -> None:
        # Closed testing in exact rational arithmetic; a zero p-value adjusts to exactly zero.
        rng = np.random.default_rng(17)
        tiny = [0.0, 5e-324, 1e-323, 2.5e-310, 1e-300, 1e-200, 0.01, 1.0]
        for _ in range(200):
            p = rng.choice(tiny, int(rng.integers(1, 8)))
            exact = closed_testing_simes([Fraction(x) for x in p])
            np.testing.assert_allclose(hommel(p).p_adjusted, exact, rtol=1e-15, atol=5e-324)
            assert np.all(hommel(p).p_adjusted[p == 0] == 0)
        p = [0.0, 1e-300, 1e-300, 1e-300, 5e-324, 5e-324]  # found by the property tests
        assert hommel(p).p_adjusted[0] == 0.0

    @pytest.mark.parametrize(
        "shape", ["uniform", "concave", "convex", "steps", "zeros-then-ones", "equal", "signal"]
    )
    def test_long_structured_vectors_match_statsmodels(self, shape: str) -> None:
        # Long enough for the vectorised hull passes (above 64 points) to run, and shaped
        # so that the hull keeps almost every point (convex), almost none (concave), or
        # has flat and vertical runs (steps, zeros then ones, all equal).
        m = 3000
        x = np.linspace(0.0, 1.0, m)
        rng = np.random.default_rng(3)
        p = {
            "uniform": rng.random(m),
            "concave": np.sqrt(x),
            "convex": x**2,
            "steps": np.floor(x * 7) / 7,
            "zeros-then-ones": (x > 0.5).astype(float),
            "equal": np.full(m, 0.3),
            "signal": np.concatenate([rng.random(m // 10) * 1e-5, rng.random(m - m // 10)]),
        }[shape]
        p = rng.permutation(p)
        adjusted, _ = statsmodels_adjust(p, "hommel", 0.05)
        np.testing.assert_allclose(hommel(p).p_adjusted, adjusted, rtol=1e-12, atol=1e-15)

    @pytest.mark.slow
    def test_a_million_pvalues(self) -> None:
        p = np.random.default_rng(5).random(1_000_000)
        p[:1000] *= 1e-6
        r = hommel(p)
        order = np.argsort(p)
        assert np.all(np.diff(r.p_adjusted[order]) >= 0)
        assert np.all(r.p_adjusted >= p)
        assert np.all(r.p_adjusted <= hochberg(p).p_adjusted * (1 + 1e-12))


def storey_oracle(p: list[float], lambda_: float) -> tuple[list[float], float]:
    """Storey's q-values with a plain loop from the largest p-value down."""
    m = len(p)
    above = sum(1 for x in p if x > lambda_)
    pi0 = 1.0 if above == 0 else min(1.0, above / (m * (1.0 - lambda_)))
    order = sorted(range(m), key=lambda i: p[i])
    q = [0.0] * m
    running = math.inf
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pi0 * m * p[i] / rank)
        q[i] = min(running, 1.0)
    return q, pi0


class TestStorey:
    @pytest.mark.parametrize("lambda_", [0.0, 0.2, 0.5, 0.8])
    @pytest.mark.parametrize("seed", range(15))
    def test_matches_plain_loop(self, seed: int, lambda_: float) -> None:
        rng = np.random.default_rng(500 + seed)
        for m in (1, 2, int(rng.integers(3, 30)), int(rng.integers(30, 400))):
            p = random_pvalues(rng, m)
            expected, pi0 = storey_oracle(p.tolist(), lambda_)
            r = storey(p, lambda_=lambda_, alpha=0.1)
            assert r.pi0 == pytest.approx(pi0, rel=1e-15)
            np.testing.assert_allclose(r.p_adjusted, expected, rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(r.reject, r.p_adjusted <= 0.1)

    def test_pi0_recorded_and_noted(self) -> None:
        # pi0 = #{p > 0.5} / (6 * 0.5) = 2 / 3; q = pi0 * BH
        p = [0.01, 0.04, 0.06, 0.20, 0.70, 0.90]
        r = storey(p)
        assert r.pi0 == pytest.approx(2 / 3)
        assert r.notes == ("estimated pi0 = 0.6667: 2 of 6 p-values exceed 0.5.",)
        bh = benjamini_hochberg(p).p_adjusted
        np.testing.assert_allclose(r.p_adjusted, 2 / 3 * bh, rtol=1e-15)
        assert r.to_dict()["pi0"] == pytest.approx(2 / 3)

    def test_pi0_capped_at_one(self) -> None:
        r = storey([0.6, 0.7, 0.8, 0.01])
        assert r.pi0 == 1.0
        np.testing.assert_array_equal(
            r.p_adjusted, benjamini_hochberg([0.6, 0.7, 0.8, 0.01]).p_adjusted
        )

    def test_no_pvalue_above_lambda_falls_back_to_bh(self) -> None:
        p = [0.01, 0.2, 0.3, 0.4]
        r = storey(p, lambda_=0.5)
        assert r.pi0 == 1.0
        assert "the pi0 estimate 0 would make every q-value 0" in r.notes[0]
        np.testing.assert_array_equal(r.p_adjusted, benjamini_hochberg(p).p_adjusted)

    def test_qvalue_can_be_below_raw_p(self) -> None:
        r = storey([0.001, 0.01, 0.02, 0.9])  # pi0 = 1 / (4 * 0.5) = 0.5
        assert r.p_adjusted[3] == pytest.approx(0.45)  # pi0 scales the largest p-value down


pvalue_lists = st.lists(
    st.one_of(
        st.sampled_from([0.0, 1e-300, 0.001, 0.01, 0.02, 0.05, 0.2, 0.5, 1.0]),
        st.floats(0.0, 1.0),
    ),
    min_size=1,
    max_size=30,
)
alphas = st.floats(0.001, 0.5)


class TestProperties:
    @pytest.mark.parametrize("method", list(FUNCTIONS))
    @given(p=pvalue_lists, alpha=alphas)
    def test_bounds_and_decision_rule(self, method: str, p: list[float], alpha: float) -> None:
        r = FUNCTIONS[method](p, alpha=alpha)
        assert r.p_adjusted.dtype == np.float64
        assert np.all((r.p_adjusted >= 0) & (r.p_adjusted <= 1))
        if method != "storey":  # q-values are scaled by pi0 <= 1
            assert np.all(r.p_adjusted >= np.asarray(p))
        np.testing.assert_array_equal(r.reject, r.p_adjusted <= alpha)

    @pytest.mark.parametrize("method", list(FUNCTIONS))
    @given(p=pvalue_lists)
    def test_monotone_in_raw_p(self, method: str, p: list[float]) -> None:
        raw = np.asarray(p)
        adjusted = FUNCTIONS[method](p).p_adjusted
        order = np.argsort(raw, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= 0)  # ranks preserved
        for value in np.unique(raw):  # equal p-values, equal adjusted p-values
            assert np.unique(adjusted[raw == value]).size == 1

    @pytest.mark.parametrize("method", list(FUNCTIONS))
    @given(data=st.data(), p=pvalue_lists)
    def test_permuting_the_input_permutes_the_result(
        self, method: str, data: st.DataObject, p: list[float]
    ) -> None:
        perm = np.array(data.draw(st.permutations(range(len(p)))), dtype=np.intp)
        raw = np.asarray(p)
        a = FUNCTIONS[method](raw)
        b = FUNCTIONS[method](raw[perm])
        np.testing.assert_array_equal(a.p_adjusted[perm], b.p_adjusted)
        np.testing.assert_array_equal(a.reject[perm], b.reject)

    @given(p=pvalue_lists, alpha=alphas)
    def test_rejections_nested_by_power(self, p: list[float], alpha: float) -> None:
        results = {name: FUNCTIONS[name](p, alpha=alpha) for name in FUNCTIONS}
        # A decision at exactly alpha (up to rounding) is not informative about power.
        assume(all(np.all(np.abs(r.p_adjusted - alpha) > 1e-12) for r in results.values()))
        chains = [
            FWER_CHAIN,
            ["bonferroni", "sidak", "holm-sidak"],
            ["holm", "holm-sidak"],
            ["hochberg", "bh"],
            ["by", "bh"],
        ]
        for chain in chains:
            for weaker, stronger in itertools.pairwise(chain):
                weak, strong = results[weaker].reject, results[stronger].reject
                assert np.all(strong[weak]), f"{weaker} rejects something {stronger} keeps"

    @given(p=pvalue_lists)
    def test_adjusted_pvalues_ordered_by_power(self, p: list[float]) -> None:
        adjusted = {name: FUNCTIONS[name](p).p_adjusted for name in [*FWER_CHAIN, "bh", "by"]}
        for weaker, stronger in [*itertools.pairwise(FWER_CHAIN), ("by", "bh")]:
            assert np.all(adjusted[stronger] <= adjusted[weaker] * (1 + 1e-12))

    @given(p=pvalue_lists)
    def test_mapping_keeps_labels_and_order(self, p: list[float]) -> None:
        labels = [f"task-{i}" for i in reversed(range(len(p)))]
        by_label = hommel(dict(zip(labels, p, strict=True)))
        assert by_label.labels == tuple(labels)
        np.testing.assert_array_equal(by_label.p_adjusted, hommel(p).p_adjusted)


class TestBadInput:
    @pytest.mark.parametrize(
        ("pvalues", "message"),
        [
            ([], "`pvalues` is empty: give one p-value per hypothesis in the family."),
            (
                [0.1, math.nan, 0.3, math.nan],
                "`pvalues` has 2 NaN value(s) (at position 1, position 3): a test could not "
                "be computed. Fix or remove it first (that changes the family).",
            ),
            (
                {"mmlu": 0.1, "gpqa": math.nan},
                "`pvalues` has 1 NaN value(s) (at label 'gpqa')",
            ),
            (
                [0.5, 1.5, -0.1],
                "`pvalues` must lie in [0, 1]; got 2 value(s) outside: 1.5 at position 1, "
                "-0.1 at position 2. Pass p-values, not test statistics or log p-values.",
            ),
            (np.array([0.2, np.inf]), "got 1 value(s) outside: inf at position 1."),
            (
                [0.1, "x", None],
                "`pvalues` has 2 non-numeric value(s): 'x' at position 1, None at position 2. "
                "Give one number in [0, 1] per hypothesis.",
            ),
            ([True, False], "non-numeric value(s): True at position 0, False at position 1."),
            ({"a": 0.1, "b": "0.2"}, "non-numeric value(s): '0.2' at label 'b'."),
            (
                np.array([[0.1, 0.2], [0.3, 0.4]]),
                "`pvalues` must be a flat sequence, array or mapping of p-values; got shape "
                "(2, 2). Wrap a single p-value in a list; np.ravel() a matrix only if its "
                "layout means nothing.",
            ),
            (0.3, "got float 0.3. Wrap a single p-value in a list"),
            ("0.3", "got str '0.3'."),
            ([[0.1, 0.2], [0.3]], "`pvalues` must be a flat list of numbers; got ragged nesting."),
            (
                {1: 0.1, "b": 0.2},
                "`pvalues` labels must be strings; got 1. Convert them with str().",
            ),
        ],
    )
    def test_pvalues(self, pvalues: object, message: str) -> None:
        with pytest.raises(DataError) as info:
            holm(pvalues)  # type: ignore[arg-type]
        assert message in str(info.value)

    @pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.05, math.nan, "0.05", True, None])
    def test_alpha(self, alpha: object) -> None:
        with pytest.raises(DataError) as info:
            bonferroni(P4, alpha=alpha)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"`alpha` must be a number in (0, 1); got {alpha!r}. Use e.g. 0.05."
        )

    @pytest.mark.parametrize("lambda_", [1, 1.0, -0.1, math.nan, "0.5"])
    def test_lambda(self, lambda_: object) -> None:
        with pytest.raises(DataError) as info:
            storey(P4, lambda_=lambda_)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"`lambda_` must be a number in [0, 1); got {lambda_!r}. Use e.g. 0.5."
        )

    def test_method(self) -> None:
        with pytest.raises(DataError) as info:
            adjust(P4, method="fdr_bh")  # type: ignore[arg-type]
        assert str(info.value) == (
            "`method` must be one of 'bonferroni', 'sidak', 'holm', 'holm-sidak', 'hochberg', "
            "'hommel', 'bh', 'by', 'storey'; got 'fdr_bh'. Use 'holm' to control the "
            "family-wise error rate or 'bh' for the FDR."
        )

    def test_is_a_value_error(self) -> None:
        with pytest.raises(ValueError, match="is empty"):
            hommel([])


class TestResult:
    def test_adjust_dispatches_to_each_function(self) -> None:
        p = np.random.default_rng(11).random(25)
        for method, function in FUNCTIONS.items():
            a, b = adjust(p, method=method, alpha=0.1), function(p, alpha=0.1)  # type: ignore[arg-type]
            assert a.method == b.method == method
            np.testing.assert_array_equal(a.p_adjusted, b.p_adjusted)
        assert adjust(p).method == "holm"

    def test_adjusted_by_label(self) -> None:
        r = holm({"mmlu": 0.01, "gpqa": 0.04, "aime": 0.06, "swe": 0.20})
        assert r.adjusted("mmlu") == (pytest.approx(0.04), True)
        assert r.adjusted("aime") == (pytest.approx(0.12), False)
        with pytest.raises(DataError, match="`label` 'hle' is not in this family; its labels "):
            r.adjusted("hle")
        with pytest.raises(DataError, match="this result has no labels"):
            holm(P4).adjusted("mmlu")

    def test_sequence_input_has_no_labels(self) -> None:
        assert holm(P4).labels is None
        assert holm(tuple(P4)).labels is None

    def test_to_dict_is_strict_json(self) -> None:
        r = hommel({"mmlu": 0.01, "gpqa": 0.04, "aime": 0.06, "swe": 0.20}, alpha=0.05)
        d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
        assert d["kind"] == "multiplicity"
        assert d["schema_version"] == SCHEMA_VERSION
        assert d["method"] == "hommel"
        assert d["error_rate"] == "fwer"
        assert d["labels"] == ["mmlu", "gpqa", "aime", "swe"]
        assert d["p_adjusted"] == pytest.approx([0.04, 0.09, 0.12, 0.20])
        assert d["reject"] == [True, False, False, False]
        assert (d["n_tests"], d["n_rejected"], d["pi0"], d["nulls"]) == (4, 1, None, {})
        assert benjamini_yekutieli(P4).to_dict()["error_rate"] == "fdr"

    def test_to_dict_nulls_for_undefined_values(self) -> None:
        r = MultipleTestResult(
            method="romano-wolf",
            alpha=0.05,
            pvalues=np.array([0.01, math.nan]),
            p_adjusted=np.array([0.02, math.nan]),
            reject=np.array([True, False]),
            labels=("a", "b"),
        )
        d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
        assert d["pvalues"] == [0.01, None]
        assert set(d["nulls"]) == {"pvalues", "p_adjusted"}
        assert r.error_rate == "fwer"

    def test_str_is_an_aligned_table(self) -> None:
        assert str(holm(P4)) == (
            "Holm adjustment (FWER) at alpha = 0.05: 1 of 4 rejected\n"
            "  #  raw p  adjusted p  reject\n"
            "  0   0.01        0.04     yes\n"
            "  1   0.04        0.12      no\n"
            "  2   0.06        0.12      no\n"
            "  3    0.2         0.2      no"
        )
        text = str(storey({"mmlu": 0.01, "gpqa": 0.3, "aime": 0.9}))
        assert text.splitlines()[1:3] == [
            "  label  raw p  adjusted p  reject",
            "  mmlu    0.01        0.02     yes",
        ]
        assert "pi0 = 0.6667" in text
        assert text.endswith("note: estimated pi0 = 0.6667: 1 of 3 p-values exceed 0.5.")

    def test_long_families_are_summarised(self) -> None:
        r = bonferroni(np.linspace(0.0, 1.0, 1000))
        assert len(str(r).splitlines()) == 1 + 1 + 50 + 1
        assert str(r).endswith("... 950 more (see p_adjusted and reject)")
        assert r._repr_html_().count("<tr>") == 51

    def test_html_escapes_every_label(self) -> None:
        page = holm({"<script>alert(1)</script>": 0.01, "a&b": 0.5})._repr_html_()
        assert "<script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "a&amp;b" in page

    def test_arrays_are_read_only_copies(self) -> None:
        p = np.array(P4)
        r = holm(p)
        p[0] = 0.9
        assert r.pvalues[0] == 0.01
        with pytest.raises(ValueError, match="read-only"):
            r.p_adjusted[0] = 0.0

    def test_single_pvalue_is_unchanged(self) -> None:
        for function in FUNCTIONS.values():  # storey: no p above lambda, so pi0 = 1
            r = function([0.03])
            assert r.p_adjusted.tolist() == pytest.approx([0.03], rel=1e-15)
            assert r.reject.tolist() == [True]


def test_hommel_controls_the_familywise_error_under_the_global_null() -> None:
    # 2,000 families of 10 independent null p-values; P(any rejection) <= 0.05 for Simes-based
    # procedures under independence (exactly 0.05 for the global Simes test).
    rng = np.random.default_rng(20240601)
    hits = sum(hommel(rng.random(10)).n_rejected > 0 for _ in range(2000))
    assert hits == 97
    assert stats.binomtest(hits, 2000, 0.05).pvalue > 0.01
