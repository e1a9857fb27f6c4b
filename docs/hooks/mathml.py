"""A mkdocs hook: math becomes MathML when the site is built.

``pymdownx.arithmatex`` (generic mode) marks every formula of the pages and docstrings as
``<span class="arithmatex">\\(...\\)</span>`` or ``<div class="arithmatex">\\[...\\]</div>``;
this hook replaces each by the MathML that ``latex2mathml`` makes of it, which browsers
draw themselves. The pages then need no script and no network to show their math: the
site reads the same from a server, from ``file://`` and offline. A formula that cannot be
converted whole (an unknown command would be left as ``\\name`` in the output) is a
warning, which fails the strict build, naming the page and the formula.

``\\overline`` becomes a row with a top border (class ``overline``, in
stylesheets/extra.css): browsers draw latex2mathml's over-bar accent only as wide as one
character, not across its base.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

from latex2mathml.converter import convert
from mkdocs.plugins import get_plugin_logger

log = get_plugin_logger("mathml")

MATH = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<tex>.*?)</(?P=tag)>', flags=re.DOTALL)
DELIMITERS = {"span": ("\\(", "\\)"), "div": ("\\[", "\\]")}
LEFT_OVER = re.compile(r">[^<]*\\[A-Za-z]")
"""A TeX command in the MathML's text: latex2mathml did not know it."""
NAMESPACE = "http://www.w3.org/1998/Math/MathML"
OVERLINE = "\u2015"
"""The accent latex2mathml puts over the base of ``\\overline``."""

ElementTree.register_namespace("", NAMESPACE)


def _overlines(mathml: str) -> str:
    """Each ``\\overline`` drawn as a top border of its base (see the module docstring)."""
    if "&#x02015;" not in mathml:
        return mathml
    root = ElementTree.fromstring(mathml)
    mover, mo, mrow = (f"{{{NAMESPACE}}}{tag}" for tag in ("mover", "mo", "mrow"))
    found = [
        (parent, index, child)
        for parent in root.iter()
        for index, child in enumerate(parent)
        if child.tag == mover and len(child) == 2 and child[1].tag == mo
        if child[1].text == OVERLINE
    ]
    for parent, index, child in found:
        row = ElementTree.Element(mrow, {"class": "overline"})
        row.append(child[0])
        parent[index] = row
    return ElementTree.tostring(root, encoding="unicode")


def mathml(tex: str, *, block: bool) -> str:
    """The MathML of one formula (without its delimiters); ValueError if not converted whole."""
    try:
        out = convert(tex, display="block" if block else "inline")
    except Exception as exc:  # latex2mathml raises its own types and IndexError alike
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    if LEFT_OVER.search(out):
        raise ValueError("it has a command that latex2mathml does not know")
    return _overlines(out)


def on_page_content(content: str, page: Any, **kwargs: Any) -> str:
    """Replace the page's formulas by MathML."""

    def render(match: re.Match[str]) -> str:
        opening, closing = DELIMITERS[match["tag"]]
        tex = html.unescape(match["tex"]).strip()
        if tex.startswith(opening) and tex.endswith(closing):
            tex = tex[len(opening) : -len(closing)]
        try:
            return mathml(tex, block=match["tag"] == "div")
        except ValueError as exc:
            log.warning(f"{page.file.src_path}: the formula {tex.strip()!r} was not drawn: {exc}")
            return match[0]

    return MATH.sub(render, content)
