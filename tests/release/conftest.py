"""Helpers shared by the release-gate tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

LmEvalDir = Callable[[Path, np.ndarray], Path]


def _write_lm_eval_dir(root: Path, values: np.ndarray) -> Path:
    """One lm-evaluation-harness samples file of task 't' (acc per document) in ``root``."""
    root.mkdir()
    lines = [
        json.dumps({"doc_id": i, "doc_hash": f"h{i}", "acc": float(v), "filter": "none"})
        for i, v in enumerate(values)
    ]
    (root / "samples_t_2024-05-01T00-00-00.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return root


@pytest.fixture
def lm_eval_dir() -> LmEvalDir:
    """Write a one-task lm-eval results folder: ``lm_eval_dir(root, scores)``."""
    return _write_lm_eval_dir
