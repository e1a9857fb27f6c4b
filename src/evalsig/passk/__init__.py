r"""pass@k, pass^k and majority@k over tasks: estimates with intervals, and paired
comparisons of two models (tasks needed: :func:`evalsig.power.passk.pass_at_k_power`).

Each task was attempted ``n`` times, ``c`` of them correct; its estimate is the unbiased
U-statistic of :mod:`evalsig.inference.passk`, and the score is the mean over the ``T``
tasks. Tasks are the independent units: ``se = s / sqrt(T)`` (``s`` the SD of the per-task
estimates) already holds each task's sampling noise; that part is also reported on its own
(``se_within``), beside ``se_limit``, the standard error with unlimited samples per task:
the gap between ``se`` and ``se_limit`` is all that more samples per task can buy. Tasks
grouped in clusters (several tasks of one repository or problem family) are correlated:
``cluster=`` makes the interval and the paired test cluster-robust (CR2, Bell-McCaffrey).

Data: a :class:`ScoreTable` (runs are samples: Inspect epochs, lm-eval repeats, a run
column), a path or anything else :func:`evalsig.load` reads, a mapping ``{task: [0/1
scores]}``, a 2-D ``tasks x samples`` 0/1 array (note: ``tasks x samples``, the layout of
pass@k results, where :func:`evalsig.load` reads a 2-D array as ``runs x items``), a list
of per-task lists (tasks may have different numbers of samples), or :class:`SampleCounts`
(per-task ``n`` and ``c``).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> samples = (rng.random((200, 10)) < rng.beta(0.5, 1.0, (200, 1))).astype(int)
>>> result = pass_at_k(samples, [1, 5])
>>> [round(row.estimate, 3) for row in result.rows]
[0.277, 0.549]
>>> ci = result[5].ci
>>> round(ci.low, 3), round(ci.high, 3)
(0.488, 0.611)
"""

from evalsig.passk._compare import compare_pass_at_k
from evalsig.passk._estimates import pass_at_k
from evalsig.passk._input import SampleCounts
from evalsig.passk._results import (
    PassAtKComparison,
    PassAtKEstimate,
    PassAtKResult,
    PassAtKTest,
)

__all__ = [
    "PassAtKComparison",
    "PassAtKEstimate",
    "PassAtKResult",
    "PassAtKTest",
    "SampleCounts",
    "compare_pass_at_k",
    "pass_at_k",
]
