"""A griffe extension: render the reStructuredText parts of evalsig's numpydoc docstrings.

The docstrings are written for numpydoc (Sphinx roles, ``.. math::``); mkdocstrings reads
Markdown. Before rendering, every docstring of the package is rewritten:

* ``:func:`name```, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ``:exc:``
  become optional cross-references (a link where the target is documented on the site,
  plain code elsewhere); ``~`` shortens the title to the last component, as in Sphinx;
* ``:math:`x``` becomes inline math, ``.. math::`` blocks become display math (arithmatex);
* a paragraph ending in ``::`` ends in ``:`` (the indented block after it is code);
* a doctest block (``>>>`` lines and their output, up to a blank line) outside the
  Examples section becomes a ``pycon`` code block, as reStructuredText reads it anywhere;
  left alone, Markdown would show its ``>>>`` as three nested quotes. The Examples
  section's doctests are griffe's own to render.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|exc|obj):`(~?)([^`]+)`")
MATH_ROLE = re.compile(r":math:`([^`]+)`")
MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")
LITERAL_INTRO = re.compile(r"(?<=\S)::$")
DOCTEST = re.compile(r"^(?P<indent>[ \t]*)>>>(?: |$)")
SECTION_RULE = re.compile(r"^[ \t]*-{3,}[ \t]*$")
FENCE = re.compile(r"^[ \t]*(```|~~~)")
EXAMPLES = ("examples", "example")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _math_blocks(text: str) -> str:
    """Replace each ``.. math::`` directive (and its indented body) by a ``$$`` block."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = MATH_DIRECTIVE.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        indent = match["indent"]
        body = [" " * (len(indent) + 4) + match["first"]] if match["first"] else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > len(indent)):
            body.append(lines[i])
            i += 1
        formula = textwrap.dedent("\n".join(body)).strip("\n")
        out.extend(["", f"{indent}$$", *(indent + row for row in formula.splitlines())])
        out.extend([f"{indent}$$", ""])
    return "\n".join(out)


def _doctest_blocks(text: str) -> str:
    """Fence each doctest block outside the Examples section as ``pycon`` code."""
    lines = text.splitlines()
    out: list[str] = []
    in_examples = in_fence = False
    literal: int | None = None
    """The indentation of the paragraph ending in ``::`` whose literal block (code
    already) is being read, else None."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_fence = not in_fence
        if literal is not None and line.strip() and _indent(line) <= literal:
            literal = None
        if i + 1 < len(lines) and line.strip() and SECTION_RULE.match(lines[i + 1]):
            in_examples = line.strip().lower() in EXAMPLES
        start = DOCTEST.match(line)
        if start is None or in_examples or in_fence or literal is not None:
            if literal is None and LITERAL_INTRO.search(line.rstrip()):
                literal = _indent(line)
            out.append(line)
            i += 1
            continue
        indent = start["indent"]
        block: list[str] = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        if out and out[-1].strip():
            out.append("")
        out.extend([f"{indent}```pycon", *block, f"{indent}```"])
    return "\n".join(out)


def _reference(obj: griffe.Object | griffe.Alias, short: str, target: str) -> str:
    """An optional cross-reference to ``target`` resolved from ``obj``'s scope."""
    title = target.rsplit(".", 1)[-1] if short else target
    title = title.removesuffix("()")
    name = target.removesuffix("()")
    try:
        identifier = name if name.startswith("evalsig.") else obj.resolve(name)
    except (griffe.NameResolutionError, ValueError, KeyError, AttributeError):
        identifier = name
    if "." not in identifier or not identifier.startswith("evalsig"):
        return f"`{title}`"
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


def rewrite(obj: griffe.Object | griffe.Alias, text: str) -> str:
    """The docstring ``text`` of ``obj`` with its reStructuredText turned into Markdown."""
    text = _doctest_blocks(text)
    text = _math_blocks(text)
    text = MATH_ROLE.sub(lambda m: "$" + m[1] + "$", text)
    text = ROLE.sub(lambda m: _reference(obj, m[1], m[2]), text)
    return "\n".join(LITERAL_INTRO.sub(":", line) for line in text.splitlines())


class RestructuredTextRoles(griffe.Extension):
    """Rewrite every docstring of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self._visit(pkg, set())

    def _visit(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj, obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias:
                self._visit(member, seen)  # type: ignore[arg-type]
