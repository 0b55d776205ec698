"""A loopback stand-in for the notifications receiver: verifies signatures as the real one does and
records what the generator posts to ``/v1/events/lifecycle`` and ``/v1/events/external``."""

from __future__ import annotations

import json
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from argocd_lifecycle.signing import SignatureError, verify
from tests.integration.generators.loopback import ServerThread, free_port

HMAC_SECRET = b"the-receivers-lifecycle-secret"
EXTERNAL_SECRET = b"the-receivers-external-secret"


class Receiver:
    def __init__(self) -> None:
        self.accepted: list[dict] = []  # lifecycle events
        self.external: list[dict] = []  # held answers
        self.rejected = 0
        self.port = free_port()

        def endpoint(into: list[dict], secret: bytes):
            async def receive(request: Request) -> JSONResponse:
                body = await request.body()
                try:
                    verify(secret, body, request.headers, time.time())
                except SignatureError as exc:
                    self.rejected += 1
                    return JSONResponse({"message": exc.message}, status_code=401)
                into.append(json.loads(body))
                return JSONResponse({"status": "accepted"}, status_code=202)

            return receive

        routes = [
            # each route takes its own secret, as the real receiver does
            Route("/v1/events/lifecycle", endpoint(self.accepted, HMAC_SECRET), methods=["POST"]),
            Route("/v1/events/external", endpoint(self.external, EXTERNAL_SECRET), methods=["POST"]),
        ]
        self.server = ServerThread(Starlette(routes=routes), self.port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/events/lifecycle"
