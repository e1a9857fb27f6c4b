"""LLM-as-judge scores corrected with human labels: prediction-powered inference (PPI,
PPI++), the Rogan-Gladen prevalence correction, judge-human agreement (Cohen's and
Fleiss' kappa, Krippendorff's alpha), position and length bias probes, and how many human
labels a target precision needs."""

from evalsig.judge.agreement import JudgeAgreement, judge_agreement
from evalsig.judge.bias import LengthBias, PositionBias, length_bias, position_bias
from evalsig.judge.planning import LabelPlan, Pilot, labels_for_half_width, labels_for_power, pilot
from evalsig.judge.ppi import ppi_lambda, ppi_mean, ppi_paired_difference
from evalsig.judge.prevalence import rogan_gladen
from evalsig.judge.reliability import (
    RaterAgreement,
    Reliability,
    fleiss_kappa,
    krippendorff_alpha,
    rater_agreement,
)
from evalsig.judge.result import JudgeResult

__all__ = [
    "JudgeAgreement",
    "JudgeResult",
    "LabelPlan",
    "LengthBias",
    "Pilot",
    "PositionBias",
    "RaterAgreement",
    "Reliability",
    "fleiss_kappa",
    "judge_agreement",
    "krippendorff_alpha",
    "labels_for_half_width",
    "labels_for_power",
    "length_bias",
    "pilot",
    "position_bias",
    "ppi_lambda",
    "ppi_mean",
    "ppi_paired_difference",
    "rater_agreement",
    "rogan_gladen",
]
