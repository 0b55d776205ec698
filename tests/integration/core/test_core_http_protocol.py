"""The HTTP layer's server (core/http/server.py, protocol.py) as a process, over real sockets, with a
small app: what neither service's tests reach on their own (pipelined requests, a client that stops
reading a large response, the connection bound's choice of whom to drop, 503 when nobody can be)."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.integration.core import http_attacks as attacks

APP = textwrap.dedent(
    """
    import sys
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route
    from argocd_lifecycle.http import server
    from argocd_lifecycle.http.protocol import Limits

    async def fast(request):
        return Response(b"ok")

    async def big(request):
        return Response(b"x" * (16 << 20))

    async def hang(request):  # busy in the app until its client goes away
        await request.body()
        await request.receive()
        return Response(b"")

    app = Starlette(routes=[Route("/healthz", fast), Route("/big", big), Route("/hang", hang)])
    idle, bound = float(sys.argv[2]), int(sys.argv[3])
    limits = Limits(idle_timeout=idle, header_timeout=2, body_timeout=2, write_timeout=2, max_connections=bound)
    server.run(server.serve(app, server.ServerSettings((("127.0.0.1", int(sys.argv[1])),), limits, "warning")))
    """
)


@dataclass
class Small:
    port: int
    proc: subprocess.Popen[bytes]


@pytest.fixture
def small(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Small]:
    idle, max_connections = getattr(request, "param", (attacks.IDLE, 64))
    port = attacks.free_port()
    log = tmp_path / "server.log"
    argv = [sys.executable, "-c", APP, str(port), str(idle), str(max_connections)]
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=out)
    try:
        attacks.wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        yield Small(port, proc)
    finally:
        attacks.stop(proc)


def test_pipelined_requests_are_all_answered_then_the_idle_deadline_holds(small: Small) -> None:
    one = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    seen = attacks.raw_request(small.port, one * 3)
    assert seen.answer.count(b"HTTP/1.1 200 OK") == 3
    assert seen.closed_after is not None


def test_a_client_that_stops_reading_a_large_response_is_dropped(small: Small) -> None:
    with attacks.connect(small.port) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(attacks.BODY + 3)  # never read: the server's buffer stays full
        received = 0
        sock.settimeout(5)
        try:
            while chunk := sock.recv(1 << 20):
                received += len(chunk)
        except ConnectionResetError:
            pass
    print(f"a 16 MiB response left unread: dropped after {received} bytes had been buffered for the client")
    assert received < 16 << 20


def test_an_invalid_request_is_400_in_the_one_error_shape(small: Small) -> None:
    seen = attacks.raw_request(small.port, b"NOT HTTP AT ALL\r\n\r\n")
    assert seen.status == 400
    assert seen.json()["reason"] == "bad_request"


@pytest.mark.parametrize("small", [(60, 8)], indirect=True)
def test_over_the_bound_the_longest_waiting_connections_are_dropped(small: Small) -> None:
    with attacks.idle_sockets(small.port, 8) as first, attacks.idle_sockets(small.port, 4) as later:
        time.sleep(0.3)
        response = httpx.get(f"http://127.0.0.1:{small.port}/healthz", timeout=5)
        assert response.status_code == 200

        def closed(sock: socket.socket) -> bool:
            sock.settimeout(0.5)
            try:
                return sock.recv(1) == b""
            except TimeoutError:
                return False
            except ConnectionResetError:
                return True

        assert closed(first[0])  # the oldest went first
        assert not any(closed(s) for s in later)  # the newest were kept


@pytest.mark.parametrize("small", [(60, 8)], indirect=True)
def test_when_every_connection_is_busy_a_new_one_gets_503(small: Small) -> None:
    busy = [attacks.connect(small.port) for _ in range(8)]
    try:
        for sock in busy:
            sock.sendall(b"GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)
        seen = attacks.raw_request(small.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert seen.status == 503
        assert seen.json() == {"message": "too many connections; retry later", "reason": "overloaded"}
    finally:
        for sock in busy:
            sock.close()
    time.sleep(0.5)
    assert httpx.get(f"http://127.0.0.1:{small.port}/healthz", timeout=5).status_code == 200


def test_a_head_growing_past_the_limit_in_pieces_is_431_before_it_ends(small: Small) -> None:
    with attacks.connect(small.port) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        for i in range(64):  # 64 KiB of header lines, never a blank line: the head never completes
            try:
                sock.sendall(f"X-{i}: ".encode() + b"a" * 1000 + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.005)
        started = time.monotonic()
        seen = attacks._read_until_closed(sock, started, started + attacks.BOUND)
    assert seen.status == 431 and seen.json()["reason"] == "head_too_large"


def test_a_head_just_under_the_limit_is_served(small: Small) -> None:
    padding = b"a" * (32 * 1024 - 200)
    seen = attacks.raw_request(small.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + padding + b"\r\n\r\n")
    assert seen.status == 200


def test_a_pipelined_head_split_across_reads_is_measured_as_its_own(small: Small) -> None:
    pad = b"a" * (20 * 1024)
    first = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + pad + b"\r\n\r\n"
    second = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + pad + b"\r\n\r\n"
    split = len(first) + len(second) // 2  # one read holds more than 32 KiB: all of one, half of two
    with attacks.connect(small.port) as sock:
        sock.sendall(first + second[: split - len(first)])
        time.sleep(0.3)
        sock.sendall(second[split - len(first) :])
        started = time.monotonic()
        seen = attacks._read_until_closed(sock, started, started + attacks.BOUND)
    assert seen.answer.count(b"HTTP/1.1 200 OK") == 2 and b"431" not in seen.answer.split(b"\r\n")[0]
