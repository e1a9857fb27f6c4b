"""Plugins: an installed distribution adds a reader, a paired test, an audit method and a
report view through entry points; a broken one warns and breaks nothing.

The plugin is the example of docs/guides/plugins.md (its blocks marked ``<!-- test: file
NAME -->``), so the guide and this test cannot drift apart; the guide's examples that need
the plugin installed (marked skipped for tests/test_docs.py) run here. It is installed as
a wheel would install it, as far as ``importlib.metadata`` can tell: the module and a
``NAME-VERSION.dist-info`` folder (METADATA, and entry_points.txt made from the guide's
``pyproject.toml``) in a folder on PYTHONPATH. Every check runs in a fresh interpreter,
so the test session itself never loads a plugin.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest itself depends on tomli before Python 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guides" / "plugins.md"
FENCE = re.compile(r"^(?P<fence>```+)\s*(?P<language>[\w-]*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*test:\s*(?P<key>file|skip)\s+(?P<value>.+?)\s*-->\s*$")
RUN_HERE = "tests/test_plugins.py"
"""Guide blocks whose skip reason names this file need the plugin installed: they run here."""


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    directives: dict[str, str]


def guide_blocks() -> list[Block]:
    """The fenced blocks of the guide, with the directives written right above them."""
    lines = GUIDE.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        directives, j = {}, i - 1
        while j >= 0 and (found := DIRECTIVE.match(lines[j])) is not None:
            directives[found["key"]] = found["value"]
            j -= 1
        end = lines.index(opening["fence"], i + 1)
        blocks.append(Block(opening["language"], "\n".join(lines[i + 1 : end]), directives))
        i = end + 1
    return blocks


def guide_files() -> dict[str, str]:
    return {b.directives["file"]: b.text + "\n" for b in guide_blocks() if "file" in b.directives}


def install(site: Path, pyproject: str, modules: Mapping[str, str]) -> None:
    """Install a distribution into ``site`` as a wheel would: its modules beside a
    ``.dist-info`` folder whose entry_points.txt holds the pyproject's entry points."""
    project = tomllib.loads(pyproject)["project"]
    site.mkdir(exist_ok=True)
    for name, text in modules.items():
        (site / name).write_text(text, encoding="utf-8")
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    groups = project.get("entry-points", {})
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
            for group, points in groups.items()
        ),
        encoding="utf-8",
    )


@dataclass(frozen=True)
class Installed:
    work: Path
    """Holds the guide's data files (base.quiz, candidate.quiz); commands run here."""
    sites: tuple[Path, ...]

    def env(self) -> dict[str, str]:
        paths = [str(s) for s in self.sites]
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "NO_COLOR": "1"}

    def python(self, code: str) -> Any:
        """Run ``code`` in a fresh interpreter; what it prints last, as JSON."""
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.work,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    def evalsig(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "evalsig", *args],
            cwd=self.work,
            env={**self.env(), "COLUMNS": "100"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


def _good(root: Path) -> Installed:
    files = guide_files()
    work = root / "work"
    work.mkdir()
    for name in ("base.quiz", "candidate.quiz"):
        (work / name).write_text(files[name], encoding="utf-8")
    site = root / "site"
    install(site, files["pyproject.toml"], {"evalsig_quizlog.py": files["evalsig_quizlog.py"]})
    return Installed(work, (site,))


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The guide's quizlog plugin, installed."""
    return _good(tmp_path_factory.mktemp("plugin"))


BROKEN_MODULE = '''
"""A plugin whose every entry point is wrong in another way."""


class FakeCsv:
    name = "csv"

    def sniff(self, path, head):
        return True

    def read(self, path, options, out):
        raise RuntimeError("FakeCsv must never read")


def make_reader():
    raise RuntimeError("the factory failed")


def paired_t(d, **options):
    raise RuntimeError("a plugin's paired-t must never run")


def mcnemar(data, rng):
    raise RuntimeError("a plugin's mcnemar must never run")


def hijack(result):
    return "raw", {"heading": "HIJACKED", "json": "{}"}


NOT_A_READER = 42
NOT_A_TEST = "paired-t"
HIJACK = ("comparison", hijack)
ODD = ("odd-kind",)
'''

BROKEN_PYPROJECT = """
[project]
name = "evalsig-broken"
version = "0.1"

[project.entry-points."evalsig.readers"]
gone = "evalsig_nowhere:READER"
shapeless = "evalsig_broken:NOT_A_READER"
csv = "evalsig_broken:FakeCsv"
crash = "evalsig_broken:make_reader"

[project.entry-points."evalsig.methods"]
paired-t = "evalsig_broken:paired_t"
nothing = "evalsig_broken:NOT_A_TEST"

[project.entry-points."evalsig.audit_methods"]
mcnemar = "evalsig_broken:mcnemar"

[project.entry-points."evalsig.report_sections"]
comparison = "evalsig_broken:HIJACK"
odd = "evalsig_broken:ODD"
"""

BROKEN = {
    "gone": "ModuleNotFoundError: No module named 'evalsig_nowhere'",
    "shapeless": "it names int 42, not a reader",
    "csv": "its reader is named 'csv', the name of a built-in format, which is kept",
    "crash": "RuntimeError: the factory failed.",
    "paired-t": "'paired-t' is a built-in method of compare",
    "nothing": "it names str 'paired-t', not a PairedTest or a test function.",
    "mcnemar": "its method is named 'mcnemar', as a built-in method, which is kept",
    "comparison": "results of kind 'comparison' have a view already, which is kept.",
    "odd": "it names tuple ('odd-kind',), not a (kind, build) pair",
}
"""Each broken entry point, and the error its warning must give."""


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The good plugin, and a broken one beside it."""
    root = tmp_path_factory.mktemp("broken")
    good = _good(root)
    site = root / "broken-site"
    install(site, BROKEN_PYPROJECT, {"evalsig_broken.py": BROKEN_MODULE})
    rows = "\n".join(f"q{i},{s}" for i, s in enumerate([1, 0, 1, 1, 0, 1, 0, 1]))
    (good.work / "a.csv").write_text(f"item,score\n{rows}\n", encoding="utf-8")
    rows = "\n".join(f"q{i},{s}" for i, s in enumerate([1, 1, 1, 1, 0, 1, 1, 1]))
    (good.work / "b.csv").write_text(f"item,score\n{rows}\n", encoding="utf-8")
    return Installed(good.work, (*good.sites, site))


# --- the example plugin ---------------------------------------------------------------------


def _runs(text: str) -> dict[str, list[float]]:
    """A plain-loop reading of a quizlog file: item -> its scores, in run order."""
    scores: dict[str, list[float]] = {}
    for line in text.splitlines()[1:]:
        _, item, score, _ = line.split()
        scores.setdefault(item, []).append(float(score))
    return scores


def _differences() -> list[float]:
    files = guide_files()
    base, cand = _runs(files["base.quiz"]), _runs(files["candidate.quiz"])
    return [sum(cand[i]) / len(cand[i]) - sum(base[i]) / len(base[i]) for i in base]


def test_load_reads_the_plugin_format(plugin: Installed) -> None:
    found = plugin.python(
        """
import json, evalsig
from evalsig.data import describe
auto = evalsig.load("base.quiz")
named = evalsig.load("base.quiz", format="quizlog")
print(json.dumps({
    "means": auto.means.tolist(), "named": named.means.tolist(), "runs": auto.n_runs,
    "origin": [auto.origin.format, auto.origin.layout, auto.origin.model, auto.origin.task],
    "layouts": describe("candidate.quiz").layouts,
}))
"""
    )
    base = _runs(guide_files()["base.quiz"])
    assert found["means"] == found["named"] == [sum(s) / len(s) for s in base.values()]
    assert found["runs"] == 2
    assert found["origin"] == ["quizlog", "1.0", "base", "arith"]
    assert found["layouts"] == ["quizlog 1.0"]


def test_the_plugin_test_is_a_method_of_compare(plugin: Installed) -> None:
    found = plugin.python(
        """
import json, evalsig
r = evalsig.compare("base.quiz", "candidate.quiz", method="paired-z")
g = evalsig.compare("base.quiz", "candidate.quiz", method="paired-z", alternative="greater")
try:
    evalsig.compare("base.quiz", "candidate.quiz", method="paired-z", variant="exact")
except evalsig.DataError as exc:
    refused = str(exc)
print(json.dumps({
    "two": [r.method, r.estimate, r.se, r.statistic, r.pvalue, r.ci.low, r.ci.high],
    "ci99": list(r.confidence_interval(0.99)),
    "greater": [g.pvalue, g.ci.low, g.ci.high],
    "reason": r.method_reason, "refused": refused,
}))
"""
    )
    d = _differences()
    n = len(d)
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
    z = mean / se
    method, estimate, se_found, statistic, pvalue, low, high = found["two"]
    assert method == "paired-z"
    assert estimate == pytest.approx(mean, rel=1e-12)
    assert se_found == pytest.approx(se, rel=1e-12)
    assert statistic == pytest.approx(z, rel=1e-12)
    assert pvalue == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9)  # 2 * (1 - Phi(z))
    assert [low, high] == pytest.approx(
        [mean - 1.959963984540054 * se, mean + 1.959963984540054 * se]
    )
    assert found["ci99"] == pytest.approx(
        [mean - 2.5758293035489 * se, mean + 2.5758293035489 * se]
    )
    p_greater, low_greater, high_greater = found["greater"]
    assert p_greater == pytest.approx(math.erfc(z / math.sqrt(2)) / 2, rel=1e-9)
    assert low_greater == pytest.approx(mean - 1.6448536269514722 * se)
    assert high_greater is None or math.isinf(high_greater)
    assert found["reason"] == (
        "requested: large-sample z-test on per-item differences (from evalsig-quizlog 0.1.0)"
    )
    assert found["refused"] == (
        "method 'paired-z' has no variant 'exact'; its variants are: none (pass variant=None)."
    )


def test_the_plugin_method_audits_and_the_view_renders_escaped(plugin: Installed) -> None:
    found = plugin.python(
        """
import json, evalsig_quizlog
from evalsig.audit import audit, available_methods, get_method
from evalsig.report.html import page
method = get_method("first-run-z")
checked = audit(methods=["first-run-z"], n_simulations=5, rng=3)
summary = evalsig_quizlog.summary("base.quiz")
summary["model"] = "<script>alert(1)</script>"
summary["tasks"][0]["task"] = "a<b"
html = page([summary])
print(json.dumps({
    "method": [method.category, method.definition, "first-run-z" in available_methods()],
    "rows": checked.method("first-run-z").intervals.shape,
    "heading": "<h2>quizlog summary: &lt;script&gt;alert(1)&lt;/script&gt;</h2>" in html,
    "raw": "<script>alert" in html, "cell": "<td>a&lt;b</td>" in html,
    "row": "<td>6</td><td>2</td><td>50.0%</td>" in html,
}))
"""
    )
    assert found["method"] == [
        "custom",
        "Paired z on the first run of each model only: mean(d) +/- z sd(d) / sqrt(n).",
        True,
    ]
    assert found["rows"] == [5, 2, 3]
    assert found["heading"]
    assert found["cell"]
    assert found["row"]
    assert not found["raw"]


def test_compare_on_the_command_line_reads_the_plugin_format(plugin: Installed) -> None:
    d = _differences()
    for extra in ([], ["--input-format", "quizlog"]):
        done = plugin.evalsig("compare", "base.quiz", "candidate.quiz", "--format", "json", *extra)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["estimate"] == pytest.approx(sum(d) / len(d), rel=1e-12)
        assert result["method"] == "paired-t-adjusted"
        assert result["provenance"]["inputs"]["candidate"]["format"] == "quizlog"
    assert done.stderr == ""
    (plugin.work / "bad.quiz").write_text("quizlog 1.0\narith q1 1\narith q2 one\n")
    bad = plugin.evalsig("compare", "bad.quiz", "base.quiz")
    assert bad.returncode == 4
    assert bad.stderr == "evalsig: error: bad.quiz: line 3: the score 'one' is not a number.\n"


def test_input_format_accepts_a_plugin_name_and_help_lists_the_builtins(
    plugin: Installed,
) -> None:
    from evalsig.cli.options import INPUT_FORMATS

    shown = " ".join(plugin.evalsig("compare", "--help").stdout.split())
    assert f"--input-format <{'|'.join(INPUT_FORMATS)}>" in shown
    assert "quizlog" not in shown
    wrong = plugin.evalsig("compare", "base.quiz", "candidate.quiz", "--input-format", "quiz")
    assert wrong.returncode == 2
    assert "'quiz' is not one of 'auto', 'lm-eval'" in wrong.stderr
    assert "'parquet', 'quizlog'." in " ".join(wrong.stderr.split())


def test_plugin_readers_come_after_the_harness_readers_before_the_tables(
    plugin: Installed,
) -> None:
    found = plugin.python(
        """
import json
from evalsig.data.readers import BUILTIN, READERS, TABLES, load_plugins
first, again = load_plugins(), load_plugins()
print(json.dumps({"names": list(READERS), "tables": TABLES, "once": first is again,
                  "builtin": sorted(BUILTIN)}))
"""
    )
    names = found["names"]
    at = names.index("quizlog")
    assert names[at + 1 :] == found["tables"]
    assert set(names[:at]) == set(found["builtin"]) - set(found["tables"])
    assert found["once"]


def test_start_up_loads_no_plugin(plugin: Installed) -> None:
    """``import evalsig``, ``import evalsig.cli`` and ``--help`` load no plugin; the first
    file read does (so the check can tell)."""
    found = plugin.python(
        """
import contextlib, io, json, sys
import evalsig, evalsig.cli
from evalsig.cli import main
for args in (["--help"], ["compare", "--help"], ["plugins", "--help"]):
    sys.argv = ["evalsig", *args]
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main()
        except SystemExit:
            pass
before = "evalsig_quizlog" in sys.modules
evalsig.load("base.quiz")
print(json.dumps([before, "evalsig_quizlog" in sys.modules]))
"""
    )
    assert found == [False, True]


def test_plugins_lists_what_each_plugin_adds(plugin: Installed) -> None:
    done = plugin.evalsig("plugins", "--format", "json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert list(listed) == [
        "evalsig.readers",
        "evalsig.methods",
        "evalsig.audit_methods",
        "evalsig.report_sections",
    ]
    assert [
        (p["name"], p["provides"], p["distribution"], p["version"], p["loaded"], p["error"])
        for group in listed.values()
        for p in group
    ] == [
        ("quizlog", "reader 'quizlog'", "evalsig-quizlog", "0.1.0", True, ""),
        ("paired-z", "paired test 'paired-z'", "evalsig-quizlog", "0.1.0", True, ""),
        ("first-run-z", "audit method 'first-run-z'", "evalsig-quizlog", "0.1.0", True, ""),
        (
            "quizlog-summary",
            "report section 'quizlog-summary'",
            "evalsig-quizlog",
            "0.1.0",
            True,
            "",
        ),
    ]


# --- the guide's own examples, run with the plugin installed ---------------------------------


def _here(language: str) -> list[Block]:
    return [
        b
        for b in guide_blocks()
        if b.language == language and RUN_HERE in b.directives.get("skip", "")
    ]


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """``(command, lines it must print)`` of each ``$`` line of a console block."""
    commands: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif line.strip() and line.strip() != "...":
            commands[-1][1].append(line)
    return commands


def test_the_guides_commands_run_as_shown(plugin: Installed) -> None:
    blocks = _here("console")
    assert len(blocks) == 2
    ran = 0
    for block in blocks:
        for command, shown in _commands(block.text):
            argv = shlex.split(command)
            if argv[0] == "pip":  # the install step: done by the fixture
                assert shown == []
                continue
            assert argv[0] == "evalsig", command
            done = plugin.evalsig(*argv[1:])
            assert done.returncode == 0, (command, done.stderr)
            printed = " ".join((done.stdout + done.stderr).split())
            for line in shown:
                assert " ".join(line.split()) in printed, (command, line, printed)
            ran += 1
    assert ran == 3


RUN_DOCTEST = """
import doctest, json, sys
text = open(sys.argv[1], encoding="utf-8").read()
test = doctest.DocTestParser().get_doctest(text, {}, "plugins guide", sys.argv[1], 0)
report = []
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
result = runner.run(test, out=report.append)
print(json.dumps([result.attempted, result.failed, "".join(report)]))
"""


def test_the_guides_python_example_runs_as_shown(plugin: Installed, tmp_path: Path) -> None:
    (block,) = _here("pycon")
    example = tmp_path / "example.txt"
    example.write_text(block.text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", RUN_DOCTEST, str(example)],
        cwd=plugin.work,
        env=plugin.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    attempted, failed, report = json.loads(done.stdout.splitlines()[-1])
    assert attempted >= 10
    assert failed == 0, report


# --- a broken plugin ---------------------------------------------------------------------------


def test_a_broken_plugin_warns_and_the_builtins_keep_working(broken: Installed) -> None:
    found = broken.python(
        """
import json, warnings
import evalsig
import evalsig_quizlog
from evalsig.audit import get_method
from evalsig.report.html import page
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    table = evalsig.load("a.csv")
    builtin = evalsig.compare("a.csv", "b.csv", method="paired-t")
    plugin = evalsig.compare("base.quiz", "candidate.quiz", method="paired-z")
    audit = get_method("mcnemar").category, get_method("first-run-z").category
    html = page([evalsig_quizlog.summary("base.quiz"), builtin.to_dict()])
    quiz = evalsig.load("base.quiz").origin.format
print(json.dumps({
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    "csv": table.origin.format, "methods": [builtin.method, plugin.method],
    "audit": audit, "quiz": quiz,
    "page": ["quizlog summary: base" in html, "candidate - baseline" in html, "HIJACKED" in html],
}))
"""
    )
    assert found["csv"] == "csv"
    assert found["methods"] == ["paired-t", "paired-z"]
    assert found["audit"] == ["honest", "custom"]
    assert found["page"] == [True, True, False]
    assert found["quiz"] == "quizlog"
    warned = found["warnings"]
    assert {category for category, _ in warned} == {"PluginWarning"}
    assert len(warned) == len(BROKEN)
    for name, error in BROKEN.items():
        (message,) = [m for _, m in warned if f"(entry point {name} = " in m]
        assert message.startswith(f"evalsig: plugin {name!r} of evalsig-broken 0.1 ")
        assert error in message, message
        assert message.endswith("evalsig works on without it; fix or uninstall evalsig-broken.")


def test_a_broken_plugin_is_a_warning_on_the_command_line(broken: Installed) -> None:
    done = broken.evalsig("compare", "a.csv", "b.csv", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["method"] == "mcnemar-score-cc"
    for name in ("gone", "shapeless", "csv", "crash"):  # the readers: a file was read
        assert f"evalsig: plugin {name!r} of evalsig-broken 0.1" in done.stderr
    assert "PluginWarning" in done.stderr
    assert "Traceback" not in done.stderr


def test_plugins_lists_the_skipped_with_the_reason(broken: Installed) -> None:
    done = broken.evalsig("plugins")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the listing gives the reasons; no warning besides
    text = " ".join(done.stdout.split())
    assert (
        "gone: SKIPPED, evalsig-broken 0.1 (evalsig_nowhere:READER): ModuleNotFoundError: "
        "No module named 'evalsig_nowhere'."
    ) in text
    assert "quizlog: reader 'quizlog', from evalsig-quizlog 0.1.0" in text
    assert text.count("SKIPPED") == len(BROKEN)


# --- a plugin whose code fails once loaded -----------------------------------------------------

HOSTILE_MODULE = '''
"""A plugin that loads cleanly, and whose code then raises, exits or returns nonsense."""

import math
import sys

from evalsig.plugins import inference_result


class SniffCrash:
    name = "sniffcrash"

    def sniff(self, path, head):
        raise RuntimeError("sniff exploded")

    def read(self, path, options, out):
        raise RuntimeError("never read")


class SniffExit:
    name = "sniffexit"

    def sniff(self, path, head):
        sys.exit(3)

    def read(self, path, options, out):
        raise RuntimeError("never read")


class ReadCrash:
    name = "readcrash"

    def sniff(self, path, head):
        return head.startswith(b"readcrash")

    def read(self, path, options, out):
        raise KeyError("column-x")


class ReadExit:
    name = "readexit"

    def sniff(self, path, head):
        return head.startswith(b"readexit")

    def read(self, path, options, out):
        sys.exit(0)


def _result(estimate, pvalue, alternative, confidence_level, interval=None):
    return inference_result(
        method="hostile", estimand="mean difference", estimate=estimate, se=0.1,
        statistic=1.0, statistic_name="z", df=None, pvalue=pvalue, alternative=alternative,
        confidence_level=confidence_level,
        interval=interval or (lambda level, side: (estimate - 0.2, estimate + 0.2)),
    )


def seven(d, *, variant, alternative, confidence_level, n_resamples, rng):
    return _result(float(d.mean()), 7.0, alternative, confidence_level)


def nan_estimate(d, *, variant, alternative, confidence_level, n_resamples, rng):
    return _result(math.nan, 0.5, alternative, confidence_level)


def crash_test(d, *, variant, alternative, confidence_level, n_resamples, rng):
    raise ZeroDivisionError("division by zero in the plugin")


def exit_test(d, *, variant, alternative, confidence_level, n_resamples, rng):
    sys.exit(0)


def fragile_interval(d, *, variant, alternative, confidence_level, n_resamples, rng):
    def interval(level, side):
        if level != confidence_level:
            raise ValueError("only one level")
        return -0.1, 0.3
    return _result(0.1, 0.2, alternative, confidence_level, interval)


def audit_crash(data, rng):
    raise RuntimeError("audit exploded")


def audit_exit(data, rng):
    sys.exit(5)


def audit_seven(data, rng):
    return 7.0, 6.0, 8.0


def exit_view(result):
    sys.exit(1)


def headless_view(result):
    return "table", {"lead": "", "plot": None, "header": ("a",), "rows": [], "notes": []}


EXIT_VIEW = ("exit-kind", exit_view)
HEADLESS_VIEW = ("headless-kind", headless_view)
'''

EXITS_ON_IMPORT = "import sys\nsys.exit(2)\n"

HOSTILE_PYPROJECT = """
[project]
name = "evalsig-hostile"
version = "0.1"

[project.entry-points."evalsig.readers"]
sniffcrash = "evalsig_hostile:SniffCrash"
sniffexit = "evalsig_hostile:SniffExit"
readcrash = "evalsig_hostile:ReadCrash"
readexit = "evalsig_hostile:ReadExit"
leaves = "evalsig_leaves:READER"

[project.entry-points."evalsig.methods"]
seven = "evalsig_hostile:seven"
nan-estimate = "evalsig_hostile:nan_estimate"
crash-test = "evalsig_hostile:crash_test"
exit-test = "evalsig_hostile:exit_test"
fragile-interval = "evalsig_hostile:fragile_interval"

[project.entry-points."evalsig.audit_methods"]
audit-crash = "evalsig_hostile:audit_crash"
audit-exit = "evalsig_hostile:audit_exit"
audit-seven = "evalsig_hostile:audit_seven"

[project.entry-points."evalsig.report_sections"]
exit-kind = "evalsig_hostile:EXIT_VIEW"
headless-kind = "evalsig_hostile:HEADLESS_VIEW"
"""

HOSTILE = "plugin {name!r} of evalsig-hostile 0.1 (entry point {name} = evalsig_hostile:"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The good plugin, and one whose code fails once it is loaded."""
    root = tmp_path_factory.mktemp("hostile")
    good = _good(root)
    site = root / "hostile-site"
    install(
        site,
        HOSTILE_PYPROJECT,
        {"evalsig_hostile.py": HOSTILE_MODULE, "evalsig_leaves.py": EXITS_ON_IMPORT},
    )
    for name, scores in (("a", [1, 0, 1, 1, 0, 1, 0, 1]), ("b", [1, 1, 1, 1, 0, 1, 1, 1])):
        rows = "".join(f"q{i},{s}\n" for i, s in enumerate(scores))
        (good.work / f"{name}.csv").write_text(f"item,score\n{rows}", encoding="utf-8")
    (good.work / "x.crash").write_text("readcrash 1\nq1 1\n", encoding="utf-8")
    (good.work / "x.exit").write_text("readexit 1\nq1 1\n", encoding="utf-8")
    return Installed(good.work, (*good.sites, site))


def _errors(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("evalsig: error:")]


def test_a_failing_sniff_means_not_mine_with_one_warning(hostile: Installed) -> None:
    """A sniff that raises or calls sys.exit is passed over: the files are read by the
    built-in readers, with one PluginWarning per failing sniff however many files."""
    done = hostile.evalsig("compare", "a.csv", "b.csv", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["method"] == "mcnemar-score-cc"
    assert _errors(done.stderr) == []
    for name, why in (
        ("sniffcrash", "RuntimeError: sniff exploded."),
        ("sniffexit", "it called sys.exit(3)."),
    ):
        start = "evalsig: " + HOSTILE.format(name=name)
        (line,) = [ln for ln in done.stderr.splitlines() if start in ln]
        assert f"the sniff(path, head) of its reader {name!r} failed" in line
        assert why in line
        assert line.endswith("evalsig works on without it; fix or uninstall evalsig-hostile.")
    # a module that calls sys.exit on import is skipped like any plugin that fails to load
    assert "plugin 'leaves' of evalsig-hostile 0.1" in done.stderr
    assert "was skipped: it called sys.exit(2)." in done.stderr


@pytest.mark.parametrize(
    ("file", "name", "why"),
    [("x.crash", "readcrash", "KeyError: 'column-x'."), ("x.exit", "readexit", "sys.exit(0)")],
)
def test_a_failing_read_is_one_data_error_naming_the_plugin(
    hostile: Installed, file: str, name: str, why: str
) -> None:
    done = hostile.evalsig("compare", file, "b.csv")
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert done.stdout == ""
    (line,) = _errors(done.stderr)
    assert line.startswith(f"evalsig: error: {file}: reading it with the reader {name!r} of ")
    assert HOSTILE.format(name=name) in line
    assert why in line
    assert line.endswith("(--input-format / format=).")


def test_a_plugin_test_out_of_range_or_failing_is_an_error_naming_it(hostile: Installed) -> None:
    found = hostile.python(
        """
import json, evalsig
out = {}
for method in ("seven", "nan-estimate", "crash-test", "exit-test"):
    try:
        evalsig.compare("a.csv", "b.csv", method=method)
        out[method] = "no error"
    except evalsig.EvalsigError as exc:
        out[method] = [type(exc).__name__, str(exc)]
r = evalsig.compare("a.csv", "b.csv", method="fragile-interval")
out["level"] = list(r.confidence_interval(0.95))
try:
    r.confidence_interval(0.99)
except evalsig.EvalsigError as exc:
    out["other level"] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""
    )
    origin = "(from evalsig-hostile 0.1)"
    expected = {
        "seven": "returned the p-value 7.0 (a p-value lies in [0, 1], or NaN)",
        "nan-estimate": "returned the estimate nan (a difference is a finite number)",
        "crash-test": "failed: ZeroDivisionError: division by zero in the plugin.",
        "exit-test": "failed: it called sys.exit(0).",
    }
    for method, fragment in expected.items():
        kind, message = found[method]
        assert kind == "PluginError"
        assert message.startswith(f"test {method!r} {origin} "), message
        assert fragment in message, message
    assert found["level"] == pytest.approx([-0.1, 0.3])
    kind, message = found["other level"]
    assert kind == "PluginError"
    assert message.startswith(f"the interval of test 'fragile-interval' {origin} at level 0.99")
    assert "ValueError: only one level." in message


def test_a_plugin_test_that_exits_is_a_data_error_on_the_command_line(
    hostile: Installed,
) -> None:
    """sys.exit(0) inside a plugin's test must not end evalsig with success and no output."""
    done = hostile.evalsig("compare", "a.csv", "b.csv", "--method", "exit-test")
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert done.stdout == ""
    (line,) = _errors(done.stderr)
    assert "test 'exit-test' (from evalsig-hostile 0.1) failed: it called sys.exit(0)." in line
    seven = hostile.evalsig("compare", "a.csv", "b.csv", "--method", "seven")
    assert seven.returncode == 4, (seven.stdout, seven.stderr)
    (line,) = _errors(seven.stderr)
    assert "test 'seven' (from evalsig-hostile 0.1) returned the p-value 7.0" in line


def test_a_plugin_audit_method_failing_or_out_of_range_is_an_error_naming_it(
    hostile: Installed,
) -> None:
    found = hostile.python(
        """
import json
from evalsig.audit import audit
from evalsig.errors import EvalsigError
out = {}
for method in ("audit-crash", "audit-exit", "audit-seven"):
    try:
        audit(methods=[method], n_simulations=2, rng=1)
        out[method] = "no error"
    except EvalsigError as exc:
        out[method] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""
    )
    named = "audit method {!r} (from evalsig-hostile 0.1)"
    assert found["audit-crash"] == [
        "PluginError",
        f"{named.format('audit-crash')} failed: RuntimeError: audit exploded. Fix the method, "
        "or audit other methods (or uninstall the plugin).",
    ]
    kind, message = found["audit-exit"]
    assert (kind, message.split(" failed: ")[1][:22]) == ("PluginError", "it called sys.exit(5).")
    kind, message = found["audit-seven"]
    assert kind == "DataError"
    assert message.startswith(f"{named.format('audit-seven')} returned the estimate 7.0, outside")


def test_a_plugin_view_that_exits_or_lacks_a_heading_shows_the_json(hostile: Installed) -> None:
    found = hostile.python(
        """
import json, warnings
from evalsig.report.html import page
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    html = page([{"kind": "exit-kind", "x": 1}, {"kind": "headless-kind", "y": 2}])
print(json.dumps({
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    "raw": [f"Result of kind &#39;{kind}&#39;" in html for kind in ("exit-kind", "headless-kind")],
}))
"""
    )
    assert found["raw"] == [True, True]
    warned = [m for kind, m in found["warnings"] if kind == "PluginWarning"]
    assert any("'exit-kind'" in m and "it called sys.exit(1)" in m for m in warned), warned
    assert any("'headless-kind'" in m and "failed (" in m for m in warned), warned


def test_plugins_lists_a_plugin_that_exits_on_import_as_skipped(hostile: Installed) -> None:
    done = hostile.evalsig("plugins")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert (
        "leaves: SKIPPED, evalsig-hostile 0.1 (evalsig_leaves:READER): it called sys.exit(2)."
        in text
    )
