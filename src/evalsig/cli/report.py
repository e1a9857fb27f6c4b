"""``evalsig report RESULT.json... -o report.html``: render saved results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from evalsig._json import SCHEMA_VERSION
from evalsig.cli.application import OutputFormat, command, data_errors
from evalsig.cli.options import Format, Output
from evalsig.cli.output import deliver
from evalsig.cli.stdin import stdin_paths
from evalsig.errors import DataError

__all__ = ["read_result", "report_command"]


def read_result(path: Path) -> Mapping[str, Any]:
    """A saved result: strict JSON with a known ``kind`` and ``schema_version``, complete
    enough to render (a file cut short or edited by hand is an error naming the field)."""
    from evalsig._documents import clip, load_json, read_text, short
    from evalsig.report.html import page
    from evalsig.report.views import KINDS
    from evalsig.result import render

    data = load_json(read_text(path, what="a result"), str(path))
    if not isinstance(data, dict) or "kind" not in data:
        raise DataError(
            f"{path}: not an evalsig result (no 'kind' field); save one with --format json."
        )
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise DataError(
            f"{path}: schema_version {short(version)}, but this evalsig reads version "
            f"{SCHEMA_VERSION}; re-create the result with this version."
        )
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise DataError(
            f"{path}: unknown result kind {short(kind)}; evalsig writes {', '.join(KINDS)}."
        )
    try:  # render once every way it can be asked for, so a damaged field fails here
        render(data, "text")
        render(data, "markdown")
        page([data], title="check")
    except KeyError as exc:
        raise DataError(
            f"{path}: an incomplete or edited {kind} result (a field or value "
            f"{short(exc.args[0])} is missing or not one evalsig writes); re-create it with "
            "--format json rather than editing it."
        ) from None
    except (TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as exc:
        raise DataError(
            f"{path}: a {kind} result with a field of the wrong type or value "
            f"({clip(str(exc))}); re-create it with --format json."
        ) from None
    return data


@command("report", example="evalsig report result.json --format html -o report.html")
def report_command(
    results: Annotated[
        list[Path], typer.Argument(help="Saved results (--format json); -: standard input.")
    ],
    output: Output = None,
    output_format: Format = OutputFormat.html,
    title: Annotated[str, typer.Option(help="Title of the HTML page.")] = "evalsig report",
) -> None:
    """Render saved JSON results as one HTML page (or markdown, text, merged JSON)."""
    from evalsig.report.html import page

    with data_errors(), stdin_paths(results) as paths:
        data = [read_result(Path(path)) for path in paths]
        if output_format is OutputFormat.html:
            rendered = page(data, title=title)
        elif output_format is OutputFormat.json:
            rendered = json.dumps(data if len(data) > 1 else data[0], indent=2, allow_nan=False)
        else:
            from evalsig.result import View, render

            view: View = "markdown" if output_format is OutputFormat.markdown else "text"
            rendered = "\n\n".join(str(render(item, view)) for item in data)
    deliver(rendered, output)
