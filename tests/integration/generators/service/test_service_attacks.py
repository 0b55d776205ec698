"""`argocd-lifecycle generator serve` as a process, attacked over real sockets: idle and slow connections
are cut off, an oversized head is 431, deep JSON is 400 (with and without a token), and 300 idle
sockets under a 256-descriptor limit leave /healthz and /metrics answering."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.integration.core import http_attacks as attacks

CLI = Path(sys.executable).parent / "argocd-lifecycle"
TOKEN = "attack-test-token-0815"
EXECUTE = "/api/v1/getparams.execute"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Served:
    url: str
    port: int
    proc: subprocess.Popen[bytes]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(*flags: str, nofile: int | None = None) -> Served:
        clusters = tmp_path / "clusters"
        clusters.mkdir(exist_ok=True)
        (tmp_path / "token").write_text(TOKEN)
        port = attacks.free_port()
        command = [
            str(CLI), "generator", "serve", "--clusters-from", str(clusters), "--listen", f"127.0.0.1:{port}",
            "--token-file", str(tmp_path / "token"), "--no-leader-election", "--log-level", "WARNING", *flags,
        ]  # fmt: skip
        if nofile is not None:
            command = attacks.with_nofile(nofile, command)
        log = tmp_path / "serve.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        attacks.wait_healthy(url, proc, log)
        return Served(url, port, proc)

    yield start
    for proc in started:
        attacks.stop(proc)


def test_idle_connections_are_closed_after_the_idle_timeout(serve: Callable[..., Served]) -> None:
    attacks.assert_idle_connections_are_closed(serve(*attacks.SERVER_FLAGS).port)


def test_a_request_head_sent_byte_by_byte_is_cut_off(serve: Callable[..., Served]) -> None:
    attacks.assert_a_slow_head_is_cut_off(serve(*attacks.SERVER_FLAGS).port)


def test_a_body_sent_at_one_byte_per_second_is_cut_off(serve: Callable[..., Served]) -> None:
    attacks.assert_a_one_byte_per_second_body_is_cut_off(serve(*attacks.SERVER_FLAGS).port, EXECUTE, AUTH)


def test_an_oversized_request_head_is_431(serve: Callable[..., Served]) -> None:
    attacks.assert_an_oversized_head_is_431(serve().port)


def test_deeply_nested_json_is_400_not_500(serve: Callable[..., Served]) -> None:
    served = serve()
    attacks.assert_deep_json_is_400(served.url, EXECUTE, AUTH)


def test_300_idle_sockets_under_256_descriptors_leave_health_and_metrics_answering(
    serve: Callable[..., Served],
) -> None:
    # idle sockets are not timed out here (60 s): the connection bound alone has to keep room
    served = serve("--idle-timeout", "60", nofile=256)
    attacks.assert_health_answers_under_idle_sockets(served.port, served.proc.pid, ["/healthz", "/metrics"])
    assert served.proc.poll() is None


def test_the_bound_cannot_exceed_the_descriptor_limit(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN)
    command = [
        str(CLI),
        "generator",
        "serve",
        "--clusters-from",
        str(tmp_path),
        "--token-file",
        str(tmp_path / "token"),
    ]
    argv = attacks.with_nofile(256, [*command, "--max-connections", "1000"])
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr == (
        "error: --max-connections 1000: the open-file limit is 256; use at most 224 or raise the limit (ulimit -n)\n"
    )


def test_it_listens_on_every_address_it_is_given_and_only_there(serve: Callable[..., Served]) -> None:
    six = attacks.free_port()
    served = serve("--listen", f"[::1]:{six}")
    assert httpx.get(f"{served.url}/healthz", timeout=5).status_code == 200
    assert httpx.get(f"http://[::1]:{six}/healthz", timeout=5).status_code == 200
    with pytest.raises(httpx.ConnectError):  # the same port on another loopback address: nobody there
        httpx.get(f"http://127.0.0.2:{served.port}/healthz", timeout=5)
