"""Forest and funnel plots of meta-analyses with matplotlib (the optional ``plots`` extra).

matplotlib is imported when a plot is drawn, never at package import; figures are built
with ``matplotlib.figure.Figure`` (no pyplot, no global state, no display needed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalsig.errors import DataError, EvalsigError
from evalsig.meta.bias import EggerResult
from evalsig.meta.model import MetaResult, critical

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from evalsig.meta.synthesis import SynthesisResult

__all__ = ["forest_plot", "funnel_plot", "write_plots"]

_FORMATS = ("png", "svg", "pdf")


def _figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise EvalsigError(
            "plots need matplotlib, which is not installed: pip install 'evalsig-stats[plots]'"
        ) from None
    return Figure(figsize=(width, height), layout="constrained")


def _plain(text: str) -> str:
    """Text that matplotlib draws literally (a ``$`` would start mathtext)."""
    return text.replace("$", r"\$")


def forest_plot(result: MetaResult, /, *, title: str | None = None) -> Figure:
    """A forest plot: each report with its 95% sampling interval, the pooled diamond and the
    prediction interval.

    Parameters
    ----------
    result : MetaResult
        A fitted model (its labels name the rows).
    title : str, optional
        Heading of the figure.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    EvalsigError
        If matplotlib is not installed (``pip install 'evalsig-stats[plots]'``).

    Examples
    --------
    >>> from evalsig.meta import random_effects
    >>> fig = forest_plot(random_effects([70.1, 72.4, 69.8], [0.9, 1.1, 0.8]))
    >>> len(fig.axes)
    1
    """
    k = result.k
    fig = _figure(7.0, 1.6 + 0.32 * (k + 2))
    ax = fig.add_subplot()
    y, se = result.estimates, np.sqrt(result.variances)
    z = critical(0.95, None)
    rows = np.arange(k, 0, -1) + 1.0
    sizes = 20 + 180 * np.nan_to_num(result.weights) / 100.0
    ax.errorbar(y, rows, xerr=z * se, fmt="none", ecolor="#444444", elinewidth=1.2, capsize=3)
    ax.scatter(y, rows, s=sizes, marker="s", color="#0072b2", zorder=3)
    labels = [_plain(label) for label in result.labels]
    if np.isfinite(result.mu):
        low, high = result.ci.low, result.ci.high
        ax.fill(
            [low, result.mu, high, result.mu], [1.0, 1.25, 1.0, 0.75], color="#d55e00", zorder=3
        )
        pi = result.prediction_interval
        if np.isfinite(pi.low) and np.isfinite(pi.high):
            ax.hlines(0.0, pi.low, pi.high, color="#d55e00", linestyle="--", linewidth=1.5)
        ax.axvline(result.mu, color="#999999", linewidth=0.8, linestyle=":")
    level = f"{100 * result.confidence_level:g}%"
    ticks = [*rows, 1.0, 0.0]
    names = [*labels, f"pooled ({result.method.upper()}, {level} CI)", "prediction interval"]
    ax.set_yticks(ticks, names)
    ax.set_ylim(-0.8, k + 1.8)
    ax.set_xlabel("score")
    stats = f"k = {k}, tau^2 = {result.tau2:.4g}, I^2 = {result.i2:.1f}%"
    ax.set_title(f"{_plain(title)}\n{stats}" if title else stats, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig


def funnel_plot(
    result: MetaResult,
    /,
    *,
    egger: EggerResult | None = None,
    title: str | None = None,
    no_egger: str | None = None,
) -> Figure:
    """A funnel plot: estimates against standard errors (most precise at the top) with the
    pseudo-95% region around the pooled estimate and, if given, Egger's fitted line.

    Without a line (no ``egger``, or one with ``groups`` or that did not converge) the plot
    says so under its title, and why: ``no_egger``, or what ``egger`` lacks.

    Parameters
    ----------
    result : MetaResult
    egger : EggerResult, optional
        Draws ``estimate = limit + bias * se`` (needs a test without ``groups``).
    title : str, optional
    no_egger : str, optional
        Why no Egger test was run (e.g. the note of the synthesis that skipped it).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    EvalsigError
        If matplotlib is not installed.
    """
    fig = _figure(6.0, 4.5)
    ax = fig.add_subplot()
    se = np.sqrt(result.variances)
    top = float(se.max()) * 1.1
    grid = np.linspace(0.0, top, 50)
    z = critical(0.95, None)
    if np.isfinite(result.mu):
        ax.plot(result.mu - z * grid, grid, color="#999999", linestyle="--", linewidth=1)
        ax.plot(result.mu + z * grid, grid, color="#999999", linestyle="--", linewidth=1)
        ax.axvline(result.mu, color="#999999", linewidth=1)
    if egger is not None and np.isfinite(egger.limit_estimate):
        label = f"Egger: bias {egger.bias:+.3g}, p = {egger.pvalue:.3g}"
        ax.plot(egger.limit_estimate + egger.bias * grid, grid, color="#d55e00", label=label)
        ax.legend(loc="lower right", fontsize=8)
    ax.scatter(result.estimates, se, color="#0072b2", zorder=3)
    centre = float(result.mu) if np.isfinite(result.mu) else float(np.median(result.estimates))
    span = [centre - z * top, centre + z * top, *result.estimates]
    pad = 0.05 * (max(span) - min(span))
    ax.set_xlim(min(span) - pad, max(span) + pad)
    ax.set_ylim(top, 0.0)
    ax.set_xlabel("score")
    ax.set_ylabel("standard error")
    why = None
    if egger is None:
        why = no_egger or "no Egger test was given"
    elif not np.isfinite(egger.limit_estimate):
        why = "Egger's test has no common line (groups, or its fit did not converge)"
    heading = _plain(title) if title else ""
    if why is not None:
        heading = f"{heading}\nno Egger line: {_plain(why)}".strip()
    if heading:
        ax.set_title(heading, fontsize=10, wrap=True)
    ax.grid(alpha=0.3)
    return fig


def _slug(text: str) -> str:
    """A file-name-safe version of a user string (no path separators, no dots at the start)."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")
    return slug[:60] or "x"


def write_plots(
    result: SynthesisResult,
    directory: str | Path,
    /,
    *,
    formats: Sequence[str] = ("png", "svg"),
) -> tuple[Path, ...]:
    """Write a forest plot of every cell with k >= 2 and a funnel plot of every cell with
    k >= 3, in each format, to ``directory`` (created if needed).

    File names are ``{n:03d}-{model}-{benchmark}-forest.{ext}`` with the names reduced to
    letters, digits, ``_`` and ``-`` (``n`` is the cell's position, so names never collide).

    Returns
    -------
    tuple of Path
        The files written.

    Raises
    ------
    DataError
        For an unknown format or a ``directory`` that is a file.
    EvalsigError
        If matplotlib is not installed.
    """
    chosen = tuple(formats)
    bad = [f for f in chosen if f not in _FORMATS]
    if bad or not chosen:
        raise DataError(f"`formats` has {bad or chosen!r}; use some of {', '.join(_FORMATS)}.")
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise DataError(f"{folder}: exists and is not a directory; choose a folder for the plots.")
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for n, cell in enumerate(result.cells, start=1):
        if cell.meta.k < 2:
            continue
        stem = f"{n:03d}-{_slug(cell.model)}-{_slug(cell.benchmark)}"
        name = f"{cell.model} on {cell.benchmark}"
        figures: list[tuple[str, Any]] = [("forest", forest_plot(cell.meta, title=name))]
        if cell.meta.k >= 3:
            skipped = next((n for n in cell.notes if n.startswith("No Egger test")), None)
            funnel = funnel_plot(cell.meta, egger=cell.egger, title=name, no_egger=skipped)
            figures.append(("funnel", funnel))
        for kind, fig in figures:
            for ext in chosen:
                path = folder / f"{stem}-{kind}.{ext}"
                fig.savefig(path, format=ext, dpi=120, metadata=_metadata(ext))
                written.append(path)
    return tuple(written)


def _metadata(ext: str) -> dict[str, Any] | None:
    """Reproducible files: no creation date in SVG/PDF metadata."""
    if ext == "svg":
        return {"Date": None}
    if ext == "pdf":
        return {"CreationDate": None}
    return None
