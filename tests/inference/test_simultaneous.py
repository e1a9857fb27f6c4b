"""Romano-Wolf step-down and max-T intervals: loop oracles, limits, properties, calibration."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from evalsig.errors import DataError
from evalsig.inference import resampling, simultaneous
from evalsig.inference._common import Alternative
from evalsig.inference.multiplicity import bonferroni, holm
from evalsig.inference.resampling import bootstrap_totals
from evalsig.inference.simultaneous import SimultaneousResult, romano_wolf

ALTERNATIVES: list[Alternative] = ["two-sided", "greater", "less"]


# --- a plain-loop reference fed the engine's own draws ---------------------------------------


class Recorder:
    """Stands in for the engine: returns its totals and records how often each row was drawn.

    The engine is linear in the rows, so appending one-hot columns of the distinct rows
    reveals the draw counts with the same random stream (the distinct rows, their order,
    and so the engine's path are unchanged). Identical rows are the same item for every
    statistic, so an atom's count is given to its first row.
    """

    def __init__(self) -> None:
        self.counts: list[np.ndarray] = []

    def __call__(self, data: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data, dtype=np.float64)
        distinct, atom_of = np.unique(x, axis=0, return_inverse=True)
        atom_of = atom_of.ravel()
        onehot = np.eye(len(distinct))[atom_of]
        totals = bootstrap_totals(np.column_stack([x, onehot]), n_resamples, rng)
        atom_counts = np.rint(totals[:, x.shape[1] :]).astype(np.int64)
        rows = np.zeros((n_resamples, len(x)), dtype=np.int64)
        for j in range(len(distinct)):
            rows[:, np.flatnonzero(atom_of == j)[0]] = atom_counts[:, j]
        assert (rows.sum(axis=1) == len(x)).all()
        self.counts.append(rows)
        return totals[:, : x.shape[1]]


def _close(actual: Any, desired: Any, name: str = "") -> None:
    """Equal to 1e-12 (relative and absolute); NaN matches NaN."""
    np.testing.assert_allclose(actual, desired, rtol=1e-12, atol=1e-12, err_msg=name)


def _recorded(
    monkeypatch: pytest.MonkeyPatch, data: dict[str, Any], **options: Any
) -> tuple[SimultaneousResult, list[np.ndarray]]:
    """The result with the recorded draws, after checking the recording changes nothing."""
    plain = romano_wolf(data, **options)
    recorder = Recorder()
    with monkeypatch.context() as patch:
        patch.setattr(simultaneous, "bootstrap_totals", recorder)
        recorded = romano_wolf(data, **options)
    for name in ("pvalues", "p_adjusted", "ci_low", "ci_high", "correlation"):
        _close(getattr(recorded, name), getattr(plain, name))
    return plain, recorder.counts


def _joint_draws(
    data: Mapping[str, Sequence[float]], ids: Mapping[str, Sequence[Hashable]], counts: np.ndarray
) -> list[dict[str, list[float]]]:
    """Per resample, the values each task gets from the drawn items of the union."""
    union = list(dict.fromkeys(item for task in data for item in ids[task]))
    value = {task: dict(zip(ids[task], data[task], strict=True)) for task in data}
    draws = []
    for row in counts:
        drawn = [item for item, c in zip(union, row, strict=True) for _ in range(c)]
        draws.append({t: [value[t][i] for i in drawn if i in value[t]] for t in data})
    return draws


def _independent_draws(
    data: Mapping[str, Sequence[float]], counts: list[np.ndarray]
) -> list[dict[str, list[float]]]:
    """Per resample, each task's own drawn values (one engine call per task, in order)."""
    b = len(counts[0])
    return [
        {
            task: [
                float(v) for v, c in zip(data[task], counts[j][r], strict=True) for _ in range(c)
            ]
            for j, task in enumerate(data)
        }
        for r in range(b)
    ]


def _reference(
    data: Mapping[str, Sequence[float]],
    draws: list[dict[str, list[float]]],
    null: Mapping[str, float],
    alternative: str,
    level: float,
) -> dict[str, Any]:
    """Romano-Wolf and max-T by plain loops over explicit resamples."""
    tasks = list(data)
    b = len(draws)
    est = {t: statistics.fmean(data[t]) for t in tasks}
    se = {t: statistics.stdev(data[t]) / math.sqrt(len(data[t])) for t in tasks}
    t_obs = {t: (est[t] - null[t]) / se[t] for t in tasks}

    def orient(x: float) -> float:
        return abs(x) if alternative == "two-sided" else x if alternative == "greater" else -x

    t_star: list[dict[str, float]] = []
    replicates: list[list[float]] = []
    for draw in draws:
        row, rep = {}, []
        for t in tasks:
            v = draw[t]
            if not v:
                row[t] = 0.0
                rep.append(est[t])
                continue
            s = statistics.stdev(v) / math.sqrt(len(v)) if len(set(v)) > 1 else se[t]
            row[t] = (statistics.fmean(v) - est[t]) / s
            rep.append(statistics.fmean(v))
        t_star.append(row)
        replicates.append(rep)

    big = {t: orient(t_obs[t]) for t in tasks}
    tie = {t: 1e-10 * max(1.0, abs(big[t])) for t in tasks}
    raw = {t: (1 + sum(orient(r[t]) >= big[t] - tie[t] for r in t_star)) / (b + 1) for t in tasks}
    order = sorted(tasks, key=lambda t: -big[t])
    adjusted, running = {}, 0.0
    for j, t in enumerate(order):
        rest = order[j:]
        hits = sum(max(orient(r[m]) for m in rest) >= big[t] - tie[t] for r in t_star)
        running = max(running, (1 + hits) / (b + 1))
        adjusted[t] = running
    maxima = sorted(max(orient(r[t]) for t in tasks) for r in t_star)
    c = maxima[math.ceil(round(level * (b + 1), 9)) - 1]
    low = [est[t] - c * se[t] if alternative != "less" else -math.inf for t in tasks]
    high = [est[t] + c * se[t] if alternative != "greater" else math.inf for t in tasks]
    return {
        "estimate": [est[t] for t in tasks],
        "se": [se[t] for t in tasks],
        "statistic": [t_obs[t] for t in tasks],
        "pvalues": [raw[t] for t in tasks],
        "p_adjusted": [adjusted[t] for t in tasks],
        "critical_value": c,
        "ci_low": low,
        "ci_high": high,
        "correlation": np.corrcoef(np.array(replicates), rowvar=False),
    }


def _assert_matches(result: SimultaneousResult, expected: dict[str, Any]) -> None:
    for name, value in expected.items():
        _close(getattr(result, name), value, name)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_joint_overlapping_tasks_match_the_loop_reference(
    monkeypatch: pytest.MonkeyPatch, alternative: Alternative
) -> None:
    # Four tasks on overlapping items q0..q59; "tiny" has 3 of the 60 items, so many
    # resamples draw none of them (t* = 0) or one item repeated (observed se used).
    rng = np.random.default_rng(3)
    ids = {
        "a": [f"q{i}" for i in range(30)],
        "b": [f"q{i}" for i in range(10, 45)],
        "c": [f"q{i}" for i in range(40, 60)],
        "tiny": ["q5", "q50", "q41"],
    }
    shared = rng.normal(size=60)
    data = {t: [0.1 + shared[int(i[1:])] + rng.normal() for i in items] for t, items in ids.items()}
    null = {"a": 0.0, "b": 0.2, "c": -0.1, "tiny": 0.0}
    options = {"item_ids": ids, "null": null, "alternative": alternative, "n_resamples": 300}
    result, counts = _recorded(monkeypatch, data, **options, rng=8)
    assert result.scheme == "joint"
    assert [c.shape for c in counts] == [(300, 60)]
    expected = _reference(data, _joint_draws(data, ids, counts[0]), null, alternative, 0.95)
    _assert_matches(result, expected)
    assert any(
        n.startswith("task 'tiny': ") and "drew none of its items" in n for n in result.notes
    )
    assert any(
        n.startswith("task 'tiny': ") and "fewer than two distinct" in n for n in result.notes
    )


def test_joint_binary_differences_match_the_loop_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 0/+-1 differences of two metrics on 400 shared items plus a subset task: few distinct
    # rows, so the engine draws multinomial counts over them rather than item indices.
    rng = np.random.default_rng(4)
    right = rng.random((400, 2)) < [0.55, 0.7]
    a = right[:, 1].astype(float) - right[:, 0]
    b = np.where(rng.random(400) < 0.8, a, 0.0)
    ids = {"a": list(range(400)), "b": list(range(400)), "subset": list(range(0, 400, 5))}
    data = {"a": a.tolist(), "b": b.tolist(), "subset": a[::5].tolist()}
    result, counts = _recorded(monkeypatch, data, item_ids=ids, n_resamples=250, rng=2)
    distinct = len(np.unique(np.column_stack([a, b, np.arange(400) % 5 == 0]), axis=0))
    assert distinct * resampling.COMPRESSION_GAIN <= 400  # the multinomial path
    zero = dict.fromkeys(data, 0.0)
    expected = _reference(data, _joint_draws(data, ids, counts[0]), zero, "two-sided", 0.95)
    _assert_matches(result, expected)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_independent_tasks_match_the_loop_reference(
    monkeypatch: pytest.MonkeyPatch, alternative: Alternative
) -> None:
    rng = np.random.default_rng(5)
    data = {
        "x": rng.normal(0.3, 1.0, 12).tolist(),
        "y": rng.exponential(1.0, 20).tolist(),
        "z": rng.normal(-0.1, 0.5, 7).tolist(),
        "binary": (rng.integers(0, 2, 200) - (rng.random(200) < 0.4)).astype(float).tolist(),
    }
    options = {"alternative": alternative, "n_resamples": 400, "confidence_level": 0.9}
    result, counts = _recorded(monkeypatch, data, **options, rng=6)
    assert result.scheme == "independent"
    assert [c.shape for c in counts] == [(400, 12), (400, 20), (400, 7), (400, 200)]
    zero = dict.fromkeys(data, 0.0)
    draws = _independent_draws(data, counts)
    _assert_matches(result, _reference(data, draws, zero, alternative, 0.9))
    assert "No item ids given: tasks taken to be on disjoint items" in result.notes[0]


# --- limiting cases ---------------------------------------------------------------------------


def test_one_task_is_the_bootstrap_t_test(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.random.default_rng(9).normal(0.25, 1.0, 40)
    r, counts = _recorded(monkeypatch, {"only": d}, n_resamples=999, rng=10)
    # the one-task bootstrap-t: t* = (mean* - mean) / se*, p = (1 + #{|t*| >= |t|}) / (B + 1)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(40))
    drawn = [np.repeat(d, c) for c in counts[0]]
    t_star = np.array([(x.mean() - d.mean()) / (x.std(ddof=1) / math.sqrt(40)) for x in drawn])
    p = (1 + np.sum(np.abs(t_star) >= abs(t))) / 1000
    assert r.pvalues[0] == pytest.approx(p, rel=1e-12)
    assert r.p_adjusted[0] == r.pvalues[0]
    assert r.critical_value == pytest.approx(np.sort(np.abs(t_star))[949], rel=1e-12)
    assert bool(r.reject[0]) is (not r.ci_low[0] <= 0.0 <= r.ci_high[0])
    assert (r.correlation.tolist(), math.isnan(r.mean_abs_correlation)) == ([[1.0]], True)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_two_identical_tasks_cost_nothing(alternative: Alternative) -> None:
    # Perfectly correlated tasks: the maximum of two equal statistics is one statistic, so
    # Romano-Wolf keeps the single-task p-value where Bonferroni would double it.
    d = np.random.default_rng(12).normal(0.3, 1.0, 50)
    ids = {"em": range(50), "em copy": range(50)}
    options: dict[str, Any] = {"alternative": alternative, "n_resamples": 2000, "rng": 13}
    one = romano_wolf({"em": d}, **options)
    two = romano_wolf({"em": d, "em copy": d.copy()}, item_ids=ids, **options)
    assert two.scheme == "joint"
    _close(two.p_adjusted, [one.pvalues[0]] * 2)
    _close(two.pvalues, [one.pvalues[0]] * 2)
    assert two.critical_value == pytest.approx(one.critical_value, rel=1e-12)
    assert two.correlation[0, 1] == pytest.approx(1.0, rel=1e-12)
    doubled = bonferroni(two.pvalues).p_adjusted  # min(1, 2p)
    assert (two.p_adjusted < doubled).all() or one.pvalues[0] == 1.0


def test_independent_tasks_give_about_the_sidak_critical_value() -> None:
    # Five tasks on disjoint items: max |t*| is the maximum of 5 independent |t_399|, whose
    # 95% quantile is the Sidak value t_399(1 - (1 - 0.95^(1/5)) / 2) = 2.5810.
    rng = np.random.default_rng(14)
    data = {f"subtask {k}": rng.normal(0.0, 1.0 + k / 4, 400) for k in range(5)}
    r = romano_wolf(data, n_resamples=20_000, rng=15)
    sidak = stats.t.ppf(1 - (1 - 0.95 ** (1 / 5)) / 2, df=399)
    assert sidak == pytest.approx(2.5810, abs=1e-4)
    assert r.critical_value == pytest.approx(2.5736, abs=1e-4)  # seeded
    assert abs(r.critical_value - sidak) < 0.05  # sd over resampling seeds: 0.011
    assert r.mean_abs_correlation < 0.02


def test_ids_without_shared_items_resample_independently() -> None:
    rng = np.random.default_rng(16)
    data = {"a": rng.normal(size=30), "b": rng.normal(size=25)}
    ids = {"a": [f"a{i}" for i in range(30)], "b": [f"b{i}" for i in range(25)]}
    with_ids = romano_wolf(data, item_ids=ids, n_resamples=500, rng=1)
    without = romano_wolf(data, n_resamples=500, rng=1)
    assert with_ids.scheme == without.scheme == "independent"
    np.testing.assert_array_equal(with_ids.p_adjusted, without.p_adjusted)
    assert not any("No item ids given" in note for note in with_ids.notes)


def test_non_inferiority_margins_per_task() -> None:
    rng = np.random.default_rng(17)
    data = {"math": rng.normal(0.0, 0.2, 300), "code": rng.normal(-0.2, 0.2, 300)}
    margin = {"math": -0.05, "code": -0.05}
    r = romano_wolf(data, null=margin, alternative="greater", n_resamples=2000, rng=18)
    expected_t = [(data[t].mean() + 0.05) / (data[t].std(ddof=1) / math.sqrt(300)) for t in data]
    np.testing.assert_allclose(r.statistic, expected_t, rtol=1e-12)
    assert r.reject.tolist() == [True, False]  # math is non-inferior; code is not
    assert np.isinf(r.ci_high).all()
    assert r.ci_low[0] > -0.05 > r.ci_low[1]
    assert r.null.tolist() == [-0.05, -0.05]


def test_constant_tasks_are_reported_not_faked() -> None:
    d = {"noisy": np.linspace(-1, 1.5, 40), "all +1": np.ones(8), "all 0": np.zeros(6)}
    r = romano_wolf(d, n_resamples=500, rng=0)
    assert r.statistic[1] == math.inf
    assert np.isnan(r.pvalues[1])
    assert np.isnan(r.p_adjusted[1])
    assert not r.reject[1]
    assert (r.ci_low[1], r.ci_high[1]) == (1.0, 1.0)
    assert (r.statistic[2], r.pvalues[2], r.p_adjusted[2]) == (0.0, 1.0, 1.0)
    assert any("task 'all +1': every item has the difference +1" in n for n in r.notes)
    payload = r.to_dict()
    json.dumps(payload, allow_nan=False)
    assert payload["pvalues"][1] is None
    assert payload["nulls"]["statistic[1]"].endswith("(+inf)")
    assert "zero standard error" in payload["nulls"]["pvalues[1]"]


def test_too_few_resamples_for_the_level_give_unbounded_intervals() -> None:
    r = romano_wolf({"a": np.arange(10.0), "b": np.arange(12.0) ** 2}, n_resamples=100, rng=0,
                    confidence_level=0.999)  # fmt: skip
    assert r.critical_value == math.inf
    assert np.isinf(r.ci_low).all()
    assert np.isinf(r.ci_high).all()
    assert "too few resamples for 99.9% intervals (unbounded); use more." in r.notes
    payload = r.to_dict()
    assert payload["critical_value"] is None
    assert payload["nulls"]["critical_value"] == "too few resamples for the level (+inf)"
    json.dumps(payload, allow_nan=False)


def test_rendering_and_json() -> None:
    rng = np.random.default_rng(20)
    data = {"<script>": rng.normal(0.8, 1, 30), "plain": rng.normal(0, 1, 30)}
    r = romano_wolf(data, n_resamples=500, rng=1)
    text = str(r)
    lines = text.splitlines()
    assert lines[0].startswith("Romano-Wolf step-down (studentized bootstrap, 500 independent")
    assert lines[0].endswith("at alpha = 0.05: 1 of 2 rejected; seed 1")
    header, first, second = lines[1:4]
    assert header.split()[:3] == ["task", "n", "estimate"]
    assert len({len(header), len(first), len(second)}) <= 2  # right-aligned columns
    assert first.startswith("  <script>")
    assert " yes " in first
    assert second.startswith("  plain   ")
    assert " no " in second
    assert "max-T critical value c =" in text
    page = r._repr_html_()
    assert "&lt;script&gt;" in page
    assert "<script>" not in page
    payload = r.to_dict()
    assert (payload["kind"], payload["schema_version"], payload["method"]) == (
        "simultaneous",
        1,
        "romano-wolf",
    )
    assert payload["alpha"] == 0.05
    assert payload["tasks"] == ["<script>", "plain"]
    assert payload["ci_low"] == r.ci_low.tolist()
    assert json.loads(json.dumps(payload, allow_nan=False)) == payload


def test_one_sided_intervals_in_json() -> None:
    r = romano_wolf({"a": np.arange(9.0), "b": -np.arange(7.0)}, alternative="less", rng=0,
                    n_resamples=200)  # fmt: skip
    payload = r.to_dict()
    assert payload["ci_low"] == [None, None]
    assert payload["nulls"]["ci_low[0]"].startswith("unbounded: a one-sided interval")
    json.dumps(payload, allow_nan=False)


# --- properties -------------------------------------------------------------------------------

# Distinct values per task keep every row of the data distinct, so the engine draws item
# indices, whose random stream does not depend on the values (only on the items' number).
task_values = st.lists(st.integers(-40, 40), min_size=2, max_size=12, unique=True).map(
    lambda v: [x / 8 for x in v]
)


@st.composite
def shared_family(draw: st.DrawFn) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """2 to 4 tasks on the same n items (same id order), distinct values within a task."""
    n = draw(st.integers(3, 10))
    k = draw(st.integers(2, 4))
    column = st.lists(st.integers(-40, 40), min_size=n, max_size=n, unique=True)
    data = {f"task{j}": [x / 8 for x in draw(column)] for j in range(k)}
    return data, {task: list(range(n)) for task in data}


@given(
    st.lists(task_values, min_size=1, max_size=4),
    st.sampled_from(ALTERNATIVES),
    st.integers(0, 2**16),
)
def test_adjusted_pvalues_are_at_least_raw_and_step_down_monotone(
    columns: list[list[float]], alternative: Alternative, seed: int
) -> None:
    data = {f"t{j}": v for j, v in enumerate(columns)}
    r = romano_wolf(data, alternative=alternative, n_resamples=100, rng=seed)
    assert (r.p_adjusted >= r.pvalues).all()
    assert (r.p_adjusted <= 1.0).all()
    assert (r.pvalues >= 1 / 101).all()
    oriented = simultaneous._orient(r.statistic, alternative)
    order = np.argsort(-oriented, kind="stable")
    assert (np.diff(r.p_adjusted[order]) >= 0).all()
    assert (r.reject == (r.p_adjusted <= r.alpha)).all()
    assert ((r.ci_low <= r.estimate) & (r.estimate <= r.ci_high)).all()


@given(shared_family(), st.sampled_from(ALTERNATIVES), st.integers(0, 2**16))
def test_negating_differences_and_flipping_the_alternative_changes_nothing(
    family: tuple[dict[str, list[float]], dict[str, list[int]]],
    alternative: Alternative,
    seed: int,
) -> None:
    data, ids = family
    flipped: Alternative = {"two-sided": "two-sided", "greater": "less", "less": "greater"}[
        alternative
    ]  # type: ignore[assignment]
    null = {t: 0.125 * j for j, t in enumerate(data)}
    r = romano_wolf(data, item_ids=ids, null=null, alternative=alternative, n_resamples=100,
                    rng=seed)  # fmt: skip
    negated = {t: [-x for x in v] for t, v in data.items()}
    minus = {t: -x for t, x in null.items()}
    s = romano_wolf(negated, item_ids=ids, null=minus, alternative=flipped, n_resamples=100,
                    rng=seed)  # fmt: skip
    _close(s.pvalues, r.pvalues)
    _close(s.p_adjusted, r.p_adjusted)
    _close(s.statistic, -r.statistic)
    _close(s.ci_low, -r.ci_high)
    assert s.critical_value == pytest.approx(r.critical_value, rel=1e-12)


@given(shared_family(), st.sampled_from(ALTERNATIVES), st.randoms(), st.integers(0, 2**16))
def test_permuting_tasks_permutes_the_results(
    family: tuple[dict[str, list[float]], dict[str, list[int]]],
    alternative: Alternative,
    shuffle: Any,
    seed: int,
) -> None:
    data, ids = family
    names = list(data)
    shuffle.shuffle(names)
    r = romano_wolf(data, item_ids=ids, alternative=alternative, n_resamples=100, rng=seed)
    s = romano_wolf({t: data[t] for t in names}, item_ids=ids, alternative=alternative,
                    n_resamples=100, rng=seed)  # fmt: skip
    perm = [r.tasks.index(t) for t in names]
    assert s.tasks == tuple(names)
    for name in ("estimate", "statistic", "pvalues", "p_adjusted", "ci_low", "ci_high"):
        _close(getattr(s, name), getattr(r, name)[perm])
    _close(s.correlation, r.correlation[np.ix_(perm, perm)])
    assert s.critical_value == pytest.approx(r.critical_value, rel=1e-12)


# --- calibration ------------------------------------------------------------------------------


def _equicorrelated(
    rng: np.random.Generator, n: int, k: int, rho: float, delta: float = 0.0
) -> dict[str, np.ndarray]:
    """K tasks on the same n items: d_ik = delta + sqrt(rho) u_i + sqrt(1 - rho) e_ik."""
    u = rng.normal(size=n)
    return {
        f"t{j}": delta + math.sqrt(rho) * u + math.sqrt(1 - rho) * rng.normal(size=n)
        for j in range(k)
    }


def test_familywise_error_with_correlated_null_tasks() -> None:
    # 600 data sets of K = 10 null tasks on 100 shared items, correlation 0.6 between tasks.
    rng = np.random.default_rng(2024)
    ids = {f"t{j}": [f"q{i}" for i in range(100)] for j in range(10)}
    any_rw = any_bonferroni = 0
    correlations = []
    for _ in range(600):
        r = romano_wolf(_equicorrelated(rng, 100, 10, 0.6), item_ids=ids, n_resamples=999, rng=rng)
        any_rw += bool(r.reject.any())
        any_bonferroni += bool(bonferroni(r.pvalues, alpha=0.05).reject.any())
        correlations.append(r.mean_abs_correlation)
    assert (any_rw, any_bonferroni) == (31, 23)
    low, high = stats.binom.interval(0.99, 600, 0.05)  # (17, 45)
    assert low <= any_rw <= high
    assert any_bonferroni < any_rw  # Bonferroni spends alpha on ten tests' worth of evidence
    assert np.mean(correlations) == pytest.approx(0.6, abs=0.02)


def test_max_t_intervals_cover_all_tasks_at_once() -> None:
    # 600 data sets of 6 tasks on overlapping windows of 60 of 160 items (a task's resampled
    # count varies), skewed noise, true differences from -0.2 to 0.3.
    rng = np.random.default_rng(11)
    deltas = np.linspace(-0.2, 0.3, 6)
    ids = {f"t{j}": list(range(20 * j, 20 * j + 60)) for j in range(6)}
    covered = 0
    for _ in range(600):
        u = rng.normal(size=160)
        data = {
            t: deltas[j]
            + math.sqrt(0.6) * u[items]
            + math.sqrt(0.4) * (rng.exponential(size=60) - 1)
            for j, (t, items) in enumerate(ids.items())
        }
        r = romano_wolf(data, item_ids=ids, n_resamples=999, rng=rng)
        covered += bool(((r.ci_low <= deltas) & (deltas <= r.ci_high)).all())
    assert covered == 573
    low, high = stats.binom.interval(0.99, 600, 0.95)  # (555, 583)
    assert low <= covered <= high


def test_romano_wolf_rejects_more_false_nulls_than_holm() -> None:
    # 100 data sets of 10 tasks that all truly differ by 0.25, correlation 0.9 between tasks.
    rng = np.random.default_rng(3)
    ids = {f"t{j}": range(100) for j in range(10)}
    rw = hm = 0
    for _ in range(100):
        data = _equicorrelated(rng, 100, 10, 0.9, delta=0.25)
        r = romano_wolf(data, item_ids=ids, n_resamples=999, rng=rng)
        rw += r.n_rejected
        hm += holm(r.pvalues, alpha=0.05).n_rejected
    assert (rw, hm) == (557, 425)  # of 1000 false nulls
    assert rw > 1.25 * hm


@pytest.mark.slow
def test_familywise_error_one_sided_at_the_margin_on_disjoint_subtasks() -> None:
    # 1000 data sets of 6 disjoint subtasks (no ids) whose true difference is exactly the
    # non-inferiority margin -0.05 (the boundary of the null, where the error rate is
    # largest), with right-skewed noise.
    rng = np.random.default_rng(31)
    sizes = [30, 40, 50, 60, 80, 100]
    rejected = 0
    for _ in range(1000):
        data = {f"s{j}": -0.05 + 0.3 * (rng.exponential(size=n) - 1) for j, n in enumerate(sizes)}
        r = romano_wolf(data, null=-0.05, alternative="greater", n_resamples=999, rng=rng)
        rejected += bool(r.reject.any())
    assert rejected == 38
    low, high = stats.binom.interval(0.99, 1000, 0.05)  # (33, 69)
    assert low <= rejected <= high


# --- bad input --------------------------------------------------------------------------------


GOOD = {"a": [0.1, -0.2, 0.3], "b": [0.0, 1.0, 0.5]}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"item_ids": {"a": ["q1", "q2"], "b": ["q1", "q2", "q3"]}},
            r"`item_ids\['a'\]` has 2 ids but `differences\['a'\]` has 3 values",
        ),
        (
            {"item_ids": {"a": ["q1", "q2", "q1"], "b": ["q1", "q2", "q3"]}},
            r"`item_ids\['a'\]` has 1 repeated id\(s\) \('q1'\); each item may appear once",
        ),
        ({"item_ids": {"a": ["q1", "q2", "q3"]}}, r"`item_ids` has no entry for task\(s\) 'b'"),
        ({"item_ids": {"a": "abc", "b": "xyz"}}, r"`item_ids\['a'\]` must be a sequence"),
        ({"item_ids": [["q1", "q2", "q3"]]}, r"`item_ids` must be a mapping task name -> ids"),
        (
            {"item_ids": {"a": [[1], [2], [3]], "b": [1, 2, 3]}},
            r"`item_ids\['a'\]` has missing \(None\) or unhashable ids",
        ),
        (
            {"item_ids": {"a": ["q1", None, "q3"], "b": [1, 2, 3]}},
            r"`item_ids\['a'\]` has missing \(None\) or unhashable ids",
        ),
        (
            {"item_ids": {"a": [1, 2, 3], "b": [1, 2, 3], "c": [1, 2]}},
            r"`item_ids` has unknown task\(s\) 'c'; the tasks are 'a', 'b'\.",
        ),
        ({"null": True}, r"`null` for task 'a' must be a finite number .*; got True"),
        ({"alternative": "bigger"}, r"`alternative` must be one of 'two-sided', 'less', 'greater'"),
        ({"n_resamples": 50}, r"`n_resamples` must be at least 100; got 50"),
        ({"null": {"a": 0.0}}, r"`null` has no entry for task\(s\) 'b'; give one hypothesised"),
        ({"null": {"a": 0.0, "b": 0.0, "c": 1.0}}, r"`null` has unknown task\(s\) 'c'"),
        ({"null": math.nan}, r"`null` for task 'a' must be a finite number"),
        ({"confidence_level": 95}, r"`confidence_level` must be a number strictly between"),
        ({"rng": "seed"}, r"`rng` must be a numpy.random.Generator"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(DataError, match=message):
        romano_wolf(GOOD, **kwargs)


@pytest.mark.parametrize(
    ("differences", "message"),
    [
        (
            {"a": [0.1], "b": [0.0, 1.0]},
            r"`differences\['a'\]` has 1 item\(s\); each task needs at least 2 items\.",
        ),
        ({"a": [], "b": [0.0, 1.0]}, r"`differences\['a'\]` has 0 item\(s\)"),
        ({}, r"`differences` is empty"),
        ([[0.1, 0.2]], r"`differences` must be a mapping task name -> per-item differences"),
        ({1: [0.1, 0.2]}, r"`differences` keys must be task names \(strings\); got 1"),
        (
            {"a": [0.1, math.nan, 0.3]},
            r"`differences\['a'\]` has 1 NaN value\(s\) \('position 1'\)",
        ),
        ({"a": [0.1, "x", 0.3]}, r"`differences\['a'\]` has 1 non-numeric value\(s\): 'x' at"),
        ({"a": [[0.1, 0.2], [0.3, 0.4]]}, r"`differences\['a'\]` must be one-dimensional"),
    ],
)
def test_bad_differences(differences: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        romano_wolf(differences)


def test_bad_values_are_named_by_item_id() -> None:
    with pytest.raises(
        DataError, match=r"`differences\['a'\]` has 1 NaN value\(s\) \('q7'\); drop or fill"
    ):
        romano_wolf({"a": [0.1, math.nan]}, item_ids={"a": ["q3", "q7"]})
