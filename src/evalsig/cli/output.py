"""Writing a result in the chosen format: terminal text, strict JSON, markdown or HTML."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from evalsig.cli.app import OutputFormat
from evalsig.report.html import page

__all__ = ["emit"]

Renderer = Callable[[Mapping[str, Any]], str]


def emit(
    result: Mapping[str, Any],
    output_format: OutputFormat,
    output: Path | None,
    *,
    text: Renderer,
    markdown: Renderer,
    style: str | None = None,
    title: str = "evalsig report",
) -> None:
    """Print or write ``result`` (a result's JSON form); ``style`` colours text's first line."""
    if output_format is OutputFormat.json:
        rendered = json.dumps(result, indent=2, allow_nan=False)
    elif output_format is OutputFormat.markdown:
        rendered = markdown(result)
    elif output_format is OutputFormat.html:
        rendered = page([result], title=title)
    else:
        rendered = text(result)
    if output is not None:
        output.write_text(rendered.rstrip("\n") + "\n", encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)
        return
    if output_format is OutputFormat.text and style:
        console = Console(highlight=False, soft_wrap=True)
        first, _, rest = rendered.partition("\n")
        console.print(first, style=style, markup=False)
        if rest:
            console.print(rest, markup=False)
    else:
        typer.echo(rendered)
