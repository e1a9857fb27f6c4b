"""Inline SVG plots for self-contained reports: forest plots, heatmaps, line charts, scatters.

Every function is pure: data in, one ``<svg>`` string out, identical for identical input.
The markup has no scripts, no links, no ids and no fonts to fetch, so several plots can sit
in one HTML page that works offline. Text and axes use ``currentColor`` and follow the page
(light or dark); series and verdicts also differ by symbol, marker or dash pattern, so they
survive grayscale printing. All user text is XML-escaped; long labels are cut with an
ellipsis and kept whole in a ``<title>`` tooltip, as are the numbers behind every mark
(6 significant digits).

Degenerate input draws what is known: no data gives a "no data" panel, equal values get a
padded scale, NaN values are left out and marked "n/a", and infinite interval bounds are
drawn to the edge of the plot with an arrow and called unbounded in the tooltip.
"""

from evalsig.report.svg.charts import lines, scatter
from evalsig.report.svg.forest import ForestRow, forest
from evalsig.report.svg.heatmap import heatmap

__all__ = ["ForestRow", "forest", "heatmap", "lines", "scatter"]
