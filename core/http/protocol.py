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
# uvloop's clock advances once per loop turn: connections accepted in one turn tie on it, and their
# order of arrival breaks the tie
_ARRIVAL = itertools.count()
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets instead of draining
_HEAD_DUE = frozenset({"idle", "head"})  # phases in which the bytes that arrive are a request's head


@dataclass(frozen=True)
class Limits:
    # every phase a client can drag out ends within 15 s (idle 5, head 10, body and unread answer 15)
    idle_timeout: float = 5.0
    header_timeout: float = 10.0
    body_timeout: float = 15.0
    write_timeout: float = 15.0
    max_head_bytes: int = 32 * 1024
    max_connections: int = 1024

    def __post_init__(self) -> None:
        for name in ("idle_timeout", "header_timeout", "body_timeout", "write_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        if self.max_connections < 1 or self.max_head_bytes < 1024:
            raise ValueError("max_connections must be >= 1 and max_head_bytes >= 1024")


class _HeadTooLarge(Exception):
    """Raised from a parser callback; httptools turns it into HttpParserCallbackError, which uvicorn
    answers through send_400_response (a 431 here)."""


class LimitedHttpProtocol(HttpToolsProtocol):
    limits: ClassVar[Limits] = Limits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = "idle"
        self.since = 0.0  # loop time the phase began
        self.arrival = next(_ARRIVAL)
        self._deadline = NEVER
        self._timer: Any = None  # asyncio.TimerHandle; uvloop's has the same interface
        self._timer_at = NEVER  # when it fires
        self._head_bytes = 0  # bytes received since the connection last became idle
        self._max_head = self.limits.max_head_bytes
        self._head_too_large = False
        self._measure = False  # measure this head exactly when it completes

    @classmethod
    def with_limits(cls, limits: Limits) -> type[LimitedHttpProtocol]:
        """A subclass carrying ``limits`` (uvicorn builds protocols from a class and its own config)."""
        return type(cls.__name__, (cls,), {"limits": limits})

    # --- phases and their deadline ----------------------------------------------------------------
    def _enter(self, phase: str, timeout: float) -> None:
        """Begin a phase in which the connection waits for its client, for at most ``timeout``."""
        now = self.loop.time()
        self.phase = phase
        self.since = now
        deadline = self._deadline = now + timeout
        if deadline < self._timer_at:  # else the pending timer fires first and re-arms at the deadline
            self._arm(deadline)

    def _busy(self) -> None:
        """The app works on a complete request: no deadline, and not a connection to drop."""
        self.phase = "app"
        self._deadline = NEVER

    def _arm(self, deadline: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_at(deadline, self._due)
        self._timer_at = deadline

    def _due(self) -> None:
        self._timer, self._timer_at = None, NEVER
        deadline = self._deadline
        if deadline == NEVER or self.transport is None:
            return
        if self.loop.time() + _SLACK < deadline:
            self._arm(deadline)
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
        if self._head_too_large:
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
        waiting.sort(key=lambda c: (c.since, c.arrival))
        for victim in waiting[:batch]:
            victim._drop()
        log.info("connection limit %d reached: dropped %d waiting connections", self.limits.max_connections, batch)

    # --- uvicorn's protocol and parser callbacks --------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._idle()
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, NEVER
        self._deadline = NEVER
        super().connection_lost(exc)

    def _idle(self) -> None:
        self._head_bytes = 0
        self._enter("idle", self.limits.idle_timeout)

    # The head's size is checked without a call per header: bytes received while a head is due are
    # counted per chunk, and only a head that may be too large (more bytes than the limit arrived) is
    # measured exactly; a head still incomplete after more bytes than the limit is too large.
    def data_received(self, data: bytes) -> None:
        if self.phase in _HEAD_DUE:
            self._head_bytes += len(data)
        super().data_received(data)
        if self.phase == "head" and self._head_bytes > self._max_head and not self.transport.is_closing():
            self._head_too_large = True
            self.send_400_response("")

    def on_message_begin(self) -> None:
        # pipelined: its first bytes came in a chunk counted as the previous request's; count from
        # here (so a split head may pass one chunk over the limit) and measure it exactly when complete
        self._measure = self.phase not in _HEAD_DUE
        if self._measure:
            self._head_bytes = 0
        super().on_message_begin()
        self._enter("head", self.limits.header_timeout)

    def on_headers_complete(self) -> None:
        if self._measure or self._head_bytes > self._max_head:
            size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            if size > self._max_head:
                self._head_too_large = True
                raise _HeadTooLarge  # httptools reports it as a parser error: send_400_response
        self._enter("body", self.limits.body_timeout)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._busy()

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)
        super().on_response_complete()
        if self.transport.is_closing() or pipelined:
            return
        if self.flow.write_paused:
            self._enter("write", self.limits.write_timeout)
        else:
            self._idle()

    def pause_writing(self) -> None:
        super().pause_writing()
        self._enter("write", self.limits.write_timeout)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.cycle is None or self.cycle.response_complete:
            self._idle()
        else:
            self._busy()
