"""Shared pieces of the SVG plots: escaping, element builders, text widths and wrapping,
scales, axes, legends and keys."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

_FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
_MUTED = "#6e7781"
_THIN = frozenset(" ',.:;|ijlI/\\")  # at most 0.345 em
_NARROW = frozenset("!()[]frt-")  # at most 0.43 em
_MIDDLE = frozenset('"*?_`csz')  # at most 0.56 em
_WIDE = frozenset("#%&+<=>@DGHMOQW^mw~")  # up to 1.02 em
_BOLD = 1.17  # bold glyphs are up to 17% wider
_LIMIT = 1e300  # finite values beyond this are drawn at the plot edge
_EMPHASIS: dict[str | None, tuple[str, str, str]] = {  # colour, label symbol, marker shape
    None: ("currentColor", "", "square"),
    "pass": ("#1a7f37", "\u2713", "circle"),
    "fail": ("#cf222e", "\u2717", "cross"),
    "unresolved": ("#9a6700", "?", "open-diamond"),
    "summary": ("#d55e00", "", "diamond"),  # a pooled (summary) estimate, not a verdict
    "spread": ("#d55e00", "", "open-diamond"),  # where new values fall: a dashed interval
    "marked": ("#0072b2", "", "open-circle"),  # a row to notice; the legend says why
}
_PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")  # Okabe-Ito
_DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 2 1 2")
_SHAPES = ("circle", "square", "triangle", "diamond", "cross")
_CORNERS = {
    "triangle": ((0.0, -1.2), (1.1, 0.8), (-1.1, 0.8)),
    "diamond": ((0.0, -1.3), (1.3, 0.0), (0.0, 1.3), (-1.3, 0.0)),
}
_VIRIDIS = bytes.fromhex("440154 472d7b 3b528b 2c728e 21918c 28ae80 5ec962 addc30 fde725")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

_Pen = tuple[str, float, str]  # stroke colour, width, dash pattern
_INK: _Pen = ("currentColor", 1.0, "")
_GRID: _Pen = (_MUTED, 0.5, "2 3")
_GUIDE: _Pen = (_MUTED, 1.5, "5 3")
_Ref = float | tuple[float, str]
_Style = Mapping[str, object]
_PLAIN: _Style = {}


# --- text, numbers, elements -------------------------------------------------------------


def _t(text: object) -> str:
    """Text content: XML-escaped, characters that XML forbids replaced by U+FFFD."""
    return escape(_NOT_XML.sub("\ufffd", str(text)))


def _a(text: object) -> str:
    """An attribute value (always written in double quotes)."""
    return escape(_NOT_XML.sub("\ufffd", str(text)), {'"': "&quot;", "'": "&apos;"})


def _c(v: float) -> str:
    """A pixel coordinate: two decimals at most, no trailing zeros, never '-0'."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _el(tag: str, attrs: Mapping[str, object], text: str = "", tip: str = "", raw: str = "") -> str:
    """One element: numbers become coordinates, strings are escaped, empty values dropped.

    ``text`` and ``tip`` (a ``<title>`` child) are escaped here; ``raw`` is markup.
    """
    parts = [tag]
    for key, v in attrs.items():
        if v is not None and v != "":
            parts.append(f'{key}="{_c(v) if isinstance(v, (int, float)) else _a(v)}"')
    inner = (f"<title>{_t(tip)}</title>" if tip else "") + _t(text) + raw
    head = " ".join(parts)
    return f"<{head}>{inner}</{tag}>" if inner else f"<{head}/>"


def _text(x: float, y: float, text: str, cls: str, style: _Style = _PLAIN, chars: int = 80) -> str:
    """A text cut to ``chars`` characters, with the full text as its tooltip when cut."""
    shown = _fit(text, chars)
    return _el(
        "text", {"class": cls, "x": x, "y": y, **style}, shown, tip=text if shown != text else ""
    )


def _num(v: float, unit: str = "") -> str:
    """A number for a tooltip: 6 significant digits, 'n/a', '+inf' or '-inf'."""
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:.6g} {unit}" if unit else f"{v:.6g}"


def _short(v: float, decimals: int | None, *, signed: bool = True) -> str:
    """A number with ``decimals`` decimals (3 significant digits if None or large), signed
    unless ``signed`` is False (ranks and scores are not differences)."""
    if math.isnan(v) or math.isinf(v):
        return _num(v)
    sign = "+" if signed else ""
    return f"{v:{sign}.3g}" if decimals is None or abs(v) >= 1e6 else f"{v:{sign}.{decimals}f}"


def _fit(text: str, chars: int) -> str:
    """``text`` cut to ``chars`` characters with an ellipsis."""
    return text if len(text) <= chars else text[: max(chars - 1, 0)] + "\u2026"


def _em(char: str) -> float:
    """The advance of one character in em, a generous estimate: at least the width of the
    glyph in DejaVu Sans and Liberation Sans (the widest common sans-serif fonts)."""
    if char in _THIN:
        return 0.345
    if char in _NARROW:
        return 0.43
    if char in _MIDDLE:
        return 0.56
    if char in _WIDE:
        return 1.02
    if char.isascii():
        return 0.78 if char.isupper() else 0.64
    if unicodedata.combining(char):
        return 0.0
    return 1.2 if unicodedata.east_asian_width(char) in ("W", "F") else 1.0


def _px(text: str, size: float = 12.0, *, bold: bool = False) -> float:
    """The estimated width in pixels of ``text`` at font ``size``: the sum of
    :func:`_em` over its characters times the size (times 1.17 in bold)."""
    return sum(map(_em, text)) * size * (_BOLD if bold else 1.0)


_PIECES = re.compile(r"\s+|[^\s/_.\-]*[/_.\-]+|[^\s/_.\-]+")
"""A space, or a run of characters up to and including '/', '_', '.' or '-' (where a
long name may break), or a run without them."""


def _wrap(text: str, width: float, size: float = 12.0, *, bold: bool = False) -> list[str]:
    """``text`` as lines no wider than ``width`` pixels (by :func:`_px`), breaking at spaces,
    else after '/', '_', '.' or '-', else between any two characters; a newline always
    breaks. Nothing is cut: only the spaces where a line breaks are left out."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for piece in _PIECES.findall(paragraph):
            if piece.isspace():
                line += " " if line else ""
                continue
            if _px(line + piece, size, bold=bold) <= width:
                line += piece
                continue
            if line.strip():
                lines.append(line.rstrip())
            while _px(piece, size, bold=bold) > width and len(piece) > 1:
                cut = _fitting(piece, width, size, bold)
                lines.append(piece[:cut])
                piece = piece[cut:]
            line = piece
        lines.append(line.rstrip())
    return lines


def _fitting(text: str, width: float, size: float, bold: bool) -> int:
    """How many leading characters of ``text`` fit in ``width`` pixels (at least one)."""
    used = 0.0
    for count, char in enumerate(text):
        used += _px(char, size, bold=bold)
        if used > width:
            return max(count, 1)
    return len(text)


def _block(
    x: float, y: float, lines: Sequence[str], cls: str, style: _Style = _PLAIN, step: float = 0
) -> str:
    """One ``<text>`` of several lines (a ``<tspan>`` each), the first baseline at ``y`` and
    the next ones ``step`` pixels apart (1.25 times the font size by default)."""
    if len(lines) == 1:
        return _el("text", {"class": cls, "x": x, "y": y, **style}, lines[0])
    step = step or 1.25 * float(str(style.get("font-size", 12)))
    spans = "".join(_el("tspan", {"x": x, "y": y + i * step}, line) for i, line in enumerate(lines))
    return _el("text", {"class": cls, **style}, raw=spans)


def _off(v: float) -> bool:
    """Whether ``v`` cannot be placed on a scale (infinite or beyond +/-1e300)."""
    return math.isinf(v) or abs(v) > _LIMIT


def _bad(v: float) -> bool:
    """NaN or off the scale: a point that cannot be drawn."""
    return math.isnan(v) or _off(v)


# --- scales ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Axis:
    lo: float
    hi: float
    ticks: tuple[float, ...]
    labels: tuple[str, ...]
    decimals: int | None  # of the tick labels; None when they are in scientific notation
    start: float  # pixel of ``lo``
    end: float  # pixel of ``hi``

    def __call__(self, v: float) -> float:
        """The pixel of ``v``, clamped to the axis (infinite values go to its ends)."""
        f = 0.0 if v <= self.lo else 1.0 if v >= self.hi else (v - self.lo) / (self.hi - self.lo)
        return self.start + f * (self.end - self.start)


def _axis(values: Iterable[float], start: float, end: float, count: int) -> _Axis:
    """A scale from ``start`` to ``end`` pixels over about ``count`` nice ticks.

    Ticks are multiples of 1, 2 or 5 times a power of ten. NaN, infinite and beyond-limit
    values are ignored; no values give [0, 1]; values that are (almost) all equal get a
    padding of 10% of their size, or of 1 around zero.
    """
    finite = [float(v) for v in values if not _bad(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if hi - lo <= 1e-9 * max(abs(lo), abs(hi)) or hi - lo < 1e-280:
        centre = lo / 2 + hi / 2
        pad = 1.0 if centre == 0 else max(abs(centre) / 10, 1e-280)
        lo, hi = centre - pad, centre + pad
    raw = (hi - lo) / max(count, 1)
    power = math.floor(math.log10(raw))
    mantissa = raw / 10.0**power
    m = 1 if mantissa < 1.5 else 2 if mantissa < 3.5 else 5 if mantissa < 7.5 else 10
    if m == 10:
        m, power = 1, power + 1
    step = m * 10.0**power

    def at(k: int) -> float:  # k * step without the drift of repeated addition
        return (k * m / 10.0**-power if power < 0 else k * m * 10.0**power) + 0.0

    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    ticks = tuple(at(k) for k in range(first, last + 1))
    big = max(abs(t) for t in ticks)
    if big >= 1e6 or step < 1e-4:
        digits = min(15, max(0, math.floor(math.log10(big)) - power))
        labels, decimals = tuple("0" if t == 0 else f"{t:.{digits}e}" for t in ticks), None
    else:
        decimals = max(0, -power)
        labels = tuple(f"{t:.{decimals}f}" for t in ticks)
    return _Axis(ticks[0], ticks[-1], ticks, labels, decimals, start, end)


# --- shared pieces -----------------------------------------------------------------------


def _frame(width: float, height: float, label: str, body: Sequence[str]) -> str:
    size = {"width": width, "height": height, "viewBox": f"0 0 {_c(width)} {_c(height)}"}
    attrs = {"xmlns": "http://www.w3.org/2000/svg", **size, "role": "img", "aria-label": label}
    attrs |= {"font-family": _FONT, "font-size": 12, "fill": "currentColor"}
    return _el("svg", attrs, tip=label, raw="".join(body))


def _heading(title: str | None, width: float, bare: float = 10.0) -> tuple[list[str], float]:
    """The title wrapped to ``width`` (14 px bold, 18 px a line), and the y below it where
    the plot starts: 34 for one line, 18 more for each further line; ``bare`` without one."""
    if not title:
        return [], bare
    lines = _wrap(title, width - 16, 14, bold=True)
    style = {"font-size": 14, "font-weight": 600}
    return [_block(8, 20, lines, "title", style, step=18)], 34.0 + 18 * (len(lines) - 1)


def _empty(width: float, kind: str, title: str | None) -> str:
    heading, top = _heading(title, width, bare=0.0)
    height = top + 90
    style = {"text-anchor": "middle", "fill": _MUTED, "font-size": 14}
    body = [*heading, _text(width / 2, top + 53, "no data", "empty", style)]
    return _frame(width, height, f"{kind}{': ' + title if title else ''} (no data)", body)


def _marker(shape: str, x: float, y: float, r: float, ink: str, tip: str, cls: str) -> str:
    """A marker centred on (x, y): circle, square, triangle, diamond or cross; 'open-' hollow."""
    paint: dict[str, object] = {"fill": ink}
    if shape.startswith("open-"):
        shape, paint = shape[5:], {"fill": "none", "stroke": ink, "stroke-width": 1.5}
    if shape == "circle":
        return _el("circle", {"class": cls, "cx": x, "cy": y, "r": r, **paint}, tip=tip)
    if shape == "square":
        box = {"class": cls, "x": x - r, "y": y - r, "width": 2 * r, "height": 2 * r}
        return _el("rect", box | paint, tip=tip)
    if shape == "cross":
        a, b, c, d = _c(x - r), _c(x + r), _c(y - r), _c(y + r)
        path = {"class": cls, "d": f"M{a} {c}L{b} {d}M{a} {d}L{b} {c}", "fill": "none"}
        return _el("path", {**path, "stroke": ink, "stroke-width": 2.2}, tip=tip)
    points = " ".join(f"{_c(x + a * r)},{_c(y + b * r)}" for a, b in _CORNERS[shape])
    return _el("polygon", {"class": cls, "points": points, **paint}, tip=tip)


def _arrow(x: float, y: float, direction: int, ink: str, tip: str) -> str:
    """An arrowhead with its tip at ``x``, pointing left (-1) or right (+1): 'unbounded'."""
    base = x - 8 * direction
    points = f"{_c(x)},{_c(y)} {_c(base)},{_c(y - 5)} {_c(base)},{_c(y + 5)}"
    return _el("polygon", {"class": "arrow", "points": points, "fill": ink}, tip=tip)


def _line(
    x1: float, y1: float, x2: float, y2: float, cls: str, pen: _Pen = _INK, tip: str = ""
) -> str:
    ends = {"class": cls, "x1": x1, "y1": y1, "x2": x2, "y2": y2}
    return _el(
        "line",
        {**ends, "stroke": pen[0], "stroke-width": pen[1], "stroke-dasharray": pen[2]},
        tip=tip,
    )


def _x_scale(values: Sequence[float], start: float, end: float) -> _Axis:
    """A horizontal scale with as many ticks (2 to 8) as leave room for their labels."""
    count = max(2, min(8, int(abs(end - start) // 70)))
    while True:
        ax = _axis(values, start, end, count)
        room = abs(end - start) / max(len(ax.ticks) - 1, 1)
        if count == 2 or max(_px(s, 11) for s in ax.labels) + 8 <= room:
            return ax
        count -= 1


def _x_axis(ax: _Axis, y: float, top: float, caption: str, width: float) -> list[str]:
    """The axis line, gridlines, ticks and their labels, and the caption; a label centred
    on a tick near an edge is moved in to stay inside the plot's ``width``."""
    out = [_line(min(ax.start, ax.end), y, max(ax.start, ax.end), y, "axis")]
    room = abs(ax.end - ax.start) / max(len(ax.ticks) - 1, 1)
    every = math.ceil((max(_px(s, 11) for s in ax.labels) + 8) / room)  # label every n-th tick
    for i, (tick, text) in enumerate(zip(ax.ticks, ax.labels, strict=True)):
        x = ax(tick)
        out += [_line(x, top, x, y, "grid", _GRID), _line(x, y, x, y + 4, "tick-mark")]
        if i % every == 0:
            half = _px(text, 11) / 2 + 2
            at = min(max(x, half), width - half)
            out.append(_text(at, y + 16, text, "tick", {"text-anchor": "middle", "font-size": 11}))
    if caption:
        mid = (ax.start + ax.end) / 2
        out.append(_text(mid, y + 34, caption, "axis-label", {"text-anchor": "middle"}))
    return out


def _y_axis(ax: _Axis, x: float, right: float, caption: str) -> list[str]:
    out = [_line(x, min(ax.start, ax.end), x, max(ax.start, ax.end), "axis")]
    for tick, text in zip(ax.ticks, ax.labels, strict=True):
        y = ax(tick)
        out += [_line(x, y, right, y, "grid", _GRID), _line(x - 4, y, x, y, "tick-mark")]
        out.append(_text(x - 6, y + 4, text, "tick", {"text-anchor": "end", "font-size": 11}))
    mid = (ax.start + ax.end) / 2
    turn = {"text-anchor": "middle", "transform": f"rotate(-90 14 {_c(mid)})"}
    return [*out, _text(14, mid, caption, "axis-label", turn, chars=50)]


def _legend(
    entries: Sequence[tuple[str, str]], x0: float, y0: float, width: float
) -> tuple[list[str], float]:
    """Legend items (swatch markup drawn around 0,0; label) flowed into rows, and their height.

    A label too long for one row is wrapped onto more lines (14 px apart), never cut.
    """
    out, x, y, row_h = [], x0, y0, 18.0
    room = max(width - x0 - 8 - 26, 60)
    for swatch, label in entries:
        lines = _wrap(label, room, 11)
        w = 44 + max(_px(line, 11) for line in lines)
        if x > x0 and x + w > width:
            x, y, row_h = x0, y + row_h, 18.0
        text = _block(26, 4, lines, "legend-label", {"font-size": 11}, step=14)
        move = {"class": "legend", "transform": f"translate({_c(x)} {_c(y)})"}
        out.append(_el("g", move, raw=swatch + text))
        x, row_h = x + w, max(row_h, 4 + 14 * len(lines))
    return out, (y - y0 + row_h if entries else 0)


def _key(
    entries: Sequence[tuple[str, str]], x0: float, y0: float, width: float
) -> tuple[list[str], float]:
    """A key of short marks: each mark in bold, then the full text it stands for, wrapped to
    ``width``; one entry a line (or more). Returns the markup and its height."""
    if not entries:
        return [], 0.0
    mark_w = max(_px(mark, 11, bold=True) for mark, _ in entries) + 8
    room = max(width - x0 - mark_w - 8, 60)
    out, y = [], y0 + 11
    for mark, text in entries:
        lines = _wrap(text, room, 11)
        bold = {"font-size": 11, "font-weight": 700}
        parts = _el("text", {"class": "key-mark", "x": x0, "y": y, **bold}, mark)
        parts += _block(x0 + mark_w, y, lines, "key-text", {"font-size": 11}, step=14)
        out.append(_el("g", {"class": "key-entry"}, raw=parts))
        y += 14 * len(lines) + 3
    return out, y - y0 - 8
