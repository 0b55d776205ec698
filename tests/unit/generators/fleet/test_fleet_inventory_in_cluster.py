"""Argo CD's implicit in-cluster entry in the inventory: listed while no Secret names its server, after
the first listing, replaced by a Secret for it (dropped before that Secret is announced), back when the
Secret goes; argocd-cm's ``cluster.inClusterEnabled`` read as Argo CD reads it."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.cluster_secrets import IMPLICIT_IN_CLUSTER
from argocd_lifecycle.generators.fleet import in_cluster
from argocd_lifecycle.generators.fleet.in_cluster import InCluster, InClusterError, in_cluster_enabled
from argocd_lifecycle.generators.fleet.inventory import ChangeKind, Inventory
from argocd_lifecycle.kube.client import KubeError
from argocd_lifecycle.model import IN_CLUSTER_NAME, IN_CLUSTER_SERVER
from tests.unit.core.cluster_secret_manifests import secret


def _watched(inv: Inventory) -> list[tuple[ChangeKind, str]]:
    seen: list[tuple[ChangeKind, str]] = []
    inv.subscribe(lambda ch: seen.append((ch.kind, ch.secret_name)))
    return seen


def test_listed_after_the_first_listing_while_no_secret_names_it() -> None:
    inv = Inventory("argocd", in_cluster=True)
    seen = _watched(inv)
    other = secret("a", string_data={"name": "a", "server": "https://a"}, resourceVersion="1")
    inv.apply(other)  # a watch event before the listing: the listing decides
    assert IMPLICIT_IN_CLUSTER not in inv.secrets
    inv.replace_all([(other, "")])
    entry = inv.secrets[IMPLICIT_IN_CLUSTER]
    assert (entry.name, entry.server, entry.namespace, entry.labels, entry.implicit) == (
        IN_CLUSTER_NAME, IN_CLUSTER_SERVER, "argocd", {}, True)  # fmt: skip
    assert not entry.credentials.bearer_token and not entry.credentials.exec_plugin  # the pod's account
    assert seen == [(ChangeKind.UPSERT, "cluster-a"), (ChangeKind.UPSERT, IMPLICIT_IN_CLUSTER)]
    inv.replace_all([(other, "")])  # a relist keeps it, with no change announced
    assert IMPLICIT_IN_CLUSTER in inv.secrets and len(seen) == 2


def test_a_secret_for_the_in_cluster_server_takes_its_place_and_gives_it_back() -> None:
    inv = Inventory("argocd", in_cluster=True)
    seen = _watched(inv)
    inv.replace_all([])
    local = secret("local", string_data={"name": "management", "server": IN_CLUSTER_SERVER}, resourceVersion="1")
    inv.apply(local)
    assert IMPLICIT_IN_CLUSTER not in inv.secrets and inv.secrets["cluster-local"].name == "management"
    # the implicit entry leaves before the Secret arrives: its departure is recorded before the Secret's
    # cluster is looked at, so the Secret's cluster is known (admitted) at once
    assert seen == [
        (ChangeKind.UPSERT, IMPLICIT_IN_CLUSTER),
        (ChangeKind.DELETE, IMPLICIT_IN_CLUSTER),
        (ChangeKind.UPSERT, "cluster-local"),
    ]
    inv.replace_all([(local, "")])  # listed with the Secret: still no implicit entry
    assert IMPLICIT_IN_CLUSTER not in inv.secrets
    inv.delete("cluster-local")
    assert seen[-2:] == [(ChangeKind.DELETE, "cluster-local"), (ChangeKind.UPSERT, IMPLICIT_IN_CLUSTER)]
    moved = secret("local", string_data={"name": "management", "server": "https://elsewhere"}, resourceVersion="2")
    inv.apply(local)
    inv.apply(moved)  # the Secret now names another server: the in-cluster entry is implicit again
    assert IMPLICIT_IN_CLUSTER in inv.secrets


def test_off_unless_asked_and_never_a_secret_name() -> None:
    inv = Inventory("argocd")
    inv.replace_all([])
    assert inv.secrets == {}
    inv = Inventory("argocd", in_cluster=True)
    inv.replace_all([])
    spoof = secret("x", string_data={"name": "evil", "server": "https://evil"}, resourceVersion="1")
    spoof["metadata"]["name"] = IMPLICIT_IN_CLUSTER  # only a file source could spell it
    inv.apply(spoof)
    assert inv.secrets[IMPLICIT_IN_CLUSTER].implicit and inv.secrets[IMPLICIT_IN_CLUSTER].server == IN_CLUSTER_SERVER
    inv.replace_all([(spoof, "")])
    assert list(inv.secrets) == [IMPLICIT_IN_CLUSTER] and inv.secrets[IMPLICIT_IN_CLUSTER].implicit


class _Core:
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def read_namespaced_config_map(self, name: str, namespace: str) -> Any:
        raise AssertionError("called through Kube.call")


class _Kube:
    """Kube.call's contract: the raw JSON body, or KubeError with the HTTP status."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.core = _Core(answer)
        self.asked: list[tuple[str, str]] = []

    def call(self, what: str, fn: Any, *args: Any) -> Any:
        self.asked.append((what, fn.__name__))
        assert args == (in_cluster.ARGOCD_CM, "argocd")
        if isinstance(self.answer, KubeError):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "enabled"),
    [
        ({"data": {}}, True),
        ({}, True),
        ({"data": None}, True),
        ({"data": {"cluster.inClusterEnabled": "true"}}, True),
        ({"data": {"cluster.inClusterEnabled": "false"}}, False),
        ({"data": {"cluster.inClusterEnabled": "False"}}, True),  # Argo CD compares with "false" exactly
        ({"data": {"cluster.inClusterEnabled": ""}}, True),
        (KubeError("read ConfigMap argocd/argocd-cm: HTTP 404 Not Found", status=404), True),  # Argo CD's default
    ],
)
def test_argocd_cm_read_as_argo_cd_reads_it(answer: Any, enabled: bool) -> None:
    kube = _Kube(answer)
    assert in_cluster_enabled(kube, "argocd") is enabled  # type: ignore[arg-type]
    assert kube.asked == [("read ConfigMap argocd/argocd-cm", "read_namespaced_config_map")]


def test_argocd_cm_that_cannot_be_read_stops_the_start() -> None:
    kube = _Kube(KubeError("read ConfigMap argocd/argocd-cm: HTTP 403 Forbidden", status=403))
    with pytest.raises(InClusterError) as caught:
        in_cluster_enabled(kube, "argocd")  # type: ignore[arg-type]
    assert caught.value.message == (
        "--in-cluster: read ConfigMap argocd/argocd-cm: HTTP 403 Forbidden (the chart's generator Role grants "
        "get on ConfigMap argocd-cm; or run with --no-in-cluster)"
    )


def test_the_start_up_check_names_what_is_missing(tmp_path: Any) -> None:
    with pytest.raises(InClusterError, match="KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set"):
        InCluster(folder=str(tmp_path)).check()
    where = InCluster("10.96.0.1", "443", str(tmp_path))
    with pytest.raises(InClusterError, match=r"cannot read the ServiceAccount's ca.crt \(No such file"):
        where.check()
    (tmp_path / "ca.crt").write_bytes(b"")
    (tmp_path / "token").write_text("\n")
    with pytest.raises(InClusterError, match="token is empty or not a header value"):
        where.check()
    (tmp_path / "token").write_text("eyJ.token.sig\n")
    where.check()
