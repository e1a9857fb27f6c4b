r"""Variance components of crossed and nested random facets, by restricted maximum likelihood.

The model of one set of scores (one model's, or the paired differences of two) is

.. math:: y = \mu + \sum_k Z_k b_k + e, \qquad b_k \sim N(0, \sigma_k^2 I), \quad
          e \sim N(0, \sigma^2 I),

one random term :math:`k` per facet or interaction of facets (items, prompts, runs,
item x prompt, ...), each a column of integer level codes. Crossed or nested is what the
codes say: items nested in passages are a passage term and an item term whose levels each
fall in one passage, as in lme4's ``(1 | passage) + (1 | item)``.

REML is fitted as lme4 does (Bates et al. 2015), over the relative standard deviations
:math:`\theta_k = \sigma_k / \sigma \ge 0` (a component at zero is a boundary, not an error):
with :math:`\Lambda = \operatorname{diag}(\theta)` over the columns of :math:`Z` and
:math:`M(\theta)` the cross-product matrix of the augmented least-squares problem in
:math:`(u, \mu)`,

.. math:: d(\theta) = \log |M(\theta)| + (n - 1)\Bigl(1 + \log \frac{2 \pi r^2(\theta)}{n - 1}
          \Bigr), \qquad \hat\sigma^2 = \frac{r^2(\hat\theta)}{n - 1},

where :math:`r^2` is the penalised residual sum of squares. No dense design matrix is
built: the terms nested in one *block* term (an item's own interactions, a passage's items)
give one small dense block per level, the other terms form one small crossed part, and a
Schur complement joins them. Everything :math:`d` needs is a cross-product of counts and
sums, made once; each evaluation costs a batch of small Cholesky factorisations.

References
----------
Bates, D., Mächler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects
models using lme4. *Journal of Statistical Software* 67(1).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from evalsig.errors import DataError
from evalsig.inference._common import check_confidence_level, check_n_resamples, seeded

__all__ = [
    "ComponentFit",
    "ComponentIntervals",
    "NestedRuns",
    "balanced_components",
    "component_intervals",
    "fit_components",
    "mean_df",
    "mean_variance_shares",
    "nested_runs",
    "same_grouping",
]

MAX_CROSSED_LEVELS = 5000
"""Most levels the crossed part may hold (its cross-product is dense): two facets of
thousands of levels each, crossed, need a sparse factorisation this module does not make."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentFit:
    """REML estimates of the variance of each random term and of the residual."""

    terms: tuple[str, ...]
    """The random terms, in the order given."""
    variances: tuple[float, ...]
    r""":math:`\hat\sigma_k^2` of each term (0 at the boundary)."""
    residual: float
    r""":math:`\hat\sigma^2`, the residual variance."""
    mean: float
    r"""The generalised-least-squares intercept :math:`\hat\mu`."""
    mean_se: float
    r"""Its model-based standard error, :math:`\sqrt{(X^\top \hat V^{-1} X)^{-1}}`."""
    levels: tuple[int, ...]
    """Levels of each term."""
    n: int
    """Observations."""
    criterion: float
    """The REML criterion :math:`d(\\hat\\theta)` (lme4's ``REMLcrit``)."""
    converged: bool
    evaluations: int


def fit_components(
    y: np.ndarray | Sequence[float], terms: Mapping[str, np.ndarray], /
) -> ComponentFit:
    r"""REML variance components of ``y`` under random intercept ``terms``.

    Parameters
    ----------
    y : array_like (n,)
        The scores, finite.
    terms : mapping of str to array_like (n,) of int
        Each term's level codes, ``0 .. L - 1`` with every level present (as
        ``numpy.unique(..., return_inverse=True)`` gives). An interaction is a term of its
        own (the codes of the pairs of levels).

    Returns
    -------
    ComponentFit

    Raises
    ------
    DataError
        Fewer than 3 observations, a non-finite score, scores all equal, terms whose levels
        fit every score exactly (no residual left), a term with one level or with as
        many levels as observations (it is the residual), two terms that group the
        observations alike (neither is estimable apart from the other), or a crossed part
        beyond :data:`MAX_CROSSED_LEVELS`.

    Notes
    -----
    The criterion is minimised over :math:`\theta \ge 0` by L-BFGS-B from
    :math:`\theta = 1`; see the module's docstring for :math:`d(\theta)`.

    Examples
    --------
    >>> item = np.repeat(np.arange(4), 3)
    >>> y = np.array([1.0, 2, 3, 4, 5, 6, 4, 4, 4, 9, 8, 7])
    >>> fit = fit_components(y, {"item": item})
    >>> round(fit.variances[0], 4), round(fit.residual, 4)
    (6.0, 0.75)
    """
    design = _Design.build(np.asarray(y, dtype=np.float64), dict(terms))
    theta, evaluations, converged = _minimise(design)
    deviance, r2, mean, mean_var, _ = design.evaluate(theta)
    sigma2 = r2 / (design.n - 1)
    return ComponentFit(
        terms=design.names,
        variances=tuple(float(t * t * sigma2) for t in theta),
        residual=float(sigma2),
        mean=float(mean),
        mean_se=float(math.sqrt(mean_var * sigma2)),
        levels=design.levels,
        n=design.n,
        criterion=float(deviance),
        converged=converged,
        evaluations=evaluations,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentIntervals:
    """Parametric-bootstrap percentile intervals of the variance components."""

    low: tuple[float, ...]
    """Each term's lower bound, then the residual's."""
    high: tuple[float, ...]
    confidence_level: float
    n_resamples: int
    unsettled: int
    """Resamples whose REML fit stopped before its criterion settled (kept in the
    intervals: a flat criterion, not a failure)."""
    failed: int = 0
    """Resamples whose REML fit broke down numerically (left out of the intervals)."""
    seed: int | None
    """The seed that rebuilds the draws (``rng=seed``); None when a Generator was given."""
    draws: np.ndarray = dataclasses.field(repr=False, compare=False)
    """The resampled estimates, (n_resamples, terms + 1): what a projection of the
    components (a decision study) carries its uncertainty through."""


def component_intervals(
    y: np.ndarray | Sequence[float],
    terms: Mapping[str, np.ndarray],
    fit: ComponentFit,
    /,
    *,
    n_resamples: int = 200,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> ComponentIntervals:
    r"""Parametric-bootstrap intervals of ``fit``'s variance components.

    Each resample draws scores from the fitted model, :math:`y^* = \hat\mu + \sum_k Z_k
    b_k^* + e^*` with :math:`b_k^* \sim N(0, \hat\sigma_k^2)` and :math:`e^* \sim N(0,
    \hat\sigma^2)`, and fits REML again (the design's counts are kept; only the sums of
    the scores are made anew); the interval of each component is the percentile interval
    of its resampled estimates (Davison and Hinkley 1997, sec. 2.2 and 5.2). A component
    fitted at 0 draws nothing and its interval is from 0 up to what the others' noise
    puts there. Each resample is one REML fit: on large designs, fewer resamples. On a
    complete crossed grid (one score a cell, every combination of the facets a term) the
    fits are :func:`balanced_components` on batches of resampled grids, REML from the
    mean squares, which are sufficient there: the same estimates, without an optimiser.
    """
    level = check_confidence_level(confidence_level)
    resamples = check_n_resamples(n_resamples)
    generator, seed = seeded(rng)
    design = _Design.build(np.asarray(y, dtype=np.float64), dict(terms))
    draws = np.empty((resamples, len(design.names) + 1))
    fitted = np.array(fit.variances) / fit.residual if fit.residual > 0 else None
    unsettled = failed = 0
    grid = _complete_grid(dict(terms), design.n)

    def simulate() -> np.ndarray:
        simulated = fit.mean + math.sqrt(fit.residual) * generator.standard_normal(design.n)
        for codes, variance, levels in zip(design.codes, fit.variances, fit.levels, strict=True):
            simulated += math.sqrt(variance) * generator.standard_normal(levels)[codes]
        return simulated

    if grid is not None:  # REML from each resample's mean squares, a batch at a time
        draws = _grid_draws(grid, design.names, simulate, resamples)
    for r in range(0 if grid is not None else resamples):
        again = design.scored(simulate())
        try:
            theta, _, settled = _minimise(again, fitted)  # from the fit's variance ratios
            sigma2 = again.evaluate(theta).r2 / (design.n - 1)
        except DataError:  # a resample REML cannot fit: left out, and counted
            draws[r] = np.nan
            failed += 1
            continue
        draws[r, :-1] = theta * theta * sigma2
        draws[r, -1] = sigma2
        unsettled += not settled
    tail = (1.0 - level) / 2.0
    if failed == resamples:
        raise _breakdown(design)
    low, high = np.nanquantile(draws, [tail, 1.0 - tail], axis=0)
    return ComponentIntervals(
        low=tuple(float(v) for v in low),
        high=tuple(float(v) for v in high),
        confidence_level=level,
        n_resamples=resamples,
        unsettled=unsettled,
        failed=failed,
        seed=seed,
        draws=draws[~np.isnan(draws[:, 0])],
    )


@dataclass(frozen=True, slots=True)
class _Grid:
    """A complete crossed grid: the single facets, their levels, each row's cell."""

    facets: tuple[str, ...]
    shape: tuple[int, ...]
    cell: np.ndarray


def _complete_grid(terms: Mapping[str, np.ndarray], n: int) -> _Grid | None:
    """The grid when the terms are some facets crossed, one score a cell, and every
    combination of them but the full one (the residual): REML is then a function of the
    mean squares (:func:`balanced_components`). None otherwise."""
    facets = tuple(name for name in terms if ":" not in name)
    shape = tuple(int(terms[name].max()) + 1 for name in facets)
    if len(facets) < 2 or math.prod(shape) != n:
        return None
    wanted = {
        ":".join(combo)
        for size in range(1, len(facets))
        for combo in itertools.combinations(facets, size)
    }
    if set(terms) != wanted:
        return None
    cell = np.ravel_multi_index(tuple(np.asarray(terms[name]) for name in facets), shape)
    if np.bincount(cell, minlength=n).max() != 1:
        return None
    return _Grid(facets=facets, shape=shape, cell=cell)


GRID_BATCH_CELLS = 4_000_000
"""Cells of the resamples decomposed at once on a complete grid (memory: 8 bytes each)."""


def _grid_draws(
    grid: _Grid, names: tuple[str, ...], simulate: Callable[[], np.ndarray], resamples: int
) -> np.ndarray:
    """Each resample's components, by :func:`balanced_components` on batches of cubes."""
    n = grid.cell.size
    batch = max(1, GRID_BATCH_CELLS // n)
    draws = np.empty((resamples, len(names) + 1))
    for start in range(0, resamples, batch):
        size = min(batch, resamples - start)
        cubes = np.empty((size, n))
        for b in range(size):
            cubes[b, grid.cell] = simulate()
        variances, residual = balanced_components(cubes.reshape(size, *grid.shape), grid.facets)
        draws[start : start + size, :-1] = np.stack([variances[t] for t in names], axis=1)
        draws[start : start + size, -1] = residual
    return draws


def balanced_components(
    cube: np.ndarray, names: Sequence[str], /, *, constrained: bool = True
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    r"""REML (or ANOVA) estimates of the components of a balanced, fully crossed design.

    Parameters
    ----------
    cube : array_like (..., L_1, ..., L_F)
        One score a cell of the facets' grid, the facets on the last ``F`` axes; leading
        axes are a batch (models) decomposed at once.
    names : sequence of str
        The ``F`` facets' names.
    constrained : bool
        REML's estimates, every component at 0 or above (the default); False gives the
        ANOVA estimates as they are, negative where the mean squares say so.

    Returns
    -------
    variances : dict of str to ndarray (...)
        Each facet and combination of facets but the full one (``"item:prompt"``).
    residual : ndarray (...)
        The full interaction, confounded with the error (:math:`MS_{1..F}` by ANOVA).

    Notes
    -----
    With :math:`MS_\beta` the mean square of the effect of the facets :math:`\beta`
    (marginal means combined by inclusion-exclusion, :math:`\prod_{j \in \beta}(L_j - 1)`
    degrees of freedom) and :math:`\pi(\alpha) = \prod_{j \notin \alpha} L_j`,

    .. math:: \hat\sigma_\alpha^2 = \frac{1}{\pi(\alpha)} \sum_{\beta \supseteq \alpha}
              (-1)^{|\beta| - |\alpha|} MS_\beta

    (Brennan 2001, *Generalizability Theory*, sec. 3.4). Where none is negative, these
    are the REML estimates. Where one is, REML is fitted on the mean squares alone, which
    are sufficient in a balanced design: it maximises

    .. math:: -\frac12 \sum_\beta \Bigl(\nu_\beta \log \lambda_\beta
              + \frac{SS_\beta}{\lambda_\beta}\Bigr), \qquad
              \lambda_\beta = \sum_{\alpha \supseteq \beta} \pi(\alpha)\, \sigma_\alpha^2,

    the expected mean squares :math:`\lambda_\beta`, over :math:`\sigma^2 \ge 0` (Searle,
    Casella and McCulloch 1992, *Variance Components*, sec. 6.2), by L-BFGS-B with the exact
    gradient; no design matrix, whatever the number of scores.

    Examples
    --------
    >>> cube = np.array([[1.0, 2, 3], [4, 5, 6], [4, 4, 4], [9, 8, 7]])  # items x runs
    >>> anova, residual = balanced_components(cube, ["item", "run"], constrained=False)
    >>> {name: round(float(v), 4) for name, v in anova.items()}, round(float(residual), 4)
    ({'item': 5.9444, 'run': -0.1667}, 0.9167)
    >>> reml, residual = balanced_components(cube, ["item", "run"])
    >>> {name: round(float(v), 4) for name, v in reml.items()}, round(float(residual), 4)
    ({'item': 6.0, 'run': 0.0}, 0.75)
    """
    cube = np.asarray(cube, dtype=np.float64)
    facets = len(names)
    batch = cube.ndim - facets
    sizes = cube.shape[batch:]
    if facets < 1 or batch < 0 or min(sizes, default=0) < 2:
        raise DataError(
            f"a balanced design needs a cell per combination of {facets} facets, each of 2 "
            f"levels or more; got an array of shape {cube.shape}."
        )
    subsets = [
        combo
        for size in range(1, facets + 1)
        for combo in itertools.combinations(range(facets), size)
    ]
    mean_square = _mean_squares(cube, batch, subsets)
    # the expected mean squares: lambda = weights @ sigma^2, terms and residual as subsets
    weights = np.array(
        [
            [
                math.prod(sizes[j] for j in range(facets) if j not in alpha)
                if set(beta) <= set(alpha)
                else 0
                for alpha in subsets
            ]
            for beta in subsets
        ],
        dtype=np.float64,
    )
    squares = np.stack([mean_square[beta] for beta in subsets], axis=-1)  # (..., S)
    estimates = np.linalg.solve(weights, squares[..., None])[..., 0]  # ANOVA
    if constrained:
        dof = np.array([math.prod(sizes[j] - 1 for j in beta) for beta in subsets], float)
        flat = estimates.reshape(-1, len(subsets))
        for row in np.flatnonzero((flat < 0).any(axis=1)):
            start = np.clip(flat[row], 0.0, None)
            sums = squares.reshape(-1, len(subsets))[row] * dof
            flat[row] = _balanced_reml(weights, dof, sums, start)
        estimates = flat.reshape(estimates.shape)
    variances = {
        ":".join(names[j] for j in combo): estimates[..., s] for s, combo in enumerate(subsets[:-1])
    }
    return variances, estimates[..., -1]


def _mean_squares(
    cube: np.ndarray, batch: int, subsets: list[tuple[int, ...]]
) -> dict[tuple[int, ...], np.ndarray]:
    """The mean square of each effect of a balanced grid (``subsets`` of its facets, the
    full interaction last), over the ``batch`` leading axes."""
    facets = cube.ndim - batch
    sizes = cube.shape[batch:]
    grid = tuple(batch + j for j in range(facets))
    # marginal means, each from its smallest superset's (one pass over the cube a facet)
    means: dict[tuple[int, ...], np.ndarray] = {tuple(range(facets)): cube}
    for combo in reversed([(), *subsets[:-1]]):
        parent = next(p for p in means if set(combo) < set(p) and len(p) == len(combo) + 1)
        (dropped,) = set(parent) - set(combo)
        means[combo] = means[parent].mean(axis=batch + dropped, keepdims=True)
    mean_square = {}
    # every effect's squares, in one pass: sum y^2 - N ybar^2 (scores are bounded, so the
    # difference keeps its digits)
    letters = "abcdefghijklmnopqrstuvwxyz"[: cube.ndim]
    squares_of_scores = np.einsum(f"{letters},{letters}->{letters[:batch]}", cube, cube)
    total = squares_of_scores - math.prod(sizes) * np.square(means[()].reshape(cube.shape[:batch]))
    for combo in subsets[:-1]:
        effect = sum(
            (-1) ** (len(combo) - len(part)) * means[part]
            for size in range(len(combo) + 1)
            for part in itertools.combinations(combo, size)
        )
        cells = math.prod(sizes[j] for j in range(facets) if j not in combo)
        dof = math.prod(sizes[j] - 1 for j in combo)
        squares = np.sum(np.square(effect), axis=grid) * cells  # each cell: ``cells`` scores
        total = total - squares
        mean_square[combo] = squares / dof
    # the full interaction's squares are what the others leave of the total
    mean_square[subsets[-1]] = total / math.prod(n - 1 for n in sizes)
    return mean_square


def _balanced_reml(
    weights: np.ndarray, dof: np.ndarray, sums: np.ndarray, start: np.ndarray
) -> np.ndarray:
    """The constrained REML estimates of one balanced design from its sums of squares."""
    from scipy.optimize import minimize

    scale = float(sums.sum() / dof.sum())  # the criterion in units of the mean variance

    def criterion(sigma2: np.ndarray) -> tuple[float, np.ndarray]:
        expected = weights @ sigma2
        value = float(dof @ np.log(expected) + (sums / scale) @ (1.0 / expected))
        slope = weights.T @ (dof / expected - sums / scale / expected**2)
        return value, slope

    start = start / scale
    start[-1] = max(start[-1], 1e-3)  # the residual's variance is positive
    found = minimize(
        criterion,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * (start.size - 1) + [(1e-12, None)],
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 1000},
    )
    return np.asarray(found.x, dtype=np.float64) * scale


@dataclass(frozen=True, slots=True)
class NestedRuns:
    """Items with runs nested in them, by the one-way ANOVA's moments."""

    item_means_variance: float
    r""":math:`s^2_{\bar y}`: the variance (ddof 1) of the items' mean scores."""
    run_variance: float
    r""":math:`\hat\sigma^2_\text{run}`: the pooled within-item variance of the runs."""
    mean_inverse_runs: float
    r""":math:`\overline{1/r_i}`."""
    item_variance: float
    r""":math:`\hat\sigma^2_\text{item} = s^2_{\bar y} - \hat\sigma^2_\text{run}\,
    \overline{1/r_i}`, unbiased and possibly negative (not truncated here)."""


def nested_runs(
    sums: np.ndarray,
    sumsq: np.ndarray,
    counts: np.ndarray,
    /,
    *,
    means: np.ndarray | None = None,
) -> NestedRuns:
    r"""The components of items (random) with runs nested in them, from each item's sum,
    sum of squares and run count :math:`r_i` (at least one item with two runs):

    .. math:: \hat\sigma^2_\text{run} = \frac{\sum_i \sum_r (y_{ir} - \bar y_i)^2}
              {\sum_i (r_i - 1)}, \qquad
              \hat\sigma^2_\text{item} = s^2_{\bar y} - \hat\sigma^2_\text{run}\,
              \overline{1/r_i}

    (Searle, Casella and McCulloch 1992, sec. 3.5). The one-facet case of
    :func:`fit_components` in closed form: on a balanced design with a non-negative item
    component it is REML's estimate (``terms={"item": codes}``, the runs the residual);
    with ragged runs it is the unbiased moment estimator, which REML weights otherwise.
    ``means``, when the caller holds them already, are ``sums / counts``.
    """
    sums, sumsq = np.asarray(sums, dtype=np.float64), np.asarray(sumsq, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    means = sums / counts if means is None else np.asarray(means, dtype=np.float64)
    squares = np.maximum(sumsq - sums * means, 0.0)  # sum_r (y - mean)^2 of each item
    run_variance = float(squares.sum()) / float(np.sum(counts - 1.0))
    spread = float(np.var(means, ddof=1)) if means.size > 1 else math.nan
    inverse = float(np.mean(1.0 / counts))
    return NestedRuns(
        item_means_variance=spread,
        run_variance=run_variance,
        mean_inverse_runs=inverse,
        item_variance=spread - run_variance * inverse,
    )


def mean_variance_shares(fit: ComponentFit, terms: Mapping[str, np.ndarray], /) -> dict[str, float]:
    r"""Each term's part of the variance of the plain mean of the observations.

    .. math:: \operatorname{Var}(\bar y) = \sum_k \hat\sigma_k^2 \sum_l n_{kl}^2 / n^2
              + \hat\sigma^2 / n,

    with :math:`n_{kl}` the observations at level :math:`l` of term :math:`k` (in a
    balanced design, :math:`\hat\sigma_k^2 / L_k`). The residual's part is under the key
    ``"residual"``.
    """
    weights = _mean_weights(terms, fit.terms, fit.n)
    parts = {name: v * w for name, v, w in zip(fit.terms, fit.variances, weights, strict=True)}
    parts["residual"] = fit.residual / fit.n
    return parts


def _mean_weights(terms: Mapping[str, np.ndarray], names: Sequence[str], n: int) -> list[float]:
    r""":math:`c_k = \sum_l n_{kl}^2 / n^2` of each term: its variance's weight in that of the
    plain mean."""
    weights = []
    for name in names:
        counts = np.bincount(np.asarray(terms[name])).astype(np.float64)
        weights.append(float(counts @ counts) / (n * n))
    return weights


def mean_df(
    y: np.ndarray | Sequence[float], terms: Mapping[str, np.ndarray], fit: ComponentFit, /
) -> float:
    r"""Satterthwaite's degrees of freedom of :math:`\widehat{\operatorname{Var}}(\bar y)`,
    the variance of the plain mean that :func:`mean_variance_shares` splits.

    With :math:`V = \sum_k c_k \sigma_k^2 + \sigma^2 / n` and :math:`\hat\Sigma` the
    asymptotic covariance of the REML estimates (twice the inverse Hessian of the
    unprofiled REML criterion, taken in the log variances),

    .. math:: \nu = \frac{2 V^2}{\nabla V^\top \hat\Sigma \, \nabla V},

    as lmerTest does for a fixed effect (Kuznetsova et al. 2017; Satterthwaite 1946).
    Components at the boundary are held at 0. In a balanced design it is the classical
    Satterthwaite df of the mean squares that make up :math:`V` (one facet: ``L - 1``).
    """
    design = _Design.build(np.asarray(y, dtype=np.float64), dict(terms))
    n = design.n
    coefficients = _mean_weights(terms, fit.terms, n)
    free = [k for k, v in enumerate(fit.variances) if v > 0.0]
    start = np.log([fit.variances[k] for k in free] + [fit.residual])
    variances = np.zeros(len(fit.terms))

    def deviance(point: np.ndarray) -> float:
        sigma2 = math.exp(point[-1])
        variances[free] = np.exp(point[:-1])
        evaluated = design.evaluate(np.sqrt(variances / sigma2))
        dof = n - 1
        logdet = evaluated.deviance - dof * (1.0 + math.log(2.0 * math.pi * evaluated.r2 / dof))
        return logdet + dof * math.log(2.0 * math.pi * sigma2) + evaluated.r2 / sigma2

    hessian = _hessian(deviance, start, step=1e-3)
    parts = np.array([coefficients[k] * fit.variances[k] for k in free] + [fit.residual / n])
    total = float(parts.sum())
    try:
        spread = float(parts @ np.linalg.solve(hessian, parts)) * 2.0
    except np.linalg.LinAlgError:
        return math.nan
    return 2.0 * total * total / spread if spread > 0.0 else math.nan


def _hessian(function: Callable[[np.ndarray], float], at: np.ndarray, *, step: float) -> np.ndarray:
    """Central second differences of ``function`` at ``at``."""
    size = at.size
    out = np.empty((size, size))
    centre = function(at)

    def shifted(i: int, a: float, j: int, b: float) -> float:
        point = at.copy()
        point[i] += a
        point[j] += b
        return function(point)

    for i in range(size):
        out[i, i] = (shifted(i, step, i, step) - 2.0 * centre + shifted(i, -step, i, -step)) / (
            4.0 * step * step
        )
        for j in range(i):
            out[i, j] = out[j, i] = (
                shifted(i, step, j, step)
                - shifted(i, step, j, -step)
                - shifted(i, -step, j, step)
                + shifted(i, -step, j, -step)
            ) / (4.0 * step * step)
    return out


@dataclass(frozen=True, slots=True)
class _Design:
    """The cross-products REML needs, split into per-block nested columns and crossed ones.

    Nested columns: ``k`` per block, ``block`` levels; column ``j`` of a block belongs to
    term ``nested_term[j]`` (a slot a block does not use has no counts and drops out).
    Crossed columns: ``q`` in all, column ``j`` of term ``crossed_term[j]``. Blocks whose
    counts are alike (a *pattern*: every block of a balanced design, an item's cells with
    the same one missing) share one factorisation; only their sums of ``y`` differ, and
    the criterion needs those only through their total and their sum of outer products.
    """

    names: tuple[str, ...]
    levels: tuple[int, ...]
    n: int
    nested_term: np.ndarray  # (k,) term index of each block column
    crossed_term: np.ndarray  # (q,)
    blocks: np.ndarray  # (P,) blocks of each pattern
    zz: np.ndarray  # (P, k, k) nested x nested counts of a block of the pattern
    zc: np.ndarray  # (P, k, q) nested x crossed counts
    zx: np.ndarray  # (P, k) nested counts
    zy: np.ndarray  # (P, k) nested sums of y, over the pattern's blocks
    zyy: np.ndarray  # (P, k, k) sums over the pattern's blocks of zy zy'
    cc: np.ndarray  # (q, q)
    codes: tuple[np.ndarray, ...]  # each term's level codes, (n,)
    nested_index: tuple[np.ndarray, ...]  # each nested term's block * k + slot, (n,)
    crossed_index: tuple[np.ndarray, ...]  # each crossed term's column, (n,)
    pattern: np.ndarray  # (B,) each block's pattern
    cx: np.ndarray  # (q,)
    cy: np.ndarray  # (q,)
    sum_y: float
    sum_yy: float

    @classmethod
    def build(cls, y: np.ndarray, terms: dict[str, np.ndarray]) -> _Design:
        n = y.shape[0]
        if y.ndim != 1 or n < 3:
            raise DataError(f"variance components need at least 3 scores; got {n}.")
        if not np.isfinite(y).all():
            raise DataError(
                f"the scores hold {int((~np.isfinite(y)).sum())} NaN or infinite values; "
                "drop or fill them before estimating variance components."
            )
        if not np.ptp(y):
            raise DataError(
                f"every score is {float(y[0]):g}: there is no variance to split among the "
                "facets; variance components need scores that differ."
            )
        if not terms:
            raise DataError("variance components need at least one random term (a facet).")
        names = tuple(terms)
        codes = [_codes(terms[name], name, n) for name in names]
        levels = tuple(int(c.max()) + 1 for c in codes)
        _check_estimable(names, codes, levels, n)
        block, nested, crossed = _plan(codes, levels)
        slots: list[np.ndarray] = []
        # nested terms: each level's slot inside its block
        if block is None:
            block_of = np.zeros(n, dtype=np.int64)
            n_blocks, nested_term = 1, np.zeros(0, dtype=np.int64)
        else:
            block_of = codes[block]
            n_blocks = levels[block]
            widths = []
            for t in nested:
                parent = _parent(codes[t], block_of, levels[t])
                rank, width = _rank_in_block(parent, n_blocks)
                slots.append(rank[codes[t]])
                widths.append(width)
            offsets = np.concatenate([[0], np.cumsum(widths)])
            slots = [s + offsets[i] for i, s in enumerate(slots)]
            nested_term = np.repeat(np.asarray(nested, dtype=np.int64), widths)
        k = nested_term.shape[0]
        crossed_offsets = np.concatenate([[0], np.cumsum([levels[t] for t in crossed])])
        columns = [codes[t] + crossed_offsets[i] for i, t in enumerate(crossed)]
        q = int(crossed_offsets[-1])
        crossed_term = np.repeat(np.asarray(crossed, dtype=np.int64), [levels[t] for t in crossed])
        zz = np.zeros(n_blocks * k * k)
        zc = np.zeros(n_blocks * k * q)
        for a in slots:
            for b in slots:
                zz += np.bincount((block_of * k + a) * k + b, minlength=zz.size)
            for c in columns:
                zc += np.bincount((block_of * k + a) * q + c, minlength=zc.size)
        zx = np.zeros(n_blocks * k)
        nested_index = tuple(block_of * k + a for a in slots)
        for index in nested_index:
            zx += np.bincount(index, minlength=zx.size)
        cc = np.zeros(q * q)
        for c in columns:
            for d in columns:
                cc += np.bincount(c * q + d, minlength=cc.size)
        cx = np.zeros(q)
        for c in columns:
            cx += np.bincount(c, minlength=q)
        counts = np.concatenate(
            [zz.reshape(n_blocks, k * k), zc.reshape(n_blocks, k * q), zx.reshape(n_blocks, k)],
            axis=1,
        )
        _, first, pattern, blocks = np.unique(
            counts, axis=0, return_index=True, return_inverse=True, return_counts=True
        )
        empty = np.zeros(0)
        design = cls(
            names=names,
            levels=levels,
            n=n,
            nested_term=nested_term,
            crossed_term=crossed_term,
            blocks=blocks.astype(np.float64),
            zz=zz.reshape(n_blocks, k, k)[first],
            zc=zc.reshape(n_blocks, k, q)[first],
            zx=zx.reshape(n_blocks, k)[first],
            zy=empty,
            zyy=empty,
            cc=cc.reshape(q, q),
            codes=tuple(codes),
            nested_index=nested_index,
            crossed_index=tuple(columns),
            pattern=pattern.reshape(-1),
            cx=cx,
            cy=empty,
            sum_y=0.0,
            sum_yy=0.0,
        )
        return design.scored(y)

    def scored(self, y: np.ndarray) -> _Design:
        """The same design with the sums of other scores ``y`` (a simulated set, say)."""
        n_patterns, k = self.zx.shape
        n_blocks = self.pattern.shape[0]
        zy = np.zeros(n_blocks * k)
        for index in self.nested_index:
            zy += np.bincount(index, weights=y, minlength=zy.size)
        by_block = zy.reshape(n_blocks, k)
        sums = np.zeros((n_patterns, k))
        np.add.at(sums, self.pattern, by_block)
        outer = np.zeros((n_patterns, k, k))
        np.add.at(outer, self.pattern, by_block[:, :, None] * by_block[:, None, :])
        cy = np.zeros(self.cx.shape[0])
        for index in self.crossed_index:
            cy += np.bincount(index, weights=y, minlength=cy.size)
        return dataclasses.replace(
            self, zy=sums, zyy=outer, cy=cy, sum_y=float(y.sum()), sum_yy=float(y @ y)
        )

    def evaluate(self, theta: np.ndarray, *, slope: bool = False) -> _Point:
        r"""The criterion at :math:`\theta`, and with ``slope`` its gradient in the
        variance ratios :math:`s_k = \theta_k^2`,

        .. math:: \frac{\partial d}{\partial s_k} = \operatorname{tr}(Z_k^\top P Z_k)
                  - (n - 1) \frac{\lVert Z_k^\top P y \rVert^2}{r^2},

        with :math:`P = V^{-1} - V^{-1} X (X^\top V^{-1} X)^{-1} X^\top V^{-1}
        = I - W M^{-1} W^\top`, :math:`W = (Z\Lambda, X)`: both from blocks of
        :math:`M^{-1}` and the solution :math:`M^{-1} c`, defined at :math:`s_k = 0` too.
        """
        lam_n = theta[self.nested_term]
        lam_c = theta[self.crossed_term]
        q, k = lam_c.shape[0], lam_n.shape[0]
        g = q + 1  # the global columns: crossed, then the intercept
        schur = np.zeros((g, g))
        schur[:q, :q] = lam_c[:, None] * self.cc * lam_c[None, :] + np.eye(q)
        schur[:q, q] = schur[q, :q] = lam_c * self.cx
        schur[q, q] = self.n
        rhs = np.append(lam_c * self.cy, self.sum_y)
        yy = self.sum_yy
        logdet = 0.0
        if k:
            a = lam_n[None, :, None] * self.zz * lam_n[None, None, :] + np.eye(k)
            chol = np.linalg.cholesky(a)
            logdet += 2.0 * float(self.blocks @ np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(1))
            inverse = np.linalg.inv(a)
            # T: a block's counts against the global columns; R = Lambda_N T couples them
            t = np.concatenate([self.zc * lam_c[None, None, :], self.zx[..., None]], axis=2)
            coupling = lam_n[None, :, None] * t
            air = inverse @ coupling  # A^-1 R, a pattern at a time
            weighted = coupling * self.blocks[:, None, None]
            schur -= weighted.reshape(-1, g).T @ air.reshape(-1, g)
            sums = lam_n * self.zy  # c_N summed over each pattern's blocks
            rhs -= np.einsum("pkg,pk->g", air, sums)
            outer = lam_n[None, :, None] * self.zyy * lam_n[None, None, :]
            yy -= float(np.einsum("pkl,plk->", inverse, outer))
        chol_s = np.linalg.cholesky(schur)
        logdet += 2.0 * float(np.log(np.diagonal(chol_s)).sum())
        s_inv = np.linalg.inv(schur)
        solution = s_inv @ rhs
        r2 = float(yy - rhs @ solution)
        dof = self.n - 1
        if not r2 > 0.0:  # y is in the span of the terms' levels: REML has no minimum
            raise DataError(
                f"the facets' levels fit all {self.n} scores exactly, leaving no residual "
                "variance to estimate; add scores (more runs, or more cells of the facets) "
                "or drop a facet."
            )
        deviance = logdet + dof * (1.0 + math.log(2.0 * math.pi * r2 / dof))
        point = _Point(deviance, r2, float(solution[q]), float(s_inv[q, q]), np.zeros(0))
        if not slope:
            return point
        gradient = np.zeros(len(self.names))
        w = np.concatenate([self.cc * lam_c[None, :], self.cx[:, None]], axis=1)  # (q, g)
        fitted_c = w @ solution  # (C Lambda~ M^-1 c) over the crossed columns
        k_mat = -w.T
        quad_c = np.zeros(q)
        if k:
            u = self.zz * lam_n[None, None, :]
            e = u @ air - t
            quad_n = np.einsum("pij,pjl,pil->pi", u, inverse, u) + np.einsum(
                "pig,gh,pih->pi", e, s_inv, e
            )
            trace_n = self.blocks @ (np.diagonal(self.zz, axis1=1, axis2=2) - quad_n)
            f = np.eye(k) - (u @ inverse) * lam_n[None, None, :]
            h = e @ solution
            fz = np.einsum("pij,pj->pi", f, self.zy)
            fzzf = np.einsum("pij,pjl,pil->pi", f, self.zyy, f)
            zpy_n = (fzzf + 2.0 * fz * h + self.blocks[:, None] * h * h).sum(axis=0)
            np.add.at(gradient, self.nested_term, trace_n - dof * zpy_n / r2)
            y_c = lam_n[None, :, None] * self.zc
            sol_n = np.einsum("pkl,pl->pk", inverse, sums) - self.blocks[:, None] * (air @ solution)
            fitted_c += np.einsum("pkq,pk->q", y_c, sol_n)
            quad_c += np.einsum("p,pkj,pkl,plj->j", self.blocks, y_c, inverse, y_c)
            k_mat = k_mat + np.einsum("p,pkg,pkj->gj", self.blocks, air, y_c)
        if q:
            quad_c += np.einsum("gj,gh,hj->j", k_mat, s_inv, k_mat)
            trace_c = np.diagonal(self.cc) - quad_c
            zpy_c = (self.cy - fitted_c) ** 2
            np.add.at(gradient, self.crossed_term, trace_c - dof * zpy_c / r2)
        return point._replace(slope=gradient)


class _Point(NamedTuple):
    deviance: float
    r2: float
    mean: float
    mean_var: float
    r""":math:`(X^\top V^{-1} X)^{-1}` relative to :math:`\sigma^2`."""
    slope: np.ndarray
    """The gradient in the variance ratios (empty unless asked for)."""


def _minimise(design: _Design, start: np.ndarray | None = None) -> tuple[np.ndarray, int, bool]:
    r"""The criterion's minimum over the variance ratios :math:`s_k = \theta_k^2 \ge 0`.

    In :math:`\theta` the criterion is even, so its slope at 0 is 0 whatever the data and a
    gradient method that reaches 0 stays there; in :math:`s` the slope at 0 says whether a
    component should leave the boundary. L-BFGS-B, with the exact gradient; converged: see
    :func:`_settled`.
    """
    from scipy.optimize import minimize

    calls = 0

    def criterion(ratios: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal calls
        calls += 1
        point = design.evaluate(np.sqrt(ratios), slope=True)
        return point.deviance, point.slope

    ratios = np.ones(len(design.names)) if start is None else start
    try:
        for _ in range(1 + RESTARTS):
            found = minimize(
                criterion,
                ratios,
                jac=True,
                method="L-BFGS-B",
                bounds=[(0.0, None)] * ratios.size,
                options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 2000},
            )
            ratios = np.asarray(found.x, dtype=np.float64)
            settled = _settled(criterion, ratios)
            if settled:
                break
        return np.sqrt(ratios), calls, settled
    except np.linalg.LinAlgError:  # a factorisation lost definiteness to rounding
        raise _breakdown(design) from None


RESTARTS = 2
"""Fresh L-BFGS-B runs from where the last stopped, when its criterion had not settled (its
curvature memory, built far from the minimum, can stall it on a flat stretch)."""


def _breakdown(design: _Design) -> DataError:
    """Why REML broke down: the term nearest to the residual (most levels for the scores)
    cannot be told from it."""
    finest = int(np.argmax(design.levels))
    name, levels = design.names[finest], design.levels[finest]
    return DataError(
        f"REML broke down numerically: term {name!r} has {levels:,} levels for "
        f"{design.n:,} scores, too few replicated cells to tell it from the residual; "
        "drop a facet, or add scores that repeat its cells (more runs)."
    )


def _settled(
    criterion: Callable[[np.ndarray], tuple[float, np.ndarray]], ratios: np.ndarray
) -> bool:
    """Whether a Newton step from ``ratios`` would lower the criterion by less than 1e-6
    (in deviance units: nothing a likelihood ratio would notice), component by component,
    with the curvature from a difference of the exact gradient; a component at 0 counts
    only where the gradient would take it up. Flat directions (a facet of 3 levels with a
    variance near 0) make the gradient itself a poor test."""
    _, slope = criterion(ratios)
    decrease = 0.0
    for k in range(ratios.size):
        if ratios[k] == 0.0 and slope[k] >= 0.0:
            continue
        step = 1e-4 * max(ratios[k], 1e-6)
        probe = ratios.copy()
        probe[k] += step
        curvature = (criterion(probe)[1][k] - slope[k]) / step
        if not curvature > 0.0:
            return False
        decrease += slope[k] ** 2 / (2.0 * curvature)
    return bool(decrease <= 1e-6)


def _codes(values: np.ndarray, name: str, n: int) -> np.ndarray:
    codes = np.asarray(values)
    if codes.shape != (n,) or codes.dtype.kind not in "iu":
        raise DataError(
            f"term {name!r} must be {n} integer level codes (one a score); got "
            f"shape {codes.shape} of {codes.dtype}: factorise the labels first."
        )
    codes = codes.astype(np.int64, copy=False)
    if codes.min() < 0 or (np.bincount(codes) == 0).any():
        raise DataError(
            f"term {name!r} has codes outside 0 .. L-1 or unused levels: "
            "give numpy.unique(labels, return_inverse=True)[1]."
        )
    return codes


def _check_estimable(
    names: tuple[str, ...], codes: list[np.ndarray], levels: tuple[int, ...], n: int
) -> None:
    for name, count in zip(names, levels, strict=True):
        if count < 2:
            raise DataError(
                f"term {name!r} has one level: its variance is not estimable apart from "
                "the mean; drop it, or give scores at two levels or more."
            )
        if count >= n:
            raise DataError(
                f"term {name!r} has a level per score ({count} levels, {n} scores): it is "
                "the residual; drop it from the terms."
            )
    for i in range(len(names)):
        for j in range(i):
            if same_grouping(codes[i], codes[j]):
                raise DataError(
                    f"terms {names[j]!r} and {names[i]!r} group the scores alike: their "
                    "variances are not estimable apart; keep one."
                )


def same_grouping(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two codings (``0 .. L - 1``, every level used) group the scores alike: as
    many levels, each nested in the other."""
    levels = int(a.max()) + 1
    return levels == int(b.max()) + 1 and _nested(a, b, levels)


def _parent(child: np.ndarray, block: np.ndarray, levels: int) -> np.ndarray:
    """The block of each level of ``child`` (its last score's, if it spans several)."""
    parent = np.zeros(levels, dtype=np.int64)
    parent[child] = block
    return parent


def _nested(child: np.ndarray, block: np.ndarray, levels: int) -> bool:
    """Whether every level of ``child`` falls in one level of ``block``."""
    return bool((_parent(child, block, levels)[child] == block).all())


def _rank_in_block(parent: np.ndarray, n_blocks: int) -> tuple[np.ndarray, int]:
    """Each level's place among its block's levels, and the most levels a block holds."""
    counts = np.bincount(parent, minlength=n_blocks)
    order = np.argsort(parent, kind="stable")
    starts = np.cumsum(counts) - counts
    rank = np.empty(parent.shape[0], dtype=np.int64)
    rank[order] = np.arange(parent.shape[0]) - starts[parent[order]]
    return rank, int(counts.max())


def _plan(
    codes: list[np.ndarray], levels: tuple[int, ...]
) -> tuple[int | None, list[int], list[int]]:
    """The block term, the terms nested in it and the crossed rest: the split whose
    evaluation costs least (``B k^3 + B k g^2 + g^3`` with ``g`` crossed columns)."""
    every = list(range(len(codes)))
    best: tuple[float, int | None, list[int], list[int]] = (
        float(sum(levels)) ** 3,
        None,
        [],
        every,
    )
    for f in every:
        nested = [t for t in every if t == f or _nested(codes[t], codes[f], levels[t])]
        width = 0
        for t in nested:
            parent = _parent(codes[t], codes[f], levels[t])
            width += int(np.bincount(parent, minlength=levels[f]).max())
        crossed = [t for t in every if t not in nested]
        g = sum(levels[t] for t in crossed) + 1
        cost = levels[f] * (width**3 + width * g * g) + float(g) ** 3
        if cost < best[0]:
            best = (cost, f, nested, crossed)
    _, block, nested, crossed = best
    if sum(levels[t] for t in crossed) > MAX_CROSSED_LEVELS:
        raise DataError(
            f"the crossed facets hold {sum(levels[t] for t in crossed):,} levels, beyond "
            f"{MAX_CROSSED_LEVELS:,}: nest the large facets in one another or estimate "
            "on a subset."
        )
    return block, nested, crossed
