"""Errors of the plugin-generator service, each mapped to one HTTP status with a JSON ``message``.

Argo CD shows a non-2xx answer as ``API error with status code <N>: <message>`` on the ApplicationSet
and leaves its Applications untouched, so every refusal carries a message an operator can act on.
"""

from __future__ import annotations

from argocd_lifecycle.errors import LifecycleError


class ServiceError(LifecycleError):
    """A request the service answers with ``status`` instead of parameters."""

    status: int = 500


class InputError(ServiceError):
    """Malformed JSON or a field of the wrong type or value: 400, the message names the field."""

    status = 400


class Unavailable(ServiceError):
    """The service cannot answer safely now (inventory not synced or stale, mass drop): 503."""

    status = 503


class NotPlaced(Unavailable):
    """The request's ApplicationSet cannot be placed in one watched namespace (503, reason not_placed):
    its Applications cannot be told apart, so nothing that could delete them is answered."""
