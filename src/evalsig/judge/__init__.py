"""LLM-as-judge scores corrected with human labels: prediction-powered inference (PPI,
PPI++), the Rogan-Gladen prevalence correction, judge-human agreement, and how many human
labels a target precision needs."""

from evalsig.judge.agreement import JudgeAgreement, judge_agreement
from evalsig.judge.planning import LabelPlan, labels_for_half_width, labels_for_power
from evalsig.judge.ppi import ppi_lambda, ppi_mean, ppi_paired_difference
from evalsig.judge.result import JudgeResult
from evalsig.judge.rogan_gladen import rogan_gladen

__all__ = [
    "JudgeAgreement",
    "JudgeResult",
    "LabelPlan",
    "judge_agreement",
    "labels_for_half_width",
    "labels_for_power",
    "ppi_lambda",
    "ppi_mean",
    "ppi_paired_difference",
    "rogan_gladen",
]
