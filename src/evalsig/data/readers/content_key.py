"""Which column of a generic table holds the items' content key (gold answer, target, hash).

Two files that give one item id different gold answers did not score the same thing (a
revised answer key, another dataset version); :func:`evalsig.compare` and the leaderboard
check this when the tables carry a content key. Harness logs name theirs (lm-eval's
``doc_hash``, HELM's references, OpenAI evals' ``expected``); a generic table carries one
when the user names it (``key_column=`` / ``--key``) or when a column has a name that
means a gold value and nothing else.

The detection is deliberately narrow, because a column read as a key that is not one
(a model's own answer, a per-row prediction) would stop every comparison with a false
alarm:

* ``gold``, ``gold_answer``, ``correct_answer``, ``target``, ``reference``, ``expected``,
  ``doc_hash``, ``document_hash`` are keys;
* ``answer`` and ``label`` are keys only beside a prediction column (``pred``,
  ``prediction``, ``response`` ...): alone they may hold the model's own answer;
* a prediction or score column is never a key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["KEY_NAMES", "PAIRED_KEY_NAMES", "PREDICTION_LIKE", "detect_key"]

KEY_NAMES = (
    "gold",
    "gold_answer",
    "correct_answer",
    "target",
    "reference",
    "expected",
    "doc_hash",
    "document_hash",
)
"""Column names that always mean a per-item gold value or content hash."""
PAIRED_KEY_NAMES = ("answer", "label")
"""Names that mean the gold value only beside a prediction column."""
PREDICTION_LIKE = (
    "pred",
    "prediction",
    "predicted",
    "model_answer",
    "response",
    "completion",
    "model_output",
    "generation",
    "output",
)
"""Columns holding the model's own answer: their presence makes ``answer`` the gold one."""


def detect_key(
    available: Sequence[str], used: Iterable[str | None], *, source: str
) -> tuple[str | None, str | None]:
    """The content-key column of a table and a note saying so, or ``(None, None)``.

    ``used`` are the columns already given another role (id, score, run, cluster, task,
    filters); they are never the key.

    >>> detect_key(["model", "question_id", "answer", "pred", "correct"], ["question_id",
    ...     "correct"], source="t.csv")[0]
    'answer'
    >>> detect_key(["id", "answer", "score"], ["id", "score"], source="t.csv")
    (None, None)
    """
    taken = {c for c in used if c is not None}
    free = [c for c in available if c not in taken]
    candidates = [c for c in KEY_NAMES if c in free]
    if any(c in available for c in PREDICTION_LIKE):
        candidates += [c for c in PAIRED_KEY_NAMES if c in free]
    if not candidates:
        return None, None
    chosen, others = candidates[0], candidates[1:]
    also = f" (also present: {', '.join(map(repr, others))})" if others else ""
    return chosen, (
        f"{source}: content key {chosen!r} detected{also}: an item whose {chosen!r} differs "
        "between models or files is a mismatch (see on_mismatch; name another key with "
        "--key / key_column=)."
    )
