"""A mkdocs hook: the CLI reference page, generated from the Typer application at build time.

``docs/cli.md`` holds the marker ``<!-- evalsig-cli-reference -->``; the hook replaces it by
a summary table of every command and, per command, its ``evalsig COMMAND --help`` exactly
as the terminal prints it. The marker ``<!-- evalsig-exit-codes -->`` becomes the table of
exit codes, from ``evalsig.cli.application.EXIT_CODES``. The page therefore follows the code: a
command or option added, renamed or re-documented shows up at the next build, and none can
be forgotten.
"""

from __future__ import annotations

import re
from typing import Any

MARKER = "<!-- evalsig-cli-reference -->"
EXIT_MARKER = "<!-- evalsig-exit-codes -->"
WIDTH = 80
"""Terminal width the help is wrapped to (the page's code blocks show about 80 columns)."""

ORDER = (
    "compare",
    "inspect",
    "plugins",
    "demo",
    "register",
    "gate",
    "power",
    "resolution",
    "monitor",
    "leaderboard",
    "ingest",
    "store-info",
    "meta",
    "audit",
    "audit-claim",
    "simulate",
    "report",
)
"""The reading order of the page; a command not named here is appended, never left out."""


def _contexts() -> tuple[Any, Any]:
    """The root click command of the Typer app and its context."""
    import typer
    import typer.main

    from evalsig.cli import app

    root = typer.main.get_command(app)
    context = typer.Context(
        root, info_name="evalsig", max_content_width=WIDTH, terminal_width=WIDTH
    )
    return root, context


def command_names() -> list[str]:
    """Every command of ``evalsig``, in the page's order."""
    root, context = _contexts()
    names = root.list_commands(context)
    return [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]


def help_text(name: str | None) -> str:
    """``evalsig --help`` (``name`` None) or ``evalsig NAME --help``, as the terminal shows it."""
    import typer

    root, context = _contexts()
    if name is None:
        return str(root.get_help(context))
    command = root.get_command(context, name)
    sub = typer.Context(
        command, info_name=name, parent=context, max_content_width=WIDTH, terminal_width=WIDTH
    )
    return str(command.get_help(sub))


def _summary(name: str) -> str:
    root, context = _contexts()
    command = root.get_command(context, name)
    return _escape(str(command.get_short_help_str(limit=200)))


def reference_markdown() -> str:
    """The generated part of the CLI page: a table of commands, then each one's help."""
    names = command_names()
    lines = ["| command | what it does |", "|---|---|"]
    lines += [f"| [`evalsig {n}`](#evalsig-{n}) | {_summary(n)} |" for n in names]
    lines += ["", "## evalsig", "", "```text", help_text(None).rstrip(), "```", ""]
    for name in names:
        lines += [f"## evalsig {name}", "", "```text", help_text(name).rstrip(), "```", ""]
    return "\n".join(lines)


def exit_codes_markdown() -> str:
    """The exit codes of every command, as a table."""
    from evalsig.cli.application import EXIT_CODES

    rows = [f"| {code} | {_escape(what)} |" for code, what in sorted(EXIT_CODES.items())]
    return "\n".join(["| exit code | meaning |", "|---|---|", *rows])


def _escape(text: str) -> str:
    return re.sub(r"([|*_`\\])", r"\\\1", text)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Fill the CLI page's markers with the generated reference and exit codes."""
    if EXIT_MARKER in markdown:
        markdown = markdown.replace(EXIT_MARKER, exit_codes_markdown())
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, reference_markdown())
    return markdown
