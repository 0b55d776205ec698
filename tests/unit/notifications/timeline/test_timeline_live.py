"""The live source through the real ``kubernetes`` client, against loopback servers speaking the API's JSON.

Two servers stand in for the management cluster (the Application, its Events, the cluster Secrets)
and the destination cluster (the managed resources' Events, behind the cluster Secret's bearer
token). They answer as the API server does: typed lists without item kinds, ``limit``/``continue``
paging, field and label selectors, ``Status`` bodies for errors.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from argocd_lifecycle.notifications.timeline.files import read_files
from argocd_lifecycle.notifications.timeline.live import namespaces
from argocd_lifecycle.notifications.timeline.model import ObjectRef

from .conftest import FAILED, story_files

PAGE = 4
TOKEN = "fixture-token-eu-DO-NOT-PRINT"


def items(path: Path) -> list[dict[str, Any]]:
    """A kubectl List's items as the API serves them in a typed list: without apiVersion/kind."""
    return [
        {k: v for k, v in item.items() if k not in ("apiVersion", "kind")}
        for item in json.loads(path.read_text())["items"]
    ]


def matches(item: dict[str, Any], selector: str, labels: str) -> bool:
    for term in filter(None, selector.split(",")):
        key, _, want = term.partition("=")
        value: Any = item
        for part in key.split("."):
            value = value.get(part, {}) if isinstance(value, dict) else {}
        if value != want:
            return False
    for term in filter(None, labels.split(",")):
        key, _, want = term.partition("=")
        if item.get("metadata", {}).get("labels", {}).get(key) != want:
            return False
    return True


class FakeAPI(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.lists: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self.objects: dict[str, dict[str, Any]] = {}
        self.forbidden: set[str] = set()
        #: field selectors (a term of them) refused 403, as RBAC refuses nothing finer than a resource
        #: but a test needs one list refused and its neighbour answered
        self.forbidden_selectors: set[str] = set()
        self.token = ""
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: FakeAPI

    def log_message(self, *args: object) -> None:
        pass

    def reply(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def status(self, code: int, reason: str, message: str) -> None:
        self.reply(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                          "reason": reason, "code": code})  # fmt: skip

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.server.requests.append(self.path)
        if self.server.token and self.headers.get("Authorization") != f"Bearer {self.server.token}":
            return self.status(401, "Unauthorized", "Unauthorized")
        if url.path in self.server.forbidden or any(
            term in query.get("fieldSelector", "") for term in self.server.forbidden_selectors
        ):
            return self.status(403, "Forbidden", f"forbidden: cannot list resource at {url.path}")
        if url.path in self.server.objects:
            return self.reply(200, self.server.objects[url.path])
        if url.path in self.server.lists:
            kind, everything = self.server.lists[url.path]
            chosen = [
                i for i in everything if matches(i, query.get("fieldSelector", ""), query.get("labelSelector", ""))
            ]
            start = int(query.get("continue", "0"))
            size = min(int(query.get("limit", "500")), PAGE)
            page = chosen[start : start + size]
            more = start + size < len(chosen)
            meta = {"resourceVersion": "48211", **({"continue": str(start + size)} if more else {})}
            return self.reply(200, {"kind": kind, "apiVersion": "v1", "metadata": meta, "items": page})
        name = url.path.rsplit("/", 1)[-1]
        return self.status(404, "NotFound", f'applications.argoproj.io "{name}" not found')


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[FakeAPI, FakeAPI, Path]]:
    management, destination = FakeAPI(), FakeAPI()
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (management, destination)]
    for thread in threads:
        thread.start()
    app = json.loads((FAILED / "app.json").read_text())
    app["spec"]["destination"]["server"] = destination.url
    secrets = items(FAILED / "cluster-secrets.json")
    secrets[0]["data"]["server"] = base64.b64encode(destination.url.encode()).decode()
    management.objects["/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/payments"] = app
    management.lists["/api/v1/namespaces/argocd/events"] = ("EventList", items(FAILED / "events-argocd.json"))
    management.lists["/api/v1/namespaces/argocd/secrets"] = ("SecretList", secrets)
    destination.lists["/api/v1/namespaces/payments/events"] = ("EventList", items(FAILED / "events-payments.json"))
    destination.token = TOKEN
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "mgmt", "cluster": {"server": management.url}}],
                "users": [{"name": "admin", "user": {"token": "management-token"}}],
                "contexts": [{"name": "mgmt", "context": {"cluster": "mgmt", "user": "admin"}}],
                "current-context": "mgmt",
            }
        )
    )
    yield management, destination, kubeconfig
    for server in (management, destination):
        server.shutdown()
        server.server_close()


def test_live_rebuilds_the_same_story_as_the_files(run, servers) -> None:  # type: ignore[no-untyped-def]
    management, destination, kubeconfig = servers
    result = run(
        "timeline", "payments", "--kubeconfig", kubeconfig, "--since", "3650d", "--include-resources", "-o", "json"
    )
    assert result.code == 0, result.err
    live = json.loads(result.out)
    recorded = json.loads((FAILED / "expected-timeline.json").read_text())
    assert live["entries"] == recorded["entries"]
    assert live["window"]["since"] == "3650d" and live["window"]["start"] is not None
    # the 22 Events of the payments namespace come in pages of 4, followed by their continue tokens
    pages = [r for r in destination.requests if "/namespaces/payments/events" in r]
    assert len(pages) == 6
    assert all("continue=" in r for r in pages[1:])
    assert any("fieldSelector=involvedObject.kind%3DApplication%2CinvolvedObject.name%3Dpayments" in r
               for r in management.requests)  # fmt: skip
    assert TOKEN not in result.out + result.err


def test_live_default_window_is_the_last_two_hours(run, servers) -> None:  # type: ignore[no-untyped-def]
    _, _, kubeconfig = servers
    result = run("timeline", "payments", "--kubeconfig", kubeconfig, "-o", "json")
    doc = json.loads(result.out)
    assert doc["window"]["since"] == "2h"
    assert doc["entries"] == []  # the recorded story is months old


def test_unknown_application_is_one_line_and_exit_1(run, servers) -> None:  # type: ignore[no-untyped-def]
    _, _, kubeconfig = servers
    result = run("timeline", "ghost", "--kubeconfig", kubeconfig)
    assert (result.code, result.out) == (1, "")
    assert result.err == "error: application 'ghost' not found in namespace 'argocd'\n"


def test_unreadable_cluster_secrets_leave_the_cluster_lane_out_with_a_note(run, servers) -> None:  # type: ignore[no-untyped-def]
    management, _, kubeconfig = servers
    management.forbidden.add("/api/v1/namespaces/argocd/secrets")
    result = run("timeline", "payments", "--kubeconfig", kubeconfig, "--since", "3650d", "-o", "json")
    assert result.code == 0, result.err
    assert result.err == "note: cluster Secrets not readable (403): the Cluster lane is left out\n"
    assert "Cluster" not in {e["lane"] for e in json.loads(result.out)["entries"]}


def test_wrong_destination_credentials_fail_cleanly(run, servers) -> None:  # type: ignore[no-untyped-def]
    _, destination, kubeconfig = servers
    destination.token = "another-token"
    result = run("timeline", "payments", "--kubeconfig", kubeconfig, "--include-resources")
    assert (result.code, result.out) == (1, "")
    assert result.err.startswith("error: list Events in namespace payments on http://127.0.0.1:")
    assert result.err.endswith(": HTTP 401: Unauthorized\n")
    assert TOKEN not in result.err


def test_unreachable_cluster_is_one_line_and_exit_1(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    closed = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = closed.server_address[1]
    closed.server_close()  # nothing listens there any more
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "c", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "u", "user": {}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        })
    )  # fmt: skip
    result = run("timeline", "payments", "--kubeconfig", kubeconfig)
    assert (result.code, result.out) == (1, "")
    assert result.err.startswith(f"error: get Application argocd/payments on http://127.0.0.1:{port}: ")
    assert result.err.count("\n") == 1


def test_live_lists_the_namespaces_holding_the_resources_events() -> None:
    checkout = read_files(story_files("checkout")).apps[0]
    assert namespaces(checkout) == ["shop"]
    cluster_scoped = replace(checkout, resources=(*checkout.resources, ObjectRef("ClusterRole", "checkout-reader")))
    assert namespaces(cluster_scoped) == ["default", "shop"]
    nothing_listed = replace(checkout, resources=())
    assert namespaces(nothing_listed) == ["shop"]
