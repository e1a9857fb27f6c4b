"""Reports: JSON schemas, escaping in markdown and HTML, degenerate data, the report command."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from typer.testing import CliRunner

from evalsig import compare
from evalsig.cli import app
from evalsig.progress import reporting
from evalsig.release import gate
from evalsig.report.comparison import as_markdown, md
from evalsig.report.html import fragment, page

HOSTILE = "<script>alert(1)</script> | `x` *y* [z](http://e.invalid)"
runner = CliRunner()


def _schema(name: str) -> dict[str, Any]:
    text = (resources.files("evalsig.report") / "schemas" / f"{name}.schema.json").read_text()
    return json.loads(text)  # type: ignore[no-any-return]


def _validator(name: str) -> Draft202012Validator:
    registry = Registry().with_resources(
        [(f"{n}.schema.json", Resource.from_contents(_schema(n))) for n in ("comparison", "gate")]
    )
    return Draft202012Validator(_schema(name), registry=registry)


def _comparisons() -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 500)
    y = np.where(rng.random(500) < 0.1, 1 - x, x)
    c = rng.random(300)
    return [
        compare(x, y).to_dict(),
        compare(x, y, one_sided=True, method="bootstrap", rng=1, n_resamples=500).to_dict(),
        compare(c, c + rng.normal(0, 0.1, 300), method="wilcoxon").to_dict(),
        compare([0.1, 0.2, 0.3], [0.2, 0.3, 0.4]).to_dict(),  # undefined p-value
        compare([1, 0, 1], [1, 0, 1]).to_dict(),  # identical
        compare(x, y, cluster=[i % 7 for i in range(500)]).to_dict(),
    ]


def _gate_result(names: list[str]) -> dict[str, Any]:
    rng = np.random.default_rng(1)
    base = {n: rng.random(200) for n in names}
    cand = {n: v + rng.normal(0.02, 0.05, 200) for n, v in base.items()}
    return gate(base, cand, policy={"name": HOSTILE, "tasks": names}).to_dict()


def test_results_match_their_schemas() -> None:
    validator = _validator("comparison")
    for result in _comparisons():
        validator.validate(result)
    _validator("gate").validate(_gate_result(["a", HOSTILE]))


def test_schema_catches_a_broken_result() -> None:
    result = _comparisons()[0]
    result["pvalue"] = 1.5
    assert list(_validator("comparison").iter_errors(result))


def test_markdown_escapes_user_strings() -> None:
    escaped = md(HOSTILE)
    assert "<script>" not in escaped
    assert "\\|" in escaped
    assert "\\`" in escaped
    result = _comparisons()[0]
    result["notes"] = [HOSTILE]
    text = as_markdown(result, title=HOSTILE)
    for line in text.splitlines():
        if line.startswith("|"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 3  # two cells, nothing more
    assert "<script>" not in text
    gate_md = runner.invoke(app, ["--help"])  # the CLI loads
    assert gate_md.exit_code == 0


def test_html_escapes_every_user_string() -> None:
    results = [_gate_result(["safe", HOSTILE]), {**_comparisons()[0], "notes": [HOSTILE]}]
    html = page(results, title=HOSTILE)
    assert "<script>alert" not in html
    assert len(re.findall(r"<script", html)) == 1  # the page's own sorting script
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # no external resource: no src/href/url() pointing anywhere; the hostile link stays text
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", html)
    assert links
    assert all(link.startswith("#") for link in links)  # in-page anchors only
    assert "url(" not in html
    assert "default-src 'none'" in html  # the page forbids fetches outright


def test_degenerate_results_render() -> None:
    for result in _comparisons():
        html = page([result])
        assert "<svg" in html
    one = _gate_result(["only"])
    assert "only" in page([one])


def test_unknown_kind_is_shown_as_json() -> None:
    html = page([{"kind": "future-thing", "schema_version": 1, "x": HOSTILE}])
    assert "has no dedicated view yet" in html
    assert "&lt;script&gt;" in html


def test_notebook_display_uses_the_same_renderer() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.random(50), rng.random(50)
    result = compare(x, y)
    assert result._repr_html_() == fragment(result.to_dict())
    assert "Paired comparison" in result._repr_html_()


def test_report_command(tmp_path: Path) -> None:
    saved = tmp_path / "r.json"
    saved.write_text(json.dumps(_comparisons()[1]), encoding="utf-8")
    gated = tmp_path / "g.json"
    gated.write_text(json.dumps(_gate_result(["a", "b"])), encoding="utf-8")
    out = tmp_path / "report.html"
    done = runner.invoke(app, ["report", str(saved), str(gated), "-o", str(out)])
    assert done.exit_code == 0, done.output
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "Paired comparison" in html
    assert "Release gate" in html
    as_md = runner.invoke(app, ["report", str(saved), "--format", "markdown"])
    assert as_md.exit_code == 0
    assert as_md.stdout.startswith("**")
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "comparison", "schema_version": 1, "estimate": NaN}', "utf-8")
    refused = runner.invoke(app, ["report", str(bad)])
    assert refused.exit_code == 4
    assert "not strict JSON (NaN is not valid in strict JSON)" in refused.stderr
    old = tmp_path / "old.json"
    old.write_text('{"kind": "comparison", "schema_version": 0}', "utf-8")
    assert (
        "schema_version 0, but this evalsig reads version 1"
        in runner.invoke(app, ["report", str(old)]).stderr
    )
    plain = tmp_path / "plain.json"
    plain.write_text("[1, 2]", "utf-8")
    assert "not an evalsig result" in runner.invoke(app, ["report", str(plain)]).stderr


def test_commands_write_html(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("item,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(40)), "utf-8")
    b.write_text("item,score\n" + "".join(f"q{i},{int(i % 3 > 0)}\n" for i in range(40)), "utf-8")
    done = runner.invoke(app, ["compare", str(a), str(b), "--format", "html"])
    assert done.exit_code == 0
    assert done.stdout.startswith("<!DOCTYPE html>")
    out = tmp_path / "c.html"
    assert (
        runner.invoke(
            app, ["compare", str(a), str(b), "--format", "html", "-o", str(out)]
        ).exit_code
        == 0
    )
    assert "Paired comparison" in out.read_text("utf-8")


def test_progress_reports_from_long_resampling() -> None:
    seen: list[tuple[str, float, float]] = []
    rng = np.random.default_rng(3)
    with reporting(lambda label, done, total: seen.append((label, done, total))):
        compare(rng.random(20_000), rng.random(20_000), method="bootstrap", rng=1, n_resamples=300)
    assert seen
    assert seen[-1] == ("bootstrap resamples", 300, 300)
    seen.clear()
    compare(rng.random(100), rng.random(100), method="bootstrap", rng=1, n_resamples=300)
    assert seen == []  # nothing reported without a reporter
