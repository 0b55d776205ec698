"""Server settings: the connection bound follows the open-file limit, flags become Limits, and the
uvicorn config carries our protocol and limits (nothing of uvicorn's that would undo them)."""

from __future__ import annotations

import resource
import socket
from typing import Any

import click
import pytest
from click.testing import CliRunner

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.http.protocol import LimitedHttpProtocol, Limits
from argocd_lifecycle.http.server import (
    ServerSettings,
    bind,
    default_max_connections,
    limits_from_options,
    server_options,
    uvicorn_config,
)


@pytest.mark.parametrize(("nofile", "bound"), [(256, 128), (1024, 512), (1 << 20, 4096), (10, 8)])
def test_half_the_descriptor_limit_at_most_4096(nofile: int, bound: int) -> None:
    assert default_max_connections(nofile) == bound


def test_flags_become_limits_and_are_checked_against_the_descriptor_limit() -> None:
    limits = limits_from_options(idle_timeout=2, header_timeout=3, body_timeout=4, max_connections=None)
    assert limits == Limits(2, 3, 4, 4, max_connections=default_max_connections())
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    with pytest.raises(UsageError, match=rf"--max-connections {soft}: the open-file limit is {soft}; use at most"):
        limits_from_options(idle_timeout=2, header_timeout=3, body_timeout=4, max_connections=soft)


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="idle_timeout must be positive"):
        Limits(idle_timeout=0)
    with pytest.raises(ValueError, match="max_connections"):
        Limits(max_connections=0)


def test_the_options_parse_into_keyword_arguments() -> None:
    seen: dict[str, Any] = {}

    @click.command()
    @server_options
    def command(**options: Any) -> None:
        seen.update(options)

    result = CliRunner().invoke(command, ["--header-timeout", "1.5", "--max-connections", "64"])
    assert result.exit_code == 0, result.output
    assert seen == {"idle_timeout": 5.0, "header_timeout": 1.5, "body_timeout": 15.0, "max_connections": 64}
    assert CliRunner().invoke(command, ["--idle-timeout", "0"]).exit_code == 2


def test_by_default_every_client_is_cut_within_15_seconds() -> None:
    """Attack: a body trickled a byte at a time held a connection 30 s (and a client that never reads its
    answer as long). Each deadline is per phase and a phase's first byte ends the one before, so the
    bound per phase is the largest default: of the dataclass and of both services' flags."""
    seen: dict[str, Any] = {}

    @click.command()
    @server_options
    def command(**options: Any) -> None:
        seen.update(options)

    assert CliRunner().invoke(command, []).exit_code == 0
    limits = limits_from_options(**seen)
    for each in (Limits(), limits):
        deadlines = (each.idle_timeout, each.header_timeout, each.body_timeout, each.write_timeout)
        assert max(deadlines) <= 15.0, deadlines


def test_the_uvicorn_config_uses_our_protocol() -> None:
    limits = Limits(idle_timeout=2.5, max_connections=50)
    config = uvicorn_config(object(), ServerSettings((("127.0.0.1", 8080),), limits))
    config.load()
    assert issubclass(config.http_protocol_class, LimitedHttpProtocol)
    assert config.http_protocol_class.limits == limits
    assert config.limit_concurrency is None  # it would answer 503 to /healthz too
    assert config.timeout_keep_alive == 3 and config.timeout_graceful_shutdown == 10
    assert (config.proxy_headers, config.server_header, config.ws) == (False, False, "none")


def test_an_address_in_use_is_one_usage_error_naming_it() -> None:
    with bind("127.0.0.1", 0) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(
            UsageError, match=rf"^--listen 127\.0\.0\.1:{port}: cannot listen there: Address already in use$"
        ):
            bind("127.0.0.1", port)
    with bind("::1", 0) as six:
        assert six.family == socket.AF_INET6
