"""Audit interval methods on simulated benchmarks, and audit a reported claim.

:func:`audit` measures power, false-positive rate and interval width of honest methods
and known anti-patterns on the same simulated benchmarks; :func:`audit_claim` checks a
reported interval or p-value against the honest paired analysis of the data.

The method audit runs on the simulator, so its engine lives in :mod:`evalsig.simulate`
(``audit_runner``, ``audit_methods``, ``audit_article``); this package gives its names.
"""

from evalsig.audit.claim import ClaimAudit, ClaimCandidate, audit_claim
from evalsig.simulate.audit_article import ARTICLE, PublishedRow
from evalsig.simulate.audit_methods import (
    ARTICLE_METHODS,
    AuditMethod,
    MethodInput,
    MethodSettings,
    available_methods,
    builtin_methods,
    get_method,
    register_method,
    unregister_method,
)
from evalsig.simulate.audit_runner import AuditResult, MethodAudit, audit, rejects

__all__ = [
    "ARTICLE",
    "ARTICLE_METHODS",
    "AuditMethod",
    "AuditResult",
    "ClaimAudit",
    "ClaimCandidate",
    "MethodAudit",
    "MethodInput",
    "MethodSettings",
    "PublishedRow",
    "audit",
    "audit_claim",
    "available_methods",
    "builtin_methods",
    "get_method",
    "register_method",
    "rejects",
    "unregister_method",
]
