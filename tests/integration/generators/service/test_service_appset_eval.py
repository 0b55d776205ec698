"""Argo CD's own plugin generator and template rendering (appset-eval, built against the Go packages of
each Argo CD release tools/build.sh builds) against the live service: the Applications an ApplicationSet
controller of that release would create."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, Phase
from tests.argocd_versions import ArgocdRelease
from tests.conftest import REPO, require_tool

from .conftest import ROLLED_FROM, ROLLOUT_APPSET, TOKEN, LiveService

EXAMPLE = REPO / "examples" / "applicationset.yaml"
ROLLOUT_EXAMPLE = REPO / "examples" / "applicationset-rollout.yaml"
#: the catalog's triggers: the example subscribes every one
CATALOG_TRIGGERS = REPO / "notifications" / "catalog" / "triggers"
DATA = Path(__file__).parent / "data"
CONFIGMAP = "argocd-lifecycle-generator"


def _objects(
    service: LiveService, tmp_path: Path, *, token: str = TOKEN, extra: list[dict[str, Any]] | None = None
) -> Path:
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": CONFIGMAP},
            "data": {"baseUrl": service.url, "token": f"${CONFIGMAP}:token", "requestTimeout": "20"},
        },
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": CONFIGMAP}, "stringData": {"token": token}},
        *(extra or []),
    ]
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


def _eval(release: ArgocdRelease, appset: Path, objects: Path) -> subprocess.CompletedProcess[str]:
    binary = require_tool(release.tool("appset-eval"))
    return subprocess.run(
        [str(binary), "-appset", str(appset), "-objects", str(objects)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _applications(release: ArgocdRelease, appset: Path, objects: Path) -> dict[str, dict[str, Any]]:
    result = _eval(release, appset, objects)
    assert result.returncode == 0, result.stderr
    return {app["metadata"]["name"]: app for app in json.loads(result.stdout)["applications"]}


def _env(app: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in app["spec"]["source"]["plugin"]["env"]}


def _automated(app: dict[str, Any]) -> tuple[bool, bool, bool]:
    auto = app["spec"]["syncPolicy"]["automated"]
    return (auto.get("enabled", True), auto.get("prune", False), auto.get("selfHeal", False))


def test_example_applicationset_in_go_template_mode(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease
) -> None:
    apps = _applications(argocd_release, EXAMPLE, _objects(live_service, tmp_path))
    # new-1 has not passed the readiness gate; every other prod/staging cluster stays, whatever its phase
    assert sorted(apps) == [
        "guestbook-edge-7",
        "guestbook-old-1",
        "guestbook-prod-eu-1",
        "guestbook-prod-us-1",
        "guestbook-staging-1",
    ]
    staging = apps["guestbook-staging-1"]
    assert staging["metadata"]["namespace"] == "argocd"
    annotations = staging["metadata"]["annotations"]
    # the example's subscriptions (one per catalog trigger) pass through the controller as written
    subscriptions = {k for k in annotations if k.startswith("notifications.argoproj.io/subscribe.")}
    triggers = {path.name.removesuffix(".yaml.j2") for path in CATALOG_TRIGGERS.glob("*.yaml.j2")}
    assert subscriptions == {f"notifications.argoproj.io/subscribe.{t}.argocd-lifecycle" for t in triggers}
    assert all(annotations[k] == "" for k in subscriptions)
    assert {k: v for k, v in annotations.items() if k not in subscriptions} == {
        "argocd-lifecycle.io/cluster-phase": "Upgrading",
        "argocd-lifecycle.io/cluster-phase-since": "2025-03-01T08:30:00Z",
        # the upgrade gate has not decided for staging-1 (no upgrade-blockers annotation on its Secret)
        "argocd-lifecycle.io/cluster-upgrade-blockers": "",
        "argocd-lifecycle.io/cluster-upgrade-blocked": "",
        "argocd-lifecycle.io/cluster-upgrade-blocked-since": "",
    }
    assert _env(staging) == {"CLUSTER_NAME": "staging-1", "CLUSTER_PHASE": "Upgrading", "CLUSTER_UPGRADE_TO": "1.31"}
    assert staging["spec"]["source"]["plugin"]["name"] == "argocd-lifecycle-v1"
    assert staging["spec"]["destination"] == {"server": "https://staging-1.example.test:6443", "namespace": "guestbook"}
    assert _env(apps["guestbook-prod-eu-1"])["CLUSTER_UPGRADE_TO"] == ""
    # the phase-driven syncPolicy comes from the templatePatch; the template's syncOptions survive it
    policy = {name: _automated(app) for name, app in apps.items()}
    assert policy == {
        "guestbook-prod-eu-1": (True, True, True),  # Ready
        "guestbook-prod-us-1": (True, False, True),  # Degraded: no prune
        "guestbook-staging-1": (True, False, True),  # Upgrading: no prune
        "guestbook-edge-7": (False, False, False),  # Unreachable: no automated sync
        "guestbook-old-1": (False, False, False),  # Decommissioning
    }
    assert all(app["spec"]["syncPolicy"]["syncOptions"] == ["CreateNamespace=true"] for app in apps.values())
    assert all("finalizers" not in app["metadata"] for app in apps.values())  # preserveResourcesOnDeletion


def test_the_rollout_example_puts_each_clusters_revision_into_target_revision(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease
) -> None:
    appset: dict[str, Any] = yaml.safe_load(ROLLOUT_EXAMPLE.read_text())
    assert appset["metadata"]["name"] == ROLLOUT_APPSET
    rollout = appset["spec"]["generators"][0]["plugin"]["input"]["parameters"]["rollout"]
    # the sample fleet's own first wave (its eu cluster); no windows, so the answer does not depend on the clock
    rollout["waves"] = [{"name": "eu", "labelSelector": {"matchLabels": {"region": "eu"}}}, {"name": "rest"}]
    del rollout["windows"]
    path = tmp_path / "appset.yaml"
    path.write_text(yaml.safe_dump(appset))
    apps = _applications(argocd_release, path, _objects(live_service, tmp_path))
    revisions = {name.removeprefix("guestbook-"): app["spec"]["source"]["targetRevision"] for name, app in apps.items()}
    # the eu wave first; the others wait, and those not Ready (Degraded, Upgrading, Unreachable,
    # Decommissioning) would keep what they run whatever the wave
    assert revisions == {
        "prod-eu-1": "v2.3.0",
        "prod-us-1": ROLLED_FROM,
        "staging-1": ROLLED_FROM,
        "edge-7": ROLLED_FROM,
        "old-1": ROLLED_FROM,
    }
    assert _automated(apps["guestbook-prod-eu-1"]) == (True, True, True)


def test_phase_change_reaches_annotations_env_and_sync_policy(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease
) -> None:
    objects = _objects(live_service, tmp_path)
    assert _automated(_applications(argocd_release, EXAMPLE, objects)["guestbook-prod-eu-1"]) == (True, True, True)
    live_service.fleet.update("prod-eu-1", phase=Phase.UNREACHABLE)
    app = _applications(argocd_release, EXAMPLE, objects)["guestbook-prod-eu-1"]
    assert app["metadata"]["annotations"]["argocd-lifecycle.io/cluster-phase"] == "Unreachable"
    assert _env(app)["CLUSTER_PHASE"] == "Unreachable"
    assert _automated(app) == (False, False, False)


def test_fasttemplate_mode_with_input_echo(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease
) -> None:
    apps = _applications(argocd_release, DATA / "fasttemplate-appset.yaml", _objects(live_service, tmp_path))
    # dropDecommissioned: true leaves old-1 out; readyOnly (default) leaves new-1 out
    assert sorted(apps) == ["guestbook-edge-7", "guestbook-prod-eu-1", "guestbook-prod-us-1", "guestbook-staging-1"]
    staging = apps["guestbook-staging-1"]
    assert staging["metadata"]["annotations"] == {
        "argocd-lifecycle.io/cluster-phase": "Upgrading",
        "argocd-lifecycle.io/cluster-phase-since": "2025-03-01T08:30:00Z",
        "example.com/team": "payments",
        "example.com/env": "staging",
        "example.com/kube": "1.30",
    }
    assert _env(staging) == {"CLUSTER_NAME": "staging-1", "CLUSTER_PHASE": "Upgrading", "CLUSTER_UPGRADE_TO": "1.31"}


def test_refusals_reach_argo_cd_as_errors_not_empty_lists(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease
) -> None:
    objects = _objects(live_service, tmp_path)
    assert len(_applications(argocd_release, EXAMPLE, objects)) == 5
    for name in ("prod-eu-1", "prod-us-1", "edge-7"):
        live_service.fleet.remove(name)
    dropped = _eval(argocd_release, EXAMPLE, objects)
    assert dropped.returncode == 1
    assert dropped.stdout == ""
    assert (
        "API error with status code 503: mass-drop guard: holding ApplicationSet 'guestbook': this answer would "
        "drop 3 of the 5 clusters its Applications target" in dropped.stderr
    )

    live_service.fleet.set_synced(False)
    unsynced = _eval(argocd_release, EXAMPLE, objects)
    assert (
        "API error with status code 503: the cluster inventory has not listed the cluster Secrets yet"
        in unsynced.stderr
    )

    wrong = _eval(argocd_release, EXAMPLE, _objects(live_service, tmp_path, token="not-the-token"))
    assert "API error with status code 403: the bearer token does not match the configured token" in wrong.stderr


# -- drop-in parity with Argo CD's Cluster generator -------------------------------------------------

PARITY_CLUSTERS = [
    # (Secret name, cluster name, server, project, labels, annotations)
    ("c1", "Prod_EU 2", "https://prod-eu-2.example.test:6443", "", {"env": "prod", "region": "eu"}, {"team": "a"}),
    ("c2", "İstanbul-1", "https://ist-1.example.test", "team-a", {"env": "prod"}, {"team": "b", "x.io/y": "z"}),
    ("c3", "-edge.7-", "https://edge-7.example.test", "", {"env": "prod"}, {}),
    ("c4", "dev-1", "https://dev-1.example.test", "", {"env": "dev"}, {"team": "c"}),
]


def _cluster_secret(
    secret: str, name: str, server: str, project: str, labels: dict[str, str], annotations: dict[str, str]
) -> dict[str, Any]:
    data = {"name": name, "server": server, "config": "{}"}
    if project:
        data["project"] = project
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": secret,
            "labels": {CLUSTER_SECRET_LABEL: CLUSTER_SECRET_LABEL_VALUE, **labels},
            "annotations": annotations,
        },
        "stringData": data,
    }


def _parity_appset(generator: dict[str, Any], go_template: bool) -> dict[str, Any]:
    if go_template:
        annotations = {
            "name": "{{ .name }}",
            "normalized-by-argo": "{{ normalize .name }}",
            "env": '{{ index .metadata.labels "env" }}',
            "team": '{{ if .metadata.annotations }}{{ index .metadata.annotations "team" }}{{ end }}',
            "project": "{{ .project }}",
        }
        app_name, server = "p-{{ .nameNormalized }}", "{{ .server }}"
    else:
        annotations = {
            "name": "{{name}}",
            "env": "{{metadata.labels.env}}",
            "team": "{{metadata.annotations.team}}",
            "project": "{{project}}",
        }
        app_name, server = "p-{{nameNormalized}}", "{{server}}"
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "parity", "namespace": "argocd"},
        "spec": {
            "goTemplate": go_template,
            "generators": [generator],
            "template": {
                "metadata": {"name": app_name, "annotations": annotations},
                "spec": {
                    "project": "default",
                    "source": {"repoURL": "https://git.example.com/p.git", "path": "p", "targetRevision": "main"},
                    "destination": {"server": server, "namespace": "p"},
                },
            },
        },
    }


@pytest.mark.parametrize("go_template", [True, False], ids=["goTemplate", "fasttemplate"])
def test_drop_in_for_the_cluster_generator(
    live_service: LiveService, tmp_path: Path, argocd_release: ArgocdRelease, go_template: bool
) -> None:
    fleet = live_service.fleet
    for cluster in fleet.clusters():
        fleet.remove(cluster.name)
    for secret, name, server, project, labels, notes in PARITY_CLUSTERS:
        fleet.put(
            ClusterState(
                name=name,
                server=server,
                secret_name=secret,
                project=project,
                labels={CLUSTER_SECRET_LABEL: CLUSTER_SECRET_LABEL_VALUE, **labels},
                annotations=notes,
                ready=True,
            )
        )
    objects = _objects(live_service, tmp_path, extra=[_cluster_secret(*c) for c in PARITY_CLUSTERS])
    selector = {"matchLabels": {"env": "prod"}}
    runs = {}
    for kind, generator in {
        "clusters": {"clusters": {"selector": selector}},
        "plugin": {
            "plugin": {"configMapRef": {"name": CONFIGMAP}, "input": {"parameters": {"labelSelector": selector}}}
        },
    }.items():
        appset = tmp_path / f"{kind}.yaml"
        appset.write_text(yaml.safe_dump(_parity_appset(generator, go_template)))
        runs[kind] = _applications(argocd_release, appset, objects)
    assert sorted(runs["plugin"]) == ["p-edge.7", "p-istanbul-1", "p-prod-eu-2"]
    assert runs["plugin"] == runs["clusters"]
    if go_template:
        for name, app in runs["plugin"].items():
            assert name == "p-" + app["metadata"]["annotations"]["normalized-by-argo"]
