"""The mixture design: what a simulated benchmark looks like, and how to draw its items.

Each item has a latent probability ``p`` of being answered correctly: a share
``share_easy`` of items is always right (``p = 1``), a share ``share_hard`` always wrong
(``p = 0``), the rest uniform on ``middle``. Runs are independent Bernoulli draws per item.
The clone of the baseline has the same ``p``; the fine-tune turns ``round(uplift * n)``
always-wrong items into always-right ones, a true gain of exactly that share.

Optionally the items form ``n_clusters`` clusters whose single-run scores have the
intra-cluster correlation ``icc`` (see :mod:`evalsig.simulate.clusters`); the marginal
mixture is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import special

from evalsig.errors import DataError
from evalsig.simulate.clusters import cluster_codes, copula_rho, mixture_quantile

__all__ = ["MixtureDesign", "check_promotable"]


class _Sized(Protocol):
    @property
    def uplift(self) -> float: ...
    @property
    def n_items(self) -> int: ...


class Promotion:
    """What a design's ``uplift`` means on its ``n_items`` items (for designs with both)."""

    __slots__ = ()

    @property
    def n_promote(self: _Sized) -> int:
        """Always-wrong items the fine-tune turns always-right: ``round(uplift * n)``."""
        return round(self.uplift * self.n_items)

    @property
    def true_uplift(self: _Sized) -> float:
        """The fine-tune's true gain in accuracy, ``n_promote / n``."""
        return round(self.uplift * self.n_items) / self.n_items


@dataclass(frozen=True, slots=True, kw_only=True)
class MixtureDesign(Promotion):
    """A benchmark design: items, runs, difficulty mixture, uplift and optional clusters.

    The defaults are the calibration design of the "bootstrap abuse" article (4,000
    questions, 8 runs, 42% always right, 28% always wrong, the rest uniform(0.2, 0.8),
    a +1 point fine-tune).

    References
    ----------
    cstorm125 (2026). Benchmaxxing Series: Abuse-Boostrapping-for-Narrower-Confidence-
    Intervals no Jutsu (``sample_p_q``, ``derive_finetune``, ``simulate_runs``).

    Examples
    --------
    >>> design = MixtureDesign()
    >>> design.n_promote, round(design.mean_p, 2), round(design.mean_pq, 3)
    (40, 0.57, 0.066)
    """

    n_items: int = 4000
    n_runs: int = 8
    share_easy: float = 0.42
    share_hard: float = 0.28
    middle: tuple[float, float] = (0.2, 0.8)
    uplift: float = 0.01
    n_clusters: int | None = None
    icc: float = 0.0
    rho: float = field(init=False, default=0.0)
    """Copula correlation that gives ``icc`` (0 without clusters)."""

    def __post_init__(self) -> None:
        if isinstance(self.n_items, bool) or not isinstance(self.n_items, (int, np.integer)):
            raise DataError(f"`n_items` must be an integer; got {self.n_items!r}.")
        if self.n_items < 2:
            raise DataError(f"`n_items` must be at least 2; got {self.n_items}.")
        if isinstance(self.n_runs, bool) or not isinstance(self.n_runs, (int, np.integer)):
            raise DataError(f"`n_runs` must be an integer; got {self.n_runs!r}.")
        if self.n_runs < 1:
            raise DataError(f"`n_runs` must be at least 1; got {self.n_runs}.")
        e, h = float(self.share_easy), float(self.share_hard)
        if not (math.isfinite(e) and math.isfinite(h) and e >= 0 and h >= 0 and e + h <= 1):
            raise DataError(
                f"`share_easy` ({self.share_easy!r}) and `share_hard` ({self.share_hard!r}) "
                "must be shares summing to at most 1."
            )
        if len(self.middle) != 2:
            raise DataError(f"`middle` must be an interval (low, high); got {self.middle!r}.")
        low, high = (float(v) for v in self.middle)
        if not 0 <= low <= high <= 1:
            raise DataError(f"`middle` must be an interval inside [0, 1]; got {self.middle!r}.")
        object.__setattr__(self, "middle", (low, high))
        if not (math.isfinite(float(self.uplift)) and 0 <= self.uplift <= 1):
            raise DataError(
                f"`uplift` must be a share of items in [0, 1] (0.01 = +1 point); got "
                f"{self.uplift!r}."
            )
        check_promotable(self.n_promote, self.n_items, self.share_hard, "share_hard")
        if self.n_clusters is None:
            if self.icc != 0.0:
                raise DataError(
                    f"`icc`={self.icc!r} needs clusters; give n_clusters (e.g. 100) or icc=0."
                )
            return
        if self.n_clusters < 2 or self.n_clusters > self.n_items:
            raise DataError(
                f"`n_clusters` must be between 2 and n_items ({self.n_items}); got "
                f"{self.n_clusters!r}."
            )
        mixture = {"share_easy": e, "share_hard": h, "middle": self.middle}
        object.__setattr__(self, "rho", copula_rho(self.icc, **mixture))  # type: ignore[arg-type]

    @property
    def clusters(self) -> np.ndarray | None:
        """``(n,)`` cluster code of each item, or None."""
        if self.n_clusters is None:
            return None
        return cluster_codes(self.n_items, self.n_clusters)

    @property
    def share_middle(self) -> float:
        return 1.0 - self.share_easy - self.share_hard

    @property
    def mean_p(self) -> float:
        """Expected accuracy of the baseline: ``s_easy + s_middle (low + high) / 2``."""
        low, high = self.middle
        return self.share_easy + self.share_middle * (low + high) / 2

    @property
    def mean_pq(self) -> float:
        """``E[p (1 - p)]``, the decoding noise of one run on one item, averaged over items.

        For ``U ~ Uniform(low, high)``: ``E[U (1 - U)] = (low + high)/2 - (low^2 + low high
        + high^2)/3``; always-right and always-wrong items add nothing.
        """
        low, high = self.middle
        e_u = (low + high) / 2
        e_u2 = (low * low + low * high + high * high) / 3
        return self.share_middle * (e_u - e_u2)

    @property
    def mean_p2(self) -> float:
        """``E[p^2]`` (for the consistency of runs and the spread of items)."""
        low, high = self.middle
        return self.share_easy + self.share_middle * (low * low + low * high + high * high) / 3

    @property
    def hard_share(self) -> float:
        """Expected share of always-wrong items (the pool the fine-tune promotes from)."""
        return float(self.share_hard)

    def latent(self, rng: np.random.Generator) -> np.ndarray:
        """``(n,)`` latent success probabilities of one benchmark's baseline.

        Without clusters the draws are those of the article's ``sample_p_q``: ``n``
        uniforms pick the component, then ``n`` uniforms on ``middle``.
        """
        if self.n_clusters is None:
            u = rng.random(self.n_items)
            low, high = self.middle
            mid = rng.uniform(low, high, size=self.n_items)
            easy, edge = self.share_easy, self.share_easy + self.share_hard
            return np.where(u < easy, 1.0, np.where(u < edge, 0.0, mid))
        return np.asarray(self.latent_batch(1, rng)[0])

    def latent_batch(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``(size, n)`` latent probabilities of ``size`` independent benchmarks.

        Without clusters each item takes one uniform ``u``: always right when
        ``u < share_easy``, always wrong below ``share_easy + share_hard``, otherwise
        ``p = low + (high - low) (u - share_easy - share_hard) / share_middle`` (given
        the band, uniform on ``middle``).
        """
        n = self.n_items
        if self.n_clusters is None:
            # one uniform per item: its component, and within the middle band its p
            u = rng.random((size, n))
            low, high = self.middle
            easy, edge = self.share_easy, self.share_easy + self.share_hard
            p = u - edge
            p *= (high - low) / self.share_middle if self.share_middle > 0 else 0.0
            p += low
            p[u < edge] = 0.0
            p[u < easy] = 1.0
            return p
        codes = cluster_codes(n, self.n_clusters)
        shift = rng.standard_normal((size, self.n_clusters))
        noise = rng.standard_normal((size, n))
        z = math.sqrt(self.rho) * shift[:, codes] + math.sqrt(1.0 - self.rho) * noise
        return mixture_quantile(special.ndtr(z), self.share_easy, self.share_hard, self.middle)

    def describe(self) -> str:
        """One line: 'N items x R runs; 42% always right, 28% always wrong, ...'."""
        low, high = self.middle
        text = (
            f"{self.n_items:,} items x {self.n_runs} runs; {100 * self.share_easy:g}% always "
            f"right, {100 * self.share_hard:g}% always wrong, the rest uniform({low:g}, "
            f"{high:g}); fine-tune +{100 * self.true_uplift:.4g} pp"
        )
        if self.n_clusters is not None:
            text += f"; {self.n_clusters} clusters, ICC {self.icc:g}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "generator": "mixture",
            "n_items": int(self.n_items),
            "n_runs": int(self.n_runs),
            "share_easy": float(self.share_easy),
            "share_hard": float(self.share_hard),
            "middle": list(self.middle),
            "uplift": float(self.uplift),
            "n_promote": self.n_promote,
            "true_uplift": self.true_uplift,
            "n_clusters": self.n_clusters,
            "icc": float(self.icc),
            "rho": float(self.rho),
            "description": self.describe(),
        }


def check_promotable(n_promote: int, n_items: int, hard_share: float, name: str) -> None:
    """Refuse an uplift that needs more always-wrong items than the design can supply.

    The fine-tune must find ``n_promote`` always-wrong items in every simulated benchmark,
    so the expected number must exceed it by five binomial standard deviations.
    """
    if n_promote == 0:
        return
    expected = n_items * hard_share
    spread = math.sqrt(n_items * hard_share * max(1.0 - hard_share, 0.0))
    if expected - 5.0 * spread < n_promote:
        raise DataError(
            f"the uplift needs {n_promote} always-wrong items to promote, but a benchmark "
            f"has about {expected:.0f} (sd {spread:.1f}); lower `uplift` or raise `{name}`."
        )
