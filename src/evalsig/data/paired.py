"""The canonical paired evaluation: two models' scores on the same, aligned items.

Alignment is by item id whenever ids exist, never by position; baseline and candidate
may list items in any order. Items present on one side only are an error unless the
caller asks for the intersection, and then the result records how many were dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, cast

import numpy as np

from evalsig.data.build import factorize
from evalsig.data.table import ScoreTable
from evalsig.defaults import FEW_CLUSTERS
from evalsig.errors import AlignmentError, DataError, examples

__all__ = [
    "OnMismatch",
    "OnMissing",
    "PairedScores",
    "as_strata",
    "id_kinds_note",
    "labels_by_id",
    "labels_in_order",
    "mismatch_message",
    "pair",
    "paired_id_kinds",
    "table_cluster_codes",
]


OnMissing = Literal["error", "intersect"]
OnMismatch = Literal["error", "exclude", "keep"]


@dataclass(frozen=True, slots=True, eq=False)
class PairedScores:
    """Baseline and candidate scores on the same items, in the same order."""

    baseline: ScoreTable
    candidate: ScoreTable
    cluster_codes: np.ndarray | None = None
    """``(n,)`` integer cluster of each item (0 .. n_clusters - 1), or None."""
    cluster_labels: np.ndarray | None = None
    """Cluster names, indexed by code."""
    strata_codes: np.ndarray | None = None
    """``(n,)`` integer stratum of each item (0 .. n_strata - 1), or None."""
    strata_labels: np.ndarray | None = None
    """Stratum names, indexed by code."""
    n_only_baseline: int = 0
    """Items dropped because only the baseline has them (``on_missing="intersect"``)."""
    n_only_candidate: int = 0
    """Items dropped because only the candidate has them."""
    n_mismatched: int = 0
    """Items whose content keys differ between the sides (excluded or kept, as asked)."""
    notes: tuple[str, ...] = ()

    @property
    def item_ids(self) -> np.ndarray | None:
        """``(n,)`` item ids, or None when items were matched by position."""
        return self.baseline.item_ids

    @property
    def n_items(self) -> int:
        return self.baseline.n_items

    @property
    def n_clusters(self) -> int | None:
        return None if self.cluster_labels is None else len(self.cluster_labels)

    @property
    def n_strata(self) -> int | None:
        return None if self.strata_labels is None else len(self.strata_labels)

    @property
    def binary(self) -> bool:
        return self.baseline.binary and self.candidate.binary

    @property
    def single_run(self) -> bool:
        return self.baseline.n_runs == 1 and self.candidate.n_runs == 1

    def differences(self) -> np.ndarray:
        """Per-item difference of mean scores, candidate minus baseline.

        Computed block by block, so no temporary as large as the result is made. When
        every item has R runs, ``sums / R`` gives the numbers ``sums / counts`` gives
        without reading the counts, one run is its own mean, and the sums are read by
        blocks (:meth:`ScoreTable.sum_blocks`).
        """
        b, c = self.baseline, self.candidate
        d = np.empty(self.n_items)
        if b.ragged or c.ragged:
            for start in range(0, self.n_items, DIFFERENCE_BLOCK):
                block = slice(start, start + DIFFERENCE_BLOCK)
                np.divide(c.sums[block], c.counts[block], out=d[block])
                d[block] -= b.sums[block] / b.counts[block]
            return d
        runs_b, runs_c = float(b.n_runs), float(c.n_runs)
        for (block, sums_b), (_, sums_c) in zip(b.sum_blocks(), c.sum_blocks(), strict=True):
            if runs_b == runs_c == 1:
                np.subtract(sums_c, sums_b, out=d[block], dtype=np.float64)
            else:
                np.divide(sums_c, runs_c, out=d[block], dtype=np.float64)
                d[block] -= np.divide(sums_b, runs_b, dtype=np.float64)
        return d


DIFFERENCE_BLOCK = 1 << 16
"""Items per block when differencing per-item means of ragged runs."""


def pair(
    baseline: ScoreTable,
    candidate: ScoreTable,
    *,
    clusters: Sequence[object] | np.ndarray | Mapping[object, object] | None = None,
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> PairedScores:
    """Align two tables by item id (or by position when neither has ids).

    Parameters
    ----------
    baseline, candidate : ScoreTable
    clusters : sequence or mapping, optional
        Cluster label per item: a sequence in the items' order (positional data or the
        baseline's order), or a mapping ``item_id -> label``. When the tables carry
        cluster labels themselves these are used, and must agree with each other.
    on_missing : {"error", "intersect"}
        What to do with items present on one side only.
    on_mismatch : {"error", "exclude", "keep"}
        What to do with items whose content keys (gold answer, target, document hash)
        differ between the sides: an error, drop them, or compare them anyway; the result
        records how many.
    """
    if on_missing not in ("error", "intersect"):
        raise DataError(f"`on_missing` must be 'error' or 'intersect'; got {on_missing!r}.")
    if on_mismatch not in ("error", "exclude", "keep"):
        raise DataError(f"`on_mismatch` must be 'error', 'exclude' or 'keep'; got {on_mismatch!r}.")
    if baseline.by_position != candidate.by_position:
        with_ids = "candidate" if baseline.by_position else "baseline"
        raise AlignmentError(
            f"{with_ids} has item ids but the other side is positional (a plain array); give "
            "both sides item ids (a mapping or a table with an id column) or neither."
        )
    given = baseline.clusters is not None or candidate.clusters is not None
    if clusters is not None and given:
        raise DataError(
            "cluster labels were given twice: in the data (a cluster column) and as the "
            "`cluster` argument; give them once."
        )
    if clusters is not None and not isinstance(clusters, Mapping):
        # A sequence of labels follows the baseline's own item order.
        in_order = labels_in_order(
            clusters, baseline.n_items, count=f"the baseline has {baseline.n_items} items"
        )
        baseline = replace(baseline, clusters=in_order)
        clusters = None
    notes: list[str] = []
    only_b = only_c = 0
    kinds = _kinds_apart(baseline, candidate)
    hint = "" if kinds is None else " " + _id_kinds_hint(*kinds)
    if baseline.by_position:
        if baseline.n_items != candidate.n_items:
            raise AlignmentError(
                f"baseline has {baseline.n_items} items but candidate has "
                f"{candidate.n_items}; positional arrays must list the same items in the same "
                "order (pass item ids to align by id)."
            )
    elif not baseline.same_items(candidate):
        baseline, candidate, only_b, only_c = _align_by_id(baseline, candidate, on_missing, hint)
        if only_b or only_c:
            notes.append(
                f"compared the {baseline.n_items} items both sides share; dropped {only_b} "
                f"only in baseline and {only_c} only in candidate (on_missing='intersect')."
            )
    kinds_note = paired_id_kinds(baseline, candidate)
    if kinds_note is not None:
        notes.append(kinds_note)
    baseline, candidate, n_mismatched = _check_keys(
        baseline, candidate, on_mismatch, notes, hint=hint
    )
    if baseline.n_items < 2:
        raise DataError(
            f"a paired comparison needs at least 2 items; got {baseline.n_items}.{hint}"
        )
    codes, labels = _cluster_codes(
        baseline, candidate, clusters if isinstance(clusters, Mapping) else None
    )
    for table in (baseline, candidate):
        notes.extend(table.notes)
        if table.ragged:
            notes.append(
                f"{table.source} has {table.runs_summary()}; per-item means are compared, "
                "each item weighing the same."
            )
    return PairedScores(
        baseline=replace(baseline, clusters=None),
        candidate=replace(candidate, clusters=None),
        cluster_codes=codes,
        cluster_labels=labels,
        n_only_baseline=only_b,
        n_only_candidate=only_c,
        n_mismatched=n_mismatched,
        notes=tuple(dict.fromkeys(notes)),
    )


def _kinds_apart(baseline: ScoreTable, candidate: ScoreTable) -> tuple[str, str] | None:
    """How messages name the side whose item ids are numbers and the side whose ids are
    text, when the inputs say so (JSON ``1`` and ``"1"``); None otherwise."""
    kinds = (baseline.id_kind, candidate.id_kind)
    if baseline.by_position or None in kinds or kinds[0] == kinds[1]:
        return None
    if baseline.id_kind == "number":
        return baseline.source, candidate.source
    return candidate.source, baseline.source


def paired_id_kinds(baseline: ScoreTable, candidate: ScoreTable) -> str | None:
    """The note on two aligned tables (``baseline.item_ids`` are the candidate's) whose
    item ids are numbers on one side and text on the other, or None."""
    kinds = _kinds_apart(baseline, candidate)
    if kinds is None or not baseline.n_items:
        return None  # the ids are not read (a reader's lazy labels stay so)
    return id_kinds_note(*kinds, example=str(cast(np.ndarray, baseline.item_ids)[0]))


def id_kinds_note(numbers: str, texts: str, *, example: str, done: str = "paired") -> str:
    """The note on item ids written as numbers in ``numbers`` and as text in ``texts``
    (one wording for :func:`pair` and the many-model alignment). Ids are matched by their
    text, so ``example`` (an id both have) names one item on either side: most often two
    writers (or harness versions) of the same items, which the user should confirm."""
    quoted = json.dumps(example, ensure_ascii=False)
    return (
        f"item ids are numbers in {numbers} and text in {texts} (e.g. {example} and "
        f"{quoted}): {done} as text; check that they name the same items."
    )


def _id_kinds_hint(numbers: str, texts: str) -> str:
    """The sentence an alignment error adds when one side's item ids are numbers and the
    other's text: the ids may number the items differently."""
    return (
        f"Item ids are numbers in {numbers} and text in {texts}: they match only where the "
        'number is written as the same text (1 and "1", not 1 and "01" or 1.0 and "1").'
    )


def _check_keys(
    baseline: ScoreTable,
    candidate: ScoreTable,
    on_mismatch: OnMismatch,
    notes: list[str],
    *,
    hint: str = "",
) -> tuple[ScoreTable, ScoreTable, int]:
    """Compare the content keys both sides give an item (when both have one); ``hint``
    ends an error (see :func:`_id_kinds_hint`)."""
    if baseline.keys is None or candidate.keys is None:
        return baseline, candidate, 0
    a, b = baseline.keys, candidate.keys
    state = np.fromiter(  # 0: a side has no key, 1: the same key, 2: different keys
        (0 if x is None or y is None else 1 if x == y else 2 for x, y in zip(a, b, strict=True)),
        dtype=np.int8,
        count=len(a),
    )
    differ = state == 2
    n = int(differ.sum())
    if n == 0:
        return baseline, candidate, 0
    where = np.flatnonzero(differ)
    ids = baseline.item_ids
    shown = "; ".join(
        f"{(ids[i] if ids is not None else f'position {i}')!r}: {a[i]!r} vs {b[i]!r}"
        for i in where[:3]
    ) + ("; ..." if n > 3 else "")
    what = (
        f"{n} item(s) have a different content key (gold answer, target or document hash) in "
        f"baseline and candidate ({shown})"
    )
    compared = int(np.count_nonzero(state))
    message = mismatch_message(what, n, compared, on_mismatch, scope="two sides")
    if on_mismatch == "error":
        raise AlignmentError(message + hint)
    notes.append(message)
    if on_mismatch == "keep":
        return baseline, candidate, n
    keep = np.flatnonzero(~differ)
    return baseline.take(keep), candidate.take(keep), n


def mismatch_message(
    what: str, n_differ: int, n_compared: int, on_mismatch: OnMismatch, *, scope: str
) -> str:
    """The error or note for items whose content keys differ (one wording for
    :func:`pair` and the many-model alignment).

    ``what`` says which items differ; ``n_compared`` counts the items whose keys could be
    compared (both sides have one). A few differing keys are a revised answer key or
    dataset version: the error offers ``on_mismatch``. When most of them differ, the
    ``scope`` ("two sides", "models") hold different tasks (another benchmark, subset or
    split, or ids that number other questions): no ``on_mismatch`` makes them comparable,
    so the error says so and offers none, and a note under 'keep' or 'exclude' says so too.
    """
    most = 2 * n_differ > n_compared
    share = f"{n_differ:,} of the {n_compared:,} items whose content keys can be compared differ"
    if on_mismatch == "error" and most:
        return (
            f"{what}: {share}, so the {scope} look like different tasks (another benchmark, "
            "subset or split, or item ids that number other questions), not a revised answer "
            "key. Check that they are the same task (--task / task=, --where) and that their "
            "item ids name the same items; dropping or keeping the mismatches "
            "(on_mismatch) would not make them comparable."
        )
    every, all_ = (" for every model", " all") if scope == "models" else ("", "")
    if on_mismatch == "error":
        return (
            f"{what}: the {scope} did not{all_} score the same thing (a revised answer key or "
            "dataset version?). Pass on_mismatch='exclude' (CLI: --on-mismatch exclude) to "
            f"drop them{every} or 'keep' to compare anyway; the result records the choice."
        )
    kept = "compared them anyway" if scope == "models" else "compared anyway"
    done = kept if on_mismatch == "keep" else f"excluded them{every}"
    warning = f" Most keys differ ({share}): the {scope} look like different tasks." if most else ""
    return f"{what}; {done} (on_mismatch={on_mismatch!r}).{warning}"


def _align_by_id(
    baseline: ScoreTable, candidate: ScoreTable, on_missing: OnMissing, hint: str = ""
) -> tuple[ScoreTable, ScoreTable, int, int]:
    """Both tables restricted to the items they share, in the baseline's order, and the
    counts of items only one side has; ``hint`` ends the error when ``on_missing`` is
    'error' (see :func:`_id_kinds_hint`)."""
    baseline_ids = cast(np.ndarray, baseline.item_ids)  # tables with ids: pair() checked
    candidate_ids = cast(np.ndarray, candidate.item_ids)
    position = {item: i for i, item in enumerate(candidate_ids.tolist())}
    in_candidate = np.fromiter(
        (position.get(item, -1) for item in baseline_ids.tolist()),
        dtype=np.int64,
        count=baseline.n_items,
    )
    shared = in_candidate >= 0
    only_b = int((~shared).sum())
    only_c = candidate.n_items - int(shared.sum())
    if (only_b or only_c) and on_missing == "error":
        in_baseline = set(baseline_ids.tolist())
        extra_c = [i for i in candidate_ids.tolist() if i not in in_baseline]
        parts = []
        if only_b:
            parts.append(f"{only_b} only in baseline ({examples(baseline_ids[~shared])})")
        if only_c:
            parts.append(f"{only_c} only in candidate ({examples(extra_c)})")
        n_shared = int(shared.sum())
        fix = (
            f"Pass on_missing='intersect' (CLI: --on-missing intersect) to compare the "
            f"{n_shared} shared items; the result records the drop."
            if n_shared >= 2
            else f"They share {n_shared} item(s), too few to compare: check that both are "
            "the same task and that their item ids name the same items."
        )
        raise AlignmentError(
            f"baseline has {baseline.n_items} items and candidate has {candidate.n_items}; "
            f"{' and '.join(parts)}. {fix}{hint}"
        )
    keep = np.flatnonzero(shared)
    return baseline.take(keep), candidate.take(in_candidate[keep]), only_b, only_c


def _cluster_codes(
    baseline: ScoreTable, candidate: ScoreTable, clusters: Mapping[object, object] | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    labels: np.ndarray | None
    if clusters is not None:
        labels = labels_by_id(clusters, baseline.item_ids)
    elif baseline.clusters is not None and candidate.clusters is not None:
        clash = np.flatnonzero(baseline.clusters != candidate.clusters)
        if clash.size:
            ids = baseline.item_ids
            where = (
                [f"position {p}" for p in clash] if ids is None else [str(ids[p]) for p in clash]
            )
            pairs = [
                f"{w!r}: {baseline.clusters[p]!r} vs {candidate.clusters[p]!r}"
                for w, p in zip(where[:3], clash[:3], strict=False)
            ]
            raise DataError(
                f"{clash.size} item(s) have a different cluster label in baseline and candidate "
                f"({'; '.join(pairs)}); an item belongs to one cluster. Fix the labels or take "
                "them from one side."
            )
        labels = baseline.clusters
    else:
        labels = baseline.clusters if baseline.clusters is not None else candidate.clusters
    if labels is None:
        return None, None
    codes, names = factorize(labels)
    return codes, names


def labels_in_order(
    cluster: object, n: int, *, unit: str = "item", count: str | None = None
) -> np.ndarray:
    """One cluster label per item (or task) in order, as text; a clear error for a column
    name, another type, a wrong length or a missing label. ``count`` says how many there
    are in the length error (default: "there are {n} {unit}s")."""
    if isinstance(cluster, str):
        raise DataError(
            f"`cluster`={cluster!r} names a column, but the data are arrays or mappings "
            f"with no columns; pass one label per {unit} instead."
        )
    if not isinstance(cluster, (Sequence, np.ndarray)) or isinstance(cluster, bytes):
        raise DataError(
            f"`cluster` must be a column name, a sequence of labels in {unit} order or a "
            f"mapping {unit} id -> label; got {type(cluster).__name__}."
        )
    values = list(cluster)
    if len(values) != n:
        raise DataError(
            f"`cluster` has {len(values)} labels but {count or f'there are {n} {unit}s'}; "
            f"give one label per {unit}, in {unit} order (or a mapping {unit} id -> label)."
        )
    bad = [i for i, v in enumerate(values) if v is None or (isinstance(v, float) and v != v)]
    if bad:
        raise DataError(
            f"`cluster` is missing for {len(bad)} {unit}(s) (positions {examples(bad)}); "
            f"every {unit} needs a cluster label (one of no group can be a cluster of its own)."
        )
    out = np.empty(len(values), dtype=object)
    out[:] = [str(v) for v in values]
    return out


def labels_by_id(
    cluster: Mapping[object, object], ids: np.ndarray | None, *, unit: str = "item"
) -> np.ndarray:
    """The cluster label of each id, in the order of ``ids``, from a mapping id -> label
    (keys compared as text); a clear error when there are no ids or one has no label."""
    if ids is None:
        raise DataError(
            f"`cluster` is a mapping from {unit} id to label, but the {unit}s have no ids (an "
            f"array); pass a sequence of labels in {unit} order instead."
        )
    by_id = {str(k): v for k, v in cluster.items()}
    missing = [i for i in ids.tolist() if str(i) not in by_id]
    if missing:
        raise DataError(
            f"`cluster` has no label for {len(missing)} {unit}(s) ({examples(missing)}); "
            f"give every {unit} a cluster."
        )
    return labels_in_order([by_id[str(i)] for i in ids.tolist()], len(ids), unit=unit)


def table_cluster_codes(
    table: ScoreTable,
    cluster: object,
    *,
    unit: str = "item",
    count: str | None = None,
    drop: str = "`cluster`",
) -> np.ndarray | None:
    """Integer cluster codes ``0..G-1`` of a table's items (or tasks), from its own cluster
    column (``cluster`` None or a column name) or from ``cluster`` (labels in order, or a
    mapping id -> label); None without any. Labels given twice, or a single cluster, are
    errors (``drop`` is how the message names the option to leave out)."""
    labels = table.clusters
    if cluster is not None and not isinstance(cluster, str):
        if labels is not None:
            raise DataError(
                "cluster labels were given twice: in the data (a cluster column) and as the "
                "`cluster` argument; give them once."
            )
        if isinstance(cluster, Mapping):
            labels = labels_by_id(cluster, table.item_ids, unit=unit)
        else:
            labels = labels_in_order(cluster, table.n_items, unit=unit, count=count)
    if labels is None:
        return None
    codes, names = factorize(labels)
    if len(names) < 2:
        raise DataError(
            f"all {table.n_items} {unit}s are in one cluster ({examples(names)}): a "
            f"cluster-robust interval needs at least 2 clusters (and about {FEW_CLUSTERS} for "
            f"reliable results). Give the real cluster labels, or drop {drop} if the {unit}s "
            "are independent."
        )
    return codes


def as_strata(paired: PairedScores) -> PairedScores:
    """The pair with its group labels read as strata, not clusters."""
    return replace(
        paired,
        strata_codes=paired.cluster_codes,
        strata_labels=paired.cluster_labels,
        cluster_codes=None,
        cluster_labels=None,
    )
