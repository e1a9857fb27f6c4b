"""One protocol for every result: its JSON form, and views drawn from it by kind.

A result's ``to_dict()`` is its whole public form (strict JSON: ``kind``,
``schema_version``, the numbers, ``notes``, ``nulls``). Every other view is drawn from that
form by a function registered for the result's ``kind``, so that a live result and one saved
as JSON and read back (:func:`from_dict`) render alike:

- ``str(result)``: ``"line"`` (one line, for the kinds that have one) or ``"text"``, as a
  terminal shows the result; ``result._repr_markdown_()``: ``"markdown"``;
- ``result._repr_html_()``: ``"html"``; ``result.summary()``: ``"summary"``, a table that
  renders to text, markdown, HTML and LaTeX.

``to_frame()`` is the one view a result makes itself, from its own fields (arrays keep their
dtypes; ``to_dict()`` has rounded nothing, but it has turned NaN into null). A result that
is not a table is one row: :meth:`Result.to_frame` flattens its JSON form.

The views live in :mod:`evalsig.report`, which registers them with :func:`register_views`;
the first view asked of a kind imports its module (:func:`evalsig.report.views.load`), the
one import from this layer up into ``report``. Importing a statistics package therefore
loads no renderer, and no jinja2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from evalsig.report.summary import Summary

__all__ = [
    "VIEWS",
    "Result",
    "Saved",
    "Tested",
    "View",
    "from_dict",
    "register_views",
    "render",
]

View = Literal["text", "line", "markdown", "html", "summary"]
VIEWS: tuple[View, ...] = ("text", "line", "markdown", "html", "summary")
"""The views every kind has (``to_frame()`` aside)."""

Renderer = Callable[[Mapping[str, Any]], Any]

_VIEWS: dict[str, dict[View, Renderer]] = {}


def register_views(kind: str, **views: Renderer) -> None:
    """Register the views of results of ``kind`` (``text=``, ``line=``, ``markdown=``,
    ``html=``, ``summary=``; each takes the result's ``to_dict()`` form). A view given again for a
    kind replaces the earlier one."""
    unknown = sorted(set(views) - set(VIEWS))
    if unknown:
        raise TypeError(f"unknown views {unknown} for kind {kind!r}; views are {list(VIEWS)}")
    _VIEWS.setdefault(kind, {}).update(views)  # type: ignore[arg-type]


def render(document: Mapping[str, Any], view: View) -> Any:
    """The ``view`` of a result's JSON form, by the renderer registered for its kind."""
    kind = document.get("kind")
    if not isinstance(kind, str):
        raise ValueError(f"a result's JSON form names its kind; got kind={kind!r}")
    renderer = _VIEWS.get(kind, {}).get(view)
    if renderer is None:
        from evalsig.report import views  # the one import up into report: kinds' views

        views.load(kind)
        renderer = _VIEWS.get(kind, {}).get(view)
    if renderer is None:
        raise ValueError(f"no {view} view of results of kind {kind!r}")
    return renderer(document)


class Result:
    """What every result is: ``to_dict()``, and the views drawn from it (module docstring).

    A subclass names its ``kind`` and defines ``to_dict()`` and ``to_frame()``.
    """

    __slots__ = ()
    kind: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The result as strict JSON (``kind`` and ``schema_version`` first)."""
        raise NotImplementedError

    def to_frame(self) -> pd.DataFrame:
        """The result as a pandas DataFrame (the ``pandas`` extra): here one row, each
        number, flag or word of ``to_dict()`` a column (``ci`` as ``ci_low``, ``ci_high``,
        ``ci_confidence_level``; null as NaN); a table-like result gives its rows."""
        from evalsig._frame import data_frame

        row = _flat(self.to_dict())
        return data_frame({name: _column(value) for name, value in row.items()})

    def summary(self) -> Summary:
        """The result as a table: ``.as_text()``, ``.as_markdown()``, ``.as_html()`` or
        ``.as_latex()`` (booktabs, for a paper)."""
        return render(self.to_dict(), "summary")  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return str(render(self.to_dict(), "line"))

    def _repr_markdown_(self) -> str:
        return str(render(self.to_dict(), "markdown"))

    def _repr_html_(self) -> str:
        return str(render(self.to_dict(), "html"))


class Tested(Result):
    """A result that tested a hypothesis: ``statistic, pvalue = result``, as scipy's test
    results unpack (the one kind of result that unpacks)."""

    __slots__ = ()
    statistic: float | None
    pvalue: float | None

    def __iter__(self) -> Iterator[float | None]:
        return iter((self.statistic, self.pvalue))


@dataclass(frozen=True, slots=True)
class Saved(Result):
    """A result read back from its JSON form (:func:`from_dict`): the same views as the
    result that wrote it; ``to_frame()`` is the live result's alone."""

    document: Mapping[str, Any]

    @property
    def kind(self) -> str:  # type: ignore[override]
        return str(self.document["kind"])

    def to_dict(self) -> dict[str, Any]:
        return dict(self.document)

    def to_frame(self) -> pd.DataFrame:
        raise TypeError(
            f"a saved {self.kind} result has no frame: to_frame() needs the live result "
            "(its arrays); compute it again, or read the JSON's rows"
        )


_NOT_IN_FRAME = ("kind", "schema_version", "notes", "nulls", "provenance")


def _flat(document: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The numbers, flags and words of a JSON form, nested objects joined by ``_``."""
    out: dict[str, Any] = {}
    for name, value in document.items():
        if not prefix and name in _NOT_IN_FRAME:
            continue
        if isinstance(value, Mapping):
            out.update(_flat(value, f"{prefix}{name}_"))
        elif value is None or isinstance(value, bool | int | float | str):
            out[prefix + name] = value
    return out


def _column(value: Any) -> Any:
    """One value as a column of one row: null as NaN, numbers and flags typed."""
    if value is None:
        return np.array([np.nan])
    if isinstance(value, bool | int | float):
        return np.array([value])
    return [value]


def from_dict(document: Mapping[str, Any]) -> Saved:
    """A result's JSON form (``to_dict()``, or a file ``--format json`` wrote) as a
    :class:`Saved` result that renders as the original did."""
    if not isinstance(document.get("kind"), str):
        raise ValueError(
            "not a result's JSON form: it has no `kind` (write it with result.to_dict() "
            "or an evalsig command's --format json)"
        )
    return Saved(dict(document))
