"""A test added with ``register_test`` (or by a plugin) is usable by name everywhere a
built-in test is: ``compare``, ``evalsig compare --method`` and a gate policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from evalsig.cli import app
from evalsig.comparison import PairedTest, register_test, unregister_test
from evalsig.errors import DataError
from evalsig.inference import paired_t
from evalsig.release import gate


def _clipped_t(d: np.ndarray, **options: Any) -> Any:
    """A paired t-test on differences clipped to [-0.5, 0.5]."""
    result = paired_t(
        baseline=0 * d,
        candidate=d.clip(-0.5, 0.5),
        alternative=options["alternative"],
        confidence_level=options["confidence_level"],
    )
    return replace(result, method=f"clipped-t ({options['variant']})")


@pytest.fixture
def clipped() -> Iterator[str]:
    register_test(PairedTest(name="clipped-t", function=_clipped_t, variants=("half", "wide")))
    yield "clipped-t"
    unregister_test("clipped-t")


def _files(tmp_path: Path) -> tuple[str, str]:
    rng = np.random.default_rng(0)
    paths = []
    for name, shift in (("base", 0.0), ("cand", 0.05)):
        scores = np.clip(rng.beta(2, 2, 200) + shift, 0, 1)
        path = tmp_path / f"{name}.csv"
        path.write_text("item,score\n" + "".join(f"q{i},{s:.4f}\n" for i, s in enumerate(scores)))
        paths.append(str(path))
    return paths[0], paths[1]


def test_the_cli_runs_a_registered_test_by_name(clipped: str, tmp_path: Path) -> None:
    base, cand = _files(tmp_path)
    runner = CliRunner()
    done = runner.invoke(
        app, ["compare", base, cand, "--method", clipped, "--variant", "wide", "--format", "json"]
    )
    assert done.exit_code in (0, 1, 3), done.output
    assert json.loads(done.output)["method"] == "clipped-t (wide)"
    bad = runner.invoke(app, ["compare", base, cand, "--method", clipped, "--variant", "exact"])
    assert bad.exit_code == 2
    assert "has no variant 'exact'" in bad.output


def test_an_unknown_method_lists_the_registered_ones(clipped: str, tmp_path: Path) -> None:
    base, cand = _files(tmp_path)
    done = CliRunner().invoke(app, ["compare", base, cand, "--method", "clipped"])
    assert done.exit_code == 2
    assert "'clipped-t'" in done.output
    assert "'paired-t'" in done.output


def test_a_gate_policy_names_a_registered_test(clipped: str) -> None:
    rng = np.random.default_rng(1)
    base = rng.beta(2, 2, 300)
    cand = np.clip(base + 0.05 + rng.normal(0, 0.05, 300), 0, 1)
    policy = {"tasks": [{"name": "t", "method": clipped, "variant": "half"}]}
    (task,) = gate({"t": base}, {"t": cand}, policy=policy).tasks
    assert task.comparison.method == "clipped-t (half)"
    with pytest.raises(DataError, match="'variant' 'bca' needs a method that has it"):
        gate({"t": base}, {"t": cand}, policy={"tasks": [{**policy["tasks"][0], "variant": "bca"}]})
    with pytest.raises(DataError, match="or a registered test"):
        gate({"t": base}, {"t": cand}, policy={"tasks": [{"name": "t", "method": "nope"}]})
