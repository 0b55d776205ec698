"""What every sink shares: the Sink protocol, DeliveryError and the POST that translates answers into it.

A sink raises DeliveryError on failure; ``retryable`` says whether trying again can help (5xx, 429,
timeouts) or not (a 4xx such as a revoked webhook), and ``retry_after`` carries the service's hint.
"""

from __future__ import annotations

from typing import Protocol

import httpx

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.notifications.receiver.notification import Notification


class DeliveryError(LifecycleError):
    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class Sink(Protocol):
    name: str

    async def send(self, note: Notification, key: str) -> None:
        """Deliver ``note``; ``key`` is its idempotency key (the same on every retry)."""
        ...


IDEMPOTENCY_HEADER = "Idempotency-Key"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    return float(value) if value.isdigit() else None


def check(response: httpx.Response, service: str) -> None:
    """Translate an HTTP answer into success or DeliveryError; the body is quoted briefly, URLs never."""
    if response.is_success:
        return
    status = response.status_code
    snippet = response.text[:200].replace("\n", " ")
    retryable = status >= 500 or status in (408, 409, 425, 429)
    raise DeliveryError(
        f"{service} answered {status}: {snippet}", retryable=retryable, retry_after=_retry_after(response)
    )


async def post(client: httpx.AsyncClient, service: str, url: str, **kwargs: object) -> httpx.Response:
    """POST, translating transport errors (the URL is left out: it may hold a token)."""
    try:
        response = await client.post(url, **kwargs)  # type: ignore[arg-type]
    except httpx.TimeoutException as exc:
        raise DeliveryError(f"{service}: timed out ({type(exc).__name__})", retryable=True) from exc
    except httpx.HTTPError as exc:
        raise DeliveryError(f"{service}: {type(exc).__name__}", retryable=True) from exc
    check(response, service)
    return response
