"""evalsig inside other tools.

* :mod:`evalsig.integrations.inspect_ai`: Inspect AI, as an extension: the ``mean_ci``
  metric (registered as ``evalsig/mean_ci``), ``EvalLog`` objects read as tables, and
  two logs compared. It imports ``inspect_ai`` only when a metric is made.

Nothing here is imported by ``import evalsig``.
"""

__all__: list[str] = []
