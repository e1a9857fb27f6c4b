"""Markdown for result tables: every user string escaped, so that a model name cannot
break a table or inject HTML."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

__all__ = ["markdown_table", "markdown_text", "md"]


def md(text: str) -> str:
    """Escape a string for markdown (tables included): it renders as the literal text, on
    one line (LF, CR and CRLF, each a line ending in markdown, become a space)."""
    escaped = html.escape(text, quote=False)
    for char in "\\`*_[]|<>#~":
        escaped = escaped.replace(char, "\\" + char)
    return escaped.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def markdown_text(text: str) -> str:
    r"""A user string as literal markdown text on one line (the rule of every renderer).

    HTML special characters become entities (``&lt;script&gt;`` shows as text), markdown
    punctuation gets a backslash (a ``|`` cannot end a table cell, a backtick cannot open
    code), and every line ending (LF, CR, CRLF) becomes a space, so one row stays one row.

    >>> markdown_text("a|b <script>\r\n`x`")
    'a\\|b &lt;script&gt; \\`x\\`'
    """
    return md(text)


def markdown_table(
    title: str | None,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    lines: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
    r"""A heading, a GitHub-flavoured table, then ``lines`` as paragraphs and ``notes`` as a
    list; every string is escaped with :func:`markdown_text`.

    >>> print(markdown_table("Scores", ["model", "score"], [["a|b", "0.5"]], notes=["n"]))
    ### Scores
    <BLANKLINE>
    | model | score |
    |---|---|
    | a\|b | 0.5 |
    <BLANKLINE>
    - note: n
    """
    out = [f"### {markdown_text(title)}", ""] if title else []
    out.append(_markdown_row(header))
    out.append("|" + "---|" * len(header))
    out += [_markdown_row(row) for row in rows]
    for line in lines:  # each its own paragraph
        out += ["", markdown_text(line)]
    if notes:
        out += ["", *(f"- note: {markdown_text(note)}" for note in notes)]
    return "\n".join(out)


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(markdown_text(c) if c else " " for c in cells) + " |"
