"""evalsig's intervals inside Inspect AI: a metric for ``@scorer(metrics=[...])``.

:func:`mean_ci` is an Inspect metric (registered as ``evalsig/mean_ci``) that reports the
mean score with its standard error and confidence interval, computed by
:mod:`evalsig.inference` with the samples, not the epochs, as the independent units: a
sample's epochs are averaged first, as evalsig's reader of Inspect logs treats them. With
``cluster=`` (a sample metadata field) the standard error is cluster-robust (CR2, or CR1).

``inspect_ai`` (0.3.241 or later: metrics that see every epoch) is imported when a metric
is first made, never by ``import evalsig``.

References
----------
Inspect AI, "Scoring: metrics", https://inspect.aisi.org.uk/scorers.html; in its source
(UKGovernmentBEIS/inspect_ai), ``@metric`` and ``value_to_float`` in
``src/inspect_ai/scorer/_metric.py``.
"""

from __future__ import annotations

import functools
import math
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from evalsig.errors import DataError, FormatError

if TYPE_CHECKING:
    from inspect_ai.scorer import Metric

__all__ = ["IntervalMethod", "mean_ci", "register"]

IntervalMethod = Literal["auto", "t", "cr2", "cr1"]
"""``"t"``: t interval over samples; ``"cr2"`` / ``"cr1"``: cluster-robust over the
clusters named by ``cluster=``; ``"auto"``: ``"cr2"`` with clusters, else ``"t"``."""

MIN_INSPECT = "0.3.241"
"""The first Inspect AI release whose metrics can ask for every epoch (``scores=``)."""

INSTALL = "pip install 'evalsig-stats[inspect-ai]'"

NAME = "mean_ci"
NAMESPACE = "evalsig"
"""Inspect names an extension's metrics ``NAMESPACE/NAME``, and loads the entry point named
``NAMESPACE`` (the import package, see pyproject.toml) to resolve them."""

NO_INTERVAL = ("stderr", "ci_low", "ci_high")
"""Values that need two samples (two clusters with ``cluster=``); NaN until then."""


@dataclass(frozen=True, slots=True)
class _Settings:
    confidence_level: float
    method: Literal["t", "cr2", "cr1"]
    cluster: str | None


def mean_ci(
    confidence_level: float = 0.95,
    *,
    method: IntervalMethod = "auto",
    cluster: str | None = None,
) -> Metric:
    r"""An Inspect metric: the mean score, its standard error and its confidence interval.

    Use it like Inspect's own metrics: ``@scorer(metrics=[accuracy(), mean_ci()])``, or
    ``Task(..., metrics=[mean_ci()])``, or ``inspect_ai.score(log, ..., metrics=...)``.
    Inspect shows four values: ``mean``, ``stderr``, ``ci_low`` and ``ci_high``.

    Parameters
    ----------
    confidence_level : float
        Of the two-sided interval (0.95: 95%).
    method : {"auto", "t", "cr2", "cr1"}
        ``"t"``: Student's t interval over the samples; ``"cr2"`` (Bell-McCaffrey
        degrees of freedom) or ``"cr1"`` (:math:`G - 1` degrees of freedom):
        cluster-robust over the clusters of ``cluster``; ``"auto"``: ``"cr2"`` when
        ``cluster`` is given, else ``"t"``.
    cluster : str, optional
        A field of each sample's metadata naming its cluster (subject, passage, source
        document); dots reach into nested objects (``"source.book"``).

    Returns
    -------
    Metric
        A metric registered with Inspect as ``evalsig/mean_ci``. It receives every epoch
        of every sample (``@metric(scores="unreduced")``) and returns
        ``{"mean": ..., "stderr": ..., "ci_low": ..., "ci_high": ...}``.

    Raises
    ------
    DataError
        A bad ``confidence_level``, ``method`` or ``cluster`` (when the metric is made); a
        score value that is not a number, a sample without its cluster label or with two
        (when Inspect computes it).
    ImportError
        ``inspect_ai`` is missing or older than 0.3.241.

    Notes
    -----
    Each sample's value is the mean :math:`y_i` of its epochs' scores, read as Inspect's
    ``value_to_float`` reads them (``"C"`` 1, ``"P"`` 0.5, ``"I"`` and ``"N"`` 0,
    booleans 1 / 0, numbers and numeric strings as they are; Inspect leaves unscored
    samples, NaN, out). Over :math:`n` samples the mean is :math:`\bar y` and, with
    ``"t"``, :math:`SE = s_y / \sqrt n` and the interval
    :math:`\bar y \pm t_{n-1, 1-\alpha/2} SE` (:func:`evalsig.inference.paired_t` on
    :math:`y - 0`). With clusters, :math:`SE` is the cluster-robust standard error of
    :func:`evalsig.inference.cluster_robust` on the sample means. The epochs of a sample
    are never independent units: treating them so would shrink the interval by up to
    :math:`\sqrt{\text{epochs}}`. Epoch reducers set on the task do not apply: the mean is
    of the epochs' scores, each sample weighing the same, which is Inspect's ``mean()``
    under its default reducer.

    With fewer than two samples (two clusters), as while an evaluation starts, the
    standard error and the interval are NaN; scores that are all equal give a
    zero-width interval.

    References
    ----------
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640.
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
    regression with multi-stage samples. *Survey Methodology* 28(2), 169-181.
    """
    return _metric_factory()(confidence_level=confidence_level, method=method, cluster=cluster)


def register() -> None:
    """Register evalsig's metrics with Inspect, so that ``evalsig/mean_ci`` resolves by name."""
    _metric_factory()


@functools.cache
def _metric_factory() -> Callable[..., Metric]:
    """``mean_ci`` decorated with Inspect's ``@metric`` (made once, on first use)."""
    try:
        from inspect_ai.scorer import SampleScore, Value, metric
    except ImportError as exc:
        raise ImportError(f"evalsig's Inspect AI metrics need inspect_ai: {INSTALL}.") from exc
    try:
        decorate = metric(_registry_name(), scores="unreduced")
    except TypeError:  # before 0.3.241 metrics saw only the epochs reduced
        raise ImportError(
            f"evalsig's Inspect AI metrics need inspect_ai {MIN_INSPECT} or later (metrics "
            f"that see every epoch); installed: {_inspect_version()}. Upgrade: pip install "
            "--upgrade 'evalsig-stats[inspect-ai]'."
        ) from None

    def mean_ci(
        confidence_level: float = 0.95, method: str = "auto", cluster: str | None = None
    ) -> Metric:
        settings = _settings(confidence_level, method, cluster)

        def interval(scores: list[SampleScore]) -> Value:
            return _interval(scores, settings)

        # Inspect tells a metric's protocol by its annotations: real types, not strings.
        interval.__annotations__ = {"scores": list[SampleScore], "return": Value}
        return interval

    return decorate(mean_ci)


def _registry_name() -> str:
    """The name to give ``@metric`` so that Inspect registers ``evalsig/mean_ci``.

    Inspect prefixes the import package only when it finds the package installed: in
    site-packages, or editable under a distribution of the same name. An editable install
    of ``evalsig-stats`` is neither, so there the namespace is given with the name.
    """
    try:
        from inspect_ai._util.registry import registry_name
    except ImportError:  # where Inspect no longer has it: its documented behaviour
        return NAME
    namespaced = registry_name(_registry_name, NAME)
    return NAME if namespaced == f"{NAMESPACE}/{NAME}" else f"{NAMESPACE}/{NAME}"


def _inspect_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inspect-ai")
    except PackageNotFoundError:
        return "unknown"


def _settings(confidence_level: object, method: object, cluster: object) -> _Settings:
    """All arguments of :func:`mean_ci`, checked in one place."""
    from evalsig.inference._common import check_choice, check_confidence_level

    level = check_confidence_level(confidence_level)
    check_choice(method, get_args(IntervalMethod), "mean_ci: `method`")
    if cluster is not None and (not isinstance(cluster, str) or not cluster):
        raise DataError(
            f"mean_ci: `cluster` names a field of the samples' metadata (a non-empty "
            f"string, e.g. 'subject'); got {cluster!r}."
        )
    if method in ("cr2", "cr1") and cluster is None:
        raise DataError(
            f"mean_ci: method={method!r} is cluster-robust and needs `cluster`, the sample "
            "metadata field naming each sample's cluster (e.g. cluster='subject')."
        )
    if method == "t" and cluster is not None:
        raise DataError(
            f"mean_ci: method='t' treats samples as independent and would ignore "
            f"cluster={cluster!r}; pass method='cr2' (or 'auto'), or drop `cluster`."
        )
    if method == "auto":
        method = "t" if cluster is None else "cr2"
    return _Settings(level, cast(Literal["t", "cr2", "cr1"], method), cluster)


def _interval(scores: Sequence[Any], settings: _Settings) -> dict[str, float]:
    """The metric's values from Inspect's sample scores (every epoch of every sample)."""
    import numpy as np

    from evalsig.inference import cluster_robust, paired_t

    epochs, labels = _per_sample(scores, settings.cluster)
    means = np.array([np.mean(values) for values in epochs.values()], dtype=np.float64)
    values = {"mean": float(np.mean(means)) if len(means) else math.nan}
    values.update(dict.fromkeys(NO_INTERVAL, math.nan))
    if len(means) < 2 or (settings.cluster is not None and len(set(labels)) < 2):
        return values
    zeros = np.zeros(len(means))
    if settings.method == "t":
        result = paired_t(zeros, means, confidence_level=settings.confidence_level)
    else:
        result = cluster_robust(
            zeros,
            means,
            labels,
            method=settings.method,
            confidence_level=settings.confidence_level,
        )
    values.update(
        mean=result.estimate, stderr=result.se, ci_low=result.ci.low, ci_high=result.ci.high
    )
    return values


def _per_sample(
    scores: Sequence[Any], cluster: str | None
) -> tuple[dict[object, list[float]], list[object]]:
    """Each sample's epoch scores (by sample id), and its cluster label (when ``cluster``).

    A score without a sample id is a sample of its own.
    """
    from evalsig.data.readers.collect import nested
    from evalsig.data.readers.inspect_ai import score_value

    epochs: dict[object, list[float]] = {}
    labels: dict[object, object] = {}
    for number, sample_score in enumerate(scores):
        sample_id = sample_score.sample_id
        key: object = ("position", number) if sample_id is None else str(sample_id)
        where = f"sample {sample_id!r}" if sample_id is not None else f"score {number}"
        raw = sample_score.score.value
        value = score_value(raw)
        if value is None:
            scorer = f" of scorer {sample_score.scorer!r}" if sample_score.scorer else ""
            raise DataError(
                f"mean_ci: {where}{scorer} has the value {reprlib.repr(raw)}, which is not a "
                "score: mean_ci takes a number, a boolean, 'C'/'I'/'P'/'N' (1, 0.5, 0, 0), "
                "'yes'/'no'/'true'/'false' or a numeric string. For a scorer whose value is "
                "a dict, give metrics per key: metrics=[{'key': [mean_ci()]}]."
            )
        epochs.setdefault(key, []).append(value)
        if cluster is None:
            continue
        metadata = sample_score.sample_metadata or {}
        try:
            label = nested(metadata, cluster)
        except KeyError:
            label = None
        if label is None or (isinstance(label, float) and math.isnan(label)):
            fields = ", ".join(map(repr, sorted(metadata))) or "none"
            raise FormatError(
                f"mean_ci: {where} has no cluster label {cluster!r} in its metadata (fields: "
                f"{fields}); give every sample one, or name another field with cluster=."
            )
        if not isinstance(label, (str, int, float)):
            raise FormatError(
                f"mean_ci: {where} has the cluster label {reprlib.repr(label)} "
                f"({cluster!r}), which is not a label: use a string or a number."
            )
        if labels.setdefault(key, label) != label:
            raise FormatError(
                f"mean_ci: {where} has two cluster labels ({labels[key]!r} and {label!r} in "
                f"{cluster!r}) in different epochs; a sample belongs to one cluster."
            )
    return epochs, [labels[key] for key in epochs] if cluster is not None else []
