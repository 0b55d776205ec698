"""The one Kubernetes client module: every failure becomes a KubeError naming what was attempted, responses
are plain JSON, watches must be bounded, and configuration problems are ConfigErrors without credentials."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.kube.client import (
    Kube,
    KubeConflict,
    KubeError,
    KubeGone,
    KubeNotFound,
    KubeSettings,
    connect,
    connect_cluster,
    translate,
)


@pytest.mark.parametrize(
    ("status", "cls"), [(404, KubeNotFound), (409, KubeConflict), (410, KubeGone), (500, KubeError)]
)
def test_status_picks_the_error_class_and_the_api_message_is_kept(status: int, cls: type[KubeError]) -> None:
    exc = ApiException(status=status, reason="Reason")
    exc.body = b'{"kind":"Status","message":"secrets \\"c1\\" not found"}'
    err = translate(exc, "get Secret argocd/c1")
    assert type(err) is cls and err.status == status
    assert err.message == f'get Secret argocd/c1: HTTP {status}: secrets "c1" not found'


def test_a_body_without_a_status_message_falls_back_to_the_reason() -> None:
    exc = ApiException(status=503, reason="Service Unavailable")
    exc.body = "<html>upstream down</html>"
    assert translate(exc, "list Secrets").message == "list Secrets: HTTP 503: Service Unavailable"


def test_transport_errors_have_no_status() -> None:
    err = translate(TimeoutError("timed out"), "watch Secrets")
    assert type(err) is KubeError and err.status is None
    assert err.message == "watch Secrets: TimeoutError: timed out"


class _Response:
    def __init__(self, status: int, data: bytes) -> None:
        self.status, self.data, self.reason, self.released = status, data, "Conflict", False

    def release_conn(self) -> None:
        self.released = True


def _kube() -> Kube:
    return Kube(client.ApiClient(client.Configuration()), KubeSettings(request_timeout=3.0))


def test_call_returns_raw_json_and_bounds_every_request() -> None:
    seen: dict[str, Any] = {}
    response = _Response(200, b'{"items": []}')

    def api_method(*args: Any, **kwargs: Any) -> _Response:
        seen.update(args=args, **kwargs)
        return response

    assert _kube().call("list Secrets", api_method, "argocd") == {"items": []}
    assert seen == {"args": ("argocd",), "_preload_content": False, "_request_timeout": 3.0}
    assert response.released


def test_call_turns_an_error_status_into_a_kube_error_and_releases_the_connection() -> None:
    response = _Response(409, b'{"message": "the object has been modified"}')
    with pytest.raises(KubeConflict, match=r"^patch Secret argocd/c1: HTTP 409: the object has been modified$"):
        _kube().call("patch Secret argocd/c1", lambda *a, **k: response)
    assert response.released


def test_an_empty_body_is_an_empty_object() -> None:
    assert _kube().call("delete", lambda *a, **k: _Response(200, b"")) == {}


def test_a_watch_without_a_server_side_timeout_is_refused() -> None:
    with pytest.raises(ValueError, match="timeout_seconds"):
        next(_kube().watch("watch Secrets", lambda *a, **k: None))


def test_a_bad_kubeconfig_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    with pytest.raises(ConfigError, match=f"^kubeconfig {path}: "):
        connect(KubeSettings(kubeconfig=str(path)))


def test_connect_cluster_uses_the_secret_server_and_credentials() -> None:
    kube = connect_cluster("https://10.0.0.1:6443", bearer_token="t0ken-value", insecure=True)
    assert kube.host == "https://10.0.0.1:6443"
    assert kube.api_client.configuration.api_key == {"BearerToken": "Bearer t0ken-value"}
    assert kube.api_client.configuration.verify_ssl is False


def test_connect_cluster_verifies_with_the_secret_ca() -> None:
    pem = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    kube = connect_cluster("https://10.0.0.1:6443", ca_pem=pem, server_name="api.internal")
    cfg = kube.api_client.configuration
    assert cfg.verify_ssl is True and cfg.tls_server_name == "api.internal"
    assert Path(cfg.ssl_ca_cert).read_bytes() == pem


class _Recorder(BaseHTTPRequestHandler):
    """A loopback API server that answers every PATCH with the object and records what it was sent."""

    seen: ClassVar[list[tuple[str, str, str, Any]]] = []

    def do_PATCH(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.command, self.path, self.headers["Content-Type"], body))
        answer = json.dumps({"kind": "Secret", "metadata": body["metadata"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def api_server() -> Iterator[str]:
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_annotate_secret_sends_a_merge_patch_of_the_annotations_only(api_server: str) -> None:
    configuration = client.Configuration()
    configuration.host = api_server
    kube = Kube(client.ApiClient(configuration), KubeSettings(request_timeout=3.0))
    kube.annotate_secret("argocd", "cluster-eu", {"argocd-lifecycle.io/phase": "Ready", "stale": None})
    assert _Recorder.seen == [
        (
            "PATCH",
            "/api/v1/namespaces/argocd/secrets/cluster-eu",
            "application/merge-patch+json",
            {"metadata": {"annotations": {"argocd-lifecycle.io/phase": "Ready", "stale": None}}},
        )
    ]
