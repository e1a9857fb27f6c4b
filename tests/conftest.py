"""Shared fixtures: the real-data folder beside the repository, hypothesis profiles, and
the command line invoked as its console script builds it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, settings
from typer.testing import CliRunner, Result

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=60,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or skip: the real evaluation data live beside the repository."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real evaluation data not found at {SHARED_DATA} (../shared/data)")
    return SHARED_DATA


@pytest.fixture(scope="session", autouse=True)
def _cli_runner_builds_the_named_command() -> Iterator[None]:
    """typer's CliRunner invokes the evalsig application as the ``evalsig`` console script
    does (:func:`evalsig.cli.application._application`): only the command the arguments name is
    built, not all of them (60 ms of every one of the suite's thousands of invocations)."""
    from evalsig.cli import app
    from evalsig.cli.application import _application

    invoke = CliRunner.invoke

    def as_the_script_does(
        self: CliRunner,
        application: typer.Typer,
        args: str | Sequence[str] | None = None,
        *rest: Any,
        **keywords: Any,
    ) -> Result:
        if application is app:
            args = shlex.split(args) if isinstance(args, str) else list(args or ())
            application = _application(args)
        return invoke(self, application, args, *rest, **keywords)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CliRunner, "invoke", as_the_script_does)
        yield
