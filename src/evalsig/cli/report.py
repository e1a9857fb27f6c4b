"""``evalsig report RESULT.json... -o report.html``: render saved results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import typer

from evalsig._json import SCHEMA_VERSION
from evalsig.cli.app import OutputFormat, command, data_errors, note
from evalsig.cli.options import Format, Output
from evalsig.cli.output import Renderer
from evalsig.cli.stdin import stdin_paths
from evalsig.errors import DataError

__all__ = ["read_result", "report_command"]


@cache
def _renderers() -> tuple[dict[str, Renderer], dict[str, Renderer]]:
    """Each result kind's text and markdown renderers, imported on first use (so that
    ``evalsig --help`` need not load the report views)."""
    from evalsig.report import (
        agreement,
        arena,
        audit,
        comparison,
        gate,
        judge,
        leaderboard,
        meta,
        noise,
        passk,
        power,
        score,
        sequential,
    )

    judge_checks = (
        "judge-agreement",
        "rater-agreement",
        "judge-position-bias",
        "judge-length-bias",
        "judge-plan",
    )

    text: dict[str, Renderer] = {
        "comparison": comparison.as_text,
        "gate": gate.as_text,
        "sample-size": power.sample_size_text,
        "power": power.power_text,
        "resolution": power.resolution_text,
        "benchmark-resolution": power.benchmark_text,
        "leaderboard": leaderboard.as_text,
        "leaderboard-tasks": leaderboard.tasks_text,
        "sequential": sequential.as_text,
        "meta-analysis": meta.as_text,
        "random-effects": meta.random_effects_text,
        "audit": audit.as_text,
        "claim-audit": audit.claim_text,
        "simulation": audit.simulation_text,
        "pass-at-k": passk.estimates_text,
        "judge": judge.as_text,
        "score": score.as_text,
        "pass-at-k-comparison": passk.comparison_text,
        "pass-at-k-power": passk.plan_text,
        "arena": arena.as_text,
        "benchmark-noise": noise.noise_text,
        **dict.fromkeys(judge_checks, agreement.as_text),
    }
    markdown: dict[str, Renderer] = {
        "comparison": comparison.as_markdown,
        "gate": gate.as_markdown,
        "sample-size": power.sample_size_markdown,
        "power": power.power_markdown,
        "resolution": power.resolution_markdown,
        "benchmark-resolution": power.benchmark_markdown,
        "leaderboard": leaderboard.as_markdown,
        "leaderboard-tasks": leaderboard.tasks_markdown,
        "sequential": sequential.as_markdown,
        "meta-analysis": meta.as_markdown,
        "random-effects": meta.random_effects_markdown,
        "audit": audit.as_markdown,
        "claim-audit": audit.claim_markdown,
        "simulation": audit.simulation_markdown,
        "pass-at-k": passk.estimates_markdown,
        "judge": judge.as_markdown,
        "score": score.as_markdown,
        "pass-at-k-comparison": passk.comparison_markdown,
        "pass-at-k-power": passk.plan_markdown,
        "arena": arena.as_markdown,
        "benchmark-noise": noise.noise_markdown,
        **dict.fromkeys(judge_checks, agreement.as_markdown),
    }
    return text, markdown


def read_result(path: Path) -> Mapping[str, Any]:
    """A saved result: strict JSON with a known ``kind`` and ``schema_version``, complete
    enough to render (a file cut short or edited by hand is an error naming the field)."""
    from evalsig._documents import clip, load_json, read_text, short
    from evalsig.report.html import page

    text, markdown = _renderers()
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
    if not isinstance(kind, str) or kind not in text:
        raise DataError(
            f"{path}: unknown result kind {short(kind)}; evalsig writes {', '.join(text)}."
        )
    try:  # render once every way it can be asked for, so a damaged field fails here
        text[kind](data)
        markdown[kind](data)
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
            text, markdown = _renderers()
            table = markdown if output_format is OutputFormat.markdown else text
            parts = []
            for item in data:
                render = table.get(str(item["kind"]))
                parts.append(
                    render(item) if render else json.dumps(item, indent=2, allow_nan=False)
                )
            rendered = "\n\n".join(parts)
    if output is not None:
        output.write_text(rendered.rstrip("\n") + "\n", encoding="utf-8")
        note(f"wrote {output}")
    else:
        typer.echo(rendered)
