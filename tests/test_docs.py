"""The documentation: every code example runs, and the site builds with warnings as errors.

Examples are the fenced blocks of ``docs/**/*.md`` (and the Python blocks of README.md):

* ``python`` blocks run in order, the blocks of a page sharing one namespace;
* ``pycon`` blocks (``>>>`` prompts) run as doctests in the same namespace, so the output
  they show is checked;
* ``console`` blocks run every ``$ evalsig ...`` line through the console script's entry
  point, in the test's process (the interpreter's start-up is all that leaves out; the
  command line's own tests run it in subprocesses); each output line shown must be a
  whole line of what the command printed (or several, since the terminal may wrap;
  whitespace normalised), where ``...`` stands for any text (a date, a digest) and a line
  of ``...`` alone for lines left out, so that no line is shown cut off; the exit code
  must be 0 or the one the block declares.

Directives are HTML comments on the line right above a fence (invisible on the site):

* ``<!-- test: exit 3 -->``: the commands of the block exit with 3;
* ``<!-- test: file gate.yaml -->``: the block is written to that file (a policy, a table);
* ``<!-- test: needs ../shared/data/... -->``: skipped, with that reason, when the path
  (relative to the repository) is absent; later blocks of the page must not need it;
* ``<!-- test: skip REASON -->``: never run, for the stated reason (it installs
  packages, needs a Dask cluster, reads a stream that never ends).

Each page runs in its own temporary folder holding ``tests`` (a link to the test data),
``../shared`` (a link to the real data beside the repository) and the files ``evalsig
demo`` writes (``evalsig-demo/``). Shell fences (``sh``, ``bash``) are refused: an
example is either run or marked skipped with its reason.
"""

from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"
RUNNABLE = ("python", "pycon", "console")
SHELL = ("sh", "bash", "shell", "zsh")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<info>[^\s`]*)[^`]*$")
DIRECTIVE = re.compile(
    r"^\s*<!--\s*test:\s*(?P<key>exit|file|needs|skip)\s+(?P<value>.+?)\s*-->\s*$"
)
COMMAND_TIMEOUT = 180


@dataclass(frozen=True)
class Block:
    """One fenced block of a page, with the directives written above it."""

    page: Path
    line: int
    language: str
    text: str
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def skip_reason(self) -> str | None:
        """Why the block does not run here, or None."""
        if "skip" in self.directives:
            return self.directives["skip"]
        needed = self.directives.get("needs")
        if needed is not None and not (ROOT / needed).exists():
            return f"needs {needed}, which is absent (real data beside the repository)"
        return None


def parse_blocks(page: Path) -> list[Block]:
    """Every fenced block of a Markdown page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        directives: dict[str, str] = {}
        j = i - 1
        while j >= 0 and (found := DIRECTIVE.match(lines[j])) is not None:
            directives.setdefault(found["key"], found["value"])
            j -= 1
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[0] * len(fence)):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        start = i - len(body)
        blocks.append(Block(page, start, opening["info"].lower(), "\n".join(body), directives))
        i += 1
    return blocks


def doc_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def examples() -> list[Block]:
    """Every block that is an example: runnable, or written to a file for later blocks."""
    return [
        b
        for page in doc_pages()
        for b in parse_blocks(page)
        if b.language in RUNNABLE or "file" in b.directives
    ]


def _param(block: Block) -> Any:
    needed = block.directives.get("needs", "")
    marks = [pytest.mark.shared_data] if "shared" in needed else []
    return pytest.param(block, id=block.label, marks=marks)


# Running pages ---------------------------------------------------------------------------


def _normalise(text: str) -> str:
    return " ".join(text.split())


WRAPPED = 6
"""How many lines of output one shown line may span (the terminal wraps long lines)."""


def shows(printed: str, line: str) -> bool:
    """Whether ``line`` is a whole line of ``printed`` (or several wrapped ones), with
    whitespace normalised and ``...`` standing for any text."""
    parts = _normalise(line).split("...")
    pattern = re.compile(".*".join(re.escape(part.strip()) for part in parts))
    rows = [_normalise(row) for row in printed.splitlines()]
    rows = [row for row in rows if row]
    return any(
        pattern.fullmatch(" ".join(rows[start : start + span]))
        for start in range(len(rows))
        for span in range(1, WRAPPED + 1)
        if start + span <= len(rows)
    )


def console_commands(text: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` for each ``$`` line of a console block."""
    commands: list[tuple[str, list[str]]] = []
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + " " + next(lines).strip()
            commands.append((command, []))
        elif commands and line.strip() and line.strip() != "...":
            commands[-1][1].append(line)
        elif not commands and line.strip():
            raise AssertionError(f"console output before any '$ ' command: {line!r}")
    return commands


def run_console(block: Block, workdir: Path) -> None:
    """Run each command of a console block; check its exit code and the output shown."""
    expected_code = int(block.directives.get("exit", "0"))
    for command, shown in console_commands(block.text):
        argv = shlex.split(command)
        assert argv[0] == "evalsig", f"{block.label}: only evalsig commands run: {command!r}"
        code, printed = run_evalsig(argv[1:])
        assert code == expected_code, (
            f"{block.label}: `{command}` exited with {code}, not {expected_code}:\n{printed}"
        )
        for line in shown:
            assert shows(printed, line), (
                f"{block.label}: `{command}` did not print {line.strip()!r} as a whole line "
                f"(`...` stands for any text); it printed:\n{printed}"
            )


def run_evalsig(args: list[str]) -> tuple[int, str]:
    """The exit code and the output (stdout, then stderr) of ``evalsig ARGS`` run by the
    console script's entry point, :func:`evalsig.cli.application.main`, in this process (the
    interpreter's start-up is the one thing left out), on a 100-column terminal without
    colour. A Python warning that escapes the command fails it: commands say what the user
    should know in their notes."""
    from evalsig.cli.application import main

    runner = CliRunner(env={"NO_COLOR": "1", "COLUMNS": "100"})
    with (
        runner.isolation() as (stdout, stderr, _),
        mock.patch.object(sys, "argv", ["evalsig", *args]),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("error")
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        sys.stdout.flush()
        sys.stderr.flush()
        printed = stdout.getvalue() + stderr.getvalue()
    return code, printed.decode("utf-8", "replace")


def run_doctest(block: Block, namespace: dict[str, Any]) -> None:
    """Run a ``pycon`` block as a doctest in the page's namespace; report any mismatch."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.text, {}, block.label, str(block.page), block.line)
    test.globs = namespace  # get_doctest copies the globals; the page shares one namespace
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    report = io.StringIO()
    result = runner.run(test, out=report.write, clear_globs=False)
    assert result.failed == 0, f"{block.label}:\n{report.getvalue()}"


def run_block(block: Block, namespace: dict[str, Any], workdir: Path) -> None:
    if "file" in block.directives:
        (workdir / block.directives["file"]).write_text(block.text + "\n", encoding="utf-8")
    elif block.language == "python":
        exec(compile(block.text, block.label, "exec"), namespace)
    elif block.language == "pycon":
        run_doctest(block, namespace)
    elif block.language == "console":
        run_console(block, workdir)


@dataclass
class PageRun:
    """A page's examples run in order in one folder and namespace, each at most once."""

    workdir: Path
    namespace: dict[str, Any] = field(default_factory=lambda: {"__name__": "__docs__"})
    done: dict[int, str | None] = field(default_factory=dict)
    """Line of each block run -> None (it passed) or why it failed."""

    def run_until(self, blocks: list[Block], target: Block) -> None:
        """Run the page's blocks before ``target`` that have not run yet, then ``target``.

        A failure of an earlier block is reported by that block's own test; ``target``
        still runs, and its failure message names the earlier failures.
        """
        for block in blocks[: blocks.index(target) + 1]:
            if block.line in self.done or (block is not target and block.skip_reason()):
                continue
            try:
                with _chdir(self.workdir):
                    run_block(block, self.namespace, self.workdir)
            except Exception as exc:
                self.done[block.line] = f"{block.label}: {exc!r}"
                if block is target:
                    earlier = [f for line, f in self.done.items() if f and line != block.line]
                    if earlier:
                        exc.add_note("earlier examples of the page failed: " + "; ".join(earlier))
                    raise
            else:
                self.done[block.line] = None


class _chdir:
    def __init__(self, path: Path) -> None:
        self.path, self.previous = path, Path.cwd()

    def __enter__(self) -> None:
        os.chdir(self.path)

    def __exit__(self, *exc: object) -> None:
        os.chdir(self.previous)


@pytest.fixture(scope="session")
def demo_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files ``evalsig demo`` writes (three models' runs on 4,000 simulated items)."""
    folder = tmp_path_factory.mktemp("demo") / "evalsig-demo"
    subprocess.run(
        [sys.executable, "-m", "evalsig", "demo", "--dir", str(folder)],
        capture_output=True,
        check=True,
        timeout=COMMAND_TIMEOUT,
    )
    return folder


_RUNS: dict[Path, PageRun] = {}
"""One run per page for the whole session, so that blocks share their page's namespace."""


def page_run(page: Path, tmp_path_factory: pytest.TempPathFactory, demo: Path) -> PageRun:
    """The page's run: its folder (test data, real data and demo files) and namespace."""
    if page not in _RUNS:
        top = tmp_path_factory.mktemp(page.stem)
        workdir = top / "work"
        workdir.mkdir()
        (workdir / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
        if SHARED.is_dir():
            (top / "shared").symlink_to(SHARED, target_is_directory=True)
        shutil.copytree(demo, workdir / "evalsig-demo")
        _RUNS[page] = PageRun(workdir)
    return _RUNS[page]


EXAMPLES = examples()


@pytest.mark.parametrize("block", [_param(b) for b in EXAMPLES])
def test_example_runs(
    block: Block, tmp_path_factory: pytest.TempPathFactory, demo_files: Path
) -> None:
    """Each example of the documentation runs (after the page's earlier examples)."""
    reason = block.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    run = page_run(block.page, tmp_path_factory, demo_files)
    run.run_until([b for b in EXAMPLES if b.page == block.page], block)


# README.md -------------------------------------------------------------------------------

README = ROOT / "README.md"


def readme_stand_ins() -> dict[str, Any]:
    """The user data README examples name but do not define: simulated stand-ins."""
    from evalsig.simulate import simulate_benchmark

    bench = simulate_benchmark(n_items=4000, n_runs=8, uplift=0.01, rng=1)
    stream = simulate_benchmark(n_items=400, n_runs=1, uplift=0.05, rng=2)
    return {
        "__name__": "__readme__",
        "baseline_scores": bench.baseline,
        "candidate_scores": bench.candidate,
        "baseline_batch": stream.baseline[0],
        "candidate_batch": stream.candidate[0],
        "scores_by_model": {
            "base": bench.baseline.mean(axis=0),
            "tuned": bench.candidate.mean(axis=0),
            "other": stream.candidate[0][:1].repeat(4000),
        },
        "estimates": [81.2, 79.9, 83.0],
        "variances": [1.2, 0.8, 1.5],
    }


def test_readme_python_examples_run() -> None:
    """README's Python blocks run in order, with simulated data where they name the user's."""
    blocks = [b for b in parse_blocks(README) if b.language == "python"]
    assert len(blocks) >= 4
    namespace = readme_stand_ins()
    for block in blocks:
        exec(compile(block.text, block.label, "exec"), namespace)
    assert namespace["result"].method == "paired-t"
    assert namespace["adj"].p_adjusted.round(8).tolist() == [0.04, 0.12, 0.12, 0.2]


# The examples themselves -------------------------------------------------------------------


def test_examples_are_found_and_runnable() -> None:
    """The extraction finds the examples (so the tests above cannot pass vacuously), and
    no page hides a command in a shell fence that would never run."""
    by_language = {lang: sum(b.language == lang for b in EXAMPLES) for lang in RUNNABLE}
    assert by_language["python"] >= 10
    assert by_language["pycon"] >= 30
    assert by_language["console"] >= 40
    shell = [b.label for page in doc_pages() for b in parse_blocks(page) if b.language in SHELL]
    assert shell == [], f"shell fences never run; use console with '$ ' prompts: {shell}"
    unreasoned = [b.label for b in EXAMPLES if b.directives.get("skip", "x").strip() == ""]
    assert unreasoned == []


def test_console_parser_reads_commands_and_output() -> None:
    text = "$ evalsig compare a.csv \\\n    b.csv --one-sided\nline one\n...\n$ evalsig inspect c\n"
    assert console_commands(text) == [
        ("evalsig compare a.csv  b.csv --one-sided", ["line one"]),
        ("evalsig inspect c", []),
    ]


# The site ----------------------------------------------------------------------------------


SITE_BUILD = ["mkdocs", "build", "--strict"]
"""How `make docs` and `make test` build the site (with --site-dir); never --quiet, under
which mkdocs neither shows warnings nor counts them against --strict."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The site built with warnings as errors, as `make docs` builds it, and what the build
    printed: the build `make test` made just before the tests (``EVALSIG_BUILT_SITE`` names
    its folder, which holds its output as ``build.log``), or one made here."""
    given = os.environ.get("EVALSIG_BUILT_SITE")
    if given:
        folder = ROOT / given
        log = folder / "build.log"
        assert (folder / "index.html").is_file(), f"no site built in {folder}"
        assert log.is_file(), f"no build log in {folder}"
        return folder, log.read_text(encoding="utf-8")
    pytest.importorskip("mkdocs", reason="the docs group is missing: pip install --group docs")
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", *SITE_BUILD, "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
        check=False,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{printed}"
    return folder, printed


@pytest.fixture(scope="module")
def site(built: tuple[Path, str]) -> Path:
    return built[0]


def _html(site: Path, page: str) -> str:
    """The built page of ``page`` (a path under docs/, such as ``guides/gate.md``)."""
    return (site / page).with_suffix(".html").read_text(encoding="utf-8")


def _pages(site: Path) -> dict[str, str]:
    return {
        str(path.relative_to(site)): path.read_text(encoding="utf-8")
        for path in sorted(site.rglob("*.html"))
    }


def test_the_build_prints_no_warning(built: tuple[Path, str]) -> None:
    """--strict fails on a warning only if warnings are shown; the build shows none."""
    lines = [line for line in built[1].splitlines() if not line.startswith("INFO")]
    assert [line for line in lines if line.strip()] == []


def test_make_builds_the_docs_strictly_and_shows_its_warnings() -> None:
    """`make docs` and the docs step of `make test` build with --strict and without
    --quiet (which would hide warnings and so let the build pass), and keep every line
    but the INFO ones."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    variables = dict(re.findall(r"^(\w+)\s*:=\s*(.*)$", makefile, flags=re.MULTILINE))
    rule = re.compile(r"^([\w.$()/-]+):[^\n=]*\n((?:\t.*\n?)*)", flags=re.MULTILINE)
    targets = dict(rule.findall(makefile))
    for target in ("docs", "test"):
        recipe = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], m[0]), targets[target])
        builds = [line for line in recipe.splitlines() if "mkdocs build" in line]
        assert builds, f"`make {target}` builds the docs"
        for line in builds:
            assert "--strict" in line, line
            assert not re.search(r"(?<!\S)(--quiet|-q)(?!\S)", line), line
            assert "/dev/null" not in line, line
        assert "grep -v '^INFO'" in recipe or target == "docs", recipe


def _nav_pages(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for entry in nav:
            yield from _nav_pages(entry)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_pages(value)


def test_every_page_is_in_the_navigation_and_built(site: Path) -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = set(_nav_pages(config["nav"]))
    assert pages == {str(p.relative_to(DOCS)) for p in doc_pages()}
    for page in pages:
        assert (site / page).with_suffix(".html").is_file(), page


def test_cli_reference_shows_every_command(site: Path) -> None:
    """The CLI page is generated from the application: every command, with its options."""
    import typer.main

    from evalsig.cli import app

    root = typer.main.get_command(app)
    names = root.list_commands(typer.Context(root, info_name="evalsig"))
    page = _html(site, "cli.md")
    for name in names:
        assert f'id="evalsig-{name}"' in page, name
        assert f"Usage: evalsig {name} [OPTIONS]" in page, name
    assert "--on-mismatch" in page
    assert "<!-- evalsig-cli-reference -->" not in page


def test_cli_reference_states_the_exit_codes_of_the_code(site: Path) -> None:
    """The exit codes on the CLI page are `evalsig.cli.application.EXIT_CODES`, row by row."""
    import html

    from evalsig.cli.application import EXIT_CODES, EXIT_DATA_ERROR

    page = _html(site, "cli.md")
    rows = re.findall(r"<tr>\s*<td>(\d+)</td>\s*<td>(.*?)</td>\s*</tr>", page, flags=re.DOTALL)
    stated = {int(code): html.unescape(re.sub(r"<[^>]+>", "", what)) for code, what in rows}
    assert stated == EXIT_CODES
    assert stated[EXIT_DATA_ERROR].startswith("data error")
    assert "1 a data error" not in page


def test_api_reference_renders_docstrings(site: Path) -> None:
    """Every public module has its page; Sphinx roles and math became links and math."""
    for page in (DOCS / "reference").glob("*.md"):
        html = _html(site, f"reference/{page.name}")
        assert ":func:`" not in html, page.name
        assert ":math:`" not in html, page.name
    multiplicity = _html(site, "reference/inference.multiplicity.md")
    assert 'id="evalsig.inference.multiplicity.holm"' in multiplicity
    assert "<math " in multiplicity
    changelog = _html(site, "changelog.md")
    assert "Unreleased" in changelog


def test_doctests_render_as_code_not_as_nested_quotes(site: Path) -> None:
    """``>>>`` in Markdown starts three nested quotes: every doctest, in an Examples
    section or in the text of a docstring, is a code block."""
    quoted = [
        name
        for name, page in _pages(site).items()
        for quote in re.findall(r"<blockquote>(.*?)</blockquote>", page, flags=re.DOTALL)
        if "&gt;&gt;&gt;" in quote or "<blockquote>" in quote
    ]
    assert quoted == []
    power = _html(site, "reference/power.md")
    code = re.findall(r"<code>(.*?)</code>", power, flags=re.DOTALL)
    assert any("cohens_h" in block and "0.1120819295" in block for block in code), "in the text"


EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.IGNORECASE
)


def test_pages_load_nothing_from_the_network(site: Path) -> None:
    """No script, stylesheet, font or image from another host: the site reads the same
    offline (links the reader follows are fine)."""
    loaded = {
        name: EXTERNAL.findall(page) for name, page in _pages(site).items() if EXTERNAL.search(page)
    }
    assert loaded == {}
    styles = {
        str(path.relative_to(site))
        for path in site.rglob("*.css")
        if re.search(r"@import\s+url\(\s*[\"']?https?:", path.read_text(encoding="utf-8"))
    }
    assert styles == set()


def test_math_is_drawn_when_the_site_is_built(site: Path) -> None:
    """Formulas are MathML in the pages, not TeX for a script to typeset."""
    pages = _pages(site)
    raw = [name for name, page in pages.items() if 'class="arithmatex"' in page]
    assert raw == []
    assert sum(page.count("<math ") for page in pages.values()) > 300
    assert not any("mathjax" in page.lower() or "katex" in page.lower() for page in pages.values())
    noise = _html(site, "guides/noise.md")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in noise
    assert '<mrow class="overline">' in noise  # \overline{1/r_i}: a rule over the whole base


def test_search_works_from_the_file_system(site: Path) -> None:
    """Opened from ``file://``: links name files, the search index is a script, and the
    search worker's stand-in is the site's own, loaded before the theme's scripts."""
    index = _html(site, "index.md")
    assert (site / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var ")
    assert 'href="getting-started.html"' in index
    polyfill = index.index('<script src="javascripts/iframe-worker.js">')
    assert polyfill < index.index('src="assets/javascripts/bundle.')
    assert (site / "javascripts" / "iframe-worker.js").is_file()


def test_console_lines_are_whole_lines_of_the_output() -> None:
    """A console block shows whole lines: a cut-off line fails, ``...`` stands for text."""
    printed = (
        "INCONCLUSIVE: 2 of 3 tasks pass, 0 fail, 1 unresolved; the rule needs 3.\n"
        "registration: pre-registered on 2026-12-07T01:35:29+00:00; the policy is\n"
        "unchanged.\n"
        "  arc_easy:   adjusted p = 0.0844\n"
    )
    assert shows(
        printed, "INCONCLUSIVE: 2 of 3 tasks pass, 0 fail, 1 unresolved; the rule needs 3."
    )
    assert not shows(printed, "INCONCLUSIVE")
    assert not shows(printed, "registration: pre-registered on")
    assert not shows(printed, "the policy is unchanged.")
    assert shows(printed, "registration: pre-registered on ...; the policy is unchanged.")
    assert shows(printed, "arc_easy: adjusted p = 0.0844")
    assert shows(printed, "INCONCLUSIVE: ...")
    assert shows(printed, "INCONCLUSIVE: 2 of 3 tasks pass ...")  # "pass," in the output
    assert shows(printed, "... the rule needs 3.")
