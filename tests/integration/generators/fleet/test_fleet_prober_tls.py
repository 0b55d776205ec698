"""The prober against real HTTPS servers: each cluster's own CA, client certificate, SNI name and auth."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import pytest

from argocd_lifecycle.cluster_secrets import parse_secret
from argocd_lifecycle.generators.fleet.metrics import error_kind
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings
from tests.integration.generators.loopback import CertAuthority, LoopbackCluster


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def probe(secret: dict, *, timeout: float = 2.0) -> ProbeResult:
    async def once() -> ProbeResult:
        prober = Prober(ProberSettings(timeout=timeout))
        try:
            result, _ = await prober.probe(parse_secret(secret))
            return result
        finally:
            await prober.aclose()

    return asyncio.run(once())


def with_config(secret: dict, cfg: dict) -> dict:
    secret["stringData"]["config"] = json.dumps(cfg)
    return secret


@pytest.fixture
def cluster(tmp_path: Path, request):
    kw = getattr(request, "param", {})
    c = LoopbackCluster(tmp_path / "pki", "edge", **kw).start()
    yield c
    c.stop()


def test_bearer_token_and_own_ca(cluster: LoopbackCluster) -> None:
    result = probe(cluster.secret())
    assert result.reachable and result.readyz_ok and not result.error
    assert (result.git_version, result.nodes, result.nodes_ready, result.node_minors) == ("v1.29.3", 3, 3, ((1, 29),))


def test_wrong_token_is_unreachable_with_auth_reason(cluster: LoopbackCluster) -> None:
    secret = cluster.secret()
    cluster.sim.token = "rotated-elsewhere"  # the cluster no longer accepts the Secret's token
    result = probe(secret)
    assert not result.reachable and "HTTP 401" in result.error and error_kind(result) == "auth"


def test_unknown_ca_is_a_tls_failure_unless_insecure(cluster: LoopbackCluster) -> None:
    other = CertAuthority("someone-else")
    secret = with_config(
        cluster.secret(), {"bearerToken": cluster.sim.token, "tlsClientConfig": {"caData": b64(other.pem)}}
    )
    result = probe(secret)
    assert not result.reachable and result.error.startswith("/version: TLS:") and error_kind(result) == "tls"
    insecure = with_config(cluster.secret(), {"bearerToken": cluster.sim.token, "tlsClientConfig": {"insecure": True}})
    assert probe(insecure).reachable


@pytest.mark.parametrize("cluster", [{"ip_san": False}], indirect=True)
def test_server_name_sets_sni_and_verification_name(cluster: LoopbackCluster) -> None:
    plain = cluster.secret()
    assert "TLS:" in probe(plain).error  # the certificate does not name 127.0.0.1
    cfg = json.loads(plain["stringData"]["config"])
    cfg["tlsClientConfig"]["serverName"] = "edge.clusters.test"
    assert probe(with_config(cluster.secret(), cfg)).reachable


@pytest.mark.parametrize("cluster", [{"token": "", "client_certs": True}], indirect=True)
def test_client_certificate_auth(cluster: LoopbackCluster) -> None:
    cert, key = cluster.ca.issue("argocd-manager", server=False)
    cfg = {"tlsClientConfig": {"caData": b64(cluster.ca.pem), "certData": b64(cert), "keyData": b64(key)}}
    result = probe(with_config(cluster.secret(), cfg))
    assert result.reachable, result.error
    without = probe(with_config(cluster.secret(), {"tlsClientConfig": {"caData": b64(cluster.ca.pem)}}))
    assert not without.reachable


def test_basic_auth(cluster: LoopbackCluster) -> None:
    cluster.sim.basic = ("admin", "s3cret")
    cfg = {"username": "admin", "password": "s3cret", "tlsClientConfig": {"caData": b64(cluster.ca.pem)}}
    assert probe(with_config(cluster.secret(), cfg)).reachable
    cfg["password"] = "wrong"
    assert "HTTP 401" in probe(with_config(cluster.secret(), cfg)).error


def test_slow_cluster_times_out(cluster: LoopbackCluster) -> None:
    cluster.sim.delay = 1.0
    result = probe(cluster.secret(), timeout=0.2)
    assert not result.reachable and error_kind(result) == "timeout"


def test_failing_readyz_and_not_ready_nodes_are_reachable_but_unhealthy(cluster: LoopbackCluster) -> None:
    cluster.sim.readyz_ok = False
    cluster.sim.not_ready = 2
    result = probe(cluster.secret())
    assert result.reachable and not result.readyz_ok and "/readyz: HTTP 500" in result.error
    assert (result.nodes, result.nodes_ready) == (3, 1) and error_kind(result) == "unhealthy"
