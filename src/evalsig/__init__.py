"""evalsig: is the difference between two evaluated models real?

>>> import evalsig
>>> result = evalsig.compare([1, 0, 1, 1, 0, 1], [1, 1, 1, 1, 0, 1])
>>> result.method
'mcnemar-score-cc'

The names below are imported when first used (``evalsig.compare`` loads the statistics),
so that ``import evalsig`` and ``evalsig --help`` start quickly.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

try:  # written at install from the git tag (pyproject.toml, [tool.hatch.version])
    from evalsig._version import __version__
except ImportError:  # a source tree that was never installed
    __version__ = "0+unknown"

from evalsig.errors import AlignmentError, DataError, EvalsigError, EvalsigWarning, FormatError

if TYPE_CHECKING:
    from evalsig.comparison import ComparisonResult, compare
    from evalsig.data import PairedScores, ScoreTable, pair
    from evalsig.data.loading import load
    from evalsig.inference import ConfidenceInterval
    from evalsig.passk import compare_pass_at_k, pass_at_k
    from evalsig.release import GatePolicy, GateResult
    from evalsig.score import ScoreResult, score

_LAZY = {
    "ComparisonResult": "evalsig.comparison",
    "compare": "evalsig.comparison",
    "compare_pass_at_k": "evalsig.passk",
    "pass_at_k": "evalsig.passk",
    "PairedScores": "evalsig.data",
    "ScoreTable": "evalsig.data",
    "load": "evalsig.data",
    "pair": "evalsig.data",
    "ConfidenceInterval": "evalsig.inference",
    "GatePolicy": "evalsig.release",
    "GateResult": "evalsig.release",
    "gate": "evalsig.release",
    "ScoreResult": "evalsig.score",
    "score": "evalsig.score",
}

__all__ = [
    "AlignmentError",
    "ComparisonResult",
    "ConfidenceInterval",
    "DataError",
    "EvalsigError",
    "EvalsigWarning",
    "FormatError",
    "GatePolicy",
    "GateResult",
    "PairedScores",
    "ScoreResult",
    "ScoreTable",
    "__version__",
    "compare",
    "compare_pass_at_k",
    "gate",
    "load",
    "pair",
    "pass_at_k",
    "score",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        if name.startswith("_") or find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'evalsig' has no attribute {name!r}")
        return import_module(f"{__name__}.{name}")  # a subpackage: evalsig.inference ...
    value = getattr(import_module(module), name)
    if module != f"{__name__}.{name}":  # evalsig.score stays the (callable) module
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
