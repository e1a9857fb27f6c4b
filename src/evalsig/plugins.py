"""Plugins: readers, paired tests, audit methods and report sections from other packages.

A package extends evalsig by declaring entry points (``[project.entry-points."GROUP"]``
in its ``pyproject.toml``) in these groups, each naming one object:

* ``evalsig.readers``: a reader (``name``, ``sniff(path, head)``, ``read(path, options,
  out)``; see :class:`evalsig.data.readers.Reader`), or a class or function that makes one
  with no arguments. Plugin readers are tried after the built-in harness readers and
  before the generic tables (CSV, JSON Lines, JSON, Parquet).
* ``evalsig.methods``: a :class:`evalsig.comparison.PairedTest`, or a test function
  (registered under the entry point's name), for ``compare(method=NAME)``.
* ``evalsig.audit_methods``: an :class:`evalsig.audit.AuditMethod`, or a function
  ``method(data, rng) -> (estimate, low, high)`` (registered under the entry point's
  name), for ``audit(methods=[NAME])``.
* ``evalsig.report_sections``: a ``(kind, build)`` pair, or an object with ``kind`` and
  ``build`` attributes: ``build(result) -> (macro, context)`` renders results whose JSON
  has that ``kind`` (see :func:`evalsig.report.html.register_section`).

Each group is loaded once, when its registry is first consulted: the first file read or
described (readers), the first method name that is not built in (paired tests, audit
methods), the first result kind with no built-in view (report sections). Nothing is
loaded at ``import evalsig``. A plugin that fails to import, names the wrong kind of
object, or takes a name that is already registered is skipped with a
:class:`PluginWarning` naming its distribution, entry point and error; the built-ins and
the other plugins keep working. A plugin never replaces a built-in: the built-in is kept.
``evalsig plugins`` lists what was loaded and where it came from.

Once loaded, a plugin's code is isolated where evalsig calls it. A reader's ``sniff`` that
raises (or calls ``sys.exit``) counts as "not this format", with one :class:`PluginWarning`
per reader; a ``read`` that fails other than through evalsig's own errors, a paired test
or audit method that fails or returns values outside their ranges (a p-value outside
[0, 1], a NaN estimate, an interval with low > high), are a :class:`PluginError` naming
the plugin; a report view that fails shows the result as JSON, with a warning.
``KeyboardInterrupt`` is never caught.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evalsig._plugins import (
    AUDIT_METHODS,
    GROUPS,
    METHODS,
    READERS,
    REPORT_SECTIONS,
    Plugin,
    PluginError,
    PluginWarning,
    describe,
    isolated,
    load_all,
    load_group,
    loaded,
    warn_once,
)
from evalsig.inference._common import (
    Alternative,
    InferenceResult,
    check_alternative,
    check_confidence_level,
    make_result,
)

__all__ = [
    "AUDIT_METHODS",
    "GROUPS",
    "METHODS",
    "READERS",
    "REPORT_SECTIONS",
    "Plugin",
    "PluginError",
    "PluginWarning",
    "describe",
    "inference_result",
    "isolated",
    "load_all",
    "load_group",
    "loaded",
    "warn_once",
]


def inference_result(
    *,
    method: str,
    estimand: str,
    estimate: float,
    se: float,
    statistic: float,
    statistic_name: str,
    df: float | None,
    pvalue: float,
    alternative: Alternative,
    confidence_level: float,
    interval: Callable[[float, Alternative], tuple[float, float]],
    n_resamples: int | None = None,
    notes: Sequence[str] = (),
) -> InferenceResult:
    """The result a paired test of your own returns to :func:`evalsig.compare`.

    Parameters
    ----------
    method, estimand : str
        The method's name as results show it (e.g. 'paired-z') and what ``estimate``
        estimates (e.g. 'mean difference').
    estimate, se, statistic, pvalue : float
        Candidate minus baseline, its standard error (NaN when the method has none), the
        test statistic and the p-value for ``alternative``.
    statistic_name : str
        E.g. 'z' or 't'.
    df : float or None
        Degrees of freedom of a t statistic; None otherwise.
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float
    interval : callable
        ``interval(confidence_level, alternative) -> (low, high)``: the interval at any
        level, so that ``result.confidence_interval(0.99)`` works; the result's ``ci`` is
        ``interval(confidence_level, alternative)``.
    n_resamples : int, optional
        The resamples drawn, for a resampling method (the comparison then records the seed).
    notes : sequence of str
        What the reader of the result should know.

    Returns
    -------
    InferenceResult
    """
    return make_result(
        interval=interval,
        alternative=check_alternative(alternative),
        confidence_level=check_confidence_level(confidence_level),
        method=str(method),
        estimand=str(estimand),
        estimate=float(estimate),
        se=float(se),
        statistic=float(statistic),
        statistic_name=str(statistic_name),
        df=None if df is None else float(df),
        pvalue=float(pvalue),
        n_resamples=n_resamples,
        notes=tuple(map(str, notes)),
    )
