"""Pairwise battles as arrays, and their exact compression to counts.

A battle is ``(model_a, model_b, outcome)`` with outcome 1 (a wins), 0 (b wins) or 0.5
(a tie); fractional outcomes in [0, 1] (a judge's probability of preferring a) are kept
as they are. Optional per battle: a weight (arena-hard-auto counts a strong verdict
several times), a cluster (the prompt: battles on one prompt are not independent) and
feature differences ``x_a - x_b`` (style control: length, markdown counts).

Identical rows add up: :func:`compress` turns a million battles over 200 models into at
most ``3 * 200 * 199`` rows with counts (times the clusters, when given), and every
likelihood, information matrix and sandwich below is an exact sum over those rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evalsig._deprecation import renamed
from evalsig.data.provenance import Origin
from evalsig.errors import DataError, examples

__all__ = ["Battles", "Compressed", "battles", "compress"]

_TIE_CODES = np.array([0.0, 0.5, 1.0])


@dataclass(frozen=True, slots=True, kw_only=True)
class Battles:
    """Battles as parallel arrays; models are codes into :attr:`models`."""

    models: tuple[str, ...]
    model_a: np.ndarray = field(repr=False)
    model_b: np.ndarray = field(repr=False)
    outcome: np.ndarray = field(repr=False)
    weight: np.ndarray | None = field(default=None, repr=False)
    cluster: np.ndarray | None = field(default=None, repr=False)
    """Cluster codes (0 .. n_clusters - 1), e.g. the prompt."""
    features: np.ndarray | None = field(default=None, repr=False)
    """``n x p`` feature differences, model a's minus model b's."""
    feature_names: tuple[str, ...] = ()
    source: str = "`battles`"
    notes: tuple[str, ...] = ()
    origin: Origin | None = None
    """The file(s) read, for the result's provenance."""

    def __len__(self) -> int:
        return len(self.outcome)

    @property
    def n_clusters(self) -> int | None:
        return None if self.cluster is None else int(self.cluster.max(initial=-1)) + 1

    def battles_per_model(self) -> np.ndarray:
        """Battles each model took part in (weights not applied)."""
        m = len(self.models)
        return np.bincount(self.model_a, minlength=m) + np.bincount(self.model_b, minlength=m)


@dataclass(frozen=True, slots=True)
class Compressed:
    """Distinct battle rows and how many battles each stands for."""

    n_models: int
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    count: np.ndarray
    """float64 counts (so that a bootstrap can reweigh them)."""
    weight: np.ndarray
    cluster: np.ndarray | None
    features: np.ndarray | None


@renamed(clusters="cluster")
def battles(
    model_a: Sequence[str] | np.ndarray,
    model_b: Sequence[str] | np.ndarray,
    outcome: Sequence[float] | np.ndarray,
    /,
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    cluster: Sequence[object] | np.ndarray | None = None,
    features: np.ndarray | Sequence[Sequence[float]] | None = None,
    feature_names: Sequence[str] | None = None,
    source: str = "`battles`",
    notes: Sequence[str] = (),
    origin: Origin | None = None,
) -> Battles:
    """Validated :class:`Battles` from model names and outcomes (1 a wins, 0 b wins, 0.5 tie).

    Raises
    ------
    DataError
        Arrays of different lengths, a model against itself, an outcome outside [0, 1],
        a weight that is not positive and finite, a missing cluster, a feature that is NaN.

    >>> b = battles(["x", "y"], ["y", "z"], [1, 0.5])
    >>> b.models, b.model_a.tolist(), b.model_b.tolist()
    (('x', 'y', 'z'), [0, 1], [1, 2])
    """
    names_a = np.asarray(model_a, dtype=object)
    names_b = np.asarray(model_b, dtype=object)
    y = np.asarray(outcome, dtype=np.float64)
    n = len(y)
    for name, values in (("model_a", names_a), ("model_b", names_b)):
        if values.ndim != 1 or len(values) != n:
            raise DataError(f"{source}: `{name}` has {len(values)} entries for {n} outcomes.")
    if n == 0:
        raise DataError(f"{source}: no battles; give at least one (model_a, model_b, outcome).")
    bad = np.flatnonzero(~np.isfinite(y) | (y < 0) | (y > 1))
    if len(bad):
        raise DataError(
            f"{source}: `outcome` must lie in [0, 1] (1 a wins, 0 b wins, 0.5 tie); battle "
            f"{bad[0]} has {float(y[bad[0]])!r} ({len(bad)} such). Map the outcomes first."
        )
    models, a, b = _codes(names_a.tolist(), names_b.tolist(), source)
    same = np.flatnonzero(a == b)
    if len(same):
        raise DataError(
            f"{source}: battle {same[0]} pits {str(models[a[same[0]]])!r} against itself "
            f"({len(same)} such); remove self-battles."
        )
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (n,):
            raise DataError(f"{source}: `weights` has shape {w.shape}; give one per battle ({n}).")
        bad = np.flatnonzero(~np.isfinite(w) | (w <= 0))
        if len(bad):
            raise DataError(
                f"{source}: `weights` must be positive and finite; battle {bad[0]} has "
                f"{float(w[bad[0]])!r}. Drop zero-weight battles explicitly."
            )
    g = None
    if cluster is not None:
        labels = np.asarray(cluster, dtype=object)
        if labels.shape != (n,):
            raise DataError(f"{source}: `cluster` has shape {labels.shape}; give one per battle.")
        missing = [i for i, v in enumerate(labels) if v is None or v != v]
        if missing:
            raise DataError(
                f"{source}: `cluster` is missing for battles {examples(missing)}; "
                "give every battle a cluster (e.g. its prompt id)."
            )
        _, g = np.unique(labels.astype(str), return_inverse=True)
        g = g.astype(np.int64)
    x = None
    names: tuple[str, ...] = ()
    if features is not None:
        x = np.asarray(features, dtype=np.float64)
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2 or len(x) != n:
            raise DataError(
                f"{source}: `features` has shape {x.shape}; give n x p differences ({n} rows)."
            )
        bad = np.flatnonzero(~np.isfinite(x).all(axis=1))
        if len(bad):
            raise DataError(
                f"{source}: `features` has NaN or infinite values in battles "
                f"{examples(bad.tolist())}; fill or drop them."
            )
        names = (
            tuple(f"x{j}" for j in range(x.shape[1]))
            if feature_names is None
            else tuple(feature_names)
        )
        if len(names) != x.shape[1]:
            raise DataError(
                f"{source}: `feature_names` has {len(names)} names for {x.shape[1]} features."
            )
    return Battles(
        models=tuple(str(m) for m in models), model_a=a, model_b=b, outcome=y, weight=w,
        cluster=g, features=x, feature_names=names, source=source, notes=tuple(notes),
        origin=origin,
    )  # fmt: skip


def _codes(
    names_a: list[object], names_b: list[object], source: str
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Sorted model names and the codes of both sides (names compared as text)."""
    try:
        distinct = set(names_a) | set(names_b)
    except TypeError:
        raise DataError(
            f"{source}: model names must be text; some are lists or mappings."
        ) from None
    if any(_missing(v) for v in distinct):
        for side, names in (("model_a", names_a), ("model_b", names_b)):
            bad = [i for i, v in enumerate(names) if _missing(v)]
            if bad:
                raise DataError(
                    f"{source}: `{side}` is missing for battles {examples(bad)}; name every model."
                )
    text = {value: str(value) for value in distinct}
    models = sorted(set(text.values()))
    position = {name: i for i, name in enumerate(models)}
    code = {value: position[name] for value, name in text.items()}
    a = np.fromiter(map(code.__getitem__, names_a), dtype=np.int64, count=len(names_a))
    b = np.fromiter(map(code.__getitem__, names_b), dtype=np.int64, count=len(names_b))
    return models, a, b


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def compress(data: Battles, /, *, by_cluster: bool = True) -> Compressed:
    """Identical ``(a, b, outcome[, weight][, cluster][, features])`` rows summed to counts.

    Exact: every sum over battles equals the count-weighted sum over the rows. Rows come
    out sorted by their key, so the result does not depend on the battles' order.

    >>> c = compress(battles(["x", "x", "y"], ["y", "y", "x"], [1, 1, 0.5]))
    >>> c.a.tolist(), c.b.tolist(), c.outcome.tolist(), c.count.tolist()
    ([0, 1], [1, 0], [1.0, 0.5], [2.0, 1.0])
    """
    m = len(data.models)
    cluster = data.cluster if by_cluster else None
    code = np.searchsorted(_TIE_CODES, data.outcome)
    simple = (
        data.weight is None
        and data.features is None
        and bool(np.all(_TIE_CODES[np.minimum(code, 2)] == data.outcome))
    )
    if simple:
        key = (data.model_a * m + data.model_b) * 3 + code
        if cluster is not None:
            key = key + cluster * (3 * m * m)
        unique, inverse = np.unique(key, return_inverse=True)
        count = np.bincount(inverse).astype(np.float64)
        rest, y = np.divmod(unique, 3)
        rest, ab = np.divmod(rest, m * m)
        a, b = np.divmod(ab, m)
        return Compressed(
            m, a, b, _TIE_CODES[y], count, np.ones(len(unique)),
            None if cluster is None else rest, None,
        )  # fmt: skip
    columns = [data.model_a, data.model_b, data.outcome]
    columns.append(np.ones(len(data)) if data.weight is None else data.weight)
    if cluster is not None:
        columns.append(cluster)
    table = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
    if data.features is not None:
        table = np.column_stack([table, data.features])
    unique, inverse = np.unique(table, axis=0, return_inverse=True)
    count = np.bincount(inverse.ravel()).astype(np.float64)
    k = 5 if cluster is not None else 4
    return Compressed(
        m,
        unique[:, 0].astype(np.int64),
        unique[:, 1].astype(np.int64),
        unique[:, 2].copy(),
        count,
        unique[:, 3].copy(),
        unique[:, 4].astype(np.int64) if cluster is not None else None,
        unique[:, k:].copy() if data.features is not None else None,
    )
