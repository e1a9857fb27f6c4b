"""Where a score's variance comes from: its facets (items, prompts, runs, judges), crossed or
nested, estimated by REML, their share of the standard error, and the SE and MDE of other
designs (a decision study)."""

from evalsig.facets.decision import DecisionStudyResult, ProjectedDesign, decision_study
from evalsig.facets.sources import SourceRow, VarianceSourcesResult, variance_sources

__all__ = [
    "DecisionStudyResult",
    "ProjectedDesign",
    "SourceRow",
    "VarianceSourcesResult",
    "decision_study",
    "variance_sources",
]
