"""uvicorn's httptools protocol with the limits uvicorn lacks.

uvicorn's only connection timer is ``timeout_keep_alive``, armed after a response and cancelled by any
byte received: a connection that never sends, or sends a request head or body one byte at a time,
stays open for ever, and llhttp bounds neither the head's size. ASGI middleware cannot help: the app
sees a request only once its head is complete. So each connection here is in one phase with one
deadline:

============  ==========================================  ===========================================
phase         from                                        deadline
============  ==========================================  ===========================================
``idle``      connect, or the end of a response           ``idle_timeout``: closed
``head``      the first byte of a request                 ``header_timeout``: 408, closed
``body``      the end of the head                         ``body_timeout``: 408, closed
``app``       the end of the body (the server works)      none
``write``     the client stops reading our response       ``write_timeout``: dropped
============  ==========================================  ===========================================

A head (request line and headers) over ``max_head_bytes`` is 431. When a new connection would exceed
``max_connections``, the connections that wait for their clients (every phase but ``app``) that have
waited longest are dropped to make room, so an attacker's idle sockets cannot keep ``/healthz`` or
``/metrics`` from answering and the process never runs out of descriptors; only when every connection
is busy in the app is the new one refused with 503.

One timer per connection, re-armed lazily: a phase change only moves the deadline, and a timer that
fires early re-arms itself at the current one, so a keep-alive connection costs about one timer event
per ``idle_timeout``, not several per request.
"""

from __future__ import annotations

import itertools
import logging
import math
import socket
import struct
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from argocd_lifecycle.http.errors import error_body

log = logging.getLogger(__name__)
NEVER = math.inf
_SLACK = 0.002  # loop timers may fire a little early; this close counts as due
# uvloop's clock advances once per loop turn: connections accepted in one turn tie on it
_ORDER = itertools.count()
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets instead of draining


@dataclass(frozen=True)
class Limits:
    idle_timeout: float = 5.0
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    write_timeout: float = 30.0
    max_head_bytes: int = 32 * 1024
    max_connections: int = 1024

    def __post_init__(self) -> None:
        for name in ("idle_timeout", "header_timeout", "body_timeout", "write_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        if self.max_connections < 1 or self.max_head_bytes < 1024:
            raise ValueError("max_connections must be >= 1 and max_head_bytes >= 1024")


class _HeadTooLarge(Exception):
    """Raised from a parser callback; httptools turns it into HttpParserCallbackError (a 400 in uvicorn)."""


class LimitedHttpProtocol(HttpToolsProtocol):
    limits: ClassVar[Limits] = Limits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = "idle"
        self.since = (0.0, 0)  # loop time the phase began, and a tie-breaker
        self._deadline = NEVER
        self._timer: Any = None  # asyncio.TimerHandle; uvloop's has the same interface
        self._head_bytes = 0

    @classmethod
    def with_limits(cls, limits: Limits) -> type[LimitedHttpProtocol]:
        """A subclass carrying ``limits`` (uvicorn builds protocols from a class and its own config)."""
        return type(cls.__name__, (cls,), {"limits": limits})

    # --- phases and their deadline ----------------------------------------------------------------
    def _enter(self, phase: str, timeout: float) -> None:
        now = self.loop.time()
        self.phase, self.since, self._deadline = phase, (now, next(_ORDER)), now + timeout
        if self._deadline == NEVER:
            return
        timer = self._timer
        if timer is not None and timer.when() <= self._deadline:
            return  # it fires first and re-arms at the new deadline
        if timer is not None:
            timer.cancel()
        self._timer = self.loop.call_at(self._deadline, self._due)

    def _due(self) -> None:
        self._timer = None
        if self._deadline == NEVER or self.transport is None:
            return
        if self.loop.time() + _SLACK < self._deadline:
            self._timer = self.loop.call_at(self._deadline, self._due)
            return
        self._expire()

    def _expire(self) -> None:
        phase, limits = self.phase, self.limits
        if phase == "head":
            self._refuse(408, "timeout", f"request head not received within {limits.header_timeout:g} s")
        elif phase == "body":
            self._refuse(408, "timeout", f"request body not received within {limits.body_timeout:g} s")
        else:
            self._drop()
        log.log(
            logging.DEBUG if phase == "idle" else logging.INFO, "%s: closed after the %s deadline", self._peer(), phase
        )

    # --- refusals ---------------------------------------------------------------------------------
    def _peer(self) -> str:
        return "%s:%d" % self.client if self.client else "client"  # noqa: UP031 - a (host, port) tuple

    def _drop(self) -> None:
        """Close now. What is still buffered for a client that does not read is discarded, here and in
        the kernel (a reset), so neither the descriptor nor the kernel's send buffer outlives the drop."""
        self._detach()
        if self.transport.get_write_buffer_size() or self.phase == "write":
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
            self.transport.abort()
        else:
            self.transport.close()

    def _detach(self) -> None:
        """Tell a running request that its client is gone (its sends are dropped, receive ends)."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()

    def _refuse(self, status: int, reason: str, message: str) -> None:
        """Answer ``status`` with the JSON error body (unless a response already began) and close."""
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            body = error_body(reason, message)
            head = [STATUS_LINE[status]]
            for name, value in self.server_state.default_headers:
                head += [name, b": ", value, b"\r\n"]
            head.append(
                b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body)
            )
            self.transport.write(b"".join(head) + body)
        self._drop()

    def send_400_response(self, msg: str) -> None:  # uvicorn's answer to a parser error, in our shape
        if self._head_bytes > self.limits.max_head_bytes:
            self._refuse(431, "head_too_large", f"request head larger than {self.limits.max_head_bytes} bytes")
        else:
            self._refuse(400, "bad_request", f"not a valid HTTP/1.1 request ({msg.rstrip('.').lower()})")

    # --- the connection bound ---------------------------------------------------------------------
    def _make_room(self) -> None:
        waiting = [c for c in self.connections if isinstance(c, LimitedHttpProtocol) and c._deadline != NEVER]
        waiting = [c for c in waiting if c is not self]
        if not waiting:
            log.warning("%d connections, all busy: refusing %s", len(self.connections), self._peer())
            self._refuse(503, "overloaded", "too many connections; retry later")
            return
        # a batch per scan, so a flood of connections costs a scan per many of them, not each
        over = len(self.connections) - self.limits.max_connections
        batch = max(over, self.limits.max_connections // 16, 1)
        waiting.sort(key=lambda c: c.since)
        for victim in waiting[:batch]:
            victim._drop()
        log.info("connection limit %d reached: dropped %d waiting connections", self.limits.max_connections, batch)

    # --- uvicorn's protocol and parser callbacks --------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._enter("idle", self.limits.idle_timeout)
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._deadline = NEVER
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._enter("head", self.limits.header_timeout)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > self.limits.max_head_bytes:
            raise _HeadTooLarge

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._enter("body", self.limits.body_timeout)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._enter("app", NEVER)

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)
        super().on_response_complete()
        if self.transport.is_closing() or pipelined:
            return
        if self.flow.write_paused:
            self._enter("write", self.limits.write_timeout)
        else:
            self._enter("idle", self.limits.idle_timeout)

    def pause_writing(self) -> None:
        super().pause_writing()
        self._enter("write", self.limits.write_timeout)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.cycle is None or self.cycle.response_complete:
            self._enter("idle", self.limits.idle_timeout)
        else:
            self._enter("app", NEVER)
