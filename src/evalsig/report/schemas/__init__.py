"""JSON schemas (Draft 2020-12) of every result's ``to_dict()``, shipped with the package.

Each kind's schema is ``<kind>.schema.json`` here, with the ``$id``
``urn:evalsig-stats:schema:<kind>:v<SCHEMA_VERSION>``; a schema that embeds another
kind's (a gate's comparisons) refers to it by that address, which :func:`registry`
resolves offline. ``tests/test_schemas.py`` validates real results of every kind against
them, and checks that the kinds written in the code and the schemas shipped are the same.

Examples
--------
>>> schema("comparison")["$id"]
'urn:evalsig-stats:schema:comparison:v1'
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from evalsig._json import SCHEMA_VERSION
from evalsig.errors import DataError

__all__ = ["KINDS", "registry", "schema", "schema_id"]

KINDS = (
    "arena",
    "audit",
    "benchmark-noise",
    "benchmark-resolution",
    "claim-audit",
    "comparison",
    "decision-study",
    "dependence",
    "gate",
    "gate-registration",
    "inference",
    "ingest",
    "judge",
    "judge-agreement",
    "judge-length-bias",
    "judge-plan",
    "judge-position-bias",
    "leaderboard",
    "leaderboard-tasks",
    "meta-analysis",
    "multiplicity",
    "pass-at-k",
    "pass-at-k-comparison",
    "pass-at-k-power",
    "power",
    "random-effects",
    "rater-agreement",
    "resolution",
    "runs-tradeoff",
    "sample-size",
    "score",
    "sequential",
    "sign_test",
    "simulation",
    "simultaneous",
    "unpaired-shortcut",
    "variance-sources",
)
"""Every result kind (the ``"kind"`` of a ``to_dict()``) that has a schema."""


def schema_id(kind: str) -> str:
    """The stable name of a kind's schema, ``urn:evalsig-stats:schema:<kind>:v1`` (a name,
    not a web address)."""
    return f"urn:evalsig-stats:schema:{kind}:v{SCHEMA_VERSION}"


def schema(kind: str) -> dict[str, Any]:
    """The JSON schema of a result kind (a fresh copy, free to modify).

    Raises
    ------
    DataError
        An unknown kind; the message lists the kinds.
    """
    if kind not in KINDS:
        raise DataError(f"no JSON schema for result kind {kind!r}; kinds: {', '.join(KINDS)}.")
    return json.loads(_text(kind))  # type: ignore[no-any-return]


@cache
def _text(kind: str) -> str:
    return (resources.files(__name__) / f"{kind}.schema.json").read_text("utf-8")


def registry() -> Any:
    """A ``referencing.Registry`` holding every schema under its ``$id``, for
    ``jsonschema.Draft202012Validator(schema(kind), registry=registry())`` (needs the
    ``jsonschema`` package)."""
    from referencing import Registry, Resource

    return Registry().with_resources(
        (schema_id(kind), Resource.from_contents(schema(kind))) for kind in KINDS
    )
