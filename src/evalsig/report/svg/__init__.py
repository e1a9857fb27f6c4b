"""Inline SVG plots for self-contained reports: forest plots, heatmaps, line charts, scatters.

Every function is pure: data in, one ``<svg>`` string out, identical for identical input.
The markup has no scripts, no links, no ids and no fonts to fetch, so several plots can sit
in one HTML page that works offline. Text and axes use ``currentColor`` and follow the page
(light or dark); series and verdicts also differ by symbol, marker or dash pattern, so they
survive grayscale printing. All user text is XML-escaped. Names are never cut, so that a
label always identifies its row, series or point: titles, forest labels and legend entries
wrap onto more lines (their room measured by a per-character width estimate), and heatmap
rows or scatter points whose labels are too long to sit in place are numbered, with a key
under the plot that gives each number's label in full. Tooltips (``<title>``) hold the
full text and the numbers behind every mark (6 significant digits).

Degenerate input draws what is known: no data gives a "no data" panel, equal values get a
padded scale, NaN values are left out and marked "n/a", and infinite interval bounds are
drawn to the edge of the plot with an arrow and called unbounded in the tooltip.
"""

from evalsig.report.svg.charts import lines, scatter
from evalsig.report.svg.forests import ForestRow, forest
from evalsig.report.svg.heatmaps import heatmap

__all__ = ["ForestRow", "forest", "heatmap", "lines", "scatter"]
