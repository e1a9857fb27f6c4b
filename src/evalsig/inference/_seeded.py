"""The set-up every seeded resampling test shares: its options checked once, in one order,
and a random generator with the seed that rebuilds it, recorded on the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict, cast

import numpy as np

from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    check_alternative,
    check_confidence_level,
    check_n_resamples,
    record_seed,
    seeded,
)

__all__ = ["Resampling", "ResamplingKeywords", "resampling_options"]


class ResamplingKeywords(TypedDict):
    """The keywords every resampling core takes (``bootstrap_core(d, **keywords)``)."""

    alternative: Alternative
    confidence_level: float
    n_resamples: int
    rng: np.random.Generator


@dataclass(frozen=True, slots=True, kw_only=True)
class Resampling:
    """Checked options of a seeded resampling test, with its generator and seed."""

    alternative: Alternative
    confidence_level: float
    n_resamples: int
    rng: np.random.Generator
    seed: int | None
    """The integer seed that rebuilds ``rng``; None when a Generator was passed in."""

    @property
    def keywords(self) -> ResamplingKeywords:
        return ResamplingKeywords(
            alternative=self.alternative,
            confidence_level=self.confidence_level,
            n_resamples=self.n_resamples,
            rng=self.rng,
        )

    def record(self, result: InferenceResult) -> InferenceResult:
        """``result`` with the seed of its draws (or a note that the seed is unknown)."""
        return record_seed(result, self.seed)


def resampling_options(
    *, alternative: object, confidence_level: object, n_resamples: object, rng: object
) -> Resampling:
    """Check ``alternative``, ``confidence_level`` and ``n_resamples`` (in that order), then
    make the generator: ``rng=None`` draws a seed from the operating system and records it.

    Each check raises a :class:`~evalsig.errors.DataError` that names the argument.
    """
    checked_alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    resamples = check_n_resamples(n_resamples)
    generator, seed = seeded(cast("np.random.Generator | int | None", rng))
    return Resampling(
        alternative=checked_alternative,
        confidence_level=level,
        n_resamples=resamples,
        rng=generator,
        seed=seed,
    )
