"""Servers are identities: every spelling of the management cluster, refused addresses and the operator's lists."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.capi.servers import (
    Holders,
    InvalidServer,
    ServerPolicy,
    ServerRule,
    parse_server,
    server_key,
)
from argocd_lifecycle.model import IN_CLUSTER_SERVER


def rules(*texts: str) -> tuple[ServerRule, ...]:
    return tuple(ServerRule.parse(t, where="--test") for t in texts)


def refusal(url: str, policy: ServerPolicy | None = None) -> str | None:
    return (policy or ServerPolicy()).refusal(parse_server(url))


def test_spellings_of_one_server_share_one_key() -> None:
    spellings = [
        "https://api.example:443",
        "https://API.Example",
        "HTTPS://api.example.",
        "https://api.example/",
        "https://api.example:443//",
    ]
    assert {parse_server(s).key for s in spellings} == {"https://api.example:443"}
    assert parse_server("http://api.example").key == "http://api.example:80"
    assert parse_server("https://[::ffff:10.0.0.1]:6443").key == parse_server("https://10.0.0.1:6443").key
    assert parse_server("https://[0:0:0:0:0:0:0:1]").key == "https://[::1]:443"
    # a path is part of the server: one host may proxy many clusters
    assert (
        parse_server("https://rancher.example/k8s/clusters/c-1").key
        != parse_server("https://rancher.example/k8s/clusters/c-2").key
    )


@pytest.mark.parametrize(
    "url",
    [
        IN_CLUSTER_SERVER,
        "https://kubernetes.default.svc:443",
        "https://kubernetes.default.svc/",
        "https://KUBERNETES.DEFAULT.SVC",
        "https://kubernetes.default.svc.",
        "https://kubernetes.default.svc.cluster.local",
        "https://kubernetes.default.svc.cluster.local.:6443",
        "https://kubernetes.default",
        "https://kubernetes",
        "http://kubernetes.default.svc:80",
    ],
)
def test_every_in_cluster_spelling_is_refused_whatever_the_lists_say(url: str) -> None:
    anything = ServerPolicy(allow=rules("0.0.0.0/0", "::/0", "kubernetes.default.svc", "*.svc"))
    for policy in (ServerPolicy(), anything):
        assert refusal(url, policy) == (
            "the server is the management cluster's in-cluster API server (Argo CD would use its own account)"
        )


def test_the_management_api_server_by_its_addresses() -> None:
    policy = ServerPolicy(allow=rules("10.0.0.0/8")).with_management(
        ["https://10.96.0.1:443", "https://[fd00::1]:6443", "https://api.mgmt.example:6443/", "not a url"]
    )
    for url in (
        "https://10.96.0.1",
        "https://10.96.0.1:443/x",
        "https://[fd00::1]:6443",
        "https://API.mgmt.example:6443",
    ):
        assert refusal(url, policy) == "the server is the management cluster's API server", url
    assert refusal("https://10.96.0.1:6443", policy) is None  # another port is another server
    assert refusal("https://[::ffff:10.96.0.1]", policy) == "the server is the management cluster's API server"


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:6443",
        "https://127.8.9.10",
        "https://[::1]:6443",
        "https://[::ffff:127.0.0.1]",
        "https://localhost:6443",
        "https://api.localhost",
        "https://localhost.localdomain",
        "https://ip6-localhost",
        "https://169.254.169.254",
        "https://[fe80::1]",
        "https://0.0.0.0:6443",
        "https://[::]",
    ],
)
def test_loopback_link_local_and_unspecified_need_an_entry_inside_those_ranges(url: str) -> None:
    refused = (
        "the server is a loopback, link-local or unspecified address (refused unless --capi-allow-server names it)"
    )
    assert refusal(url) == refused
    assert refusal(url, ServerPolicy(allow=rules("0.0.0.0/0", "::/0", "*.localdomain"))) == refused
    inside = ServerPolicy(
        allow=rules(
            "127.0.0.0/8",
            "::1",
            "localhost",
            "*.localhost",
            "localhost.localdomain",
            "ip6-localhost",
            "169.254.0.0/16",
            "fe80::/10",
            "0.0.0.0",
            "::",
        )
    )
    assert refusal(url, inside) is None


def test_the_deny_list_wins_and_an_allow_list_admits_only_what_it_names() -> None:
    policy = ServerPolicy(
        allow=rules("10.0.0.0/8", "*.clusters.example", "edge.example"),
        deny=rules("10.1.0.0/16", "bad.clusters.example"),
    )
    assert refusal("https://10.2.3.4:6443", policy) is None
    assert refusal("https://eu.clusters.example", policy) is None
    assert refusal("https://edge.example", policy) is None
    assert refusal("https://10.1.2.3", policy) == "the server is refused by --capi-deny-server 10.1.0.0/16"
    assert refusal("https://bad.clusters.example", policy) == (
        "the server is refused by --capi-deny-server bad.clusters.example"
    )
    for outside in ("https://192.168.1.1", "https://clusters.example", "https://sub.edge.example", "https://[fd00::1]"):
        assert refusal(outside, policy) == "the server is not admitted by any --capi-allow-server entry", outside
    assert refusal("https://192.168.1.1", ServerPolicy(deny=rules("*.example"))) is None  # no allow list: open
    assert refusal("https://x.example", ServerPolicy(deny=rules("*.example"))) == (
        "the server is refused by --capi-deny-server *.example"
    )


@pytest.mark.parametrize(
    "text", ["https://api.example", "10.0.0.0/33", "127.1", "2130706433", "*.", "a..b", "under_score", "", "x/y"]
)
def test_a_list_entry_is_a_cidr_an_address_a_name_or_a_domain(text: str) -> None:
    with pytest.raises(InvalidServer, match=r"--test: .* is not a CIDR, an IP address, a host name or '\*\.domain'"):
        ServerRule.parse(text, where="--test")


def test_the_index_tells_who_shares_a_server() -> None:
    index = Holders()
    key = server_key("https://api.example")
    assert index.put("cluster-a", key) == set()
    assert index.put("capi.t.x", server_key("https://API.example:443/")) == {"cluster-a"}
    assert index.others(key, "capi.t.x") == ["cluster-a"]
    assert index.others(key, "cluster-a") == ["capi.t.x"]
    # cluster-a moves away: who shared its old server is told
    assert index.put("cluster-a", server_key("https://other.example")) == {"capi.t.x"}
    assert index.others(key, "capi.t.x") == []
    assert index.put("cluster-a", None) == set()
    assert index.key_of("cluster-a") is None
    # a hand-written server we could not parse still holds its exact string
    assert server_key("https://under_score.example") == "https://under_score.example"
