"""TCP forwarding on 127.0.0.1, all on one asyncio loop in a thread: many clusters, one kube-apiserver.

Each ``Forward`` listens on its own port and pipes bytes to an upstream (TLS stays end to end, so a
cluster reached through it is the downstream kube-apiserver with its own certificate, which is valid for
127.0.0.1 on any port). ``down()`` closes the listener and cuts every open connection, as a cluster
that went away; ``up()`` listens on the same port again. A ``Forward`` with several upstreams is a
balancer (round robin, the next one when a connection is refused), as a Service in front of replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import threading
from collections.abc import Coroutine
from typing import Any

from .procs import HarnessError, free_port


class Loop:
    """One event loop in a daemon thread; ``run`` waits for a coroutine scheduled on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="e2e-tcp", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 10) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


class Forward:
    def __init__(self, loop: Loop, upstreams: list[int], *, port: int | None = None) -> None:
        self._loop, self.upstreams = loop, upstreams
        self.port = port or free_port()
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._next = itertools.cycle(range(len(upstreams)))

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def is_up(self) -> bool:
        return self._server is not None

    def up(self) -> None:
        if self._server is None:
            self._server = self._loop.run(self._listen())

    def down(self) -> None:
        """Stop listening and cut every connection (clients see a reset or EOF, then refusals)."""
        if self._server is not None:
            self._loop.run(self._close(self._server))
            self._server = None

    async def _listen(self) -> asyncio.Server:
        for _ in range(50):  # the port may linger a moment after a close
            try:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind(("127.0.0.1", self.port))
                return await asyncio.start_server(self._serve, sock=sock)
            except OSError:
                sock.close()
                await asyncio.sleep(0.1)
        raise HarnessError(f"cannot listen on 127.0.0.1:{self.port} again")

    async def _close(self, server: asyncio.Server) -> None:
        server.close()
        for writer in list(self._open):
            with contextlib.suppress(Exception):
                writer.transport.abort()
        self._open.clear()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        for _ in range(len(self.upstreams)):
            port = self.upstreams[next(self._next)]
            with contextlib.suppress(OSError):
                return await asyncio.open_connection("127.0.0.1", port)
        return None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = await self._connect()
        if upstream is None:
            writer.transport.abort()
            return
        up_reader, up_writer = upstream
        self._open.update((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            with contextlib.suppress(Exception):
                if self.is_up:
                    dst.close()  # the other side ended: pass the end on
                else:
                    dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._open.discard(writer)
        self._open.discard(up_writer)
