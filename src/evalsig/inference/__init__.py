"""Paired tests, intervals, multiplicity and the resampling engine (numerics only: no I/O)."""

from evalsig.inference._bootstrap import bootstrap
from evalsig.inference._cluster import cluster_bootstrap, cluster_robust
from evalsig.inference._common import Alternative, ConfidenceInterval, InferenceResult
from evalsig.inference._mcnemar import mcnemar, mcnemar_from_table
from evalsig.inference._permutation import permutation_test
from evalsig.inference._ttest import paired_t
from evalsig.inference._wilcoxon import wilcoxon
from evalsig.inference.aggregate import (
    Dependence,
    SignTestResult,
    dependence,
    sign_test,
    uncorrected_familywise_error,
)
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
from evalsig.inference.simultaneous import SimultaneousResult, romano_wolf

__all__ = [
    "Alternative",
    "ConfidenceInterval",
    "Dependence",
    "InferenceResult",
    "MultipleTestResult",
    "SignTestResult",
    "SimultaneousResult",
    "adjust",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "bonferroni",
    "bootstrap",
    "cluster_bootstrap",
    "cluster_robust",
    "dependence",
    "hochberg",
    "holm",
    "holm_sidak",
    "hommel",
    "mcnemar",
    "mcnemar_from_table",
    "paired_t",
    "permutation_test",
    "romano_wolf",
    "sidak",
    "sign_test",
    "storey",
    "uncorrected_familywise_error",
    "wilcoxon",
]
