"""A hostile cluster endpoint for the prober's attack tests: real HTTPS on 127.0.0.1, answers that never end.

``HostileCluster`` serves ``/version``, ``/readyz`` and ``/api/v1/nodes`` like ``LoopbackCluster`` (its
own CA, a bearer token), but each path can be switched to an attack: an answer far larger than any real
one (streamed, or declared up front in Content-Length), a node list whose pages never end, or an answer
that trickles a byte at a time. A streamed answer stops at ``cap`` bytes, and so do node pages without
end all together, so an attack that succeeds ends there instead of taking the test machine's memory;
``sent`` counts what the server produced (what was offered: the socket buffers hold some of it that the
prober never read).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.integration.generators.loopback import LoopbackCluster, ServerThread

MIB = 1024 * 1024


def node(name: str, kubelet: str = "v1.29.3") -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": kubelet}},
    }


@dataclass
class Attacks:
    """What each path does; tests change it while the server runs."""

    token: str
    #: "", "huge" (streams without end), "declared" (Content-Length says 400 MB), "trickle", "nested"
    version: str = ""
    #: "", "trickle"
    readyz: str = ""
    #: "", "endless" (every page has a continue token), "empty" (endless, and no nodes on them), "trickle",
    #: "fat" (one page of ``fat_bytes``, its last bytes trickled)
    nodes: str = ""
    #: the most bytes of one streamed answer, and of all the endless node pages together (the attack's own
    #: bound, so a test cannot exhaust the machine)
    cap: int = 50 * MIB
    #: seconds between two bytes of a trickled answer
    trickle: float = 0.2
    #: the size of a "fat" node page: just under the prober's default cap
    fat_bytes: int = 2 * MIB - 4096
    #: bytes sent so far, every answer (what the prober was made to take)
    sent: int = 0
    requests: dict[str, int] = field(default_factory=dict)

    def page(self, number: int, size: int) -> bytes:
        items = [node(f"node-{number}-{i}") for i in range(size)]
        # a different token on every page, as a real server's are, long (a prober may keep them)
        cont = f"page-{number + 1}-" + "t" * 2000
        doc = {"kind": "NodeList", "apiVersion": "v1", "metadata": {"continue": cont}, "items": items}
        return json.dumps(doc).encode()


VERSION = b'{"major": "1", "minor": "29", "gitVersion": "v1.29.3", "platform": "linux/amd64"}'


async def _counted(attacks: Attacks, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    left = attacks.cap
    async for chunk in chunks:
        part = chunk[:left]
        left -= len(part)
        attacks.sent += len(part)
        yield part
        if not left:
            return
        # once the prober is gone uvicorn's send returns at once: without a pause the answer would go on
        # being made (and counted) without end, never seeing the disconnect
        await anyio.sleep(0)


async def _huge(head: bytes) -> AsyncIterator[bytes]:
    yield head[:-1] + b', "padding": "'
    block = b"x" * (64 * 1024)
    while True:
        yield block


async def _nested() -> AsyncIterator[bytes]:
    yield b"[" * (60 * 1024)  # under the small-answer cap, deeper than json's parser goes


async def _fat(size: int, every: float) -> AsyncIterator[bytes]:
    head = b'{"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [], "padding": "'
    yield head + b"x" * (size - len(head) - 2)
    async for byte in _trickle(b'"}', every):
        yield byte


async def _trickle(body: bytes, every: float) -> AsyncIterator[bytes]:
    for i in range(len(body)):
        yield body[i : i + 1]
        await anyio.sleep(every)


def hostile_app(attacks: Attacks) -> Starlette:
    def stream(chunks: AsyncIterator[bytes], headers: dict[str, str] | None = None) -> Response:
        return StreamingResponse(_counted(attacks, chunks), media_type="application/json", headers=headers)

    async def endpoint(request: Request) -> Response:
        path = request.url.path
        attacks.requests[path] = attacks.requests.get(path, 0) + 1
        if request.headers.get("authorization") != f"Bearer {attacks.token}":
            return JSONResponse({"kind": "Status", "code": 401}, status_code=401)
        if path == "/version":
            mode = attacks.version
            if mode == "huge":
                return stream(_huge(VERSION))
            if mode == "declared":
                return stream(_huge(VERSION), headers={"content-length": str(400 * 1000 * 1000)})
            if mode == "nested":
                return stream(_nested())
            return stream(_trickle(VERSION, attacks.trickle)) if mode == "trickle" else Response(VERSION)
        if path == "/readyz":
            return stream(_trickle(b"ok", attacks.trickle)) if attacks.readyz == "trickle" else Response(b"ok")
        number = int(request.query_params.get("continue", "page-0-").split("-")[1])
        # as many nodes as asked for, as a kube-apiserver does
        size = 0 if attacks.nodes == "empty" else min(int(request.query_params.get("limit", "500")), 500)
        body = attacks.page(number, size)
        if attacks.nodes == "trickle":
            return stream(_trickle(body, attacks.trickle))
        if attacks.nodes == "fat":
            return stream(_fat(attacks.fat_bytes, attacks.trickle))
        if attacks.nodes not in ("endless", "empty") or attacks.sent + len(body) > attacks.cap:
            # the last page: no continue token (what ends the list for a prober without a page budget)
            doc = json.loads(body)
            doc["metadata"] = {}
            body = json.dumps(doc).encode()
        attacks.sent += len(body)
        return Response(body, media_type="application/json")

    paths = ("/version", "/readyz", "/api/v1/nodes")
    return Starlette(routes=[Route(p, endpoint) for p in paths])


class HostileCluster(LoopbackCluster):
    """One hostile endpoint on its own HTTPS port, with its own CA: a loopback cluster serving the attacks."""

    def __init__(self, folder: Path, name: str) -> None:
        super().__init__(folder, name)
        self.name = name
        self.attacks = Attacks(token=self.sim.token)
        # the same port, certificate and token; the attacks' app instead of the simulated cluster's
        self.server = ServerThread(
            hostile_app(self.attacks), self.port, certfile=folder / f"{name}.crt", keyfile=folder / f"{name}.key"
        )

    def start(self) -> HostileCluster:
        super().start()
        return self
