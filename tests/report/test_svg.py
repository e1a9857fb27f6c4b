"""Inline SVG plots: well-formed, escaped, self-contained, deterministic, and robust to
degenerate input (no data, one row, equal values, NaN, infinities, extreme magnitudes)."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalsig.errors import DataError
from evalsig.report.svg import ForestRow, forest, heatmap, lines, scatter

NS = "{http://www.w3.org/2000/svg}"
XMLNS = 'xmlns="http://www.w3.org/2000/svg"'
HOSTILE = ["<script>alert(1)</script>", "\"&'", "]]><b>x</b>", "a\x00b\x1fc"]
NAN, INF = math.nan, math.inf
GEOMETRY = {"x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height", "stroke-width"}


def parse(svg: str) -> ET.Element:
    """Parse the markup and check what every plot must satisfy."""
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert svg.startswith(f"<svg {XMLNS}")
    assert root.get("role") == "img"
    assert root.get("aria-label")
    assert root.find(f"{NS}title") is not None
    assert "system-ui" in (root.get("font-family") or "")
    tags = {el.tag.removeprefix(NS) for el in root.iter()}
    assert not tags & {"script", "foreignObject", "image", "use", "a", "style", "iframe"}
    outside = svg.replace(XMLNS, "")
    assert "http" not in outside
    assert "url(" not in svg
    assert "href" not in svg
    assert "@import" not in svg
    assert not re.search(r"\son\w+=", svg)  # no event handlers
    for el in root.iter():
        size = el.get("font-size")
        assert size is None or float(size) >= 10
        for name in GEOMETRY.intersection(el.keys()):
            assert math.isfinite(float(el.get(name) or "")), (el.tag, name, el.get(name))
        for name in ("points", "d", "viewBox"):
            numbers = re.findall(r"[-+]?[\d.]+(?:e[-+]?\d+)?|[a-z]{3}", el.get(name) or "")
            assert all(math.isfinite(float(v)) for v in numbers if v[-1:].isdigit()), el.attrib
            assert not {"nan", "inf"} & set(numbers), el.attrib
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [el for el in root.iter() if cls in (el.get("class") or "").split()]


def shown(el: ET.Element) -> str:
    """The visible text of an element: its text without the ``<title>`` tooltip."""
    parts = [el.text or ""]
    for child in el:
        if child.tag != f"{NS}title":
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


def texts(root: ET.Element, cls: str) -> list[str]:
    return [shown(el) for el in by_class(root, cls)]


def tip(el: ET.Element) -> str:
    title = el.find(f"{NS}title")
    assert title is not None, f"{el.tag} {el.attrib} has no <title>"
    return title.text or ""


def all_text(root: ET.Element) -> str:
    return "\n".join(root.itertext())


def tick_values(root: ET.Element) -> list[float]:
    return [float(t) for t in texts(root, "tick")]


def assert_nice(ticks: list[float], lo: float, hi: float) -> None:
    """Evenly spaced by 1, 2 or 5 times a power of ten, covering [lo, hi], not too many."""
    assert 2 <= len(ticks) <= 12
    steps = [b - a for a, b in itertools.pairwise(ticks)]
    step = steps[0]
    assert ticks[0] <= lo + 1e-6 * step
    assert ticks[-1] >= hi - 1e-6 * step
    assert all(math.isclose(s, step, rel_tol=1e-6) for s in steps)
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 5))
    assert all(math.isclose(t / step, round(t / step), abs_tol=1e-6) for t in ticks)


def size(root: ET.Element) -> tuple[float, float]:
    return float(root.get("width") or 0), float(root.get("height") or 0)


# --- forest ------------------------------------------------------------------------------


def test_forest_rows_marks_and_tooltips() -> None:
    rows = [
        ForestRow("math", 0.012, 0.004, 0.020),
        ForestRow("code", -0.003, -0.01, 0.004),
        ForestRow("chat", 0.0, -0.002, 0.002),
    ]
    root = parse(forest(rows, unit="pp"))
    assert len(by_class(root, "row")) == 3
    assert len(by_class(root, "estimate")) == 3
    assert len(by_class(root, "interval")) == 3
    assert len(by_class(root, "cap")) == 6
    assert len(by_class(root, "reference")) == 1
    assert texts(root, "label") == ["math", "code", "chat"]
    first = tip(by_class(root, "estimate")[0])
    assert "math" in first
    assert "estimate 1.2 pp" in first
    assert "interval 0.4 to 2 pp" in first
    assert texts(root, "value")[0] == "+1.20 [+0.40, +2.00]"
    assert texts(root, "axis-label") == ["percentage points"]


def test_forest_nice_ticks_in_percentage_points() -> None:
    # values -1.3 .. 4.2 pp with the reference 0: steps of 1 pp
    root = parse(forest([ForestRow("a", 0.01, -0.013, 0.042)], unit="pp"))
    assert texts(root, "tick") == ["-2", "-1", "0", "1", "2", "3", "4", "5"]


def test_forest_nice_ticks_raw_scale() -> None:
    root = parse(forest([ForestRow("a", 0.2, 0.01, 0.37)]))
    assert texts(root, "tick") == [
        "0.00",
        "0.05",
        "0.10",
        "0.15",
        "0.20",
        "0.25",
        "0.30",
        "0.35",
        "0.40",
    ]


@pytest.mark.parametrize(
    ("lo", "hi"),
    [
        (0.0, 1.0),
        (-3.0, 7.0),
        (0.0, 0.37),
        (123.0, 129.5),
        (-1e-6, 3e-6),
        (1e9, 4e9),
        (-250.0, -20.0),
        (0.001, 0.0013),
    ],
)
def test_forest_ticks_are_nice_for_known_ranges(lo: float, hi: float) -> None:
    mid = (lo + hi) / 2
    root = parse(forest([ForestRow("a", mid, lo, hi)], reference=mid))
    assert_nice(tick_values(root), lo, hi)


def test_forest_escapes_hostile_text() -> None:
    rows = [ForestRow(label, 0.1, 0.0, 0.2, note=label) for label in HOSTILE]
    svg = forest(rows, title=HOSTILE[0], unit=HOSTILE[1])
    root = parse(svg)
    assert "<script" not in svg
    assert "<b>" not in svg
    text = all_text(root)
    assert "<script>alert(1)</script>" in text
    assert "\"&'" in text
    assert "]]><b>x</b>" in text
    assert "a\ufffdb\ufffdc" in text  # characters XML forbids are replaced, not dropped
    assert root.get("aria-label") == f"Forest plot: {HOSTILE[0]} (4 rows)"


def test_forest_is_deterministic() -> None:
    def make() -> str:
        rows = [ForestRow("x", 0.1, -INF, 0.3, emphasis="pass"), ForestRow("y", NAN, 0, 1)]
        return forest(rows, thresholds=[0.0, None], unit="pp", title="t")

    assert make() == make()


def test_forest_empty_rows_say_no_data() -> None:
    root = parse(forest([], title="nothing yet"))
    assert texts(root, "empty") == ["no data"]
    assert not by_class(root, "row")


def test_forest_one_row_and_zero_width_interval() -> None:
    root = parse(forest([ForestRow("only", 0.5, 0.5, 0.5)]))
    (interval,) = by_class(root, "interval")
    assert interval.get("x1") == interval.get("x2")
    assert len(by_class(root, "cap")) == 2
    assert len(by_class(root, "estimate")) == 1


def test_forest_all_values_equal_pads_the_scale() -> None:
    rows = [ForestRow(f"r{i}", 0.25, 0.25, 0.25) for i in range(3)]
    root = parse(forest(rows, reference=0.25))
    ticks = tick_values(root)
    assert len(set(ticks)) >= 2
    assert ticks[0] < 0.25 < ticks[-1]
    xs = {el.get("x") for el in by_class(root, "estimate")}
    assert len(xs) == 1
    root = parse(forest([ForestRow("zero", 0.0, 0.0, 0.0)]))
    assert tick_values(root)[0] < 0 < tick_values(root)[-1]


def test_forest_nan_estimate_keeps_label_with_na() -> None:
    root = parse(forest([ForestRow("known", 0.1, 0.0, 0.2), ForestRow("unknown", NAN, 0.0, 0.3)]))
    assert texts(root, "label") == ["known", "unknown"]
    assert len(by_class(root, "estimate")) == 1
    row = by_class(root, "row")[1]
    assert by_class(row, "na")
    assert texts(row, "value") == ["n/a [+0.000, +0.300]"]
    assert "estimate n/a" in tip(row)
    assert len(by_class(root, "interval")) == 2
    root = parse(forest([ForestRow("nothing", NAN, NAN, NAN)]))
    assert not by_class(root, "interval")
    assert not by_class(root, "estimate")


def test_forest_infinite_bounds_draw_arrows_to_the_edge() -> None:
    rows = [
        ForestRow("lower bound", 0.02, 0.01, INF),
        ForestRow("upper bound", -0.01, -INF, 0.0),
        ForestRow("both", 0.0, -INF, INF),
    ]
    root = parse(forest(rows))
    arrows = by_class(root, "arrow")
    assert len(arrows) == 4
    assert all("unbounded" in tip(a) for a in arrows)
    ticks = list(by_class(root, "tick-mark"))
    edges = sorted({float(el.get("x1") or 0) for el in ticks})
    lo, hi = edges[0], edges[-1]
    one, two, three = by_class(root, "interval")
    assert float(one.get("x2") or 0) == pytest.approx(hi)
    assert float(two.get("x1") or 0) == pytest.approx(lo)
    assert "unbounded above" in tip(one)
    assert "unbounded below" in tip(two)
    assert "unbounded below and above" in tip(three)
    assert texts(root, "value")[0].endswith("+inf]")


@pytest.mark.parametrize("magnitude", [1e-100, 1e-12, 1e-5, 1e6, 1e12, 1e100])
def test_forest_extreme_magnitudes(magnitude: float) -> None:
    rows = [ForestRow("a", 2 * magnitude, magnitude, 3 * magnitude)]
    root = parse(forest(rows, reference=magnitude))
    ticks = tick_values(root)
    assert_nice(ticks, magnitude, 3 * magnitude)
    assert len(set(texts(root, "tick"))) == len(ticks)  # labels tell the ticks apart
    assert f"{2 * magnitude:.6g}" in tip(by_class(root, "estimate")[0])


def test_forest_values_beyond_the_scale_limit_go_to_the_edge() -> None:
    root = parse(forest([ForestRow("huge", 1e308, -1.7e308, 1.7e308), ForestRow("b", 1, 0, 2)]))
    assert by_class(root, "arrow")
    assert tick_values(root)[-1] <= 10


def test_forest_negative_values() -> None:
    rows = [ForestRow("a", -5.0, -7.5, -2.5), ForestRow("b", -1.0, -2.0, -0.5)]
    root = parse(forest(rows, reference=0.0))
    ticks = tick_values(root)
    assert_nice(ticks, -7.5, 0.0)
    assert ticks[0] < -7
    assert ticks[-1] >= 0


def test_forest_emphasis_has_colour_and_a_non_colour_cue() -> None:
    rows = [
        ForestRow("a", 0.1, 0.05, 0.2, emphasis="pass"),
        ForestRow("b", -0.1, -0.2, 0.0, emphasis="fail"),
        ForestRow("c", 0.0, -0.1, 0.1, emphasis="unresolved"),
        ForestRow("d", 0.0, -0.1, 0.1),
    ]
    root = parse(forest(rows))
    labels = ["".join(el.itertext()) for el in by_class(root, "label")]
    assert labels == ["\u2713 a", "\u2717 b", "? c", "d"]
    shapes = [el.tag.removeprefix(NS) for el in by_class(root, "estimate")]
    assert shapes == ["circle", "path", "polygon", "rect"]  # four distinct marker shapes
    intervals = by_class(root, "interval")
    assert [el.get("stroke") for el in intervals] == [
        "#1a7f37",
        "#cf222e",
        "#9a6700",
        "currentColor",
    ]
    assert intervals[2].get("stroke-dasharray")  # unresolved is also dashed
    legend = ["".join(el.itertext()) for el in by_class(root, "legend-label")]
    assert legend == ["\u2713 pass", "\u2717 fail", "? unresolved"]


def test_forest_rejects_unknown_emphasis_and_threshold_count() -> None:
    with pytest.raises(DataError, match="emphasis"):
        ForestRow("a", 0.0, 0.0, 0.0, emphasis="green")
    with pytest.raises(DataError, match="thresholds"):
        forest([ForestRow("a", 0.0, 0.0, 0.0)], thresholds=[0.1, 0.2])


def test_forest_thresholds_per_row() -> None:
    rows = [ForestRow(f"t{i}", 0.01, 0.0, 0.02) for i in range(4)]
    root = parse(forest(rows, thresholds=[-0.01, None, NAN, -0.02], unit="pp"))
    marks = by_class(root, "threshold")
    assert [tip(m) for m in marks] == ["threshold: -1 pp", "threshold: -2 pp"]
    assert texts(root, "legend-label") == ["threshold"]
    assert tick_values(root)[0] <= -2


def test_forest_height_grows_and_long_labels_wrap_whole() -> None:
    few = parse(forest([ForestRow("a", 0, -1, 1)] * 2))
    many = parse(forest([ForestRow("a", 0, -1, 1)] * 20))
    assert size(many)[1] > size(few)[1] + 17 * 20
    label = "a very long task name that would push the plot off the page " * 3
    root = parse(forest([ForestRow(label, 0, -1, 1, note="a note " * 12)]))
    (text,) = by_class(root, "label")
    assert len(lines_of(text)) >= 3
    assert " ".join(lines_of(text)) == label.strip()  # nothing cut, only the breaking spaces
    (note,) = by_class(root, "note")
    assert " ".join(lines_of(note)) == ("a note " * 12).strip()
    assert tip(by_class(root, "row")[0]).startswith(label)
    assert size(root)[0] <= 660
    one_line = parse(forest([ForestRow("a", 0, -1, 1, note="a note")]))
    assert size(root)[1] >= size(one_line)[1] + 14 * 4  # the row grew with its lines


def test_forest_key_lists_the_marks_in_full() -> None:
    names = ["org/" + "a-very-long-model-name " * 4 + str(i) for i in (1, 2)]
    row = ForestRow("#1 - #2", 0.01, 0.0, 0.02)
    root = parse(forest([row], key=[("#1", names[0]), ("#2", names[1])]))
    assert texts(root, "label") == ["#1 - #2"]
    assert texts(root, "key-mark") == ["#1", "#2"]
    keyed = [" ".join(lines_of(el)) for el in by_class(root, "key-text")]
    assert keyed == [n.strip() for n in names]
    assert size(root)[1] > size(parse(forest([row])))[1] + 2 * 14


def lines_of(el: ET.Element) -> list[str]:
    """The lines of a text: its positioned tspans, after any inline text (a forest label's
    first line, with its verdict symbol)."""
    tspans = [child for child in el if child.tag == f"{NS}tspan"]
    placed = ["".join(sp.itertext()) for sp in tspans if sp.get("y") is not None]
    inline = (el.text or "") + "".join(
        "".join(sp.itertext()) + (sp.tail or "") for sp in tspans if sp.get("y") is None
    )
    return [inline, *placed] if inline.strip() else placed


# --- heatmap -----------------------------------------------------------------------------


def test_heatmap_cells_labels_values_and_scale() -> None:
    m = [[NAN, 0.01, 0.5], [0.01, NAN, 0.049], [0.5, 0.049, NAN]]
    root = parse(heatmap(["a", "b", "c"], m, title="pairwise p"))
    assert len(by_class(root, "cell")) == 9
    assert len(by_class(root, "na")) == 3
    assert len(by_class(root, "hatch")) == 4  # three cells and the legend key
    assert texts(root, "row-label") == ["a", "b", "c"]
    cols = by_class(root, "col-label")
    assert len(cols) == 3
    assert all("rotate(-45" in (c.get("transform") or "") for c in cols)
    assert sorted(texts(root, "value")) == sorted(["0.01", "0.5", "0.01", "0.049", "0.5", "0.049"])
    assert tip(by_class(root, "cell")[1]) == "a vs b: 0.01"
    assert tip(by_class(root, "na")[0]) == "a vs a: n/a"
    assert texts(root, "scale-label") == ["0", "0.5", "1"]
    assert len(by_class(root, "scale")) == 24


def test_heatmap_colours_stay_ordered_in_grayscale() -> None:
    root = parse(heatmap(["a", "b"], [[0.0, 0.3], [0.7, 1.0]]))

    def luminance(el: ET.Element) -> float:
        rgb = int((el.get("fill") or "#000000")[1:], 16)
        r, g, b = rgb >> 16, (rgb >> 8) & 255, rgb & 255
        return 0.299 * r + 0.587 * g + 0.114 * b

    lum = [luminance(el) for el in by_class(root, "cell")]
    assert lum == sorted(lum)
    assert lum[0] < lum[-1] - 100


def test_heatmap_hides_values_without_room() -> None:
    n = 40
    m = [[(i * j % 7) / 7 for j in range(n)] for i in range(n)]
    root = parse(heatmap([f"model-{i}" for i in range(n)], m))
    assert len(by_class(root, "cell")) == n * n
    assert not by_class(root, "value")
    assert all(tip(el) for el in by_class(root, "cell"))


def test_heatmap_one_by_one_and_empty() -> None:
    root = parse(heatmap(["solo"], [[0.3]]))
    assert len(by_class(root, "cell")) == 1
    assert texts(root, "value") == ["0.3"]
    root = parse(heatmap(["solo"], [[NAN]]))
    assert len(by_class(root, "na")) == 1
    root = parse(heatmap([], []))
    assert texts(root, "empty") == ["no data"]


def test_heatmap_out_of_range_and_infinite_values() -> None:
    root = parse(heatmap(["a", "b"], [[-INF, 2.0], [-0.5, INF]], fmt="{:.1f}"))
    tips = [tip(el) for el in by_class(root, "cell")]
    assert all("beyond the colour scale" in t for t in tips)
    assert tips[0] == "a vs a: -inf (beyond the colour scale)"


def test_heatmap_rejects_bad_shapes_and_scales() -> None:
    with pytest.raises(DataError, match="2 x 2"):
        heatmap(["a", "b"], [[0.1, 0.2]])
    with pytest.raises(DataError, match="2 x 2"):
        heatmap(["a", "b"], [[0.1, 0.2], [0.3]])
    with pytest.raises(DataError, match="vmin"):
        heatmap(["a"], [[0.1]], vmin=1.0, vmax=1.0)
    with pytest.raises(DataError, match="vmin"):
        heatmap(["a"], [[0.1]], vmax=INF)


def test_heatmap_escapes_hostile_labels_and_is_deterministic() -> None:
    m = [[0.1 * (i + j) for j in range(4)] for i in range(4)]
    svg = heatmap(HOSTILE, m, title=HOSTILE[1])
    root = parse(svg)
    assert "<script" not in svg
    assert "<script>alert(1)</script>" in all_text(root)
    assert svg == heatmap(list(HOSTILE), [list(r) for r in m], title=HOSTILE[1])


def test_heatmap_long_labels_are_numbered_with_a_key() -> None:
    long = "x" * 60
    root = parse(heatmap([long, "b"], [[0.1, 0.2], [0.3, 0.4]]))
    assert texts(root, "row-label") == ["1", "2"]
    assert texts(root, "col-label") == ["1", "2"]
    assert tip(by_class(root, "row-label")[0]) == long
    assert not any("rotate" in (el.get("transform") or "") for el in by_class(root, "col-label"))
    assert texts(root, "key-mark") == ["1", "2"]
    assert texts(root, "key-text") == [long, "b"]
    assert size(root)[0] >= 480


# --- lines -------------------------------------------------------------------------------


def power_curves() -> dict[str, list[tuple[float, float]]]:
    ns = [50, 100, 200, 400, 800, 1600, 3200]
    return {
        name: [(n, 1 - math.exp(-n / scale)) for n in ns]
        for name, scale in (("McNemar", 800), ("bootstrap", 1000), ("permutation", 700))
    }


def test_lines_series_markers_legend_and_reference_lines() -> None:
    svg = lines(
        power_curves(),
        x_label="items",
        y_label="power",
        title="Power",
        hlines=[(0.8, "80% power")],
        vlines=[1000.0],
    )
    root = parse(svg)
    series = by_class(root, "series")
    assert len(series) == 3
    assert all(len(s.findall(f"{NS}polyline")) == 1 for s in series)
    assert len(by_class(root, "point")) == 21
    assert texts(root, "legend-label") == ["McNemar", "bootstrap", "permutation"]
    assert len({el.get("stroke-dasharray") for el in root.iter(f"{NS}polyline")}) == 3
    assert [tip(el) for el in by_class(root, "hline")] == ["y = 0.8: 80% power"]
    assert [tip(el) for el in by_class(root, "vline")] == ["x = 1000"]
    assert texts(root, "ref-label") == ["80% power"]
    assert tip(by_class(root, "point")[0]) == "McNemar: x = 50, y = 0.0605869"
    assert texts(root, "axis-label") == ["items", "power"]


def test_lines_nice_ticks() -> None:
    root = parse(lines(power_curves(), x_label="n", y_label="power"))
    ticks = texts(root, "tick")
    assert ticks[-6:] == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]  # the y axis
    assert_nice([float(t) for t in ticks[:-6]], 50, 3200)


def test_lines_gaps_for_nan_and_inf_points() -> None:
    pts = [(1.0, 0.1), (2.0, NAN), (3.0, 0.3), (4.0, 0.4), (INF, 0.5), (6.0, 0.6), (7.0, 0.7)]
    root = parse(lines({"s": pts}, x_label="x", y_label="y"))
    assert len(root.findall(f".//{NS}polyline")) == 2  # (3, 4) and (6, 7); (1) stands alone
    assert len(by_class(root, "point")) == 5
    assert texts(root, "caption") == ["2 points with NaN or infinite values not drawn"]


def test_lines_degenerate_inputs() -> None:
    empty: list[dict[str, list[tuple[float, float]]]] = [{}, {"s": []}, {"s": [(NAN, INF)]}]
    for series in empty:
        root = parse(lines(series, x_label="x", y_label="y"))
        assert texts(root, "empty") == ["no data"]
    root = parse(lines({"one": [(5.0, 5.0)]}, x_label="x", y_label="y"))
    assert len(by_class(root, "point")) == 1
    assert not root.findall(f".//{NS}polyline")
    assert tick_values(root)[0] < 5 < tick_values(root)[-1]
    many = [(float(i), math.sin(i / 10)) for i in range(500)]
    root = parse(lines({"long": many}, x_label="x", y_label="y"))
    assert not by_class(root, "point")
    assert len(root.findall(f".//{NS}polyline")) == 1


def test_lines_escape_and_determinism() -> None:
    series = {label: [(0.0, 1.0), (1.0, 2.0)] for label in HOSTILE}
    svg = lines(
        series, x_label=HOSTILE[0], y_label=HOSTILE[1], title=HOSTILE[2], hlines=[(1.5, HOSTILE[0])]
    )
    root = parse(svg)
    assert "<script" not in svg
    assert "<script>alert(1)</script>" in all_text(root)
    assert svg == lines(
        dict(series),
        x_label=HOSTILE[0],
        y_label=HOSTILE[1],
        title=HOSTILE[2],
        hlines=[(1.5, HOSTILE[0])],
    )


# --- scatter -----------------------------------------------------------------------------


def studies() -> list[tuple[float, float, str]]:
    return [(0.02 + 0.01 * i, 0.05 + 0.02 * ((i * 7) % 5 - 2), f"study {i}") for i in range(12)]


def test_scatter_points_labels_line_and_funnel() -> None:
    svg = scatter(
        studies(), x_label="standard error", y_label="effect", line=(0.0, 0.5), funnel=(0.05, 1.96)
    )
    root = parse(svg)
    assert len(by_class(root, "point")) == 12
    assert texts(root, "point-label") == [f"study {i}" for i in range(12)]
    assert [tip(el) for el in by_class(root, "fit")] == ["fitted line: y = 0 + 0.5 x"]
    assert [tip(el) for el in by_class(root, "funnel")] == [
        "funnel: y = 0.05 - 1.96 x",
        "funnel: y = 0.05 + 1.96 x",
    ]
    assert len(by_class(root, "centre")) == 1
    assert tick_values(root)[0] <= 0  # the funnel's apex at x = 0 is on the scale
    assert tip(by_class(root, "point")[0]) == "study 0: x = 0.02, y = 0.01"


def test_scatter_invert_x() -> None:
    pts = [(0.1, 0.0), (0.2, 0.0)]
    normal = by_class(parse(scatter(pts, x_label="se", y_label="d")), "point")
    flipped = by_class(parse(scatter(pts, x_label="se", y_label="d", invert_x=True)), "point")
    assert float(normal[0].get("cx") or 0) < float(normal[1].get("cx") or 0)
    assert float(flipped[0].get("cx") or 0) > float(flipped[1].get("cx") or 0)


def test_scatter_degenerate_inputs() -> None:
    for pts in ([], [(NAN, 1.0)], [(INF, -INF)]):
        assert texts(parse(scatter(pts, x_label="x", y_label="y")), "empty") == ["no data"]
    root = parse(scatter([(1.0, 1.0), (NAN, 2.0), (3.0, INF)], x_label="x", y_label="y"))
    assert len(by_class(root, "point")) == 1
    assert texts(root, "caption") == ["2 points with NaN or infinite values not drawn"]
    ticks = tick_values(root)
    assert len(set(ticks)) >= 2
    assert ticks[0] < 1 < ticks[-1]
    root = parse(
        scatter(
            [(0.0, 0.0), (1.0, 1.0)], x_label="x", y_label="y", line=(1e6, 0.0), funnel=(NAN, 1.96)
        )
    )
    assert not by_class(root, "fit")
    assert not by_class(root, "funnel")
    assert texts(root, "caption") == [
        "the fitted line is outside the plotted range or not finite; not drawn",
        "the funnel is outside the plotted range or not finite; not drawn",
    ]


def test_scatter_escape_and_determinism() -> None:
    pts = [(float(i), float(i % 3), label) for i, label in enumerate(HOSTILE)]
    svg = scatter(pts, x_label=HOSTILE[1], y_label=HOSTILE[0], title=HOSTILE[3])
    root = parse(svg)
    assert "<script" not in svg
    assert "<script>alert(1)</script>" in all_text(root)
    assert svg == scatter(list(pts), x_label=HOSTILE[1], y_label=HOSTILE[0], title=HOSTILE[3])


# --- any input ---------------------------------------------------------------------------

numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-320, 5e-324, 1e300, -1e300, 1.7e308]),
    st.floats(-2, 2),
)
labels = st.text(max_size=40)
emphases = st.sampled_from([None, "pass", "fail", "unresolved"])


@given(
    rows=st.lists(
        st.builds(ForestRow, labels, numbers, numbers, numbers, labels, emphases), max_size=6
    ),
    reference=numbers,
    unit=st.sampled_from(["", "pp", "ms"]),
    with_thresholds=st.booleans(),
    title=st.none() | labels,
)
def test_forest_any_input_gives_well_formed_svg(
    rows: list[ForestRow], reference: float, unit: str, with_thresholds: bool, title: str | None
) -> None:
    marks = [r.low for r in rows] if with_thresholds else None
    svg = forest(rows, reference=reference, thresholds=marks, unit=unit, title=title)
    root = parse(svg)
    assert len(by_class(root, "row")) == len(rows)
    scaled = [r.estimate * (100 if unit == "pp" else 1) for r in rows]
    assert len(by_class(root, "estimate")) == sum(abs(v) <= 1e300 for v in scaled)  # NaN: False


@given(n=st.integers(0, 5), data=st.data())
def test_heatmap_any_input_gives_well_formed_svg(n: int, data: st.DataObject) -> None:
    names = data.draw(st.lists(labels, min_size=n, max_size=n))
    m = data.draw(st.lists(st.lists(numbers, min_size=n, max_size=n), min_size=n, max_size=n))
    root = parse(heatmap(names, m, title=data.draw(st.none() | labels)))
    assert len(by_class(root, "cell")) == n * n


@given(
    series=st.dictionaries(labels, st.lists(st.tuples(numbers, numbers), max_size=8), max_size=4),
    refs=st.lists(numbers | st.tuples(numbers, labels), max_size=3),
)
def test_lines_any_input_gives_well_formed_svg(
    series: dict[str, list[tuple[float, float]]], refs: list[float | tuple[float, str]]
) -> None:
    parse(lines(series, x_label="x", y_label="y", hlines=refs, vlines=refs))


@given(
    points=st.lists(st.tuples(numbers, numbers) | st.tuples(numbers, numbers, labels), max_size=10),
    line=st.none() | st.tuples(numbers, numbers),
    funnel=st.none() | st.tuples(numbers, numbers),
    invert_x=st.booleans(),
)
def test_scatter_any_input_gives_well_formed_svg(
    points: list[tuple[float, float] | tuple[float, float, str]],
    line: tuple[float, float] | None,
    funnel: tuple[float, float] | None,
    invert_x: bool,
) -> None:
    parse(scatter(points, x_label="x", y_label="y", line=line, funnel=funnel, invert_x=invert_x))


@pytest.mark.parametrize(
    "make",
    [
        lambda: forest([ForestRow("a", 0.1, 0.0, 0.2)]),
        lambda: heatmap(["a", "b"], [[0.0, 1.0], [1.0, 0.0]]),
        lambda: lines({"a": [(0, 0), (1, 1)]}, x_label="x", y_label="y"),
        lambda: scatter([(0, 0), (1, 1)], x_label="x", y_label="y"),
    ],
)
def test_coordinates_are_finite_and_compact(make: Callable[[], str]) -> None:
    root = parse(make())
    coordinates = [
        el.get(name) or "" for el in root.iter() for name in GEOMETRY.intersection(el.keys())
    ]
    coordinates += [el.get(name) or "" for el in root.iter() for name in ("points", "d")]
    assert coordinates
    assert not any(re.search(r"\d\.\d{3,}", c) for c in coordinates)  # two decimals at most


@pytest.mark.parametrize("width", [200, 360, 640])
@pytest.mark.parametrize("magnitude", [1e-7, 1.0, 1e9, 1e123])
def test_tick_labels_leave_room_for_each_other(width: int, magnitude: float) -> None:
    rows = [
        ForestRow(f"t{i}", magnitude * (i - 3), magnitude * (i - 5), magnitude * i)
        for i in range(8)
    ]
    root = parse(forest(rows, width=width))
    ticks = by_class(root, "tick")
    assert len(ticks) >= 2
    for a, b in itertools.pairwise(ticks):
        gap = float(b.get("x") or 0) - float(a.get("x") or 0)
        assert gap >= 0.6 * 11 * (len(shown(a)) + len(shown(b))) / 2  # estimated glyph widths


# --- names never cut: width estimates, wrapping, keys ------------------------------------


def test_width_estimate_is_at_least_the_widest_common_font() -> None:
    """Every printable ASCII character is estimated at least as wide as DejaVu Sans draws
    it (the default sans-serif font on Linux, one of the widest), regular and bold."""
    from evalsig.report.svg._draw import _BOLD, _em

    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools (with matplotlib)")
    matplotlib = pytest.importorskip("matplotlib")
    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    for name, factor in (("DejaVuSans.ttf", 1.0), ("DejaVuSans-Bold.ttf", _BOLD)):
        font = ttlib.TTFont(fonts / name)
        glyphs, advances, em = font.getBestCmap(), font["hmtx"], font["head"].unitsPerEm
        for code in range(32, 127):
            real = advances[glyphs[code]][0] / em
            assert _em(chr(code)) * factor >= real, (name, chr(code), real)


def test_wrap_breaks_at_spaces_then_separators_then_anywhere() -> None:
    from evalsig.report.svg._draw import _px, _wrap

    text = "org/model_with_a_very_long_identifier-without-spaces and then a few words"
    lines = _wrap(text, 120)
    assert len(lines) > 2
    assert all(_px(line) <= 120 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing cut
    assert lines[0].endswith(("/", "_", "-"))  # broken after a separator, not mid-word
    assert _wrap("a b c", 1000) == ["a b c"]
    token = "x" * 50
    assert len(_wrap(token, 60)) > 1
    assert "".join(_wrap(token, 60)) == token
    assert _wrap("a\nb", 500) == ["a", "b"]
    assert _wrap("", 100) == [""]


def test_long_titles_wrap_whole() -> None:
    title = "a title that is much too long to fit on one line of any chart " * 3
    charts = [
        forest([ForestRow("a", 0, -1, 1)], title=title),
        lines({"a": [(0, 0), (1, 1)]}, x_label="x", y_label="y", title=title),
        scatter([(0.1, 0.2), (0.2, 0.3)], x_label="x", y_label="y", title=title),
        heatmap(["a", "b"], [[0.1, 0.2], [0.3, 0.4]], title=title),
        forest([], title=title),
    ]
    for svg in charts:
        root = parse(svg)
        (heading,) = by_class(root, "title")
        assert " ".join(lines_of(heading)) == title.strip()
        assert len(lines_of(heading)) >= 3


def test_a_wrapped_title_pushes_the_plot_down() -> None:
    short = parse(lines({"a": [(0, 0), (1, 1)]}, x_label="x", y_label="y", title="t"))
    long = parse(lines({"a": [(0, 0), (1, 1)]}, x_label="x", y_label="y", title="t " * 200))
    assert size(long)[1] > size(short)[1] + 18 * 3
    assert float(by_class(long, "axis")[0].get("y1") or 0) > float(
        by_class(short, "axis")[0].get("y1") or 0
    )


def test_lines_legend_wraps_long_series_names() -> None:
    name = "a series with a long name that goes on and on " * 4
    root = parse(lines({name: [(0, 0), (1, 1)], "b": [(0, 1), (1, 0)]}, x_label="x", y_label="y"))
    label = by_class(root, "legend-label")[0]
    assert " ".join(lines_of(label)) == name.strip()
    assert texts(root, "legend-label")[1] == "b"


def test_lines_y_include_extends_the_scale() -> None:
    flat = {"power": [(0.0, 0.0), (0.1, 0.0)]}
    padded = parse(lines(flat, x_label="x", y_label="power"))
    assert min(tick_values(padded)) < 0  # a flat series alone is padded below 0
    root = parse(lines(flat, x_label="x", y_label="power", y_include=(0.0, 1.0)))
    ys = [float(el.text or "") for el in by_class(root, "tick") if el.get("text-anchor") == "end"]
    assert min(ys) == 0.0
    assert max(ys) == 1.0


def test_tick_labels_stay_inside_the_plot() -> None:
    root = parse(lines({"a": [(0, 0), (45000, 1)]}, x_label="x", y_label="y", width=400))
    width = size(root)[0]
    for el in by_class(root, "tick"):
        if el.get("text-anchor") == "middle":
            x, half = float(el.get("x") or 0), len(shown(el)) * 11 * 0.64 / 2
            assert x - half >= 0
            assert x + half <= width


def test_scatter_long_labels_are_numbered_with_a_key() -> None:
    names = [f"a very long source name that cannot sit beside its point {i}" for i in range(3)]
    points = [(0.01 * (i + 1), 0.1 * i, name) for i, name in enumerate(names)]
    root = parse(scatter(points, x_label="se", y_label="effect"))
    assert texts(root, "point-label") == ["1", "2", "3"]
    assert texts(root, "key-mark") == ["1", "2", "3"]
    assert [" ".join(lines_of(el)) for el in by_class(root, "key-text")] == names
    short = parse(scatter([(0.1, 0.2, "a"), (0.2, 0.3, "b")], x_label="x", y_label="y"))
    assert texts(short, "point-label") == ["a", "b"]
    assert not by_class(short, "key-mark")


def test_scatter_labels_never_cover_each_other() -> None:
    same = [(0.25, 0.5, "first"), (0.25, 0.5, "second"), (0.25, 0.5, "third")]
    corners = [(0.0, 0.0), (1.0, 1.0)]
    root = parse(scatter([*same, (0.5, 0.9, "far"), *corners], x_label="x", y_label="y"))
    assert texts(root, "point-label") == ["first", "second", "far"]  # right, left, -, right
    assert [el.get("text-anchor") for el in by_class(root, "point-label")] == [
        "start",
        "end",
        "start",
    ]
    assert "1 labels of crowded points left out (in their tooltips)" in texts(root, "caption")
    assert len(by_class(root, "point")) == 6
