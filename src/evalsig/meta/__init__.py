"""Meta-analysis of published benchmark scores: pool reports of one model on one benchmark.

>>> from evalsig.meta import random_effects
>>> res = random_effects([81.2, 79.9, 83.0], [1.2, 0.8, 1.5], method="reml", test="hksj")
>>> res.k, res.method, res.test
(3, 'reml', 'hksj')

Numerics (``random_effects``, ``estimate_tau2``, ``meta_regression``, the bias tests) take
arrays and never do I/O; ``evalsig.meta.batch.random_effects_batch`` fits many cells at
once; ``synthesize`` reads a table of reports and runs them per (model, benchmark) cell;
``evalsig.meta.plots`` draws forest and funnel plots (matplotlib).
"""

from evalsig.meta._validate import METHODS, TESTS, MetaConvergenceWarning, Method, Test
from evalsig.meta.bias import (
    EggerResult,
    RankTestResult,
    TrimFillResult,
    egger_test,
    rank_test,
    trim_and_fill,
)
from evalsig.meta.estimators import Tau2Estimate, estimate_tau2
from evalsig.meta.model import MetaResult, random_effects
from evalsig.meta.regression import MetaRegressionResult, meta_regression
from evalsig.meta.reports import ReportTable, read_reports
from evalsig.meta.synthesis import (
    BenchmarkBoard,
    BootstrapWidths,
    CellResult,
    SelfReportGap,
    SynthesisResult,
    synthesize,
)

__all__ = [
    "METHODS",
    "TESTS",
    "BenchmarkBoard",
    "BootstrapWidths",
    "CellResult",
    "EggerResult",
    "MetaConvergenceWarning",
    "MetaRegressionResult",
    "MetaResult",
    "Method",
    "RankTestResult",
    "ReportTable",
    "SelfReportGap",
    "SynthesisResult",
    "Tau2Estimate",
    "Test",
    "TrimFillResult",
    "egger_test",
    "estimate_tau2",
    "meta_regression",
    "random_effects",
    "rank_test",
    "read_reports",
    "synthesize",
    "trim_and_fill",
]
