"""Argument checks shared by the meta-analysis functions (one place, one wording)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

import numpy as np

from evalsig.errors import DataError, EvalsigWarning, examples
from evalsig.inference._common import check_choice, check_confidence_level

__all__ = [
    "METHODS",
    "TESTS",
    "FitOptions",
    "I2Basis",
    "MetaConvergenceWarning",
    "Method",
    "Test",
    "check_fit",
    "check_iteration",
    "check_method",
    "check_test",
    "effect_vectors",
]

Method = Literal["fe", "dl", "reml", "ml", "pm", "he", "sj", "hs", "eb"]
"""Estimators of tau^2: fixed effect (tau^2 = 0), DerSimonian-Laird, restricted and full
maximum likelihood, Paule-Mandel, Hedges, Sidik-Jonkman, Hunter-Schmidt, empirical Bayes."""
Test = Literal["z", "hksj"]
"""Inference for mu: Wald z, or Hartung-Knapp-Sidik-Jonkman with t(k - p)."""
I2Basis = Literal["tau2", "q"]
"""I^2 and H^2 from the estimated tau^2 (metafor) or from Cochran's Q (Higgins & Thompson)."""

METHODS: tuple[str, ...] = get_args(Method)
TESTS: tuple[str, ...] = get_args(Test)


class MetaConvergenceWarning(EvalsigWarning):
    """An iterative estimator of tau^2 did not converge; the estimates are reported as NaN."""


def check_method(method: object) -> Method:
    hint = "Use 'reml' (the default) unless you need a particular estimator."
    return cast(Method, check_choice(method, METHODS, "`method`", hint))


def check_test(test: object) -> Test:
    hint = "Use 'hksj' for intervals that keep their level with few reports."
    return cast(Test, check_choice(test, TESTS, "`test`", hint))


@dataclass(frozen=True, slots=True)
class FitOptions:
    """The checked options of a meta-analytic fit (see :func:`check_fit`)."""

    method: Method
    test: Test
    level: float
    basis: I2Basis
    tol: float
    max_iter: int


def check_fit(
    method: object,
    test: object,
    confidence_level: object,
    *,
    i2_basis: object = "tau2",
    tol: object = 1e-10,
    max_iter: object = 1000,
) -> FitOptions:
    """The options every fit takes, checked in one place and in this order: the tau^2
    estimator, the test for mu, the confidence level, the I^2 basis and the iteration
    controls (a DataError naming the first bad one)."""
    checked_method = check_method(method)
    checked_test = check_test(test)
    level = check_confidence_level(confidence_level)
    hint = "Use 'tau2' (metafor's)."
    basis = cast(I2Basis, check_choice(i2_basis, get_args(I2Basis), "`i2_basis`", hint))
    checked_tol, checked_max_iter = check_iteration(tol, max_iter)
    return FitOptions(
        method=checked_method,
        test=checked_test,
        level=level,
        basis=basis,
        tol=checked_tol,
        max_iter=checked_max_iter,
    )


def check_iteration(tol: object, max_iter: object) -> tuple[float, int]:
    """The convergence tolerance (positive, below 1e-3) and the iteration cap (at least 1)."""
    try:
        t = float(tol)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        t = math.nan
    if not 0.0 < t < 1e-3:
        raise DataError(f"`tol` must be a number in (0, 0.001); got {tol!r}. Use e.g. 1e-10.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise DataError(f"`max_iter` must be a positive integer; got {max_iter!r}.")
    return t, int(max_iter)


def _vector(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(
            f"`{name}` must be a sequence of numbers; got {type(values).__name__} "
            f"({examples(list(values) if isinstance(values, (list, tuple)) else [values])})."
        ) from None
    if array.ndim != 1:
        raise DataError(f"`{name}` must be one-dimensional; got shape {array.shape}.")
    return array


def effect_vectors(
    estimates: Any, variances: Any, *, minimum: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Validated float copies of ``estimates`` and ``variances`` (finite; variances > 0)."""
    y, v = _vector(estimates, "estimates"), _vector(variances, "variances")
    if y.shape != v.shape:
        raise DataError(
            f"`estimates` has {y.size} values but `variances` has {v.size}; "
            "give one sampling variance per estimate."
        )
    if y.size < minimum:
        raise DataError(f"`estimates` has {y.size} values; this needs at least {minimum} reports.")
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise DataError(
            f"`estimates` has {bad.size} non-finite values (positions {examples(bad)}: "
            f"{examples(y[bad])}); drop or fix those reports."
        )
    bad = np.flatnonzero(~(np.isfinite(v) & (v > 0)))
    if bad.size:
        raise DataError(
            f"`variances` must be finite and positive; {bad.size} are not (positions "
            f"{examples(bad)}: {examples(v[bad])}). A report needs a positive sampling "
            "variance (the squared standard error)."
        )
    return y.copy(), v.copy()
