"""Parsing Argo CD cluster Secrets (argocd-contracts §D1/D2) and the inventory built from them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from argocd_lifecycle.cluster_secrets import InvalidClusterSecret, parse_secret
from argocd_lifecycle.generators.fleet.file_source import FileSource
from argocd_lifecycle.generators.fleet.inventory import ChangeKind, Inventory
from tests.integration.generators.loopback import CertAuthority


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def secret(name: str = "c1", *, data: dict | None = None, string_data: dict | None = None, **meta) -> dict:
    obj = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"cluster-{name}",
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": "prod"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "a"},
            **meta,
        },
    }
    if data is not None:
        obj["data"] = data
    if string_data is not None:
        obj["stringData"] = string_data
    return obj


CA = CertAuthority("unit-ca", days=30)


def test_parse_data_form_like_argo_cd() -> None:
    cfg = {
        "bearerToken": "tok",
        "tlsClientConfig": {"insecure": False, "serverName": "api.internal", "caData": b64(CA.pem)},
        "proxyUrl": "http://proxy:3128",
    }
    parsed = parse_secret(
        secret(
            data={
                "name": b64("prod-1"),
                "server": b64("https://prod-1.example:6443/"),
                "config": b64(json.dumps(cfg)),
                "namespaces": b64(" a, b ,,c"),
                "clusterResources": b64("true"),
                "project": b64("team-a"),
            }
        )
    )
    assert (parsed.name, parsed.server, parsed.project) == ("prod-1", "https://prod-1.example:6443", "team-a")
    assert parsed.namespaces == ("a", "b", "c") and parsed.cluster_resources
    # kept as on the Secret, as Argo CD's Cluster generator passes them to templates
    assert parsed.labels == {"env": "prod", "argocd.argoproj.io/secret-type": "cluster"}
    assert parsed.annotations["team"] == "a"
    assert "kubectl.kubernetes.io/last-applied-configuration" in parsed.annotations
    creds = parsed.credentials
    assert creds.bearer_token == "tok" and creds.server_name == "api.internal" and creds.ca_pem == CA.pem
    assert creds.proxy_url == "http://proxy:3128" and not creds.unsupported
    assert parsed.certificate_expires_at == CA.cert.not_valid_after_utc


def test_string_data_wins_and_secrets_stay_out_of_reprs() -> None:
    parsed = parse_secret(
        secret(
            data={"name": b64("old"), "server": b64("https://x")},
            string_data={"name": "new", "config": json.dumps({"bearerToken": "s3cr3t", "password": "pw"})},
        )
    )
    assert parsed.name == "new" and parsed.server == "https://x"
    assert "s3cr3t" not in repr(parsed) and "pw" not in repr(parsed.credentials)


def test_fingerprint_changes_exactly_with_the_config() -> None:
    a = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{"bearerToken": "1"}'}))
    b = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{ "bearerToken" : "1" }'}))
    c = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{"bearerToken": "2"}'}))
    assert a.credentials.fingerprint == b.credentials.fingerprint != c.credentials.fingerprint


@pytest.mark.parametrize(
    ("string_data", "message"),
    [
        ({"server": "https://x"}, "data.name is missing"),
        ({"name": "x"}, "data.server is missing"),
        ({"name": "x", "server": "ftp://x"}, "is not an http(s) URL"),
        ({"name": "x", "server": "https://x", "config": "{oops"}, "config is not JSON"),
        ({"name": "x", "server": "https://x", "config": "[]"}, "config must be a JSON object"),
        ({"name": "x", "server": "https://x", "config": '{"tlsClientConfig": {"insecure": "yes"}}'}, "insecure"),
        (
            {"name": "x", "server": "https://x", "config": '{"tlsClientConfig": {"caData": "%%%"}}'},
            "caData is not base64",
        ),
        (
            {"name": "x", "server": "https://x", "config": json.dumps({"tlsClientConfig": {"caData": b64("nope")}})},
            "caData: not a PEM certificate",
        ),
        ({"name": "x", "server": "https://x", "config": '{"bearerToken": 5}'}, "config.bearerToken must be a string"),
    ],
)
def test_bad_secrets_name_the_secret_and_field(string_data: dict, message: str) -> None:
    with pytest.raises(InvalidClusterSecret) as exc:
        parse_secret(secret(string_data=string_data))
    assert message in exc.value.message and "argocd/cluster-c1" in exc.value.message


def test_bad_base64_in_data() -> None:
    with pytest.raises(InvalidClusterSecret, match=r"data\.name is not base64"):
        parse_secret(secret(data={"name": "***", "server": b64("https://x")}))


def test_inventory_keeps_last_good_version_of_a_secret_that_turns_bad() -> None:
    inv = Inventory("argocd")
    seen: list[tuple[ChangeKind, str]] = []
    inv.subscribe(lambda ch: seen.append((ch.kind, ch.secret_name)))
    good = secret(string_data={"name": "a", "server": "https://a"}, resourceVersion="1")
    bad = secret(string_data={"name": "a"}, resourceVersion="2")
    other = secret("c2", string_data={"name": "b", "server": "https://b"}, resourceVersion="3")
    inv.replace_all([(good, ""), (other, "")])
    inv.apply(bad)
    assert inv.secrets["cluster-c1"].server == "https://a" and "data.server is missing" in inv.invalid["cluster-c1"]
    inv.apply(bad)  # same resourceVersion: nothing new to report
    assert seen == [
        (ChangeKind.UPSERT, "cluster-c1"),
        (ChangeKind.UPSERT, "cluster-c2"),
        (ChangeKind.INVALID, "cluster-c1"),
    ]
    unlabelled = secret(string_data={"name": "a", "server": "https://a"}, resourceVersion="4")
    unlabelled["metadata"]["labels"] = {}
    inv.apply(unlabelled)  # the label was removed: no longer a cluster
    assert "cluster-c1" not in inv.secrets and seen[-1] == (ChangeKind.DELETE, "cluster-c1")
    inv.replace_all([])
    assert inv.secrets == {} and inv.synced()


def test_inventory_sync_state() -> None:
    inv = Inventory()
    assert not inv.synced() and inv.stale_seconds() == 0
    inv.mark_broken()
    assert inv.stale_seconds() > 0
    inv.replace_all([])
    assert inv.synced() and inv.stale_seconds() == 0


def test_file_source_reads_lists_and_multi_documents_and_survives_a_broken_file(tmp_path: Path) -> None:
    import yaml

    one = secret(string_data={"name": "a", "server": "https://a"})
    two = secret("c2", string_data={"name": "b", "server": "https://b"})
    three = secret("c3", string_data={"name": "c", "server": "https://c"})
    (tmp_path / "multi.yaml").write_text(yaml.safe_dump_all([one, {"kind": "ConfigMap", "metadata": {"name": "x"}}]))
    (tmp_path / "list.json").write_text(json.dumps({"kind": "List", "items": [two]}))
    (tmp_path / "notes.txt").write_text("ignored")
    inv = Inventory("argocd")
    source = FileSource(tmp_path, inv)
    assert source.scan()
    assert sorted(s.name for s in inv.secrets.values()) == ["a", "b"]
    assert not source.scan()  # nothing changed

    edited = FileSource(tmp_path, inv, full_every=0)  # every poll a full scan: in-place edits too
    edited.scan()
    (tmp_path / "multi.yaml").write_text(yaml.safe_dump(secret(string_data={"name": "a2", "server": "https://a"})))
    assert edited.scan() and "a2" in {s.name for s in inv.secrets.values()}
    (tmp_path / "multi.yaml").write_text(yaml.safe_dump(one))
    assert edited.scan()

    (tmp_path / "list.json").write_text("{broken")
    (tmp_path / "more.yaml").write_text(yaml.safe_dump(three))
    assert source.scan()
    assert sorted(s.name for s in inv.secrets.values()) == ["a", "b", "c"]  # b kept from the last good read
    assert "list.json" in str(next(iter(source.problems)))

    (tmp_path / "list.json").unlink()
    assert source.scan()
    assert sorted(s.name for s in inv.secrets.values()) == ["a", "c"]


def test_file_source_names_a_missing_path(tmp_path: Path) -> None:
    from argocd_lifecycle.errors import UsageError

    with pytest.raises(UsageError, match="does not exist"):
        FileSource(tmp_path / "nope", Inventory())
