"""Argo CD's own manifests from the pinned module in the Go module cache (tools/go/argocd/go.mod, fetched
by `make tools`): its CRDs, to validate Applications and ApplicationSets, and its install.yaml. Read in
place, never copied into the repository."""

from __future__ import annotations

import copy
import functools
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.unit.docs.blocks import REPO

MODULE = "github.com/argoproj/argo-cd/v3"
CONSUMER = REPO / "tools" / "go" / "argocd"


@functools.cache
def module_dir() -> Path:
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=readonly"}
    try:
        proc = subprocess.run(
            ["go", "list", "-m", "-f", "{{.Dir}}", MODULE],
            cwd=CONSUMER,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    except OSError as exc:
        pytest.fail(f"go is needed to find {MODULE} in the module cache: {exc}")
    path = Path(proc.stdout.strip())
    if proc.returncode != 0 or not proc.stdout.strip() or not (path / "manifests" / "crds").is_dir():
        pytest.fail(f"{MODULE} (pinned in tools/go/argocd/go.mod) is not in the Go module cache: run `make tools`")
    return path


def strict(schema: Any) -> Any:
    """A CRD's structural schema with unknown fields refused where the API server would prune them."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if (
                node.get("type") == "object"
                and "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
            ):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(out)
    return out


@functools.cache
def crd_schemas() -> dict[tuple[str, str], Any]:
    """(apiVersion, kind) -> the strict schema of every version of Argo CD's CRDs."""
    out: dict[tuple[str, str], Any] = {}
    for path in sorted((module_dir() / "manifests" / "crds").glob("*-crd.yaml")):
        crd = yaml.safe_load(path.read_text(encoding="utf-8"))
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            out[(f"{group}/{version['name']}", kind)] = strict(version["schema"]["openAPIV3Schema"])
    return out


def crd_errors(doc: dict[str, Any]) -> list[str] | None:
    """Schema errors of an Argo CD object, or None when the object is not of Argo CD's kinds."""
    schema = crd_schemas().get((doc.get("apiVersion", ""), doc.get("kind", "")))
    if schema is None:
        return None
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(doc)]


#: the volumes Argo CD's repo-server has for a CMP sidecar (install.yaml, argo-helm, the Operator)
REPO_SERVER_VOLUMES = ("var-files", "plugins")


def validate_sidecar(container: dict[str, Any], volumes: list[dict[str, Any]], kube_version: str) -> None:
    """The sidecar strictly as a container of the repo-server's Pod, whose own volumes it shares."""
    given = [{"name": n, "emptyDir": {}} for n in REPO_SERVER_VOLUMES]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "repo-server"},
        "spec": {"containers": [container], "volumes": [*volumes, *given]},
    }
    kubernetes_validate.validate(pod, kube_version, strict=True)
