"""Anytime-valid monitoring of a paired comparison: confidence sequences for the mean difference.

A fixed-N test is valid only if it is looked at once, after the planned number of items.
A confidence sequence may be checked after every item and the evaluation stopped as soon as
it excludes 0, with the error rate still bounded by 1 - ``confidence_level``.

>>> from evalsig.sequential import confidence_sequence
>>> cs = confidence_sequence([0, 1, 0, 0, 1] * 40)   # the candidate fixes 2 items in 5
>>> cs.status, cs.resolved_at
('candidate better', 25)
"""

from evalsig.sequential._input import Method
from evalsig.sequential.bernstein import stitched_boundary
from evalsig.sequential.monitor import SequentialMonitor, confidence_sequence
from evalsig.sequential.results import SequencePath, SequentialResult, Status

__all__ = [
    "Method",
    "SequencePath",
    "SequentialMonitor",
    "SequentialResult",
    "Status",
    "confidence_sequence",
    "stitched_boundary",
]
