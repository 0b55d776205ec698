"""The management cluster's API for tests: an in-memory store behind the real Kubernetes HTTP protocol.

Serves what the inventory and writer use (Secrets and Applications list/watch, Secret patches, Events,
Leases, ApplicationSets)
on 127.0.0.1, reached through the official ``kubernetes`` client from a generated kubeconfig. Watches
are chunked JSON-lines streams; the test can expire resourceVersions (the next watch gets an ERROR
event with 410 Gone), cut open watch connections mid-stream, and make list calls fail.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.integration.generators.loopback import ServerThread, free_port

TOKEN = "management-token"


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _status(code: int, reason: str, message: str) -> JSONResponse:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    }
    return JSONResponse(body, status_code=code)


class FakeKubeAPI:
    def __init__(self, folder: Path, namespace: str = "argocd") -> None:
        self.namespace = namespace
        self.rv = 100
        self.store: dict[str, dict[str, dict[str, Any]]] = {
            "secrets": {},
            "events": {},
            "leases": {},
            "applicationsets": {},
            "applications": {},
        }
        # watch history of the kinds that can be watched
        self.logs: dict[str, list[tuple[int, str, dict[str, Any]]]] = {
            "secrets": [],
            "applications": [],
            "applicationsets": [],
        }
        self.log = self.logs["secrets"]
        self.compacted = 0
        self.fail_lists = 0
        self.fail_patches = 0
        self.requests: list[tuple[str, str]] = []
        #: kinds whose open (else next) watch stream is dropped: set by cut_watches, cleared by that stream
        self._cut_pending: set[str] = set()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        # swapped for a fresh Event on every change; a Condition is not used because cancelling
        # Condition.wait under wait_for can leave its lock unacquired on Python 3.11
        self._changed: asyncio.Event | None = None
        self.port = free_port()
        self.server = ServerThread(self._app(), self.port)
        self.kubeconfig = folder / "kubeconfig"
        self.kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "m", "cluster": {"server": f"http://127.0.0.1:{self.port}"}}],
                    "users": [{"name": "m", "user": {"token": TOKEN}}],
                    "contexts": [{"name": "m", "context": {"cluster": "m", "user": "m"}}],
                    "current-context": "m",
                }
            )
        )

    # -- test controls ----------------------------------------------------------------------------
    def start(self) -> FakeKubeAPI:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def _next_rv(self) -> str:
        self.rv += 1
        return str(self.rv)

    def _notify(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        if changed is not None:
            changed.set()

    def put_secret(self, obj: dict[str, Any]) -> dict[str, Any]:
        obj = copy.deepcopy(obj)
        data = dict(obj.get("data") or {})
        for key, value in (obj.pop("stringData", None) or {}).items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        obj["data"] = data
        with self._lock:
            name = obj["metadata"]["name"]
            old = self.store["secrets"].get(name)
            meta = obj["metadata"]
            meta["namespace"] = self.namespace
            meta["uid"] = old["metadata"]["uid"] if old else f"uid-{name}-{self.rv}"
            meta["resourceVersion"] = self._next_rv()
            self.store["secrets"][name] = obj
            self.log.append((self.rv, "MODIFIED" if old else "ADDED", copy.deepcopy(obj)))
        self._notify()
        return obj

    def delete_secret(self, name: str) -> None:
        with self._lock:
            obj = self.store["secrets"].pop(name)
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self.log.append((self.rv, "DELETED", obj))
        self._notify()

    def secret(self, name: str) -> dict[str, Any]:
        return copy.deepcopy(self.store["secrets"][name])

    def put_application(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What the ApplicationSet controller would create or update."""
        obj = copy.deepcopy(obj)
        with self._lock:
            name = obj["metadata"]["name"]
            old = self.store["applications"].get(name)
            obj["metadata"]["namespace"] = self.namespace
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self.store["applications"][name] = obj
            self.logs["applications"].append((self.rv, "MODIFIED" if old else "ADDED", copy.deepcopy(obj)))
        self._notify()
        return obj

    def put_applicationset(self, obj: dict[str, Any]) -> dict[str, Any]:
        """An ApplicationSet as an operator applies it (its annotations, say)."""
        obj = copy.deepcopy(obj)
        with self._lock:
            name = obj["metadata"]["name"]
            old = self.store["applicationsets"].get(name)
            obj["metadata"]["namespace"] = self.namespace
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self.store["applicationsets"][name] = obj
            self.logs["applicationsets"].append((self.rv, "MODIFIED" if old else "ADDED", copy.deepcopy(obj)))
        self._notify()
        return obj

    def delete_application(self, name: str) -> None:
        with self._lock:
            obj = self.store["applications"].pop(name)
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self.logs["applications"].append((self.rv, "DELETED", obj))
        self._notify()

    def expire_history(self) -> None:
        """Every resourceVersion up to now is too old: the next watch from one of them gets 410 Gone."""
        with self._lock:
            self.compacted = self.rv + 1
            self._next_rv()

    def cut_watches(self) -> None:
        """Drop the watch connection of each kind mid-stream (no terminating chunk): the open one, or the
        next one opened when none is open now (a client between two watch requests still sees the cut)."""
        with self._lock:
            self._cut_pending = set(self.logs)
        self._notify()

    def _take_cut(self, kind: str) -> bool:
        with self._lock:
            cut = kind in self._cut_pending
            self._cut_pending.discard(kind)
        return cut

    def events(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(e) for e in self.store["events"].values()]

    # -- HTTP -------------------------------------------------------------------------------------
    def _app(self) -> Starlette:
        ns = "/api/v1/namespaces/{ns}"
        coord = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
        appsets = "/apis/argoproj.io/v1alpha1/namespaces/{ns}/applicationsets"
        apps = "/apis/argoproj.io/v1alpha1/namespaces/{ns}/applications"
        return Starlette(
            routes=[
                Route(ns + "/secrets", self._watchable("secrets", "SecretList"), methods=["GET"]),
                Route(apps, self._watchable("applications", "ApplicationList"), methods=["GET"]),
                Route(ns + "/secrets/{name}", self._secret_one, methods=["GET", "PATCH"]),
                Route(ns + "/events", self._create("events"), methods=["POST"]),
                Route(ns + "/events/{name}", self._object("events"), methods=["GET", "PATCH", "PUT"]),
                Route(coord, self._create("leases"), methods=["POST"]),
                Route(coord + "/{name}", self._object("leases"), methods=["GET", "PUT", "PATCH"]),
                Route(appsets, self._watchable("applicationsets", "ApplicationSetList"), methods=["GET"]),
                Route(appsets + "/{name}", self._object("applicationsets"), methods=["GET", "PATCH"]),
            ]
        )

    def _auth(self, request: Request) -> Response | None:
        self.requests.append((request.method, request.url.path))
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return _status(401, "Unauthorized", "Unauthorized")
        return None

    def _watchable(self, kind: str, list_kind: str) -> Any:
        async def listing(request: Request) -> Response:
            if (denied := self._auth(request)) is not None:
                return denied
            if self._loop is None:
                self._loop, self._changed = asyncio.get_running_loop(), asyncio.Event()
            q = request.query_params
            if q.get("watch") in ("true", "1"):
                return self._watch(int(q.get("resourceVersion") or 0), float(q.get("timeoutSeconds") or 30), kind)
            if self.fail_lists > 0 and kind == "secrets":
                self.fail_lists -= 1
                return _status(500, "InternalError", "etcd is unavailable")
            selector = q.get("labelSelector") or ""
            with self._lock:
                items = [copy.deepcopy(o) for _, o in sorted(self.store[kind].items()) if _matches(o, selector)]
                rv = str(self.rv)
            start = int(q.get("continue") or 0)
            limit = int(q.get("limit") or 0) or len(items)
            page, more = items[start : start + limit], start + limit < len(items)
            meta: dict[str, Any] = {"resourceVersion": rv}
            if more:
                meta["continue"] = str(start + limit)
            return JSONResponse({"kind": list_kind, "apiVersion": "v1", "metadata": meta, "items": page})

        return listing

    def _watch(self, since: int, timeout: float, kind: str) -> Response:
        async def stream() -> AsyncIterator[bytes]:
            assert self._changed is not None
            if since < self.compacted:
                status = {
                    "kind": "Status",
                    "code": 410,
                    "reason": "Expired",
                    "message": f"too old resource version: {since}",
                }
                yield (json.dumps({"type": "ERROR", "object": status}) + "\n").encode()
                return
            sent = since
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                changed = self._changed  # taken before reading, so a change made meanwhile still wakes us
                assert changed is not None
                with self._lock:
                    pending = [(rv, change, obj) for rv, change, obj in self.logs[kind] if rv > sent]
                for rv, change, obj in pending:
                    yield (json.dumps({"type": change, "object": obj}) + "\n").encode()
                    sent = rv
                if self._take_cut(kind):
                    raise ConnectionAbortedError("watch cut by the test")
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0:
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, 0.5)):  # wait_for can lose a cancel on 3.11
                        await changed.wait()

        return StreamingResponse(stream(), media_type="application/json")

    async def _secret_one(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        name = request.path_params["name"]
        if name not in self.store["secrets"]:
            return _status(404, "NotFound", f'secrets "{name}" not found')
        if request.method == "GET":
            return JSONResponse(self.secret(name))
        if request.headers.get("content-type") != "application/merge-patch+json":
            return _status(415, "UnsupportedMediaType", "expected a merge patch")
        if self.fail_patches > 0:
            self.fail_patches -= 1
            return _status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
        patch = await request.json()
        with self._lock:
            obj = merge_patch(self.store["secrets"][name], patch)
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self.store["secrets"][name] = obj
            self.log.append((self.rv, "MODIFIED", copy.deepcopy(obj)))
        self._notify()
        return JSONResponse(obj)

    def _create(self, kind: str) -> Any:
        async def create(request: Request) -> Response:
            if (denied := self._auth(request)) is not None:
                return denied
            obj = await request.json()
            name = obj["metadata"]["name"]
            with self._lock:
                if name in self.store[kind]:
                    return _status(409, "AlreadyExists", f'{kind} "{name}" already exists')
                obj["metadata"]["resourceVersion"] = self._next_rv()
                self.store[kind][name] = obj
            return JSONResponse(obj, status_code=201)

        return create

    def _object(self, kind: str) -> Any:
        async def one(request: Request) -> Response:
            if (denied := self._auth(request)) is not None:
                return denied
            name = request.path_params["name"]
            body = await request.json() if request.method != "GET" else None
            with self._lock:
                current = self.store[kind].get(name)
                if current is None:
                    return _status(404, "NotFound", f'{kind} "{name}" not found')
                if request.method == "GET":
                    return JSONResponse(copy.deepcopy(current))
                # a PUT, or a patch carrying a resourceVersion, is a compare-and-set
                sent = (body.get("metadata") or {}).get("resourceVersion")
                if (request.method == "PUT" or sent) and sent != current["metadata"]["resourceVersion"]:
                    return _status(409, "Conflict", "the object has been modified")
                obj = body if request.method == "PUT" else merge_patch(current, body)
                obj["metadata"]["resourceVersion"] = self._next_rv()
                self.store[kind][name] = obj
                if kind in self.logs:
                    self.logs[kind].append((self.rv, "MODIFIED", copy.deepcopy(obj)))
            if kind in self.logs:
                self._notify()
            return JSONResponse(copy.deepcopy(obj))

        return one


def _matches(obj: dict[str, Any], selector: str) -> bool:
    labels = obj.get("metadata", {}).get("labels") or {}
    for term in filter(None, selector.split(",")):
        key, _, value = term.partition("=")
        if labels.get(key) != value:
            return False
    return True
