"""evalsig.testing: a gate that does not pass fails the test, with the verdict as message."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from evalsig.errors import DataError
from evalsig.release import gate
from evalsig.testing import GateFailed, assert_gate_passes, gate_message

pytest_plugins = ["pytester"]

POLICY = {
    "name": "pr-gate",
    "tasks": [
        {"name": "arith"},
        {"name": "reading", "claim": "non-inferiority", "margin": 0.02},
    ],
}


def scores(up: int, down: int, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """0/1 scores of n items, half right; the candidate turns ``up`` wrong answers right
    and ``down`` right answers wrong: its improvement is (up - down) / n exactly."""
    base = np.tile([1.0, 0.0], n // 2)
    cand = base.copy()
    cand[np.flatnonzero(base == 0)[:up]] = 1.0
    cand[np.flatnonzero(base == 1)[:down]] = 0.0
    return base, cand


def suite(**flips: tuple[int, int]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Baseline and candidate mappings task -> scores, from (up, down) per task."""
    pairs = {task: scores(*updown) for task, updown in flips.items()}
    return {t: p[0] for t, p in pairs.items()}, {t: p[1] for t, p in pairs.items()}


BUILD = "\n".join(
    ["from __future__ import annotations", "import numpy as np", ""]
    + [inspect.getsource(f) for f in (scores, suite)]
)
"""The same two functions, as a module of the suites that pytester runs."""

PASSING = {"arith": (40, 0), "reading": (30, 0)}  # +20 and +15 points
FAILING = {"arith": (40, 0), "reading": (0, 30)}  # reading -15 points, margin 2
UNRESOLVED = {"arith": (3, 1), "reading": (0, 0)}  # arith +1 point on 200 items


def test_a_passing_gate_returns_its_result() -> None:
    base, cand = suite(**PASSING)
    result = assert_gate_passes(base, cand, policy=POLICY)
    assert result.verdict == "PASS"
    assert [t.verdict for t in result.tasks] == ["PASS", "PASS"]


def test_a_failing_gate_raises_an_assertion_error_with_the_verdict() -> None:
    base, cand = suite(**FAILING)
    with pytest.raises(AssertionError) as raised:
        assert_gate_passes(base, cand, policy=POLICY)
    assert isinstance(raised.value, GateFailed)
    result = raised.value.result
    assert result.verdict == "FAIL"
    message = str(raised.value)
    lines = message.splitlines()
    reading = result.task("reading")
    assert reading.comparison.estimate == pytest.approx(-0.15)  # (0 - 30) / 200
    low, high = 100 * reading.lower_bound, 100 * reading.upper_bound
    assert low < -15 < high < -2  # the interval lies below the margin: FAIL
    assert lines[0] == "release gate 'pr-gate': FAIL"
    assert lines[1] == (
        f"  reading FAIL: improvement -15.00 pp, 90% CI {low:+.2f} to {high:+.2f} pp; the "
        "non-inferiority claim needs it above -2.00 pp; adjusted p = 1"
    )
    assert not any(line.startswith("  arith") for line in lines[1:3])  # arith passed
    assert message.endswith(str(result))  # then the whole report: family, table, reasons
    assert "upper 95% bound" in message


def test_the_message_is_the_same_as_gate_message() -> None:
    base, cand = suite(**FAILING)
    with pytest.raises(GateFailed) as raised:
        assert_gate_passes(base, cand, policy=POLICY)
    assert str(raised.value) == gate_message(raised.value.result)


def test_an_inconclusive_gate_fails_unless_allowed() -> None:
    base, cand = suite(**UNRESOLVED)
    with pytest.raises(GateFailed) as raised:
        assert_gate_passes(base, cand, policy=POLICY)
    arith = raised.value.result.task("arith")
    assert raised.value.result.verdict == "INCONCLUSIVE"
    assert str(raised.value).splitlines()[:2] == [
        "release gate 'pr-gate': INCONCLUSIVE",
        f"  arith INCONCLUSIVE: improvement +1.00 pp, 90% CI {100 * arith.lower_bound:+.2f} to "
        f"{100 * arith.upper_bound:+.2f} pp; the superiority claim needs it above 0; adjusted "
        f"p = {arith.p_adjusted:.3g}",
    ]
    assert arith.lower_bound < 0 < arith.upper_bound
    allowed = assert_gate_passes(base, cand, policy=POLICY, allow_inconclusive=True)
    assert allowed.verdict == "INCONCLUSIVE"


def test_allowing_inconclusive_still_fails_a_failing_gate() -> None:
    base, cand = suite(**FAILING)
    with pytest.raises(GateFailed):
        assert_gate_passes(base, cand, policy=POLICY, allow_inconclusive=True)


def test_the_gate_options_reach_the_gate() -> None:
    """The same seed gives the same result as gate() (a resampling method, so rng counts)."""
    base, cand = suite(**PASSING)
    policy = {"tasks": [{"name": "arith", "method": "bootstrap"}]}
    mine = assert_gate_passes(base, cand, policy=policy, n_resamples=500, rng=3)
    theirs = gate(base, cand, policy=policy, n_resamples=500, rng=3)
    assert mine.seed == theirs.seed == 3
    assert mine.tasks[0].comparison.n_resamples == 500
    assert mine.tasks[0].lower_bound == theirs.tasks[0].lower_bound


def test_bad_data_is_an_error_not_a_failed_gate() -> None:
    base, cand = suite(arith=(40, 0))
    with pytest.raises(DataError, match="'reading' of the policy's family is missing"):
        assert_gate_passes(base, cand, policy=POLICY)


def test_import_evalsig_loads_neither_pytest_nor_the_helper() -> None:
    code = "import evalsig, sys; print('pytest' in sys.modules, 'evalsig.testing' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_the_helper_works_without_pytest() -> None:
    """Without pytest the function is there and the fixture is not."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["pytest"] = None  # import pytest now raises ImportError
        import evalsig.testing as t
        print(callable(t.assert_gate_passes), hasattr(t, "evalsig_gate"))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


# As a pytest plugin -----------------------------------------------------------------------

CONFTEST = """
from evalsig.testing import assert_gate_passes  # imported before pytest reads the plugins

pytest_plugins = ["evalsig.testing"]
"""

TESTS = f"""
from build import suite
from evalsig.testing import assert_gate_passes

POLICY = {POLICY!r}


def test_release_passes(evalsig_gate):
    evalsig_gate(*suite(**{PASSING!r}), policy=POLICY)


def test_release_fails(evalsig_gate):
    evalsig_gate(*suite(**{FAILING!r}), policy=POLICY)


def test_function_form():
    assert_gate_passes(*suite(**{UNRESOLVED!r}), policy=POLICY)
"""


def test_a_suite_using_the_plugin_fails_with_the_verdict(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(build=BUILD, conftest=CONFTEST, test_release=TESTS)
    report = pytester.path / "report.xml"
    run = pytester.runpytest_subprocess(
        "-W", "error", f"--junitxml={report}", "-p", "no:cacheprovider"
    )
    run.assert_outcomes(passed=1, failed=2)
    output = run.stdout.str()
    run.stdout.fnmatch_lines(
        [
            "*test_release_fails*",
            "E *GateFailed: release gate 'pr-gate': FAIL",
            "E *reading FAIL: improvement -15.00 pp, 90% CI * pp; the non-inferiority claim*",
            "*test_function_form*",
            "E *GateFailed: release gate 'pr-gate': INCONCLUSIVE",
            "E *arith INCONCLUSIVE: improvement +1.00 pp, 90% CI *",
        ]
    )
    assert "__tracebackhide__" not in output  # the helper's frames are hidden
    assert "raise GateFailed" not in output
    xml = report.read_text(encoding="utf-8")
    assert '<property name="evalsig gate pr-gate" value="PASS"' in xml
    assert '<property name="evalsig gate pr-gate" value="FAIL"' in xml


def test_the_fixture_is_only_in_suites_that_ask_for_it(pytester: pytest.Pytester) -> None:
    """No entry point: without pytest_plugins the fixture does not exist."""
    pytester.makepyfile(test_plain="def test_uses(evalsig_gate):\n    pass\n")
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    run.assert_outcomes(errors=1)
    run.stdout.fnmatch_lines(["*fixture 'evalsig_gate' not found*"])
