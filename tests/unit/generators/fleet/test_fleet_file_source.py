"""Cluster Secrets from files (``--clusters-from``): lists, multi-document YAML, edits, broken files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from argocd_lifecycle.generators.fleet import file_source
from argocd_lifecycle.generators.fleet.file_source import FileSource
from argocd_lifecycle.generators.fleet.inventory import Inventory
from tests.unit.core.cluster_secret_manifests import secret


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


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"kind": "List", "items": 5}', None),  # TypeError: 'int' object is not iterable, on 6729d94
        (
            "kind: Secret\nmetadata: {name: x, labels: {argocd.argoproj.io/secret-type: cluster}}\n"
            "data: {name: \u00e9, server: aHR0cHM6Ly94}\n",
            None,
        ),
        ("\u00e9: [unclosed", "YAML syntax error"),
        (b"\xff\xfe not text", "not UTF-8 text"),
    ],
    ids=["items-not-a-list", "non-ascii-base64", "yaml-error", "not-utf8"],
)
def test_no_file_stops_the_others_or_the_polling(tmp_path: Path, text: str | bytes, problem: str | None) -> None:
    good = secret("c2", string_data={"name": "b", "server": "https://b"})
    (tmp_path / "good.json").write_text(json.dumps(good))
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    inv = Inventory("argocd")
    source = FileSource(tmp_path, inv)
    assert source.scan() and inv.synced()
    assert [s.name for s in inv.secrets.values()] == ["b"]
    if problem is not None:
        assert problem in source.problems[bad] and str(bad) in source.problems[bad]


def test_a_file_past_the_size_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_source, "_LIMITS", replace(file_source._LIMITS, max_file_bytes=1024))
    (tmp_path / "big.yaml").write_text("# " + "x" * 2048 + "\n")
    inv = Inventory("argocd")
    source = FileSource(tmp_path, inv)
    assert source.scan() and inv.synced()
    assert "over the 1 KiB limit" in source.problems[tmp_path / "big.yaml"]
