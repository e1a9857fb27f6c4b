"""Writing a result in the chosen format: terminal text, strict JSON, markdown or HTML."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from evalsig.cli.application import OutputFormat, fail, failure_line, note

__all__ = ["deliver", "emit", "emit_from_file", "output_problem"]


def emit(
    result: Mapping[str, Any],
    output_format: OutputFormat,
    output: Path | None,
    *,
    style: str | None = None,
    title: str = "evalsig report",
) -> None:
    """Print or write ``result`` (a result's JSON form), in text and markdown by the views
    registered for its kind (:func:`evalsig.result.render`); ``style`` colours text's first
    line."""
    if output_format is OutputFormat.json:
        rendered = json.dumps(result, indent=2, allow_nan=False)
    elif output_format is OutputFormat.html:
        from evalsig.report.html import page

        rendered = page([result], title=title)
    else:
        from evalsig.result import render

        rendered = render(result, "markdown" if output_format is OutputFormat.markdown else "text")
    if output is None and output_format is OutputFormat.text and style:
        printer = result_console()
        first, _, rest = rendered.partition("\n")
        printer.print(first, style=style, markup=False)
        if rest:
            printer.print(rest, markup=False)
    else:
        deliver(rendered, output)


def emit_from_file(
    result: Any,
    path: str,
    output_format: OutputFormat,
    output: Path | None,
    *,
    title: str,
    seed: int | None = None,
) -> None:
    """Print or write ``result`` with the one file it was computed from, ``path``, as its
    provenance (and the ``seed`` drawn for it); call it inside
    :func:`evalsig.cli.stdin.stdin_paths`, so that standard input is named as given."""
    from dataclasses import replace

    from evalsig.cli.stdin import as_given
    from evalsig.data.provenance import file_record, provenance

    result = replace(result, provenance=provenance(files={"data": file_record(path)}, seed=seed))
    emit(as_given(result.to_dict()), output_format, output, title=title)


def deliver(rendered: str, output: Path | None) -> None:
    """Print ``rendered``, or write it to ``output`` (one line ending the file) and say so;
    a failure to write is one line and the data-error exit code."""
    if output is None:
        typer.echo(rendered)
        return
    try:
        output.write_text(rendered.rstrip("\n") + "\n", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write the output: {failure_line(exc)}")
    note(f"wrote {output}")


WIDE = 1 << 16
"""The width of results printed to a pipe or file: nothing is cut, whatever the terminal."""


def result_console() -> Console:
    """A console for results: a terminal's own width; in a pipe or a CI log, wide enough
    that no table cell is cut (a verdict shown as ``INCONCLUS…`` defeats the purpose)."""
    if sys.stdout.isatty():
        return Console(highlight=False, soft_wrap=True)
    return Console(highlight=False, soft_wrap=True, width=WIDE)


def output_problem(path: Path) -> str | None:
    """Why ``--output`` cannot be written (checked before any work is done), or None.

    A directory, a missing or non-folder parent, or no write permission; a device or pipe
    (``-o /dev/stdout``) is allowed.
    """
    if path.is_dir():
        return (
            f"{path}: is a directory; give --output / -o a file name, e.g. {path / 'report.html'}."
        )
    parent = path.parent
    if not parent.exists():
        return (
            f"{path}: the folder {parent} does not exist; create it first (mkdir -p "
            f"{parent}) or write elsewhere."
        )
    if not parent.is_dir():
        return f"{path}: {parent} is a file, not a folder; choose another --output / -o."
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        return (
            f"{path}: cannot be written (permission denied on {target}); choose another "
            "--output / -o or fix the permissions."
        )
    return None
