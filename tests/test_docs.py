"""The documentation: every code example runs, and the site builds with warnings as errors.

Examples are the fenced blocks of ``docs/**/*.md`` (and the Python blocks of README.md):

* ``python`` blocks run in order, the blocks of a page sharing one namespace;
* ``pycon`` blocks (``>>>`` prompts) run as doctests in the same namespace, so the output
  they show is checked;
* ``console`` blocks run every ``$ evalsig ...`` line through the real command in a
  subprocess; each output line shown (``...`` lines aside) must appear in what the
  command printed (whitespace normalised, since the terminal may wrap), and the exit code
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

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
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
        done = subprocess.run(
            [sys.executable, "-m", "evalsig", *argv[1:]],
            cwd=workdir,
            capture_output=True,
            text=True,
            env=env,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        printed = done.stdout + done.stderr
        assert done.returncode == expected_code, (
            f"{block.label}: `{command}` exited with {done.returncode}, not "
            f"{expected_code}:\n{printed}"
        )
        everything = _normalise(printed)
        for line in shown:
            assert _normalise(line) in everything, (
                f"{block.label}: `{command}` did not print {line.strip()!r}; it printed:\n{printed}"
            )


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


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built with warnings as errors, as `make docs` builds it."""
    pytest.importorskip("mkdocs", reason="the docs group is missing: pip install --group docs")
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return folder


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
        html = page.removesuffix(".md").removesuffix("index").strip("/")
        assert (site / html / "index.html").is_file(), page


def test_cli_reference_shows_every_command(site: Path) -> None:
    """The CLI page is generated from the application: every command, with its options."""
    import typer.main

    from evalsig.cli import app

    root = typer.main.get_command(app)
    names = root.list_commands(typer.Context(root, info_name="evalsig"))
    page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for name in names:
        assert f'id="evalsig-{name}"' in page, name
        assert f"Usage: evalsig {name} [OPTIONS]" in page, name
    assert "--on-mismatch" in page
    assert "<!-- evalsig-cli-reference -->" not in page


def test_api_reference_renders_docstrings(site: Path) -> None:
    """Every public module has its page; Sphinx roles and math became links and math."""
    for page in (DOCS / "reference").glob("*.md"):
        html = (site / "reference" / page.stem / "index.html").read_text(encoding="utf-8")
        assert ":func:`" not in html, page.name
        assert ":math:`" not in html, page.name
    multiplicity = (site / "reference" / "inference.multiplicity" / "index.html").read_text(
        encoding="utf-8"
    )
    assert 'id="evalsig.inference.multiplicity.holm"' in multiplicity
    assert 'class="arithmatex"' in multiplicity
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "Unreleased" in changelog
