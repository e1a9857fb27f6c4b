"""Renamed keyword arguments: the old name keeps working for one release, with a warning.

One vocabulary runs through the Python API (``method``, ``variant``, ``cluster``,
``confidence_level``, ``alternative``, ``rng``; ``tests/test_api_vocabulary.py`` holds it).
A function whose parameter took a retired name is decorated with :func:`renamed`, so its
signature (what ``help``, ``inspect.signature`` and mypy see) shows only the new names.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["renamed", "renamed_parameters"]

F = TypeVar("F", bound=Callable[..., Any])

_ATTRIBUTE = "__evalsig_renamed__"


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Accept each ``old=`` keyword as ``new=`` for one release, with a DeprecationWarning.

    >>> @renamed(variant="method")
    ... def test(x, *, method="auto"):
    ...     return method
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     test(1, variant="exact")
    'exact'
    >>> str(caught[0].message)
    '`variant=` is now `method=` (in test()); the old name goes in the next release.'

    Giving both spellings at once is a ``TypeError``, as Python's own for an argument
    given twice.
    """

    def decorate(function: F) -> F:
        name = function.__name__
        retired = frozenset(old_to_new)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs and not retired.isdisjoint(kwargs):
                for old, new in old_to_new.items():
                    if old not in kwargs:
                        continue
                    if new in kwargs:
                        raise TypeError(
                            f"{name}() got both `{old}=` and `{new}=`; `{old}=` is the old "
                            f"name of `{new}=`: pass only `{new}=`."
                        )
                    warnings.warn(
                        f"`{old}=` is now `{new}=` (in {name}()); the old name goes in the "
                        "next release.",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        setattr(wrapper, _ATTRIBUTE, {**renamed_parameters(function), **old_to_new})
        return cast(F, wrapper)

    return decorate


def renamed_parameters(function: Any) -> dict[str, str]:
    """The retired keyword names ``function`` still accepts, each mapped to its new name."""
    return dict(getattr(function, _ATTRIBUTE, {}))
