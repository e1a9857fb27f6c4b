"""The shape of the code, held by a machine: no function outside the command line's option
declarations is longer than 120 lines (from its first decorator to its last line, docstring
included), and no module is hidden behind a function or object of its own name (``import
evalsig.release.gate as m`` giving the function ``gate``). The layers and the absence of
import circles are checked by ``lint-imports`` (the contracts in pyproject.toml), which
``make test`` runs."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import types
from pathlib import Path

import evalsig

SRC = Path(__file__).parents[1] / "src" / "evalsig"
LONGEST = 120


def _lengths(text: str, where: str) -> list[tuple[int, str]]:
    """Each function's length in lines, and where it is."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            out.append((node.end_lineno - start + 1, f"{where}:{node.name}"))
    return out


def test_no_function_is_longer_than_120_lines() -> None:
    long = sorted(
        (n, where)
        for path in SRC.rglob("*.py")
        if "cli" not in path.relative_to(SRC).parts
        for n, where in _lengths(path.read_text("utf-8"), str(path.relative_to(SRC)))
        if n > LONGEST
    )
    assert long == [], long


def test_a_function_is_measured_from_its_decorator_to_its_last_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(LONGEST - 2))
    text = f'@decorator\ndef f():\n    """Doc."""\n{body}\n\n\ndef g():\n    pass\n'
    assert _lengths(text, "m.py") == [(LONGEST + 1, "m.py:f"), (2, "m.py:g")]


def test_no_module_is_shadowed_by_a_name_of_its_package() -> None:
    shadowed = set()
    for module in pkgutil.walk_packages(evalsig.__path__, "evalsig."):
        if module.name.endswith(".__main__"):
            continue  # importing it runs the command line
        package, _, leaf = module.name.rpartition(".")
        importlib.import_module(module.name)
        if not isinstance(getattr(importlib.import_module(package), leaf), types.ModuleType):
            shadowed.add(module.name)
    assert shadowed == set()
