"""The rollout's one error: an input (or a cluster's window annotation) that does not parse."""

from __future__ import annotations

from argocd_lifecycle.errors import LifecycleError


class RolloutInputError(LifecycleError):
    """A rollout input that does not parse; the message names the field, never a secret."""


class RolloutUnavailable(LifecycleError):
    """The rollout cannot be planned safely now (its state or the Applications are not known)."""
