"""Benchmark noise: run-to-run versus item variance, signal-to-noise, and what buys resolution.

Per model, a one-way random-effects ANOVA (items random, runs nested in items) splits the
scores into an item (data) component and a run (prediction) component; the benchmark pools
them across models, sets the models' spread (signal) against the run-to-run spread of a
benchmark score (noise), gives the smallest paired difference it resolves (MDE), and how the
standard error of a model's score moves with more runs or more items.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from evalsig._json import SCHEMA_VERSION, json_safe
from evalsig.data.loading import load, load_tasks
from evalsig.data.models import ModelScores, align_models, model_scores
from evalsig.data.paired import OnMismatch, OnMissing
from evalsig.data.provenance import Provenance, provenance
from evalsig.data.table import ScoreTable, same_ids
from evalsig.errors import DataError, examples
from evalsig.inference.components import nested_runs
from evalsig.power._common import check_alpha, check_power, check_runs
from evalsig.power.mde import minimum_detectable_effect
from evalsig.power.paired_t import RunsTradeoff, paired_t_detectable_effect, runs_tradeoff
from evalsig.result import Result

__all__ = ["DesignOption", "ModelNoise", "NoiseResult", "benchmark_noise"]

METHOD = "one-way random-effects ANOVA (method of moments), per model"

NO_RUN_NOISE = (
    "undefined: the scores do not vary between runs (run-to-run variance 0), so there is "
    "no noise to set the spread against"
)
NO_PAIRED_SPREAD = (
    "undefined: the models' per-item differences do not vary (SD 0), so a paired test has "
    "no spread to judge a difference by"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelNoise:
    """One model's score and its variance components."""

    model: str
    mean: float
    """Mean over items of the per-item mean scores."""
    runs: float
    """Mean runs per item."""
    item_variance: float
    """s_item^2: variance of the items' true scores (truncated at 0)."""
    run_variance: float | None
    """s_run^2: pooled within-item variance of one run; None with one run per item."""
    se: float
    """Standard error of ``mean``: ``sqrt(Var_i(item means) / N)``."""
    noise_sd: float | None
    """SD of one run's benchmark score, ``sqrt(s_run^2 / N)``; None without runs."""
    truncated: bool = False
    """The item component's estimate was negative and set to 0."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignOption:
    """A model's standard error, and the paired MDE, with ``n_items`` items x ``runs`` runs."""

    n_items: int
    runs: int
    se: float
    """``sqrt(s_item^2 / N + s_run^2 / (N R))`` with the pooled components."""
    mde: float
    """Smallest paired difference detected at (alpha, power)."""

    @property
    def evaluations(self) -> int:
        """Model calls per model: ``N x R``."""
        return self.n_items * self.runs


@dataclass(frozen=True, slots=True, kw_only=True)
class NoiseResult(Result):
    """Noise diagnostics of one benchmark over a set of models."""

    kind: ClassVar[str] = "benchmark-noise"

    models: tuple[ModelNoise, ...]
    n_items: int
    runs: float
    """Mean runs per item over all models."""
    mean: float
    """Mean of the models' scores."""
    item_variance: float
    """Pooled s_item^2 (mean over models, truncated at 0)."""
    run_variance: float | None
    """Pooled s_run^2 (mean over models); None when some model has one run per item."""
    spread: float
    """``max_j m_j - min_j m_j``: the largest difference between two models' scores."""
    sd_means: float
    """SD of the models' scores (ddof 1)."""
    noise_sd: float | None
    """SD of one run's benchmark score, ``sqrt(s_run^2 / N)`` (pooled)."""
    signal: float | None
    """Relative dispersion ``spread / mean`` (Heineman et al. 2025); None unless mean > 0."""
    noise: float | None
    """Relative noise ``noise_sd / mean``; None unless mean > 0 and runs are known."""
    snr: float | None
    """``signal / noise = spread / noise_sd``; NaN (undefined, with a note) when the scores
    do not vary between runs, None when runs are not separated."""
    sd_paired: float
    """Root mean over model pairs of the variance of per-item mean differences."""
    mde: float
    """Smallest paired difference detected with the current items and runs; NaN (undefined,
    with a note) when the per-item differences between models do not vary."""
    alpha: float
    power: float
    options: tuple[DesignOption, ...] = ()
    """SE and MDE for other numbers of items and runs (empty without run variance)."""
    gain_per_run: float | None = None
    """Fall in a model's SE from one more run of every item, per model call it costs."""
    gain_per_item: float | None = None
    """Fall in a model's SE from one more item (at the current runs), per model call."""
    tradeoff: RunsTradeoff | None = None
    """Items needed to resolve ``mde`` at each number of runs (paired t-test)."""
    method: str = METHOD
    notes: tuple[str, ...] = ()
    provenance: Provenance | None = field(default=None, compare=False)

    @property
    def better(self) -> Literal["items", "runs"] | None:
        """Which extra evaluation lowers the SE more per model call (None when neither
        lowers it: the scores vary neither between items nor between runs)."""
        if self.gain_per_item is None or self.gain_per_run is None:
            return None
        if self.gain_per_item <= 0 and self.gain_per_run <= 0:
            return None
        return "items" if self.gain_per_item >= self.gain_per_run else "runs"

    def to_dict(self) -> dict[str, Any]:
        nulls: dict[str, str] = {}
        not_positive = "the mean score is not positive: a relative spread is undefined"
        no_runs = "one run per item: run-to-run noise cannot be separated from item spread"
        if self.run_variance is None:
            for name in ("run_variance", "noise_sd", "noise", "snr", "gain_per_run"):
                nulls[name] = no_runs
            nulls["gain_per_item"] = no_runs
        elif self.mean <= 0:
            nulls["noise"] = not_positive
        if self.signal is None:
            nulls["signal"] = not_positive
        snr = json_safe(self.snr, "snr", nulls, NO_RUN_NOISE)
        mde = json_safe(self.mde, "mde", nulls, NO_PAIRED_SPREAD)
        return {
            "kind": "benchmark-noise",
            "schema_version": SCHEMA_VERSION,
            "method": self.method,
            "n_models": len(self.models),
            "n_items": self.n_items,
            "runs": self.runs,
            "mean": self.mean,
            "item_variance": self.item_variance,
            "run_variance": self.run_variance,
            "spread": self.spread,
            "sd_means": self.sd_means,
            "noise_sd": self.noise_sd,
            "signal": self.signal,
            "noise": self.noise,
            "snr": snr,
            "sd_paired": self.sd_paired,
            "mde": mde,
            "alpha": self.alpha,
            "power": self.power,
            "models": [
                {
                    "model": m.model,
                    "mean": m.mean,
                    "runs": m.runs,
                    "item_variance": m.item_variance,
                    "run_variance": m.run_variance,
                    "se": m.se,
                    "noise_sd": m.noise_sd,
                    "truncated": m.truncated,
                }
                for m in self.models
            ],
            "options": [
                {
                    "n_items": o.n_items,
                    "runs": o.runs,
                    "evaluations": o.evaluations,
                    "se": o.se,
                    "mde": json_safe(o.mde, "options.mde", nulls, NO_PAIRED_SPREAD),
                }
                for o in self.options
            ],
            "gain_per_run": self.gain_per_run,
            "gain_per_item": self.gain_per_item,
            "better": self.better,
            "tradeoff": None if self.tradeoff is None else self.tradeoff.to_dict(),
            "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }

    def to_frame(self) -> Any:
        """One row per model: model, mean, runs, item_variance, run_variance, se, noise_sd
        (NaN where unknown), truncated; the benchmark's numbers in ``frame.attrs``."""
        from evalsig._frame import data_frame, floats

        document = self.to_dict()
        rows = self.models
        return data_frame(
            {
                "model": [m.model for m in rows],
                "mean": floats(m.mean for m in rows),
                "runs": floats(m.runs for m in rows),
                "item_variance": floats(m.item_variance for m in rows),
                "run_variance": floats(m.run_variance for m in rows),
                "se": floats(m.se for m in rows),
                "noise_sd": floats(m.noise_sd for m in rows),
                "truncated": np.array([m.truncated for m in rows], dtype=bool),
            },
            attrs={k: v for k, v in document.items() if k not in ("models", "options")},
        )

    def options_frame(self) -> Any:
        """One row per design option: n_items, runs, evaluations, se, mde."""
        from evalsig._frame import data_frame, floats, ints

        rows = self.options
        return data_frame(
            {
                "n_items": ints(o.n_items for o in rows),
                "runs": ints(o.runs for o in rows),
                "evaluations": ints(o.evaluations for o in rows),
                "se": floats(o.se for o in rows),
                "mde": floats(o.mde for o in rows),
            }
        )


@dataclass(frozen=True, slots=True)
class _Moments:
    """Per-item sums of one model's runs, aligned with the benchmark's items."""

    sums: np.ndarray
    sumsq: np.ndarray
    counts: np.ndarray


def benchmark_noise(
    models: Any,
    /,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    runs: Sequence[int] = (1, 2, 4, 8, 16),
    items: Sequence[int] | None = None,
    model_column: str = "model",
    on_missing: OnMissing = "error",
    on_mismatch: OnMismatch = "error",
) -> NoiseResult:
    """Noise diagnostics of a benchmark: variance components, signal-to-noise, MDE, design.

    Parameters
    ----------
    models : mapping, ModelScores, path or DataFrame
        ``{model: scores}`` with anything :func:`evalsig.load` reads (a :class:`ScoreTable`,
        a ``runs x items`` array, ``{item_id: [run scores]}``, a file); or a long table with
        a ``model_column``; or a :class:`~evalsig.data.models.ModelScores` (per-item means
        only: run-to-run noise is then not separated). Items are aligned by id.
    alpha, power : float
        Target of the minimum detectable effect (two-sided paired test).
    runs : sequence of int
        Runs per item of the design options and the runs trade-off.
    items : sequence of int, optional
        Items of the design options; by default N/2, N, 2N and 4N.
    model_column : str
        The model column of a long table.
    on_missing, on_mismatch
        Items some models lack, content keys that differ (see :func:`evalsig.leaderboard`).

    Returns
    -------
    NoiseResult

    Notes
    -----
    Model j, item i with ``r_i`` runs ``y_ir``, item means ``ybar_i``:
    ``s_run^2 = sum_i sum_r (y_ir - ybar_i)^2 / sum_i (r_i - 1)`` (within-item mean square)
    and ``s_item^2 = Var_i(ybar_i) - s_run^2 mean_i(1 / r_i)``, set to 0 when negative
    (noted); both unbiased (with equal runs, the ANOVA estimators; REML agrees when the
    item component is positive). ``Var(mean) = s_item^2 / N + s_run^2 / (N R)``.

    Signal and noise follow Heineman et al. (2025): ``signal = max_{j,k} |m_j - m_k| / mbar``
    (relative dispersion of the models' scores), ``noise = sigma / mbar`` with ``sigma``
    the SD of one evaluation's score under repeated runs, here ``sqrt(s_run^2 / N)``
    (pooled over models) in place of their spread over final training checkpoints;
    ``SNR = signal / noise``.

    MDE: :func:`evalsig.power.minimum_detectable_effect` at N items with the pooled SD of
    per-item mean differences between models. Marginal gains compare one more run of every
    item (N model calls) with one more item (R calls), per call: items win whenever they
    can be had, at the margin by the factor ``1 + s_item^2 R / s_run^2``.

    References
    ----------
    Heineman, D. et al. (2025). Signal and Noise: A Framework for Reducing Uncertainty in
    Language Model Evaluation. arXiv:2508.13144.
    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). Variance Components, ch. 3.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.2, 0.9, 500)
    >>> scores = {f"m{k}": (rng.random((4, 500)) < np.clip(p + 0.03 * k, 0, 1)).astype(int)
    ...           for k in range(3)}
    >>> result = benchmark_noise(scores)
    >>> result.n_items, result.runs, result.better
    (500, 4.0, 'items')
    """
    alpha, power = check_alpha(alpha), check_power(power)
    chosen_runs = tuple(check_runs(r) for r in runs)
    if not chosen_runs:
        raise DataError("`runs` is empty; pass e.g. runs=(1, 2, 4, 8).")
    scores, moments = _read(models, model_column, on_missing, on_mismatch)
    chosen_items = _items(items, scores.n_items)
    notes = list(scores.notes)
    fitted = [
        _model(name, scores.scores[j], None if moments is None else moments[j], notes)
        for j, name in enumerate(scores.names)
    ]
    item_pooled = _pooled_item_variance([raw for _, raw, _ in fitted], notes)
    pair_var = _pair_variance(scores.scores)
    result = _pooled(
        scores,
        [row for row, _, _ in fitted],
        item_pooled,
        pair_var,
        alpha=alpha,
        power=power,
        notes=notes,
    )
    if result.run_variance is None or moments is None:
        return result
    inverse = [inv for _, _, inv in fitted]
    return _with_design(result, pair_var, inverse, chosen_items, chosen_runs, notes)


def _pooled_item_variance(raw: list[float], notes: list[str]) -> float:
    """The models' mean untruncated item component, truncated at 0 (noted)."""
    item_pooled = float(np.mean(raw))
    if item_pooled < 0:
        notes.append(
            f"pooled over models, run-to-run noise explains all the spread between items: "
            f"item variance set to 0 (estimate {item_pooled:.3g})"
        )
    return max(item_pooled, 0.0)


def _pooled(
    scores: ModelScores,
    rows: list[ModelNoise],
    item_pooled: float,
    pair_var: float,
    *,
    alpha: float,
    power: float,
    notes: list[str],
) -> NoiseResult:
    """The benchmark's signal, noise and MDE from the models' components (no design yet)."""
    n = scores.n_items
    means = np.array([m.mean for m in rows])
    grand = float(means.mean())
    spread = float(means.max() - means.min())
    sd_paired = math.sqrt(pair_var)
    mde = _paired_mde(n, sd_paired, alpha, power, notes)
    run_pooled = _pooled_run_variance(rows, notes)
    noise_sd = None if run_pooled is None else math.sqrt(run_pooled / n)
    if run_pooled == 0:
        notes.append(
            "the scores do not vary between runs (run-to-run variance 0): the noise is 0, so "
            "the SNR is undefined (not infinite), and more runs cannot lower the SE"
        )
    return NoiseResult(
        models=tuple(rows),
        n_items=n,
        runs=float(np.mean([m.runs for m in rows])),
        mean=grand,
        item_variance=item_pooled,
        run_variance=run_pooled,
        spread=spread,
        sd_means=float(np.std(means, ddof=1)),
        noise_sd=noise_sd,
        signal=spread / grand if grand > 0 else None,
        noise=None if noise_sd is None or grand <= 0 else noise_sd / grand,
        snr=None if noise_sd is None else _ratio(spread, noise_sd),
        sd_paired=sd_paired,
        mde=mde,
        alpha=alpha,
        power=power,
        notes=tuple(notes),
        provenance=provenance(
            zip(scores.names, scores.origins or (None,) * scores.n_models, strict=True)
        ),
    )


def _paired_mde(n: int, sd_paired: float, alpha: float, power: float, notes: list[str]) -> float:
    """The MDE of a paired test on ``n`` items; NaN (noted) when the differences do not vary."""
    if sd_paired > 0:
        return float(minimum_detectable_effect(n, sd=sd_paired, alpha=alpha, power=power) or 0.0)
    notes.append(
        "the models' per-item differences do not vary (their SD is 0: the models agree "
        "on every item, or differ by the same amount on each): the MDE is undefined, "
        "not 0, since a paired test has no spread to judge a difference by"
    )
    return math.nan


def _pooled_run_variance(rows: list[ModelNoise], notes: list[str]) -> float | None:
    """The models' mean run-to-run variance; None (noted) when a model has one run."""
    lacking = [m.model for m in rows if m.run_variance is None]
    if lacking:
        notes.append(
            f"models {examples(lacking)} have one run per item (or only per-item means): "
            "run-to-run noise is not separated, and noise, SNR and the design options "
            "need it; give several runs per item of every model"
        )
        return None
    return float(np.mean([m.run_variance for m in rows]))


def _with_design(
    base: NoiseResult,
    pair_var: float,
    inverse_runs: list[float],
    items: tuple[int, ...],
    runs: tuple[int, ...],
    notes: list[str],
) -> NoiseResult:
    """Design options, marginal gains and the runs trade-off from the pooled components;
    ``inverse_runs`` holds each model's ``mean_i(1 / r_i)``."""
    from dataclasses import replace

    a, b = base.item_variance, float(base.run_variance or 0.0)
    n, r = base.n_items, 1.0 / float(np.mean(inverse_runs))  # harmonic mean of the runs
    # per-item mean differences of a pair: between-item part and one run's noise (both models)
    within = 2.0 * b
    share = 2.0 * float(
        np.mean(
            [
                (m.run_variance or 0.0) * inv
                for m, inv in zip(base.models, inverse_runs, strict=True)
            ]
        )
    )
    between = pair_var - share
    if between < 0:
        notes.append(
            "run-to-run noise explains all the spread of per-item differences between "
            f"models: their between-item variance set to 0 (estimate {between:.3g})"
        )
        between = 0.0

    def se(size: float, reps: float) -> float:
        return math.sqrt((a + b / reps) / size)

    def mde(size: int, reps: int) -> float:
        sd = math.sqrt(between + within / reps)
        if sd == 0:
            return math.nan  # undefined, as the benchmark's MDE (noted)
        return paired_t_detectable_effect(size, sd, alpha=base.alpha, power=base.power)

    options = tuple(
        DesignOption(n_items=size, runs=reps, se=se(size, reps), mde=mde(size, reps))
        for size in items
        for reps in runs
    )
    now = se(n, r)
    if now == 0:
        notes.append(
            "the scores vary neither between items nor between runs: every standard error "
            "is 0, and neither more items nor more runs can be advised"
        )
    tradeoff = None
    if base.mde > 0:
        tradeoff = runs_tradeoff(
            base.mde,
            math.sqrt(between),
            math.sqrt(within),
            runs=runs,
            alpha=base.alpha,
            power=base.power,
        )
    return replace(
        base,
        options=options,
        gain_per_run=(now - se(n, r + 1)) / n,
        gain_per_item=(now - se(n + 1, r)) / r,
        tradeoff=tradeoff,
        notes=tuple(notes),
    )


def _read(
    models: Any, model_column: str, on_missing: OnMissing, on_mismatch: OnMismatch
) -> tuple[ModelScores, list[_Moments] | None]:
    """The aligned models, and each model's per-item run sums (None for ModelScores)."""
    if isinstance(models, ModelScores):
        aligned = align_models(models, on_missing=on_missing, on_mismatch=on_mismatch)
        return aligned, None
    if isinstance(models, Mapping):
        tables = {
            str(name): data if isinstance(data, ScoreTable) else load(data, name=str(name))
            for name, data in models.items()
        }
    elif isinstance(models, (str, bytes)) or hasattr(models, "columns") or _is_path(models):
        tables = load_tasks(models, task_column=model_column)
    else:
        raise DataError(
            f"`models` is a {type(models).__name__}; pass a mapping {{model: scores}} (runs x "
            "items arrays, ScoreTables, files), a long table with a model column, or "
            "ModelScores."
        )
    scores = model_scores(tables, on_missing=on_missing, on_mismatch=on_mismatch)
    return scores, [_aligned(t, scores.item_ids) for t in tables.values()]


def _is_path(value: object) -> bool:
    from os import PathLike

    return isinstance(value, PathLike)


def _aligned(table: ScoreTable, ids: np.ndarray) -> _Moments:
    """The table's per-item sums in the order of ``ids`` (arrays: ids are positions)."""
    own = table.item_ids
    index: slice | np.ndarray = slice(None)  # in order already: no lookup
    in_order = len(ids) == table.n_items if own is None else same_ids(own, ids)
    if not in_order:
        labels = np.arange(table.n_items).astype(str) if own is None else own
        position = {str(label): k for k, label in enumerate(labels.tolist())}
        index = np.array([position[str(i)] for i in ids.tolist()], dtype=np.int64)
    return _Moments(
        sums=np.asarray(table.sums, dtype=float)[index],
        sumsq=np.asarray(table.sumsq, dtype=float)[index],
        counts=np.asarray(table.counts, dtype=float)[index],
    )


def _model(
    name: str, item_means: np.ndarray, sums: _Moments | None, notes: list[str]
) -> tuple[ModelNoise, float, float]:
    """Method-of-moments components of one model (see :func:`benchmark_noise`), with the
    untruncated item component (its mean over models is unbiased) and ``mean_i(1/r_i)``."""
    n = len(item_means)
    observed = float(np.var(item_means, ddof=1))
    mean = float(item_means.mean())
    se = math.sqrt(observed / n)
    if sums is None or float(np.sum(sums.counts - 1)) == 0:
        runs = 1.0 if sums is None else float(sums.counts.mean())
        row = ModelNoise(
            model=name, mean=mean, runs=runs, item_variance=observed, run_variance=None,
            se=se, noise_sd=None,
        )  # fmt: skip
        return row, observed, 1.0 / runs
    moments = nested_runs(sums.sums, sums.sumsq, sums.counts, means=item_means)
    run_var, inverse = moments.run_variance, moments.mean_inverse_runs
    raw = moments.item_variance
    if raw < 0:
        notes.append(
            f"model {name!r}: run-to-run noise explains all the spread between items: item "
            f"variance set to 0 (estimate {raw:.3g})"
        )
    row = ModelNoise(
        model=name,
        mean=mean,
        runs=float(sums.counts.mean()),
        item_variance=max(raw, 0.0),
        run_variance=run_var,
        se=se,
        noise_sd=math.sqrt(run_var / n),
        truncated=raw < 0,
    )
    return row, raw, inverse


def _ratio(spread: float, noise_sd: float) -> float:
    """``spread / noise_sd``; NaN (undefined) without run-to-run noise."""
    return spread / noise_sd if noise_sd > 0 else math.nan


def _pair_variance(scores: np.ndarray) -> float:
    r"""Mean over model pairs of ``Var_i(ybar_ai - ybar_bi)`` (ddof 1), in O(models x items):
    :math:`\sum_{a<b} \mathrm{Var}(y_a - y_b) = m \sum_a \mathrm{Var}(y_a) -
    \mathrm{Var}(\sum_a y_a)` (the pairs' covariances sum to the variance of the total)."""
    m = len(scores)
    total = m * scores.var(axis=1, ddof=1).sum() - scores.sum(axis=0).var(ddof=1)
    return float(max(total / (m * (m - 1) / 2), 0.0))


def _items(items: Sequence[int] | None, n: int) -> tuple[int, ...]:
    if items is None:
        return tuple(sorted({max(2, math.ceil(n / 2)), n, 2 * n, 4 * n}))
    chosen = tuple(check_runs(i, name="items") for i in items)
    if any(i < 2 for i in chosen):
        raise DataError(f"`items` must be integers of at least 2; got {tuple(items)!r}.")
    if not chosen:
        raise DataError("`items` is empty; pass e.g. items=(500, 1000, 2000) or leave it out.")
    return chosen
