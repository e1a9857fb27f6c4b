"""Paired tests, intervals and the resampling engine (numerics only: no I/O, no printing)."""

from evalsig.inference._bootstrap import bootstrap
from evalsig.inference._cluster import cluster_bootstrap, cluster_robust
from evalsig.inference._common import Alternative, ConfidenceInterval, InferenceResult
from evalsig.inference._mcnemar import mcnemar, mcnemar_from_table
from evalsig.inference._permutation import permutation_test
from evalsig.inference._ttest import paired_t
from evalsig.inference._wilcoxon import wilcoxon

__all__ = [
    "Alternative",
    "ConfidenceInterval",
    "InferenceResult",
    "bootstrap",
    "cluster_bootstrap",
    "cluster_robust",
    "mcnemar",
    "mcnemar_from_table",
    "paired_t",
    "permutation_test",
    "wilcoxon",
]
