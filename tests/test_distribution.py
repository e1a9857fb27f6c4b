"""The distribution is ``evalsig-stats``; the unrelated ``evalsig`` distribution is detected.

``evalsig`` on the package index is another project that writes the same ``evalsig/``
package folder and ``evalsig`` command. These tests install it as far as
``importlib.metadata`` can tell (an ``evalsig-0.1.2.dist-info`` folder, with the METADATA
and RECORD of its 0.1.2 wheel, in a folder on PYTHONPATH) and run ``python -m evalsig`` in a
fresh interpreter. For a regular install of ours, whose RECORD lists every file with its
hash, the package is copied into a folder with a ``.dist-info`` of ours written as a wheel
install writes it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest itself depends on tomli before Python 3.11
    import tomli as tomllib

from evalsig import _distribution

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "evalsig"
FIX = "pip uninstall evalsig, then pip install --force-reinstall evalsig-stats"

OTHER_METADATA = """\
Metadata-Version: 2.4
Name: evalsig
Version: 0.1.2
Summary: Statistical inference for LLM evaluations: paired tests, clustered SE, MDE, \
sequential testing, release gating.
Requires-Python: >=3.10
"""
"""The head of the other project's METADATA (evalsig 0.1.2 on the package index)."""

OTHER_FILES = (
    "evalsig/__init__.py",
    "evalsig/_version.py",
    "evalsig/cli/__init__.py",
    "evalsig/cli/main.py",
    "evalsig/inference/__init__.py",
    "evalsig/inference/multiplicity.py",
    "evalsig/integrations/__init__.py",
    "evalsig/store/__init__.py",
)
"""Files its wheel's RECORD lists that ours has too (and one, cli/main.py, that ours has not)."""


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def install_other(site: Path) -> Path:
    """The other ``evalsig`` 0.1.2's metadata in ``site`` (its files are not written)."""
    info = site / "evalsig-0.1.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(OTHER_METADATA, encoding="utf-8")
    record = [f"{name},{_record_hash(name.encode())},100" for name in OTHER_FILES]
    record += ["evalsig-0.1.2.dist-info/METADATA,,", "evalsig-0.1.2.dist-info/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[console_scripts]\nevalsig = evalsig.cli.main:main\n", encoding="utf-8"
    )
    return info


def install_ours(site: Path) -> Path:
    """This package copied into ``site`` with a ``.dist-info`` as a wheel install writes it:
    METADATA, and a RECORD holding every file's hash."""
    shutil.copytree(SRC, site / "evalsig", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "evalsig_stats-9.9.9.dist-info"
    info.mkdir()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.4\nName: {project['name']}\nVersion: 9.9.9\n"
        f"Summary: {project['description']}\n",
        encoding="utf-8",
    )
    record = [
        f"{path.relative_to(site).as_posix()},{_record_hash(path.read_bytes())},"
        f"{path.stat().st_size}"
        for path in sorted((site / "evalsig").rglob("*"))
        if path.is_file()
    ]
    record += [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
    return info


def evalsig(*args: str, site: Path | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    """``python -m evalsig ARGS`` in a fresh interpreter, with ``site`` first on its path."""
    env = {**os.environ, "NO_COLOR": "1"}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    done = subprocess.run(
        [sys.executable, "-m", "evalsig", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


POWER = ("power", "--p01", "0.1", "--p10", "0.05", "--format", "json")
"""A quick command that reads no file."""


# --- the name -------------------------------------------------------------------------------


def test_the_distribution_is_evalsig_stats_and_the_package_and_command_evalsig() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "evalsig-stats" == _distribution.DISTRIBUTION
    assert project["scripts"] == {"evalsig": "evalsig.cli:main"}
    # Inspect AI resolves `evalsig/mean_ci` by loading the entry point named like the
    # namespace, i.e. the import package, not the distribution.
    assert project["entry-points"]["inspect_ai"] == {"evalsig": "evalsig.integrations._registry"}
    extras = project["optional-dependencies"]
    self_references = [r for rs in extras.values() for r in rs if r.startswith("evalsig")]
    assert self_references, "the `all` and `pandas` extras name this distribution"
    assert all(r.startswith("evalsig-stats[") for r in self_references), self_references


def test_version_names_the_distribution() -> None:
    code, out, err = evalsig("--version")
    assert (code, err) == (0, "")
    assert re.fullmatch(r"evalsig \S+ \(evalsig-stats\)\n", out), out


# --- the other distribution installed beside this one -----------------------------------------


def test_version_names_the_other_distribution_and_the_fix(tmp_path: Path) -> None:
    install_other(tmp_path)
    code, out, err = evalsig("--version", site=tmp_path)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert re.fullmatch(r"evalsig \S+ \(evalsig-stats\)", lines[0]), out
    assert lines[1].startswith("warning: another distribution named `evalsig` (0.1.2, "), out
    assert "a different project" in lines[1]
    assert lines[1].endswith(f"To keep this one: {FIX}."), out
    assert lines[2].startswith("(`evalsig` 0.1.2 describes itself as: Statistical inference")


def test_every_command_warns_in_one_line_and_still_runs(tmp_path: Path) -> None:
    install_other(tmp_path)
    code, out, err = evalsig(*POWER, site=tmp_path)
    assert code == 0, err
    assert '"kind": "power"' in out
    warnings = [line for line in err.splitlines() if "evalsig: warning:" in line]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("evalsig: warning: another distribution named `evalsig`")
    assert FIX in warnings[0]
    # Without it: no warning (the check runs before any command, its --help too).
    code, _out, err_alone = evalsig("power", "--help")
    assert (code, err_alone) == (0, "")


def test_the_check_costs_a_folder_listing_not_importlib_metadata() -> None:
    """Without the other distribution, the check every command makes reads no metadata."""
    script = (
        "import sys\n"
        "from evalsig._distribution import conflict\n"
        "print(conflict(), 'importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.split() == ["None", "False"], done.stderr


def test_our_former_name_is_told_apart_from_the_other_project(tmp_path: Path) -> None:
    """An earlier install of this project under the name `evalsig` (same summary as ours)."""
    install_ours(tmp_path)
    info = install_other(tmp_path)
    summary = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = OTHER_METADATA.replace(
        OTHER_METADATA.split("Summary: ")[1].split("\nRequires")[0],
        summary["description"],
    )
    (info / "METADATA").write_text(text, encoding="utf-8")
    (info / "RECORD").write_text("evalsig-0.1.2.dist-info/METADATA,,\n", encoding="utf-8")
    code, out, err = evalsig("--version", site=tmp_path)
    assert (code, err) == (0, "")
    assert "an earlier install of this project under its former distribution name" in out
    assert "a different project" not in out
    assert FIX in out


# --- files of ours overwritten ------------------------------------------------------------------


def test_overwritten_files_are_an_error_naming_them_and_the_fix(tmp_path: Path) -> None:
    install_ours(tmp_path)
    install_other(tmp_path)
    # The other project's store/__init__.py written over ours (nothing `power` imports).
    (tmp_path / "evalsig" / "store" / "__init__.py").write_text(
        '"""EVALSIG store."""\n', encoding="utf-8"
    )
    code, out, err = evalsig(*POWER, site=tmp_path)
    assert (code, out) == (4, ""), err
    assert err.count("\n") == 1, err
    assert err.startswith("evalsig: error: files of evalsig-stats were overwritten by another ")
    assert "(evalsig/store/__init__.py)" in err
    assert err.rstrip().endswith(f"to repair this installation: {FIX}.")
    code, out, err = evalsig("--version", site=tmp_path)
    assert code == 4
    assert out.splitlines()[0].endswith(" (evalsig-stats)"), out
    assert "error: files of evalsig-stats were overwritten" in out


def test_a_regular_install_with_the_other_metadata_but_our_files_warns_only(
    tmp_path: Path,
) -> None:
    """Ours installed after the other (our files intact): a warning, and the command runs."""
    install_ours(tmp_path)
    install_other(tmp_path)
    code, out, err = evalsig("power", "--help", site=tmp_path)
    assert code == 0, err
    assert out.startswith("Usage: evalsig power")
    assert err.startswith("evalsig: warning: another distribution named `evalsig`"), err
    assert err.count("\n") == 1


def test_deleted_files_count_as_overwritten(tmp_path: Path) -> None:
    """`pip uninstall evalsig` after ours deletes the files both list."""
    install_ours(tmp_path)
    install_other(tmp_path)
    (tmp_path / "evalsig" / "inference" / "multiplicity.py").unlink()
    # In a fresh interpreter: metadata lookups of this one may hold the editable install.
    code, out, _ = evalsig("--version", site=tmp_path)
    assert code == 4
    assert out.splitlines()[0].endswith(" (evalsig-stats)"), out
    assert "error: files of evalsig-stats were overwritten" in out
    assert "(evalsig/inference/multiplicity.py)" in out


def _in(site: Path) -> _distribution.Conflict | None:
    """:func:`evalsig._distribution.conflict` with ``site`` first on ``sys.path``."""
    import importlib

    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        return _distribution.conflict()
    finally:
        sys.path.remove(str(site))
        importlib.invalidate_caches()


def test_names_are_normalised_and_ours_is_not_the_other(tmp_path: Path) -> None:
    (tmp_path / "evalsig_stats-1.0.dist-info").mkdir()
    (tmp_path / "evalsig_extra-1.0.dist-info").mkdir()
    assert _in(tmp_path) is None
    (tmp_path / "EvalSig.egg-info").mkdir()
    found = _in(tmp_path)
    assert found is not None
    assert found.version == "?"
    assert not found.broken


@pytest.mark.parametrize("name", ["evalsig-0.1.2.dist-info", "Evalsig-0.1.2.dist-info"])
def test_the_other_metadata_folder_is_found_by_its_normalised_name(
    tmp_path: Path, name: str
) -> None:
    info = tmp_path / name
    info.mkdir()
    (info / "METADATA").write_text(OTHER_METADATA, encoding="utf-8")
    found = _in(tmp_path)
    assert found is not None
    assert (found.version, found.location) == ("0.1.2", info)


# --- every install hint names this distribution -------------------------------------------------

INSTALL_OTHER = re.compile(r"""pip3? install (?:-\S+ )*['"]?evalsig(?![-\w])""")
"""``pip install evalsig`` or ``pip install 'evalsig[extra]'``: the other project."""
TELLING_APART = "`pip install evalsig` installs"
"""The one way a page may write it: to say that it installs the other project."""


def test_every_install_hint_names_evalsig_stats() -> None:
    """Error messages, docs, the README, the action and the scripts all say
    ``pip install evalsig-stats...``: the other name installs the other project."""
    files = [ROOT / name for name in ("README.md", "action.yml", "Makefile", "mkdocs.yml")]
    for folder, pattern in (
        ("src", "*.py"),
        ("docs", "*.md"),
        ("scripts", "*"),
        ("benchmarks", "*.py"),
        ("tests", "*.py"),
    ):
        files += sorted((ROOT / folder).rglob(pattern))
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        if path.is_file() and path.suffix != ".pyc" and path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INSTALL_OTHER.search(line.replace(TELLING_APART, ""))
    ]
    assert found == []
    # The pattern finds what it should.
    assert INSTALL_OTHER.search("needs pyarrow: pip install 'evalsig[columnar]'.")
    assert INSTALL_OTHER.search("pip install --upgrade evalsig")
    assert not INSTALL_OTHER.search("pip install 'evalsig-stats[columnar]'")
