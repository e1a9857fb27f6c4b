"""Do several models describe the same items? Shared items and content keys of M models.

The many-model counterpart of :func:`evalsig.data.paired.pair`'s checks, on the models x
items layout of :class:`evalsig.data.models.ModelScores`:

* an item some model lacks is an error (``on_missing="error"``), or every model is
  compared on the items *all* models have (``"intersect"``), so that every pair and the
  ranking rest on the same items;
* an item whose content key (gold answer, target, document hash) differs between any two
  models that have it is an error (``on_mismatch="error"``), is dropped for every model
  (``"exclude"``), or is compared anyway (``"keep"``).

The functions take arrays and return positions and notes, so that the layout's own
module builds the restricted matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evalsig.data.paired import OnMissing
from evalsig.errors import AlignmentError, DataError, examples

__all__ = ["check_policy", "describe_mismatches", "key_mismatches", "shared_items"]

_SHOWN = 3
"""Models or items named in a message before '...'."""


def check_policy(on_missing: object, on_mismatch: object) -> None:
    """The same argument checks (and words) as :func:`evalsig.data.paired.pair`."""
    if on_missing not in ("error", "intersect"):
        raise DataError(f"`on_missing` must be 'error' or 'intersect'; got {on_missing!r}.")
    if on_mismatch not in ("error", "exclude", "keep"):
        raise DataError(f"`on_mismatch` must be 'error', 'exclude' or 'keep'; got {on_mismatch!r}.")


def shared_items(
    names: Sequence[str],
    item_ids: np.ndarray,
    present: np.ndarray,
    on_missing: OnMissing,
) -> tuple[np.ndarray, str | None]:
    """Positions of the items every model has, and a note on what was dropped.

    ``present`` is ``(M, N)``. With ``on_missing="error"`` an item some model lacks raises
    an :class:`AlignmentError` naming each such model, how many items it lacks and some
    of them.
    """
    shared = present.all(axis=0)
    keep = np.flatnonzero(shared)
    if keep.size == len(item_ids):
        return keep, None
    n_models, n_all = present.shape
    lacking = (~present).sum(axis=1)
    order = [int(k) for k in np.argsort(-lacking, kind="stable") if lacking[k]]
    if on_missing == "error":
        parts = [
            f"{names[k]!r} lacks {int(lacking[k])} ({examples(item_ids[~present[k]])})"
            for k in order[:_SHOWN]
        ]
        more = f"; and {len(order) - _SHOWN} more model(s)" if len(order) > _SHOWN else ""
        raise AlignmentError(
            f"the models were not scored on the same items: {len(order)} of {n_models} "
            f"models lack some of the {n_all} items ({'; '.join(parts)}{more}). Pass "
            "on_missing='intersect' (CLI: --on-missing intersect) to rank every model on "
            f"the {keep.size} items all of them have; the result records how many items each "
            "model loses."
        )
    if keep.size < 2:
        raise AlignmentError(
            f"the {n_models} models share only {keep.size} item(s) of {n_all} "
            f"({'; '.join(f'{names[k]!r} lacks {int(lacking[k])}' for k in order[:_SHOWN])}"
            f"{'; ...' if len(order) > _SHOWN else ''}); a paired comparison needs at least 2 "
            "items every model has. Leave out the models with the fewest items."
        )
    have = present.sum(axis=1)
    dropped = have - keep.size
    return keep, (
        f"on_missing='intersect': every model is ranked on the {keep.size} items all "
        f"{n_models} models have (of {n_all}); items dropped per model: "
        + _per_model(names, dropped, have)
        + "."
    )


def _per_model(names: Sequence[str], dropped: np.ndarray, have: np.ndarray) -> str:
    """'a 12 of 100, b 0 of 88, 26 models 12 of 100 each (c, d, ...)', largest drop first."""
    groups: dict[tuple[int, int], list[str]] = {}
    for name, gone, n in zip(names, dropped.tolist(), have.tolist(), strict=True):
        groups.setdefault((int(gone), int(n)), []).append(name)
    parts = []
    for (gone, n), who in sorted(groups.items(), key=lambda g: (-g[0][0], -g[0][1])):
        if len(who) <= 2:
            parts += [f"{name} {gone} of {n}" for name in who]
        else:
            parts.append(f"{len(who)} models {gone} of {n} each ({examples(who, 2)})")
    return ", ".join(parts)


def key_mismatches(key_codes: np.ndarray) -> np.ndarray:
    """``(N,)`` whether two models give an item different content keys.

    ``key_codes`` is ``(M, N)``: a code per distinct key, -1 where a model has no key for
    the item (no key column, or no such item); missing keys never count as a difference.
    """
    if key_codes.size == 0:
        return np.zeros(key_codes.shape[1], dtype=bool)
    big = np.iinfo(key_codes.dtype).max
    high = key_codes.max(axis=0)
    low = np.where(key_codes < 0, big, key_codes).min(axis=0)
    mismatched: np.ndarray = (high >= 0) & (low != big) & (low != high)
    return mismatched


def describe_mismatches(
    names: Sequence[str],
    item_ids: np.ndarray,
    key_codes: np.ndarray,
    key_labels: np.ndarray,
    mismatched: np.ndarray,
) -> str:
    """'N item(s) have a different content key ... (examples; groups of models)'."""
    where = np.flatnonzero(mismatched)
    shown = []
    for i in where[:_SHOWN]:
        column = key_codes[:, i]
        values, counts = np.unique(column[column >= 0], return_counts=True)
        variants = [
            f"{key_labels[v]!r} in {_who([names[int(k)] for k in np.flatnonzero(column == v)], c)}"
            for v, c in sorted(zip(values.tolist(), counts.tolist(), strict=True), key=_by_count)
        ]
        shown.append(f"{item_ids[i]!r}: " + " vs ".join(variants))
    more = "; ..." if where.size > _SHOWN else ""
    # models that agree on every mismatched item form one version of the benchmark
    rows = key_codes[:, where]
    _, version = np.unique(rows, axis=0, return_inverse=True)
    version = np.asarray(version).reshape(-1)
    members = [np.flatnonzero(version == v) for v in range(int(version.max()) + 1)]
    members.sort(key=lambda m: (-len(m), int(m[0])))
    groups = ", ".join(_who([names[int(k)] for k in m], len(m)) for m in members)
    return (
        f"{where.size} item(s) have a different content key (gold answer, target or document "
        f"hash) in different models' data ({'; '.join(shown)}{more}); the models fall into "
        f"{len(members)} groups that agree on those items: {groups}"
    )


def _by_count(pair: tuple[int, int]) -> tuple[int, int]:
    return (-pair[1], pair[0])


def _who(models: list[str], count: int) -> str:
    if count <= 2:
        return " and ".join(repr(m) for m in models)
    return f"{count} models ({examples(models, 2)})"
