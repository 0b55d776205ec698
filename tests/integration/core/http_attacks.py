"""Attacks on an HTTP service over real sockets, shared by the attack tests of both services and of the
HTTP layer itself: idle connections, a request head or body sent a byte at a time, an oversized head,
hundreds of idle sockets against a low descriptor limit.

Each helper returns what it saw (how long the server took to close, what it answered); the tests assert
that the server closed at all, inside a bound several times its configured timeout, which a server
without the defence never does. Figures are printed for the record, never asserted.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

#: configured in the tests' servers; the bounds below are a multiple of these
IDLE, HEAD, BODY = 1.0, 2.0, 2.0
SERVER_FLAGS = ["--idle-timeout", str(IDLE), "--header-timeout", str(HEAD), "--body-timeout", str(BODY)]
#: a server without the defence keeps these connections open past this
BOUND = 15.0


@dataclass(frozen=True)
class Seen:
    """What the server did to one hostile connection."""

    closed_after: float | None  # seconds until it closed the connection; None: still open at BOUND
    answer: bytes  # everything it sent before closing

    @property
    def status(self) -> int:
        return int(self.answer[9:12]) if self.answer.startswith(b"HTTP/1.1 ") else 0

    def json(self) -> Any:
        return json.loads(self.answer.partition(b"\r\n\r\n")[2])


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def _read_until_closed(sock: socket.socket, started: float, deadline: float) -> Seen:
    answer = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, min(0.2, deadline - time.monotonic())))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return Seen(time.monotonic() - started, answer)
        if not chunk:
            return Seen(time.monotonic() - started, answer)
        answer += chunk
    return Seen(None, answer)


def idle(port: int, *, first: bytes = b"") -> Seen:
    """Connect (and send ``first``, a whole request, when given), then stay silent."""
    with connect(port) as sock:
        if first:
            sock.sendall(first)
        started = time.monotonic()
        return _read_until_closed(sock, started, started + BOUND)


def trickle(port: int, head: bytes, body: bytes = b"", *, interval: float = 0.25) -> Seen:
    """Send ``head`` whole when ``body`` is given (else byte by byte), then ``body`` byte by byte, one
    byte per ``interval``, stopping when the server closes."""
    sock = connect(port)
    with sock:
        started = time.monotonic()
        deadline = started + BOUND
        slow = body or head
        if body:
            sock.sendall(head)
        sent = b""
        for i in range(len(slow)):
            try:
                sock.sendall(slow[i : i + 1])
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += slow[i : i + 1]
            sock.settimeout(interval)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                chunk = None
            except ConnectionResetError:
                return Seen(time.monotonic() - started, b"")
            if chunk is not None:  # an answer or the close, while we are still sending
                rest = _read_until_closed(sock, started, deadline)
                return Seen(rest.closed_after if chunk else time.monotonic() - started, chunk + rest.answer)
            if time.monotonic() > deadline:
                return Seen(None, b"")
        raise AssertionError(f"sent all {len(sent)} slow bytes without being cut off")


def raw_request(port: int, data: bytes) -> Seen:
    with connect(port) as sock:
        sock.sendall(data)
        started = time.monotonic()
        return _read_until_closed(sock, started, started + BOUND)


def post_head(path: str, length: int, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", f"Content-Length: {length}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def assert_idle_connections_are_closed(port: int) -> None:
    before = idle(port)
    print(f"idle connection, no request: closed after {before.closed_after} s (idle timeout {IDLE} s)")
    assert before.closed_after is not None and before.answer == b""
    after = idle(port, first=b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    print(f"idle keep-alive connection after one request: closed after {after.closed_after} s")
    assert after.closed_after is not None and after.answer.startswith(b"HTTP/1.1 200 ")


def assert_a_slow_head_is_cut_off(port: int) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 200 + b"\r\n\r\n"
    seen = trickle(port, head, interval=0.25)
    print(f"request head at 4 bytes/s: answered {seen.status} and closed after {seen.closed_after} s")
    assert seen.closed_after is not None
    assert seen.status == 408
    assert seen.json() == {"message": f"request head not received within {HEAD:g} s", "reason": "timeout"}


def assert_a_one_byte_per_second_body_is_cut_off(port: int, path: str, headers: dict[str, str]) -> None:
    body = json.dumps({"applicationSetName": "x", "trigger": "x", "app": "x", "pad": "y" * 100}).encode()
    seen = trickle(port, post_head(path, len(body), headers), body, interval=1.0)
    print(f"{path} body at 1 byte/s: answered {seen.status} and closed after {seen.closed_after} s")
    assert seen.closed_after is not None
    assert seen.status == 408
    assert seen.json() == {"message": f"request body not received within {BODY:g} s", "reason": "timeout"}


def assert_an_oversized_head_is_431(port: int) -> None:
    seen = raw_request(port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
    assert seen.status == 431 and seen.json()["reason"] == "head_too_large"


_WITH_NOFILE = "import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)); os.execv(sys.argv[2], sys.argv[2:])"  # noqa: E501


def with_nofile(limit: int, argv: Sequence[str]) -> list[str]:
    """``argv`` run with an open-file limit (soft and hard) of ``limit`` from its first instruction on
    (a small exec wrapper: a preexec_fn is unsafe in a process with threads)."""
    return [sys.executable, "-c", _WITH_NOFILE, str(limit), *argv]


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@contextlib.contextmanager
def idle_sockets(port: int, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that never send a byte (each counted once the kernel accepted it)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        yield socks
    finally:
        for sock in socks:
            sock.close()


def assert_health_answers_under_idle_sockets(port: int, pid: int, paths: Sequence[str], *, nofile: int = 256) -> None:
    """300 idle sockets against a server whose open-file limit is ``nofile``: /healthz and /metrics
    still answer, and the server never holds more descriptors than it may."""
    limit = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    assert limit == (nofile, nofile)
    peak = 0
    with idle_sockets(port, 300):
        for path in paths:
            for _ in range(3):
                response = httpx.get(f"http://127.0.0.1:{port}{path}", timeout=5)
                assert response.status_code == 200, (path, response.text)
                peak = max(peak, open_descriptors(pid))
    print(f"300 idle sockets under RLIMIT_NOFILE {nofile}: {paths} answered; server descriptors peaked at {peak}")
    assert peak < nofile


def assert_deep_json_is_400(url: str, path: str, headers: dict[str, str]) -> None:
    deep = b'{"applicationSetName": "x", "trigger": "x", "app": "x", "p": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    response = httpx.post(url + path, content=deep, headers={"Content-Type": "application/json", **headers})
    assert response.status_code == 400, response.text
    assert response.json() == {"message": "request body: JSON nested deeper than 32 levels", "reason": "too_deep"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"the server did not answer /healthz within {timeout} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
