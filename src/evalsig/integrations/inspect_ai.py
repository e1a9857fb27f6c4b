"""Inspect AI, from inside: evalsig's intervals as Inspect metrics, and logs in memory compared.

* :func:`mean_ci`: a metric for ``@scorer(metrics=[...])`` or ``Task(metrics=[...])``:
  the mean score with its standard error and confidence interval, samples (not epochs) as
  the independent units, cluster-robust with ``cluster=``;
* :func:`table_from_eval_log`: an ``EvalLog`` (what ``inspect_ai.eval()`` returns) as a
  :class:`~evalsig.data.ScoreTable`, read as evalsig reads the log's file;
* :func:`compare_logs`: two models' logs of one task, compared sample by sample.

Installed with evalsig, the extension is known to Inspect by name (``evalsig/mean_ci``,
through the ``inspect_ai`` entry point ``evalsig``), so logs that use the metric can be
re-scored and retried. Files of Inspect logs need none of this: ``evalsig.load(path)`` and
``evalsig compare`` read them without ``inspect_ai``.
"""

from evalsig.integrations.inspect_logs import compare_logs, table_from_eval_log
from evalsig.integrations.inspect_metrics import IntervalMethod, mean_ci

__all__ = ["IntervalMethod", "compare_logs", "mean_ci", "table_from_eval_log"]
