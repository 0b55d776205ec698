"""The fleet metrics' probe failure labels: a small fixed set, whatever the error text."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.fleet.metrics import error_kind
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult


@pytest.mark.parametrize(
    ("result", "kind"),
    [
        (ProbeResult(reachable=False, error="/version: timeout (ReadTimeout)"), "timeout"),
        (ProbeResult(reachable=False, error="/version: TLS: certificate verify failed"), "tls"),
        (ProbeResult(reachable=False, error="/version: HTTP 401 (credentials rejected)"), "auth"),
        (ProbeResult(reachable=False, error="/version: connect: Connection refused"), "connect"),
        (ProbeResult(reachable=True, readyz_ok=False, error="/readyz: HTTP 500"), "unhealthy"),
        (ProbeResult(reachable=False, unsupported="exec"), "unsupported"),
        (ProbeResult(reachable=False, error="/version: the answer is not JSON"), "error"),
    ],
)
def test_error_kind_labels(result: ProbeResult, kind: str) -> None:
    assert error_kind(result) == kind
