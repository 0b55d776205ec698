"""Token and HMAC Secrets are generated once and kept across upgrades (`lookup` of the live Secret).

`helm template` has no cluster, so `lookup` finds nothing there: the tests render the fresh branch
as is, and the upgrade branch from a copy of the chart whose `lookup` answers with a live Secret.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from tests.integration.chart.chartkit import CHART, one, render

pytestmark = pytest.mark.upstream

LOOKUP = 'lookup "v1" "Secret" (include "argocd-lifecycle.namespace" .context) .secret'
RECEIVER = ("ha-redis-values.yaml",)


def helpers() -> str:
    return (CHART / "templates" / "_helpers.tpl").read_text(encoding="utf-8")


def test_the_helper_looks_up_the_live_secret_by_namespace_and_name() -> None:
    assert helpers().count(LOOKUP) == 1
    users = [p for p in (CHART / "templates").rglob("*.yaml") if "argocd-lifecycle.persistentValue" in p.read_text()]
    assert sorted(p.name for p in users) == ["secret.yaml", "secret.yaml"]


def test_first_install_generates_random_values() -> None:
    tokens = []
    for _ in range(2):
        # a fresh render each time (the cache keys on arguments): vary a harmless label
        docs = render(values=RECEIVER, sets=(f"global.additionalLabels.run=r{len(tokens)}",))
        token = base64.b64decode(one(docs, "Secret", "argocd-lifecycle-generator-token")["data"]["token"])
        inbound = one(docs, "Secret", "argocd-lifecycle-receiver-inbound")["data"]
        assert len(token) == 48 and token.isalnum()
        assert len(base64.b64decode(inbound["token"])) == 48
        assert len(base64.b64decode(inbound["hmac"])) == 64
        tokens.append(token)
    assert tokens[0] != tokens[1]


def live_chart(tmp_path: Path, live: dict[str, str]) -> Path:
    """A copy of the chart whose `lookup` answers with a Secret holding `live` (base64 values)."""
    copy = tmp_path / "argocd-lifecycle"
    shutil.copytree(CHART, copy)
    pairs = " ".join(f'"{k}" "{v}"' for k, v in live.items())
    helpers_file = copy / "templates" / "_helpers.tpl"
    helpers_file.write_text(helpers().replace(LOOKUP, f'dict "data" (dict {pairs})'), encoding="utf-8")
    return copy


def test_upgrade_keeps_the_live_values(tmp_path: Path) -> None:
    live = {k: base64.b64encode(f"live-{k}".encode()).decode() for k in ("token", "hmac")}
    docs = render(values=RECEIVER, chart=live_chart(tmp_path, live))
    assert one(docs, "Secret", "argocd-lifecycle-generator-token")["data"] == {"token": live["token"]}
    assert one(docs, "Secret", "argocd-lifecycle-receiver-inbound")["data"] == live


def test_a_missing_key_in_the_live_secret_is_generated(tmp_path: Path) -> None:
    live = {"token": base64.b64encode(b"kept").decode()}
    docs = render(values=RECEIVER, chart=live_chart(tmp_path, live))
    inbound = one(docs, "Secret", "argocd-lifecycle-receiver-inbound")["data"]
    assert inbound["token"] == live["token"]
    assert len(base64.b64decode(inbound["hmac"])) == 64
