"""Deprecated: the ranking machinery is :mod:`evalsig.inference.ranking` (leaderboards,
arenas and the Dask backend share it). A name taken from here warns; this module goes in
the next release."""

import warnings
from typing import Any

from evalsig.inference import ranking as _ranking

__all__ = list(_ranking.__all__)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        "evalsig.leaderboard.ranking moved to evalsig.inference.ranking; the old name goes in "
        "the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(_ranking, name)
