"""Deprecated: the ranking machinery is :mod:`evalsig.inference.ranking` (leaderboards,
arenas, syntheses and resolution share it). This name goes in the next release."""

import warnings

from evalsig.inference.ranking import *  # noqa: F403
from evalsig.inference.ranking import __all__  # noqa: F401

warnings.warn(
    "evalsig.leaderboard.ranking moved to evalsig.inference.ranking; the old name goes in "
    "the next release",
    DeprecationWarning,
    stacklevel=2,
)
