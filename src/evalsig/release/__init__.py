"""Release gates: a pre-registered family of task claims, corrected and decided at once."""

from evalsig.release.decision import GateResult, TaskVerdict, Verdict, gate
from evalsig.release.policy import GatePolicy, TaskClaim, load_policy
from evalsig.release.registration import (
    Registration,
    RegistrationCheck,
    check_registration,
    read_registration,
    register,
)

__all__ = [
    "GatePolicy",
    "GateResult",
    "Registration",
    "RegistrationCheck",
    "TaskClaim",
    "TaskVerdict",
    "Verdict",
    "check_registration",
    "gate",
    "load_policy",
    "read_registration",
    "register",
]
