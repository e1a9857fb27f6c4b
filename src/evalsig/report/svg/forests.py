"""Forest plots: one labelled estimate and interval per row."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evalsig.errors import DataError
from evalsig.report.svg._draw import (
    _EMPHASIS,
    _MUTED,
    _arrow,
    _Axis,
    _bad,
    _block,
    _el,
    _empty,
    _frame,
    _heading,
    _key,
    _legend,
    _line,
    _marker,
    _num,
    _off,
    _px,
    _short,
    _t,
    _text,
    _wrap,
    _x_axis,
    _x_scale,
)

__all__ = ["ForestRow", "forest"]


@dataclass(frozen=True, slots=True)
class ForestRow:
    """One row of a forest plot: a labelled estimate with its interval.

    A label or note too long for the label column is wrapped onto more lines (the row grows),
    never cut: a name must identify its row. A newline in a label always breaks it.

    Parameters
    ----------
    label : str
        The row's name (a task, a model, a study).
    estimate : float
        The point estimate; NaN draws no mark and shows "n/a".
    low, high : float
        The interval; ``-inf``/``inf`` mean unbounded (a one-sided bound) and draw an arrow.
    note : str, optional
        A short line under the label (also in the tooltip).
    emphasis : {"pass", "fail", "unresolved", "summary", "spread", "marked", None}, optional
        A verdict colours the row green, red or amber and adds a symbol (check mark, cross,
        question mark) and a marker shape, so it reads without colour too. The other kinds
        are no verdicts: "summary" a pooled estimate (a filled diamond), "spread" an
        interval where new values fall (dashed, an open diamond), "marked" a row to notice
        (an open circle); ``forest(legend=)`` says what each means.

    Raises
    ------
    DataError
        If ``emphasis`` is not one of the values above.
    """

    label: str
    estimate: float
    low: float
    high: float
    note: str = ""
    emphasis: str | None = None

    def __post_init__(self) -> None:
        if self.emphasis not in _EMPHASIS:
            raise DataError(
                f"`emphasis` is {self.emphasis!r} for row {self.label!r}; use one of "
                f"{', '.join(repr(k) for k in _EMPHASIS if k)} or None."
            )


# --- forest ------------------------------------------------------------------------------


def forest(
    rows: Sequence[ForestRow],
    /,
    *,
    reference: float = 0.0,
    thresholds: Sequence[float | None] | None = None,
    unit: str = "",
    title: str | None = None,
    width: float = 640,
    signed: bool = True,
    key: Sequence[tuple[str, str]] = (),
    legend: Mapping[str, str] | None = None,
) -> str:
    """A forest plot: one row per label with its estimate and interval on a shared scale.

    Parameters
    ----------
    rows : sequence of ForestRow
        The rows, drawn top to bottom in the given order.
    reference : float, default 0.0
        Where the vertical reference line goes (no difference).
    thresholds : sequence of float or None, optional
        One per row: a dashed mark at that value (a non-inferiority margin, say); None, NaN
        or an infinite value draws none for that row.
    unit : str, default ""
        ``"pp"`` means values are on the 0-1 scale and shown as percentage points (times
        100); any other text is shown as is under the axis.
    title : str, optional
        A heading above the plot (wrapped, never cut).
    width : float, default 640
        Width in pixels (at least about 340 are used, more if the values need it); the
        height grows with the rows and with labels wrapped onto several lines.
    signed : bool, default True
        Print the values with a sign (differences); False for levels such as ranks.
    key : sequence of (str, str), optional
        For rows labelled by short marks: each mark and the full text it stands for,
        listed under the plot (``[("#1", "a long model name"), ...]``).
    legend : mapping, optional
        The legend's text for each ``emphasis`` used (``{"summary": "pooled estimate"}``);
        by default a verdict's symbol and name ("✓ pass"), and the name of another kind.

    Returns
    -------
    str
        The ``<svg>`` element.

    Raises
    ------
    DataError
        If ``thresholds`` does not have one entry per row.

    Notes
    -----
    The label column is as wide as the longest label (estimated by
    :func:`evalsig.report.svg._draw._px`), at most 3/8 of ``width``; longer labels wrap.

    Examples
    --------
    >>> svg = forest([ForestRow("math", 0.012, 0.004, 0.020, emphasis="pass")], unit="pp")
    >>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    """
    rows = list(rows)
    marks = [None] * len(rows) if thresholds is None else list(thresholds)
    if len(marks) != len(rows):
        raise DataError(
            f"`thresholds` has {len(marks)} entries for {len(rows)} rows; "
            "give one per row (None for no mark)."
        )
    if not rows:
        return _empty(width, "Forest plot", title)
    scale, suffix = (100.0, "pp") if unit == "pp" else (1.0, unit)
    widest = max(max(_px(r.label) + _symbol_px(r), _px(r.note, 11)) for r in rows)
    label_w = min(max(widest + 8, 60), 0.375 * width)
    texts = [_row_text(r, label_w - 8) for r in rows]
    base = 40.0 if any(r.note for r in rows) else 28.0
    heights = [max(base, 14 * len(a) + 13 * len(b) + 12) for a, b in texts]
    value_w = 158.0  # the values column, widened below if its text needs more
    plot_x, plot_w = label_w + 16, max(width - label_w - 16 - value_w, 120)
    values = [reference] + [v * scale for r in rows for v in (r.estimate, r.low, r.high)]
    values += [t * scale for t in marks if t is not None]
    ax = _x_scale(values, plot_x, plot_x + plot_w)
    shown = [_values(r, ax, scale, signed) for r in rows]
    value_w = max(value_w, max(_px(v, 11) for v in shown) + 18)
    total_w = plot_x + plot_w + value_w
    heading, top = _heading(title, total_w)
    axis_y = top + sum(heights) + 6
    caption = "percentage points" if unit == "pp" else unit
    body = heading + _x_axis(ax, axis_y, top, caption, total_w)
    if not _bad(reference * scale):
        x, tip = ax(reference * scale), f"reference: {_num(reference * scale, suffix)}"
        body.append(_line(x, top, x, axis_y, "reference", ("currentColor", 1.2, ""), tip))
    y_top = top
    for row, mark, text, row_h, value in zip(rows, marks, texts, heights, shown, strict=True):
        y = y_top + row_h / 2
        columns = (label_w, plot_x + plot_w + 10)
        body.append(_forest_row(row, mark, ax, (y, row_h, scale), suffix, columns, text, value))
        y_top += row_h
    entries = []
    for e in (k for k in _EMPHASIS if k is not None):
        if any(r.emphasis == e for r in rows):
            ink, symbol, shape = _EMPHASIS[e]
            caption = (legend or {}).get(e) or f"{symbol} {e}".strip()
            entries.append((_marker(shape, 10, 0, 4.5, ink, caption, "key"), caption))
    if any(t is not None and not _bad(t * scale) for t in marks):
        entries.append((_line(10, -7, 10, 7, "key", (_MUTED, 2, "3 2")), "threshold"))
    drawn, legend_h = _legend(entries, 8, axis_y + 56, total_w)
    height = axis_y + 44 + (legend_h + 6 if legend_h else 0)
    listing, key_h = _key(key, 8, height + 4, total_w)
    height += key_h + 8 if key_h else 0
    label = f"Forest plot{': ' + title if title else ''} ({len(rows)} rows)"
    return _frame(total_w, height, label, body + drawn + listing)


def _symbol_px(row: ForestRow) -> float:
    """Room for the verdict symbol and its space before a label."""
    symbol = _EMPHASIS[row.emphasis][1]
    return _px(symbol + " ", bold=True) if symbol else 0.0


def _row_text(row: ForestRow, room: float) -> tuple[list[str], list[str]]:
    """The label's lines (the first leaves room for the verdict symbol) and the note's."""
    lines = _wrap(row.label, room - _symbol_px(row))
    return lines, (_wrap(row.note, room, 11) if row.note else [])


def _values(row: ForestRow, ax: _Axis, scale: float, signed: bool) -> str:
    """'+1.2 [+0.4, +2.0]': the estimate and interval with one decimal more than the axis."""
    est, low, high = row.estimate * scale, row.low * scale, row.high * scale
    d = None if ax.decimals is None else ax.decimals + 1
    if not signed and all(float(v).is_integer() for v in (est, low, high)):
        d = 0  # whole numbers, such as ranks
    value = ", ".join(_short(v, d, signed=signed) for v in (low, high))
    return f"{_short(est, d, signed=signed)} [{value}]"


def _forest_row(
    row: ForestRow,
    mark: float | None,
    ax: _Axis,
    place: tuple[float, float, float],  # centre y, row height, value scale
    unit: str,
    columns: tuple[float, float],  # right edge of the labels, left edge of the values
    text: tuple[list[str], list[str]],  # the label's and the note's lines
    value: str,
) -> str:
    (y, row_h, scale), (label_x, value_x), (lines, notes) = place, columns, text
    ink, symbol, shape = _EMPHASIS[row.emphasis]
    est, low, high = row.estimate * scale, row.low * scale, row.high * scale
    facts = [f"estimate {_num(est, unit)}", f"interval {_num(low)} to {_num(high)} {unit}".rstrip()]
    if math.isinf(low) or math.isinf(high):
        sides = [side for side, v in (("below", low), ("above", high)) if math.isinf(v)]
        facts.append(f"unbounded {' and '.join(sides)}")
    facts += ["low > high"] * (low > high) + [row.emphasis or "", row.note]
    tip = f"{row.label}: {'; '.join(f for f in facts if f)}"
    first = y - (14 * len(lines) + 13 * len(notes)) / 2 + 10  # the block centred on the row
    sym = _el("tspan", {"fill": ink, "font-weight": 700}, symbol) + " " if symbol else ""
    more = [
        _el("tspan", {"x": label_x, "y": first + 14 * i}, lines[i]) for i in range(1, len(lines))
    ]
    spans = [sym + _t(lines[0]), *more]
    at = {"class": "label", "x": label_x, "y": first, "text-anchor": "end"}
    out = [_el("text", at, raw="".join(spans))]
    if notes:
        style = {"text-anchor": "end", "font-size": 11, "fill": _MUTED}
        out.append(_block(label_x, first + 14 * len(lines) - 1, notes, "note", style, step=13))
    if mark is not None and not _bad(mark * scale):
        x, half = ax(mark * scale), min(row_h / 2 - 3, 17)
        mtip = f"threshold: {_num(mark * scale, unit)}"
        out.append(_line(x, y - half, x, y + half, "threshold", (_MUTED, 2, "3 2"), mtip))
    if not (math.isnan(low) or math.isnan(high)):
        x1, x2 = ax(low), ax(high)
        pen = (ink, 2.0, "4 3" if row.emphasis in ("unresolved", "spread") else "")
        out.append(_line(x1, y, x2, y, "interval", pen, tip))
        for v, x in ((low, x1), (high, x2)):
            if _off(v):
                out.append(_arrow(x, y, 1 if v > 0 else -1, ink, f"{tip} (drawn to the edge)"))
            else:
                out.append(_line(x, y - 4, x, y + 4, "cap", (ink, 1.5, "")))
    if math.isnan(est):
        style = {"text-anchor": "middle", "font-size": 11, "fill": _MUTED}
        out.append(_text((ax.start + ax.end) / 2, y - 6, "n/a", "na", style))
    elif _off(est):
        out.append(_arrow(ax(est), y, 1 if est > 0 else -1, ink, f"{tip} (off the scale)"))
    else:
        out.append(_marker(shape, ax(est), y, 5, ink, tip, "estimate"))
    out.append(_text(value_x, y + 4, value, "value", {"font-size": 11}, chars=len(value)))
    return _el("g", {"class": "row"}, tip=tip, raw="".join(out))
