"""Multiple-testing corrections: family-wise error rate (FWER) and false discovery rate (FDR).

Every function takes ``pvalues`` and ``alpha`` as :func:`bonferroni` documents and returns a
:class:`MultipleTestResult` in input order; hypothesis ``i`` is rejected exactly when
``p_adjusted[i] <= alpha``. :func:`adjust` picks a correction by name.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias, get_args

import numpy as np
import numpy.typing as npt

from evalsig._json import SCHEMA_VERSION
from evalsig.data.provenance import Provenance, provenance
from evalsig.errors import DataError, examples
from evalsig.inference._common import check_choice
from evalsig.result import Result

__all__ = [
    "Method", "MultipleTestResult", "adjust", "benjamini_hochberg", "benjamini_yekutieli",
    "bonferroni", "hochberg", "holm", "holm_sidak", "hommel", "sidak", "storey",
]  # fmt: skip

Method = Literal[
    "bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel", "bh", "by", "storey"
]
"""Names accepted by :func:`adjust`."""

PValues: TypeAlias = "Sequence[float] | npt.NDArray[Any] | Mapping[str, float]"
_FDR = frozenset({"bh", "by", "storey"})


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MultipleTestResult(Result):
    """Adjusted p-values and decisions for a family of hypotheses, in input order."""

    kind: ClassVar[str] = "multiplicity"

    method: str
    alpha: float
    pvalues: np.ndarray
    """The raw p-values (float64)."""
    p_adjusted: np.ndarray
    """Adjusted p-values (q-values for ``"storey"``), float64."""
    reject: np.ndarray
    """``p_adjusted <= alpha`` (bool)."""
    labels: tuple[str, ...] | None = None
    """The mapping's keys, in its order, when the p-values came as a mapping."""
    notes: tuple[str, ...] = ()
    pi0: float | None = None
    """Estimated share of true null hypotheses (``"storey"`` only)."""
    provenance: Provenance | None = None
    """The evalsig version and the time (p-values passed in Python name no input file)."""

    @property
    def n_rejected(self) -> int:
        return int(np.count_nonzero(self.reject))

    @property
    def error_rate(self) -> Literal["fwer", "fdr"]:
        """The error rate the method controls."""
        return "fdr" if self.method in _FDR else "fwer"

    def adjusted(self, label: str) -> tuple[float, bool]:
        """``(p_adjusted, reject)`` of the hypothesis named ``label``."""
        if self.labels is None:
            raise DataError(
                "this result has no labels (the p-values were given as a sequence); index "
                "`p_adjusted` and `reject` by position, or pass a mapping label -> p-value."
            )
        if label not in self.labels:
            raise DataError(
                f"`label` {label!r} is not in this family; its labels are {examples(self.labels)}."
            )
        i = self.labels.index(label)
        return float(self.p_adjusted[i]), bool(self.reject[i])

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: non-finite values become null, with the reason under ``nulls``."""
        nulls: dict[str, str] = {}
        return {
            "kind": "multiplicity", "schema_version": SCHEMA_VERSION, "method": self.method,
            "error_rate": self.error_rate, "alpha": self.alpha, "n_tests": len(self.pvalues),
            "n_rejected": self.n_rejected,
            "labels": None if self.labels is None else list(self.labels),
            "pvalues": _json_list(self.pvalues, "pvalues", nulls),
            "p_adjusted": _json_list(self.p_adjusted, "p_adjusted", nulls),
            "reject": self.reject.tolist(), "pi0": self.pi0, "notes": list(self.notes),
            "nulls": nulls,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
        }  # fmt: skip

    def to_frame(self) -> Any:
        """Every hypothesis in input order: label, pvalue, p_adjusted, reject.

        ``label`` is the mapping's key, or the position ("0", "1", ...) as ``str()`` shows
        it when the p-values came as a sequence.
        """
        from evalsig._frame import data_frame

        n = len(self.pvalues)
        labels = self.labels if self.labels is not None else [str(i) for i in range(n)]
        return data_frame(
            {
                "label": list(labels),
                "pvalue": self.pvalues,
                "p_adjusted": self.p_adjusted,
                "reject": self.reject,
            }
        )


def bonferroni(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Bonferroni correction: multiply every p-value by the number of tests.

    Parameters
    ----------
    pvalues : sequence, array or mapping of float
        One p-value per hypothesis; a mapping label -> p-value keeps the labels.
    alpha : float
        Error rate to control; hypothesis ``i`` is rejected when ``p_adjusted[i] <= alpha``.

    Returns
    -------
    MultipleTestResult

    Raises
    ------
    DataError
        Empty input, NaN or non-numeric values, p outside [0, 1], alpha outside (0, 1).

    Notes
    -----
    :math:`\tilde p_i = \min(1, m p_i)`; valid under any dependence (:func:`holm` is better).

    References
    ----------
    Dunn, O. J. (1961). Multiple comparisons among means. *JASA* 56(293), 52-64.

    Examples
    --------
    >>> out = bonferroni([0.01, 0.04, 0.06, 0.20])
    >>> out.p_adjusted.round(8).tolist(), out.reject.tolist()
    ([0.04, 0.16, 0.24, 0.8], [True, False, False, False])
    """
    return _run("bonferroni", pvalues, alpha)


def sidak(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Sidak correction, the single-step FWER adjustment for independent tests.

    Notes
    -----
    :math:`\tilde p_i = 1 - (1 - p_i)^m`; exact for independent tests.

    References
    ----------
    Sidak, Z. (1967). Rectangular confidence regions for the means of multivariate normal
    distributions. *JASA* 62(318), 626-633.

    Examples
    --------
    >>> sidak([0.01, 0.04, 0.06, 0.20]).p_adjusted.round(8).tolist()
    [0.03940399, 0.15065344, 0.21925104, 0.5904]
    """
    return _run("sidak", pvalues, alpha)


def holm(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Holm's step-down correction: more powerful than Bonferroni, valid under any dependence.

    Notes
    -----
    With the sorted p-values :math:`p_{(1)} \le \dots \le p_{(m)}`,
    :math:`\tilde p_{(i)} = \min\{1, \max_{j \le i} (m - j + 1) p_{(j)}\}`.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    *Scandinavian Journal of Statistics* 6(2), 65-70.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.06, 0.20], alpha=0.05).p_adjusted.round(8).tolist()
    [0.04, 0.12, 0.12, 0.2]
    """
    return _run("holm", pvalues, alpha)


def holm_sidak(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Holm's step-down procedure with Sidak's adjustment at each step (independent tests).

    Notes
    -----
    :math:`\tilde p_{(i)} = \max_{j \le i} \{1 - (1 - p_{(j)})^{m - j + 1}\}`.

    References
    ----------
    Holm, S. (1979). *Scandinavian Journal of Statistics* 6(2), 65-70.
    Sidak, Z. (1967). *JASA* 62(318), 626-633.

    Examples
    --------
    >>> holm_sidak([0.01, 0.04, 0.06, 0.20]).p_adjusted.round(8).tolist()
    [0.03940399, 0.115264, 0.1164, 0.2]
    """
    return _run("holm-sidak", pvalues, alpha)


def hochberg(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Hochberg's step-up correction: FWER for independent or positively dependent tests.

    Notes
    -----
    :math:`\tilde p_{(i)} = \min\{1, \min_{j \ge i} (m - j + 1) p_{(j)}\}`.

    References
    ----------
    Hochberg, Y. (1988). A sharper Bonferroni procedure for multiple tests of significance.
    *Biometrika* 75(4), 800-802.

    Examples
    --------
    >>> hochberg([0.01, 0.04, 0.06, 0.20]).p_adjusted.round(8).tolist()
    [0.04, 0.12, 0.12, 0.2]
    """
    return _run("hochberg", pvalues, alpha)


def hommel(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Hommel's correction: closed testing with Simes tests, at least as powerful as Hochberg.

    Notes
    -----
    :math:`\tilde p_i = \max_{I \ni i} \min_k |I|\, p_{(k:I)} / k`, the largest Simes p-value
    over the intersections containing :math:`i` (valid for independent or PRDS tests).
    With sorted :math:`q_1 \le \dots \le q_m`, the Simes p-value of the :math:`j` largest is
    :math:`s_j = j \min_{t > m - j} q_t / (t - m + j)`; with :math:`S_j = \max_{j' \ge j}
    s_{j'}` and :math:`S_{m+1} = 0`, :math:`H_i` is rejected at level :math:`\alpha` iff
    :math:`h p_i \le \alpha` for :math:`h = \max\{j : S_j > \alpha\}`, so
    :math:`\tilde p_i = \min_{0 \le j \le m} \max(S_{j+1}, j p_i)`. Each :math:`s_j` is the
    slope of the tangent from :math:`(m - j, 0)` to the lower convex hull of the points
    :math:`(t, q_t)`: one hull and two binary searches give every :math:`\tilde p_i` in
    :math:`O(m \log m)`, where the direct loop over intersection sizes is :math:`O(m^2)`.

    References
    ----------
    Hommel, G. (1988). A stagewise rejective multiple test procedure based on a modified
    Bonferroni test. *Biometrika* 75(2), 383-386.
    Meijer, R. J., Krebs, T. J. P. & Goeman, J. J. (2019). Hommel's procedure in linear
    time. *Biometrical Journal* 61(1), 73-82.

    Examples
    --------
    >>> hommel([0.01, 0.04, 0.06, 0.20]).p_adjusted.round(8).tolist()
    [0.04, 0.09, 0.12, 0.2]
    """
    return _run("hommel", pvalues, alpha)


def benjamini_hochberg(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Benjamini-Hochberg step-up procedure: FDR for independent or positively dependent tests.

    Notes
    -----
    :math:`\tilde p_{(i)} = \min\{1, \min_{j \ge i} m p_{(j)} / j\}`.

    References
    ----------
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical
    and powerful approach to multiple testing. *JRSS B* 57(1), 289-300.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.06, 0.20]).p_adjusted.round(8).tolist()
    [0.04, 0.08, 0.08, 0.2]
    """
    return _run("bh", pvalues, alpha)


def benjamini_yekutieli(pvalues: PValues, /, *, alpha: float = 0.05) -> MultipleTestResult:
    r"""Benjamini-Yekutieli step-up procedure: FDR under any dependence.

    Notes
    -----
    :math:`\tilde p_{(i)} = \min\{1, \min_{j \ge i} c_m m p_{(j)} / j\}`,
    :math:`c_m = \sum_{k=1}^m 1/k`.

    References
    ----------
    Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in
    multiple testing under dependency. *Annals of Statistics* 29(4), 1165-1188.

    Examples
    --------
    >>> out = benjamini_yekutieli([0.01, 0.04, 0.06, 0.20])
    >>> out.p_adjusted.round(10).tolist(), out.n_rejected
    ([0.0833333333, 0.1666666667, 0.1666666667, 0.4166666667], 0)
    """
    return _run("by", pvalues, alpha)


def storey(pvalues: PValues, /, *, alpha: float = 0.05, lambda_: float = 0.5) -> MultipleTestResult:
    r"""Storey's q-values: adaptive FDR control with an estimated share of true nulls.

    Parameters
    ----------
    pvalues, alpha
        As in :func:`bonferroni`; ``alpha`` is the FDR level the q-values are compared with.
    lambda_ : float
        Tuning point in [0, 1) of the estimate of :math:`\pi_0`.

    Returns
    -------
    MultipleTestResult
        ``p_adjusted`` holds the q-values, ``pi0`` the estimate (also stated in ``notes``).

    Raises
    ------
    DataError
        As :func:`bonferroni`, and ``lambda_`` outside [0, 1).

    Notes
    -----
    :math:`\hat\pi_0 = \min\{1, \#\{p_i > \lambda\} / (m (1 - \lambda))\}` and
    :math:`q_{(i)} = \min\{1, \min_{j \ge i} \hat\pi_0 m p_{(j)} / j\}`: the
    Benjamini-Hochberg adjustment scaled by :math:`\hat\pi_0`, so a q-value can be below its
    raw p-value. When no p-value exceeds :math:`\lambda` the estimate is 0, which would make
    every q-value 0; :math:`\hat\pi_0 = 1` (plain Benjamini-Hochberg) is used instead, with
    a note. Assumes independent (or weakly dependent) tests.

    References
    ----------
    Storey, J. D. (2002). A direct approach to false discovery rates. *JRSS B* 64(3),
    479-498.
    Storey, J. D. & Tibshirani, R. (2003). Statistical significance for genomewide studies.
    *PNAS* 100(16), 9440-9445.

    Examples
    --------
    >>> out = storey([0.01, 0.04, 0.06, 0.20, 0.70, 0.90])
    >>> out.pi0, out.p_adjusted.round(4).tolist()
    (0.6666666666666666, [0.04, 0.08, 0.08, 0.2, 0.56, 0.6])
    """
    return _run("storey", pvalues, alpha, lambda_)


def adjust(
    pvalues: PValues, /, *, method: Method = "holm", alpha: float = 0.05
) -> MultipleTestResult:
    """Adjust p-values with the correction named ``method``.

    ``"bonferroni"`` calls :func:`bonferroni`, ``"sidak"`` :func:`sidak`, ``"holm"``
    :func:`holm`, ``"holm-sidak"`` :func:`holm_sidak`, ``"hochberg"`` :func:`hochberg`,
    ``"hommel"`` :func:`hommel`, ``"bh"`` :func:`benjamini_hochberg`, ``"by"``
    :func:`benjamini_yekutieli` and ``"storey"`` :func:`storey` (``lambda_=0.5``). The
    first six control the FWER, the last three the FDR.

    Examples
    --------
    >>> adjust({"mmlu": 0.01, "gpqa": 0.04}, method="bh").adjusted("gpqa")
    (0.04, True)
    """
    return _run(method, pvalues, alpha)


def _run(method: str, pvalues: object, alpha: object, lambda_: object = 0.5) -> MultipleTestResult:
    p, labels, level, lam = _multiplicity_iv(pvalues, alpha=alpha, method=method, lambda_=lambda_)
    m = len(p)
    notes: list[str] = []
    pi0 = _storey_pi0(p, lam, notes) if method == "storey" else None
    if method == "bonferroni":
        adj = np.minimum(m * p, 1.0)
    elif method == "sidak":
        with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives exactly 1
            adj = np.maximum(-np.expm1(m * np.log1p(-p)), p)  # >= p, also after rounding
    else:
        order = np.argsort(p)
        adj = np.empty_like(p)
        adj[order] = _sorted_adjustment(method, p[order], pi0)
    reject = adj <= level
    for array in (p, adj, reject):
        array.flags.writeable = False
    return MultipleTestResult(
        method=method, alpha=level, pvalues=p, p_adjusted=adj, reject=reject, labels=labels,
        notes=tuple(notes), pi0=pi0, provenance=provenance(),
    )  # fmt: skip


def _sorted_adjustment(method: str, q: np.ndarray, pi0: float | None) -> np.ndarray:
    """Adjusted values of the ascending p-values ``q``, computed in place (``q`` is scratch)."""
    m = len(q)
    if method == "hommel":
        return _hommel_sorted(q)
    if method in ("holm", "holm-sidak"):
        steps = np.arange(m, 0, -1, dtype=np.float64)  # m - i + 1
        if method == "holm":
            q *= steps
        else:
            with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives exactly 1
                np.maximum(-np.expm1(steps * np.log1p(-q)), q, out=q)  # >= p after rounding
        np.maximum.accumulate(q, out=q)
    else:  # step-up: running minimum from the largest p-value down
        factor = np.arange(1, m + 1, dtype=np.float64)
        if method == "hochberg":
            np.subtract(m + 1.0, factor, out=factor)  # m - i + 1
        elif method == "by":  # c_m m / i with c_m = 1 + 1/2 + ... + 1/m
            np.divide(1.0, factor, out=factor)
            factor *= m * float(np.sum(factor))
        else:
            np.divide(m, factor, out=factor)  # m / i
        q *= factor
        backwards = q[::-1]
        np.minimum.accumulate(backwards, out=backwards)
        if pi0 is not None:
            q *= pi0
    np.minimum(q, 1.0, out=q)
    return q


def _storey_pi0(p: np.ndarray, lambda_: float, notes: list[str]) -> float:
    above = int(np.count_nonzero(p > lambda_))
    if above == 0:
        notes.append(
            f"no p-value exceeds lambda_ = {lambda_:g}: the pi0 estimate 0 would make every "
            "q-value 0, so pi0 = 1 is used (the Benjamini-Hochberg adjustment)."
        )
        return 1.0
    pi0 = min(1.0, above / (len(p) * (1.0 - lambda_)))
    notes.append(f"estimated pi0 = {pi0:.4g}: {above} of {len(p)} p-values exceed {lambda_:g}.")
    return pi0


def _hommel_sorted(q: np.ndarray) -> np.ndarray:
    """Hommel-adjusted values of the ascending p-values ``q`` (see :func:`hommel`, Notes)."""
    # The adjustment is positively homogeneous in p: work on p * 2^600 (exact), so that tiny
    # p-values never meet subnormal rounding (which would shift j* below), and scale back.
    m, scale = len(q), 2.0**600
    q = q * scale
    v = _lower_hull(q)
    t, qv = v + 1.0, q[v]  # hull vertices, at 1-based positions
    # The tangent from (s, 0) touches the first vertex right of s (s <= t - 1) whose outgoing
    # edge is as steep as the line from (s, 0) to it or steeper (s <= z, the edge's x-intercept).
    slope = np.diff(qv) / np.diff(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(slope > 0, t[:-1] - qv[:-1] / slope, np.where(qv[:-1] == 0, np.inf, -np.inf))
    bound = np.maximum.accumulate(np.minimum(np.append(z, np.inf), t - 1.0))
    s = np.arange(m)  # Simes set of the j = m - s largest p-values
    k = np.searchsorted(bound, s, side="left")
    big_s = np.empty(m + 2)  # big_s[j] = S_j, with S_0 = inf and S_{m+1} = 0
    big_s[0], big_s[m + 1] = np.inf, 0.0
    big_s[1 : m + 1] = np.maximum.accumulate((m - s) * qv[k] / (t[k] - s))[::-1]
    # max(S_{j+1}, j p) is smallest at j* = min{j : p >= S_{j+1} / j} or just before; a j* off
    # by one through rounding changes the result only by rounding.
    ratio = np.minimum.accumulate(big_s[2:] / np.arange(1, m + 1))
    j = 1 + np.searchsorted(-ratio, -q, side="left")
    adj = np.minimum(np.maximum(big_s[j + 1], j * q), np.maximum(big_s[j], (j - 1) * q))
    # Non-decreasing in exact arithmetic; the running maximum only irons out rounding.
    return np.maximum.accumulate(np.minimum(adj / scale, 1.0))


def _lower_hull(y: np.ndarray) -> np.ndarray:
    """Indices of the vertices of the lower convex hull of the points ``(i, y[i])``, in linear
    time: vectorised passes drop points on or above their neighbours' chord (never vertices)
    while that removes an eighth of them; Andrew's monotone chain finishes the survivors."""
    idx = np.arange(len(y))
    while len(idx) > 64:
        a, b, c = idx[:-2], idx[1:-1], idx[2:]
        keep = np.ones(len(idx), dtype=bool)
        keep[1:-1] = (b - a) * (y[c] - y[b]) - (y[b] - y[a]) * (c - b) > 0
        before, idx = len(idx), idx[keep]
        if len(idx) > 0.875 * before:
            break
    hx: list[int] = []
    hy: list[float] = []
    for x, yx in zip(idx.tolist(), y[idx].tolist(), strict=True):
        while len(hx) > 1 and (hx[-1] - hx[-2]) * (yx - hy[-1]) <= (hy[-1] - hy[-2]) * (x - hx[-1]):
            hx.pop()
            hy.pop()
        hx.append(x)
        hy.append(yx)
    return np.array(hx, dtype=np.intp)


def _multiplicity_iv(
    pvalues: object, *, alpha: object, method: object, lambda_: object
) -> tuple[np.ndarray, tuple[str, ...] | None, float, float]:
    """Check every argument; return a fresh float64 array, the labels, alpha and lambda_."""
    check_choice(
        method,
        get_args(Method),
        "`method`",
        "Use 'holm' to control the family-wise error rate or 'bh' for the FDR.",
    )
    level = _number_in("alpha", alpha, closed=False, fix="Use e.g. 0.05.")
    lam = _number_in("lambda_", lambda_, closed=True, fix="Use e.g. 0.5.")
    labels, values = None, pvalues
    if isinstance(pvalues, Mapping):
        if bad := [key for key in pvalues if not isinstance(key, str)]:
            raise DataError(
                f"`pvalues` labels must be strings; got {examples(bad)}. Convert them with str()."
            )
        labels, values = tuple(pvalues), list(pvalues.values())
    try:
        arr = np.asarray(values)
    except ValueError:
        raise DataError("`pvalues` must be a flat list of numbers; got ragged nesting.") from None
    if arr.ndim != 1:
        got = f"shape {arr.shape}" if arr.ndim else f"{type(values).__name__} {values!r}"
        raise DataError(
            f"`pvalues` must be a flat sequence, array or mapping of p-values; got {got}. Wrap "
            "a single p-value in a list; np.ravel() a matrix only if its layout means nothing."
        )
    if len(arr) == 0:
        raise DataError("`pvalues` is empty: give one p-value per hypothesis in the family.")

    def at(i: int) -> str:
        return f"position {i}" if labels is None else f"label {labels[i]!r}"

    if arr.dtype.kind not in "fiu":
        items = list(values) if isinstance(values, (list, tuple)) else arr.tolist()
        bad_values = [
            f"{v!r} at {at(i)}"
            for i, v in enumerate(items)
            if isinstance(v, bool) or not isinstance(v, numbers.Real)
        ]
        if bad_values:
            raise DataError(
                f"`pvalues` has {len(bad_values)} non-numeric value(s): {_first(bad_values)}. "
                "Give one number in [0, 1] per hypothesis."
            )
    p = np.array(arr, dtype=np.float64)
    if not (p.min() >= 0.0 and p.max() <= 1.0):  # also catches NaN
        if len(nan := np.flatnonzero(np.isnan(p)).tolist()):
            raise DataError(
                f"`pvalues` has {len(nan)} NaN value(s) (at {_first([at(i) for i in nan])}): a "
                "test could not be computed. Fix or remove it first (that changes the family)."
            )
        out = np.flatnonzero((p < 0.0) | (p > 1.0)).tolist()
        raise DataError(
            f"`pvalues` must lie in [0, 1]; got {len(out)} value(s) outside: "
            f"{_first([f'{float(p[i])!r} at {at(i)}' for i in out])}. Pass p-values, not test "
            "statistics or log p-values."
        )
    return p, labels, level, lam


def _number_in(name: str, value: object, *, closed: bool, fix: str) -> float:
    """``value`` as a float in (0, 1), or in [0, 1) when ``closed``."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    x = float(value) if ok else float("nan")  # type: ignore[arg-type]
    if not ((x >= 0.0 if closed else x > 0.0) and x < 1.0):
        where = "[0, 1)" if closed else "(0, 1)"
        raise DataError(f"`{name}` must be a number in {where}; got {value!r}. {fix}")
    return x


def _first(items: list[str], limit: int = 3) -> str:
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


def _json_list(values: np.ndarray, name: str, nulls: dict[str, str]) -> list[float | None]:
    finite = np.isfinite(values).tolist()
    if not all(finite):
        nulls[name] = "null where the value is undefined (NaN or infinite)"
    return [float(v) if ok else None for v, ok in zip(values.tolist(), finite, strict=True)]
