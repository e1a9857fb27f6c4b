"""The installed distribution's metadata: dependencies, Python versions, project links."""

from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src" / "evalsig"
IMPORT_TO_DIST = {"yaml": "pyyaml"}
OPTIONAL = {"pandas", "pyarrow", "duckdb", "dask", "distributed", "matplotlib", "zstandard"}


def _requirements() -> dict[str, str]:
    found = {}
    for line in metadata.requires("evalsig") or []:
        name = line.split(";")[0].split("[")[0]
        for stop in "<>=!~ ":
            name = name.split(stop)[0]
        found[name.lower()] = line
    return found


def _top_level_imports() -> set[str]:
    """Third-party packages imported at module level anywhere in the package."""
    names: set[str] = set()
    for path in SRC.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "evalsig"}


def test_every_module_level_import_is_a_core_dependency() -> None:
    required = _requirements()
    core = {name for name, line in required.items() if "extra ==" not in line}
    missing = {
        name
        for name in _top_level_imports() - OPTIONAL
        if IMPORT_TO_DIST.get(name, name) not in core
    }
    assert missing == set(), f"imported at module level but not declared: {sorted(missing)}"


def test_python_versions_and_links_are_declared() -> None:
    meta = metadata.metadata("evalsig")
    if meta.get_all("Project-URL") is None:
        pytest.skip("installed from an older pyproject: reinstall (make test does)")
    versions = {c.rsplit(" :: ", 1)[1] for c in meta.get_all("Classifier") or [] if "3." in c}
    assert {"3.10", "3.11", "3.12", "3.13"} <= versions
    assert meta["Requires-Python"] == ">=3.10"
    links = {entry.split(",")[0] for entry in meta.get_all("Project-URL") or []}
    assert {"Documentation", "Repository", "Issues", "Changelog"} <= links
