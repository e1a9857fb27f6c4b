"""Which HTML view draws each result kind: a registry the report modules fill when they are
imported, without loading the HTML renderer (jinja2), which text and markdown never need.

:mod:`evalsig.report.html` renders a result through the view registered for its ``kind``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["SECTIONS", "Build", "register_section"]

Build = Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]]]
"""A view: the result's JSON in, the template macro's name and its context out."""

SECTIONS: dict[str, Build] = {}
"""The view of each result kind, by kind."""


def register_section(kind: str, build: Build) -> None:
    """Add the view of a result kind (later capabilities plug in here)."""
    SECTIONS[kind] = build
