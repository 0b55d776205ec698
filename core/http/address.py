"""``HOST:PORT`` listen addresses, as given to ``--listen`` (IPv6 hosts in brackets: ``[::1]:8080``)."""

from __future__ import annotations

from argocd_lifecycle.errors import UsageError


def parse_listen(text: str, *, option: str = "--listen", default_host: str | None = None) -> tuple[str, int]:
    """(host, port) of ``text``. An empty host takes ``default_host``; without one it is an error."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not host and default_host is not None:
        host = default_host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{option} {text!r}: expected HOST:PORT, such as 127.0.0.1:8080")
    return host, int(port)
