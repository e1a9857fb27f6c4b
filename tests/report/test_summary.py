"""``summary()``: one table as text, markdown, HTML and LaTeX, with every user string
escaped for the medium it lands in."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from evalsig import compare
from evalsig.inference import paired_t
from evalsig.report.inference import cells
from evalsig.report.summary import Summary, latex_text

HOSTILE = r"run_1 & 50% of $x$ #2 {a} ~b^c \end{table} <b>"


def test_latex_special_characters_are_escaped() -> None:
    escaped = latex_text(HOSTILE)
    assert escaped == (
        r"run\_1 \& 50\% of \$x\$ \#2 \{a\} \textasciitilde{}b\textasciicircum{}c "
        r"\textbackslash{}end\{table\} \textless{}b\textgreater{}"
    )


def test_a_comparison_summary_renders_the_same_rows_everywhere() -> None:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, 200)
    cand = np.where(rng.random(200) < 0.1, 1, base)
    result = compare(base, cand)
    summary = result.summary()
    assert isinstance(summary, Summary)
    labels = [label for label, _ in summary.rows]
    assert labels[:3] == ["Claim tested", "Method", "Data"]
    assert result._repr_markdown_() == summary.as_markdown()
    latex = summary.as_latex(label="tab:cmp")
    assert latex.startswith("\\begin{table}[htbp]")
    assert "\\label{tab:cmp}" in latex
    for label, value in summary.rows:
        assert f"{latex_text(label)} & {latex_text(value)} \\\\" in latex
    assert str(summary).splitlines()[0] == summary.verdict


def test_hostile_notes_stay_text() -> None:
    summary = Summary(title=HOSTILE, verdict="v", rows=((HOSTILE, HOSTILE),), notes=(HOSTILE,))
    assert "<b>" not in summary.as_html()
    assert "&lt;b&gt;" in summary.as_html()
    assert "\\end{table} <b>" not in summary.as_latex()
    assert summary.as_latex().count("\\end{table}") == 1
    assert "|" not in summary.as_markdown().split("\n")[-1].replace("\\|", "")


def test_an_inference_result_has_a_summary() -> None:
    rng = np.random.default_rng(1)
    x = rng.random(50)
    result = paired_t(baseline=x, candidate=x + rng.normal(0.05, 0.1, 50))
    summary = result.summary()
    assert summary.rows == tuple(cells(result.to_dict()))
    assert [label for label, _ in summary.rows] == [
        "method",
        "estimate",
        "95% CI",
        "statistic",
        "p-value",
    ]
    assert re.search(r"t = [-\d.]+, p = ", summary.verdict)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_latex_compiles(tmp_path: Path) -> None:
    summary = Summary(title=HOSTILE, verdict="v", rows=((HOSTILE, HOSTILE),), notes=(HOSTILE,))
    document = (
        "\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n"
        + summary.as_latex()
        + "\n\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
