"""Line charts (power curves) and scatter plots (funnel plots)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evalsig.report.svg._draw import (
    _DASHES,
    _GUIDE,
    _MUTED,
    _PALETTE,
    _SHAPES,
    _Axis,
    _axis,
    _bad,
    _c,
    _el,
    _empty,
    _frame,
    _heading,
    _key,
    _legend,
    _line,
    _marker,
    _num,
    _Pen,
    _px,
    _Ref,
    _text,
    _x_axis,
    _x_scale,
    _y_axis,
)

__all__ = ["lines", "scatter"]

# --- lines and scatter -------------------------------------------------------------------


def _clip(x0: float, y0: float, x1: float, y1: float, xs: _Axis, ys: _Axis) -> tuple[float, ...]:
    """The pixels of the part of a segment inside the plot (Liang-Barsky); () if none."""
    if any(_bad(v) for v in (x0, y0, x1, y1)):
        return ()
    t0, t1, dx, dy = 0.0, 1.0, x1 - x0, y1 - y0
    for p, q in ((-dx, x0 - xs.lo), (dx, xs.hi - x0), (-dy, y0 - ys.lo), (dy, ys.hi - y0)):
        if p == 0 and q < 0:
            return ()
        if p != 0:
            t0, t1 = (max(t0, q / p), t1) if p < 0 else (t0, min(t1, q / p))
    if t0 > t1:
        return ()
    return xs(x0 + t0 * dx), ys(y0 + t0 * dy), xs(x0 + t1 * dx), ys(y0 + t1 * dy)


def _plot(
    values: tuple[list[float], list[float]],
    size: tuple[float, float],
    labels: tuple[str, str],
    title: str | None,
    invert_x: bool = False,
) -> tuple[_Axis, _Axis, list[str], float]:
    """The axes over the plot rectangle, the heading, gridlines, ticks and captions, and how
    many pixels a heading of several lines pushes the plot (and what is below it) down."""
    (xvals, yvals), (width, height) = values, size
    heading, top = _heading(title, width, bare=12.0)
    grow = top - 34.0 if title else 0.0
    bottom = height + grow - 46
    ys = _axis(yvals, bottom, top, count=max(2, min(8, int((bottom - top) // 45))))
    left = max(_px(s, 11) for s in ys.labels) + 34
    span = (width - 16, left) if invert_x else (left, width - 16)
    xs = _x_scale(xvals, *span)
    body = heading + _x_axis(xs, ys.start, top, labels[0], width)
    return xs, ys, body + _y_axis(ys, left, width - 16, labels[1]), grow


def _refs(refs: Sequence[_Ref]) -> list[tuple[float, str]]:
    return [
        (float(r), "") if isinstance(r, (int, float)) else (float(r[0]), str(r[1])) for r in refs
    ]


def _guides(refs: Sequence[_Ref], xs: _Axis, ys: _Axis, vertical: bool) -> list[str]:
    """Dashed reference lines across the plot, labelled near their end."""
    out = []
    for value, name in _refs(refs):
        if _bad(value):
            continue
        tip = f"{'x' if vertical else 'y'} = {_num(value)}{': ' + name if name else ''}"
        style = {"font-size": 11, "fill": _MUTED}
        if vertical:
            x = xs(value)
            out.append(_line(x, ys.end, x, ys.start, "vline", _GUIDE, tip))
            out.append(
                _text(x + 4, ys.end + 12, name, "ref-label", style, chars=30) if name else ""
            )
        else:
            y, right = ys(value), max(xs.start, xs.end)
            out.append(_line(xs.start, y, xs.end, y, "hline", _GUIDE, tip))
            style["text-anchor"] = "end"
            out.append(_text(right - 4, y - 4, name, "ref-label", style, chars=30) if name else "")
    return out


def _caption(notes: Sequence[str], x: float, y: float) -> list[str]:
    style = {"font-size": 11, "fill": _MUTED}
    return [_text(x, y + 16 * i, note, "caption", style) for i, note in enumerate(notes)]


def lines(
    series: Mapping[str, Sequence[tuple[float, float]]],
    /,
    *,
    x_label: str,
    y_label: str,
    title: str | None = None,
    hlines: Sequence[float | tuple[float, str]] = (),
    vlines: Sequence[float | tuple[float, str]] = (),
    y_include: Sequence[float] = (),
    width: float = 640,
    height: float = 360,
) -> str:
    """A line chart of named series of (x, y) points, such as power curves.

    Parameters
    ----------
    series : mapping of str to sequence of (x, y)
        Each series is drawn in the given point order, with its own colour, dash pattern and
        marker shape (markers for series of up to 100 points); points with a NaN or
        infinite coordinate leave a gap and are counted under the plot.
    x_label, y_label : str
        Axis captions.
    title : str, optional
        A heading above the plot.
    hlines, vlines : sequence of float or (float, str)
        Dashed reference lines at these y (x) values, each with an optional label (the
        target power 0.8, the current sample size).
    y_include : sequence of float, optional
        Values the y scale reaches whatever the data (0 and 1 for a probability).
    width, height : float, default 640, 360
        Size in pixels of the chart; a title of several lines and the legend below (series
        names wrapped, never cut) add height as needed.

    Returns
    -------
    str
        The ``<svg>`` element.

    Examples
    --------
    >>> curve = [(100, 0.2), (400, 0.6), (1600, 0.97)]
    >>> lines({"McNemar": curve}, x_label="items", y_label="power", hlines=[(0.8, "80%")])[:4]
    '<svg'
    """
    points = {str(k): [(float(x), float(y)) for x, y in pts] for k, pts in series.items()}
    good = [(x, y) for pts in points.values() for x, y in pts if not (_bad(x) or _bad(y))]
    if not good:
        return _empty(width, "Line chart", title)
    xvals = [x for x, _ in good] + [v for v, _ in _refs(vlines)]
    yvals = [y for _, y in good] + [v for v, _ in _refs(hlines)] + [float(v) for v in y_include]
    xs, ys, body, grow = _plot((xvals, yvals), (width, height), (x_label, y_label), title)
    body += _guides(hlines, xs, ys, vertical=False) + _guides(vlines, xs, ys, vertical=True)
    entries, hidden = [], 0
    for k, (name, pts) in enumerate(points.items()):
        ink, dash, shape = _PALETTE[k % 6], _DASHES[k % 5], _SHAPES[k % 5]
        runs: list[list[str]] = [[]]
        dots = []
        for x, y in pts:
            if _bad(x) or _bad(y):
                hidden += 1
                runs.append([])
                continue
            runs[-1].append(f"{_c(xs(x))},{_c(ys(y))}")
            if len(pts) <= 100:
                tip = f"{name}: x = {_num(x)}, y = {_num(y)}"
                dots.append(_marker(shape, xs(x), ys(y), 3, ink, tip, "point"))
        style = {"fill": "none", "stroke": ink, "stroke-width": 2, "stroke-dasharray": dash}
        polys = [_el("polyline", {"points": " ".join(r), **style}) for r in runs if len(r) > 1]
        tip = f"{name} ({len(pts)} points)"
        body.append(_el("g", {"class": "series"}, tip=tip, raw="".join(polys + dots)))
        swatch = _line(0, 0, 22, 0, "key", (ink, 2, dash))
        entries.append((swatch + _marker(shape, 11, 0, 3, ink, name, "key"), name))
    legend, legend_h = _legend(entries, 60, height + grow + 6, width)
    notes = [f"{hidden} points with NaN or infinite values not drawn"] if hidden else []
    body += legend + _caption(notes, 60, height + grow + legend_h + 12)
    label = f"Line chart{': ' + title if title else ''} ({len(points)} series)"
    return _frame(width, height + grow + legend_h + 8 + 16 * len(notes), label, body)


def scatter(
    points: Sequence[tuple[float, float] | tuple[float, float, str]],
    /,
    *,
    x_label: str,
    y_label: str,
    title: str | None = None,
    line: tuple[float, float] | None = None,
    funnel: tuple[float, float] | None = None,
    invert_x: bool = False,
    width: float = 640,
    height: float = 360,
) -> str:
    """A scatter plot with an optional fitted line and an optional funnel.

    Parameters
    ----------
    points : sequence of (x, y) or (x, y, label)
        The points; labels are written beside them (up to 25 points) and always in the
        tooltip. When a label is too long to sit beside its point, the points are numbered
        instead and a key under the plot gives each number's label in full. A label that
        would cover another one is left out (it stays in the tooltip and the key; a note
        says how many). Points with a NaN or infinite coordinate are counted under the plot.
    x_label, y_label : str
        Axis captions.
    title : str, optional
        A heading above the plot.
    line : (intercept, slope), optional
        The line ``y = intercept + slope * x``, clipped to the plot.
    funnel : (centre, multiplier), optional
        The lines ``y = centre +/- multiplier * x`` from ``x = 0``, and a dotted line at
        ``y = centre``: a meta-analysis funnel with ``x`` the standard error and ``y`` the
        effect (``multiplier`` = 1.96 for 95%). The x scale then includes 0.
    invert_x : bool, default False
        Draw x growing to the left (in a funnel, the most precise studies on the right).
    width, height : float, default 640, 360
        Size in pixels; notes about undrawn points or lines add lines below.

    Returns
    -------
    str
        The ``<svg>`` element.

    Examples
    --------
    >>> pts = [(0.05, 0.10, "study 1"), (0.10, 0.02, "study 2"), (0.02, 0.06, "study 3")]
    >>> scatter(pts, x_label="standard error", y_label="effect", funnel=(0.06, 1.96))[:4]
    '<svg'
    """
    rows = [(float(p[0]), float(p[1]), str(p[2]) if len(p) > 2 else "") for p in points]
    good = [r for r in rows if not (_bad(r[0]) or _bad(r[1]))]
    if not good:
        return _empty(width, "Scatter plot", title)
    xvals, yvals = [x for x, _, _ in good], [y for _, y, _ in good]
    if funnel is not None and not any(_bad(v) for v in funnel):
        far, (c, m) = max(abs(x) for x in xvals), funnel
        xvals, yvals = [*xvals, 0.0], [*yvals, c - abs(m) * far, c + abs(m) * far]
    axes = (x_label, y_label)
    xs, ys, body, grow = _plot((xvals, yvals), (width, height), axes, title, invert_x)
    segments: list[tuple[str, float, float, float, _Pen, str]] = []  # from x, intercept, slope
    if line is not None:
        a, b = line
        tip = f"fitted line: y = {_num(a)} + {_num(b)} x"
        segments.append(("fit", xs.lo, a, b, ("#d55e00", 2.0, ""), tip))
    if funnel is not None:
        c, m = funnel[0], abs(funnel[1])
        segments += [
            ("funnel", 0.0, c, -m, _GUIDE, f"funnel: y = {_num(c)} - {_num(m)} x"),
            ("funnel", 0.0, c, m, _GUIDE, f"funnel: y = {_num(c)} + {_num(m)} x"),
            ("centre", xs.lo, c, 0.0, (_MUTED, 1.0, "1 3"), f"funnel centre: y = {_num(c)}"),
        ]
    skipped = set()
    for kind, x0, a, b, pen, tip in segments:
        seg = _clip(x0, a + b * x0, xs.hi, a + b * xs.hi, xs, ys)
        if seg:
            body.append(_line(seg[0], seg[1], seg[2], seg[3], kind, pen, tip))
        else:
            skipped.add("the fitted line" if kind == "fit" else "the funnel")
    for x, y, name in good:
        tip = f"{name + ': ' if name else ''}x = {_num(x)}, y = {_num(y)}"
        body.append(_marker("circle", xs(x), ys(y), 4, "#0072b2", tip, "point"))
    named = [(xs(x), ys(y), name) for x, y, name in good if name] if len(good) <= 25 else []
    keyed = any(_px(name, 11) > _LABEL_PX for _, _, name in named)
    marks = [str(i + 1) if keyed else name for i, (_, _, name) in enumerate(named)]
    labels, crowded = _point_labels(named, marks, (min(xs.start, xs.end), width))
    body += labels
    hidden = len(rows) - len(good)
    notes = [f"{hidden} points with NaN or infinite values not drawn"] if hidden else []
    notes += [f"{k} is outside the plotted range or not finite; not drawn" for k in sorted(skipped)]
    if crowded:
        notes.append(f"{crowded} labels of crowded points left out (in their tooltips)")
    bottom = height + grow + 16 * len(notes) + 6
    entries = [(mark, name) for mark, (_, _, name) in zip(marks, named, strict=True)]
    listing, key_h = _key(entries if keyed else [], 8, bottom, width)
    label = f"Scatter plot{': ' + title if title else ''} ({len(rows)} points)"
    body += _caption(notes, 60, height + grow + 4) + listing
    return _frame(width, bottom + (key_h + 8 if key_h else 0), label, body)


_LABEL_PX = 140.0
"""The widest label written beside a scatter point; longer ones are numbered and keyed."""


def _point_labels(
    named: Sequence[tuple[float, float, str]], marks: Sequence[str], room: tuple[float, float]
) -> tuple[list[str], int]:
    """Each point's mark, right of the point or left of it where it would leave ``room``
    (from the y axis to the right edge) or cover a mark already placed; marks that fit on
    neither side are left out (counted)."""
    placed: list[tuple[float, float, float, float]] = []
    out, crowded = [], 0
    for (x, y, _), mark in zip(named, marks, strict=True):
        w = _px(mark, 11)
        for left, anchor in ((x + 6, "start"), (x - 6 - w, "end")):
            box = (left, y - 13.5, left + w, y - 2.5)  # the glyphs of 11 px text
            inside = box[0] >= room[0] + 2 and box[2] <= room[1]  # widths are generous
            if inside and not any(_overlap(box, other) for other in placed):
                placed.append(box)
                style = {"font-size": 11, "text-anchor": anchor}
                at = x + 6 if anchor == "start" else x - 6
                out.append(_text(at, y - 5, mark, "point-label", style, chars=len(mark)))
                break
        else:
            crowded += 1
    return out, crowded


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes (left, top, right, bottom) share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
