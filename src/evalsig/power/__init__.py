"""Power, sample size and resolution of paired comparisons.

Convention everywhere: ``p01`` = P(baseline wrong, candidate right), ``p10`` = P(baseline
right, candidate wrong); ``alternative="greater"`` means the candidate is better.

>>> from evalsig.power import mcnemar_sample_size
>>> mcnemar_sample_size(0.075, 0.065).n_items   # a 1-point uplift at 14% discordance
10987
"""

from evalsig.power.analysis import PowerAnalysis, power_analysis, power_analysis_paired
from evalsig.power.benchmark import BenchmarkResolution, PairResolution, benchmark_resolution
from evalsig.power.cluster import DesignEffect, design_effect, design_effect_from_icc
from evalsig.power.mcnemar import mcnemar_detectable_effect, mcnemar_power, mcnemar_sample_size
from evalsig.power.mde import minimum_detectable_effect
from evalsig.power.paired_t import (
    RunsTradeoff,
    VarianceComponents,
    paired_t_detectable_effect,
    paired_t_power,
    paired_t_sample_size,
    runs_tradeoff,
    variance_components,
)
from evalsig.power.resolution_ratio import (
    Resolution,
    resolution,
    resolution_from_rates,
    resolution_paired,
)
from evalsig.power.results import SampleSize
from evalsig.power.unpaired import UnpairedShortcut, cohens_h, unpaired_shortcut_sample_size

__all__ = [
    "BenchmarkResolution",
    "DesignEffect",
    "PairResolution",
    "PowerAnalysis",
    "Resolution",
    "RunsTradeoff",
    "SampleSize",
    "UnpairedShortcut",
    "VarianceComponents",
    "benchmark_resolution",
    "cohens_h",
    "design_effect",
    "design_effect_from_icc",
    "mcnemar_detectable_effect",
    "mcnemar_power",
    "mcnemar_sample_size",
    "minimum_detectable_effect",
    "paired_t_detectable_effect",
    "paired_t_power",
    "paired_t_sample_size",
    "power_analysis",
    "power_analysis_paired",
    "resolution",
    "resolution_from_rates",
    "resolution_paired",
    "runs_tradeoff",
    "unpaired_shortcut_sample_size",
    "variance_components",
]
