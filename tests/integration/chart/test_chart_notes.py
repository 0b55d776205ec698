"""NOTES.txt (rendered through a probe template: `helm template` skips NOTES) and the sidecar snippet
it shows, checked against the objects the chart renders and Argo CD's CMP contract."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.chart.chartkit import CHART, REPO, one, render

pytestmark = pytest.mark.upstream

PROBE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: notes-probe
data:
  notes: |
    {{- include "probe.notes" . | nindent 4 }}
"""


def notes(tmp_path: Path, **kwargs: object) -> str:
    copy = tmp_path / "argocd-lifecycle"
    shutil.copytree(CHART, copy)
    text = (copy / "templates" / "NOTES.txt").read_text(encoding="utf-8")
    (copy / "templates" / "NOTES.txt").unlink()
    (copy / "templates" / "_probe.tpl").write_text('{{- define "probe.notes" -}}\n' + text + "{{- end -}}\n")
    (copy / "templates" / "probe.yaml").write_text(PROBE)
    docs = render(chart=copy, **kwargs)  # type: ignore[arg-type]
    return str(one(docs, "ConfigMap", "notes-probe")["data"]["notes"])


def snippet_from(text: str) -> dict[str, object]:
    """The indented YAML block of the repo-server values in the notes."""
    lines = text.splitlines()
    start = lines.index("    repoServer:")
    block = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return yaml.safe_load("\n".join(block))  # type: ignore[no-any-return]


def test_notes_show_the_generated_snippet_for_this_release(tmp_path: Path) -> None:
    from argocd_lifecycle.plugin.commands.sidecar_snippet import SidecarOptions, sidecar_values

    text = notes(tmp_path, release="lc", sets=("global.image.repository=registry.example/team/lc",))
    expected = sidecar_values(
        SidecarOptions(image="registry.example/team/lc:0.1.0", configmap="lc-argocd-lifecycle-plugin")
    )
    assert snippet_from(text) == expected
    docs = render(release="lc")
    plugin = one(docs, "ConfigMap", "lc-argocd-lifecycle-plugin")
    # the snippet's subPath is a key of the chart's ConfigMap, holding our ConfigManagementPlugin
    (container,) = expected["repoServer"]["extraContainers"]  # type: ignore[index]
    mount = next(m for m in container["volumeMounts"] if m.get("subPath"))
    config = yaml.safe_load(plugin["data"][mount["subPath"]])
    assert config["kind"] == "ConfigManagementPlugin"
    assert (config["metadata"]["name"], config["spec"]["version"]) == ("argocd-lifecycle", "v1")


def test_notes_follow_the_enabled_parts(tmp_path: Path) -> None:
    default = notes(tmp_path / "a")
    assert "configMapRef:\n             name: argocd-lifecycle-generator\n" in default
    assert "notifications.apply.enabled=true" in default
    assert "Receiver" not in default
    everything = notes(tmp_path / "b", values=("all-enabled-values.yaml",))
    assert "A post-install/upgrade Job server-side-applies them into argocd-notifications-cm" in everything
    assert "kubectl -n argocd get secret argocd-lifecycle-receiver-inbound" in everything
    assert "argocd-lifecycle-token" in everything
    other_ns = notes(tmp_path / "c", namespace="gitops")
    assert "This must be the namespace where Argo CD runs" in other_ns


def applicationset_from(text: str) -> dict[str, Any]:
    """The ApplicationSet the notes print (indented by five spaces)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("     # The recommended ApplicationSet"))
    block = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("     "):
            break
        block.append(line[5:])
    return yaml.safe_load("\n".join(block))  # type: ignore[no-any-return]


def test_notes_show_the_example_applicationset_for_this_release(tmp_path: Path) -> None:
    # one ApplicationSet in the docs, the example and the notes: with the phase policy and the subscriptions
    example = yaml.safe_load((REPO / "examples" / "applicationset.yaml").read_text())
    shown = applicationset_from(notes(tmp_path, release="lc", namespace="gitops"))
    expected = copy.deepcopy(example)
    expected["metadata"]["namespace"] = "gitops"
    expected["spec"]["generators"][0]["plugin"]["configMapRef"]["name"] = "lc-argocd-lifecycle-generator"
    assert shown == expected
    assert "templatePatch" in shown["spec"]
    annotations = shown["spec"]["template"]["metadata"]["annotations"]
    assert any(key.startswith("notifications.argoproj.io/subscribe.") for key in annotations)
    # the ConfigMap the notes name is the one the chart renders
    assert one(render(release="lc", namespace="gitops"), "ConfigMap", "lc-argocd-lifecycle-generator")
