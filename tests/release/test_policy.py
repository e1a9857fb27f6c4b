"""Gate policies and pre-registration: validation, digests, refusal of changed families."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from evalsig.errors import DataError
from evalsig.release import check_registration, load_policy, read_registration, register

POLICY = """
name: release
alpha: 0.05
tasks:
  - name: mmlu
    metric: acc
  - name: gpqa
    claim: non-inferiority
    margin: 0.01
  - name: errors
    direction: lower
"""


def _policy(tmp_path: Path, text: str = POLICY) -> Path:
    path = tmp_path / "gate.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_with_defaults(tmp_path: Path) -> None:
    p = load_policy(_policy(tmp_path))
    assert p.family == ("mmlu", "gpqa", "errors")
    assert (p.alpha, p.error_rate, p.correction, p.rule) == (0.05, "fwer", "holm", "all")
    assert p.tasks[1].threshold == -0.01
    assert p.tasks[0].threshold == 0.0
    assert p.tasks[2].direction == "lower"
    assert load_policy({"tasks": ["a"], "error_rate": "fdr"}).correction == "bh"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks: [a]\nmargn: 0.01\n", r"unknown policy key\(s\) 'margn'"),
        ("tasks: [{name: a, margn: 0.01}]\n", r"task 'a': unknown task key\(s\) 'margn'"),
        (
            "tasks: [a]\nalpha: 5\n",
            "'alpha' must be a number strictly between 0 and 1, e.g. 0.05; got 5",
        ),
        (
            "tasks: [a]\ncorrection: bh\n",
            r"'correction' 'bh' does not control the FWER \('bh' controls the FDR\)",
        ),
        ("tasks: []\n", "'tasks' must be a non-empty list"),
        ("tasks: [a, a]\n", r"task\(s\) 'a' listed twice"),
        (
            "tasks: [a, b]\nrule: at-least\nat_least: 3\n",
            "'at_least' is 3 but the family has 2 tasks",
        ),
        ("tasks: [a]\nrule: at-least\n", "rule 'at-least' needs 'at_least: k'"),
        ("tasks: [{name: a, margin: 0.01}]\n", "a superiority claim has no margin"),
        (
            "tasks: [{name: a, claim: better}]\n",
            "'claim' must be one of superiority, non-inferiority",
        ),
        (
            "tasks: [{name: a, margin: -1, claim: non-inferiority}]\n",
            "'margin' must be a finite, non-negative",
        ),
        ("tasks: [{name: a, method: ttest}]\n", "unknown 'method' 'ttest'"),
        ("- just a list\n", "a policy is a mapping"),
        ("tasks: [a\n", "not valid YAML or JSON"),
    ],
)
def test_policy_errors_name_the_field(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        load_policy(_policy(tmp_path, text))


def test_digest_tracks_content_not_location(tmp_path: Path) -> None:
    a = load_policy(_policy(tmp_path))
    other = tmp_path / "copy"
    other.mkdir()
    b = load_policy(_policy(other))
    assert a.digest() == b.digest()
    c = load_policy(_policy(tmp_path, POLICY.replace("0.01", "0.02")))
    assert c.digest() != a.digest()


def test_register_then_check(tmp_path: Path) -> None:
    path = _policy(tmp_path)
    policy = load_policy(path)
    moment = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
    record, written = register(policy, now=moment)
    assert written == tmp_path / "gate.registration.json"
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["family"] == ["mmlu", "gpqa", "errors"]
    assert data["registered_at"] == "2026-11-01T12:00:00+00:00"
    assert register(policy)[0] == record  # registering the same policy again is harmless
    assert check_registration(policy, read_registration(written)).status == "registered"
    # a task dropped and another renamed after the results were seen
    changed = load_policy(_policy(tmp_path, POLICY.replace("gpqa", "gpqa_diamond")))
    with pytest.raises(DataError, match=r"added gpqa_diamond; dropped gpqa\): refused"):
        check_registration(changed, record)
    allowed = check_registration(changed, record, allow_changes=True)
    assert (allowed.status, allowed.overridden) == ("changed", True)
    assert "run anyway because the override was given" in allowed.summary()
    with pytest.raises(DataError, match="already registers a different version"):
        register(changed, path=written)


def test_settings_changes_are_caught(tmp_path: Path) -> None:
    record, _ = register(load_policy(_policy(tmp_path)))
    looser = load_policy(_policy(tmp_path, POLICY.replace("alpha: 0.05", "alpha: 0.1")))
    with pytest.raises(DataError, match="changed alpha"):
        check_registration(looser, record)
    unregistered = check_registration(looser, None)
    assert unregistered.status == "unregistered"
    assert "not pre-registered" in unregistered.summary()
