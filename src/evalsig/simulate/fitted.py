"""A benchmark generator fitted to your own runs: empirical-Bayes item difficulties.

From a model's repeated runs on its benchmark, :func:`fit_design` estimates how the items'
success probabilities are spread, shrinks each item's observed success rate toward that
spread, and returns a design that simulates new benchmarks like yours: the same mix of
items the model always gets right, always gets wrong, and gets right only sometimes.

Model (a zero-one-inflated beta-binomial): item ``i`` answered correctly ``k_i`` times in
``R_i`` runs has ``k_i ~ Binomial(R_i, p_i)`` with

``p_i = 1`` with probability ``pi_1``, ``p_i = 0`` with probability ``pi_0``, otherwise
``p_i ~ Beta(a, b)``.

The shares and ``(a, b)`` maximise the marginal likelihood
``prod_i [pi_1 1{k_i = R_i} + pi_0 1{k_i = 0} + (1 - pi_0 - pi_1) BetaBin(k_i; R_i, a, b)]``
(empirical Bayes). Each item's posterior is then a point mass at 1 or 0 or a
``Beta(a + k_i, b + R_i - k_i)``, with weights proportional to the three terms; its mean is
the shrunk success rate. A simulated benchmark draws ``n_items`` of your items with
replacement (new questions like yours) and each drawn item's latent ``p`` from its
posterior; the fine-tune promotes always-wrong items as in the mixture design.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from evalsig.data import ScoreTable, load
from evalsig.data.provenance import Origin, shown
from evalsig.errors import DataError
from evalsig.simulate.design import Promotion, check_promotable

__all__ = ["FittedDesign", "design_inputs", "fit_design"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class FittedDesign(Promotion):
    """A design fitted to one model's runs (build with :func:`fit_design`)."""

    n_items: int
    """Items per simulated benchmark."""
    n_runs: int
    """Runs per model in a simulated benchmark."""
    uplift: float
    share_easy: float
    """Fitted share ``pi_1`` of always-right items."""
    share_hard: float
    """Fitted share ``pi_0`` of always-wrong items."""
    alpha: float
    beta: float
    """Fitted ``Beta(a, b)`` of the other items' success probabilities."""
    item_easy: np.ndarray = field(repr=False)
    """``(n_data,)`` posterior probability that each of your items is always right."""
    item_hard: np.ndarray = field(repr=False)
    """``(n_data,)`` posterior probability that it is always wrong."""
    item_a: np.ndarray = field(repr=False)
    item_b: np.ndarray = field(repr=False)
    """``(n_data,)`` parameters of each item's beta posterior (when neither)."""
    log_likelihood: float
    source: str
    notes: tuple[str, ...] = ()
    origin: Origin | None = None
    """Where the fitted runs came from (files and hashes, model, task, metric), when known."""

    def __post_init__(self) -> None:
        if self.n_items < 2:
            raise DataError(f"`n_items` must be at least 2; got {self.n_items}.")
        if self.n_runs < 1:
            raise DataError(f"`n_runs` must be at least 1; got {self.n_runs}.")
        if not (math.isfinite(float(self.uplift)) and 0 <= self.uplift <= 1):
            raise DataError(f"`uplift` must be a share in [0, 1]; got {self.uplift!r}.")
        check_promotable(self.n_promote, self.n_items, self.hard_share, "the always-wrong share")

    @property
    def n_data_items(self) -> int:
        return len(self.item_easy)

    @property
    def clusters(self) -> np.ndarray | None:
        return None

    @property
    def _middle_weight(self) -> np.ndarray:
        return np.asarray(1.0 - self.item_easy - self.item_hard)

    @property
    def shrunk_rates(self) -> np.ndarray:
        """``(n_data,)`` posterior mean success probability of each of your items."""
        mean = self.item_a / (self.item_a + self.item_b)
        return np.asarray(self.item_easy + self._middle_weight * mean)

    @property
    def mean_p(self) -> float:
        """Expected accuracy of a simulated baseline."""
        return float(self.shrunk_rates.mean())

    @property
    def mean_pq(self) -> float:
        """``E[p (1 - p)]`` over simulated items (beta posterior: ``ab / ((a+b)(a+b+1))``)."""
        s = self.item_a + self.item_b
        pq = self.item_a * self.item_b / (s * (s + 1))
        return float((self._middle_weight * pq).mean())

    @property
    def mean_p2(self) -> float:
        s = self.item_a + self.item_b
        second = self.item_a * (self.item_a + 1) / (s * (s + 1))
        return float((self.item_easy + self._middle_weight * second).mean())

    @property
    def hard_share(self) -> float:
        """Expected share of always-wrong items in a simulated benchmark."""
        return float(self.item_hard.mean())

    def latent(self, rng: np.random.Generator) -> np.ndarray:
        """``(n,)`` latent probabilities of one simulated benchmark."""
        return np.asarray(self.latent_batch(1, rng)[0])

    def latent_batch(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``(size, n)``: items drawn with replacement, ``p`` from each item's posterior."""
        pick = rng.integers(0, self.n_data_items, size=(size, self.n_items))
        u = rng.random((size, self.n_items))
        draws = rng.beta(self.item_a[pick], self.item_b[pick])
        easy = self.item_easy[pick]
        edge = easy + self.item_hard[pick]
        return np.where(u < easy, 1.0, np.where(u < edge, 0.0, draws))

    def describe(self) -> str:
        return (
            f"{self.n_items:,} items x {self.n_runs} runs drawn from {self.source} "
            f"({self.n_data_items:,} items fitted: {100 * self.share_easy:.1f}% always right, "
            f"{100 * self.share_hard:.1f}% always wrong, the rest Beta({self.alpha:.3g}, "
            f"{self.beta:.3g})); fine-tune +{100 * self.true_uplift:.4g} pp"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "generator": "fitted",
            "n_items": int(self.n_items),
            "n_runs": int(self.n_runs),
            "uplift": float(self.uplift),
            "n_promote": self.n_promote,
            "true_uplift": self.true_uplift,
            "share_easy": self.share_easy,
            "share_hard": self.share_hard,
            "alpha": self.alpha,
            "beta": self.beta,
            "n_data_items": self.n_data_items,
            "log_likelihood": self.log_likelihood,
            "source": self.source,
            "n_clusters": None,
            "description": self.describe(),
            "notes": list(self.notes),
        }


def fit_design(
    runs: Any,
    /,
    *,
    n_items: int | None = None,
    n_runs: int | None = None,
    uplift: float = 0.01,
) -> FittedDesign:
    """Fit a benchmark generator to one model's repeated 0/1 runs.

    Parameters
    ----------
    runs : array (runs x items), ScoreTable, file path or anything :func:`evalsig.load` reads
        One model's scores; every score must be 0 or 1 and some items need two or more
        runs (one run cannot tell a hard item from an unlucky draw).
    n_items, n_runs : int, optional
        Size of the simulated benchmarks; default: as in the data (the largest number
        of runs per item).
    uplift : float, default 0.01
        True gain of the simulated fine-tune (share of items promoted from always-wrong).

    Returns
    -------
    FittedDesign

    Raises
    ------
    DataError
        Non-binary scores, a single run per item, or an uplift larger than the
        always-wrong share can supply.

    Notes
    -----
    Marginal likelihood of the zero-one-inflated beta-binomial, grouped by distinct
    ``(k, R)``; maximised over ``logit``-type shares and ``log a, log b`` (L-BFGS-B). The
    posterior weights of an item with ``k`` of ``R`` right are proportional to
    ``pi_1 1{k = R}``, ``pi_0 1{k = 0}`` and ``(1 - pi_0 - pi_1) BetaBin(k; R, a, b)``.

    References
    ----------
    Efron, B. (2010). Large-Scale Inference: Empirical Bayes Methods for Estimation,
    Testing and Prediction. Cambridge University Press. Ospina, R. & Ferrari, S. L. P.
    (2012). A general class of zero-or-one inflated beta regression models. Computational
    Statistics & Data Analysis 56(6), 1609-1623.

    Examples
    --------
    >>> from evalsig.simulate import simulate_benchmark
    >>> bench = simulate_benchmark(n_items=4000, n_runs=8, rng=0)
    >>> design = fit_design(bench.baseline)
    >>> round(design.share_easy, 3), round(design.share_hard, 3)
    (0.422, 0.274)
    """
    table = runs if isinstance(runs, ScoreTable) else load(runs, name="runs")
    if not table.binary:
        raise DataError(
            f"`runs` ({table.source}) has scores other than 0 and 1; the generator models "
            "right/wrong answers. Binarise the scores (e.g. score >= threshold) first."
        )
    k = np.rint(table.sums).astype(np.int64)
    r = np.asarray(table.counts, dtype=np.int64)
    if int(r.max()) < 2:
        raise DataError(
            f"`runs` ({table.source}) has one run per item; fitting item difficulty needs "
            "at least 2 runs of some items to separate hard items from unlucky draws."
        )
    notes: list[str] = []
    if table.ragged:
        notes.append(f"ragged runs ({table.runs_summary()}): each item's own count is used")
    pairs, weights = np.unique(np.stack([k, r], axis=1), axis=0, return_counts=True)
    kk, rr, ww = pairs[:, 0], pairs[:, 1], weights.astype(float)
    share_easy, share_hard, a, b, loglik = _fit(kk, rr, ww, notes)
    easy, hard, _ = _posterior_weights(k, r, share_easy, share_hard, a, b)
    return FittedDesign(
        n_items=table.n_items if n_items is None else int(n_items),
        n_runs=int(r.max()) if n_runs is None else int(n_runs),
        uplift=float(uplift),
        share_easy=share_easy,
        share_hard=share_hard,
        alpha=a,
        beta=b,
        item_easy=easy,
        item_hard=hard,
        item_a=a + k.astype(float),
        item_b=b + (r - k).astype(float),
        log_likelihood=loglik,
        source=shown(table.source),
        notes=tuple(notes),
        origin=table.origin,
    )


def design_inputs(design: object) -> dict[str, Origin | None]:
    """The inputs a simulation's provenance names: the runs a fitted design was fitted to
    (``'fitted to'``); none for a design given by its parameters."""
    return {"fitted to": design.origin} if isinstance(design, FittedDesign) else {}


def _log_betabinom(k: np.ndarray, r: np.ndarray, a: float, b: float) -> np.ndarray:
    return np.asarray(
        special.gammaln(r + 1)
        - special.gammaln(k + 1)
        - special.gammaln(r - k + 1)
        + special.betaln(k + a, r - k + b)
        - special.betaln(a, b)
    )


def _components(
    k: np.ndarray, r: np.ndarray, share_easy: float, share_hard: float, a: float, b: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log of the three mixture terms for each ``(k, R)`` (``-inf`` where impossible)."""
    with np.errstate(divide="ignore"):
        log_easy = np.where(k == r, math.log(share_easy) if share_easy > 0 else -np.inf, -np.inf)
        log_hard = np.where(k == 0, math.log(share_hard) if share_hard > 0 else -np.inf, -np.inf)
        share_mid = 1.0 - share_easy - share_hard
        log_mid = (math.log(share_mid) if share_mid > 0 else -np.inf) + _log_betabinom(k, r, a, b)
    return log_easy, log_hard, log_mid


def _fit(
    k: np.ndarray, r: np.ndarray, w: np.ndarray, notes: list[str]
) -> tuple[float, float, float, float, float]:
    total = w.sum()
    inside = (k > 0) & (k < r)
    if not inside.any():
        notes.append(
            "every item was answered the same way in all its runs: no item is fitted as "
            "uncertain, so simulated runs carry no decoding noise"
        )
        easy = float(w[(k == r)].sum() / total)
        return easy, 1.0 - easy, 1.0, 1.0, _loglik(k, r, w, easy, 1.0 - easy, 1.0, 1.0)
    ratio = k[inside] / r[inside]
    mean = float(np.average(ratio, weights=w[inside]))
    var = float(np.average((ratio - mean) ** 2, weights=w[inside]))
    strength = max(mean * (1 - mean) / max(var, 1e-6) - 1.0, 0.5)
    start_easy = max(float(w[(k == r)].sum() / total), 1e-3)
    start_hard = max(float(w[(k == 0)].sum() / total), 1e-3)
    start_mid = max(1.0 - start_easy - start_hard, 1e-3)
    x0 = np.array(
        [
            math.log(start_easy / start_mid),
            math.log(start_hard / start_mid),
            math.log(mean * strength),
            math.log((1 - mean) * strength),
        ]
    )

    def unpack(x: np.ndarray) -> tuple[float, float, float, float]:
        logits = np.array([x[0], x[1], 0.0])
        shares = np.exp(logits - logits.max())
        shares /= shares.sum()
        return float(shares[0]), float(shares[1]), math.exp(x[2]), math.exp(x[3])

    def objective(x: np.ndarray) -> float:
        return -_loglik(k, r, w, *unpack(x))

    positive = (math.log(1e-3), math.log(1e4))
    bounds = [(-30.0, 30.0), (-30.0, 30.0), positive, positive]
    from scipy import optimize  # 0.1-0.2 s to import: only fitting a design needs it

    fit = optimize.minimize(objective, x0, method="L-BFGS-B", bounds=bounds)
    share_easy, share_hard, a, b = unpack(fit.x)
    if not fit.success:
        notes.append(f"the likelihood maximisation stopped early ({fit.message})")
    return share_easy, share_hard, a, b, -float(fit.fun)


def _loglik(
    k: np.ndarray, r: np.ndarray, w: np.ndarray, e: float, h: float, a: float, b: float
) -> float:
    terms = np.stack(_components(k, r, e, h, a, b))
    value = float(w @ special.logsumexp(terms, axis=0))
    return value if math.isfinite(value) else -1e300


def _posterior_weights(
    k: np.ndarray, r: np.ndarray, e: float, h: float, a: float, b: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    terms = np.stack(_components(k, r, e, h, a, b))
    norm = special.logsumexp(terms, axis=0)
    post = np.exp(terms - norm)
    return post[0], post[1], post[2]
