"""Where a score's variance comes from: its facets (items, prompts, runs, judges), crossed or
nested, estimated by REML, and their share of the standard error."""

from evalsig.facets.sources import SourceRow, VarianceSourcesResult, variance_sources

__all__ = ["SourceRow", "VarianceSourcesResult", "variance_sources"]
