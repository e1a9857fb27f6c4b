"""A one-sided test whose data point significantly the other way says so (issue 28): the
order of baseline and candidate, or the side, may be reversed. One rule
(``reversed_side_note``, applied where every paired result is built) for compare, every
paired test and pass@k comparisons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.inference import bootstrap, paired_t, permutation_test, wilcoxon
from evalsig.passk import SampleCounts, compare_pass_at_k

runner = CliRunner()
REVERSED = "the data point the other way"


def _pair(n: int = 300, shift: float = 0.03, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.6, 0.1, n)
    return base, base + rng.normal(shift, 0.05, n)


def _reversed(notes: tuple[str, ...] | list[str]) -> list[str]:
    return [n for n in notes if REVERSED in n]


@pytest.mark.parametrize("method", ["paired-t", "permutation", "bootstrap", "wilcoxon"])
def test_swapped_sides_of_a_one_sided_compare_are_named(method: str) -> None:
    base, cand = _pair()
    swapped = compare(cand, base, one_sided=True, method=method, n_resamples=2000, rng=1)
    assert swapped.pvalue > 0.99
    (note,) = _reversed(swapped.notes)
    assert "swapped order" in note
    assert "alternative='less'" in note
    right = compare(base, cand, one_sided=True, method=method, n_resamples=2000, rng=1)
    assert not _reversed(right.notes)
    two = compare(cand, base, method=method, n_resamples=2000, rng=1)
    assert not _reversed(two.notes)  # a two-sided test has no wrong side


def test_the_other_side_too_and_mcnemar_and_clusters() -> None:
    base, cand = _pair()
    less = compare(base, cand, alternative="less")  # the candidate is better: 'less' is wrong
    (note,) = _reversed(less.notes)
    assert "significantly above 0" in note
    assert "alternative='greater'" in note
    rng = np.random.default_rng(3)
    b = (rng.random(2000) < 0.5).astype(float)
    c = np.where(rng.random(2000) < 0.1, 1.0, b)  # the candidate fixes 10% of the items
    assert _reversed(compare(c, b, one_sided=True).notes)  # McNemar
    clusters = np.arange(300) // 10
    base, cand = _pair()
    assert _reversed(compare(cand, base, one_sided=True, cluster=clusters).notes)


def test_no_note_when_the_data_do_not_point_the_other_way_significantly() -> None:
    base, cand = _pair(shift=-0.002, n=50)  # slightly worse, far from significant
    result = compare(base, cand, one_sided=True)
    assert result.pvalue > 0.5
    assert not _reversed(result.notes)


def test_the_paired_tests_of_the_inference_layer_share_the_rule() -> None:
    base, cand = _pair()
    for test in (paired_t, wilcoxon):
        assert _reversed(test(baseline=cand, candidate=base, alternative="greater").notes)
    for test in (permutation_test, bootstrap):
        result = test(baseline=cand, candidate=base, alternative="greater", n_resamples=2000, rng=1)
        assert _reversed(result.notes)


def test_pass_at_k_comparisons_share_the_rule() -> None:
    base = SampleCounts(n=[10] * 60, c=[i % 5 for i in range(60)])
    cand = SampleCounts(n=[10] * 60, c=[i % 5 + (i % 3 == 0) for i in range(60)])
    swapped = compare_pass_at_k(cand, base, [1, 5], alternative="greater")
    assert all(_reversed(row.notes) for row in swapped.rows)
    assert not any(_reversed(row.notes) for row in compare_pass_at_k(base, cand, [1, 5]).rows)


@settings(max_examples=30, derandomize=True, deadline=None)
@given(
    shift=st.floats(-0.05, 0.05),
    seed=st.integers(0, 2**16),
    side=st.sampled_from(["greater", "less"]),
)
def test_the_note_appears_exactly_when_the_opposite_test_rejects(
    shift: float, seed: int, side: str
) -> None:
    base, cand = _pair(n=80, shift=shift, seed=seed)
    result = compare(base, cand, alternative=side, method="paired-t")
    opposite = compare(
        base, cand, alternative="less" if side == "greater" else "greater", method="paired-t"
    )
    assert bool(_reversed(result.notes)) == (opposite.pvalue < 0.05)


def test_the_cli_shows_the_note(tmp_path: Path) -> None:
    base, cand = _pair()
    paths = []
    for name, values in (("base", base), ("cand", cand)):
        path = tmp_path / f"{name}.csv"
        path.write_text("id,score\n" + "".join(f"q{i},{v}\n" for i, v in enumerate(values)))
        paths.append(str(path))
    shown = runner.invoke(app, ["compare", paths[1], paths[0], "--one-sided"])
    assert shown.exit_code == 0
    assert REVERSED in shown.stdout
    assert "--alternative" in shown.stdout
    right = runner.invoke(app, ["compare", paths[0], paths[1], "--one-sided"])
    assert REVERSED not in right.stdout


def test_a_bootstrap_with_every_replicate_on_one_side_has_its_p_values() -> None:
    """BCa p-values when no replicate reaches 0: the far side's is 1 (not NaN) and the
    two-sided one twice the near side's (not 1)."""
    base, cand = _pair()
    one = compare(cand, base, one_sided=True, method="bootstrap", n_resamples=2000, rng=1)
    assert one.pvalue == 1.0
    two = compare(cand, base, method="bootstrap", n_resamples=2000, rng=1)
    assert 0.0 < two.pvalue < 0.01  # the near side's is about 1 / 2001 (BCa-adjusted)
