"""The lifecycle event JSON the poster sends to the receiver."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import httpx

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.generators.fleet.poster import Notifier, lifecycle_event
from argocd_lifecycle.model import Phase, Reason
from argocd_lifecycle.signing import verify

SINCE = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)


def test_lifecycle_event_json_has_the_receivers_shape() -> None:
    secret = ClusterSecret(secret_name="cluster-edge", namespace="argocd", name="edge", server="https://edge:6443")
    state = Tracked(phase=Phase.UNREACHABLE, since=SINCE, git_version="v1.29.3")
    event = LifecycleEvent(Reason.UNREACHABLE, "connect: Connection refused", Phase.READY, Phase.UNREACHABLE)
    assert lifecycle_event(secret, state, event) == {
        "reason": "ClusterUnreachable",
        "cluster": "edge",
        "server": "https://edge:6443",
        "phase": "Unreachable",
        "previousPhase": "Ready",
        "since": "2026-03-01T08:30:00Z",
        "message": "connect: Connection refused",
        "kubernetesVersion": "1.29.3",
    }


def test_each_route_is_signed_with_its_own_secret_and_held_answers_need_theirs() -> None:
    """The receiver takes the lifecycle secret on /v1/events/lifecycle only and the external secret on
    /v1/events/external only; without an external secret there is no external URL to post to."""
    url = "http://127.0.0.1:9/v1/events/lifecycle"
    notifier = Notifier(url, b"lifecycle-secret", external_secret=b"external-secret")
    seen: list[tuple[str, bytes, dict[str, str]]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((str(request.url), request.content, dict(request.headers)))
        return httpx.Response(202)

    async def story() -> None:
        notifier._client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        await notifier._send(url, {"reason": "ClusterReady"}, "lifecycle")
        await notifier._send(notifier.external_url, {"trigger": "MassDropHeld"}, "held")
        await notifier.aclose()

    asyncio.run(story())
    (sent_to, lifecycle_body, lifecycle_headers), (external_url, external_body, external_headers) = seen
    assert (sent_to, external_url) == (url, "http://127.0.0.1:9/v1/events/external")
    verify(b"lifecycle-secret", lifecycle_body, lifecycle_headers, time.time())
    verify(b"external-secret", external_body, external_headers, time.time())
    assert Notifier(url, b"lifecycle-secret").external_url == ""
