"""Heatmaps of square matrices (pairwise p-values between models)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from evalsig.errors import DataError
from evalsig.report.svg._draw import (
    _MUTED,
    _VIRIDIS,
    _c,
    _el,
    _empty,
    _frame,
    _heading,
    _key,
    _num,
    _px,
    _text,
)

__all__ = ["heatmap"]

# --- heatmap -----------------------------------------------------------------------------


def _colour(f: float) -> str:
    """Viridis at ``f`` in [0, 1] (dark to light, so it stays ordered in grayscale)."""
    pos = min(max(f, 0.0), 1.0) * (len(_VIRIDIS) // 3 - 1)
    i = min(int(pos), len(_VIRIDIS) // 3 - 2)
    a, b = _VIRIDIS[3 * i : 3 * i + 3], _VIRIDIS[3 * i + 3 : 3 * i + 6]
    mix = (u * (i + 1 - pos) + v * (pos - i) for u, v in zip(a, b, strict=True))
    return "#" + "".join(f"{round(c):02x}" for c in mix)


def _hatched(x: float, y: float, size: float, tip: str, cls: str) -> str:
    """An empty cell with diagonal hatching: no value here."""
    box = {"class": cls, "x": x, "y": y, "width": size, "height": size, "fill": _MUTED}
    rect = _el(
        "rect", {**box, "fill-opacity": 0.12, "stroke": _MUTED, "stroke-width": 0.5}, tip=tip
    )
    h, e = size / 2, size
    d = f"M{_c(x)} {_c(y + e)}L{_c(x + e)} {_c(y)}M{_c(x)} {_c(y + h)}L{_c(x + h)} {_c(y)}"
    d += f"M{_c(x + h)} {_c(y + e)}L{_c(x + e)} {_c(y + h)}"
    return rect + _el("path", {"class": "hatch", "d": d, "stroke": _MUTED, "fill": "none"})


def heatmap(
    labels: Sequence[str],
    matrix: Sequence[Sequence[float]],
    /,
    *,
    title: str | None = None,
    vmin: float = 0.0,
    vmax: float = 1.0,
    fmt: str = "{:.2g}",
    width: float | None = None,
) -> str:
    """A square matrix (pairwise p-values, say) as coloured cells with a colour scale.

    Parameters
    ----------
    labels : sequence of str
        Row and column names, in matrix order.
    matrix : sequence of sequences of float
        ``len(labels)`` rows of ``len(labels)`` values; NaN cells are drawn hatched ("n/a").
    title : str, optional
        A heading above the plot.
    vmin, vmax : float, default 0.0, 1.0
        The ends of the colour scale (viridis); values beyond them take the end colours.
    fmt : str, default "{:.2g}"
        Format of the values written in the cells (when every value fits in a cell).
    width : float, optional
        Width in pixels; by default the cells are 40 px, smaller for more than 10 labels.

    Rows and columns carry their labels when every label is short (up to about 24
    characters); otherwise they are numbered 1 to n, and a key under the plot gives each
    number's label in full (the plot is then at least 480 px wide, for the key's lines).

    Returns
    -------
    str
        The ``<svg>`` element.

    Raises
    ------
    DataError
        If the matrix is not ``len(labels)`` by ``len(labels)``, or the colour scale is
        empty or not finite.

    Examples
    --------
    >>> heatmap(["a", "b"], [[float("nan"), 0.03], [0.03, float("nan")]]).startswith("<svg")
    True
    """
    n = len(labels)
    values = [[float(v) for v in row] for row in matrix]
    if len(values) != n or any(len(row) != n for row in values):
        shape = f"{len(values)} rows of lengths {sorted({len(r) for r in values})}"
        raise DataError(f"`matrix` has {shape}; it must be {n} x {n} to match `labels`.")
    if not (math.isfinite(vmin) and math.isfinite(vmax) and vmin < vmax):
        raise DataError(f"`vmin` = {vmin!r}, `vmax` = {vmax!r}; give finite values, vmin < vmax.")
    if n == 0:
        return _empty(width or 320, "Heatmap", title)
    names = [str(s) for s in labels]
    keyed = any(_px(s, 11) > _NAME_PX for s in names)
    marks = [str(i + 1) for i in range(n)] if keyed else names
    label_px = max(_px(s, 11) for s in marks)
    left = label_px + 14
    legend_w = 54 + max(_px(fmt.format(v), 11) for v in (vmin, vmax))
    if width:
        cell = min(max((width - left - legend_w - 16) / n, 6), 60)
    else:
        cell = 40.0 if n <= 10 else max(400 / n, 8)
    lx = left + n * cell + 16
    total_w = lx + legend_w
    if keyed:
        total_w = max(total_w, 480.0)
    else:  # room for the last column's label, turned 45 degrees
        total_w = max(total_w, left + (n - 0.5) * cell + label_px * 0.71 + 12)
    body, top = _heading(title, total_w, bare=8.0)
    top += 18 if keyed else label_px * 0.71 + 12
    texts = [[fmt.format(v) if math.isfinite(v) else _num(v) for v in row] for row in values]
    show = cell >= 16 and all(_px(s, 11) + 4 <= cell for row in texts for s in row)
    body += _axis_labels(marks, names, keyed, left, top, cell)
    body += _cells(values, texts if show else None, names, left, top, cell, vmin, vmax)
    bar_h = max(n * cell, 100.0)
    body += _colour_bar(lx, top, bar_h, fmt, vmin, vmax)
    bottom = top + bar_h
    if any(math.isnan(v) for row in values for v in row):
        body.append(_hatched(lx, bottom + 10, 12, "n/a: no value", "key"))
        body.append(_text(lx + 16, bottom + 20, "n/a", "key-label", {"font-size": 11}))
        bottom += 26
    if keyed:
        listing, key_h = _key(list(zip(marks, names, strict=True)), 8, bottom + 10, total_w)
        body += listing
        bottom += key_h + 10
    label = f"Heatmap{': ' + title if title else ''} ({n} x {n})"
    return _frame(total_w, bottom + 10, label, body)


def _axis_labels(
    marks: list[str], names: list[str], keyed: bool, left: float, top: float, cell: float
) -> list[str]:
    """Each row's mark beside it and each column's above it (turned 45 degrees unless
    keyed), with the full name as a tooltip when keyed."""
    body = []
    for i, mark in enumerate(marks):
        y, x = top + (i + 0.5) * cell, left + (i + 0.5) * cell
        style = {"text-anchor": "end", "font-size": 11}
        tip = names[i] if keyed else ""
        body.append(
            _el("text", {"class": "row-label", "x": left - 6, "y": y + 4, **style}, mark, tip)
        )
        if keyed:
            turn = {"font-size": 11, "text-anchor": "middle"}
        else:
            turn = {"font-size": 11, "transform": f"rotate(-45 {_c(x)} {_c(top - 6)})"}
        body.append(_el("text", {"class": "col-label", "x": x, "y": top - 6, **turn}, mark, tip))
    return body


def _cells(
    values: list[list[float]],
    texts: list[list[str]] | None,
    names: list[str],
    left: float,
    top: float,
    cell: float,
    vmin: float,
    vmax: float,
) -> list[str]:
    """The coloured cells (NaN hatched), with their values written in when ``texts``."""
    body = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            x, y = left + j * cell, top + i * cell
            tip = f"{names[i]} vs {names[j]}: {_num(v)}"
            if math.isnan(v):
                body.append(_hatched(x, y, cell, tip, "cell na"))
                continue
            f = (v - vmin) / (vmax - vmin) if math.isfinite(v) else (1.0 if v > 0 else 0.0)
            tip += "" if vmin <= v <= vmax else " (beyond the colour scale)"
            box = {"class": "cell", "x": x, "y": y, "width": cell, "height": cell}
            body.append(_el("rect", {**box, "fill": _colour(f), "stroke": "#ffffff"}, tip=tip))
            if texts is not None:
                style = {
                    "text-anchor": "middle",
                    "font-size": 11,
                    "fill": "#000" if f > 0.55 else "#fff",
                }
                body.append(_text(x + cell / 2, y + cell / 2 + 4, texts[i][j], "value", style))
    return body


def _colour_bar(
    lx: float, top: float, bar_h: float, fmt: str, vmin: float, vmax: float
) -> list[str]:
    """The colour scale, vmax at the top, labelled at its ends and middle."""
    body = []
    for k in range(24):
        box = {
            "class": "scale",
            "x": lx,
            "y": top + k * bar_h / 24,
            "width": 12,
            "height": bar_h / 24 + 0.5,
        }
        body.append(_el("rect", {**box, "fill": _colour(1 - (k + 0.5) / 24)}))
    for f in (0.0, 0.5, 1.0):
        text = fmt.format(vmin + f * (vmax - vmin))
        body.append(
            _text(lx + 16, top + (1 - f) * bar_h + 4, text, "scale-label", {"font-size": 11})
        )
    return body


_NAME_PX = 160.0
"""The widest label written beside a row (about 24 characters); longer ones are keyed."""
