"""Data sets shared by the meta-analysis tests (values from ../shared/REFERENCE.md)."""

from __future__ import annotations

import numpy as np
import pytest


def bcg() -> tuple[np.ndarray, np.ndarray]:
    """metafor's dat.bcg as log risk ratios: escalc(measure="RR", ai=tpos, bi=tneg, ci=cpos,
    di=cneg, data=dat.bcg)."""
    tpos = np.array([4, 6, 3, 62, 33, 180, 8, 505, 29, 17, 186, 5, 27], dtype=float)
    tneg = np.array(
        [119, 300, 228, 13536, 5036, 1361, 2537, 87886, 7470, 1699, 50448, 2493, 16886],
        dtype=float,
    )
    cpos = np.array([11, 29, 11, 248, 47, 372, 10, 499, 45, 65, 141, 3, 29], dtype=float)
    cneg = np.array(
        [128, 274, 209, 12619, 5761, 1079, 619, 87892, 7232, 1600, 27197, 2338, 17825],
        dtype=float,
    )
    yi = np.log((tpos / (tpos + tneg)) / (cpos / (cpos + cneg)))
    vi = 1 / tpos - 1 / (tpos + tneg) + 1 / cpos - 1 / (cpos + cneg)
    return yi, vi


KACKER_Y = np.array([61.00, 61.40, 62.21, 62.30, 62.34, 62.60, 62.70, 62.84, 65.90])
KACKER_V = np.array([0.2025, 1.2100, 0.0900, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225])


@pytest.fixture
def bcg_data() -> tuple[np.ndarray, np.ndarray]:
    return bcg()


@pytest.fixture
def kacker() -> tuple[np.ndarray, np.ndarray]:
    return KACKER_Y.copy(), KACKER_V.copy()
