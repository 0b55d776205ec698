"""The install paths for Argo CD installed without argo-helm, rendered and validated with the real tools:
the Kustomize component applied to install.yaml of the pinned Argo CD module by the real kustomize, and
the Argo CD Operator's ArgoCD resource against the CRD of the operator's own Go module."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from argocd_lifecycle.plugin.commands.sidecar_snippet import SidecarOptions, sidecar_values
from tests.integration.chart.chartkit import tool
from tests.integration.docs.argocd_module import REPO_SERVER_VOLUMES, module_dir, strict, validate_sidecar
from tests.unit.deploy.generate import COMPONENT, OPERATOR, OPERATOR_VERSION

pytestmark = pytest.mark.upstream

KUBE_VERSION = "1.34"
IMAGE = "registry.example/team/argocd-lifecycle"


def build(folder: Path) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [tool("kustomize"), "build", str(folder)], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def kustomization(tmp_path: Path, *, component: bool) -> Path:
    folder = tmp_path / ("with" if component else "without")
    folder.mkdir()
    shutil.copy(module_dir() / "manifests" / "install.yaml", folder / "install.yaml")  # read, kept out of the repo
    k: dict[str, Any] = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
    k["resources"] = ["install.yaml"]
    if component:
        k["components"] = [os.path.relpath(COMPONENT, folder)]
        k["images"] = [{"name": "argocd-lifecycle", "newName": IMAGE}]
    (folder / "kustomization.yaml").write_text(yaml.safe_dump(k))
    return folder


def by_name(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    named = {i["name"]: i for i in items}
    assert len(named) == len(items), "two items share a name"
    return named


def repo_server(docs: list[dict[str, Any]]) -> dict[str, Any]:
    (d,) = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "argocd-repo-server"]
    return d


def test_the_component_adds_the_sidecar_to_upstreams_repo_server(tmp_path: Path) -> None:
    plain = build(kustomization(tmp_path, component=False))
    patched = build(kustomization(tmp_path, component=True))
    expected = sidecar_values(SidecarOptions(image=f"{IMAGE}:0.1.0"))["repoServer"]
    server = repo_server(patched)
    kubernetes_validate.validate(server, KUBE_VERSION, strict=True)
    pod = server["spec"]["template"]["spec"]
    original = repo_server(plain)["spec"]["template"]["spec"]
    # upstream's containers and volumes stay; ours are added (merged by name), the image set by images:
    assert by_name(pod["containers"]) == by_name([*original["containers"], *expected["extraContainers"]])
    assert by_name(pod["volumes"]) == by_name([*original["volumes"], *expected["volumes"]])
    # what the sidecar mounts is there: upstream's var-files and plugins, our ConfigMap and /tmp
    (sidecar,) = expected["extraContainers"]
    assert {m["name"] for m in by_name(pod["containers"])[sidecar["name"]]["volumeMounts"]} <= set(
        by_name(pod["volumes"])
    )
    # nothing else of install.yaml changed
    key = [(d["kind"], d["metadata"]["name"]) for d in plain]
    assert key == [(d["kind"], d["metadata"]["name"]) for d in patched]
    assert [d for d in patched if d is not server] == [d for d in plain if d is not repo_server(plain)]


@pytest.fixture(scope="module")
def operator_dir() -> Path:
    """The operator's CRDs, fetched by tools/build.sh (operator_crds) at the version the install path names."""
    path = Path(tool("argocd-operator-crds")).resolve()
    assert path.name == f"argocd-operator-crds-{OPERATOR_VERSION}", f"tools/build.sh fetches {path.name}"
    return path


def test_the_argocd_resource_is_what_the_operators_crd_accepts(operator_dir: Path) -> None:
    crd = yaml.safe_load((operator_dir / "config" / "crd" / "bases" / "argoproj.io_argocds.yaml").read_text())
    resource = yaml.safe_load(OPERATOR.read_text())
    (version,) = [v for v in crd["spec"]["versions"] if f"{crd['spec']['group']}/{v['name']}" == resource["apiVersion"]]
    assert version["served"] and version["storage"]
    validator = jsonschema.Draft7Validator(strict(version["schema"]["openAPIV3Schema"]))
    assert [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(resource)] == []


def test_the_operator_gives_the_repo_server_what_the_sidecar_mounts(operator_dir: Path) -> None:
    repo = yaml.safe_load(OPERATOR.read_text())["spec"]["repo"]
    (container,) = repo["sidecarContainers"]
    source = (operator_dir / "controllers" / "argocd" / "repo_server.go").read_text()
    given = {name for name in REPO_SERVER_VOLUMES if f'Name: "{name}",' in source}
    ours = {v["name"] for v in repo["volumes"]}
    assert {m["name"] for m in container["volumeMounts"]} <= given | ours
    assert given == {"var-files", "plugins"} and not given & ours
    validate_sidecar(container, repo["volumes"], KUBE_VERSION)
