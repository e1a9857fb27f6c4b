"""evalsig: is the difference between two evaluated models real?

>>> import evalsig
>>> result = evalsig.compare([1, 0, 1, 1, 0, 1], [1, 1, 1, 1, 0, 1])
>>> result.method
'mcnemar-exact'
"""

__version__ = "0.1.0"  # first: submodules read it while the package initialises

from evalsig.comparison import ComparisonResult, compare
from evalsig.data import PairedScores, ScoreTable, load, pair
from evalsig.errors import AlignmentError, DataError, EvalsigError, EvalsigWarning, FormatError
from evalsig.inference import ConfidenceInterval
from evalsig.release import GatePolicy, GateResult, gate

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
    "ScoreTable",
    "__version__",
    "compare",
    "gate",
    "load",
    "pair",
]
