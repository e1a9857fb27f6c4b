"""A result's summary table, as text, markdown, HTML or LaTeX (for a paper's appendix).

``result.summary()`` gives a :class:`Summary`: a title, a verdict, rows of (label, value)
and notes, all already formatted. Like statsmodels' ``summary()``, one object renders to
each medium; every user string (model, task and file names, notes) is escaped for the
medium it lands in, so a name cannot break a table, inject HTML or stop LaTeX.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalsig.report.markdown import md

__all__ = ["Shown", "Summary", "generic", "latex_text"]

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def latex_text(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (``\\ & % $ # _ { } ~ ^ < >``)."""
    return "".join(_LATEX.get(char, char) for char in text)


@dataclass(frozen=True, slots=True)
class Summary:
    """A result as a two-column table: what to paste into a paper, a PR or a notebook."""

    title: str
    verdict: str
    rows: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()

    def as_text(self) -> str:
        width = max((len(label) for label, _ in self.rows), default=0)
        lines = [self.title, self.verdict, ""] if self.title else [self.verdict, ""]
        lines += [f"{label:<{width}}  {value}" for label, value in self.rows]
        return "\n".join(lines + [f"note: {note}" for note in self.notes])

    def as_markdown(self) -> str:
        out = [f"### {md(self.title)}", ""] if self.title else []
        out += [f"**{md(self.verdict)}**", "", "| | |", "|---|---|"]
        out += [f"| {md(label)} | {md(value)} |" for label, value in self.rows]
        return "\n".join(out + ([""] if self.notes else []) + [f"- {md(n)}" for n in self.notes])

    def as_html(self) -> str:
        e = html.escape
        rows = "".join(
            f'<tr><th scope="row">{e(label)}</th><td>{e(value)}</td></tr>'
            for label, value in self.rows
        )
        notes = "".join(f"<li>{e(note)}</li>" for note in self.notes)
        return (
            f'<div class="evalsig-summary"><table><caption>{e(self.title)}</caption>'
            f"<tbody>{rows}</tbody></table><p><strong>{e(self.verdict)}</strong></p>"
            + (f"<ul>{notes}</ul>" if notes else "")
            + "</div>"
        )

    def as_latex(self, *, label: str | None = None) -> str:
        """A ``table`` float with a ``tabular`` in booktabs style (``\\usepackage{booktabs}``);
        the verdict and notes go under it, ``label`` becomes ``\\label{...}``."""
        body = "\n".join(
            f"{latex_text(name)} & {latex_text(value)} \\\\" for name, value in self.rows
        )
        notes = "".join(f"\n\\par {latex_text(note)}" for note in self.notes)
        under = self.verdict if self.title else ""  # without a title the verdict is the caption
        return "\n".join(
            [
                "\\begin{table}[htbp]",
                "\\centering",
                f"\\caption{{{latex_text(self.title or self.verdict)}}}",
                *([f"\\label{{{latex_text(label)}}}"] if label else []),
                "\\begin{tabular}{@{}lp{0.62\\linewidth}@{}}",
                "\\toprule",
                body,
                "\\bottomrule",
                "\\end{tabular}",
                f"\\par\\smallskip\\footnotesize {latex_text(under)}{notes}",
                "\\end{table}",
            ]
        )

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def _repr_markdown_(self) -> str:
        return self.as_markdown()


class Shown:
    """For a result whose views are its :class:`Summary`: ``str()``, markdown and HTML
    (a subclass defines ``summary()``)."""

    __slots__ = ()

    def summary(self) -> Summary:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.summary().as_text()

    def _repr_markdown_(self) -> str:
        return self.summary().as_markdown()

    def _repr_html_(self) -> str:
        return self.summary().as_html()


_LEFT_OUT = ("kind", "schema_version", "notes", "nulls", "provenance", "seed")


def generic(document: Mapping[str, Any]) -> Summary:
    """The summary of a result whose kind has no table of its own: its verdict (the first
    line of its text), then each top-level number, flag or word of its JSON form (an
    interval as "low to high"), and its notes.

    >>> table = generic({"kind": "x", "estimate": 0.123456, "ci": {"low": 0.1, "high": None,
    ...     "confidence_level": 0.95}, "rows": [], "notes": ["n"]})
    >>> table.title, table.rows, table.notes
    ('x result', (('estimate', '0.1235'), ('ci', '0.1 to +inf (95%)')), ('n',))
    """
    rows = []
    for name, value in document.items():
        shown = _scalar(value)
        if name not in _LEFT_OUT and shown is not None:
            rows.append((name, shown))
    notes = document.get("notes") or ()
    return Summary(
        title=f"{document.get('kind', 'unknown')} result",
        verdict=_first_line(document),
        rows=tuple(rows),
        notes=tuple(str(note) for note in notes),
    )


def _scalar(value: Any) -> str | None:
    """A field's value on one line, or None for a field that is a table or a list."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None if value is None else str(value)
    if isinstance(value, int | float):
        return f"{value:.4g}"
    if isinstance(value, Mapping) and {"low", "high", "confidence_level"} <= set(value):
        low, high = _scalar(value["low"]) or "-inf", _scalar(value["high"]) or "+inf"
        return f"{low} to {high} ({value['confidence_level']:.0%})"
    return None


def _first_line(document: Mapping[str, Any]) -> str:
    from evalsig.result import render

    try:
        text = str(render(document, "text"))
    except ValueError:  # a kind without a text view
        return ""
    return text.strip().splitlines()[0] if text.strip() else ""
