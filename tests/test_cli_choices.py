"""The command line's choice options offer exactly what the library accepts.

The CLI restates each list as a ``Literal`` of its own (importing the library's type would
load numpy and scipy for ``--help``); mypy checks only that every choice offered is one the
library takes, not that none is missing. This test holds each pair to the same choices (the
CLI may order them for its help)."""

from __future__ import annotations

import sys
from typing import Any, get_args

import pytest

import evalsig.arena.fit
import evalsig.arena.model
import evalsig.arena.readers
import evalsig.cli.arena
import evalsig.cli.meta
import evalsig.cli.monitor
import evalsig.cli.options
import evalsig.cli.passk
import evalsig.cli.score
import evalsig.data.paired
import evalsig.inference._common
import evalsig.inference.passk
import evalsig.inference.passk_tasks
import evalsig.meta._validate
import evalsig.meta.reports
import evalsig.passk._input
import evalsig.score
import evalsig.sequential._input

PAIRS: dict[str, tuple[Any, Any]] = {
    # the module itself: ``evalsig.score`` may name the function (``from evalsig import score``)
    "score --method": (evalsig.cli.score.Method, sys.modules["evalsig.score"].ScoreMethod),
    "meta --method": (evalsig.cli.meta.MethodOption, evalsig.meta._validate.Method),
    "meta --test": (evalsig.cli.meta.TestOption, evalsig.meta._validate.Test),
    "meta --scale": (evalsig.cli.meta.ScaleOption, evalsig.meta.reports.Scale),
    "--alternative": (evalsig.cli.options.Alternative, evalsig.inference._common.Alternative),
    "--on-missing": (evalsig.cli.options.OnMissing, evalsig.data.paired.OnMissing),
    "--on-mismatch": (evalsig.cli.options.OnMismatch, evalsig.data.paired.OnMismatch),
    "pass-at-k --estimator": (evalsig.cli.passk.Estimator, evalsig.inference.passk.Estimator),
    "pass-at-k --interval": (evalsig.cli.passk.Interval, evalsig.inference.passk_tasks.Interval),
    "pass-at-k --method": (
        evalsig.cli.passk.Method,
        evalsig.inference.passk_tasks.PairedMethod,
    ),
    "pass-at-k --ties": (evalsig.cli.passk.Ties, evalsig.inference.passk.Ties),
    "pass-at-k --too-few-samples": (evalsig.cli.passk.TooFew, evalsig.passk._input.TooFewSamples),
    "arena --format-in": (evalsig.cli.arena.FormatIn, evalsig.arena.readers.ArenaFormat),
    "arena --ties": (evalsig.cli.arena.Ties, evalsig.arena.fit.Ties),
    "arena --scale": (evalsig.cli.arena.Scale, evalsig.arena.model.Scale),
    "arena --interval": (evalsig.cli.arena.Interval, evalsig.arena.model.Interval),
    "arena --cluster-correction": (
        evalsig.cli.arena.ClusterCorrection,
        evalsig.arena.fit.Correction,
    ),
    "monitor --method": (evalsig.cli.monitor.Method, evalsig.sequential._input.Method),
}


@pytest.mark.parametrize("option", sorted(PAIRS))
def test_the_cli_offers_the_library_s_choices(option: str) -> None:
    offered, accepted = PAIRS[option]
    assert set(get_args(offered)) == set(get_args(accepted))
