r"""Bradley-Terry leaderboards from pairwise battles, with honest intervals.

Examples
--------
>>> import numpy as np
>>> from evalsig.arena import battles, bradley_terry
>>> rng = np.random.default_rng(0)
>>> strength = {"alpha": 0.8, "beta": 0.0, "gamma": -0.8}
>>> names = list(strength)
>>> a = rng.integers(0, 3, 3000); b = (a + rng.integers(1, 3, 3000)) % 3
>>> p = 1 / (1 + np.exp(-np.array([strength[names[i]] - strength[names[j]] for i, j in zip(a, b)])))
>>> data = battles([names[i] for i in a], [names[j] for j in b], (rng.random(3000) < p) * 1.0)
>>> result = bradley_terry(data, scale="logit")
>>> [row["model"] for row in result.to_dict()["rows"]]
['alpha', 'beta', 'gamma']
>>> result.rank_low.tolist(), result.rank_high.tolist()
([1, 2, 3], [1, 2, 3])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalsig._deprecation import renamed
from evalsig.arena.battle_arrays import Battles, Compressed, compress
from evalsig.arena.bootstrap import bootstrap_params
from evalsig.arena.fit import Correction, Fit, Ties, check_estimable, fit
from evalsig.arena.ranks import Ranks, simultaneous_ranks
from evalsig.arena.result import ELO_SCALE, ArenaResult, Covariate
from evalsig.data.provenance import in_memory_origin, provenance
from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level, seeded

__all__ = ["bradley_terry"]

Scale = Literal["elo", "logit"]
Interval = Literal["sandwich", "bootstrap"]


@renamed(interval="method", cluster_correction="variant")
def bradley_terry(
    data: Battles,
    /,
    *,
    ties: Ties = "half",
    anchor: str | None = None,
    scale: Scale = "elo",
    covariates: Mapping[str, Sequence[float] | np.ndarray] | None = None,
    method: Interval = "sandwich",
    variant: Correction = "CR2",
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    n_draws: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> ArenaResult:
    r"""Bradley-Terry scores of the models in ``data`` with intervals, ranks and tie groups.

    Parameters
    ----------
    data : Battles
        From :func:`evalsig.arena.battles` or a reader of :mod:`evalsig.arena.readers`.
    ties : {"half", "davidson"}
        A tie as half a win for each side (Chatbot Arena), or Davidson's tie parameter
        ``nu`` (reported as ``tie_parameter``).
    anchor : str, optional
        A model whose score is fixed at 0 (1000 on the Elo scale); default: scores sum to
        zero (mean 1000 on the Elo scale).
    scale : {"elo", "logit"}
        ``"elo"``: ``400 / ln(10) * s + 1000``, Chatbot Arena's scale; ``"logit"``: ``s``.
    covariates : mapping of name to array, optional
        Per-battle feature differences (model a's minus model b's: answer length, markdown
        headers...), fitted as ``P(a beats b) = sigmoid(s_a - s_b + beta . x)``: style
        control. Default: the features ``data`` carries, if any.
    method : {"sandwich", "bootstrap"}
        Sandwich covariance (cluster-robust when ``data`` has clusters), or a percentile
        bootstrap over clusters (else battles) with one multinomial draw per resample
        shared by every model.
    variant : {"CR2", "CR1"}
        With clusters and ``method="sandwich"``: the bias-reduced CR2 covariance with
        t intervals on Bell-McCaffrey degrees of freedom (:mod:`evalsig.arena.cr2`), or
        CR1 (``G / (G - 1)`` times the summed cluster scores, normal intervals), which
        covers too rarely when clusters are few. CR2 applies to ``ties="half"``; Davidson
        ties, and data sets where the exact CR2 is too costly, use CR1 with a note.
    confidence_level : float
        Of the per-model intervals and of the simultaneous rank intervals.
    n_resamples, n_draws : int
        Bootstrap resamples; normal draws for the max-T critical value of the ranks.
    rng : numpy.random.Generator, int or None
        Seed of the draws (recorded in the result when an int).

    Returns
    -------
    ArenaResult

    Raises
    ------
    DataError
        Models that never met, a model that never lost or never won (infinite score), an
        unknown anchor, Davidson ties with no ties or fractional outcomes, bad covariates.

    Notes
    -----
    The log-likelihood ``sum_i w_i [y_i log p_i + (1 - y_i) log(1 - p_i)]``,
    ``p_i = sigmoid(s_{a_i} - s_{b_i} + beta . x_i)``, is maximised by Newton's method on
    the compressed rows (:mod:`evalsig.arena.fit`). Standard errors are the sandwich
    ``I^{-1} B I^{-1}``: with one battle per unit it is statsmodels' HC0; with clusters,
    CR2 adjusts each cluster's standardised residuals by
    ``[Phi_g (I - H_gg) Phi_g]^{-1/2} Phi_g`` (``Phi`` the working variances
    ``p (1 - p) / w``) before summing its scores (Bell & McCaffrey 2002; Pustejovsky &
    Tipton 2018, as clubSandwich's ``vcovCR(type = "CR2")`` for a ``glm``) and the
    interval is ``estimate +/- t_{nu, (1 + level) / 2} se`` with Bell-McCaffrey ``nu`` per
    score (clubSandwich's Satterthwaite degrees of freedom);
    CR1 sums the raw cluster scores times ``G / (G - 1)``. Ranks: max-T simultaneous
    intervals of every pairwise difference (:mod:`evalsig.arena.ranks`); under CR2 the
    critical value comes from draws of the largest pairwise t with each draw's own CR2
    standard errors (:func:`evalsig.arena.cr2.studentized_maxima`; a multivariate t on
    the smallest ``nu`` when those draws would be too costly).

    References
    ----------
    Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by
    human preference. ICML.
    Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust
    variance estimation and hypothesis testing in fixed effects models. JBES 36, 672-683.
    """
    level = _check_options(ties, scale, method, variant, confidence_level, n_resamples, n_draws)
    data = _with_covariates(data, covariates)
    _check_models(data, anchor, ties)
    rows = compress(data)
    check_estimable(rows, data.models, data.source)
    model = _fit_model(data, rows, ties, anchor, scale, method, variant)
    generator, seed = seeded(rng)
    boot_seed, rank_seed = np.random.SeedSequence(generator.integers(0, 2**63, 4)).spawn(2)
    if method == "bootstrap":
        bands = _bootstrap_intervals(model, ties, level, n_resamples, boot_seed)
    else:
        bands = _sandwich_intervals(model, level)
    null = _rank_null(model, bands, level, n_draws, rank_seed)
    ranks = simultaneous_ranks(
        model.params[: model.m], bands.cov[: model.m, : model.m], confidence_level=level,
        n_draws=n_draws, rng=rank_seed, df=null.df, critical_value=null.critical_value,
    )  # fmt: skip
    notes = [*data.notes, *bands.notes, *null.notes]
    if anchor is not None:
        notes.append(f"scores are relative to {anchor!r}, fixed at {model.offset:g} (its se is 0).")
    if ranks.critical_value and method == "sandwich" and model.fit.n_clusters is None:
        notes.append(
            "battles are treated as independent; give clusters (prompts) when several "
            "battles share a prompt."
        )
    return _arena_result(
        model, bands, null, ranks, data=data, ties=ties, scale=scale, anchor=anchor,
        interval=method, level=level, n_draws=n_draws, n_resamples=n_resamples, seed=seed,
        notes=tuple(notes),
    )  # fmt: skip


def _check_options(
    ties: object,
    scale: object,
    interval: object,
    cluster_correction: object,
    confidence_level: float,
    n_resamples: object,
    n_draws: object,
) -> float:
    """The confidence level, once every option of :func:`bradley_terry` is checked."""
    level = check_confidence_level(confidence_level)
    if ties not in ("half", "davidson"):
        raise DataError(f"`ties` is {ties!r}; use 'half' or 'davidson'.")
    if scale not in ("elo", "logit"):
        raise DataError(f"`scale` is {scale!r}; use 'elo' or 'logit'.")
    if interval not in ("sandwich", "bootstrap"):
        raise DataError(f"`method` is {interval!r}; use 'sandwich' or 'bootstrap'.")
    if cluster_correction not in ("CR2", "CR1"):
        raise DataError(f"`variant` is {cluster_correction!r}; use 'CR2' or 'CR1'.")
    for name, value, least in (("n_resamples", n_resamples, 100), ("n_draws", n_draws, 1000)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise DataError(f"`{name}` is {value!r}; use an integer of at least {least}.")
    return level


def _check_models(data: Battles, anchor: str | None, ties: Ties) -> None:
    """Two models or more, a known anchor, and outcomes that Davidson ties can fit."""
    models = data.models
    if len(models) < 2:
        raise DataError(f"{data.source}: battles name one model ({models[0]!r}); need two.")
    if anchor is not None and anchor not in models:
        raise DataError(
            f"`anchor` is {anchor!r}, which is not among the {len(models)} models "
            f"(e.g. {', '.join(map(repr, models[:3]))}); name one of them or pass None."
        )
    if ties == "davidson":
        _check_davidson(data)


@dataclass(frozen=True, slots=True)
class _Model:
    """The fit on anchored parameters and the map to the reported parameters and scale."""

    rows: Compressed
    fit: Fit
    transform: np.ndarray
    """Anchored parameters (the anchor's column inserted) to reported ones."""
    params: np.ndarray
    """Reported parameters: ``m`` scores, then covariates, then Davidson's ``log nu``."""
    ref: int
    m: int
    n_features: int
    factor: float
    offset: float


def _fit_model(
    data: Battles,
    rows: Compressed,
    ties: Ties,
    anchor: str | None,
    scale: Scale,
    interval: Interval,
    cluster_correction: Correction,
) -> _Model:
    """Fit the scores (the correction asked for only with sandwich intervals)."""
    m = len(data.models)
    ref = 0 if anchor is None else data.models.index(anchor)
    p = 0 if data.features is None else data.features.shape[1]
    transform = _transform(m, p + (1 if ties == "davidson" else 0), anchor is None)
    fitted = fit(
        rows, ties=ties, anchor=ref,
        correction=cluster_correction if interval == "sandwich" else "CR1",
        contrasts=np.delete(transform, ref, axis=1).T,
    )  # fmt: skip
    return _Model(
        rows=rows,
        fit=fitted,
        transform=transform,
        params=transform @ fitted.params,
        ref=ref,
        m=m,
        n_features=p,
        factor=ELO_SCALE if scale == "elo" else 1.0,
        offset=1000.0 if scale == "elo" else 0.0,
    )


@dataclass(frozen=True, slots=True)
class _Bands:
    """Covariance of the reported parameters and the per-model scores and intervals."""

    cov: np.ndarray
    score: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    df: np.ndarray | None
    method: str
    notes: tuple[str, ...]


def _bootstrap_intervals(
    model: _Model, ties: Ties, level: float, n_resamples: int, seed: np.random.SeedSequence
) -> _Bands:
    """Percentile intervals from a bootstrap over clusters (else battles)."""
    m, rows = model.m, model.rows
    draws, n_failed = bootstrap_params(
        rows, np.delete(model.fit.params, model.ref), ties=ties, anchor=model.ref,
        n_resamples=n_resamples, rng=seed,
    )  # fmt: skip
    draws = draws[np.all(np.isfinite(draws), axis=1)]
    if len(draws) < 2:
        raise DataError(
            "no bootstrap resample had a finite fit (models with few battles drop out "
            "of resamples); use interval='sandwich' or add battles."
        )
    full = np.insert(draws, model.ref, 0.0, axis=1) @ model.transform.T
    cov = np.cov(full, rowvar=False)
    alpha = 1.0 - level
    low_q, high_q = np.quantile(full[:, :m], [alpha / 2, 1 - alpha / 2], axis=0)
    notes: list[str] = []
    if n_failed:
        notes.append(
            f"{n_failed:,} of {n_resamples:,} resamples had no finite fit (a model "
            "without battles or wins in the resample) and were left out."
        )
    units = 0 if rows.cluster is None else len(np.unique(rows.cluster))
    if 0 < units < 50:
        notes.append(
            f"a percentile bootstrap over {units} clusters covers too rarely (simulated "
            "95% intervals: 85% with 6 clusters, 90% with 12); the CR2 sandwich "
            "(interval='sandwich') keeps its level with few clusters."
        )
    return _Bands(
        cov=cov,
        score=model.offset + model.factor * model.params[:m],
        se=model.factor * np.sqrt(np.clip(np.diag(cov)[:m], 0.0, None)),
        low=model.offset + model.factor * low_q,
        high=model.offset + model.factor * high_q,
        df=None,
        method="bootstrap",
        notes=tuple(notes),
    )


def _sandwich_intervals(model: _Model, level: float) -> _Bands:
    """Sandwich intervals: t on Bell-McCaffrey degrees of freedom under CR2, else normal."""
    from scipy.special import ndtri, stdtrit

    m, fitted = model.m, model.fit
    cov = model.transform @ fitted.cov_sandwich @ model.transform.T
    se = model.factor * np.sqrt(np.clip(np.diag(cov)[:m], 0.0, None))
    score = model.offset + model.factor * model.params[:m]
    df = fitted.df
    if df is None:
        q = np.full(m, float(ndtri(0.5 + level / 2)))
    else:
        q = np.where(np.isfinite(df[:m]), stdtrit(np.minimum(df[:m], 1e300), 0.5 + level / 2),
                     float(ndtri(0.5 + level / 2)))  # fmt: skip
    return _Bands(
        cov=cov,
        score=score,
        se=se,
        low=score - q * se,
        high=score + q * se,
        df=df,
        method="cluster-robust sandwich" if fitted.n_clusters else "sandwich",
        notes=fitted.notes,
    )


@dataclass(frozen=True, slots=True)
class _RankNull:
    """How the critical value of the simultaneous rank intervals is found."""

    critical_value: float | None
    name: str
    df: float | None
    notes: tuple[str, ...]


def _rank_null(
    model: _Model, bands: _Bands, level: float, n_draws: int, seed: np.random.SeedSequence
) -> _RankNull:
    """Studentised CR2 draws when affordable, else a multivariate t (CR2) or normal."""
    m, df = model.m, bands.df
    rank_df = None
    if df is not None:
        finite = df[:m][np.isfinite(df[:m])]
        rank_df = float(finite.min()) if len(finite) else None
    name = "normal" if rank_df is None else "multivariate-t"
    if model.fit.cr2 is None or m <= 1:
        return _RankNull(critical_value=None, name=name, df=rank_df, notes=())
    from evalsig.arena.cr2 import CR2_BUDGET, maxima_cost, studentized_maxima

    cost = maxima_cost(model.fit.cr2, m, n_draws)
    if cost <= CR2_BUDGET:
        cov = bands.cov
        var = np.diag(cov)[:m]
        pair = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2.0 * cov[:m, :m], 0.0))
        use = pair > 1e-10 * max(float(np.sqrt(np.max(var, initial=0.0))), 1e-300)
        maxima = studentized_maxima(
            model.fit.cr2, np.delete(model.transform[:m], model.ref, axis=1).T, use,
            n_draws=n_draws, rng=seed,
        )  # fmt: skip
        critical = float(np.quantile(maxima, level))
        return _RankNull(critical_value=critical, name="cr2-studentized", df=None, notes=())
    notes: tuple[str, ...] = ()
    if rank_df is not None:
        notes = (
            f"the rank intervals' critical value uses a multivariate t on {rank_df:.1f} "
            f"degrees of freedom (studentised CR2 draws would take about {cost:.1e} "
            "operations); with few clusters it may be slightly too small.",
        )
    return _RankNull(critical_value=None, name=name, df=rank_df, notes=notes)


def _arena_result(
    model: _Model,
    bands: _Bands,
    null: _RankNull,
    ranks: Ranks,
    *,
    data: Battles,
    ties: Ties,
    scale: Scale,
    anchor: str | None,
    interval: Interval,
    level: float,
    n_draws: int,
    n_resamples: int,
    seed: int | None,
    notes: tuple[str, ...],
) -> ArenaResult:
    """The result, its models ordered by rank (then name)."""
    m, params, cov, df, fitted = model.m, model.params, bands.cov, bands.df, model.fit
    model_cov = model.transform @ fitted.cov_model @ model.transform.T
    model_se = np.sqrt(np.clip(np.diag(model_cov), 0.0, None))
    covariate_rows = tuple(
        Covariate(
            name=name,
            estimate=float(params[m + j]),
            se=float(math.sqrt(max(cov[m + j, m + j], 0.0))),
            df=None if df is None or not np.isfinite(df[m + j]) else float(df[m + j]),
            se_model=float(model_se[m + j]),
        )
        for j, name in enumerate(data.feature_names)
    )
    tie_parameter = None
    if ties == "davidson":
        p = model.n_features
        log_nu, log_nu_se = params[m + p], math.sqrt(max(cov[m + p, m + p], 0.0))
        tie_parameter = (float(np.exp(log_nu)), float(np.exp(log_nu) * log_nu_se))
    models = data.models
    order = np.lexsort((np.array(models, dtype=str), ranks.rank))
    return ArenaResult(
        models=tuple(models[i] for i in order),
        score=bands.score[order],
        se=bands.se[order],
        ci_low=np.asarray(bands.low)[order],
        ci_high=np.asarray(bands.high)[order],
        rank=ranks.rank[order],
        rank_low=ranks.low[order],
        rank_high=ranks.high[order],
        group=_renumber(ranks.group[order]),
        n_battles=data.battles_per_model()[order],
        se_model=model.factor * model_se[:m][order],
        ties=ties,
        scale=scale,
        anchor=anchor,
        interval=bands.method,
        cluster_correction=fitted.correction if interval == "sandwich" else None,
        df=None if df is None else df[:m][order],
        rank_df=null.df,
        rank_null=null.name,
        confidence_level=level,
        critical_value=ranks.critical_value,
        n_draws=n_draws,
        n_resamples=n_resamples if interval == "bootstrap" else None,
        total_battles=len(data),
        n_rows=len(model.rows.count),
        n_clusters=fitted.n_clusters,
        covariates=covariate_rows,
        tie_parameter=tie_parameter,
        loglik=fitted.loglik,
        iterations=fitted.iterations,
        seed=seed,
        notes=notes,
        provenance=provenance([("battles", data.origin or in_memory_origin("Battles"))], seed=seed),
        cov=(model.factor**2) * cov[:m, :m][np.ix_(order, order)],
    )


def _renumber(group: np.ndarray) -> np.ndarray:
    """Tie groups numbered 1, 2, ... in the order they first appear."""
    _, first, inverse = np.unique(group, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first))
    return (rank[inverse] + 1).astype(np.int64)


def _transform(m: int, extra: int, sum_to_zero: bool) -> np.ndarray:
    """Linear map of the anchored parameters to the reported ones (centring the scores)."""
    t = np.eye(m + extra)
    if sum_to_zero:
        t[:m, :m] -= 1.0 / m
    return t


def _check_davidson(data: Battles) -> None:
    odd = np.flatnonzero(~np.isin(data.outcome, (0.0, 0.5, 1.0)))
    if len(odd):
        raise DataError(
            f"{data.source}: Davidson ties need outcomes 0, 0.5 or 1; battle {odd[0]} has "
            f"{float(data.outcome[odd[0]])!r}. Use ties='half' for fractional preferences."
        )
    if not np.any(data.outcome == 0.5):
        raise DataError(
            f"{data.source}: there are no ties, so Davidson's tie parameter is 0 and "
            "cannot be estimated; use ties='half'."
        )


def _with_covariates(
    data: Battles, covariates: Mapping[str, Sequence[float] | np.ndarray] | None
) -> Battles:
    if covariates is None:
        return data
    from evalsig.arena.battle_arrays import battles as make

    if not isinstance(covariates, Mapping) or not covariates:
        raise DataError(
            "`covariates` must map names to per-battle differences, e.g. {'length': len_a - len_b}."
        )
    names = list(covariates)
    columns = []
    for name in names:
        column = np.asarray(covariates[name], dtype=np.float64)
        if column.shape != (len(data),):
            raise DataError(
                f"`covariates[{name!r}]` has shape {column.shape}; give one value per "
                f"battle ({len(data)})."
            )
        columns.append(column)
    return make(
        np.array(data.models, dtype=object)[data.model_a],
        np.array(data.models, dtype=object)[data.model_b],
        data.outcome,
        weights=data.weight,
        cluster=data.cluster,
        features=np.column_stack(columns),
        feature_names=names,
        source=data.source,
        notes=data.notes,
        origin=data.origin,
    )
