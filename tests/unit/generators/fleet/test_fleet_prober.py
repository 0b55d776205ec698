"""The prober without a network (a client answering from a table): its bounds, its settings and flags, and
answers of any shape a server sends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import FORBIDDEN, NODE_PAGE, ClusterClient, ProberSettings, probe_with
from argocd_lifecycle.generators.settings import parse_size

VERSION = {"major": "1", "minor": "29", "gitVersion": "v1.29.3"}
READY = {"status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.29.3"}}}


class Answers(ClusterClient):
    """A client that answers from a table (path without query -> status and body): no network."""

    def __init__(self, nodes: Any = None, *, version: Any = None, readyz: tuple[int, str] = (200, "ok")) -> None:
        self.current, self.asked = "", 0
        self.pod_token, self.exec = None, None  # static credentials
        self.answers: dict[str, tuple[int, bytes]] = {
            "/version": (200, json.dumps(VERSION if version is None else version).encode()),
            "/readyz": (readyz[0], readyz[1].encode()),
            "/api/v1/nodes": (200, json.dumps({"items": []} if nodes is None else nodes).encode()),
        }

    async def get(self, path: str, limit: int, *, once: bool = False, table: bool = False) -> tuple[int, bytearray]:
        self.current = path.split("?", 1)[0]
        self.asked += 1
        status, body = self.answers[self.current]
        return status, bytearray(body)


def probed(client: Answers, settings: ProberSettings | None = None) -> ProbeResult:
    return asyncio.run(probe_with(client, settings or ProberSettings()))


def table(*rows: tuple[str, str, str]) -> dict[str, Any]:
    """A node list in the server-side Table form (what kubectl get nodes gets), without row objects."""
    columns = [{"name": n, "type": "string"} for n in ("Name", "Status", "Roles", "Age", "Version")]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": columns,
            "rows": [{"cells": [name, status, "<none>", "5d", kubelet]} for name, status, kubelet in rows]}  # fmt: skip


def test_node_facts_come_from_the_table_form() -> None:
    doc = table(("a", "Ready", "v1.29.3"), ("b", "Ready,SchedulingDisabled", "v1.29.3"), ("c", "NotReady", "v1.28.1"))
    result = probed(Answers(doc))
    assert (result.nodes, result.nodes_ready, result.node_minors) == (3, 2, ((1, 28), (1, 29)))


@pytest.mark.parametrize(
    "doc",
    [
        {"kind": "Table", "rows": [{"cells": ["a"]}, {"cells": "x"}, 7]},  # no columns, short or no cells
        {"kind": "Table", "columnDefinitions": "x", "rows": [{"cells": [1, 2, 3, 4, 5]}]},
        {"kind": "Table", "columnDefinitions": [{"name": "Status"}, {"name": "Version"}], "rows": [{"cells": [[], 1]}]},
        {"kind": "Table", "rows": {"a": 1}},
    ],
)
def test_tables_of_any_shape_are_counted_without_raising(doc: dict[str, Any]) -> None:
    result = probed(Answers(doc))
    assert result.reachable and result.nodes_known and result.error == "" and result.nodes_ready == 0


def test_past_the_node_budget_a_table_leaves_the_nodes_unknown() -> None:
    result = probed(Answers(table(*[("n", "Ready", "v1.29.3")] * 4)), ProberSettings(max_nodes=3))
    assert result.reachable and not result.nodes_known and result.nodes_unknown == "/api/v1/nodes: more than 3 nodes"


class Counting(Answers):
    """Answers, counting the requests per path and what each node request asked for."""

    def __init__(self, nodes: Any = None) -> None:
        super().__init__(nodes)
        self.paths: list[str] = []
        self.node_requests: list[tuple[str, bool]] = []

    async def get(self, path: str, limit: int, *, once: bool = False, table: bool = False) -> tuple[int, bytearray]:
        self.paths.append(path.split("?", 1)[0])
        if path.startswith("/api/v1/nodes"):
            self.node_requests.append((path, table))
        return await super().get(path, limit, once=once, table=table)


def test_the_health_probe_is_version_and_readyz_node_facts_on_their_own_slower_cadence() -> None:
    client = Counting(table(("a", "Ready", "v1.29.3")))
    first = probed(client)
    assert client.paths == ["/version", "/readyz", "/api/v1/nodes"]
    # the Table form, from the watch cache, without per-row objects
    assert client.node_requests == [(f"/api/v1/nodes?limit={NODE_PAGE}&includeObject=None&resourceVersion=0", True)]
    for _ in range(3):  # within the node interval: health only, the node facts carried
        later = probed(client)
        assert (later.nodes_known, later.nodes, later.nodes_ready) == (True, 1, 1)
    assert client.paths.count("/api/v1/nodes") == 1 and len(client.paths) == 9
    assert first.node_minors == later.node_minors == ((1, 29),)
    probed(client, ProberSettings(node_interval=0))  # past it: read again
    assert client.paths.count("/api/v1/nodes") == 2


def test_node_facts_are_read_every_probe_while_an_upgrade_rolls_and_when_the_control_plane_changes() -> None:
    client = Counting(table(("a", "Ready", "v1.29.3"), ("b", "Ready", "v1.30.1")))
    for _ in range(3):  # two minors: an upgrade in flight
        probed(client)
    assert client.paths.count("/api/v1/nodes") == 3
    client.answers["/api/v1/nodes"] = (200, json.dumps(table(("a", "Ready", "v1.29.3"))).encode())
    probed(client)
    probed(client)  # one minor, the control plane's: the slow cadence again
    assert client.paths.count("/api/v1/nodes") == 4
    client.answers["/version"] = (200, json.dumps({**VERSION, "gitVersion": "v1.30.1"}).encode())
    probed(client)  # the control plane moved: read at once
    probed(client)  # and while the nodes lag behind it
    assert client.paths.count("/api/v1/nodes") == 6


def test_a_failed_node_list_is_not_kept_and_is_asked_again() -> None:
    client = Counting()
    client.answers["/api/v1/nodes"] = (500, b"etcd")
    assert probed(client).error == "/api/v1/nodes: HTTP 500"
    client.answers["/api/v1/nodes"] = (200, json.dumps(table(("a", "Ready", "v1.29.3"))).encode())
    assert probed(client).nodes == 1 and client.paths.count("/api/v1/nodes") == 2


def test_a_negative_node_interval_is_refused() -> None:
    with pytest.raises(UsageError, match="--probe-node-interval"):
        ProberSettings(node_interval=-1)


def test_a_forbidden_node_list_leaves_the_nodes_unknown_not_unhealthy() -> None:
    """A namespace-scoped cluster's credentials (Argo CD's `namespaces` / `clusterResources: false`) may
    not list nodes: the answer is 403 with a body the prober never reads, and readiness rests on /version
    and /readyz."""
    client = Answers()
    client.answers["/api/v1/nodes"] = (403, b'{"kind": "Status", "message": "' + b"x" * 10_000 + b'"}')
    result = probed(client)
    assert result.reachable and result.readyz_ok and result.error == "" and not result.nodes_known
    assert result.nodes_unknown == FORBIDDEN and result.git_version == "v1.29.3"


@pytest.mark.parametrize(
    ("path", "status"),
    [("/version", 403), ("/version", 401), ("/readyz", 403), ("/readyz", 401), ("/api/v1/nodes", 401)],
)
def test_rejected_credentials_elsewhere_are_unreachable(path: str, status: int) -> None:
    """Only a 403 on the node list is "may not list nodes"; a 401 anywhere, or a 403 on /version or
    /readyz (which every authenticated user may read), is the credentials rejected."""
    client = Answers()
    client.answers[path] = (status, b"")
    result = probed(client)
    assert not result.reachable and result.error == f"{path}: HTTP {status} (credentials rejected)"
    assert result.nodes_unknown == ""


@pytest.mark.parametrize(
    ("doc", "nodes"),
    [
        ({"items": {"a": 1}}, 0),  # a map: the old reader counted its keys as nodes
        ({"items": "abc"}, 0),
        ({"items": [1, "x", None, []]}, 0),  # not objects: not nodes
        ({"items": [{"status": []}, {"status": "x"}]}, 2),
        ({"items": [{"status": {"conditions": "Ready"}}, {"status": {"conditions": [1, None, "x"]}}]}, 2),
        ({"items": [{"status": {"nodeInfo": [1]}}, {"status": {"nodeInfo": {"kubeletVersion": 129}}}]}, 2),
        ({"items": [{"status": {"nodeInfo": {"kubeletVersion": "v1." + "9" * 10_000}}}]}, 1),  # past int()'s digits
        ({"items": [], "metadata": []}, 0),
        ({"items": [], "metadata": {"continue": 7}}, 0),  # the old reader asked for page "7" for ever
    ],
)
def test_node_pages_of_any_shape_are_counted_without_raising(doc: dict[str, Any], nodes: int) -> None:
    """The old reader raised out of the probe (AttributeError, ValueError) or looped on these."""
    result = probed(Answers(doc))
    assert result.reachable and result.nodes_known and result.error == ""
    assert (result.nodes, result.nodes_ready, result.node_minors) == (nodes, 0, ())


def test_a_well_formed_node_list_is_counted() -> None:
    result = probed(Answers({"items": [READY, {"status": {}}]}))
    assert (result.nodes, result.nodes_ready, result.node_minors) == (2, 1, ((1, 29),))


def test_past_the_node_budget_or_with_an_oversized_token_the_nodes_are_unknown_not_unhealthy() -> None:
    result = probed(Answers({"items": [READY] * 4}), ProberSettings(max_nodes=3))
    assert result.reachable and result.error == "" and not result.nodes_known
    assert result.nodes_unknown == "/api/v1/nodes: more than 3 nodes"
    client = Answers({"items": [READY], "metadata": {"continue": "t" * 5000}})
    result = probed(client)
    assert result.error == "" and not result.nodes_known and client.asked == 3  # no URL made of that token
    assert result.nodes_unknown == "/api/v1/nodes: a continue token longer than 4096 characters"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("v1.29.3", True),
        ("v1.29.3-eks-adc7111", True),
        ("v1.30.2+k3s1", True),
        ("v1.28.9-gke.1000000", True),
        ("v1.27.6+f67aeb3", True),
        ("v1.29.3\nX-Injected: 1", False),
        ("v1.29.3 {{.values}}", False),
        ("v1.29.3-" + "a" * 100, False),
        ("latest", False),
        (129, False),
    ],
)
def test_git_version_is_a_kubernetes_version_of_bounded_length(text: object, ok: bool) -> None:
    """It reaches the Secret's annotation, Events and lifecycle events: no control characters, no templates."""
    result = probed(Answers(version={"gitVersion": text}))
    if ok:
        assert result.reachable and result.git_version == text
    else:
        assert not result.reachable and result.error == "/version: gitVersion is not a Kubernetes version"


def test_readyz_text_becomes_one_printable_line() -> None:
    result = probed(Answers(readyz=(500, "[-]etcd failed\n\x1b[31mred\r\nX: y\x00")))
    assert result.error == "/readyz: HTTP 500: [-]etcd failed  [31mred  X: y"


def test_the_page_budget_is_twice_what_the_node_budget_needs() -> None:
    assert NODE_PAGE == 50
    assert ProberSettings().max_pages == 200
    assert ProberSettings(max_nodes=1).max_pages == 2


def test_a_deadline_shorter_than_the_request_timeout_is_refused() -> None:
    with pytest.raises(UsageError, match=r"--probe-deadline \(2s\) must be at least --probe-timeout \(5s\)"):
        ProberSettings(timeout=5, deadline=2)


@pytest.mark.parametrize(("text", "value"), [("2Mi", 2 << 20), ("512Ki", 512 << 10), ("1048576", 1 << 20)])
def test_parse_size(text: str, value: int) -> None:
    assert parse_size(text, where="--probe-page-bytes", low=64 << 10, high=256 << 20) == value


@pytest.mark.parametrize(
    ("text", "message"), [("2MB", "is not a size"), ("Mi", "is not a size"), ("1Ki", "must be between")]
)
def test_parse_size_rejects(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=f"--probe-page-bytes: '{text}' {message}"):
        parse_size(text, where="--probe-page-bytes", low=64 << 10, high=256 << 20)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--probe-deadline", "1s"], "error: --probe-deadline (1s) must be at least --probe-timeout (5s)"),
        (["--probe-page-bytes", "10Gi"], "error: --probe-page-bytes: '10Gi' must be between 64Ki and 256Mi"),
        (["--probe-max-nodes", "0"], "'--probe-max-nodes': 0 is not in the range"),
    ],
)
def test_serve_refuses_probe_bounds_that_cannot_work(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["generator", "serve", "--clusters-from", ".", "--insecure-no-auth", *flags])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
