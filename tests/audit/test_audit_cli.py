"""``evalsig audit``, ``evalsig audit-claim`` and ``evalsig simulate`` from the command line,
and the renderings of their results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig.audit import AuditMethod, MethodInput, audit
from evalsig.cli import app
from evalsig.report.audit import as_markdown, as_text, claim_markdown, simulation_markdown
from evalsig.report.html import page
from evalsig.simulate import MixtureDesign

runner = CliRunner()
HOSTILE = "<script>alert(1)</script>|`x`*"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sim")
    result = runner.invoke(
        app, ["simulate", "--seed", "20260504", "--simulations", "50", "--save", str(folder)]
    )
    assert result.exit_code == 0, result.output
    return folder


def test_simulate_prints_the_article_numbers(saved: Path) -> None:
    result = runner.invoke(app, ["simulate", "--seed", "20260504", "--simulations", "0"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "baseline   57.06%         56.88%             0.432 pp" in out
    assert "McNemar on run 1 +0.92 pp, z = 1.64, p = 0.101" in out
    assert (
        "analytical 38.9% (discordance 14.2%: p01 7.60%, p10 6.60%), empirical not simulated" in out
    )
    assert sorted(p.name for p in saved.iterdir()) == ["baseline.csv", "clone.csv", "finetune.csv"]
    lines = (saved / "baseline.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "item,run,correct"
    assert len(lines) == 1 + 8 * 4000


def test_audit_text_json_markdown(tmp_path: Path) -> None:
    args = ["audit", "--simulations", "120", "--seed", "3", "--n-items", "1000", "--runs", "4"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("Method audit: power, false positives and interval width")
    assert "Run bootstrap, SE / sqrt(B)  anti-pattern" in text.stdout
    assert "published" not in text.stdout.splitlines()[6]  # not the article's design
    saved = tmp_path / "audit.json"
    as_json = runner.invoke(app, [*args, "--format", "json", "-o", str(saved)])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["kind"] == "audit"
    assert data["n_simulations"] == 120
    assert data["seed"] == 3
    assert data["design"]["n_items"] == 1000
    markdown = runner.invoke(app, ["report", str(saved), "--format", "markdown"])
    assert markdown.exit_code == 0, markdown.output
    assert markdown.stdout.startswith("### Method audit")
    html = runner.invoke(app, ["report", str(saved)])
    assert html.exit_code == 0
    assert "<svg" in html.stdout
    assert "Power against false-positive" in (html.stdout)
    rendered = runner.invoke(app, ["report", str(saved), "--format", "text"])
    assert rendered.stdout.startswith("Method audit")


def test_audit_methods_clusters_and_fit(saved: Path) -> None:
    result = runner.invoke(
        app,
        [
            "audit",
            "--simulations",
            "60",
            "--seed",
            "1",
            "--method",
            "paired-t",
            "--method",
            "mcnemar",
            "--clusters",
            "40",
            "--icc",
            "0.1",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [m["name"] for m in data["methods"]] == ["paired-t", "mcnemar"]
    assert data["design"]["icc"] == 0.1
    fitted = runner.invoke(
        app,
        [
            "audit",
            "--fit",
            str(saved / "baseline.csv"),
            "--run",
            "run",
            "--simulations",
            "40",
            "--method",
            "paired-t",
            "--seed",
            "2",
            "--format",
            "json",
        ],
    )
    assert fitted.exit_code == 0, fitted.output
    assert json.loads(fitted.stdout)["design"]["generator"] == "fitted"
    listing = runner.invoke(app, ["audit", "--list-methods"])
    assert "run-bootstrap-sqrt-b (anti-pattern): Run bootstrap, SE / sqrt(B)" in listing.stdout


def test_audit_errors(saved: Path) -> None:
    unknown = runner.invoke(app, ["audit", "--method", "magic", "--simulations", "5"])
    assert unknown.exit_code == 4
    assert "unknown audit method 'magic'" in unknown.stderr
    clash = runner.invoke(
        app, ["audit", "--fit", str(saved / "baseline.csv"), "--run", "run", "--icc", "0.1"]
    )
    assert clash.exit_code == 4
    assert "drop --icc" in clash.stderr
    usage = runner.invoke(app, ["audit", "--simulations", "0"])
    assert usage.exit_code == 2


def test_audit_claim_from_files(saved: Path, tmp_path: Path) -> None:
    base, clone = str(saved / "baseline.csv"), str(saved / "clone.csv")
    args = ["audit-claim", base, clone, "--run", "run", "--half-width", "0.19", "--points"]
    flagged = runner.invoke(app, [*args, "--resamples", "30"])
    assert flagged.exit_code == 0, flagged.output
    assert flagged.stdout.startswith("Claim audit: TOO NARROW")
    assert "Likely cause: sqrt(B) in the SE" in flagged.stdout
    assert "matches the run bootstrap with SE / sqrt(B) at B = 30" in flagged.stdout
    out = tmp_path / "claim.json"
    saved_json = runner.invoke(app, [*args, "--format", "json", "-o", str(out)])
    assert saved_json.exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["kind"] == "claim-audit"
    assert data["likely_cause"] == "sqrt(B) in the SE"
    html = runner.invoke(app, ["report", str(out)])
    assert "Claim audit: too narrow" in html.stdout
    ci = runner.invoke(app, ["audit-claim", base, clone, "--run", "run", "--ci", "-0.004", "0.004"])
    assert ci.exit_code == 0
    assert "CONSISTENT" in ci.stdout
    nothing = runner.invoke(app, ["audit-claim", base, clone, "--run", "run"])
    assert nothing.exit_code == 4
    assert "nothing to audit" in nothing.stderr


def _hostile(data: MethodInput, rng: np.random.Generator) -> tuple[float, float, float]:
    return 0.0, -1.0, 1.0


def test_renderings_escape_and_plot() -> None:
    method = AuditMethod(
        name="hostile", label=HOSTILE, category="custom", definition=HOSTILE, function=_hostile
    )
    result = audit(
        MixtureDesign(n_items=300, n_runs=2),
        methods=["paired-t", method],
        n_simulations=12,
        rng=1,
    )
    data = result.to_dict()
    text = as_text(data)
    assert HOSTILE in text
    assert "hostile" not in text.splitlines()[0]
    markdown = as_markdown(data)
    assert "<script>" not in markdown
    assert "\\|" in markdown
    assert "\\`x\\`" in markdown
    html = page([data])
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;" in html
    assert html.count("<svg") >= 2
    assert math.isfinite(data["methods"][0]["power"])


def test_other_markdown_views(saved: Path) -> None:
    from evalsig.audit.claim import audit_claim
    from evalsig.simulate import simulation_report

    claim = audit_claim(
        np.loadtxt(saved / "baseline.csv", delimiter=",", skiprows=1, usecols=2).reshape(8, -1),
        np.loadtxt(saved / "clone.csv", delimiter=",", skiprows=1, usecols=2).reshape(8, -1),
        half_width=0.0019,
    ).to_dict()
    assert claim_markdown(claim).startswith("### Claim audit: too narrow")
    report = simulation_report(MixtureDesign(n_items=500, n_runs=2), rng=1, n_simulations=0)
    assert "| baseline |" in simulation_markdown(report.to_dict())
    assert "<svg" in page([report.to_dict()])
