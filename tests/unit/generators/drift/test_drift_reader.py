"""Reading OutOfSync objects through the prober's client (answered from a table, no network):
discovery, scope, Secrets as metadata only, failures as reasons, the deadline."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import MAX_OBJECT_BYTES
from argocd_lifecycle.generators.drift.reader import ObjectReader, Read
from argocd_lifecycle.generators.fleet.prober import ClusterClient, RequestFailed

CORE = {"resources": [{"name": "configmaps", "kind": "ConfigMap", "namespaced": True},
                      {"name": "secrets", "kind": "Secret", "namespaced": True},
                      {"name": "namespaces", "kind": "Namespace", "namespaced": False},
                      {"name": "pods/log", "kind": "Pod", "namespaced": True}]}  # fmt: skip
APPS = {"resources": [{"name": "deployments", "kind": "Deployment", "namespaced": True},
                      {"name": "deployments/scale", "kind": "Scale", "namespaced": True}]}  # fmt: skip
DEPLOYMENT = ObjectRef("apps", "Deployment", "shop", "web", "v1")
SECRET = ObjectRef("", "Secret", "shop", "db", "v1")


class Answers(ClusterClient):
    def __init__(self, answers: dict[str, tuple[int, Any]]) -> None:
        self.current = ""
        self.pod_token, self.exec = None, None
        self.answers = answers
        self.asked: list[tuple[str, int, bool]] = []

    async def get(
        self, path: str, limit: int, *, once: bool = False, table: bool = False, metadata: bool = False
    ) -> tuple[int, bytearray]:
        self.asked.append((path, limit, metadata))
        answer = self.answers.get(path, (404, {}))
        if isinstance(answer, BaseException):
            raise answer
        status, body = answer
        return status, bytearray(body if isinstance(body, bytes) else json.dumps(body).encode())

    async def aclose(self) -> None:
        pass


def _read(client: Answers, *refs: ObjectRef, deadline: float = 30.0) -> dict[ObjectRef, Read]:
    return asyncio.run(ObjectReader(client).read_all(refs, deadline))


def test_objects_are_found_through_discovery_and_read_bounded() -> None:
    deployment = {"kind": "Deployment", "metadata": {"name": "web"}}
    client = Answers({"/apis/apps/v1": (200, APPS), "/apis/apps/v1/namespaces/shop/deployments/web": (200, deployment)})
    assert _read(client, DEPLOYMENT) == {DEPLOYMENT: deployment}
    assert client.asked[-1] == ("/apis/apps/v1/namespaces/shop/deployments/web", MAX_OBJECT_BYTES, False)


def test_discovery_is_asked_once_per_group_version() -> None:
    client = Answers({"/apis/apps/v1": (200, APPS)})
    other = ObjectRef("apps", "Deployment", "shop", "api", "v1")
    reads = _read(client, DEPLOYMENT, other)
    assert [p for p, _, _ in client.asked].count("/apis/apps/v1") == 1
    assert set(reads.values()) == {"not found in the cluster"}


def test_a_secret_is_asked_for_its_metadata_only() -> None:
    client = Answers({"/api/v1": (200, CORE), "/api/v1/namespaces/shop/secrets/db": (200, {"metadata": {}})})
    _read(client, SECRET)
    assert client.asked[-1] == ("/api/v1/namespaces/shop/secrets/db", MAX_OBJECT_BYTES, True)


def test_cluster_scoped_objects_and_names_are_escaped() -> None:
    client = Answers({"/api/v1": (200, CORE)})
    _read(client, ObjectRef("", "Namespace", "", "a/b", "v1"))
    assert client.asked[-1][0] == "/api/v1/namespaces/a%2Fb"


def test_failures_are_reasons() -> None:
    client = Answers(
        {
            "/api/v1": (200, CORE),
            "/apis/apps/v1": (403, {}),
            "/api/v1/namespaces/shop/configmaps/big": RequestFailed("/api/v1/...: the answer is larger than 1 MiB"),
            "/api/v1/namespaces/shop/configmaps/bad": (200, b"{not json"),
            "/api/v1/namespaces/shop/configmaps/list": (200, [1]),
            "/api/v1/namespaces/shop/configmaps/gone": (401, {}),
        }
    )
    refs = [ObjectRef("", "ConfigMap", "shop", n, "v1") for n in ("big", "bad", "list", "gone")]
    reads = _read(client, DEPLOYMENT, ObjectRef("", "Widget", "shop", "w", "v1"), *refs)
    assert list(reads.values()) == [
        "cluster not readable: /apis/apps/v1: HTTP 403",
        "/api/v1 serves no kind Widget",
        "cluster not readable: /api/v1/...: the answer is larger than 1 MiB",
        "the API answered something that is not JSON",
        "the API answered something that is not an object",
        "cluster not readable: /api/v1/namespaces/shop/configmaps/gone: HTTP 401",
    ]


def test_hostile_discovery_is_a_reason() -> None:
    for body in (b"[]", b'{"resources": "x"}', b"\xff", b'{"resources": [1, {"kind": 1}]}'):
        reads = _read(Answers({"/apis/apps/v1": (200, body)}), DEPLOYMENT)
        assert isinstance(reads[DEPLOYMENT], str)


def test_the_read_has_one_deadline() -> None:
    class Slow(Answers):
        async def get(self, *args: Any, **kwargs: Any) -> tuple[int, bytearray]:
            await asyncio.sleep(5)
            return 200, bytearray()

    reads = _read(Slow({}), DEPLOYMENT, SECRET, deadline=0.01)
    assert set(reads.values()) == {"cluster not readable: the read took over its 0.01s deadline"}
