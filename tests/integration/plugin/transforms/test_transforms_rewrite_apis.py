"""The API rewrite inside `plugin generate` (plugin/transforms/rewrite_apis.py), run as Argo CD runs it:
a fresh process in the app folder."""

from __future__ import annotations

from pathlib import Path

from tests.integration.plugin.helpers import INGRESS, MARKER, docs, params, run_generate
from tests.unit.plugin.helpers import write

PSP = "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: restricted}\nspec: {}\n"


FLOW = "apiVersion: flowcontrol.apiserver.k8s.io/v1beta1\nkind: FlowSchema\nmetadata: {name: f}\nspec: {}\n"


HPA = (
    "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: web}\n"
    "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 4\n"
)


def test_removed_api_without_replacement_fails_the_render(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "", "ingress.yaml": INGRESS, "psp.yaml": PSP})
    result = run_generate(app, {"KUBE_VERSION": "1.25.4"})
    assert result.returncode == 1 and result.stdout == ""
    assert (
        "error: PodSecurityPolicy/restricted (psp.yaml#0): policy/v1beta1 PodSecurityPolicy is removed in 1.25"
        in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_drop_policy_renders_the_rest_for_the_target(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "parameters: {onRemoved: drop}\n", "ingress.yaml": INGRESS, "psp.yaml": PSP})
    result = run_generate(app, {"KUBE_VERSION": "1.25.4"})
    assert result.returncode == 0, result.stderr
    (ingress,) = docs(result.stdout)
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert ingress["spec"]["rules"][0]["http"]["paths"][0] == {
        "path": "/",
        "pathType": "ImplementationSpecific",
        "backend": {"service": {"name": "shop", "port": {"number": 80}}},
    }
    annotations = ingress["metadata"]["annotations"]
    assert annotations["argocd-lifecycle.io/rewritten-from"] == "extensions/v1beta1"
    assert "warning: PodSecurityPolicy/restricted (psp.yaml#0): dropped" in result.stderr


def test_the_cluster_api_list_decides_over_the_table(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "", "flow.yaml": FLOW})
    static = run_generate(app, {"KUBE_VERSION": "1.27"})
    assert docs(static.stdout)[0]["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1beta3"
    listed = run_generate(
        app,
        {
            "KUBE_VERSION": "1.27",
            "KUBE_API_VERSIONS": ",".join(
                ["flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta2/FlowSchema", "v1"]
            ),
        },
    )
    assert listed.returncode == 0, listed.stderr
    assert docs(listed.stdout)[0]["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1beta2"


def test_upgrading_cluster_gets_versions_both_releases_serve(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "", "flow.yaml": FLOW, "hpa.yaml": HPA})
    ready = run_generate(
        app, {"KUBE_VERSION": "1.25", "ARGOCD_ENV_CLUSTER_PHASE": "Ready", "ARGOCD_ENV_CLUSTER_UPGRADE_TO": "1.26"}
    )
    assert [d["apiVersion"] for d in docs(ready.stdout)] == [
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "autoscaling/v2beta2",
    ]
    upgrading = run_generate(
        app, {"KUBE_VERSION": "1.25", "ARGOCD_ENV_CLUSTER_PHASE": "Upgrading", "ARGOCD_ENV_CLUSTER_UPGRADE_TO": "1.26"}
    )
    assert upgrading.returncode == 0, upgrading.stderr
    assert [d["apiVersion"] for d in docs(upgrading.stdout)] == [
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "autoscaling/v2",
    ]


def test_rewrite_can_be_switched_off(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "", "psp.yaml": PSP})
    result = run_generate(app, {"KUBE_VERSION": "1.25", "ARGOCD_APP_PARAMETERS": params(rewriteApis="false")})
    assert result.returncode == 0, result.stderr
    assert docs(result.stdout)[0]["apiVersion"] == "policy/v1beta1"


def test_unknown_target_leaves_objects_and_says_why(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "", "ingress.yaml": INGRESS})
    result = run_generate(app, {})
    assert result.returncode == 0, result.stderr
    assert docs(result.stdout)[0]["apiVersion"] == "extensions/v1beta1"
    assert "note: API rewrite skipped for 1 object(s)" in result.stderr and "KUBE_VERSION" in result.stderr
    # nothing to say when no object could be affected (core v1 has a rule, but only for Endpoints)
    quiet = write(tmp_path / "quiet", {MARKER: "", "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    assert run_generate(quiet, {}).stderr == ""


def test_additional_rules_come_from_the_app_folder(tmp_path: Path) -> None:
    rules = (
        "apis:\n- {apiVersion: example.test/v1beta1, kind: Widget, removedIn: '1.28',"
        " replacements: [{apiVersion: example.test/v1, since: '1.25'}]}\n"
    )
    widget = "apiVersion: example.test/v1beta1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 2}\n"
    app = write(
        tmp_path / "app",
        {
            MARKER: "parameters: {additionalVersions: rules/widgets.rules}\n",
            "rules/widgets.rules": rules,
            "w.yaml": widget,
        },
    )
    result = run_generate(app, {"KUBE_VERSION": "1.29"})
    assert result.returncode == 0, result.stderr
    assert docs(result.stdout)[0]["apiVersion"] == "example.test/v1"
    write(tmp_path, {"outside.yaml": rules})
    escaped = run_generate(
        app, {"KUBE_VERSION": "1.29", "ARGOCD_APP_PARAMETERS": params(additionalVersions="../outside.yaml")}
    )
    assert escaped.returncode == 1
    assert "error: parameter additionalVersions: ../outside.yaml is outside the application folder" in escaped.stderr


def test_bad_on_removed_parameter(tmp_path: Path) -> None:
    app = write(tmp_path, {MARKER: "parameters: {onRemoved: shrug}\n", "psp.yaml": PSP})
    result = run_generate(app, {"KUBE_VERSION": "1.25"})
    assert result.returncode != 0
    assert "parameter onRemoved: expected fail, drop or keep, got 'shrug'" in result.stderr
