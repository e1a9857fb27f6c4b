"""Values the newer commands used to take silently, degenerate results that used to carry no
note, and errors that pointed the wrong way: each class in Python and where a user meets it
on the command line (one line ``evalsig: error: ...``; exit 4 for data, 2 for usage)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

import evalsig.cli.arena  # registers the commands used below
import evalsig.cli.bias
import evalsig.cli.judge
import evalsig.cli.meta
import evalsig.cli.noise
import evalsig.cli.power
import evalsig.cli.score  # noqa: F401
from evalsig.cli.application import EXIT_DATA_ERROR, EXIT_USAGE, app
from evalsig.errors import DataError

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("evalsig: error: "), err
    assert "Traceback" not in err
    return lines[0]


def _write(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# --- position bias: a tie is a tie, not "second preferred" ------------------------------------


FIRST = ["A", "B"] * 10
CHOICE = ["A", "B", "A", "A", "B", "B", "A", "B", "A", "A"] * 2


def test_ties_are_counted_apart_and_left_out_of_the_test() -> None:
    from evalsig.judge import position_bias

    base = position_bias(CHOICE, FIRST)
    tied = position_bias([*CHOICE, "tie", "Tie", "draw"], [*FIRST, "A", "B", "A"])
    assert tied.ties == 3
    assert (tied.n, tied.first_preferred) == (base.n, base.first_preferred) == (20, 14)
    assert tied.estimate == base.estimate == pytest.approx(14 / 20 - 0.5)
    assert (tied.ci.low, tied.ci.high, tied.pvalue) == (base.ci.low, base.ci.high, base.pvalue)
    assert any("3 of 23 judgments are ties" in note for note in tied.notes)
    assert tied.to_dict()["ties"] == 3


def test_a_third_choice_is_a_tie_when_the_two_responses_are_known() -> None:
    from evalsig.judge import position_bias

    # "C" (MT-Bench's tie verdict) is neither response shown: A and B are shown first
    result = position_bias([*CHOICE, "C", "C"], [*FIRST, "A", "B"])
    assert (result.ties, result.n) == (2, 20)
    notes = " ".join(result.notes)
    assert "the choice 'C' (2 judgments) is neither response shown: read as a tie" in notes
    # model names: the pair judged in both orders shows its two responses
    first = ["gpt", "claude", "gpt", "gemini"] * 3
    pair = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    choice = ["gpt", "claude", "gpt", "none of them", "claude", "gpt"]
    choice += ["gemini", "gemini", "gpt", "gpt", "gemini", "gpt"]
    by_pair = position_bias(choice, first, pair=pair)
    assert by_pair.ties == 1
    assert by_pair.n == 11
    # named ties of the caller's vocabulary
    assert position_bias([*CHOICE, "same"], [*FIRST, "A"], ties=["same"]).ties == 1


def test_ties_in_both_orders_are_consistent_and_ties_alone_are_an_error() -> None:
    from evalsig.judge import position_bias

    choice = ["A", "A", "tie", "TIE", "B", "B", "A", "tie"]
    first = ["A", "B", "A", "B", "A", "B", "A", "B"]
    result = position_bias(choice, first, pair=[1, 1, 2, 2, 3, 3, 4, 4])
    assert result.ties == 3
    assert result.consistency is not None
    assert (result.consistency.successes, result.consistency.n) == (3, 4)
    with pytest.raises(DataError, match="all 3 judgments are ties"):
        position_bias(["tie", "draw", "tie"], ["A", "B", "A"])
    with pytest.raises(DataError, match="cannot be told from a tie"):
        position_bias(["A", "B", "C", "B"], ["A", "A", "A", "A"])


def test_position_bias_command_reports_ties(tmp_path: Path) -> None:
    rows = ["choice,first"] + [f"{c},{f}" for c, f in zip(CHOICE, FIRST, strict=True)]
    path = _write(tmp_path / "judged.csv", [*rows, "tie,A", "tie,B", "C,A"])
    args = ["position-bias", str(path), "--choice-column", "choice", "--first-column", "first"]
    code, out, err = _run(*args, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert (document["ties"], document["n"], document["first_preferred"]) == (3, 20, 14)
    code, out, _ = _run(*args)
    assert "Ties                   3 of 23 judgments (left out of the test)" in out


# --- lengths, token counts, K-factors and other numbers taken silently ----------------------


def test_lengths_must_be_finite_and_not_negative() -> None:
    from evalsig.judge.bias import length_difference

    assert length_difference([120, 80], [100, 95]).tolist() == [20.0, -15.0]
    with pytest.raises(
        DataError, match=r"`length_a` has 1 negative length\(s\) \(position 1: -5\)"
    ):
        length_difference([10, -5], [3, 4])
    with pytest.raises(DataError, match="`length_b` has 1 missing or infinite"):
        length_difference([10, 5], [3, math.nan])


def test_length_bias_command_refuses_negative_lengths(tmp_path: Path) -> None:
    rows = ["pref,la,lb"] + [f"{i % 2},{10 + 7 * i},{40 - i}" for i in range(30)]
    path = _write(tmp_path / "lengths.csv", [*rows, "1,-50,20"])
    code, _, err = _run("length-bias", str(path), "--preference-column", "pref",
                        "--length-a-column", "la", "--length-b-column", "lb")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "negative" in _one_line(err)


def _battles(tmp_path: Path) -> Path:
    names = ["alpha", "beta", "gamma"]
    rows = []
    for i in range(90):
        a, b = names[i % 3], names[(i + 1 + i // 3 % 2) % 3]
        winner = ("model_a", "model_b", "tie")[(i * 7) % 3]
        rows.append(json.dumps({"model_a": a, "model_b": b, "winner": winner}))
    return _write(tmp_path / "battles.jsonl", rows)


@pytest.mark.parametrize("k", ["1e308", "inf", "nan", "500"])
def test_an_absurd_elo_k_is_refused_with_the_usual_range(tmp_path: Path, k: str) -> None:
    code, _, err = _run("arena", str(_battles(tmp_path)), "--elo", "--k", k, "--seed", "1")
    assert code in (EXIT_DATA_ERROR, EXIT_USAGE)
    line = _one_line(err)
    assert "k" in line
    if code == EXIT_DATA_ERROR:
        assert "usually 4 (Chatbot Arena's) to 32 (chess)" in line


def test_elo_refuses_non_finite_and_absurd_values() -> None:
    from evalsig.arena import battles, elo

    data = battles(["x", "x"], ["y", "y"], [1, 1])
    for k in (1e308, math.inf, math.nan, -1.0, 0.0, 101.0, True):
        with pytest.raises(DataError, match=r"`k` must be a number in \(0, 100\]"):
            elo(data, k=k)
    with pytest.raises(DataError, match="`initial` must be a finite number"):
        elo(data, initial=math.nan)
    assert elo(data, k=32)["x"] == pytest.approx(1030.53, abs=0.01)


def test_power_options_name_the_bad_value() -> None:
    from evalsig.power import power_analysis

    code, _, err = _run("power", "--effect", "0.05", "--sd", "-1")
    assert code == EXIT_DATA_ERROR
    assert "`sd` must be a finite number >= 0; got -1.0" in _one_line(err)
    code, _, err = _run("power", "--effect", "0.05", "--sd", "0.3", "--sd-within", "nan",
                        "--runs", "2")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "`sd_within` must be" in _one_line(err)
    code, out, err = _run("power", "--effect", "0.05", "--sd", "1e308", "--n", "100")
    assert code == 0, err  # huge but finite: computed, no overflow
    assert "no finite number" in out
    with pytest.raises(DataError, match="`runs` must be a whole number of at least 1"):
        power_analysis(effect=0.05, sd=0.3, sd_within=0.2, runs=0)


def test_judge_plan_and_score_refuse_numbers_out_of_scale(tmp_path: Path) -> None:
    plan = ["judge-plan", "--correlation", "0.5", "--n-unlabeled", "100"]
    code, _, err = _run(*plan, "--human-sd", "1e308", "--half-width", "0.05")
    assert code == EXIT_DATA_ERROR
    assert "labels: give the SDs and the target" in _one_line(err)
    code, _, err = _run(*plan, "--human-sd", "0.4", "--half-width", "1e308")
    assert code == 0, err
    three = _write(tmp_path / "three.csv", ["item,correct", "q0,1", "q1,1", "q2,0"])
    code, _, err = _run("score", str(three), "--id", "item", "--score", "correct",
                        "--method", "bayes", "--prior", "1e300", "1")  # fmt: skip
    assert code == EXIT_DATA_ERROR
    assert "`prior[0]` must be a number in (0, 1e+09]" in _one_line(err)


def test_one_check_of_numbers() -> None:
    from evalsig.inference._common import check_count, check_number

    assert check_number(0.5, "x", low=0, high=1) == 0.5
    for bad in (math.nan, math.inf, -math.inf, True, "0.5", None, 2.0):
        with pytest.raises(DataError, match=r"`x` must be a number in \[0, 1\]"):
            check_number(bad, "x", low=0, high=1)
    assert check_count(np.int64(3), "n") == 3
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(DataError, match="`n` must be a whole number of at least 1"):
            check_count(bad, "n")


# --- degenerate results carry a note ----------------------------------------------------------


def test_noise_without_variation_has_no_snr_no_mde_and_no_advice(tmp_path: Path) -> None:
    from evalsig.power.noise import benchmark_noise

    result = benchmark_noise({"a": np.ones((3, 30)), "b": np.zeros((3, 30))})
    assert result.snr is not None
    assert math.isnan(result.snr)
    assert math.isnan(result.mde)
    assert result.better is None
    document = result.to_dict()
    assert (document["snr"], document["mde"], document["better"]) == (None, None, None)
    assert document["nulls"]["mde"].startswith("undefined")
    notes = " ".join(result.notes)
    assert "the SNR is undefined (not infinite)" in notes
    assert "the MDE is undefined, not 0" in notes
    assert "neither more items nor more runs can be advised" in notes
    rows = ["model,item,seed,correct"] + [
        f"{m},q{i},{r},{v}" for m, v in (("a", 1), ("b", 0)) for i in range(30) for r in range(3)
    ]
    code, out, err = _run("noise", str(_write(tmp_path / "long.csv", rows)), "--id", "item",
                          "--score", "correct", "--run", "seed")  # fmt: skip
    assert code == 0, err
    assert "SNR undefined" in out
    assert "power 0.8): undefined" in out
    assert "add items" not in out
    assert "add runs" not in out


def test_noise_without_run_noise_keeps_the_item_advice() -> None:
    from evalsig.power.noise import benchmark_noise

    items = (np.arange(40) % 2).astype(float)
    result = benchmark_noise({"a": np.tile(items, (3, 1)), "b": np.tile(1 - items, (3, 1))})
    assert result.snr is not None
    assert math.isnan(result.snr)
    assert result.mde > 0
    assert result.better == "items"
    assert any("more runs cannot lower the SE" in note for note in result.notes)


def _cp_low(k: int, n: int, level: float = 0.95) -> float:
    return float(stats.binomtest(k, n).proportion_ci(confidence_level=level).low)


def test_constant_human_labels_get_an_exact_interval_not_a_point() -> None:
    from evalsig.judge import ppi_mean, ppi_paired_difference

    rng = np.random.default_rng(0)
    judge = (rng.random(60) < 0.6).astype(float)
    result = ppi_mean(judge[30:], judge[:30], np.ones(30))
    assert (result.estimate, result.se) == (1.0, 0.0)
    assert result.ci.low == pytest.approx(_cp_low(30, 30), rel=1e-9)  # Clopper-Pearson
    assert result.ci.high == 1.0
    assert result.classical is not None
    assert result.classical.ci.low == pytest.approx(_cp_low(30, 30), rel=1e-9)
    assert result.confidence_interval(0.9).low == pytest.approx(_cp_low(30, 30, 0.9), rel=1e-9)
    assert any("all 30 human labels are 1" in note for note in result.notes)
    zeros = ppi_mean(judge[30:], judge[:30], np.zeros(30))
    assert (zeros.ci.low, zeros.ci.high) == (0.0, pytest.approx(1 - _cp_low(30, 30)))
    # both models labeled the same on every item: the difference is not known to be exactly 0
    same = np.ones(30)
    paired = ppi_paired_difference((judge[30:], judge[30:]), (judge[:30], judge[:30]),
                                   (same, same))  # fmt: skip
    assert paired.ci.low == pytest.approx(-(1 - _cp_low(30, 30)))
    assert paired.ci.high == pytest.approx(1 - _cp_low(30, 30))


def test_judge_command_with_constant_labels(tmp_path: Path) -> None:
    rows = ["id,judge,human"] + [f"q{i},{(i * 7) % 3 % 2},{1 if i < 30 else ''}" for i in range(60)]
    path = _write(tmp_path / "judged.csv", rows)
    code, out, err = _run("judge", str(path), "--judge-column", "judge", "--human-column",
                          "human", "--id", "id", "--format", "json")  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    assert document["ci"]["low"] == pytest.approx(_cp_low(30, 30), rel=1e-9)
    assert document["classical"]["ci"]["low"] == pytest.approx(_cp_low(30, 30), rel=1e-9)
    assert any("all 30 human labels are 1" in note for note in document["notes"])


def test_a_rogan_gladen_interval_of_no_width_is_noted() -> None:
    from evalsig.judge import rogan_gladen

    result = rogan_gladen(1.0, 1.0, 0.9, 200)
    assert result.se == 0.0
    assert any("the standard error is 0" in note for note in result.notes)


def test_kappa_of_a_single_category_has_no_interval() -> None:
    from evalsig.judge import judge_agreement

    result = judge_agreement([1, 0] * 10, [1] * 20, n_resamples=200, rng=1)
    assert result.kappa == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(result.kappa_se)
    assert math.isnan(result.kappa_ci.low)
    assert math.isnan(result.kappa_ci.high)
    assert any("the humans used a single category" in note for note in result.notes)


def test_score_intervals_stay_on_the_scale_with_a_small_sample_note(tmp_path: Path) -> None:
    from evalsig import score

    result = score([1, 1, 0], method="t")
    assert 0.0 <= result.ci.low <= result.ci.high <= 1.0
    assert result.ci.high == 1.0
    assert any("only 3 items" in note for note in result.notes)
    assert any("reached outside [0, 1]" in note for note in result.notes)
    wider = result.confidence_interval(0.99)
    assert (wider.low, wider.high) == (0.0, 1.0)
    runs = score([[1, 0, 1], [1, 1, 0]])  # several runs: t on per-item means
    assert runs.ci.low >= 0.0
    assert runs.ci.high <= 1.0
    assert not any("reached outside" in n for n in score(np.full(40, 200.0) + np.arange(40)).notes)
    three = _write(tmp_path / "three.csv", ["item,correct", "q0,0.9", "q1,0.2", "q2,1"])
    code, out, err = _run("score", str(three), "--id", "item", "--score", "correct",
                          "--format", "json")  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    assert document["ci"]["low"] >= 0.0
    assert document["ci"]["high"] <= 1.0
    assert any("only 3 items" in note for note in document["notes"])


def test_power_at_zero_effect_is_the_size_or_refused() -> None:
    from evalsig.power import mcnemar_power, power_analysis
    from evalsig.power.passk import pass_at_k_power

    assert mcnemar_power(100, 0.1, 0.1) == pytest.approx(0.05)
    assert mcnemar_power(100, 0.1, 0.1, alternative="greater") == pytest.approx(0.05)
    analysis = power_analysis(p01=0.1, p10=0.1, n=100)
    assert analysis.power_at_n == pytest.approx(0.05)
    assert any("is the test's size" in note for note in analysis.notes)
    code, out, err = _run("power", "--p01", "0.1", "--p10", "0.1", "--n", "100")
    assert code == 0, err
    assert "power 0.050" in out
    assert "is the test's size, its false-positive rate (alpha), not a power" in out
    rng = np.random.default_rng(0)
    base = (rng.random((6, 20)) < 0.5).astype(int)
    cand = (rng.random((6, 20)) < 0.6).astype(int)
    with pytest.raises(DataError, match="`effect` is 0: no number of tasks detects"):
        pass_at_k_power(base, cand, 1, effect=0)


# --- errors that pointed the wrong way --------------------------------------------------------


def test_numbers_given_where_files_go_are_named_as_numbers(tmp_path: Path) -> None:
    from evalsig import load

    with pytest.raises(DataError, match=r"'0\.5' is a number, but this argument names result"):
        load("0.5")
    code, _, err = _run("score", "1", "0", "1")
    assert code == EXIT_DATA_ERROR
    assert "'1' is a number, but this argument names result files" in _one_line(err)
    code, _, err = _run("power", "0.075", "0.065", "--n", "100")
    assert code == EXIT_USAGE
    assert "give rates as --p01 and --p10" in _one_line(err)
    code, _, err = _run("meta", "1")
    assert code == EXIT_USAGE
    assert "meta reads a table of reports" in _one_line(err)


def test_the_memory_hint_fits_a_command_without_input(monkeypatch: pytest.MonkeyPatch) -> None:
    import evalsig.power

    def exhausted(**_: object) -> None:
        raise MemoryError

    monkeypatch.setattr(evalsig.power, "power_analysis", exhausted)
    code, _, err = _run("power", "--p01", "0.075", "--p10", "0.065")
    assert code == EXIT_DATA_ERROR
    line = _one_line(err)
    assert "ran out of memory" in line
    assert "split the input" not in line
    assert "--method normal, or a smaller --n" in line
