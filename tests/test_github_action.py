"""The GitHub Action (action.yml, scripts/gate-action.sh), run here with a simulated runner.

The action's steps run as GitHub runs them: each step's ``env`` is evaluated from the
inputs given (or their declared defaults), and its ``run`` line runs in bash with the
runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the event payload). The real
``evalsig`` of this environment decides; a fake ``gh`` on the PATH keeps the pull
request's comments and records every call.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "scripts" / "gate-action.sh"
GUIDE = ROOT / "docs" / "guides" / "github-action.md"
USES = "OWNER/REPOSITORY@v1"
"""How the guide refers to the action: the repository that holds action.yml (no public one yet)."""
BIN = Path(sys.executable).parent
"""The environment's bin folder (.venv/bin): its evalsig and python come first on the PATH."""

EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
INPUT = re.compile(r"\binputs\.([A-Za-z0-9_-]+)")
MARKER = "<!-- evalsig-gate -->"
TOKEN = "ghs_simulated-token"


def load_action(text: str | None = None) -> dict[str, Any]:
    document = yaml.safe_load(ACTION.read_text(encoding="utf-8") if text is None else text)
    assert isinstance(document, dict)
    return document


def steps(action: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(action["runs"]["steps"])


def strings(node: Any) -> Iterator[str]:
    """Every string in a YAML tree (keys aside)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def used_inputs(action: Mapping[str, Any]) -> set[str]:
    """The inputs the steps and outputs read (in ``${{ }}`` and in ``if:`` conditions)."""
    used: set[str] = set()
    for text in strings({"runs": action["runs"], "outputs": action.get("outputs", {})}):
        used.update(INPUT.findall(text))
    return used


def interpolated_runs(action: Mapping[str, Any]) -> list[str]:
    """The ``run:`` scripts that hold an expression: GitHub pastes its value into the
    script's text before the shell reads it (script injection)."""
    return [step["run"] for step in steps(action) if EXPRESSION.search(step.get("run", ""))]


BAD_ACTION = """
inputs:
  baseline: {description: x}
  unused: {description: never read}
runs:
  using: composite
  steps:
    - shell: bash
      run: evalsig gate "${{ inputs.baseline }}"
    - shell: bash
      env: {X: "${{ inputs.undeclared }}"}
      run: echo "$X"
"""


def test_the_checks_find_what_they_look_for() -> None:
    """The checks below can fail: on a bad action they report each fault."""
    bad = load_action(BAD_ACTION)
    assert set(bad["inputs"]) - used_inputs(bad) == {"unused"}
    assert used_inputs(bad) - set(bad["inputs"]) == {"undeclared"}
    assert interpolated_runs(bad) == ['evalsig gate "${{ inputs.baseline }}"']


def test_every_input_is_declared_and_used() -> None:
    action = load_action()
    declared = set(action["inputs"])
    assert used_inputs(action) - declared == set(), "used but not declared"
    assert declared - used_inputs(action) == set(), "declared but never used"
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
        assert spec.get("required") or "default" in spec, f"{name}: no default"


def test_no_run_block_interpolates_an_expression() -> None:
    action = load_action()
    assert interpolated_runs(action) == []
    for step in steps(action):
        if "run" in step:
            assert step["shell"] == "bash"
            assert step["run"].startswith('bash "$GITHUB_ACTION_PATH/scripts/gate-action.sh" ')


def test_the_script_reads_exactly_the_variables_the_action_sets() -> None:
    action = load_action()
    given = {k for step in steps(action) for k in step.get("env", {}) if k.startswith("EVALSIG_")}
    read = set(re.findall(r"\bEVALSIG_[A-Z_]+\b", SCRIPT.read_text(encoding="utf-8")))
    assert given == read


def test_outputs_come_from_the_gate_step() -> None:
    action = load_action()
    ids = {step.get("id") for step in steps(action)}
    assert "gate" in ids
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"
        assert f"{name}=" in SCRIPT.read_text(encoding="utf-8")


def test_the_guide_uses_only_declared_inputs() -> None:
    """The workflow of the guide: its `with:` names declared inputs, the required ones too."""
    action = load_action()
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
    uses = [
        step
        for block in blocks
        for job in (yaml.safe_load(block) or {}).get("jobs", {}).values()
        for step in job.get("steps", [])
        if step.get("uses") == USES
    ]
    assert uses, "the guide shows the action in a workflow"
    required = {n for n, spec in action["inputs"].items() if spec.get("required")}
    for step in uses:
        assert set(step["with"]) <= set(action["inputs"])
        assert required <= set(step["with"])


def test_the_guide_names_every_input_and_output() -> None:
    action = load_action()
    text = GUIDE.read_text(encoding="utf-8")
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"`{name}`" in text, name


def test_the_guide_renders_the_comment_evalsig_printed() -> None:
    """The guide shows the comment twice: the markdown that its docs test checks against
    what evalsig prints, and the same as a pull request renders it (a quote): each line of
    the first is in the second."""
    text = GUIDE.read_text(encoding="utf-8")
    printed = re.search(r"```console\n\$ evalsig gate [^\n]*\n(.*?)```", text, re.DOTALL)
    assert printed is not None
    quoted = [line[2:] for line in text.splitlines() if line.startswith("> ")]
    rendered = "\n".join(quoted)
    lines = printed.group(1).splitlines()
    assert len(lines) >= 10
    for line in lines:  # "..." marks text the console block leaves out, as in the docs test
        pattern = ".*".join(map(re.escape, line.split("...")))
        assert re.search(pattern, rendered), line
    assert quoted[0] == lines[0] == "### Release gate release-gate: **FAIL**"


# The simulated runner ---------------------------------------------------------------------

FAKE_GH = '''#!{python}
"""gh for the tests: `gh api` on the comments of one pull request, kept in a JSON file."""
import json, os, re, subprocess, sys
from pathlib import Path

state = Path(os.environ["FAKE_GH_STATE"])
args = sys.argv[1:]
options, positional, i = {{}}, [], 1
while i < len(args):
    if args[i] in ("--method", "-F", "--jq"):
        options[args[i]] = args[i + 1]
        i += 2
    elif args[i] == "--paginate":
        options["--paginate"] = True
        i += 1
    else:
        positional.append(args[i])
        i += 1
call = {{"args": args, "token": os.environ.get("GH_TOKEN")}}
body = None
if "-F" in options:
    key, _, value = options["-F"].partition("=")
    assert key == "body" and value.startswith("@"), options["-F"]
    body = call["body"] = Path(value[1:]).read_text(encoding="utf-8")
with open(state / "calls.jsonl", "a", encoding="utf-8") as log:
    log.write(json.dumps(call) + "\\n")
store = state / "comments.json"
comments = json.loads(store.read_text(encoding="utf-8"))
method, (endpoint,) = options.get("--method", "GET"), positional
listing = re.fullmatch(r"repos/octo/models/issues/(\\d+)/comments", endpoint)
single = re.fullmatch(r"repos/octo/models/issues/comments/(\\d+)", endpoint)
if args[0] != "api":
    sys.exit(f"fake gh: only `gh api` is simulated, not {{args}}")
if method != "GET" and os.environ.get("FAKE_GH_READ_ONLY"):
    print(f"gh: Resource not accessible by integration (HTTP 403)", file=sys.stderr)
    sys.exit(1)
if method == "GET" and listing:
    page = json.dumps(comments)
    if "--jq" in options:
        page = subprocess.run(
            ["jq", "-r", options["--jq"]], input=page, capture_output=True, text=True, check=True
        ).stdout
    print(page, end="")
elif method == "POST" and listing:
    user = {{"login": "github-actions[bot]"}}
    comment = {{"id": 9000 + len(comments), "body": body, "user": user}}
    store.write_text(json.dumps(comments + [comment]), encoding="utf-8")
    print(json.dumps(comment))
elif method == "PATCH" and single:
    found = [c for c in comments if c["id"] == int(single.group(1))]
    if not found:
        print("gh: Not Found (HTTP 404)", file=sys.stderr)
        sys.exit(1)
    found[0]["body"] = body
    store.write_text(json.dumps(comments), encoding="utf-8")
    print(json.dumps(found[0]))
else:
    sys.exit(f"fake gh: unexpected call {{args}}")
'''

HUMAN_COMMENTS = [
    {"id": 7, "body": "Nice work!", "user": {"login": "reviewer"}},
    {"id": 8, "body": f"> {MARKER}\n> quoted, not ours", "user": {"login": "reviewer"}},
]


def _write_table(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "task", "score"])
        writer.writerows(rows)
    return path


def _scores(flips: Mapping[str, tuple[int, int]], n: int = 200) -> list[tuple[str, str, float]]:
    """0/1 scores, half right; per task the candidate turns ``up`` wrong answers right and
    ``down`` right answers wrong (improvement (up - down) / n exactly)."""
    rows = []
    for task, (up, down) in flips.items():
        for i in range(n):
            right = i % 2 == 0
            if (not right and i // 2 < up) or (right and i // 2 < down):
                right = not right
            rows.append((f"q{i}", task, float(right)))
    return rows


POLICY = """\
name: pr-gate
tasks:
  - name: arith
  - name: reading
    claim: non-inferiority
    margin: 0.02
"""


@dataclass
class Run:
    """One run of the action's gate step."""

    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str

    @property
    def markdown(self) -> str:
        return Path(self.outputs["markdown"]).read_text(encoding="utf-8")


@dataclass
class Runner:
    """A workspace with results, a pull-request event and a fake gh."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "gh"

    def comments(self) -> list[dict[str, Any]]:
        return list(json.loads((self.state / "comments.json").read_text(encoding="utf-8")))

    def calls(self) -> list[dict[str, Any]]:
        log = self.state / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]

    def step_env(self, step: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, str]:
        """The step's ``env`` as the runner evaluates it: an input's value, or its default."""
        declared = load_action()["inputs"]
        assert set(inputs) <= set(declared), f"undeclared inputs {set(inputs) - set(declared)}"
        env = {}
        for key, value in step.get("env", {}).items():
            expression = EXPRESSION.fullmatch(value.strip())
            assert expression is not None, f"{key}: not one expression: {value!r}"
            inner = expression.group(1).strip()
            if inner == "github.token":
                env[key] = TOKEN
                continue
            name = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", inner)
            assert name is not None, f"{key}: the simulation reads inputs only: {inner}"
            env[key] = inputs.get(name.group(1), str(declared[name.group(1)].get("default", "")))
        return env

    def run_step(
        self,
        step_id: str,
        inputs: Mapping[str, str],
        *,
        event: str = "pull_request",
        extra_env: Mapping[str, str] | None = None,
        path: str | None = None,
    ) -> Run:
        (step,) = [s for s in steps(load_action()) if s.get("id", s.get("name")) == step_id]
        output, summary = self.root / "output.txt", self.root / "summary.md"
        output.write_text("", encoding="utf-8")
        summary.write_text("", encoding="utf-8")
        runner_temp = self.root / "runner-temp"
        runner_temp.mkdir(exist_ok=True)
        env = {
            "PATH": path or os.pathsep.join([str(self.root / "bin"), str(BIN), os.defpath]),
            "HOME": str(self.root),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(self.root / "event.json"),
            "GITHUB_REPOSITORY": "octo/models",
            "RUNNER_TEMP": str(runner_temp),
            "FAKE_GH_STATE": str(self.state),
            "NO_COLOR": "1",
            **self.step_env(step, inputs),
            **(extra_env or {}),
        }
        done = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=self.root / "work",
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        outputs = dict(
            line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines()
        )
        return Run(done.returncode, done.stdout, done.stderr, outputs, summary.read_text("utf-8"))

    def gate(self, candidate: str, **inputs: str) -> Run:
        given = {"baseline": "base.csv", "candidate": candidate, "policy": "gate.yaml"}
        given["task-column"] = "task"
        given.update({k.replace("_", "-"): v for k, v in inputs.items()})
        return self.run_step("gate", given)


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    if shutil.which("bash") is None or shutil.which("jq") is None:
        pytest.skip("the action's script needs bash, and the fake gh jq (for gh's --jq)")
    work = tmp_path / "work"
    work.mkdir()
    (work / "gate.yaml").write_text(POLICY, encoding="utf-8")
    _write_table(work / "base.csv", _scores({"arith": (0, 0), "reading": (0, 0)}))
    _write_table(work / "pass.csv", _scores({"arith": (40, 0), "reading": (30, 0)}))
    _write_table(work / "fail.csv", _scores({"arith": (40, 0), "reading": (0, 30)}))
    _write_table(work / "unresolved.csv", _scores({"arith": (3, 1), "reading": (0, 0)}))
    (work / "bad.csv").write_text("id,task,score\nq0,arith,1\nq1,arith,n/a\n", "utf-8")
    (tmp_path / "event.json").write_text(
        json.dumps({"action": "synchronize", "number": 17, "pull_request": {"number": 17}}),
        encoding="utf-8",
    )
    (tmp_path / "gh").mkdir()
    (tmp_path / "gh" / "comments.json").write_text(json.dumps(HUMAN_COMMENTS), "utf-8")
    (tmp_path / "bin").mkdir()
    gh = tmp_path / "bin" / "gh"
    gh.write_text(FAKE_GH.format(python=sys.executable), encoding="utf-8")
    gh.chmod(0o755)
    assert (BIN / "evalsig").exists(), f"evalsig is not installed in {BIN}"
    return Runner(tmp_path)


def _ours(comments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in comments if c["body"].startswith(MARKER + "\n")]


def test_pass_posts_the_verdict_once(runner: Runner) -> None:
    run = runner.gate("pass.csv")
    assert run.code == 0, run.stderr
    assert run.outputs["verdict"] == "PASS"
    assert run.outputs["exit-code"] == "0"
    markdown = run.markdown
    assert markdown.startswith("### Release gate pr-gate: **PASS**\n")
    assert "| arith | better | +20.00 pp |" in markdown
    assert "| reading | not worse than -2.00 pp | +15.00 pp |" in markdown
    assert run.summary == markdown
    (comment,) = _ours(runner.comments())
    assert comment["body"] == f"{MARKER}\n{markdown}"
    assert runner.comments()[:2] == HUMAN_COMMENTS
    methods = [c["args"][c["args"].index("--method") + 1] for c in runner.calls()[1:]]
    assert methods == ["POST"]
    assert {c["token"] for c in runner.calls()} == {TOKEN}
    assert "verdict posted on pull request #17" in run.stdout


def test_a_rerun_edits_the_same_comment(runner: Runner) -> None:
    first = runner.gate("pass.csv")
    second = runner.gate("fail.csv")
    assert (first.code, second.code) == (0, 1)
    assert second.outputs == {
        "verdict": "FAIL",
        "exit-code": "1",
        "markdown": second.outputs["markdown"],
    }
    (comment,) = _ours(runner.comments())
    assert comment["body"] == f"{MARKER}\n{second.markdown}"
    assert "**FAIL**" in comment["body"]
    assert "| reading | not worse than -2.00 pp | -15.00 pp |" in comment["body"]
    assert "- **reading**: the upper 95% bound" in comment["body"]
    writes = [c["args"] for c in runner.calls() if "--method" in c["args"]]
    assert [a[a.index("--method") + 1] for a in writes] == ["POST", "PATCH"]
    assert writes[1][3] == f"repos/octo/models/issues/comments/{comment['id']}"
    assert "::error::release gate FAIL" in second.stdout
    assert len(runner.comments()) == len(HUMAN_COMMENTS) + 1


def test_inconclusive_fails_the_job_unless_fail_on_is_fail(runner: Runner) -> None:
    strict = runner.gate("unresolved.csv")
    assert strict.code == 3
    assert strict.outputs["verdict"] == "INCONCLUSIVE"
    assert strict.outputs["exit-code"] == "3"
    assert "**INCONCLUSIVE**" in strict.summary
    assert "- **arith**: adjusted p = 0.227 &gt; alpha" in strict.markdown
    assert "::error::release gate INCONCLUSIVE" in strict.stdout
    lenient = runner.gate("unresolved.csv", fail_on="fail")
    assert lenient.code == 0
    assert lenient.outputs["verdict"] == "INCONCLUSIVE"
    assert lenient.outputs["exit-code"] == "3"
    assert "::warning::release gate INCONCLUSIVE" in lenient.stdout
    assert len(_ours(runner.comments())) == 1


def test_a_bad_file_is_an_error_with_its_message(runner: Runner) -> None:
    run = runner.gate("bad.csv")
    assert run.code == 4
    assert run.outputs["verdict"] == "ERROR"
    assert run.outputs["exit-code"] == "4"
    assert run.markdown.startswith("### Release gate: **ERROR**\n")
    assert "stopped with exit code 4" in run.markdown
    assert "    evalsig: error: bad.csv" in run.markdown  # a code block: nothing rendered
    assert "'n/a' at line 3" in run.markdown
    assert run.summary == run.markdown
    (comment,) = _ours(runner.comments())
    assert "**ERROR**" in comment["body"]  # a rerun never leaves a stale verdict standing
    assert "::error::evalsig gate stopped with exit code 4: evalsig: error: bad.csv" in run.stdout


def test_a_read_only_token_warns_and_keeps_the_verdict(runner: Runner) -> None:
    """A pull request from a fork: the token cannot write, the job still reports the gate."""
    passed = runner.run_step(
        "gate",
        {"baseline": "base.csv", "candidate": "pass.csv", "policy": "gate.yaml",
         "task-column": "task"},
        extra_env={"FAKE_GH_READ_ONLY": "1"},
    )  # fmt: skip
    assert passed.code == 0
    assert passed.outputs["verdict"] == "PASS"
    assert "::warning::could not comment on pull request #17 (gh: Resource not accessible" in (
        passed.stdout
    )
    assert "pull-requests: write" in passed.stdout
    assert runner.comments() == HUMAN_COMMENTS
    failed = runner.run_step(
        "gate",
        {"baseline": "base.csv", "candidate": "fail.csv", "policy": "gate.yaml",
         "task-column": "task"},
        extra_env={"FAKE_GH_READ_ONLY": "1"},
    )  # fmt: skip
    assert failed.code == 1  # the gate's status, not the comment's


def test_no_comment_outside_pull_requests_or_when_switched_off(runner: Runner) -> None:
    inputs = {"baseline": "base.csv", "candidate": "fail.csv", "policy": "gate.yaml"}
    inputs["task-column"] = "task"
    push = runner.run_step("gate", inputs, event="push")
    assert push.code == 1
    assert push.outputs["verdict"] == "FAIL"
    assert "not a pull request event ('push')" in push.stdout
    off = runner.run_step("gate", {**inputs, "comment": "false"})
    assert off.code == 1
    assert "**FAIL**" in off.summary
    assert runner.calls() == []


def test_without_gh_the_comment_is_a_warning(runner: Runner) -> None:
    inputs = {"baseline": "base.csv", "candidate": "pass.csv", "policy": "gate.yaml"}
    inputs["task-column"] = "task"
    plain = os.pathsep.join([str(BIN), os.defpath])  # no fake gh; the system's is not wanted
    if shutil.which("gh", path=plain):
        pytest.skip("a real gh is on the default PATH")
    run = runner.run_step("gate", inputs, path=plain)
    assert run.code == 0
    assert "::warning::the gh command is not installed" in run.stdout


def test_comment_keys_keep_several_gates_apart(runner: Runner) -> None:
    runner.gate("pass.csv")
    runner.gate("fail.csv", comment_key="math-only")
    bodies = [c["body"] for c in runner.comments()[len(HUMAN_COMMENTS) :]]
    assert len(bodies) == 2
    assert bodies[0].startswith(MARKER + "\n")
    assert "**PASS**" in bodies[0]
    assert bodies[1].startswith("<!-- evalsig-gate:math-only -->\n")
    assert "**FAIL**" in bodies[1]
    bad = runner.gate("pass.csv", comment_key="a -->")
    assert bad.code == 2
    assert "::error::input 'comment-key' is 'a -->'" in bad.stdout


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"fail_on": "maybe"}, "input 'fail-on' is 'maybe'; give one of: fail inconclusive."),
        ({"comment": "yes"}, "input 'comment' is 'yes'; give one of: true false."),
        ({"policy": ""}, "input 'policy' is empty; give the gate policy file (YAML or JSON)."),
        ({"args": "--seed 1 --format json"}, "input 'args' holds '--format'"),
        ({"args": "-o/tmp/x.md"}, "input 'args' holds '-o/tmp/x.md'"),
    ],
)
def test_bad_inputs_are_usage_errors(runner: Runner, inputs: dict[str, str], message: str) -> None:
    run = runner.gate("pass.csv", **inputs)
    assert run.code == 2
    assert f"::error::{message}" in run.stdout
    assert run.outputs == {}
    assert runner.calls() == []


def test_inputs_are_never_evaluated_by_the_shell(runner: Runner) -> None:
    """Untrusted text (a branch name, a file name) stays one literal argument."""
    hostile = '$(touch pwned1)`touch pwned2`"; touch pwned3; echo "'
    run = runner.gate(hostile)
    assert run.code == 4  # evalsig was asked for that literal file name, and refused it
    assert "$(touch pwned1)`touch pwned2`" in run.markdown
    metric = runner.gate("pass.csv", metric="$(touch pwned4)")
    assert metric.code == 4
    assert "no metric '$(touch pwned4)'" in metric.markdown
    options = runner.gate("pass.csv", args="--seed $(touch${IFS}pwned5) *")
    assert options.code == 2  # evalsig's usage error: the seed is that literal text
    assert "--seed" in options.markdown
    assert "$(touch${IFS}pwned5)" in options.markdown
    for folder in (runner.root, runner.root / "work"):
        assert not list(folder.glob("pwned*"))


def test_where_and_args_reach_evalsig(runner: Runner) -> None:
    """`where` lines and white-space separated `args` become evalsig's options."""
    work = runner.root / "work"
    for side, flips in (("b", {"results": (0, 0)}), ("c", {"results": (40, 0)})):
        rows: list[tuple[object, ...]] = [("qid", "task", "split", "points")]
        rows += [(i, task, "test", s) for i, task, s in _scores(flips)]
        rows += [(f"dev{i}", "results", "dev", 0.0) for i in range(10)] if side == "c" else []
        with (work / f"{side}.csv").open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(rows)
    (work / "one.yaml").write_text("name: one\ntasks: [results]\n", encoding="utf-8")
    inputs = {"baseline": "b.csv", "candidate": "c.csv", "policy": "one.yaml"}
    inputs |= {"task-column": "task", "args": "--id qid\n  --score   points"}
    without = runner.run_step("gate", inputs)
    assert without.code == 4, without.markdown  # ten dev items on one side only
    assert "dev0" in without.markdown
    run = runner.run_step("gate", {**inputs, "where": "split=test\n"})
    assert run.code == 0, run.markdown
    assert "| results | better | +20.00 pp |" in run.markdown


# The install step -------------------------------------------------------------------------

FAKE_PYTHON = """#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_PYTHON_ARGS"
"""


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        ({}, ["-m", "pip", "install", "--disable-pip-version-check", "evalsig-stats"]),
        (
            {"evalsig-version": "0.4.1"},
            ["-m", "pip", "install", "--disable-pip-version-check", "evalsig-stats==0.4.1"],
        ),
        (
            {"install-from": "action"},
            ["-m", "pip", "install", "--disable-pip-version-check", str(ROOT)],
        ),
    ],
)
def test_install_runs_pip_with_the_chosen_source(
    runner: Runner, inputs: dict[str, str], expected: list[str]
) -> None:
    fake = runner.root / "bin" / "python"
    fake.write_text(FAKE_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    recorded = runner.root / "python-args.txt"
    run = runner.run_step("Install evalsig", inputs, extra_env={"FAKE_PYTHON_ARGS": str(recorded)})
    assert run.code == 0, run.stdout + run.stderr
    assert recorded.read_text(encoding="utf-8").splitlines() == expected


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"install-from": "git"}, "input 'install-from' is 'git'; give one of: pypi action."),
        ({"evalsig-version": "1.0 --index-url http://x"}, "input 'evalsig-version' is '1.0 "),
        ({"evalsig-version": ">=0.4"}, "give a released version such as 0.4.1"),
        ({"install-from": "action", "evalsig-version": "0.4.1"}, "disagree"),
    ],
)
def test_install_refuses_bad_inputs(runner: Runner, inputs: dict[str, str], message: str) -> None:
    fake = runner.root / "bin" / "python"
    fake.write_text(FAKE_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    recorded = runner.root / "python-args.txt"
    run = runner.run_step("Install evalsig", inputs, extra_env={"FAKE_PYTHON_ARGS": str(recorded)})
    assert run.code == 2
    assert "::error::" in run.stdout
    assert message in run.stdout
    assert not recorded.exists()
