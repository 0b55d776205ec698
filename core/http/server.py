"""Serving an ASGI app the one way both services do: uvicorn, httptools with our limits, uvloop.

What uvicorn already offers is used as it is: ``timeout_keep_alive`` (set to our idle timeout),
``timeout_graceful_shutdown`` (10 s: by default a hung request holds a shutdown for ever), ``backlog``,
lifespan. Its ``limit_concurrency`` is left off: it answers 503 to every
request over the limit, ``/healthz`` included, and still lets idle sockets use up descriptors; the
connection bound of ``core/http/protocol.py`` replaces it. Proxy headers are off (nothing here reads
client addresses, so nothing should trust them), and so is the ``server`` header.

Flags (``server_options``) shared by ``generator serve`` and ``receiver serve``::

    --idle-timeout SECONDS     (5)   an idle connection is closed (before its first request too)
    --header-timeout SECONDS   (10)  a request head must arrive within this, else 408
    --body-timeout SECONDS     (15)  a request body must arrive within this after its head, else 408;
                                     also how long a client may leave our response unread
    --max-connections N        (half the open-file limit, at most 4096)
"""

from __future__ import annotations

import asyncio
import math
import os
import resource
import socket
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import uvicorn
import uvloop

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.http.protocol import LimitedHttpProtocol, Limits
from argocd_lifecycle.options import Option, Options

MAX_CONNECTIONS_CAP = 4096
# seconds a shutdown waits for requests in flight (uvicorn's default waits for ever)
GRACEFUL_SHUTDOWN = 10
# descriptors kept for everything but client connections: state files, outbound clients, probes
DESCRIPTOR_RESERVE = 32


def open_file_limit() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def default_max_connections(nofile: int | None = None) -> int:
    """Half the open-file limit, so the other half is left for the rest of the process."""
    nofile = open_file_limit() if nofile is None else nofile
    return max(8, min(MAX_CONNECTIONS_CAP, nofile // 2))


def limits_from_options(
    *, idle_timeout: float, header_timeout: float, body_timeout: float, max_connections: int | None
) -> Limits:
    nofile = open_file_limit()
    if max_connections is None:
        max_connections = default_max_connections(nofile)
    elif max_connections > nofile - DESCRIPTOR_RESERVE:
        raise UsageError(
            f"--max-connections {max_connections}: the open-file limit is {nofile}; "
            f"use at most {nofile - DESCRIPTOR_RESERVE} or raise the limit (ulimit -n)"
        )
    return Limits(
        idle_timeout=idle_timeout,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        write_timeout=body_timeout,
        max_connections=max_connections,
    )


@dataclass(frozen=True)
class ServerSettings:
    #: (host, port) pairs to listen on, each as ``--listen`` gave it
    addresses: tuple[tuple[str, int], ...]
    limits: Limits = field(default_factory=Limits)
    log_level: str = "info"


def bind(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening socket (``SO_REUSEADDR``, as uvicorn sets); UsageError naming the address otherwise."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=backlog)
    except OSError as exc:
        shown = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        raise UsageError(f"--listen {shown}: cannot listen there: {why}") from None


def _seconds(flag: str, default: float, text: str) -> Option:
    return Option(flag, type=float, low=0, low_open=True, default=default, help=text)


#: the flags both services share, each declared once (defaults: ``Limits``)
OPTIONS = Options(
    _seconds("--idle-timeout", Limits.idle_timeout, "Close a connection idle this many seconds."),
    _seconds("--header-timeout", Limits.header_timeout, "Seconds for a request's head to arrive (else 408)."),
    _seconds(
        "--body-timeout",
        Limits.body_timeout,
        "Seconds for a request's body to arrive, and for a client to read a response.",
    ),
    Option(
        "--max-connections",
        type=int,
        low=1,
        help="Open connections at most (default: half the open-file limit, at most 4096).",
    ),
)
#: click options for ``limits_from_options``' keyword arguments
server_options = OPTIONS.decorate


def uvicorn_config(app: Any, settings: ServerSettings, *, lifespan: Literal["auto", "on", "off"] = "auto") -> Any:
    limits = settings.limits
    return uvicorn.Config(
        app,
        http=LimitedHttpProtocol.with_limits(limits),
        ws="none",
        lifespan=lifespan,
        log_level=settings.log_level.lower(),
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=math.ceil(limits.idle_timeout),
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN,
    )


async def serve(
    app: Any,
    settings: ServerSettings,
    *,
    lifespan: Literal["auto", "on", "off"] = "auto",
    sockets: Sequence[socket.socket] | None = None,
) -> None:
    """Serve ``app`` on every address of ``settings`` (or on ``sockets``) on the running loop until
    SIGTERM/SIGINT (uvicorn's handling)."""
    bound = list(sockets) if sockets is not None else [bind(host, port) for host, port in settings.addresses]
    await uvicorn.Server(uvicorn_config(app, settings, lifespan=lifespan)).serve(sockets=bound)


def run(main: Coroutine[Any, Any, None]) -> None:
    """Run a service's main coroutine on uvloop (what ``uvicorn.run`` would pick; serving from our own
    coroutine, the loop is chosen here)."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main)
