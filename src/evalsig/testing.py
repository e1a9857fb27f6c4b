"""Release gates in a test suite: a candidate that does not pass its gate fails the test.

:func:`assert_gate_passes` runs :func:`evalsig.release.gate` and raises
:class:`GateFailed` (an ``AssertionError``) whose message is the verdict: which tasks did
not pass, by how much, with their intervals and reasons. As a pytest plugin
(``pytest_plugins = ["evalsig.testing"]`` in a ``conftest.py``; it is never loaded by
itself), the ``evalsig_gate`` fixture does the same and records each verdict as a
property of the test, which the JUnit XML report (``--junitxml``) keeps.

``import evalsig`` loads neither this module nor pytest; this module defines the fixture
only where pytest is installed.

PYTEST_DONT_REWRITE: the module asserts with ``raise``; importing it before pytest reads
``pytest_plugins`` must not warn.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evalsig.report import formatting as fmt

if TYPE_CHECKING:
    import numpy as np

    from evalsig.release import GatePolicy, GateResult, Registration, TaskVerdict

__all__ = ["GateCheck", "GateFailed", "assert_gate_passes", "gate_message"]


class GateFailed(AssertionError):
    """A release gate that did not pass; ``result`` is the whole :class:`GateResult`."""

    def __init__(self, message: str, result: GateResult) -> None:
        super().__init__(message)
        self.result = result


def assert_gate_passes(
    baseline: Any,
    candidate: Any,
    /,
    *,
    policy: GatePolicy | Mapping[str, Any] | str | os.PathLike[str],
    registration: Registration | str | os.PathLike[str] | None = None,
    allow_changed_policy: bool = False,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    allow_inconclusive: bool = False,
) -> GateResult:
    """Run the release gate and fail unless it passes.

    Parameters
    ----------
    baseline, candidate, policy, registration, allow_changed_policy, n_resamples, rng
        As for :func:`evalsig.release.gate`.
    allow_inconclusive : bool
        Let an INCONCLUSIVE gate (the data cannot resolve a claim) pass; only FAIL raises.

    Returns
    -------
    GateResult
        The gate's result, when it passes.

    Raises
    ------
    GateFailed
        An ``AssertionError``: the gate's verdict is FAIL, or INCONCLUSIVE without
        ``allow_inconclusive``. The message (:func:`gate_message`) names each task that
        did not pass with its improvement, interval and reason; ``.result`` holds the
        result.
    DataError, ValueError
        Bad results or a bad policy: an error in the test's set-up, not a failed gate.

    Examples
    --------
    >>> from evalsig.testing import assert_gate_passes
    >>> base = {"arith": [1, 0] * 100}
    >>> cand = {"arith": [1] * 200}
    >>> assert_gate_passes(base, cand, policy={"tasks": ["arith"]}).verdict
    'PASS'
    >>> assert_gate_passes(cand, base, policy={"name": "release", "tasks": ["arith"]})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalsig.testing.GateFailed: release gate 'release': FAIL
      arith FAIL: improvement -50.00 pp, 90% CI ...
    """
    __tracebackhide__ = True  # pytest shows the test's line and the verdict
    from evalsig.release import gate

    result = gate(
        baseline,
        candidate,
        policy=policy,
        registration=registration,
        allow_changed_policy=allow_changed_policy,
        n_resamples=n_resamples,
        rng=rng,
    )
    if result.verdict == "FAIL" or (result.verdict == "INCONCLUSIVE" and not allow_inconclusive):
        raise GateFailed(gate_message(result), result)
    return result


def gate_message(result: GateResult) -> str:
    """The verdict as a failed test shows it: one line for each task that did not pass, with
    its improvement, interval and threshold, then the gate's report (``str(result)``).

    A task's interval is ``[lower_bound, upper_bound]``, its one-sided :math:`1 - \\alpha`
    bounds before the family's correction: together a :math:`1 - 2\\alpha` two-sided
    interval (90% at alpha = 0.05). The claim needs the improvement above its threshold:
    0 for superiority, minus the margin for non-inferiority.
    """
    alpha = result.policy.alpha
    lines = [f"release gate {result.policy.name!r}: {result.verdict}"]
    lines += [f"  {_task_line(t, alpha)}" for t in result.tasks if t.verdict != "PASS"]
    return "\n".join([*lines, str(result)])


def _task_line(task: TaskVerdict, alpha: float) -> str:
    percent = task.comparison.percent_scale
    estimate = fmt.difference(task.comparison.estimate, percent=percent)
    interval = fmt.interval(task.lower_bound, task.upper_bound, 1 - 2 * alpha, percent=percent)
    threshold = fmt.difference(task.task.threshold, percent=percent) if task.task.threshold else "0"
    return (
        f"{task.task.name} {task.verdict}: improvement {estimate}, {interval}; the "
        f"{task.task.claim} claim needs it above {threshold}; adjusted p = {task.p_adjusted:.3g}"
    )


class GateCheck:
    """What the ``evalsig_gate`` fixture gives a test: :func:`assert_gate_passes` that
    also records each verdict as a property of the test (``user_properties``)."""

    def __init__(self, properties: list[tuple[str, object]]) -> None:
        self._properties = properties

    def __call__(
        self,
        baseline: Any,
        candidate: Any,
        /,
        *,
        policy: GatePolicy | Mapping[str, Any] | str | os.PathLike[str],
        registration: Registration | str | os.PathLike[str] | None = None,
        allow_changed_policy: bool = False,
        n_resamples: int = 10_000,
        rng: np.random.Generator | int | None = None,
        allow_inconclusive: bool = False,
    ) -> GateResult:
        __tracebackhide__ = True
        try:
            result = assert_gate_passes(
                baseline,
                candidate,
                policy=policy,
                registration=registration,
                allow_changed_policy=allow_changed_policy,
                n_resamples=n_resamples,
                rng=rng,
                allow_inconclusive=allow_inconclusive,
            )
        except GateFailed as failed:
            self._record(failed.result)
            raise
        self._record(result)
        return result

    def __repr__(self) -> str:
        return "evalsig_gate(baseline, candidate, *, policy, ..., allow_inconclusive=False)"

    def _record(self, result: GateResult) -> None:
        self._properties.append((f"evalsig gate {result.policy.name}", result.verdict))


try:
    import pytest
except ImportError:  # pragma: no cover - the fixture needs pytest, the function does not
    pass
else:

    @pytest.fixture
    def evalsig_gate(request: pytest.FixtureRequest) -> GateCheck:
        """``evalsig_gate(baseline, candidate, policy=...)``: :func:`assert_gate_passes`,
        each verdict recorded as a property of the test."""
        return GateCheck(request.node.user_properties)
